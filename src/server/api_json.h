// The JSON of the HTTP API: strict request parsing (every error names the field path, e.g.
// "turns[2].time: expected an integer or an RFC 3339 string") and the response writers.
// No exception leaves these functions; they are the fuzz targets' entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem::server {

// Per-request size limits. A limit that is hit is ResourceExhausted (HTTP 413); every other
// malformed input is InvalidArgument (HTTP 400).
struct Limits {
  size_t max_body_bytes = 8 << 20;   // whole request body
  size_t max_turn_bytes = 64 << 10;  // one turn's text
  size_t max_batch_turns = 1000;     // turns in one ingest request
  int max_k = 100;                   // search k is 1..max_k
  size_t max_query_bytes = 8192;     // search query and each context item
  size_t max_context_items = 32;     // search context items
};

struct SearchRequest {
  std::string query;
  SearchOptions options;
};

// POST /v1/users/{user}/turns: {"turns":[{"speaker","text","time"?,"id"?,"session"?}]}.
StatusOr<std::vector<Turn>> ParseTurnsRequest(std::string_view body, const Limits& limits);
// POST /v1/users/{user}/search: {"query","k"?,"asker"?,"context"?,"method"?,"max_context_tokens"?,
// "collapse_duplicates"?}.
StatusOr<SearchRequest> ParseSearchRequest(std::string_view body, const Limits& limits);
// POST /v1/users/{user}/feedback: {"query_id","query"?,"used"?,"wrong"?,"missed"?}.
StatusOr<Feedback> ParseFeedbackRequest(std::string_view body, const Limits& limits);
// POST /v1/users/{user}/facts: {"relation","tail","head"?,"tail_type"?,"domain"?,"time"?}.
StatusOr<Fact> ParseFactRequest(std::string_view body, const Limits& limits);

// RFC 3339 date-time ("2024-01-02T03:04:05.250+01:00") to Unix milliseconds; nullopt if it is
// not one (or lies before 1970).
std::optional<int64_t> ParseRfc3339(std::string_view s);

// Response bodies (compact JSON; invalid UTF-8 in stored data is replaced, never thrown on).
std::string SearchResultJson(const SearchResult& result);
// A page of turns: {"turns":[...],"total":n,"next_offset":int|null}.
std::string TurnsPageJson(const std::vector<StoredTurn>& turns, size_t offset, size_t limit);
// {"stored":n,"duplicates":m,"turns":[{"id","seq"}]}.
std::string IngestResultJson(const std::vector<IngestedTurn>& turns);
std::string UsersJson(const std::vector<std::string>& users);
// {"error":{"code":code,"message":message}}.
std::string ErrorJson(std::string_view code, std::string_view message);

}  // namespace ontomem::server
