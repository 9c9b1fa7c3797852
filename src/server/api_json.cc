#include "server/api_json.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/civil_time.h"
#include "engine/validate.h"
#include "text/text.h"

namespace ontomem::server {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxDepth = 64;
constexpr size_t kMaxPathKeyBytes = 64;
constexpr size_t kMaxPathBytes = 120;  // deeper paths are cut with "..."

// Cuts `s` to at most `n` bytes without splitting a UTF-8 sequence.
std::string_view Utf8Prefix(std::string_view s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// Builds the DOM (through nlohmann's own SAX DOM builder) while tracking where in the document
// the parser is, so a syntax error, a duplicate key or excessive nesting is reported with the
// field path ("turns[2].text") instead of only a byte offset.
class PathSax {
 public:
  explicit PathSax(json* root) : dom_(*root, /*allow_exceptions=*/false) {}

  bool null() { return Value() && dom_.null(); }
  bool boolean(bool v) { return Value() && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return Value() && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return Value() && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) { return Value() && dom_.number_float(v, s); }
  bool string(std::string& v) { return Value() && dom_.string(v); }
  bool binary(json::binary_t& v) { return Value() && dom_.binary(v); }
  bool start_object(size_t n) { return Enter(false) && dom_.start_object(n); }
  bool end_object() { return Leave() && dom_.end_object(); }
  bool start_array(size_t n) { return Enter(true) && dom_.start_array(n); }
  bool end_array() { return Leave() && dom_.end_array(); }
  bool key(std::string& k) {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) {
      f.key = k;
      f.has_key = true;
      return Fail(fmt::format("duplicate key \"{}\"", Utf8Prefix(k, kMaxPathKeyBytes)));
    }
    f.key = k;
    f.has_key = true;
    return dom_.key(k);
  }
  bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    std::string what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." -> "...".
    if (size_t colon = what.find(": "); what.rfind("[json.exception", 0) == 0 && colon != std::string::npos)
      what = what.substr(colon + 2);
    return Fail(fmt::format("malformed JSON at byte {}: {}", position, what));
  }

  // Where the parser is: "turns[2].text", or "" at the top level.
  std::string Path() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.array) {
        out += fmt::format("[{}]", f.index);
      } else if (f.has_key) {
        if (!out.empty()) out += '.';
        out += Utf8Prefix(f.key, kMaxPathKeyBytes);
      }
      if (out.size() > kMaxPathBytes) return out + "...";
    }
    return out;
  }

  const std::string& error() const { return error_; }

 private:
  struct Frame {
    bool array = false;
    size_t index = 0;
    bool has_key = false;
    std::string key;
    std::set<std::string> keys;
  };

  bool Fail(const std::string& message) {
    if (error_.empty()) {
      const std::string path = Path();
      error_ = (path.empty() ? "body" : path) + ": " + message;
    }
    return false;
  }
  bool Enter(bool array) {
    if (frames_.size() >= kMaxDepth) return Fail(fmt::format("nested deeper than {} levels", kMaxDepth));
    frames_.push_back(Frame{array, 0, false, {}, {}});
    return true;
  }
  bool Leave() {
    frames_.pop_back();
    return Value();
  }
  // A value just completed in the current container.
  bool Value() {
    if (frames_.empty()) return true;
    Frame& f = frames_.back();
    if (f.array) ++f.index;
    else f.has_key = false;
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Frame> frames_;
  std::string error_;
};

StatusOr<json> ParseBody(std::string_view body, const Limits& limits) {
  if (body.size() > limits.max_body_bytes)
    return Status::ResourceExhausted(
        fmt::format("body: {} bytes, the limit is {}", body.size(), limits.max_body_bytes));
  size_t bad = 0;
  if (!text::IsValidUtf8(body, &bad)) {
    // Re-parse the prefix up to the bad byte: the parser stops inside the value that holds it.
    json ignored;
    PathSax sax(&ignored);
    try {
      json::sax_parse(body.substr(0, bad), &sax);
    } catch (const std::exception&) {
    }
    const std::string path = sax.Path();
    return Status::InvalidArgument(
        fmt::format("{}: invalid UTF-8 at byte {}", path.empty() ? "body" : path, bad));
  }
  // JSON has no raw NUL (it is written \u0000); the parser would stop there and ignore the rest.
  if (const size_t nul = body.find('\0'); nul != std::string_view::npos)
    return Status::InvalidArgument(fmt::format("body: malformed JSON: a NUL byte at byte {}", nul));
  json root;
  PathSax sax(&root);
  bool ok = false;
  try {
    ok = json::sax_parse(body, &sax);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(fmt::format("body: malformed JSON: {}", e.what()));
  }
  if (!ok) return Status::InvalidArgument(sax.error().empty() ? "body: malformed JSON" : sax.error());
  if (!root.is_object()) return Status::InvalidArgument("body: expected a JSON object");
  return root;
}

std::string Join(const std::string& base, std::string_view key) {
  return base.empty() ? std::string(key) : base + "." + std::string(key);
}

// The member `key` of `obj`, or null when absent or JSON null (optional fields accept null).
const json* Find(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

Status Missing(const std::string& path, const char* expected) {
  return Status::InvalidArgument(fmt::format("{}: missing (expected {})", path, expected));
}
Status Expected(const std::string& path, const char* expected) {
  return Status::InvalidArgument(fmt::format("{}: expected {}", path, expected));
}

// A string member. Names (ids, speakers, ...) get the engine's name rules, with the path.
Status ReadString(const json& obj, const char* key, const std::string& base, bool required,
                  std::string* out) {
  const std::string path = Join(base, key);
  const json* v = Find(obj, key);
  if (!v) return required ? Missing(path, "a string") : Status::Ok();
  if (!v->is_string()) return Expected(path, "a string");
  *out = v->get<std::string>();
  return Status::Ok();
}

Status ReadName(const json& obj, const char* key, const std::string& base, bool required,
                std::string* out, bool allow_empty = true) {
  RETURN_IF_ERROR(ReadString(obj, key, base, required, out));
  if (!allow_empty && out->empty()) return Status::InvalidArgument(Join(base, key) + ": is empty");
  Status st = ValidateName(key, *out, /*allow_empty=*/true);
  if (!st.ok()) return Status::InvalidArgument(Join(base, key) + ": " + st.message());
  return Status::Ok();
}

bool IsBlank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  return true;
}

// A free-text member (turn text, query): non-blank, at most max_bytes (413 beyond).
Status ReadText(const json& obj, const char* key, const std::string& base, size_t max_bytes,
                std::string* out) {
  RETURN_IF_ERROR(ReadString(obj, key, base, /*required=*/true, out));
  const std::string path = Join(base, key);
  if (out->size() > max_bytes)
    return Status::ResourceExhausted(
        fmt::format("{}: {} bytes, the limit is {}", path, out->size(), max_bytes));
  if (IsBlank(*out)) return Status::InvalidArgument(path + ": is empty");
  return Status::Ok();
}

// An integer member in [lo, hi]; *present tells whether it was given.
Status ReadInt(const json& obj, const char* key, const std::string& base, int64_t lo, int64_t hi,
               int64_t* out, bool* present) {
  const std::string path = Join(base, key);
  *present = false;
  const json* v = Find(obj, key);
  if (!v) return Status::Ok();
  const std::string range = fmt::format("an integer in {}..{}", lo, hi);
  if (!v->is_number_integer()) return Expected(path, range.c_str());
  int64_t x;
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(hi)) return Expected(path, range.c_str());
    x = static_cast<int64_t>(u);
  } else {
    x = v->get<int64_t>();
  }
  if (x < lo || x > hi) return Expected(path, range.c_str());
  *out = x;
  *present = true;
  return Status::Ok();
}

Status ReadBool(const json& obj, const char* key, const std::string& base, bool* out) {
  const json* v = Find(obj, key);
  if (!v) return Status::Ok();
  if (!v->is_boolean()) return Expected(Join(base, key), "true or false");
  *out = v->get<bool>();
  return Status::Ok();
}

// "time": Unix milliseconds (a non-negative integer) or an RFC 3339 string.
Status ReadTime(const json& obj, const std::string& base, int64_t* out) {
  const std::string path = Join(base, "time");
  const json* v = Find(obj, "time");
  if (!v) return Status::Ok();
  if (v->is_number_integer()) {
    if (v->is_number_unsigned() ? v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) : v->get<int64_t>() < 0)
      return Expected(path, "a non-negative integer (Unix milliseconds) or an RFC 3339 string");
    *out = v->is_number_unsigned() ? static_cast<int64_t>(v->get<uint64_t>()) : v->get<int64_t>();
    return Status::Ok();
  }
  if (v->is_string()) {
    if (auto ms = ParseRfc3339(v->get_ref<const std::string&>())) {
      *out = *ms;
      return Status::Ok();
    }
    return Status::InvalidArgument(
        path + ": not an RFC 3339 date-time (like 2024-01-02T03:04:05Z) after 1970");
  }
  return Expected(path, "an integer or an RFC 3339 string");
}

// An array of strings, each checked with `check` (which gets the element's path).
template <typename Check>
Status ReadStringArray(const json& obj, const char* key, const std::string& base, size_t max_items,
                       std::vector<std::string>* out, Check check) {
  const std::string path = Join(base, key);
  const json* v = Find(obj, key);
  if (!v) return Status::Ok();
  if (!v->is_array()) return Expected(path, "an array of strings");
  if (v->size() > max_items)
    return Status::ResourceExhausted(
        fmt::format("{}: {} items, the limit is {}", path, v->size(), max_items));
  out->reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    const std::string ipath = fmt::format("{}[{}]", path, i);
    if (!(*v)[i].is_string()) return Expected(ipath, "a string");
    out->push_back((*v)[i].get<std::string>());
    RETURN_IF_ERROR(check(ipath, out->back()));
  }
  return Status::Ok();
}

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

json TimeJson(int64_t ms) { return ms == 0 ? json(nullptr) : json(ms); }

json TurnJson(const StoredTurn& t) {
  return json{{"id", t.turn.id},           {"seq", t.seq},
              {"speaker", t.turn.speaker}, {"text", t.turn.text},
              {"time", TimeJson(t.turn.time_ms)}, {"session", t.turn.session}};
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::optional<int64_t> ParseRfc3339(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (!Digits(s, 0, 4, &y) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, &mo) || s[7] != '-' ||
      !Digits(s, 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !Digits(s, 11, 2, &h) ||
      s[13] != ':' || !Digits(s, 14, 2, &mi) || s[16] != ':' || !Digits(s, 17, 2, &sec))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  if (static_cast<unsigned>(d) > DaysInMonth(y, static_cast<unsigned>(mo))) return std::nullopt;
  size_t pos = 19;
  int64_t ms = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 3) ms = ms * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (size_t i = digits; i < 3; ++i) ms *= 10;
  }
  if (pos >= s.size()) return std::nullopt;  // RFC 3339 requires an offset
  int64_t offset_min = 0;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int oh, om;
    if (!Digits(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !Digits(s, pos + 4, 2, &om) ||
        oh > 23 || om > 59)
      return std::nullopt;
    offset_min = (s[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  if (sec == 60) sec = 59;  // a leap second reads as the second before it
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const int64_t total = ((days * 24 + h) * 60 + mi - offset_min) * 60 + sec;
  if (total < 0) return std::nullopt;
  return total * 1000 + ms;
}

StatusOr<std::vector<Turn>> ParseTurnsRequest(std::string_view body, const Limits& limits) {
  ASSIGN_OR_RETURN(json root, ParseBody(body, limits));
  const json* turns = Find(root, "turns");
  if (!turns) return Missing("turns", "an array of turns");
  if (!turns->is_array()) return Expected("turns", "an array of turns");
  if (turns->empty()) return Status::InvalidArgument("turns: is empty (send at least one turn)");
  if (turns->size() > limits.max_batch_turns)
    return Status::ResourceExhausted(
        fmt::format("turns: {} turns, the limit is {}", turns->size(), limits.max_batch_turns));
  std::vector<Turn> out(turns->size());
  for (size_t i = 0; i < turns->size(); ++i) {
    const json& t = (*turns)[i];
    const std::string base = fmt::format("turns[{}]", i);
    if (!t.is_object()) return Expected(base, "an object");
    Turn& turn = out[i];
    RETURN_IF_ERROR(ReadText(t, "text", base, limits.max_turn_bytes, &turn.text));
    RETURN_IF_ERROR(ReadName(t, "speaker", base, /*required=*/true, &turn.speaker));
    RETURN_IF_ERROR(ReadName(t, "id", base, false, &turn.id));
    RETURN_IF_ERROR(ReadName(t, "session", base, false, &turn.session));
    RETURN_IF_ERROR(ReadTime(t, base, &turn.time_ms));
  }
  return out;
}

StatusOr<SearchRequest> ParseSearchRequest(std::string_view body, const Limits& limits) {
  ASSIGN_OR_RETURN(json root, ParseBody(body, limits));
  SearchRequest r;
  RETURN_IF_ERROR(ReadText(root, "query", "", limits.max_query_bytes, &r.query));
  int64_t v = 0;
  bool present = false;
  RETURN_IF_ERROR(ReadInt(root, "k", "", 1, limits.max_k, &v, &present));
  if (present) r.options.k = static_cast<int>(v);
  RETURN_IF_ERROR(ReadInt(root, "max_context_tokens", "", 0, INT64_MAX, &v, &present));
  if (present) r.options.max_context_tokens = v;
  RETURN_IF_ERROR(ReadBool(root, "collapse_duplicates", "", &r.options.collapse_duplicates));
  RETURN_IF_ERROR(ReadName(root, "asker", "", false, &r.options.asker));
  RETURN_IF_ERROR(ReadStringArray(root, "context", "", limits.max_context_items, &r.options.context,
                                  [&](const std::string& path, const std::string& s) {
                                    if (s.size() > limits.max_query_bytes)
                                      return Status::ResourceExhausted(fmt::format(
                                          "{}: {} bytes, the limit is {}", path, s.size(), limits.max_query_bytes));
                                    return Status::Ok();
                                  }));
  std::string method;
  RETURN_IF_ERROR(ReadString(root, "method", "", false, &method));
  if (!method.empty() && !ParseMethod(method, &r.options.method)) {
    std::string known;
    Method m;
    for (const char* name : {"dense", "bm25", "fusion", "full", "rewrite", "ppr"})
      if (ParseMethod(name, &m)) known += (known.empty() ? "" : ", ") + std::string(name);
    return Status::InvalidArgument(fmt::format("method: expected one of {}", known));
  }
  return r;
}

StatusOr<Feedback> ParseFeedbackRequest(std::string_view body, const Limits& limits) {
  ASSIGN_OR_RETURN(json root, ParseBody(body, limits));
  Feedback f;
  RETURN_IF_ERROR(ReadName(root, "query_id", "", /*required=*/true, &f.query_id, false));
  RETURN_IF_ERROR(ReadString(root, "query", "", false, &f.query));
  if (f.query.size() > limits.max_query_bytes)
    return Status::ResourceExhausted(
        fmt::format("query: {} bytes, the limit is {}", f.query.size(), limits.max_query_bytes));
  auto check_id = [](const std::string& path, const std::string& id) {
    if (id.empty()) return Status::InvalidArgument(path + ": is empty");
    Status st = ValidateName("turn id", id, false);
    return st.ok() ? st : Status::InvalidArgument(path + ": " + st.message());
  };
  RETURN_IF_ERROR(ReadStringArray(root, "used", "", limits.max_batch_turns, &f.used, check_id));
  RETURN_IF_ERROR(ReadStringArray(root, "wrong", "", limits.max_batch_turns, &f.wrong, check_id));
  RETURN_IF_ERROR(ReadStringArray(root, "missed", "", limits.max_batch_turns, &f.missed, check_id));
  if (f.used.empty() && f.wrong.empty() && f.missed.empty())
    return Status::InvalidArgument("used, wrong, missed: give at least one turn id");
  return f;
}

StatusOr<Fact> ParseFactRequest(std::string_view body, const Limits& limits) {
  ASSIGN_OR_RETURN(json root, ParseBody(body, limits));
  Fact f;
  RETURN_IF_ERROR(ReadName(root, "relation", "", /*required=*/true, &f.relation, false));
  RETURN_IF_ERROR(ReadName(root, "tail", "", /*required=*/true, &f.tail, false));
  RETURN_IF_ERROR(ReadName(root, "head", "", false, &f.head));
  RETURN_IF_ERROR(ReadName(root, "tail_type", "", false, &f.tail_type));
  RETURN_IF_ERROR(ReadName(root, "domain", "", false, &f.domain));
  RETURN_IF_ERROR(ReadTime(root, "", &f.time_ms));
  return f;
}

std::string SearchResultJson(const SearchResult& r) {
  json hits = json::array();
  for (const Hit& h : r.hits) {
    json t = TurnJson(h.turn);
    t["score"] = h.score;
    t["dense_score"] = h.dense_score;
    t["bm25_score"] = h.bm25_score;
    t["graph_score"] = h.graph_score;
    t["dense_rank"] = h.dense_rank;
    t["bm25_rank"] = h.bm25_rank;
    t["path"] = h.path;
    t["profile_score"] = h.profile_score;
    hits.push_back(std::move(t));
  }
  json j{{"query_id", r.query_id},
         {"method", r.method},
         {"route", r.route},
         {"latency_us", r.latency_us},
         {"context_tokens", r.context_tokens},
         {"candidates", r.candidates},
         {"graph_candidates", r.graph_candidates},
         {"query_domains", r.query_domains},
         {"uncertainty", r.uncertainty},
         {"view_overlap", r.view_overlap < 0 ? json(nullptr) : json(r.view_overlap)},
         {"hits", std::move(hits)}};
  if (!r.time_phrase.empty())
    j["time_window"] = {{"phrase", r.time_phrase}, {"from", r.time_from_ms}, {"to", r.time_to_ms}};
  return Dump(j);
}

std::string TurnsPageJson(const std::vector<StoredTurn>& turns, size_t offset, size_t limit) {
  json page = json::array();
  const size_t end = offset >= turns.size() ? offset : std::min(turns.size(), offset + limit);
  for (size_t i = offset; i < end; ++i) page.push_back(TurnJson(turns[i]));
  json j{{"turns", std::move(page)},
         {"total", turns.size()},
         {"next_offset", end < turns.size() ? json(end) : json(nullptr)}};
  return Dump(j);
}

std::string IngestResultJson(const std::vector<IngestedTurn>& turns) {
  json list = json::array();
  size_t duplicates = 0;
  for (const IngestedTurn& t : turns) {
    list.push_back({{"id", t.id}, {"seq", t.seq}});
    duplicates += t.duplicate ? 1 : 0;
  }
  return Dump(json{{"stored", turns.size() - duplicates}, {"duplicates", duplicates}, {"turns", std::move(list)}});
}

std::string UsersJson(const std::vector<std::string>& users) { return Dump(json{{"users", users}}); }

std::string ErrorJson(std::string_view code, std::string_view message) {
  return Dump(json{{"error", {{"code", code}, {"message", message}}}});
}

}  // namespace ontomem::server
