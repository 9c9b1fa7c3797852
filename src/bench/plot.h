// Plots of a benchmark result (`ontomem bench --plot DIR`) drawn with gnuplot as SVG and PNG.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ontomem/status.h"

namespace ontomem {

// Writes into `dir` (created if missing), for the result JSON of RunBench:
//  - recall_vs_scale.{svg,png}: Recall@k against history scale per method, over the datasets
//    that carry a history scale (IPR-synth --scale); skipped when fewer than two do;
//  - pareto.{svg,png}: Recall@k against cost (context tokens and p50 latency, each relative to
//    `dense` in the same dataset) per method and dataset;
//  - slices_<n>.{svg,png}: per-slice Recall@k bars for dataset n (0-based), methods side by side.
// The .dat and .gp files stay beside the images so a plot can be redrawn or restyled.
// FailedPrecondition when gnuplot is not installed.
Status WritePlots(const nlohmann::json& result, const std::string& dir);

}  // namespace ontomem
