// Fuzzes the HTTP request parsers (server/api_json.h) and the response writers fed with what
// they accept. Any body gives a value or an InvalidArgument/ResourceExhausted naming a field,
// never a crash, throw or hang; accepted values respect the limits; every response and error
// body written from them is valid JSON.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "server/api_json.h"

namespace {

using ontomem::Status;
using ontomem::StatusCode;
namespace server = ontomem::server;

void Check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "invariant violated: %s\n", what);
    abort();
  }
}

void CheckJson(const std::string& s, const char* what) {
  Check(!nlohmann::json::parse(s, nullptr, /*allow_exceptions=*/false).is_discarded(), what);
}

void CheckError(const Status& st) {
  Check(st.code() == StatusCode::kInvalidArgument || st.code() == StatusCode::kResourceExhausted,
        "parse errors are InvalidArgument or ResourceExhausted");
  Check(!st.message().empty(), "parse errors have a message");
  CheckJson(server::ErrorJson("invalid_argument", st.message()), "ErrorJson is JSON");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  // Small limits so that inputs reach every limit check.
  server::Limits limits;
  limits.max_body_bytes = 2048;
  limits.max_turn_bytes = 64;
  limits.max_batch_turns = 4;
  limits.max_k = 20;
  limits.max_query_bytes = 64;
  limits.max_context_items = 3;

  auto turns = server::ParseTurnsRequest(body, limits);
  if (turns.ok()) {
    Check(!turns->empty() && turns->size() <= limits.max_batch_turns, "batch size within limits");
    std::vector<ontomem::StoredTurn> stored;
    for (const auto& t : *turns) {
      Check(t.text.size() <= limits.max_turn_bytes, "turn text within limits");
      stored.push_back({static_cast<int64_t>(stored.size()) + 1, t});
    }
    std::vector<ontomem::IngestedTurn> ingested;
    for (const auto& s : stored) ingested.push_back({s.seq, s.turn.id, s.seq % 2 == 0});
    CheckJson(server::IngestResultJson(ingested), "IngestResultJson is JSON");
    CheckJson(server::TurnsPageJson(stored, 1, 2), "TurnsPageJson is JSON");
    ontomem::SearchResult r;
    for (const auto& s : stored) r.hits.push_back({.turn = s, .score = 1.0});
    CheckJson(server::SearchResultJson(r), "SearchResultJson is JSON");
  } else {
    CheckError(turns.status());
  }

  auto search = server::ParseSearchRequest(body, limits);
  if (search.ok()) {
    Check(search->options.k >= 1 && search->options.k <= limits.max_k, "k within limits");
    Check(search->query.size() <= limits.max_query_bytes, "query within limits");
    Check(search->options.context.size() <= limits.max_context_items, "context within limits");
    ontomem::SearchResult r;
    r.query_id = search->query;
    r.method = ontomem::MethodName(search->options.method);
    r.query_domains = search->options.context;
    CheckJson(server::SearchResultJson(r), "SearchResultJson is JSON");
  } else {
    CheckError(search.status());
  }

  auto feedback = server::ParseFeedbackRequest(body, limits);
  if (!feedback.ok()) CheckError(feedback.status());
  auto fact = server::ParseFactRequest(body, limits);
  if (fact.ok()) {
    Check(!fact->relation.empty() && !fact->tail.empty(), "a fact has a relation and a tail");
    CheckJson(server::UsersJson({fact->relation, fact->tail, fact->head}), "UsersJson is JSON");
  } else {
    CheckError(fact.status());
  }

  if (auto ms = server::ParseRfc3339(body)) Check(*ms >= 0, "RFC 3339 times are not before 1970");
  return 0;
}
