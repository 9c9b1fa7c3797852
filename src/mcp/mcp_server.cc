#include "mcp/mcp_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <ostream>
#include <streambuf>
#include <utility>
#include <vector>

#include "server/api_json.h"

namespace ontomem::mcp {
namespace {

using json = nlohmann::json;

// JSON-RPC 2.0 error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

constexpr size_t kMaxQueryBytes = 8192;
constexpr size_t kMaxContextItems = 32;
constexpr size_t kMaxIdsPerList = 1000;
// Deeper JSON is refused before parsing: copying or printing a json value recurses per level,
// and a line of a million brackets would overflow the stack.
constexpr int kMaxDepth = 64;

// Never throws: stored text that is not UTF-8 is replaced rather than failing the response.
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json ErrorResponse(const json& id, int code, std::string message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::move(message)}}}};
}

// ---------------------------------------------------------------------------------------------
// The tools. One table drives tools/list (the input schemas) and argument checking.

enum class Type { kString, kInteger, kBoolean, kStringArray, kTime };

struct Param {
  const char* name;
  Type type;
  bool required;
  const char* description;
};

struct Context {
  Memory* memory;
  const McpOptions& options;
};

using Handler = StatusOr<json> (*)(const Context&, const UserKey&, const json& args);

struct Tool {
  const char* name;
  const char* title;
  const char* description;
  std::vector<Param> params;
  bool read_only;
  bool destructive;
  bool idempotent;
  Handler handler;
};

std::string Str(const json& args, const char* name) {
  auto it = args.find(name);
  return it == args.end() ? std::string() : it->get<std::string>();
}

std::vector<std::string> StrList(const json& args, const char* name) {
  auto it = args.find(name);
  return it == args.end() ? std::vector<std::string>() : it->get<std::vector<std::string>>();
}

StatusOr<json> Remember(const Context& ctx, const UserKey& key, const json& args) {
  Turn t;
  t.speaker = Str(args, "speaker");
  t.text = Str(args, "text");
  t.id = Str(args, "id");
  t.session = Str(args, "session");
  if (auto it = args.find("time"); it != args.end()) {
    if (it->is_string()) {
      std::optional<int64_t> ms = server::ParseRfc3339(it->get<std::string>());
      if (!ms) return Status::InvalidArgument("time: expected Unix milliseconds or an RFC 3339 date-time");
      t.time_ms = *ms;
    } else {
      t.time_ms = it->get<int64_t>();
    }
  }
  std::vector<IngestedTurn> done;
  RETURN_IF_ERROR(ctx.memory->IngestBatch(key, {t}, &done));
  if (done.size() != 1) return Status::Internal("remember: the engine did not report the stored turn");
  return json{{"user", key.user}, {"id", done[0].id}, {"seq", done[0].seq}, {"duplicate", done[0].duplicate}};
}

StatusOr<json> Recall(const Context& ctx, const UserKey& key, const json& args) {
  SearchOptions so;
  if (auto it = args.find("k"); it != args.end()) so.k = it->get<int>();
  if (auto it = args.find("max_context_tokens"); it != args.end()) so.max_context_tokens = it->get<int64_t>();
  if (auto it = args.find("collapse_duplicates"); it != args.end()) so.collapse_duplicates = it->get<bool>();
  so.asker = Str(args, "asker");
  so.context = StrList(args, "context");
  if (auto it = args.find("method"); it != args.end() && !ParseMethod(it->get<std::string>(), &so.method))
    return Status::InvalidArgument(fmt::format("method: unknown method {}", it->get<std::string>()));
  ASSIGN_OR_RETURN(SearchResult r, ctx.memory->Search(key, Str(args, "query"), so));
  json out = json::parse(server::SearchResultJson(r), nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) return Status::Internal("recall: search result is not JSON");
  out["user"] = key.user;
  return out;
}

StatusOr<json> GiveFeedback(const Context& ctx, const UserKey& key, const json& args) {
  Feedback f;
  f.query_id = Str(args, "query_id");
  f.query = Str(args, "query");
  f.used = StrList(args, "used");
  f.wrong = StrList(args, "wrong");
  f.missed = StrList(args, "missed");
  RETURN_IF_ERROR(ctx.memory->AddFeedback(key, f));
  return json{{"ok", true}, {"user", key.user}};
}

StatusOr<json> Forget(const Context& ctx, const UserKey& key, const json&) {
  RETURN_IF_ERROR(ctx.memory->Forget(key));
  return json{{"deleted", true}, {"user", key.user}};
}

const std::vector<Tool>& Tools() {
  static const std::vector<Tool> tools = {
      {"remember", "Remember a turn",
       "Store one utterance of the conversation in the user's long-term memory. Call it for what "
       "the user (or anyone in the conversation) says that may matter later: preferences, plans, "
       "facts about their life. Returns the turn's id.",
       {{"user", Type::kString, false, "whose memory (default: the server's --user)"},
        {"speaker", Type::kString, true, "who said it, e.g. the user's name"},
        {"text", Type::kString, true, "what was said"},
        {"time", Type::kTime, false, "when it was said: Unix milliseconds or RFC 3339 (default unknown)"},
        {"id", Type::kString, false, "your id for the turn; resending the same id and text is a no-op"},
        {"session", Type::kString, false, "session label, e.g. session_3"}},
       false, false, false, &Remember},
      {"recall", "Recall from memory",
       "Find the stored turns most relevant to a query, ranked, with scores and (method full) the "
       "graph path that brought each. Call it before answering anything that depends on the "
       "user's past. Keep the returned query_id to give feedback.",
       {{"user", Type::kString, false, "whose memory (default: the server's --user)"},
        {"query", Type::kString, true, "what to look for, in natural language"},
        {"k", Type::kInteger, false, "number of turns to return (default 10)"},
        {"asker", Type::kString, false, "who asks; first-person words in the query refer to them"},
        {"context", Type::kStringArray, false, "the last few turns of the conversation, oldest first"},
        {"method", Type::kString, false, "full (default: memory graph + views), fusion, dense, bm25, or the baselines rewrite and ppr"},
        {"max_context_tokens", Type::kInteger, false, "drop trailing hits past this many words (0 = no limit)"},
        {"collapse_duplicates", Type::kBoolean, false, "return a text said verbatim several times once (default true); false returns every copy"}},
       true, false, false, &Recall},
      {"feedback", "Give feedback on a recall",
       "Say which turns of a recall were used and right, which were wrong, and which were needed "
       "but missing (by turn id). Stored for the memory to learn from.",
       {{"user", Type::kString, false, "whose memory (default: the server's --user)"},
        {"query_id", Type::kString, true, "the query_id a recall returned"},
        {"query", Type::kString, false, "the query text"},
        {"used", Type::kStringArray, false, "ids of returned turns that were used and correct"},
        {"wrong", Type::kStringArray, false, "ids of returned turns that were wrong or unhelpful"},
        {"missed", Type::kStringArray, false, "ids of turns that were needed but not returned"}},
       false, false, false, &GiveFeedback},
      {"forget", "Forget a user",
       "Delete the user and everything stored for them (turns, graph, feedback). Irreversible.",
       {{"user", Type::kString, true, "the user to delete"}},
       false, true, true, &Forget},
  };
  return tools;
}

json ParamSchema(const Param& p) {
  json s;
  switch (p.type) {
    case Type::kString: s["type"] = "string"; break;
    case Type::kInteger: s["type"] = "integer"; break;
    case Type::kBoolean: s["type"] = "boolean"; break;
    case Type::kStringArray: s = {{"type", "array"}, {"items", {{"type", "string"}}}}; break;
    case Type::kTime: s["type"] = json::array({"integer", "string"}); break;
  }
  s["description"] = p.description;
  return s;
}

json ToolJson(const Tool& t) {
  json props = json::object();
  json required = json::array();
  for (const Param& p : t.params) {
    props[p.name] = ParamSchema(p);
    if (p.required) required.push_back(p.name);
  }
  return {{"name", t.name},
          {"title", t.title},
          {"description", t.description},
          {"inputSchema",
           {{"type", "object"}, {"properties", props}, {"required", required}, {"additionalProperties", false}}},
          {"annotations",
           {{"title", t.title},
            {"readOnlyHint", t.read_only},
            {"destructiveHint", t.destructive},
            {"idempotentHint", t.idempotent},
            {"openWorldHint", false}}}};
}

// Checks `args` against the tool's schema and the server's limits; the message names the argument.
Status CheckArgs(const Tool& tool, const json& args, const McpOptions& options) {
  for (const auto& item : args.items()) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture those in a lambda.
    const std::string& name = item.key();
    const json& value = item.value();
    auto p = std::find_if(tool.params.begin(), tool.params.end(),
                          [&](const Param& q) { return name == q.name; });
    if (p == tool.params.end())
      return Status::InvalidArgument(fmt::format("{}: unknown argument {}", tool.name, name));
    const std::string where = fmt::format("{}.{}", tool.name, name);
    switch (p->type) {
      case Type::kString:
        if (!value.is_string()) return Status::InvalidArgument(where + ": expected a string");
        break;
      case Type::kInteger:
        if (!value.is_number_integer()) return Status::InvalidArgument(where + ": expected an integer");
        break;
      case Type::kBoolean:
        if (!value.is_boolean()) return Status::InvalidArgument(where + ": expected true or false");
        break;
      case Type::kTime:
        if (!value.is_string() && !(value.is_number_integer() && value.get<int64_t>() >= 0))
          return Status::InvalidArgument(where + ": expected Unix milliseconds (>= 0) or an RFC 3339 string");
        break;
      case Type::kStringArray:
        if (!value.is_array()) return Status::InvalidArgument(where + ": expected an array of strings");
        if (value.size() > kMaxIdsPerList)
          return Status::InvalidArgument(fmt::format("{}: more than {} items", where, kMaxIdsPerList));
        for (size_t i = 0; i < value.size(); ++i)
          if (!value[i].is_string())
            return Status::InvalidArgument(fmt::format("{}[{}]: expected a string", where, i));
        break;
    }
  }
  for (const Param& p : tool.params)
    if (p.required && !args.contains(p.name))
      return Status::InvalidArgument(fmt::format("{}: missing required argument {}", tool.name, p.name));
  // Limits that keep one call small; the engine checks the rest (UTF-8, text size, ids).
  if (auto it = args.find("k"); it != args.end()) {
    // An unsigned above INT64_MAX would read as negative.
    const bool ok = it->is_number_unsigned() ? it->get<uint64_t>() >= 1 && it->get<uint64_t>() <= static_cast<uint64_t>(options.max_k)
                                             : it->get<int64_t>() >= 1 && it->get<int64_t>() <= options.max_k;
    if (!ok) return Status::InvalidArgument(fmt::format("{}.k: {} is not in 1..{}", tool.name, it->dump(), options.max_k));
  }
  if (auto it = args.find("max_context_tokens");
      it != args.end() && (it->is_number_unsigned() ? it->get<uint64_t>() > INT32_MAX : it->get<int64_t>() < 0))
    return Status::InvalidArgument(fmt::format("{}.max_context_tokens: {} is not in 0..{}", tool.name, it->dump(), INT32_MAX));
  if (auto it = args.find("query"); it != args.end() && it->get<std::string>().size() > kMaxQueryBytes)
    return Status::InvalidArgument(fmt::format("{}.query: longer than {} bytes", tool.name, kMaxQueryBytes));
  if (auto it = args.find("context"); it != args.end()) {
    if (it->size() > kMaxContextItems)
      return Status::InvalidArgument(fmt::format("{}.context: more than {} items", tool.name, kMaxContextItems));
    for (size_t i = 0; i < it->size(); ++i)  // as the HTTP API limits them
      if ((*it)[i].get<std::string>().size() > kMaxQueryBytes)
        return Status::InvalidArgument(fmt::format("{}.context[{}]: longer than {} bytes", tool.name, i, kMaxQueryBytes));
  }
  return Status::Ok();
}

// True if brackets outside strings nest deeper than `max` (the text need not be valid JSON).
bool NestsDeeperThan(std::string_view text, int max) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// Reads one line of at most `max` bytes (the rest of a longer line is skipped and *too_long
// set). False at end of input with nothing read.
bool ReadLine(std::istream& in, size_t max, std::string* line, bool* too_long) {
  line->clear();
  *too_long = false;
  std::streambuf* sb = in.rdbuf();
  bool any = false;
  for (;;) {
    const int c = sb->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return any;
    }
    any = true;
    if (c == '\n') break;
    if (line->size() < max) line->push_back(static_cast<char>(c));
    else *too_long = true;
  }
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return true;
}

}  // namespace

McpServer::McpServer(Memory* memory, McpOptions options) : memory_(memory), options_(std::move(options)) {}

void McpServer::Log(std::string_view what) const {
  if (options_.log != nullptr) *options_.log << "ontomem mcp: " << what << std::endl;
}

Status McpServer::Serve(std::istream& in, std::ostream& out) {
  std::string line;
  bool too_long = false;
  while (ReadLine(in, options_.max_message_bytes, &line, &too_long)) {
    std::string response;
    if (too_long) {
      Log(fmt::format("skipped a message longer than {} bytes", options_.max_message_bytes));
      response = Dump(ErrorResponse(nullptr, kInvalidRequest,
                                    fmt::format("message is longer than {} bytes", options_.max_message_bytes)));
    } else if (line.find_first_not_of(" \t") == std::string::npos) {
      continue;  // blank lines are not messages
    } else {
      response = HandleMessage(line);
    }
    if (response.empty()) continue;
    out << response << '\n';
    out.flush();
    if (!out) return Status::IOError("mcp: cannot write to the output stream");
  }
  return Status::Ok();
}

std::string McpServer::HandleMessage(std::string_view line) {
  if (NestsDeeperThan(line, kMaxDepth)) {
    Log("refused a message nested too deeply");
    return Dump(ErrorResponse(nullptr, kInvalidRequest, fmt::format("message nests deeper than {} levels", kMaxDepth)));
  }
  // A raw NUL is no JSON; the parser would stop there and answer what came before it.
  json msg = line.find('\0') != std::string_view::npos ? json(json::value_t::discarded)
                                                        : json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (msg.is_discarded()) {
    Log("parse error in a message");
    return Dump(ErrorResponse(nullptr, kParseError, "parse error: the message is not valid JSON (UTF-8)"));
  }
  if (msg.is_array()) {
    if (msg.empty()) return Dump(ErrorResponse(nullptr, kInvalidRequest, "empty batch"));
    json responses = json::array();
    for (const json& m : msg) {
      json r = HandleOne(m);
      if (!r.is_null()) responses.push_back(std::move(r));
    }
    return responses.empty() ? std::string() : Dump(responses);
  }
  json r = HandleOne(msg);
  return r.is_null() ? std::string() : Dump(r);
}

json McpServer::HandleOne(const json& msg) {
  if (!msg.is_object()) return ErrorResponse(nullptr, kInvalidRequest, "a message must be a JSON object");
  auto id_it = msg.find("id");
  const bool has_id = id_it != msg.end();
  // An id we cannot echo (null, object, array) is answered with id null, as JSON-RPC says.
  const json id = has_id && (id_it->is_string() || id_it->is_number()) ? *id_it : json(nullptr);
  auto jv = msg.find("jsonrpc");
  // Without a valid "jsonrpc" it is no notification either: it gets an answer.
  if (jv == msg.end() || *jv != "2.0") return ErrorResponse(id, kInvalidRequest, "jsonrpc must be \"2.0\"");
  auto method_it = msg.find("method");
  if (method_it == msg.end()) {
    // A response to a request of ours; this server sends none, so there is nothing to match.
    if (msg.contains("result") || msg.contains("error")) return json();
    return ErrorResponse(id, kInvalidRequest, "missing method");
  }
  if (!method_it->is_string()) return ErrorResponse(id, kInvalidRequest, "method must be a string");
  if (has_id && id.is_null()) return ErrorResponse(id, kInvalidRequest, "id must be a string or a number");
  const std::string method = method_it->get<std::string>();
  json params = json::object();
  if (auto p = msg.find("params"); p != msg.end()) params = *p;

  if (!has_id) {  // a notification: act on the ones we know, never answer
    if (method == "notifications/initialized") initialized_ = true;
    return json();
  }
  if (!params.is_object()) return ErrorResponse(id, kInvalidParams, "params must be an object");
  bool is_error = false;
  json result = Dispatch(method, params, &is_error);
  if (is_error) {
    result["jsonrpc"] = "2.0";
    result["id"] = id;
    return result;
  }
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json McpServer::Dispatch(const std::string& method, const json& params, bool* is_error) {
  if (method == "initialize") return Initialize(params, is_error);
  if (method == "ping") return json::object();
  if (method == "tools/list") {
    json tools = json::array();
    for (const Tool& t : Tools()) tools.push_back(ToolJson(t));
    return {{"tools", std::move(tools)}};
  }
  if (method == "tools/call") return CallTool(params, is_error);
  *is_error = true;
  return ErrorResponse(nullptr, kMethodNotFound, "method not found: " + method);
}

json McpServer::Initialize(const json& params, bool* is_error) {
  auto v = params.find("protocolVersion");
  if (v == params.end() || !v->is_string()) {
    *is_error = true;
    return ErrorResponse(nullptr, kInvalidParams, "initialize: params.protocolVersion must be a string");
  }
  protocol_version_ = kProtocolVersions[0];
  for (const char* known : kProtocolVersions)
    if (*v == known) protocol_version_ = known;
  std::string who = options_.default_user.empty()
                        ? "every call names its user"
                        : fmt::format("calls without a user use \"{}\"", options_.default_user);
  return {{"protocolVersion", protocol_version_},
          {"capabilities", {{"tools", {{"listChanged", false}}}}},
          {"serverInfo", {{"name", "ontomem"}, {"title", "ontomem long-term memory"}, {"version", options_.server_version}}},
          {"instructions",
           fmt::format("Long-term memory of tenant \"{}\" ({}). Use recall before answering anything that "
                       "depends on what the user said before, remember for what they say that may matter "
                       "later, and feedback with a recall's query_id to say which turns helped.",
                       options_.tenant, who)}};
}

json McpServer::CallTool(const json& params, bool* is_error) {
  auto fail = [&](int code, std::string message) {
    *is_error = true;
    return ErrorResponse(nullptr, code, std::move(message));
  };
  auto name_it = params.find("name");
  if (name_it == params.end() || !name_it->is_string()) return fail(kInvalidParams, "tools/call: params.name must be a string");
  const std::string name = name_it->get<std::string>();
  const auto& tools = Tools();
  auto tool = std::find_if(tools.begin(), tools.end(), [&](const Tool& t) { return name == t.name; });
  if (tool == tools.end()) return fail(kInvalidParams, "unknown tool: " + name);
  json args = json::object();
  if (auto a = params.find("arguments"); a != params.end() && !a->is_null()) args = *a;
  if (!args.is_object()) return fail(kInvalidParams, name + ": arguments must be an object");
  if (Status st = CheckArgs(*tool, args, options_); !st.ok()) return fail(kInvalidParams, st.message());
  UserKey key{options_.tenant, args.contains("user") ? args["user"].get<std::string>() : options_.default_user};
  if (key.user.empty())
    return fail(kInvalidParams, args.contains("user") ? name + ".user: empty"
                                                      : name + ": missing argument user (the server was started without --user)");

  StatusOr<json> out = Status::Internal("unreachable");
  try {
    out = tool->handler(Context{memory_, options_}, key, args);
  } catch (const std::exception& e) {  // a JSON conversion we failed to guard: a bug, not the caller's
    Log(fmt::format("{} failed: {}", name, e.what()));
    return fail(kInternalError, name + ": internal error");
  }
  if (!out.ok()) {
    Log(fmt::format("{} for {}/{}: {}", name, key.tenant, key.user, out.status().ToString()));
    return {{"content", json::array({{{"type", "text"}, {"text", out.status().ToString()}}})}, {"isError", true}};
  }
  return {{"content", json::array({{{"type", "text"}, {"text", Dump(*out)}}})},
          {"structuredContent", *out},
          {"isError", false}};
}

}  // namespace ontomem::mcp
