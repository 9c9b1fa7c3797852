#include "server/api.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "server/inspector_html.h"
#include "server/routes.h"

namespace ontomem::server {
namespace {

// Quota refusals: the usage only drops when something is deleted, so retrying soon is useless.
constexpr const char* kQuotaRetryAfterSec = "3600";
// Far beyond any user's turns: an offset past the last turn gets an empty page.
constexpr size_t kMaxTurnsOffset = size_t{1} << 40;

Reply Json(std::string body) {
  Reply r;
  r.body = std::move(body);
  return r;
}

// Errors of calls about one user: NotFound always reads "unknown user", whoever owns it.
Reply UserError(const Status& st, const Call& call) {
  if (st.code() == StatusCode::kNotFound)
    return ErrorReply(404, "not_found", fmt::format("unknown user \"{}\"", call.user));
  return StatusReply(st);
}

// An integer query parameter in [min, max], default `def`. The error names the range: a value
// over the maximum is a non-negative integer too.
Status QueryInt(const Call& call, const char* name, size_t def, size_t min, size_t max, size_t* out) {
  *out = def;
  if (!call.params) return Status::Ok();
  auto it = call.params->find(name);
  if (it == call.params->end()) return Status::Ok();
  const std::string& s = it->second;
  size_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < min || v > max)
    return Status::InvalidArgument(fmt::format("{}: expected an integer in {}..{}", name, min, max));
  *out = v;
  return Status::Ok();
}

}  // namespace

Reply ErrorReply(int status, std::string_view code, std::string_view message) {
  Reply r;
  r.status = status;
  r.body = ErrorJson(code, message);
  return r;
}

Reply StatusReply(const Status& st) {
  switch (st.code()) {
    case StatusCode::kOk: return Json("{\"ok\":true}");
    case StatusCode::kInvalidArgument: return ErrorReply(400, "invalid_argument", st.message());
    case StatusCode::kNotFound: return ErrorReply(404, "not_found", st.message());
    case StatusCode::kAlreadyExists: return ErrorReply(409, "already_exists", st.message());
    case StatusCode::kResourceExhausted: return ErrorReply(413, "payload_too_large", st.message());
    case StatusCode::kFailedPrecondition:
    case StatusCode::kUnavailable: return ErrorReply(503, "unavailable", st.message());
    default:
      std::fprintf(stderr, "ontomem serve: internal error: %s\n", st.ToString().c_str());
      return ErrorReply(500, "internal", "internal error (details are in the server log)");
  }
}

Api::Api(Memory* memory, const ServerOptions& options, Metrics* metrics)
    : memory_(memory),
      options_(options),
      metrics_(metrics),
      rate_(options.rate_per_sec, options.burst),
      quota_(options.quota_turns, options.quota_bytes),
      openapi_(OpenApiJson(options.limits)) {}

Reply Api::PostTurns(const Call& call) {
  auto turns = ParseTurnsRequest(call.body, options_.limits);
  if (!turns.ok()) return StatusReply(turns.status());
  const UserKey key{call.tenant, call.user};
  const int64_t n = static_cast<int64_t>(turns->size());
  int64_t bytes = 0;
  for (const Turn& t : *turns) bytes += static_cast<int64_t>(t.text.size());
  Status st = quota_.Reserve(key.tenant, n, bytes, [&] { return memory_->GetTenantStats(key.tenant); });
  if (!st.ok()) {
    Reply r = ErrorReply(429, "quota_exceeded", st.message());
    r.headers.emplace_back("Retry-After", kQuotaRetryAfterSec);
    return r;
  }
  std::vector<IngestedTurn> out;
  st = memory_->IngestBatch(key, *turns, &out);
  size_t stored = 0;
  int64_t stored_bytes = 0;
  for (size_t i = 0; st.ok() && i < out.size(); ++i) {
    if (out[i].duplicate) continue;
    ++stored;
    stored_bytes += static_cast<int64_t>((*turns)[i].text.size());
  }
  quota_.Release(key.tenant, n, bytes, static_cast<int64_t>(stored), stored_bytes);
  if (!st.ok()) return UserError(st, call);
  metrics_->AddIngested(static_cast<int64_t>(stored));
  return Json(IngestResultJson(out));
}

Reply Api::PostSearch(const Call& call) {
  auto req = ParseSearchRequest(call.body, options_.limits);
  if (!req.ok()) return StatusReply(req.status());
  auto result = memory_->Search({call.tenant, call.user}, req->query, req->options);
  if (!result.ok()) return UserError(result.status(), call);
  metrics_->AddSearch();
  return Json(SearchResultJson(*result));
}

Reply Api::PostFeedback(const Call& call) {
  auto fb = ParseFeedbackRequest(call.body, options_.limits);
  if (!fb.ok()) return StatusReply(fb.status());
  Status st = memory_->AddFeedback({call.tenant, call.user}, *fb);
  if (!st.ok()) return UserError(st, call);
  return Json("{\"ok\":true}");
}

Reply Api::PostFact(const Call& call) {
  auto fact = ParseFactRequest(call.body, options_.limits);
  if (!fact.ok()) return StatusReply(fact.status());
  Status st = memory_->AddFact({call.tenant, call.user}, *fact);
  if (!st.ok()) return UserError(st, call);
  return Json("{\"ok\":true}");
}

Reply Api::ListUsers(const Call& call) {
  auto users = memory_->ListUsers(call.tenant);
  if (!users.ok()) return StatusReply(users.status());
  return Json(UsersJson(*users));
}

Reply Api::GetTurns(const Call& call) {
  size_t offset = 0, limit = 0;
  Status st = QueryInt(call, "offset", 0, 0, kMaxTurnsOffset, &offset);
  if (st.ok()) st = QueryInt(call, "limit", 100, 1, 1000, &limit);
  if (!st.ok()) return StatusReply(st);
  auto turns = memory_->Turns({call.tenant, call.user});
  if (!turns.ok()) return UserError(turns.status(), call);
  return Json(TurnsPageJson(*turns, offset, limit));
}

Reply Api::GetGraph(const Call& call) {
  auto g = memory_->GraphJson({call.tenant, call.user});
  if (!g.ok()) return UserError(g.status(), call);
  return Json(std::move(*g));
}

Reply Api::GetExport(const Call& call) {
  auto doc = memory_->Export({call.tenant, call.user});
  if (!doc.ok()) return UserError(doc.status(), call);
  return Json(std::move(*doc));
}

Reply Api::DeleteUser(const Call& call) {
  Status st = memory_->Forget({call.tenant, call.user});
  quota_.Invalidate(call.tenant);
  if (!st.ok()) return UserError(st, call);
  return Json("{\"deleted\":true}");
}

Reply Api::Healthz(const Call&) { return Json("{\"status\":\"ok\"}"); }

Reply Api::MetricsText(const Call&) {
  Reply r;
  r.body = metrics_->Render(memory_);
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return r;
}

Reply Api::OpenApi(const Call&) { return Json(openapi_); }

Reply Api::Inspector(const Call&) {
  Reply r;
  r.body.assign(reinterpret_cast<const char*>(kInspectorHtml), kInspectorHtmlSize);
  r.content_type = "text/html; charset=utf-8";
  return r;
}

}  // namespace ontomem::server
