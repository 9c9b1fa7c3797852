// Options for Memory::Open. Every field states its default.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ontomem/embedder.h"

namespace ontomem {

enum class Durability {
  kFull,    // SQLite synchronous=FULL: an acknowledged ingest survives power loss (default)
  kNormal,  // synchronous=NORMAL: survives a process crash, may lose the last commits on power loss
  kOff,     // synchronous=OFF: benchmarks and throwaway data only
};

struct Options {
  // Directory holding ontomem.db. Required.
  std::string data_dir;
  // Create the directory and database when missing (default true). False: NotFound if absent.
  bool create_if_missing = true;
  Durability durability = Durability::kFull;
  // Other processes may write this data directory (`ontomem serve`, `mcp` and `ingest` at
  // once): every search first checks the user's stored version (about 5 us) and applies what
  // another process added. Default true. False promises this Memory is the directory's only
  // writer and skips the check (a cached user never sees others' writes); writes stay safe.
  bool shared_data_dir = true;
  // When another process wrote a user while a write of this Memory to the same user is in
  // flight, a search waits up to this long for that write (its commit and fsync take a few ms)
  // and then applies the other process's rows in place; past it, the search reads a whole copy
  // of the user for itself (`CacheStats::private_copies`), which costs a whole load and can
  // leave that much free heap in the thread's malloc arena. Default 250 ms: with two servers
  // writing one 2,000-turn user back to back while four threads searched one of them, 50 ms
  // still gave about 230 private copies in 25 s, 250 ms none (docs/RESULTS.md, session 42).
  // 0 never waits.
  std::chrono::milliseconds own_write_wait{250};
  // Path of the lexicon made by `ontomem lexicon build`. The dense view's embedder when
  // `embedder` is null; with a custom embedder, the knowledge side's (below).
  // Default: empty, which means $ONTOMEM_LEXICON, else $HOME/.cache/ontomem/lexicon.bin.
  std::string lexicon_path;
  // Custom embedder (tests, a remote endpoint: ConnectHttpEmbedder). Default null: the GloVe-SIF
  // lexicon embedder.
  std::shared_ptr<Embedder> embedder;
  // With a custom embedder, still read the lexicon (when its file exists) for what the graph
  // side learned on GloVe: concept lifting, the query-domain classifier and rare-name detection.
  // Without it those fall back to cue words and WordNet. Default true.
  bool knowledge_lexicon = true;
  // Upper bound on memory held by loaded users; least-recently-used users are evicted past it
  // and reloaded from the store on next use. Default 512 MiB.
  size_t memory_budget_bytes = size_t{512} << 20;
  // Largest accepted turn text in bytes (default 64 KiB); larger turns are ResourceExhausted.
  size_t max_turn_bytes = size_t{64} << 10;
  // Largest accepted batch (default 10,000 turns).
  size_t max_batch_turns = 10000;

  // Tag2Graph: read assertions from every turn into the memory graph (default true; needs the
  // extractor models, see `ontomem train extractor`; without them ingest still works and the
  // graph only holds explicit facts).
  bool extract_facts = true;
  // Assertions scored below this stay vector-only (default 0.5). Below 0.5 they may add an edge
  // but never end one (negation, past tense, contradiction).
  float fact_threshold = 0.5f;
  // A second opinion on extracted facts from a chat model you run (optional): an
  // OpenAI-compatible endpoint (POST <base_url>/v1/chat/completions). A fact the rule verifier
  // passes is sent to it once, as the rules read it, and becomes an edge only if the model
  // confirms it (the model may also name another relation); a fact the rules reject is never
  // sent. Any failure (unreachable, timeout, HTTP error, an answer that is no verdict) keeps the
  // rules' verdict and is counted, so ingest never fails because of it. Every fact the rules pass
  // costs one request before the batch commits, so ingest runs at the endpoint's pace.
  // Default: empty base_url, rules only.
  struct FactVerifierEndpoint {
    std::string base_url;            // scheme://host:port, e.g. http://127.0.0.1:8080
    std::string model = "default";   // the request's "model" field
    std::string api_key;             // sent as "Authorization: Bearer" when set
    int timeout_ms = 2000;           // connect + read timeout per request
    int concurrency = 4;             // requests in flight at once while a batch is read (>= 1)
  };
  FactVerifierEndpoint fact_verifier;
  // Ontology file; default empty = $ONTOMEM_ONTOLOGY, else data/ontology/ontology.json.
  std::string ontology_path;
  // Extractor model directory; default empty = $ONTOMEM_MODELS, else models/.
  std::string models_dir;
  // Unified-score weights of method full, a JSON file written by `ontomem train scorer`.
  // Default empty: the paper's w_graph 0.55, w_dense 0.35, w_profile 0.10.
  std::string scorer_path;
  // Privacy categories whose relations may be promoted to concept edges (default none: health,
  // religion, sexuality, politics, finances and government ids are never promoted).
  std::vector<std::string> promote_private_categories;
};

// The lexicon path Options would use when lexicon_path is empty.
std::string DefaultLexiconPath();

}  // namespace ontomem
