// `ontomem train scorer`: refits the unified score's view weights (w_g, w_d; w_p kept) of
// method `full` by a grid search on a training split, then reports the paper's defaults and
// the fitted weights side by side on a dev split.
#pragma once

#include <iosfwd>
#include <string>

#include "bench/harness.h"

namespace ontomem {

struct TrainScorerConfig {
  std::string train_path;  // LoCoMo-format split to fit on (IPR-synth train)
  std::string dev_path;    // optional: split to report defaults vs fitted on
  std::string out_path;    // scorer JSON (Options::scorer_path)
  float step = 0.05f;      // grid step of w_graph
  BenchConfig bench;       // embedder, k, other knobs
};

// Grid: w_graph in [step, 1 - w_profile - step], w_dense = 1 - w_profile - w_graph. The best
// Recall@k on train wins; ties go to the weights closest to the defaults.
Status RunTrainScorer(const TrainScorerConfig& config, std::ostream& out);

}  // namespace ontomem
