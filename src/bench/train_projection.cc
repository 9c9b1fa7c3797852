#include "bench/train_projection.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <ostream>
#include <random>

#include "bench/dataset.h"
#include "learn/mlp.h"
#include "retrieve/combiner.h"

namespace ontomem {
namespace {

// One request: its query vector, the user's turn vectors (rows) and the gold rows.
struct Example {
  Eigen::VectorXf q;
  const Eigen::MatrixXf* turns = nullptr;
  std::vector<Eigen::Index> gold;
};

struct Loaded {
  std::vector<Eigen::MatrixXf> users;  // stable addresses: reserved before examples point in
  std::vector<Example> examples;
};

Status Embed(const Embedder& e, const std::string& text, Eigen::VectorXf* v) {
  v->resize(e.dim());
  return e.Embed(text, v->data());
}

// The dense query as the retriever builds it: the query plus context_weight times the joined
// context, normalised.
Status QueryVector(const Embedder& e, const QaItem& q, float context_weight, Eigen::VectorXf* v) {
  RETURN_IF_ERROR(Embed(e, q.question, v));
  if (!q.context.empty() && context_weight > 0) {
    std::string joined;
    for (const auto& c : q.context) joined.append(c).push_back('\n');
    Eigen::VectorXf cv;
    RETURN_IF_ERROR(Embed(e, joined, &cv));
    *v += context_weight * cv;
    if (const float n = v->norm(); n > 0) *v /= n;
  }
  return Status::Ok();
}

StatusOr<Loaded> Load(const TrainProjectionConfig& config, const std::vector<std::string>& paths) {
  Loaded out;
  std::vector<Dataset> sets;
  size_t users = 0;
  for (const auto& p : paths) {
    ASSIGN_OR_RETURN(Dataset ds, LoadLocomo(p));
    users += ds.samples.size();
    sets.push_back(std::move(ds));
  }
  out.users.reserve(users);
  const Embedder& e = *config.embedder;
  for (const Dataset& ds : sets)
    for (const Sample& s : ds.samples) {
      Eigen::MatrixXf T(static_cast<Eigen::Index>(s.turns.size()), e.dim());
      std::map<std::string, Eigen::Index> row;
      for (size_t i = 0; i < s.turns.size(); ++i) {
        Eigen::VectorXf v;
        RETURN_IF_ERROR(Embed(e, s.turns[i].text, &v));
        T.row(static_cast<Eigen::Index>(i)) = v.transpose();
        row[s.turns[i].id] = static_cast<Eigen::Index>(i);
      }
      out.users.push_back(std::move(T));
      for (const QaItem& q : s.qa) {
        Example ex;
        ex.turns = &out.users.back();
        for (const auto& id : q.evidence)
          if (auto it = row.find(id); it != row.end()) ex.gold.push_back(it->second);
        if (ex.gold.empty()) continue;
        RETURN_IF_ERROR(QueryVector(e, q, config.context_weight, &ex.q));
        out.examples.push_back(std::move(ex));
      }
    }
  return out;
}

// Mean Recall@k of ranking each request's history by (projected query) . turn.
double Recall(const learn::Mlp* m, const Loaded& data, size_t k) {
  double sum = 0;
  for (const Example& ex : data.examples) {
    const Eigen::VectorXf q = m ? Eigen::VectorXf(m->Forward(ex.q)) : ex.q;
    const Eigen::VectorXf s = *ex.turns * q;
    std::vector<Eigen::Index> order(static_cast<size_t>(s.size()));
    std::iota(order.begin(), order.end(), 0);
    const size_t top = std::min(k, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<long>(top), order.end(),
                      [&](Eigen::Index a, Eigen::Index b) { return s(a) != s(b) ? s(a) > s(b) : a < b; });
    size_t found = 0;
    for (size_t r = 0; r < top; ++r) found += std::count(ex.gold.begin(), ex.gold.end(), order[r]);
    sum += static_cast<double>(found) / static_cast<double>(ex.gold.size());
  }
  return data.examples.empty() ? 0 : sum / static_cast<double>(data.examples.size());
}

}  // namespace

Status RunTrainProjection(const TrainProjectionConfig& config, std::ostream& out) {
  if (config.train_paths.empty() || config.dev_paths.empty())
    return Status::InvalidArgument("train projection needs --train and --dev");
  if (!config.embedder) return Status::InvalidArgument("train projection needs an embedder");
  if (!(config.temperature > 0)) return Status::InvalidArgument("--temperature must be positive");
  ASSIGN_OR_RETURN(Loaded train, Load(config, config.train_paths));
  ASSIGN_OR_RETURN(Loaded dev, Load(config, config.dev_paths));
  const size_t k = static_cast<size_t>(config.k);
  const int d = config.embedder->dim();
  out << fmt::format("train {} requests, dev {}; dense (identity) R@{}: train {:.4f}, dev {:.4f}\n",
                     train.examples.size(), dev.examples.size(), k, Recall(nullptr, train, k), Recall(nullptr, dev, k));
  // A linear map (one layer, no activation) that starts as the identity: epoch 0 is plain dense.
  learn::Mlp m({d, d}, learn::OutputActivation::kLinear, config.seed);
  RETURN_IF_ERROR(m.SetLayer(0, Eigen::MatrixXf::Identity(d, d), Eigen::VectorXf::Zero(d)));
  learn::Mlp best = m;
  double best_dev = Recall(&m, dev, k);
  int best_epoch = 0;
  std::vector<size_t> order(train.examples.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 g(config.seed);
  Eigen::MatrixXf X(1, d), T(1, d);
  const Eigen::VectorXf one = Eigen::VectorXf::Ones(1);
  for (int e = 1; e <= config.epochs; ++e) {
    std::shuffle(order.begin(), order.end(), g);
    for (size_t i : order) {
      const Example& ex = train.examples[i];
      // InfoNCE over the user's history: softmax of (W q + b) . t / temperature, gold shared
      // uniformly. With a linear output Mlp::Step's delta is P - T, so T = P - dL/dP.
      const Eigen::VectorXf o = m.Forward(ex.q);
      Eigen::ArrayXf s = (*ex.turns * o).array() / config.temperature;
      s = (s - s.maxCoeff()).exp();
      s /= s.sum();
      for (Eigen::Index gi : ex.gold) s(gi) -= 1.0f / static_cast<float>(ex.gold.size());
      const Eigen::VectorXf grad = ex.turns->transpose() * s.matrix() / config.temperature;
      X.row(0) = ex.q.transpose();
      T.row(0) = (o - grad).transpose();
      m.Step(X, T, one, config.learning_rate, 0.0f);  // no weight decay: it would pull W from the identity to 0
    }
    const double tr = Recall(&m, train, k), dv = Recall(&m, dev, k);
    out << fmt::format("  epoch {}: train R@{} {:.4f}, dev R@{} {:.4f}\n", e, k, tr, k, dv);
    if (dv > best_dev + 1e-12) best_dev = dv, best = m, best_epoch = e;
  }
  out << fmt::format("chosen: epoch {} (dev R@{} {:.4f})\n", best_epoch, k, best_dev);
  const std::string path = config.out_path.empty() ? DefaultProjectionPath("") : config.out_path;
  RETURN_IF_ERROR(SaveRetrievalModel(best, path));
  out << "wrote " << path << "\n";
  return Status::Ok();
}

}  // namespace ontomem
