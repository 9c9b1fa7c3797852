// Plain data types of the public API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ontomem {

// Tenants and users are a hard partition: every call names both, and nothing one call does can
// read or change another (tenant, user)'s data. Names are non-empty UTF-8, at most 256 bytes,
// without control characters.
struct UserKey {
  std::string tenant;
  std::string user;
};

// One utterance of a dialogue.
struct Turn {
  // External id chosen by the caller (LoCoMo's dia_id such as "D1:3"); unique per user. Empty:
  // the engine assigns "T<seq>" ("T<seq>.2", ".3", ... when a caller's turn already has that
  // id). Re-ingesting the same id with the same content (speaker, text, time, session) is a
  // no-op (safe retries); with different content it is AlreadyExists.
  std::string id;
  std::string speaker;  // who said it (may be empty)
  std::string text;     // the utterance, UTF-8, non-empty after trimming
  int64_t time_ms = 0;  // when it was said, Unix milliseconds; 0 = unknown
  std::string session;  // optional session label ("session_3")
};

// A stored turn as returned by Export and Search.
struct StoredTurn {
  int64_t seq = 0;  // 1-based order of arrival within the user
  Turn turn;
};

// What IngestBatch did with one turn of a batch (same order as the batch).
struct IngestedTurn {
  int64_t seq = 0;         // the stored turn's seq (the earlier one's for a duplicate)
  std::string id;          // its id ("T<seq>" when the turn came without one)
  bool duplicate = false;  // same id and content were already stored: nothing was written
};

// A fact added through the API without extraction (`Memory::AddFact`), e.g. from a CRM or a
// settings page. It enters the graph like an extracted assertion, marked explicit.
struct Fact {
  std::string head;       // who holds it; empty = the user
  std::string relation;   // an assertion relation of the ontology ("LIKES", "ALLERGIC_TO", ...)
  std::string tail;       // what it is about ("peanuts", "Titanic")
  std::string tail_type;  // optional ontology entity type ("allergen", "movie")
  std::string domain;     // optional ontology domain ("food_diet")
  int64_t time_ms = 0;    // since when it holds; 0 = now
};

// Ranked retrieval methods.
enum class Method {
  kDense,   // GloVe-SIF (or the configured embedder) cosine over the flat FAISS index
  kBm25,    // BM25 over stemmed, stop-word-free tokens of the turn and its predecessor
  kFusion,  // weighted fusion of both views
  kFull,    // hybrid (the default): the user's memory graph (graph-first) with the fused views,
            // ranked by the learned combiner when installed (docs/combiner.md, docs/RESULTS.md)
  // Baselines measured in the same harness (docs/RESULTS.md):
  kRewrite,  // cue augmentation (context, asker, detected domain's cue words) + dense, no graph
  kPpr,      // HippoRAG-style personalised PageRank over the extracted entity graph
};

const char* MethodName(Method m);
// Parses "dense", "bm25", "fusion", "full", "rewrite" or "ppr"; false if unknown.
bool ParseMethod(const std::string& name, Method* out);

struct SearchOptions {
  int k = 10;             // number of hits, 1..1000
  // Context budget: hits are dropped from the tail once their whitespace tokens would exceed it
  // (the top hit is always kept). 0 = no budget.
  int64_t max_context_tokens = 0;
  Method method = Method::kFull;
  std::string asker;      // who asks; first-person words in the query refer to them
  // Recent conversation said just before the query, oldest first. Used as query context, never
  // stored; one of the user's latest turns whose text is the query or one of these lines is not
  // returned (the caller just said it; RetrieverConfig::skip_context_echoes).
  std::vector<std::string> context;
  // Method full: an uncertainty expansion (one more graph hop or dense probe) is skipped when
  // it would push Search past this many microseconds (0 = never expand).
  int64_t latency_budget_us = 5000;
  // When the query is asked (Unix ms), for time expressions such as "two weeks ago";
  // 0 = the time of the user's latest turn.
  int64_t now_ms = 0;
  // A text said verbatim more than once (case and surrounding space ignored) comes back once,
  // at its best-ranked turn, and the freed slots go to the next turns; false returns every
  // copy (an audit of what was said).
  bool collapse_duplicates = true;
};

// One ranked turn with the score of each signal that saw it. A view that did not retrieve the
// turn has rank 0 and score 0.
struct Hit {
  StoredTurn turn;
  double score = 0;        // the method's final score (higher is better)
  double dense_score = 0;  // cosine similarity in the dense view
  double bm25_score = 0;   // BM25 score in the lexical view
  int dense_rank = 0;      // 1-based rank in the dense view, 0 if not retrieved there
  int bm25_rank = 0;       // 1-based rank in the lexical view, 0 if not retrieved there
  double graph_score = 0;  // graph view (method full): edge weight x query-domain match
  // Method full: the edge that brought the turn ("ana -LIKES-> titanic"), or the floor that
  // reserved it ("floor: names 'framely'", "floor: the question's own words"); "" = ranked by
  // the dense and lexical views.
  std::string path;
  double profile_score = 0;  // method full: s_profile in [-1, 1], from the user's feedback
};

struct SearchResult {
  std::vector<Hit> hits;
  std::string method;
  int64_t latency_us = 0;      // time spent inside Search
  int64_t context_tokens = 0;  // whitespace tokens of the returned turns (what a prompt would pay)
  int64_t candidates = 0;      // number of turns scored
  std::string route;           // method full: "graph-first" or "dense-first", + "+combiner" when a learned combiner ranked
  int64_t graph_candidates = 0;  // method full: turns the graph view proposed
  std::vector<std::string> query_domains;  // method full: detected domains of the query
  // Method full: how uncertainty was handled: "none" (confident), "graph-hop" or "dense-probe"
  // (one expansion ran), "skipped-latency" (it would have broken the latency budget; the
  // fused dense/lexical view was trusted instead).
  std::string uncertainty;
  // Method full: share of the graph view's top 10 that the fused view also ranks top 10
  // (-1 when the graph proposed nothing).
  double view_overlap = -1;
  // Method full: a time expression of the query resolved against SearchOptions::now_ms; turns
  // said in [time_from_ms, time_to_ms) were favoured. Empty phrase = none found.
  std::string time_phrase;
  int64_t time_from_ms = 0, time_to_ms = 0;
  // Identifies this search in later feedback (Memory::AddFeedback); unique per process run.
  std::string query_id;
};

// What the caller learned from a search's hits: which cited turns were used and right, which
// were wrong, and which turns were needed but missing. Stored durably; the learning loop
// consumes it.
struct Feedback {
  std::string query_id;             // SearchResult::query_id of the search it is about
  std::string query;                // optional: the query text
  std::vector<std::string> used;    // external turn ids cited and correct
  std::vector<std::string> wrong;   // external turn ids cited but wrong or unhelpful
  std::vector<std::string> missed;  // external turn ids that were needed but not returned
  int64_t time_ms = 0;              // when it was given; 0 = now
};

// Lookups of the in-memory user cache since Memory::Open: a hit found the user loaded, a miss
// loaded them from the store; evictions dropped a user to stay within the memory budget.
// private_copies: searches that read a whole copy of the user for themselves, because another
// process had written to it while a write of this process held it (each costs a whole load).
struct CacheStats {
  uint64_t hits = 0, misses = 0, evictions = 0, private_copies = 0;
};

// Requests sent to Options::fact_verifier since the memory opened, and how many failed and kept
// the rules' verdict (unreachable, timeout, HTTP error, an answer that is no verdict).
struct FactVerifierStats {
  uint64_t requests = 0, failures = 0;
};

// Stored size of a tenant, for quotas.
struct TenantStats {
  int64_t users = 0;
  int64_t turns = 0;
  int64_t text_bytes = 0;  // bytes of turn text stored
};

}  // namespace ontomem
