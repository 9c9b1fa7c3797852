// `ontomem train combiner`: fits a learned combiner of method full (retrieve/combiner.h), for
// graph-first or for dense-first searches. It runs method full with the hand-set unified score
// over the splits, collects the candidates and features of every query of that route, labels
// the gold turns, trains a small MLP for a few settings, picks the setting with the best
// Recall@k on the dev splits (or the pooled held-out --cv splits) and writes it
// (docs/combiner.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "bench/harness.h"

namespace ontomem {

struct TrainCombinerConfig {
  std::vector<std::string> train_paths;  // LoCoMo-format splits to fit on (IPR-synth train)
  // More splits to fit on, each read with the extractor of its own models directory: an
  // extractor that never saw the split's phrasing (`train extractor --ipr-phrasing-fold`)
  // leaves gold turns without an edge as unseen phrasing does, so the combiner learns to
  // weigh such turns instead of learning that a needed turn always has one.
  std::vector<std::pair<std::string, std::string>> train_with_models;  // {split, models dir}
  std::vector<std::string> dev_paths;    // splits the setting is chosen on (IPR-synth dev)
  // Cross-validation splits (e.g. one LoCoMo conversation each, "file#conv-26"): each is held
  // out once while the setting is fitted on --train and the others; the setting is chosen on
  // their mean, and the model written is fitted on --train and all of them.
  std::vector<std::string> cv_paths;
  // Which searches the combiner serves: "graph-first" or "dense-first" (the others).
  std::string route = "graph-first";
  std::string out_path;                  // "" = models/retrieval/combiner.bin (combiner_dense.bin)
  std::vector<int> hidden = {8, 32};     // settings tried: hidden units x positive weights
  std::vector<float> positive_weights = {1.0f, 4.0f};
  bool listwise = true;  // also try a listwise (softmax over each query's candidates) loss
  // Share of the train splits' candidates with an edge whose graph evidence is removed
  // (DropGraphEvidence), drawn once with `seed`; chosen on dev.
  float edge_dropout = 0.0f;
  int epochs = 25;
  uint64_t seed = 1;
  // The chosen setting is fitted with this many seeds and written as one network averaging
  // their logits (learn::MeanLogitEnsemble); 1 = the single model the comparison chose.
  int ensemble = 1;
  // With ensemble > 1: write one network of the chosen setting fitted to the ensemble's outputs
  // (soft targets) instead of the ensemble, so a search pays for one network, not `ensemble`.
  bool distill = false;
  int student_hidden = 0;    // the distilled network's hidden units; 0 = the chosen setting's
  // With distill: the ensemble to follow, read from a file (an earlier run's output on the same
  // rows) instead of fitted again, which is most of a run's time.
  std::string teacher_path;
  BenchConfig bench;  // embedder, k, other knobs
};

Status RunTrainCombiner(const TrainCombinerConfig& config, std::ostream& out);

}  // namespace ontomem
