#include "bench/train_combiner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <numeric>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <sstream>

#include "retrieve/combiner.h"

namespace ontomem {
namespace {

// One query's candidates and how many gold turns it has (some may not be candidates). A
// query of the other route has no candidates: this combiner leaves it to the hand-set score,
// whose recall it keeps.
struct Query {
  std::vector<CombinerFeatures> x;
  std::vector<uint8_t> gold;
  size_t gold_total = 0;
  double handset_recall = 0;
};

struct Split {
  std::string path;
  std::vector<Query> queries;
  double handset_recall = 0;  // method full with the hand-set unified score, same run
};

// Runs hand-set method full over `path` and keeps every query's candidates.
StatusOr<Split> Collect(const TrainCombinerConfig& config, const std::string& path) {
  Split split;
  split.path = path;
  BenchConfig bc = config.bench;
  bc.datasets = {path};
  bc.methods = {"full@combiner=0"};
  // Rows must not depend on machine load: under a busy CPU the 5 ms guard skipped some
  // uncertainty expansions, and the same command wrote different weights (session 23).
  bc.latency_budget_us = std::numeric_limits<int64_t>::max();
  bc.on_candidates = [&](const std::string&, size_t, const std::vector<std::string>& gold, const std::string& route,
                         const std::vector<CombinerRow>& rows, const std::vector<std::string>& ranked) {
    Query q;
    q.gold_total = gold.size();
    q.handset_recall = RecallAtK(ranked, gold, static_cast<size_t>(config.bench.k));
    const std::set<std::string> g(gold.begin(), gold.end());
    if (route == config.route)
      for (const CombinerRow& r : rows) {
        q.x.push_back(r.x);
        q.gold.push_back(g.count(r.turn_id) ? 1 : 0);
      }
    split.queries.push_back(std::move(q));
  };
  nlohmann::json result;
  std::ostringstream table;
  RETURN_IF_ERROR(RunBench(bc, table, &result));
  split.handset_recall = result.at("datasets").at(0).at("methods").at(bc.methods[0]).at("recall").get<double>();
  return split;
}

// Recall@k when each query's candidates are ordered by the model and every other turn ranks
// below them, as in the retriever (which breaks the rare exact ties by turn order, this by
// candidate order).
double RecallOf(const learn::Mlp& m, const Split& s, size_t k) {
  double sum = 0;
  size_t n = 0;
  for (const Query& q : s.queries) {
    if (q.gold_total == 0) continue;
    ++n;
    if (q.x.empty()) {
      sum += q.handset_recall;
      continue;
    }
    std::vector<float> score(q.x.size());
    for (size_t i = 0; i < q.x.size(); ++i)
      score[i] = m.Forward(Eigen::Map<const Eigen::VectorXf>(q.x[i].data(), kCombinerFeatures))(0);
    std::vector<size_t> order(q.x.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
    size_t found = 0;
    for (size_t r = 0; r < order.size() && r < k; ++r) found += q.gold[order[r]];
    sum += static_cast<double>(found) / static_cast<double>(q.gold_total);
  }
  return n ? sum / static_cast<double>(n) : 0;
}

// Questions of a split that have gold turns (the ones Recall@k averages over).
size_t Questions(const Split& s) {
  return static_cast<size_t>(std::count_if(s.queries.begin(), s.queries.end(), [](const Query& q) { return q.gold_total > 0; }));
}

// The share of gold turns that are candidates at all (of the route's queries): the ceiling
// of any reordering.
double CandidateCoverage(const Split& s) {
  size_t in = 0, total = 0;
  for (const Query& q : s.queries) {
    if (q.x.empty()) continue;
    total += q.gold_total;
    in += static_cast<size_t>(std::count(q.gold.begin(), q.gold.end(), 1));
  }
  return total ? static_cast<double>(in) / static_cast<double>(total) : 0;
}

// Listwise training (ListNet with one gold distribution per query): each step is one query,
// its candidates' logits go through a softmax over the query, and the loss is the
// cross-entropy against the gold turns (uniform over them). Mlp::Step applies the delta
// P - T of a sigmoid output with binary cross-entropy, scaled by 1/rows; choosing
// T = P - rows * (softmax - gold share) makes that delta the listwise gradient on the logits.
void TrainListwise(const std::vector<const Split*>& train, int epochs, uint64_t seed, learn::Mlp* m) {
  std::vector<const Query*> qs;
  for (const Split* s : train)
    for (const Query& q : s->queries)
      if (std::count(q.gold.begin(), q.gold.end(), 1) > 0) qs.push_back(&q);
  std::mt19937_64 g(seed);
  for (int e = 0; e < epochs; ++e) {
    std::shuffle(qs.begin(), qs.end(), g);
    for (const Query* q : qs) {
      const auto rows = static_cast<Eigen::Index>(q->x.size());
      Eigen::MatrixXf X(rows, static_cast<Eigen::Index>(kCombinerFeatures));
      for (Eigen::Index r = 0; r < rows; ++r)
        for (size_t f = 0; f < kCombinerFeatures; ++f) X(r, static_cast<Eigen::Index>(f)) = q->x[static_cast<size_t>(r)][f];
      const Eigen::MatrixXf P = m->ForwardBatch(X);
      Eigen::ArrayXf z = P.col(0).array().max(1e-6f).min(1 - 1e-6f);
      z = (z / (1 - z)).log();
      Eigen::ArrayXf soft = (z - z.maxCoeff()).exp();
      soft /= soft.sum();
      const float gold = static_cast<float>(std::count(q->gold.begin(), q->gold.end(), 1));
      Eigen::MatrixXf T(rows, 1);
      for (Eigen::Index r = 0; r < rows; ++r) {
        const float y = q->gold[static_cast<size_t>(r)] ? 1.0f / gold : 0.0f;
        T(r, 0) = P(r, 0) - static_cast<float>(rows) * (soft(r) - y);
      }
      m->Step(X, T, Eigen::VectorXf::Ones(rows), 1e-3f, 1e-5f);
    }
  }
}

// One setting (hidden units; gold-row weight, 0 = listwise) fitted on `train`: to the gold
// labels, or with `teacher` to its outputs on the same rows (distillation; pointwise only).
learn::Mlp Fit(const TrainCombinerConfig& config, const std::vector<const Split*>& train, int hidden, float pw,
               uint64_t seed, float* loss, const learn::Mlp* teacher = nullptr) {
  learn::Mlp m({static_cast<int>(kCombinerFeatures), hidden, 1}, learn::OutputActivation::kSigmoid, seed);
  *loss = 0;
  if (pw == 0.0f) {
    TrainListwise(train, config.epochs, seed, &m);
    return m;
  }
  size_t rows = 0;
  for (const Split* s : train)
    for (const Query& q : s->queries) rows += q.x.size();
  Eigen::MatrixXf X(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(kCombinerFeatures));
  Eigen::MatrixXf Y(static_cast<Eigen::Index>(rows), 1);
  std::vector<float> w(rows);
  Eigen::Index r = 0;
  for (const Split* s : train)
    for (const Query& q : s->queries)
      for (size_t i = 0; i < q.x.size(); ++i, ++r) {
        for (size_t f = 0; f < kCombinerFeatures; ++f) X(r, static_cast<Eigen::Index>(f)) = q.x[i][f];
        Y(r, 0) = q.gold[i];
        w[static_cast<size_t>(r)] = q.gold[i] ? pw : 1.0f;
      }
  if (teacher) Y = teacher->ForwardBatch(X);
  learn::MlpTrainOptions opt;
  opt.epochs = config.epochs;
  opt.batch_size = 64;
  opt.seed = seed;
  *loss = m.Train(X, Y, opt, w);
  return m;
}

// Sets a variable for this scope and restores the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* prev = std::getenv(name);
    had_ = prev != nullptr;
    if (had_) prev_ = prev;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, prev_.c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string prev_;
};

}  // namespace

Status RunTrainCombiner(const TrainCombinerConfig& config, std::ostream& out) {
  if (config.route != "graph-first" && config.route != "dense-first")
    return Status::InvalidArgument("train combiner: --route is graph-first or dense-first");
  if (config.train_paths.empty() && config.train_with_models.empty() && config.cv_paths.empty())
    return Status::InvalidArgument("train combiner needs --train");
  if (config.cv_paths.size() == 1)
    return Status::InvalidArgument("train combiner: --cv needs at least two splits (each is held out in turn)");
  if (config.dev_paths.empty() && config.cv_paths.empty())
    return Status::InvalidArgument("train combiner needs --dev or --cv splits (the setting is chosen there)");
  if (config.hidden.empty() || config.positive_weights.empty())
    return Status::InvalidArgument("train combiner needs at least one --hidden and one --positive-weight");
  if (config.ensemble < 1) return Status::InvalidArgument("train combiner: --ensemble must be at least 1");
  if (config.distill && ((config.ensemble < 2 && config.teacher_path.empty()) || config.listwise))
    return Status::InvalidArgument("train combiner: --distill needs --ensemble 2 or more (or --teacher) and --no-listwise "
                                   "(it fits one pointwise network to the ensemble's outputs)");
  if (!config.teacher_path.empty() && config.ensemble > 1)
    return Status::InvalidArgument("train combiner: --teacher replaces --ensemble (the ensemble is read, not fitted)");
  if ((config.student_hidden != 0 || !config.teacher_path.empty()) && !config.distill)
    return Status::InvalidArgument("train combiner: --student-hidden and --teacher need --distill");
  if (config.student_hidden < 0)
    return Status::InvalidArgument(fmt::format("train combiner: --student-hidden must be positive, got {}", config.student_hidden));
  std::optional<learn::Mlp> loaded_teacher;
  if (!config.teacher_path.empty()) {
    auto t = LoadCombiner(config.teacher_path);  // the engine's own checks of a combiner file
    if (!t.ok()) return t.status().WithContext("train combiner: --teacher");
    loaded_teacher = **t;
  }
  for (const auto& [p, models] : config.train_with_models)
    if (!std::filesystem::is_directory(models + "/extractor"))
      return Status::InvalidArgument(
          fmt::format("train combiner: --train-models {} {}: {} has no extractor/ directory", p, models, models));
  const size_t k = static_cast<size_t>(config.bench.k);
  // The rows come from the hand-set score; the models being replaced may not even load (an
  // older feature layout), so the pipeline is opened without them.
  ScopedEnv no_graph_combiner("ONTOMEM_COMBINER", "none"), no_dense_combiner("ONTOMEM_DENSE_COMBINER", "none");
  std::vector<Split> train, dev, cv;
  for (auto [paths, group] : {std::pair{&config.train_paths, &train}, {&config.dev_paths, &dev}, {&config.cv_paths, &cv}})
    for (const auto& p : *paths) {
      ASSIGN_OR_RETURN(Split s, Collect(config, p));
      group->push_back(std::move(s));
    }
  for (const auto& [p, models] : config.train_with_models) {
    ScopedEnv with_models("ONTOMEM_MODELS", models.c_str());
    ASSIGN_OR_RETURN(Split s, Collect(config, p));
    s.path += " (models " + models + ")";
    train.push_back(std::move(s));
  }
  if (config.edge_dropout < 0 || config.edge_dropout >= 1)
    return Status::InvalidArgument(fmt::format("train combiner: --edge-dropout must be in [0, 1), got {}", config.edge_dropout));
  size_t dropped = 0;
  if (config.edge_dropout > 0) {
    std::mt19937_64 g(config.seed ^ 0xed9e);
    for (Split& s : train)
      for (Query& q : s.queries)
        for (CombinerFeatures& x : q.x)
          if (x[1] > 0 && static_cast<double>(g() >> 11) * 0x1.0p-53 < config.edge_dropout) DropGraphEvidence(&x), ++dropped;
  }
  size_t rows = 0, positives = 0;
  for (const auto* group : {&train, &cv})
    for (const Split& s : *group)
      for (const Query& q : s.queries)
        rows += q.x.size(), positives += static_cast<size_t>(std::count(q.gold.begin(), q.gold.end(), 1));
  if (positives == 0)
    return Status::InvalidArgument(fmt::format("train combiner: no gold turn is among the {} candidates of the train splits", config.route));
  for (const auto* group : {&train, &cv, &dev})
    for (const Split& s : *group)
      out << fmt::format("{} {}: {} queries, gold among {} candidates {:.4f}, hand-set full R@{} {:.4f}\n",
                         group == &train ? "train" : group == &cv ? "cv" : "dev", s.path, s.queries.size(),
                         config.route, CandidateCoverage(s), k, s.handset_recall);
  out << fmt::format("train rows {} ({} gold, graph evidence dropped from {})\n", rows, positives, dropped);

  auto mean_recall = [&](const learn::Mlp& m, const std::vector<const Split*>& splits, std::string* each) {
    double sum = 0;
    for (const Split* s : splits) {
      const double r = RecallOf(m, *s, k);
      sum += r;
      if (each) *each += fmt::format(" {:.4f}", r);
    }
    return splits.empty() ? 0.0 : sum / static_cast<double>(splits.size());
  };
  std::vector<const Split*> all_train, dev_ptrs;
  for (const auto* group : {&train, &cv})
    for (const Split& s : *group) all_train.push_back(&s);
  for (const Split& s : dev) dev_ptrs.push_back(&s);

  // The folds' R@k is pooled over their questions, as `ontomem bench` reports a file.
  size_t cv_questions = 0;
  for (const Split& s : cv) cv_questions += Questions(s);
  const double cv_weight = 1.0 / static_cast<double>(std::max<size_t>(cv_questions, 1));

  double best_score = -1;
  learn::Mlp best;
  std::string best_setting;
  int best_hidden = 0;
  float best_pw = 0;
  // Settings: pointwise binary cross-entropy with each gold-row weight, then listwise. With
  // --cv the setting is chosen on the held-out folds, else on --dev.
  std::vector<float> weights = config.positive_weights;
  if (config.listwise) weights.push_back(0.0f);  // 0 marks the listwise setting
  for (int hidden : config.hidden)
    for (float pw : weights) {
      const std::string setting =
          pw == 0.0f ? fmt::format("hidden {} listwise", hidden) : fmt::format("hidden {} positive weight {:g}", hidden, pw);
      std::string per_fold;
      double cv_score = 0;
      for (size_t f = 0; f < cv.size(); ++f) {
        std::vector<const Split*> fold_train;
        for (const Split* s : all_train)
          if (s != &cv[f]) fold_train.push_back(s);
        float fold_loss = 0;
        const learn::Mlp fm = Fit(config, fold_train, hidden, pw, config.seed, &fold_loss);
        cv_score += mean_recall(fm, {&cv[f]}, &per_fold) * static_cast<double>(Questions(cv[f])) * cv_weight;
      }
      float loss = 0;
      const learn::Mlp m = Fit(config, all_train, hidden, pw, config.seed, &loss);
      std::string per_dev;
      const double train_r = mean_recall(m, all_train, nullptr), dev_r = mean_recall(m, dev_ptrs, &per_dev);
      std::string line = fmt::format("  {}: {}train R@{} {:.4f}", setting, pw == 0.0f ? "" : fmt::format("loss {:.4f}, ", loss), k, train_r);
      if (!cv.empty()) line += fmt::format(", held-out folds R@{}{} (pooled {:.4f})", k, per_fold, cv_score);
      if (!dev.empty()) line += fmt::format(", dev R@{}{} (mean {:.4f})", k, per_dev, dev_r);
      out << line << "\n";
      const double score = cv.empty() ? dev_r : cv_score;
      if (score > best_score + 1e-12) best_score = score, best = m, best_setting = setting, best_hidden = hidden, best_pw = pw;
    }
  double handset = 0;
  if (cv.empty()) {
    for (const Split& s : dev) handset += s.handset_recall / static_cast<double>(dev.size());
  } else {
    for (const Split& s : cv) handset += s.handset_recall * static_cast<double>(Questions(s)) * cv_weight;
  }
  out << fmt::format("chosen: {} ({} R@{} {:.4f}; hand-set unified score {:.4f})\n", best_setting,
                     cv.empty() ? "dev mean" : "held-out folds pooled", k, best_score, handset);
  if (loaded_teacher) {
    // The grid above still ran: it names the setting (gold-row weight) the student is fitted with.
    best = std::move(*loaded_teacher);
    std::string per_dev;
    const double dev_r = mean_recall(best, dev_ptrs, &per_dev);
    out << fmt::format("teacher {} ({} hidden units): dev R@{}{} (mean {:.4f})\n", config.teacher_path,
                       best.sizes()[1], k, per_dev, dev_r);
  } else if (config.ensemble > 1) {
    // The chosen setting fitted again with other seeds, the logits averaged: which seed won
    // the comparison above is luck the written model should not keep.
    std::vector<learn::Mlp> members = {best};
    for (int i = 1; i < config.ensemble; ++i) {
      float loss = 0;
      members.push_back(Fit(config, all_train, best_hidden, best_pw, config.seed + 7919 * static_cast<uint64_t>(i), &loss));
      std::string per_dev;
      const double dev_r = mean_recall(members.back(), dev_ptrs, &per_dev);
      out << fmt::format("  seed {}: dev R@{}{} (mean {:.4f})\n", i, k, per_dev, dev_r);
    }
    ASSIGN_OR_RETURN(best, learn::MeanLogitEnsemble(members));
    std::string per_dev;
    const double train_r = mean_recall(best, all_train, nullptr), dev_r = mean_recall(best, dev_ptrs, &per_dev);
    out << fmt::format("ensemble of {} seeds: train R@{} {:.4f}, dev R@{}{} (mean {:.4f})\n", config.ensemble, k,
                       train_r, k, per_dev, dev_r);
  }
  if (config.distill) {
    float loss = 0;
    const int student = config.student_hidden > 0 ? config.student_hidden : best_hidden;
    const learn::Mlp teacher = std::move(best);
    best = Fit(config, all_train, student, best_pw, config.seed, &loss, &teacher);
    std::string student_dev;
    const double st_train = mean_recall(best, all_train, nullptr), st_dev = mean_recall(best, dev_ptrs, &student_dev);
    out << fmt::format("distilled into one network of {} hidden units: train R@{} {:.4f}, dev R@{}{} (mean {:.4f})\n",
                       student, k, st_train, k, student_dev, st_dev);
  }
  const bool dense_route = config.route == "dense-first";
  const std::string path = !config.out_path.empty() ? config.out_path
                           : dense_route             ? DefaultDenseCombinerPath("")
                                                     : DefaultCombinerPath("");
  RETURN_IF_ERROR(SaveRetrievalModel(best, path));
  out << "wrote " << path << fmt::format(" (method full uses it on {} searches; {} or `full@combiner=0` turns it off)\n",
                                         config.route, dense_route ? "ONTOMEM_DENSE_COMBINER=none" : "ONTOMEM_COMBINER=none");
  return Status::Ok();
}

}  // namespace ontomem
