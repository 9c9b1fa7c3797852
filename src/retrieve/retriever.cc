#include "retrieve/retriever.h"

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "text/text.h"

namespace ontomem {
namespace {

bool MentionsFirstPerson(std::string_view query) {
  for (const auto& t : text::Tokenize(query))
    if (t == "i" || t == "me" || t == "my" || t == "mine" || t == "myself" || t == "'m")
      return true;
  return false;
}

WeightedTerms LexicalQuery(std::string_view query, const SearchOptions& options,
                           const RetrieverConfig& config) {
  WeightedTerms q;
  for (auto& t : text::ContentTerms(query)) q.emplace_back(std::move(t), 1.0f);
  if (config.context_weight > 0)
    for (const auto& c : options.context)
      for (auto& t : text::ContentTerms(c)) q.emplace_back(std::move(t), config.context_weight);
  if (!options.asker.empty() && config.asker_weight > 0 && MentionsFirstPerson(query))
    for (auto& t : text::ContentTerms(options.asker)) q.emplace_back(std::move(t), config.asker_weight);
  return q;
}

Status DenseQuery(const Embedder& embedder, std::string_view query, const SearchOptions& options,
                  const RetrieverConfig& config, std::vector<float>* out) {
  const int dim = embedder.dim();
  out->assign(dim, 0.0f);
  RETURN_IF_ERROR(embedder.Embed(query, out->data()));
  if (!options.context.empty() && config.context_weight > 0) {
    std::string joined;
    for (const auto& c : options.context) joined.append(c).push_back('\n');
    std::vector<float> ctx(dim);
    RETURN_IF_ERROR(embedder.Embed(joined, ctx.data()));
    double norm = 0;
    for (int d = 0; d < dim; ++d) {
      (*out)[d] += config.context_weight * ctx[d];
      norm += (*out)[d] * (*out)[d];
    }
    if (norm > 0)
      for (float& v : *out) v = static_cast<float>(v / std::sqrt(norm));
  }
  return Status::Ok();
}

void SmoothWithNeighbours(float w, std::vector<float>* s) {
  if (w <= 0 || s->size() < 2) return;
  std::vector<float> orig = *s;
  for (size_t i = 0; i < s->size(); ++i) {
    float add = 0;
    if (i > 0) add += orig[i - 1];
    if (i + 1 < orig.size()) add += orig[i + 1];
    (*s)[i] += w * add;
  }
}

// z-score so that the two views' scales are comparable whatever the query length.
std::vector<float> ZNormalise(const std::vector<float>& s) {
  if (s.empty()) return {};
  double mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  double var = 0;
  for (float v : s) var += (v - mean) * (v - mean);
  double sd = std::sqrt(var / static_cast<double>(s.size()));
  std::vector<float> z(s.size(), 0.0f);
  if (sd < 1e-9) return z;
  for (size_t i = 0; i < s.size(); ++i) z[i] = static_cast<float>((s[i] - mean) / sd);
  return z;
}

// Ordinals sorted best first by score; ties by earlier ordinal (deterministic).
std::vector<int32_t> TopK(const std::vector<float>& scores, size_t k, bool require_positive) {
  std::vector<int32_t> idx;
  idx.reserve(scores.size());
  for (size_t i = 0; i < scores.size(); ++i)
    if (!require_positive || scores[i] > 0) idx.push_back(static_cast<int32_t>(i));
  auto better = [&](int32_t a, int32_t b) {
    return scores[a] != scores[b] ? scores[a] > scores[b] : a < b;
  };
  k = std::min(k, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<long>(k), idx.end(), better);
  idx.resize(k);
  return idx;
}

// Rank of ordinal i within `scores` (1 = best), the same order as TopK.
int RankOf(const std::vector<float>& scores, int32_t i) {
  int r = 1;
  for (size_t j = 0; j < scores.size(); ++j)
    if (scores[j] > scores[i] || (scores[j] == scores[i] && static_cast<int32_t>(j) < i)) ++r;
  return r;
}

// Graph view: the asker's current edges whose domain the query is about, scored by edge weight
// times the domain match, propagated to the edges' source turns. Returns the route.
std::string GraphView(const UserMemory& user, std::string_view query, const SearchOptions& options,
                      const RetrieverConfig& config, const GraphContext& ctx, const std::vector<float>& dense,
                      const Embedder& embedder, const std::vector<float>& qv,
                      std::vector<float>* s_graph, std::vector<std::string>* paths,
                      std::vector<std::string>* domains) {
  const size_t n = user.size();
  s_graph->assign(n, 0.0f);
  paths->assign(n, std::string());
  if (options.asker.empty() || !ctx.detect_domains) return "dense-first";
  std::string cue(query);
  for (const auto& c : options.context) cue.append(" ").append(c);
  auto qd = ctx.detect_domains(cue);
  if (qd.empty()) return "dense-first";
  std::map<std::string, float> want;
  const float top = qd.front().second;
  for (size_t i = 0; i < qd.size() && i < config.max_query_domains; ++i) {
    want[qd[i].first] = top > 0 ? qd[i].second / top : 0.0f;
    domains->push_back(qd[i].first);
  }
  const MemoryGraph& g = user.graph();
  const std::string asker = MemoryGraph::PersonId(options.asker);
  // Dense rerank inside the graph's candidates: the cue's similarity to each source turn,
  // min-max scaled over the asker's edges, blended with the domain match.
  const auto edges = g.Outgoing(asker);
  float lo = 1e9f, hi = -1e9f;
  for (const GraphEdge* e : edges)
    for (const std::string& tid : e->source_turns)
      if (int64_t ord = user.OrdinalOf(tid); ord >= 0) {
        lo = std::min(lo, dense[ord]);
        hi = std::max(hi, dense[ord]);
      }
  size_t proposed = 0;
  for (const GraphEdge* e : edges) {
    if (e->promoted && !config.use_promoted) continue;
    if (e->relation == "INSTANCE_OF" || e->relation == "ALIAS_OF") continue;
    if (e->weight < config.graph_min_weight) continue;
    // Requests are governed by preferences and constraints, not by who the user's cousin is.
    if (!config.graph_relations.empty() && !e->promoted && !config.graph_relations.count(e->relation)) continue;
    auto it = want.find(e->domain);
    const float dm = it == want.end() ? 0.0f : it->second;
    if (dm <= 0 && config.graph_domain_share >= 1.0f) continue;
    for (const std::string& tid : e->source_turns) {
      const int64_t ord = user.OrdinalOf(tid);
      if (ord < 0) continue;
      float rel = hi > lo ? (dense[ord] - lo) / (hi - lo) : 1.0f;
      if (config.tail_similarity_share > 0 && !qv.empty()) {
        // The cue against the edge's tail alone ("kosher"), free of the turn's filler words.
        const auto& g_node = user.graph().nodes();
        auto nit = g_node.find(e->target);
        const std::string& label = nit == g_node.end() ? e->target : nit->second.label;
        const auto& tv = user.LabelVector(label, embedder);
        float cos = 0;
        for (size_t d = 0; d < tv.size() && d < qv.size(); ++d) cos += tv[d] * qv[d];
        const float tail_rel = std::clamp((cos + 1.0f) / 2.0f, 0.0f, 1.0f);
        rel = (1 - config.tail_similarity_share) * rel + config.tail_similarity_share * tail_rel;
      }
      const float s = std::min(1.0f, e->weight) *
                      (config.graph_domain_share * dm + (1 - config.graph_domain_share) * rel);
      if (s > (*s_graph)[ord]) {
        if ((*s_graph)[ord] == 0) ++proposed;
        (*s_graph)[ord] = s;
        (*paths)[ord] = e->source + " -" + e->relation + "-> " + e->target;
      }
    }
  }
  // Only the best few graph candidates get the graph score: a user has many edges, and a
  // boost to all of them would push a strong dense or lexical match out of the top k.
  if (config.graph_top_n > 0 && proposed > config.graph_top_n) {
    std::vector<float> sorted;
    for (float v : *s_graph)
      if (v > 0) sorted.push_back(v);
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(config.graph_top_n - 1), sorted.end(),
                     std::greater<float>());
    const float cut = sorted[config.graph_top_n - 1];
    for (size_t i = 0; i < n; ++i)
      if ((*s_graph)[i] < cut) {
        (*s_graph)[i] = 0;
        (*paths)[i].clear();
      }
  }
  return proposed > 0 ? "graph-first" : "dense-first";
}

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

StatusOr<SearchResult> Retrieve(const UserMemory& user, const Embedder& embedder,
                                std::string_view query, const SearchOptions& options,
                                const RetrieverConfig& config, const GraphContext* graph_ctx) {
  auto start = std::chrono::steady_clock::now();
  SearchResult result;
  result.method = MethodName(options.method);
  const size_t n = user.size();
  const size_t k = static_cast<size_t>(std::max(options.k, 0));

  std::vector<float> dense, lexical, qv;
  const bool want_dense = options.method != Method::kBm25;
  const bool want_lexical = options.method != Method::kDense;
  if (want_dense) {
    RETURN_IF_ERROR(DenseQuery(embedder, query, options, config, &qv));
    user.dense().ScoreAll(qv.data(), &dense);
    SmoothWithNeighbours(config.neighbour_weight, &dense);
  }
  if (want_lexical) {
    user.bm25().ScoreAll(LexicalQuery(query, options, config), &lexical);
    SmoothWithNeighbours(config.neighbour_weight, &lexical);
  }

  std::vector<int32_t> top;
  std::vector<float> final_scores, graph_scores;
  std::vector<std::string> paths;
  switch (options.method) {
    case Method::kDense:
      final_scores = dense;
      top = TopK(dense, k, false);
      break;
    case Method::kBm25:
      final_scores = lexical;
      top = TopK(lexical, k, true);
      break;
    case Method::kFull:
    case Method::kFusion:
      if (config.fusion == FusionKind::kWeighted || options.method == Method::kFull) {
        std::vector<float> zd = ZNormalise(dense), zl = ZNormalise(lexical);
        final_scores.resize(n);
        const float wd = config.fusion_dense_weight;
        for (size_t i = 0; i < n; ++i) final_scores[i] = wd * zd[i] + (1 - wd) * zl[i];
      } else {
        final_scores.assign(n, 0.0f);
        auto add = [&](const std::vector<float>& s, bool positive_only) {
          auto order = TopK(s, n, positive_only);
          for (size_t r = 0; r < order.size(); ++r)
            final_scores[order[r]] += 1.0f / (config.rrf_k + static_cast<float>(r + 1));
        };
        add(dense, false);
        add(lexical, true);
      }
      if (options.method == Method::kFull) {
        // Unified score over calibrated views: s_dense is the fused dense+lexical view squashed
        // to (0, 1); s_graph is in [0, 1]; s_profile comes with the feedback loop (0 for now).
        std::vector<float> s_graph;
        result.route = GraphView(user, query, options, config, graph_ctx ? *graph_ctx : GraphContext{},
                                 dense, embedder, qv, &s_graph, &paths, &result.query_domains);
        // Static policy: a query with a strong lexical match names what it wants, so the
        // fused views lead (dense-first) and the graph only breaks ties.
        float wg = config.w_graph;
        if (config.lexical_route_z > 0 && want_lexical) {
          const auto zl = ZNormalise(lexical);
          const float max_z = zl.empty() ? 0.0f : *std::max_element(zl.begin(), zl.end());
          if (max_z >= config.lexical_route_z) {
            wg *= 0.2f;
            result.route = "dense-first";
          }
        }
        if (config.rank_unify) {
          // Calibrate each view by rank (1/(60 + rank), as in RRF): a view's best turn counts
          // the same whatever its raw scale, so a strong lexical match and the graph's best
          // preference both reach the top k.
          std::vector<float> rank_g(n, 0.0f), rank_d(n, 0.0f);
          auto by_graph = TopK(s_graph, n, /*require_positive=*/true);
          for (size_t r = 0; r < by_graph.size(); ++r) rank_g[by_graph[r]] = 60.0f / (60.0f + r);
          auto by_dense = TopK(final_scores, n, false);
          for (size_t r = 0; r < by_dense.size(); ++r) rank_d[by_dense[r]] = 60.0f / (60.0f + r);
          for (size_t i = 0; i < n; ++i) {
            if (s_graph[i] > 0) ++result.graph_candidates;
            graph_scores.push_back(s_graph[i]);
            final_scores[i] = wg * rank_g[i] + config.w_dense * rank_d[i];
          }
        } else {
          for (size_t i = 0; i < n; ++i) {
            const float s_dense = Sigmoid(final_scores[i]);
            if (s_graph[i] > 0) ++result.graph_candidates;
            graph_scores.push_back(s_graph[i]);
            final_scores[i] = wg * s_graph[i] + config.w_dense * s_dense;
          }
        }
      }
      top = TopK(final_scores, k, false);
      break;
  }

  result.candidates = static_cast<int64_t>(n);
  for (int32_t i : top) {
    Hit h;
    h.turn = user.turn(i);
    h.score = final_scores[i];
    if (want_dense) {
      h.dense_score = dense[i];
      h.dense_rank = RankOf(dense, i);
    }
    if (want_lexical && lexical[i] > 0) {
      h.bm25_score = lexical[i];
      h.bm25_rank = RankOf(lexical, i);
    }
    if (!graph_scores.empty()) {
      h.graph_score = graph_scores[i];
      h.path = paths[i];
    }
    result.context_tokens += static_cast<int64_t>(text::CountWhitespaceTokens(h.turn.turn.text));
    result.hits.push_back(std::move(h));
  }
  result.latency_us = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ontomem
