#include "server/bad_input.h"

#include <fmt/format.h>
#include <httplib.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "ontomem/embedder.h"
#include "ontomem/memory.h"
#include "server/http_server.h"
#include "server/keys.h"
#include "server/sha256.h"
#include "text/text.h"

namespace ontomem::server {
namespace {

// Deterministic bag-of-words vectors: the page must not depend on a lexicon.
class HashEmbedder : public Embedder {
 public:
  std::string id() const override { return "bad-input-hash-32"; }
  int dim() const override { return 32; }
  Status Embed(std::string_view text, float* out) const override {
    for (int i = 0; i < 32; ++i) out[i] = 0;
    for (const std::string& t : text::ContentTerms(text)) out[std::hash<std::string>{}(t) % 32] += 1;
    return Status::Ok();
  }
};

constexpr const char* kAcmeKey = "om_bad_input_acme";
constexpr const char* kGlobexKey = "om_bad_input_globex";

struct Case {
  std::string what;
  std::string method;
  std::string path;
  std::string auth;  // "acme", "globex", "" (none), or a raw Authorization header value
  std::string body;
  std::string shown;  // how the body is shown (default: the body itself)
};

std::string Cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// Bytes as a JSON-ish literal: invalid UTF-8 and control bytes as \xNN.
std::string Printable(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t bad = 0;
    std::string_view rest(s.data() + i, s.size() - i);
    if (text::IsValidUtf8(rest, &bad)) bad = rest.size();
    for (size_t j = 0; j < bad; ++j) {
      const unsigned char c = static_cast<unsigned char>(rest[j]);
      out += c < 0x20 ? fmt::format("\\x{:02x}", c) : std::string(1, rest[j]);
    }
    i += bad;
    if (i < s.size()) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i++]));
  }
  return out;
}

std::string Turns(const std::string& turn) { return "{\"turns\":[" + turn + "]}"; }

StatusOr<std::string> Run(httplib::Client& cli, const Case& c, std::string* row) {
  httplib::Headers headers;
  if (c.auth == "acme") headers.emplace("Authorization", std::string("Bearer ") + kAcmeKey);
  else if (c.auth == "globex") headers.emplace("Authorization", std::string("Bearer ") + kGlobexKey);
  else if (!c.auth.empty()) headers.emplace("Authorization", c.auth);
  httplib::Result res(nullptr, httplib::Error::Unknown);
  if (c.method == "GET") res = cli.Get(c.path.c_str(), headers);
  else if (c.method == "POST") res = cli.Post(c.path.c_str(), headers, c.body, "application/json");
  else if (c.method == "PUT") res = cli.Put(c.path.c_str(), headers, c.body, "application/json");
  else if (c.method == "DELETE") res = cli.Delete(c.path.c_str(), headers);
  if (!res) return Status::Unavailable(fmt::format("{} {}: no answer ({})", c.method, c.path, httplib::to_string(res.error())));
  std::string answer;
  auto j = nlohmann::json::parse(res->body, nullptr, false);
  if (res->status >= 400 && j.is_object() && j.contains("error"))
    answer = fmt::format("`{}`: {}", j["error"]["code"].get<std::string>(), j["error"]["message"].get<std::string>());
  else
    answer = res->body.size() > 80 ? res->body.substr(0, 77) + "..." : res->body;
  for (const char* h : {"Retry-After", "Allow", "WWW-Authenticate"})
    if (res->has_header(h)) answer += fmt::format(" (`{}: {}`)", h, res->get_header_value(h));
  std::string shown = c.shown.empty() ? Printable(c.body) : c.shown;
  if (shown.size() > 90) shown = shown.substr(0, 87) + "...";
  std::string path = c.path.size() > 60 ? c.path.substr(0, 45) + "..." + c.path.substr(c.path.size() - 6) : c.path;
  std::string request = fmt::format("`{} {}`", c.method, path);
  if (!c.auth.empty() && c.auth != "acme") request += fmt::format(" key: {}", c.auth);
  if (!shown.empty()) request += fmt::format(" `{}`", shown);
  *row = fmt::format("| {} | {} | {} | {} |\n", Cell(c.what), Cell(request), res->status, Cell(answer));
  return *row;
}

}  // namespace

StatusOr<std::string> BadInputMarkdown() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "ontomem-bad-input-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return Status::IOError("cannot create a temporary directory");
  const std::string dir = tmpl;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};

  Options mo;
  mo.data_dir = dir;
  mo.embedder = std::make_shared<HashEmbedder>();
  mo.extract_facts = false;
  mo.durability = Durability::kOff;
  ASSIGN_OR_RETURN(auto memory, Memory::Open(mo));
  ASSIGN_OR_RETURN(KeyStore keys, KeyStore::Parse(fmt::format("acme\t{}\nglobex\t{}\n", Sha256Hex(kAcmeKey),
                                                              Sha256Hex(kGlobexKey)), "keys"));
  ServerOptions so;
  so.port = 0;
  std::string md;
  {
    HttpServer server(memory.get(), keys, so);
    RETURN_IF_ERROR(server.Start());
    httplib::Client cli("127.0.0.1", server.port());
    cli.set_read_timeout(30, 0);
    cli.set_write_timeout(30, 0);
    const std::string ana = "/v1/users/ana";
    const std::string ok_turn = R"({"id":"D1:1","speaker":"Ana","text":"I adore old romantic films."})";
    std::string seed;
    RETURN_IF_ERROR(Run(cli, {"(setup) store a turn", "POST", ana + "/turns", "acme", Turns(ok_turn), ""}, &seed).status());
    const std::vector<Case> cases = {
        {"no API key", "GET", "/v1/users", "", "", ""},
        {"unknown API key", "GET", "/v1/users", "Bearer om_0000", "", ""},
        {"not a Bearer key", "GET", "/v1/users", "Basic YWxhZGRpbjpvcGVu", "", ""},
        {"another tenant's user", "GET", ana + "/turns", "globex", "", ""},
        {"another tenant's user (write)", "POST", ana + "/search", "globex", R"({"query":"films"})", ""},
        {"unknown route", "GET", "/v1/nothing", "acme", "", ""},
        {"wrong method", "PUT", ana + "/turns", "acme", Turns(ok_turn), ""},
        {"malformed JSON", "POST", ana + "/turns", "acme", R"({"turns":[{"speaker":"Ana","text":"hi"})", ""},
        {"trailing garbage", "POST", ana + "/turns", "acme", Turns(ok_turn) + "x", ""},
        {"a NUL byte, then garbage", "POST", ana + "/turns", "acme", Turns(ok_turn) + std::string(1, '\0') + "{x", ""},
        {"body is not an object", "POST", ana + "/turns", "acme", "[1,2]", ""},
        {"empty body", "POST", ana + "/turns", "acme", "", ""},
        {"missing field", "POST", ana + "/turns", "acme", "{}", ""},
        {"wrong type (turns)", "POST", ana + "/turns", "acme", R"({"turns":"hello"})", ""},
        {"empty batch", "POST", ana + "/turns", "acme", R"({"turns":[]})", ""},
        {"turn is not an object", "POST", ana + "/turns", "acme", R"({"turns":[42]})", ""},
        {"missing text", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana"})"), ""},
        {"missing speaker", "POST", ana + "/turns", "acme", Turns(R"({"text":"hi"})"), ""},
        {"wrong type (text)", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":5})"), ""},
        {"blank text", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"  \n "})"), ""},
        {"invalid UTF-8 in text", "POST", ana + "/turns", "acme", Turns("{\"speaker\":\"Ana\",\"text\":\"caf\xff\"}"), ""},
        {"invalid UTF-8 in a key", "POST", ana + "/turns", "acme", Turns("{\"speaker\":\"Ana\",\"te\xc3\x28t\":\"hi\"}"), ""},
        {"lone surrogate escape", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"\ud800"})"), ""},
        {"wrong type (time)", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"hi","time":true})"), ""},
        {"time not RFC 3339", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"hi","time":"yesterday"})"), ""},
        {"negative time", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"hi","time":-5})"), ""},
        {"fractional time", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"hi","time":1.5})"), ""},
        {"time in microseconds", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"hi","time":1760000000000000})"), ""},
        {"control character in id", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"hi","id":"a\u0001b"})"), ""},
        {"id longer than 256 bytes", "POST", ana + "/turns", "acme",
         Turns(R"({"speaker":"Ana","text":"hi","id":")" + std::string(300, 'x') + "\"}"), ""},
        {"duplicate key", "POST", ana + "/turns", "acme", Turns(R"({"speaker":"Ana","text":"a","text":"b"})"), ""},
        {"nesting 100 deep", "POST", ana + "/turns", "acme", "{\"turns\":" + std::string(100, '[') + std::string(100, ']') + "}", ""},
        {"turn id reused with other text", "POST", ana + "/turns", "acme",
         Turns(R"({"id":"D1:1","speaker":"Ana","text":"something else"})"), ""},
        {"same turn again (a retry)", "POST", ana + "/turns", "acme", Turns(ok_turn), ""},
        {"unknown field (ignored)", "POST", ana + "/turns", "acme",
         Turns(R"({"id":"D1:2","speaker":"Ana","text":"Jazz on Sundays.","mood":"happy"})"), ""},
        {"turn text over 64 KiB", "POST", ana + "/turns", "acme",
         Turns(R"({"speaker":"Ana","text":")" + std::string((64 << 10) + 1, 'a') + "\"}"),
         R"({"turns":[{"speaker":"Ana","text":"<65537 x a>"}]})"},
        {"more than 1000 turns", "POST", ana + "/turns", "acme", [] {
           std::string t;
           for (int i = 0; i < 1001; ++i) t += std::string(i ? "," : "") + R"({"speaker":"A","text":"x"})";
           return Turns(t);
         }(), R"({"turns":[<1001 turns>]})"},
        {"body over 8 MiB", "POST", ana + "/turns", "acme", std::string((8 << 20) + 1, ' '), "<8 MiB + 1 bytes>"},
        {"search body over 512 KiB", "POST", ana + "/search", "acme", std::string((512 << 10) + 1, ' '), "<512 KiB + 1 bytes>"},
        {"search: missing query", "POST", ana + "/search", "acme", R"({"k":5})", ""},
        {"search: k is 0", "POST", ana + "/search", "acme", R"({"query":"films","k":0})", ""},
        {"search: k over 100", "POST", ana + "/search", "acme", R"({"query":"films","k":101})", ""},
        {"search: k is a string", "POST", ana + "/search", "acme", R"({"query":"films","k":"5"})", ""},
        {"search: unknown method", "POST", ana + "/search", "acme", R"({"query":"films","method":"magic"})", ""},
        {"search: context not a list", "POST", ana + "/search", "acme", R"({"query":"films","context":"hi"})", ""},
        {"search: context item not a string", "POST", ana + "/search", "acme", R"({"query":"films","context":["a",3]})", ""},
        {"search: query over 8 KiB", "POST", ana + "/search", "acme",
         R"({"query":")" + std::string(8193, 'q') + "\"}", R"({"query":"<8193 x q>"})"},
        {"search: unknown user", "POST", "/v1/users/nobody/search", "acme", R"({"query":"films"})", ""},
        {"feedback: missing query_id", "POST", ana + "/feedback", "acme", R"({"used":["D1:1"]})", ""},
        {"feedback: no turn ids", "POST", ana + "/feedback", "acme", R"({"query_id":"q1"})", ""},
        {"feedback: ids not strings", "POST", ana + "/feedback", "acme", R"({"query_id":"q1","used":[1]})", ""},
        {"fact: missing relation", "POST", ana + "/facts", "acme", R"({"tail":"peanuts"})", ""},
        {"fact: relation not an id", "POST", ana + "/facts", "acme", R"({"relation":"likes","tail":"peanuts"})", ""},
        {"fact: blank tail", "POST", ana + "/facts", "acme", R"({"relation":"ALLERGIC_TO","tail":"  "})", ""},
        {"fact: negative time", "POST", ana + "/facts", "acme", R"({"relation":"ALLERGIC_TO","tail":"peanuts","time":-1})", ""},
        {"fact: time in microseconds", "POST", ana + "/facts", "acme", R"({"relation":"ALLERGIC_TO","tail":"peanuts","time":1760000000000000})", ""},
        {"turns page: negative offset", "GET", ana + "/turns?offset=-1", "acme", "", ""},
        {"turns page: offset over 2^40", "GET", ana + "/turns?offset=1099511627777", "acme", "", ""},
        {"turns page: limit 0", "GET", ana + "/turns?limit=0", "acme", "", ""},
        {"turns page: limit not a number", "GET", ana + "/turns?limit=ten", "acme", "", ""},
        {"user: bad percent-encoding", "GET", "/v1/users/an%zz/turns", "acme", "", ""},
        {"user: control character", "GET", "/v1/users/an%01a/turns", "acme", "", ""},
        {"user: longer than 256 bytes", "GET", "/v1/users/" + std::string(300, 'u') + "/turns", "acme", "", ""},
        {"delete an unknown user", "DELETE", "/v1/users/nobody", "acme", "", ""},
    };
    md += "| Bad request | Request | Status | Answer |\n|---|---|---|---|\n";
    for (const Case& c : cases) {
      std::string row;
      RETURN_IF_ERROR(Run(cli, c, &row).status());
      md += row;
    }
    server.Stop();
  }
  // Tenant limits need a server started with small ones.
  so.rate_per_sec = 1;
  so.burst = 1;
  so.quota_turns = 2;
  std::string limited;
  {
    HttpServer server(memory.get(), keys, so);
    RETURN_IF_ERROR(server.Start());
    httplib::Client cli("127.0.0.1", server.port());
    std::string row;
    RETURN_IF_ERROR(Run(cli, {"(first request: allowed)", "GET", "/v1/users", "globex", "", ""}, &row).status());
    limited += row;
    RETURN_IF_ERROR(Run(cli, {"over the rate limit", "GET", "/v1/users", "globex", "", ""}, &row).status());
    limited += row;
    // acme already stores 2 turns (D1:1, D1:2); its bucket is fresh.
    RETURN_IF_ERROR(Run(cli, {"over the storage quota", "POST", "/v1/users/ana/turns", "acme",
                              Turns(R"({"speaker":"Ana","text":"one more"})"), ""}, &row).status());
    limited += row;
    server.Stop();
  }
  std::string page =
      "# Bad input: what each kind of bad request gets\n\n"
      "<!-- Generated by `ontomem docs bad-input`, which sends every request below to a real server on\n"
      "     127.0.0.1 and records the answer; a test checks this file against a fresh run. -->\n\n"
      "Every request goes to `ontomem serve` with default limits, as tenant `acme` (which stores user\n"
      "`ana` with turn `D1:1`) unless the request names another key (`globex` is a second tenant).\n"
      "The answer is the status and the body's `error.code` and `error.message` (see\n"
      "docs/http_api.md for the format); the server never crashes and never shows another tenant's\n"
      "data.\n\n" + md +
      "\nPer-tenant limits, from a server started with `--rate-per-sec 1 --burst 1 --quota-turns 2`:\n\n"
      "| Bad request | Request | Status | Answer |\n|---|---|---|---|\n" + limited;
  return page;
}

}  // namespace ontomem::server
