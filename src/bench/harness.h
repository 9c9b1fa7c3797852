// `ontomem bench`: ingests LoCoMo-format datasets user by user, asks every QA item with gold
// evidence, and reports Recall@k, nDCG@k, evidence precision, latency, ingest cost and
// context-token cost per method and per slice (output format in docs/benchmarks.md).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/dataset.h"
#include "embed/sif_embedder.h"
#include "engine/user_memory.h"
#include "ontomem/embedder.h"
#include "ontomem/options.h"
#include "retrieve/retriever.h"

namespace ontomem {

struct BenchConfig {
  std::vector<std::string> datasets;
  // "dense", "bm25", "fusion", "full", "rewrite", "ppr", measurement variants "fusion-rrf",
  // "fusion-weighted", "full-no-promotion", the dataset check "length" (the asker's turns,
  // longest first), and any of the methods with its own retriever knobs:
  // "full@w_graph=0.6:w_dense=0.3" (variants share one ingest).
  std::vector<std::string> methods = {"dense", "bm25", "fusion"};
  // Graph-first combiner models a method selects with the knob `combiner_variant=i` (1-based),
  // so retrains are compared on one ingest ("full@combiner_variant=2").
  std::vector<std::shared_ptr<const learn::Mlp>> combiner_variants;
  int k = 10;
  std::shared_ptr<Embedder> embedder;
  RetrieverConfig retriever;
  LexicalConfig lexical;
  SifEmbedderOptions sif;  // used by the CLI to build `embedder` from the lexicon
  float fact_threshold = Options().fact_threshold;  // assertions below stay vector-only
  Options::FactVerifierEndpoint fact_verifier;      // a chat model confirming facts at ingest (optional)
  bool progress = false;  // progress lines on stderr
  // SearchOptions::latency_budget_us of every search: the engine's default, so the bench
  // measures the real guard; INT64_MAX never skips an expansion, which makes results independent
  // of machine load (`train combiner` collects its rows so).
  int64_t latency_budget_us = SearchOptions().latency_budget_us;
  // When set, one JSON line per (question, method) for error analysis: gold ids, the ranked
  // ids with their per-view scores and paths, the route (docs/benchmarks.md).
  std::string dump_path;
  // When set, called after every method-full search with the dataset, the method's index in
  // `methods`, the gold turn ids, the route, the combiner's candidates and the ranked ids
  // (`ontomem train combiner`).
  std::function<void(const std::string& dataset, size_t method, const std::vector<std::string>& gold,
                     const std::string& route, const std::vector<CombinerRow>& candidates,
                     const std::vector<std::string>& ranked)>
      on_candidates;
};

// A dataset argument: a LoCoMo-format file, or "file#id,id" for only those samples
// (conversations) of it, in that order (cross-validation folds of one file).
StatusOr<Dataset> LoadBenchDataset(const std::string& spec);

// Parses "name=value" into the retriever/lexical knobs (names as in docs/tuning.md).
Status ApplyBenchParam(const std::string& assignment, BenchConfig* config);

// Runs the benchmark; prints a table to `table` and fills `result` in the documented shape.
Status RunBench(const BenchConfig& config, std::ostream& table, nlohmann::json* result);

// The `length` check: the first `k` of `asker`'s turns (all turns when empty), longest first
// (earlier first among equals). Not a retrieval method but a check on a dataset: where it
// scores well, a method's recall may be the length of the evidence turns, not their meaning.
std::vector<std::string> RankAskerTurnsByLength(const Sample& s, const std::string& asker, size_t k);

// Metric helpers (exposed for tests). `ranked` are the retrieved ids best first.
double RecallAtK(const std::vector<std::string>& ranked, const std::vector<std::string>& gold, size_t k);
double NdcgAtK(const std::vector<std::string>& ranked, const std::vector<std::string>& gold, size_t k);
double PrecisionAtK(const std::vector<std::string>& ranked, const std::vector<std::string>& gold, size_t k);

}  // namespace ontomem
