#include "server/routes.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

namespace ontomem::server {
namespace {

using json = nlohmann::json;

constexpr const char* kJson = "application/json";

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path[0] != '/') return out;
  path.remove_prefix(1);
  for (;;) {
    const size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// Matches `path` against `pattern`; fills *user with the {user} segment.
bool MatchPath(std::string_view pattern, std::string_view path, std::string* user) {
  const auto p = Segments(pattern), s = Segments(path);
  if (p.size() != s.size()) return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == "{user}") {
      if (s[i].empty()) return false;
      *user = std::string(s[i]);
    } else if (p[i] != s[i]) {
      return false;
    }
  }
  return true;
}

std::string BodySize(size_t n) {
  if (n == 0) return "none";
  if (n % (1 << 20) == 0) return fmt::format("{} MiB", n >> 20);
  if (n % (1 << 10) == 0) return fmt::format("{} KiB", n >> 10);
  return fmt::format("{} B", n);
}

struct QueryParam {
  std::string name, def, meaning;
};
// "offset=0: first turn; limit=100: page size" -> {offset, 0, first turn}, ...
std::vector<QueryParam> QueryParams(std::string_view q) {
  std::vector<QueryParam> out;
  while (!q.empty()) {
    const size_t semi = q.find("; ");
    std::string_view item = q.substr(0, semi);
    q = semi == std::string_view::npos ? std::string_view() : q.substr(semi + 2);
    const size_t eq = item.find('='), colon = item.find(": ");
    out.push_back({std::string(item.substr(0, eq)), std::string(item.substr(eq + 1, colon - eq - 1)),
                   std::string(item.substr(colon + 2))});
  }
  return out;
}

std::string OperationId(const Route& r) {
  std::string id = r.method;
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char c : std::string_view(r.path)) {
    if (std::isalnum(static_cast<unsigned char>(c))) id += c;
    else if (id.back() != '_') id += '_';
  }
  if (id.back() == '_') id.pop_back();
  return id;
}

}  // namespace

const std::vector<Route>& RouteTable() {
  static const std::vector<Route> routes = {
      {"POST", "/v1/users/{user}/turns", "Store a batch of turns; the batch is atomic (all or none).", true,
       kBodyLimit, "",
       R"({"turns":[{"id":"D1:1","speaker":"Ana","text":"I adore old romantic films.","time":"2024-01-02T03:04:05Z","session":"s1"},{"speaker":"Ana","text":"By the way, I'm allergic to peanuts.","time":1704164700000}]})",
       kJson, R"({"stored":2,"duplicates":0,"turns":[{"id":"D1:1","seq":1},{"id":"T2","seq":2}]})", &Api::PostTurns},
      {"POST", "/v1/users/{user}/search", "Rank the user's turns for a query, with per-view scores and a query_id.",
       true, 512 << 10, "",
       R"({"query":"which films does Ana like?","k":5,"asker":"Ana","context":["we talked about the weekend"],"method":"fusion","max_context_tokens":200,"collapse_duplicates":true})",
       kJson,
       R"({"query_id":"q7f3a9c2e01b4d5a6","method":"fusion","route":"","latency_us":412,"context_tokens":5,"candidates":2,"graph_candidates":0,"query_domains":[],"uncertainty":"","view_overlap":null,"hits":[{"id":"D1:1","seq":1,"speaker":"Ana","text":"I adore old romantic films.","time":1704164645000,"session":"s1","score":0.71,"dense_score":0.64,"bm25_score":1.92,"graph_score":0.0,"dense_rank":1,"bm25_rank":1,"path":""}]})",
       &Api::PostSearch},
      {"POST", "/v1/users/{user}/feedback", "Store feedback on a search's hits (used, wrong, missed turn ids).", true,
       1 << 20, "", R"({"query_id":"q7f3a9c2e01b4d5a6","query":"which films does Ana like?","used":["D1:1"],"wrong":[],"missed":[]})",
       kJson, R"({"ok":true})", &Api::PostFeedback},
      {"POST", "/v1/users/{user}/facts", "Add an explicit fact to the user's memory graph (no extraction).", true,
       64 << 10, "", R"({"relation":"ALLERGIC_TO","tail":"peanuts","tail_type":"allergen","domain":"food_diet"})",
       kJson, R"({"ok":true})", &Api::PostFact},
      {"GET", "/v1/users", "List the tenant's users (sorted).", true, 0, "", "", kJson, R"({"users":["ana","ben"]})",
       &Api::ListUsers},
      {"GET", "/v1/users/{user}/turns", "Read the user's turns in order of arrival, a page at a time.", true, 0,
       "offset=0: index of the first turn to return (0-based), 0..1099511627776 (past the last turn: an "
       "empty page, next_offset null); limit=100: turns per page, 1..1000",
       "", kJson,
       R"({"turns":[{"id":"D1:1","seq":1,"speaker":"Ana","text":"I adore old romantic films.","time":1704164645000,"session":"s1"}],"total":2,"next_offset":1})",
       &Api::GetTurns},
      {"GET", "/v1/users/{user}/graph", "The user's memory graph: concepts, edges with weights, validity and provenance.",
       true, 0, "", "", kJson,
       R"({"nodes":[{"id":"ana","label":"ana","type":"person"},{"id":"peanuts","label":"peanuts","type":"allergen"}],"edges":[{"source":"ana","relation":"ALLERGIC_TO","target":"peanuts","weight":1.0,"valid_from":1704164700000,"valid_to":null,"promoted":false,"explicit":true,"source_turns":[]}]})",
       &Api::GetGraph},
      {"GET", "/v1/users/{user}/export", "The whole user as one JSON document (format in docs/formats.md).", true, 0,
       "", "", kJson, R"({"tenant":"acme","user":"ana","turns":[{"id":"D1:1","seq":1,"speaker":"Ana","text":"I adore old romantic films."}]})",
       &Api::GetExport},
      {"DELETE", "/v1/users/{user}", "Forget the user: everything stored for them goes in one transaction.", true, 0,
       "", "", kJson, R"({"deleted":true})", &Api::DeleteUser},
      {"GET", "/healthz", "Liveness: answers while the server accepts requests.", false, 0, "", "", kJson,
       R"({"status":"ok"})", &Api::Healthz},
      {"GET", "/metrics", "Prometheus metrics: requests and latency per route, ingest and search counts, in-flight "
       "requests, loaded users, memory.", false, 0, "", "", "text/plain; version=0.0.4",
       "ontomem_http_requests_total{route=\"/v1/users/{user}/search\",method=\"POST\",code=\"200\"} 42", &Api::MetricsText},
      {"GET", "/v1/openapi.json", "This API as an OpenAPI 3.0 document.", false, 0, "", "", kJson,
       R"({"openapi":"3.0.3","info":{"title":"ontomem HTTP API","version":"1"},"paths":{}})", &Api::OpenApi},
      {"GET", "/", "The web inspector: timeline, memory graph, search with per-view scores, feedback.", false, 0, "", "",
       "text/html", "<!doctype html>...", &Api::Inspector},
  };
  return routes;
}

size_t MaxBody(const Route& route, const Limits& limits) {
  return route.max_body == kBodyLimit ? limits.max_body_bytes : route.max_body;
}

RouteMatch MatchRoute(std::string_view method, std::string_view path) {
  if (method == "HEAD") method = "GET";
  RouteMatch m;
  const auto& routes = RouteTable();
  for (size_t i = 0; i < routes.size(); ++i) {
    std::string user;
    if (!MatchPath(routes[i].path, path, &user)) continue;
    if (method == routes[i].method) {
      m.route = &routes[i];
      m.index = i;
      m.user = std::move(user);
      m.allowed.clear();
      return m;
    }
    m.allowed += (m.allowed.empty() ? "" : ", ") + std::string(routes[i].method);
  }
  return m;
}

bool DecodePathSegment(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    const int hi = hex(in[i + 1]), lo = hex(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

std::string HttpApiMarkdown(const Limits& limits) {
  std::string md;
  md += "# HTTP API\n\n";
  md += "<!-- Generated by `ontomem docs http-api` from the route table in src/server/routes.cc; a test\n"
        "     checks this file against it. Edit the table, then regenerate. -->\n\n";
  md += "`ontomem serve --data DIR --keys FILE --host 127.0.0.1 --port 8080` serves the routes below.\n"
        "Create a key with `ontomem keys add --keys FILE TENANT` (printed once; the file keeps only its\n"
        "SHA-256; concurrent adds wait for each other on `FILE.lock`). Send it as `Authorization: Bearer KEY`: the key decides the tenant, and a key only\n"
        "ever sees its own tenant's users (another tenant's user is `404 unknown user`).\n"
        "`{user}` is one URL-encoded path segment. Bodies are JSON (UTF-8); unknown fields are ignored.\n\n";
  md += "## Routes\n\n| Method | Path | Auth | Max body | Summary |\n|---|---|---|---|---|\n";
  for (const Route& r : RouteTable())
    md += fmt::format("| {} | `{}` | {} | {} | {} |\n", r.method, r.path, r.auth ? "key" : "none",
                      BodySize(MaxBody(r, limits)), r.summary);
  md += "\n## Errors\n\nEvery answer that is not 2xx has the body\n"
        "`{\"error\":{\"code\":\"...\",\"message\":\"...\"}}`; the message names the field, e.g.\n"
        "`turns[2].time: expected an integer or an RFC 3339 string`. `docs/bad_input.md` lists what each\n"
        "kind of bad request gets.\n\n"
        "| Status | code | When |\n|---|---|---|\n"
        "| 400 | `invalid_argument` | malformed JSON, a wrong type, a missing field, invalid UTF-8, a bad value |\n"
        "| 401 | `unauthenticated` | no `Authorization: Bearer` key, or an unknown key |\n"
        "| 404 | `not_found` | unknown route or unknown user (of this tenant) |\n"
        "| 405 | `invalid_argument` | the path exists but not with this method (`Allow` lists those that do) |\n"
        "| 409 | `already_exists` | a turn id reused with different content |\n"
        "| 413 | `payload_too_large` | the body, a turn's text, the query or the batch exceeds its limit |\n"
        "| 415 | `unsupported_media_type` | a form upload (send JSON) or a `Content-Encoding` other than gzip or deflate |\n"
        "| 429 | `rate_limited` | the tenant's request rate is over its limit (`Retry-After` seconds) |\n"
        "| 429 | `quota_exceeded` | the tenant's storage quota would be exceeded (`Retry-After` seconds) |\n"
        "| 500 | `internal` | a bug or an I/O failure (details only in the server log) |\n"
        "| 503 | `unavailable` | the engine cannot serve this now: a feature not available, a read-only data directory, or another process held the database's write lock past the 10 s busy timeout, counted from when the write reached the engine, however long it queued behind this server's own writes (`database is locked`; nothing was stored, resend) |\n\n";
  md += fmt::format(
      "## Limits (defaults; `ontomem serve --help` lists the flags)\n\n"
      "| Limit | Default |\n|---|---|\n"
      "| request body | {} (per route above) |\n| one turn's text | {} |\n| turns per batch | {} |\n"
      "| search `k` | 1..{} |\n| query and each context item | {} |\n| context items | {} |\n"
      "| requests per tenant | 1000/s, bursts of 2000 (`--rate-per-sec`, `--burst`) |\n"
      "| storage per tenant | unlimited (`--quota-turns`, `--quota-bytes`) |\n"
      "| read / write timeout | 10 s each (`--read-timeout`, `--write-timeout`) |\n"
      "| loaded users in memory | 512 MiB, least recently used evicted past it (`--memory-budget-mb`) |\n\n",
      BodySize(limits.max_body_bytes), BodySize(limits.max_turn_bytes), limits.max_batch_turns, limits.max_k,
      BodySize(limits.max_query_bytes), limits.max_context_items);
  md += "Times are Unix milliseconds; requests may also give an RFC 3339 string. A stored time of 0\n"
        "(unknown) reads back as `null`.\n\n";
  md += "## Operations\n\n"
        "- A 200 on a write means it is committed (with `--durability full`, the default, it survives\n"
        "  power loss). A batch is one transaction; re-sending a batch after a timeout is safe when its\n"
        "  turns carry ids (`duplicates` counts the ones already stored). Searches of a user do not wait\n"
        "  for a write of that user to commit; they see it once its 200 has been sent.\n"
        "- SIGTERM or SIGINT: the server stops accepting, answers every request it is handling, then\n"
        "  closes the store and exits 0. Connections accepted but not yet read are closed unanswered\n"
        "  (nothing they sent was acknowledged); idle keep-alive connections may delay the exit by up to\n"
        "  the keep-alive timeout (5 s).\n"
        "- `/metrics`: `ontomem_http_requests_total{route,method,code}`,\n"
        "  `ontomem_http_request_duration_seconds` (histogram per route), `ontomem_ingested_turns_total`,\n"
        "  `ontomem_searches_total`, `ontomem_inflight_requests`, `ontomem_queued_connections`,\n"
        "  `ontomem_loaded_users`, `ontomem_memory_bytes`, `ontomem_user_cache_total{result}` (hits and\n"
        "  misses of the loaded-user cache), `ontomem_user_cache_evictions_total`,\n"
        "  `ontomem_user_private_copies_total` (searches that loaded a whole user for themselves because\n"
        "  another process wrote while a write of this one held it: a shared data directory under load),\n"
        "  `ontomem_fact_verifier_requests_total{result}` (requests to `--verify-url` that were\n"
        "  answered or failed; zeros without it).\n"
        "- With `--verify-url` a turns request answers only after the chat model has been asked about\n"
        "  every fact the rules found in its batch (one request each, about one per two turns on\n"
        "  LoCoMo): with a slow model, send smaller batches or raise the client's timeout.\n"
        "- The key file is read again when it changes (looked at once a second at most): a key made\n"
        "  with `ontomem keys add` works without a restart, a line removed stops its key. A changed\n"
        "  file that does not parse keeps the keys as they were (the server says why on stderr).\n"
        "- Turns may arrive in any order: the memory graph follows their times (ties in arrival\n"
        "  order), so an older history imported after newer turns does not reopen what the newer\n"
        "  ones ended. A batch older than what the user holds replays the user's graph (about 40 ms\n"
        "  for a 1,000-turn user, against 3 ms for 10 new turns): import a history in large batches.\n\n";
  for (const Route& r : RouteTable()) {
    md += fmt::format("## {} {}\n\n{}", r.method, r.path, r.summary);
    md += r.auth ? " Needs a key.\n\n" : " No key needed.\n\n";
    if (*r.query) {
      md += "Query parameters:\n\n";
      for (const QueryParam& q : QueryParams(r.query))
        md += fmt::format("- `{}` (default {}): {}\n", q.name, q.def, q.meaning);
      md += "\n";
    }
    if (*r.request) md += fmt::format("Request:\n\n```json\n{}\n```\n\n", json::parse(r.request).dump(2));
    const bool is_json = std::string_view(r.response_type) == kJson;
    md += fmt::format("Response `200` ({}):\n\n```{}\n{}\n```\n\n", r.response_type, is_json ? "json" : "",
                      is_json ? json::parse(r.response).dump(2) : std::string(r.response));
  }
  md.pop_back();
  return md;
}

std::string OpenApiJson(const Limits& limits) {
  json error_schema = {
      {"type", "object"},
      {"required", {"error"}},
      {"properties",
       {{"error",
         {{"type", "object"},
          {"required", {"code", "message"}},
          {"properties",
           {{"code",
             {{"type", "string"},
              {"enum", {"invalid_argument", "unauthenticated", "not_found", "already_exists", "payload_too_large",
                        "unsupported_media_type", "rate_limited", "quota_exceeded", "internal", "unavailable"}}}},
            {"message", {{"type", "string"}}}}}}}}}};
  json doc = {{"openapi", "3.0.3"},
              {"info",
               {{"title", "ontomem HTTP API"},
                {"version", "1"},
                {"description", "Long-term memory for conversational agents. Reference: docs/http_api.md."}}},
              {"components",
               {{"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}},
                {"schemas", {{"Error", error_schema}}}}},
              {"paths", json::object()}};
  auto error_response = [](const char* what) {
    return json{{"description", what},
                {"content", {{kJson, {{"schema", {{"$ref", "#/components/schemas/Error"}}}}}}}};
  };
  for (const Route& r : RouteTable()) {
    json op = {{"operationId", OperationId(r)}, {"summary", r.summary}};
    op["security"] = r.auth ? json::array({{{"bearer", json::array()}}}) : json::array();
    json params = json::array();
    if (std::string_view(r.path).find("{user}") != std::string_view::npos)
      params.push_back({{"name", "user"},
                        {"in", "path"},
                        {"required", true},
                        {"description", "user name (URL-encoded), unique within the tenant"},
                        {"schema", {{"type", "string"}}}});
    for (const QueryParam& q : QueryParams(r.query))
      params.push_back({{"name", q.name},
                        {"in", "query"},
                        {"required", false},
                        {"description", q.meaning},
                        {"schema", {{"type", "integer"}, {"default", std::stoll(q.def)}}}});
    if (!params.empty()) op["parameters"] = params;
    if (*r.request)
      op["requestBody"] = {
          {"required", true},
          {"description", fmt::format("at most {} bytes", MaxBody(r, limits))},
          {"content", {{kJson, {{"schema", {{"type", "object"}}}, {"example", json::parse(r.request)}}}}}};
    const bool is_json = std::string_view(r.response_type) == kJson;
    json ok_content = {{"schema", {{"type", is_json ? "object" : "string"}}}};
    ok_content["example"] = is_json ? json::parse(r.response) : json(r.response);
    json responses = {{"200", {{"description", "OK"}, {"content", {{r.response_type, ok_content}}}}}};
    if (*r.request || *r.query || r.auth) responses["400"] = error_response("invalid request (the message names the field)");
    if (r.auth) {
      responses["401"] = error_response("missing or unknown API key");
      responses["404"] = error_response("unknown user");
      responses["429"] = error_response("rate limit or storage quota (see Retry-After)");
    }
    if (*r.request) responses["413"] = error_response("a size limit was exceeded");
    if (std::string_view(r.path) == "/v1/users/{user}/turns" && std::string_view(r.method) == "POST")
      responses["409"] = error_response("a turn id reused with different content");
    responses["500"] = error_response("internal error");
    op["responses"] = responses;
    std::string method = r.method;
    for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    doc["paths"][r.path][method] = op;
  }
  return doc.dump(2);
}

}  // namespace ontomem::server
