#include "bench/train_scorer.h"

#include <fmt/format.h>

#include <cmath>
#include <ostream>
#include <sstream>

#include "retrieve/scorer_weights.h"

namespace ontomem {
namespace {

std::string Variant(float wg, float wd) { return fmt::format("full@w_graph={:.2f}:w_dense={:.2f}", wg, wd); }

double Recall(const nlohmann::json& result, const std::string& method) {
  return result.at("datasets").at(0).at("methods").at(method).at("recall").get<double>();
}

}  // namespace

Status RunTrainScorer(const TrainScorerConfig& config, std::ostream& out) {
  if (config.train_path.empty()) return Status::InvalidArgument("train scorer needs --train");
  if (!(config.step > 0.0f && config.step < 0.5f)) return Status::InvalidArgument("--step must be in (0, 0.5)");
  const ScorerWeights def;
  const float rest = 1.0f - def.w_profile;  // w_g + w_d
  BenchConfig bc = config.bench;
  bc.datasets = {config.train_path};
  bc.methods.clear();
  std::vector<std::pair<float, float>> grid;
  for (int i = 1;; ++i) {
    const float wg = std::round(config.step * static_cast<float>(i) * 100.0f) / 100.0f;
    const float wd = std::round((rest - wg) * 100.0f) / 100.0f;
    if (wd < config.step - 1e-6f) break;
    grid.emplace_back(wg, wd);
    bc.methods.push_back(Variant(wg, wd));
  }
  out << fmt::format("fitting w_graph/w_dense (w_profile {:.2f} kept: the benchmarks carry no feedback, so "
                     "s_profile is 0 there) on {} over {} grid points\n",
                     def.w_profile, config.train_path, grid.size());
  nlohmann::json train;
  std::ostringstream table;
  RETURN_IF_ERROR(RunBench(bc, table, &train));
  size_t best = 0;
  double best_recall = -1, best_dist = 0;
  for (size_t i = 0; i < grid.size(); ++i) {
    const double r = Recall(train, bc.methods[i]);
    const double dist = std::abs(grid[i].first - def.w_graph);
    out << fmt::format("  w_graph {:.2f} w_dense {:.2f}: train R@{} {:.4f}\n", grid[i].first, grid[i].second, bc.k, r);
    if (r > best_recall + 1e-12 || (std::abs(r - best_recall) <= 1e-12 && dist < best_dist)) {
      best = i, best_recall = r, best_dist = dist;
    }
  }
  ScorerWeights fitted;
  fitted.w_graph = grid[best].first, fitted.w_dense = grid[best].second, fitted.w_profile = def.w_profile;
  out << fmt::format("fitted: w_graph {:.2f} w_dense {:.2f} w_profile {:.2f} (train R@{} {:.4f})\n", fitted.w_graph,
                     fitted.w_dense, fitted.w_profile, bc.k, best_recall);

  nlohmann::json fit{{"train", config.train_path}, {"k", bc.k}, {"train_recall", best_recall},
                     {"grid_step", std::round(static_cast<double>(config.step) * 1e4) / 1e4}};
  if (!config.dev_path.empty()) {
    BenchConfig dc = config.bench;
    dc.datasets = {config.dev_path};
    const std::string fitted_name = Variant(fitted.w_graph, fitted.w_dense);
    dc.methods = {"full", fitted_name};
    nlohmann::json dev;
    std::ostringstream dev_table;
    RETURN_IF_ERROR(RunBench(dc, dev_table, &dev));
    const double rd = Recall(dev, "full"), rf = Recall(dev, fitted_name);
    out << fmt::format("dev {}: defaults ({:.2f}/{:.2f}/{:.2f}) R@{} {:.4f}; fitted R@{} {:.4f}\n", config.dev_path,
                       def.w_graph, def.w_dense, def.w_profile, dc.k, rd, dc.k, rf);
    fit["dev"] = config.dev_path;
    fit["dev_recall_defaults"] = rd;
    fit["dev_recall_fitted"] = rf;
  }
  if (!config.out_path.empty()) {
    RETURN_IF_ERROR(SaveScorerWeights(config.out_path, fitted, fit.dump()));
    out << "wrote " << config.out_path << " (use with Options::scorer_path, `ontomem serve --scorer`, "
        << "`ontomem bench --scorer`)\n";
  }
  return Status::Ok();
}

}  // namespace ontomem
