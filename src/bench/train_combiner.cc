#include "bench/train_combiner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <ostream>
#include <random>
#include <set>
#include <sstream>

#include "retrieve/combiner.h"

namespace ontomem {
namespace {

// One query's candidates and how many gold turns it has (some may not be candidates). A
// query that was not graph-first has no candidates: the combiner leaves it to the hand-set
// score, whose recall it keeps.
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
  bc.on_candidates = [&](const std::string&, size_t, const std::vector<std::string>& gold,
                         const std::vector<CombinerRow>& rows, const std::vector<std::string>& ranked) {
    Query q;
    q.gold_total = gold.size();
    q.handset_recall = RecallAtK(ranked, gold, static_cast<size_t>(config.bench.k));
    const std::set<std::string> g(gold.begin(), gold.end());
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

// The share of gold turns that are candidates at all (of graph-first queries): the ceiling
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
void TrainListwise(const std::vector<Split>& train, int epochs, uint64_t seed, learn::Mlp* m) {
  std::vector<const Query*> qs;
  for (const Split& s : train)
    for (const Query& q : s.queries)
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

}  // namespace

Status RunTrainCombiner(const TrainCombinerConfig& config, std::ostream& out) {
  if (config.train_paths.empty()) return Status::InvalidArgument("train combiner needs --train");
  if (config.dev_paths.empty()) return Status::InvalidArgument("train combiner needs --dev (the setting is chosen there)");
  if (config.hidden.empty() || config.positive_weights.empty())
    return Status::InvalidArgument("train combiner needs at least one --hidden and one --positive-weight");
  const size_t k = static_cast<size_t>(config.bench.k);
  // The rows come from the hand-set score; the model being replaced may not even load (an
  // older feature layout), so the pipeline is opened without one.
  const char* prev = std::getenv("ONTOMEM_COMBINER");
  const std::string saved = prev ? prev : "";
  setenv("ONTOMEM_COMBINER", "none", 1);
  struct Restore {
    const char* prev;
    std::string saved;
    ~Restore() {
      if (prev) setenv("ONTOMEM_COMBINER", saved.c_str(), 1);
      else unsetenv("ONTOMEM_COMBINER");
    }
  } restore{prev, saved};
  std::vector<Split> train, dev;
  for (const auto& p : config.train_paths) {
    ASSIGN_OR_RETURN(Split s, Collect(config, p));
    train.push_back(std::move(s));
  }
  for (const auto& p : config.dev_paths) {
    ASSIGN_OR_RETURN(Split s, Collect(config, p));
    dev.push_back(std::move(s));
  }
  size_t rows = 0, positives = 0;
  for (const Split& s : train)
    for (const Query& q : s.queries) rows += q.x.size(), positives += static_cast<size_t>(std::count(q.gold.begin(), q.gold.end(), 1));
  if (positives == 0) return Status::InvalidArgument("train combiner: no gold turn is among the candidates of the train splits");
  for (const auto* group : {&train, &dev})
    for (const Split& s : *group)
      out << fmt::format("{} {}: {} queries, gold among candidates {:.4f}, hand-set full R@{} {:.4f}\n",
                         group == &train ? "train" : "dev", s.path, s.queries.size(), CandidateCoverage(s), k,
                         s.handset_recall);
  Eigen::MatrixXf X(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(kCombinerFeatures));
  Eigen::MatrixXf Y(static_cast<Eigen::Index>(rows), 1);
  Eigen::Index r = 0;
  for (const Split& s : train)
    for (const Query& q : s.queries)
      for (size_t i = 0; i < q.x.size(); ++i, ++r) {
        for (size_t f = 0; f < kCombinerFeatures; ++f) X(r, static_cast<Eigen::Index>(f)) = q.x[i][f];
        Y(r, 0) = q.gold[i];
      }
  out << fmt::format("train rows {} ({} gold)\n", rows, positives);

  double best_dev = -1;
  learn::Mlp best;
  std::string best_setting;
  // Settings: pointwise binary cross-entropy with each gold-row weight, then listwise.
  std::vector<float> weights = config.positive_weights;
  if (config.listwise) weights.push_back(0.0f);  // 0 marks the listwise setting
  for (int hidden : config.hidden)
    for (float pw : weights) {
      learn::Mlp m({static_cast<int>(kCombinerFeatures), hidden, 1}, learn::OutputActivation::kSigmoid, config.seed);
      float loss = 0;
      if (pw == 0.0f) {
        TrainListwise(train, config.epochs, config.seed, &m);
      } else {
        learn::MlpTrainOptions opt;
        opt.epochs = config.epochs;
        opt.batch_size = 64;
        opt.seed = config.seed;
        std::vector<float> w(rows);
        for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(rows); ++i) w[static_cast<size_t>(i)] = Y(i, 0) > 0 ? pw : 1.0f;
        loss = m.Train(X, Y, opt, w);
      }
      double train_r = 0, dev_r = 0;
      for (const Split& s : train) train_r += RecallOf(m, s, k) / static_cast<double>(train.size());
      std::string per_dev;
      for (const Split& s : dev) {
        const double d = RecallOf(m, s, k);
        dev_r += d / static_cast<double>(dev.size());
        per_dev += fmt::format(" {:.4f}", d);
      }
      const std::string setting =
          pw == 0.0f ? fmt::format("hidden {} listwise", hidden) : fmt::format("hidden {} positive weight {:g}", hidden, pw);
      out << fmt::format("  {}: {}train R@{} {:.4f}, dev R@{}{} (mean {:.4f})\n", setting,
                         pw == 0.0f ? "" : fmt::format("loss {:.4f}, ", loss), k, train_r,
                         k, per_dev, dev_r);
      if (dev_r > best_dev + 1e-12) best_dev = dev_r, best = m, best_setting = setting;
    }
  double handset_dev = 0;
  for (const Split& s : dev) handset_dev += s.handset_recall / static_cast<double>(dev.size());
  out << fmt::format("chosen: {} (dev mean R@{} {:.4f}; hand-set unified score {:.4f})\n", best_setting, k, best_dev,
                     handset_dev);
  const std::string path = config.out_path.empty() ? DefaultCombinerPath("") : config.out_path;
  RETURN_IF_ERROR(SaveRetrievalModel(best, path));
  out << "wrote " << path << " (method full uses it; ONTOMEM_COMBINER=none or `full@combiner=0` turns it off)\n";
  return Status::Ok();
}

}  // namespace ontomem
