#include "retrieve/retriever.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "retrieve/combiner.h"
#include "retrieve/time_expr.h"
#include "text/recall_cue.h"
#include "text/routine.h"
#include "text/text.h"

namespace ontomem {
namespace {

bool MentionsFirstPerson(std::string_view query) {
  for (const auto& t : text::Tokenize(query))
    if (t == "i" || t == "me" || t == "my" || t == "mine" || t == "myself" || t == "'m")
      return true;
  return false;
}

// A request for more than the asker ("what do we watch tonight?", "something the whole family
// can eat"): then the people the asker lives and goes out with govern it too.
bool InvolvesOthers(std::string_view text) {
  static const std::unordered_set<std::string_view> kWords = {
      "we",    "us",        "our",    "ours",     "ourselves", "everyone", "everybody", "together",
      "group", "family",    "crew",   "guests",   "household", "kids",     "children",  "friends"};
  for (const auto& t : text::Tokenize(text))
    if (kWords.count(t)) return true;
  return false;
}

// The question's own content words, weight 1 (no context, no asker).
WeightedTerms QuestionTerms(std::string_view query) {
  WeightedTerms q;
  for (auto& t : text::ContentTerms(query)) q.emplace_back(std::move(t), 1.0f);
  return q;
}

WeightedTerms LexicalQuery(std::string_view query, const SearchOptions& options,
                           const RetrieverConfig& config) {
  WeightedTerms q = QuestionTerms(query);
  if (config.context_weight > 0)
    for (const auto& c : options.context)
      for (auto& t : text::ContentTerms(c)) q.emplace_back(std::move(t), config.context_weight);
  if (!options.asker.empty() && config.asker_weight > 0 && MentionsFirstPerson(query))
    for (auto& t : text::ContentTerms(options.asker)) q.emplace_back(std::move(t), config.asker_weight);
  return q;
}

// `bare`, when given, receives the question's own vector (before the context is mixed in).
Status DenseQuery(const Embedder& embedder, std::string_view query, const SearchOptions& options,
                  const RetrieverConfig& config, std::vector<float>* out, std::vector<float>* bare = nullptr) {
  const int dim = embedder.dim();
  out->assign(dim, 0.0f);
  RETURN_IF_ERROR(embedder.Embed(query, out->data()));
  if (bare) *bare = *out;
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

// A dense view: every turn's similarity to query vector `q`, smoothed with its neighbours.
void DenseView(const UserMemory& user, const std::vector<float>& q, const RetrieverConfig& config,
               std::vector<float>* out) {
  user.dense().ScoreAll(q.data(), out);
  SmoothWithNeighbours(config.neighbour_weight, out);
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
  // One 64-bit key per turn, (-score, ordinal) in ascending order: the float's bits mapped to
  // an order-preserving unsigned integer, the ordinal below them. A search selects about a
  // dozen views of every turn, and one integer comparison is cheaper than a pair's.
  auto key = [](float s, size_t i) {
    uint32_t b;
    const float v = s == 0.0f ? 0.0f : s;  // -0 ties with +0, as the floats compare
    std::memcpy(&b, &v, sizeof b);
    b = (b & 0x80000000u) ? ~b : b | 0x80000000u;  // ascending with the score
    return (uint64_t{~b} << 32) | static_cast<uint32_t>(i);  // descending score first
  };
  std::vector<uint64_t> keyed;
  keyed.reserve(scores.size());
  for (size_t i = 0; i < scores.size(); ++i)
    if (!require_positive || scores[i] > 0) keyed.push_back(key(scores[i], i));
  k = std::min(k, keyed.size());
  // A strict total order, so selecting then sorting the best k is exact.
  if (k < keyed.size()) std::nth_element(keyed.begin(), keyed.begin() + static_cast<long>(k), keyed.end());
  keyed.resize(k);
  std::sort(keyed.begin(), keyed.end());
  std::vector<int32_t> idx(k);
  for (size_t r = 0; r < k; ++r) idx[r] = static_cast<int32_t>(keyed[r] & 0xffffffffu);
  return idx;
}

// The best k turns not in `skip`; with `distinct`, a line said verbatim many times ("Our street
// is being dug up again.") is shown once, at its best turn.
std::vector<int32_t> TopKFiltered(const UserMemory& user, const std::vector<float>& scores, size_t k,
                                  bool require_positive, bool distinct, const std::unordered_set<int32_t>& skip) {
  if (!distinct && skip.empty()) return TopK(scores, k, require_positive);
  for (size_t window = 2 * k + 8;; window *= 2) {
    const auto order = TopK(scores, window, require_positive);
    std::vector<int32_t> out;
    std::unordered_set<uint64_t> taken;
    for (int32_t i : order) {
      if (out.size() == k) break;
      if (skip.count(i) || (distinct && !taken.insert(user.text_key(static_cast<size_t>(i))).second)) continue;
      out.push_back(i);
    }
    if (out.size() == k || order.size() < window) return out;
  }
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
// Per turn: the graph score and the edge that gave it (what the combiner reads).
struct GraphViewOut {
  std::vector<float> score, domain_match, tail_sim, turn_sim, weight;
  std::vector<uint8_t> promoted, domain_known;
  std::vector<const GraphEdge*> edge;  // the edge that gave the score (null: none)
  std::unordered_map<int32_t, std::string> hop_paths;  // turns a graph hop brought, and how
  float top_domain_conf = 0;
  void Clear(size_t i) {
    score[i] = domain_match[i] = tail_sim[i] = turn_sim[i] = weight[i] = 0;
    promoted[i] = domain_known[i] = 0;
    edge[i] = nullptr;
  }
  const std::string& Relation(size_t i) const {
    static const std::string kNone;
    return edge[i] ? edge[i]->relation : kNone;
  }
  // The hit's explanation; built only for returned hits (a search scores hundreds of turns).
  std::string Path(size_t i) const {
    if (auto it = hop_paths.find(static_cast<int32_t>(i)); it != hop_paths.end()) return it->second;
    return edge[i] ? EdgePath(*edge[i]) : std::string();
  }
  static std::string EdgePath(const GraphEdge& e) { return e.source + " -" + e.relation + "-> " + e.target; }
};

std::string GraphView(const UserMemory& user, std::string_view query, const SearchOptions& options,
                      const RetrieverConfig& config, const GraphContext& ctx, const std::vector<float>& dense,
                      const Embedder& embedder, const std::vector<float>& qv, GraphViewOut* out,
                      std::vector<std::string>* domains) {
  const size_t n = user.size();
  for (auto* v : {&out->score, &out->domain_match, &out->tail_sim, &out->turn_sim, &out->weight}) v->assign(n, 0.0f);
  out->promoted.assign(n, 0);
  out->domain_known.assign(n, 0);
  out->edge.assign(n, nullptr);
  std::vector<float>* s_graph = &out->score;
  if (options.asker.empty() || !ctx.detect_domains) return "dense-first";
  auto qd = ctx.detect_domains(query, options.context);
  if (qd.empty()) return "dense-first";
  out->top_domain_conf = qd.front().second;
  std::vector<std::pair<std::string, float>> want;  // a few domains, each once
  auto wanted = [&](const std::string& d) {
    return std::find_if(want.begin(), want.end(), [&](const auto& w) { return w.first == d; });
  };
  const float top = qd.front().second;
  for (size_t i = 0; i < qd.size() && i < config.max_query_domains; ++i) {
    const float m = top > 0 ? qd[i].second / top : 0.0f;
    if (auto it = wanted(qd[i].first); it != want.end()) it->second = m;
    else want.emplace_back(qd[i].first, m);
    domains->push_back(qd[i].first);
  }
  const MemoryGraph& g = user.graph();
  const std::string asker = MemoryGraph::PersonId(options.asker);
  // Dense rerank inside the graph's candidates: the cue's similarity to each source turn,
  // min-max scaled over the asker's edges, blended with the domain match.
  const auto edges = g.Outgoing(asker);
  // Each edge's source turns' ordinals (-1: not in this history), edge after edge.
  std::vector<int64_t> ords;
  float lo = 1e9f, hi = -1e9f;
  for (const GraphEdge* e : edges)
    for (const std::string& tid : e->source_turns) {
      const int64_t ord = user.OrdinalOf(tid);
      ords.push_back(ord);
      if (ord >= 0) {
        lo = std::min(lo, dense[ord]);
        hi = std::max(hi, dense[ord]);
      }
    }
  bool with_others = InvolvesOthers(query);
  if (config.group_from_context)
    for (const auto& c : options.context) with_others = with_others || InvolvesOthers(c);
  size_t proposed = 0;
  size_t next_ord = 0;
  for (const GraphEdge* e : edges) {
    const int64_t* edge_ords = ords.data() + next_ord;
    next_ord += e->source_turns.size();
    if (e->promoted && !config.use_promoted) continue;
    if (e->relation == "INSTANCE_OF" || e->relation == "ALIAS_OF") continue;
    if (e->weight < config.graph_min_weight) continue;
    // Requests are governed by preferences and constraints, not by who the user's cousin is.
    if (!config.graph_relations.empty() && !e->promoted && !config.graph_relations.count(e->relation) &&
        !(with_others && config.graph_group_relations.count(e->relation)))
      continue;
    auto it = wanted(e->domain);
    const float dm = it != want.end() ? it->second : e->domain.empty() ? config.graph_unknown_domain : 0.0f;
    if (dm <= 0 && config.graph_domain_share >= 1.0f) continue;
    // The cue against the edge's tail alone ("kosher"), free of the turn's filler words.
    const bool with_tail = config.tail_similarity_share > 0 && !qv.empty();
    float tail_rel = 0;
    if (with_tail) {
      const auto& tv = user.TailVector(*e, embedder);
      float cos = 0;
      for (size_t d = 0; d < tv.size() && d < qv.size(); ++d) cos += tv[d] * qv[d];
      tail_rel = std::clamp((cos + 1.0f) / 2.0f, 0.0f, 1.0f);
    }
    for (size_t t = 0; t < e->source_turns.size(); ++t) {
      const int64_t ord = edge_ords[t];
      if (ord < 0) continue;
      const float turn_rel = hi > lo ? (dense[ord] - lo) / (hi - lo) : 1.0f;
      float rel = turn_rel;
      if (with_tail) rel = (1 - config.tail_similarity_share) * rel + config.tail_similarity_share * tail_rel;
      const float s = std::min(1.0f, e->weight) *
                      (config.graph_domain_share * dm + (1 - config.graph_domain_share) * rel);
      if (s > (*s_graph)[ord]) {
        if ((*s_graph)[ord] == 0) ++proposed;
        (*s_graph)[ord] = s;
        out->edge[ord] = e;
        out->domain_match[ord] = dm;
        out->tail_sim[ord] = tail_rel;
        out->turn_sim[ord] = turn_rel;
        out->weight[ord] = std::min(1.0f, e->weight);
        out->promoted[ord] = e->promoted;
        out->domain_known[ord] = !e->domain.empty();
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
      if ((*s_graph)[i] < cut) out->Clear(i);
  }
  return proposed > 0 ? "graph-first" : "dense-first";
}

// Uncertainty expansion, one more hop from the nodes behind the graph view's top 10: other
// current edges touching those nodes (an alias, another mention) and the turns that name the
// node's label. New turns get hop_decay times the score of the node they came through, scaled
// under the lowest first-hop score.
bool GraphHop(const UserMemory& user, const RetrieverConfig& config, GraphViewOut* gv) {
  std::vector<float>* s_graph = &gv->score;
  // Second-hop turns rank below every first-hop turn: the hop widens the candidate set
  // without overruling the edges that matched the query.
  float lowest = 1.0f, best = 0.0f;
  for (float v : *s_graph)
    if (v > 0) lowest = std::min(lowest, v), best = std::max(best, v);
  std::unordered_map<std::string, float> seed;
  for (int32_t i : TopK(*s_graph, 10, /*require_positive=*/true))
    if (const GraphEdge* e = gv->edge[i])
      seed[e->target] = std::max(seed[e->target], lowest * (*s_graph)[i] / std::max(best, 1e-6f));
  if (seed.empty()) return false;
  const size_t n = user.size();
  std::vector<float> add(n, 0.0f);
  // What brought each offered turn: an edge, or a node label it mentions. The path text is
  // built only for the few turns kept.
  struct Via {
    const GraphEdge* edge = nullptr;
    const std::string* label = nullptr;
  };
  std::vector<Via> via(n);
  auto offer = [&](int64_t ord, float s, Via v) {
    if (ord < 0 || s <= (*s_graph)[ord] || s <= add[ord]) return;
    add[ord] = s;
    via[ord] = v;
  };
  for (const GraphEdge& e : user.graph().edges()) {
    if (!e.current()) continue;
    for (const std::string* node : {&e.target, &e.source}) {
      auto it = seed.find(*node);
      if (it == seed.end()) continue;
      for (const std::string& tid : e.source_turns)
        offer(user.OrdinalOf(tid), config.hop_decay * it->second, Via{&e, nullptr});
    }
  }
  const auto& nodes = user.graph().nodes();
  std::vector<float> lexical;
  for (const auto& [node, score] : seed) {
    auto nit = nodes.find(node);
    if (nit == nodes.end() || nit->second.type == "person") continue;
    WeightedTerms q;
    for (auto& t : text::ContentTerms(nit->second.label)) q.emplace_back(std::move(t), 1.0f);
    if (q.empty()) continue;
    user.bm25().ScoreAll(q, &lexical);
    for (int32_t i : TopK(lexical, 3, /*require_positive=*/true))
      offer(i, config.hop_decay * score, Via{nullptr, &nit->second.label});
  }
  // Only the best few new turns: under rank calibration every graph candidate counts, so a
  // wide hop would crowd the fused view's best turns out of the top k.
  bool changed = false;
  for (int32_t i : TopK(add, config.hop_max_new, /*require_positive=*/true)) {
    (*s_graph)[i] = add[i];
    const Via& v = via[i];
    gv->hop_paths[i] = v.edge ? "hop: " + GraphViewOut::EdgePath(*v.edge) : "hop: mentions " + *v.label;
    changed = true;
  }
  return changed;
}

// Method ppr: HippoRAG-style personalised PageRank over the user's extracted graph. Seeds are
// the nodes the query names (label terms), the nodes nearest to it in embedding space, and
// the asker when the query says I/my; a turn scores the PageRank mass of the nodes its edges
// connect, weighted by node specificity (1 / turns of the node).
void PprScores(const UserMemory& user, const Embedder& embedder, std::string_view query,
               const SearchOptions& options, const RetrieverConfig& config, const std::vector<float>& qv,
               std::vector<float>* out) {
  out->assign(user.size(), 0.0f);
  const MemoryGraph& g = user.graph();
  std::unordered_map<std::string, int32_t> index;
  std::vector<const GraphNode*> nodes;
  for (const auto& [id, node] : g.nodes()) {
    index.emplace(id, static_cast<int32_t>(nodes.size()));
    nodes.push_back(&node);
  }
  const size_t m = nodes.size();
  if (m == 0) return;
  std::vector<std::vector<std::pair<int32_t, float>>> adj(m);
  std::vector<std::vector<int32_t>> node_turns(m);
  for (const GraphEdge& e : g.edges()) {
    if (!e.current()) continue;
    auto a = index.find(e.source), b = index.find(e.target);
    if (a == index.end() || b == index.end()) continue;
    const float w = std::max(e.weight, 1e-3f);
    adj[a->second].emplace_back(b->second, w);
    adj[b->second].emplace_back(a->second, w);
    for (const std::string& tid : e.source_turns)
      if (int64_t ord = user.OrdinalOf(tid); ord >= 0) {
        node_turns[a->second].push_back(static_cast<int32_t>(ord));
        node_turns[b->second].push_back(static_cast<int32_t>(ord));
      }
  }
  std::vector<float> seed(m, 0.0f);
  std::string cue(query);
  for (const auto& c : options.context) cue.append(" ").append(c);
  std::set<std::string> qterms;
  for (auto& t : text::ContentTerms(cue)) qterms.insert(std::move(t));
  std::vector<std::pair<float, int32_t>> near;
  for (size_t i = 0; i < m; ++i) {
    if (nodes[i]->type == "person") continue;
    for (const auto& t : text::ContentTerms(nodes[i]->label))
      if (qterms.count(t)) seed[i] = 1.0f;
    if (!qv.empty() && config.ppr_seed_nodes > 0) {
      const auto& lv = user.LabelVector(nodes[i]->label, embedder);
      float cos = 0;
      for (size_t d = 0; d < lv.size() && d < qv.size(); ++d) cos += lv[d] * qv[d];
      if (cos >= config.ppr_seed_min_cos) near.emplace_back(cos, static_cast<int32_t>(i));
    }
  }
  std::sort(near.begin(), near.end(), std::greater<>());
  for (size_t j = 0; j < near.size() && j < config.ppr_seed_nodes; ++j)
    seed[near[j].second] = std::max(seed[near[j].second], near[j].first);
  if (!options.asker.empty() && MentionsFirstPerson(query))
    if (auto it = index.find(MemoryGraph::PersonId(options.asker)); it != index.end())
      seed[it->second] = std::max(seed[it->second], 0.5f);
  const double total = std::accumulate(seed.begin(), seed.end(), 0.0);
  if (total <= 0) return;
  for (float& v : seed) v = static_cast<float>(v / total);
  std::vector<float> degree(m, 0.0f);
  for (size_t a = 0; a < m; ++a)
    for (const auto& [b, w] : adj[a]) degree[a] += w;
  std::vector<float> p = seed, next(m);
  const float d = config.ppr_damping;
  for (int it = 0; it < config.ppr_iterations; ++it) {
    for (size_t a = 0; a < m; ++a) next[a] = (1 - d) * seed[a];
    for (size_t a = 0; a < m; ++a) {
      if (degree[a] <= 0) {
        next[a] += d * p[a];
        continue;
      }
      for (const auto& [b, w] : adj[a]) next[b] += d * p[a] * w / degree[a];
    }
    p.swap(next);
  }
  for (size_t a = 0; a < m; ++a) {
    auto& turns = node_turns[a];
    std::sort(turns.begin(), turns.end());
    turns.erase(std::unique(turns.begin(), turns.end()), turns.end());
    if (turns.empty()) continue;
    const float share = p[a] / static_cast<float>(turns.size());
    for (int32_t ord : turns) (*out)[ord] += share;
  }
}

// The dense query plus the cue words of `domain` ("movies_tv" -> film, watch, ...).
Status AddDomainCues(const Embedder& embedder, const RetrieverConfig& config, const GraphContext& ctx,
                     const std::string& domain, std::vector<float>* qv) {
  if (!ctx.domain_cues || config.rewrite_domain_weight <= 0) return Status::Ok();
  const auto cues = ctx.domain_cues(domain);
  std::string words;
  for (size_t i = 0; i < cues.size() && i < config.rewrite_domain_cues; ++i) words.append(cues[i]).push_back(' ');
  if (words.empty()) return Status::Ok();
  std::vector<float> dv(qv->size());
  RETURN_IF_ERROR(embedder.Embed(words, dv.data()));
  double norm = 0;
  for (size_t i = 0; i < qv->size(); ++i) {
    (*qv)[i] += config.rewrite_domain_weight * dv[i];
    norm += (*qv)[i] * (*qv)[i];
  }
  if (norm > 0)
    for (float& v : *qv) v = static_cast<float>(v / std::sqrt(norm));
  return Status::Ok();
}

// Method rewrite: the dense query plus the cue words of the query's detected domain.
Status RewriteQuery(const Embedder& embedder, std::string_view query, const SearchOptions& options,
                    const RetrieverConfig& config, const GraphContext& ctx, std::vector<float>* qv,
                    std::vector<std::string>* domains) {
  if (!ctx.detect_domains || !ctx.domain_cues || config.rewrite_domain_weight <= 0) return Status::Ok();
  const auto qd = ctx.detect_domains(query, options.context);
  if (qd.empty()) return Status::Ok();
  domains->push_back(qd.front().first);
  return AddDomainCues(embedder, config, ctx, qd.front().first, qv);
}

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// The learned projection of a dense query vector (ranking by it is scale-free; normalised
// so that it is a query vector like the others).
std::vector<float> Project(const learn::Mlp& m, const std::vector<float>& qv) {
  const Eigen::VectorXf o = m.Forward(Eigen::Map<const Eigen::VectorXf>(qv.data(), static_cast<Eigen::Index>(qv.size())));
  std::vector<float> out(o.data(), o.data() + o.size());
  const float n = o.norm();
  if (n > 0)
    for (float& v : out) v /= n;
  return out;
}

// What a search computed that the combiner's features read (one score per turn; `*_raw`
// before neighbour smoothing; profile and in_window may be empty).
struct CombinerInputs {
  const GraphViewOut& gv;
  const std::vector<float>& dense;
  const std::vector<float>& lexical;
  const std::vector<float>& fused;
  const std::vector<int32_t>& fused_order;  // every turn by fused score, best first (TopK)
  const std::vector<float>& rewrite;
  const std::vector<float>& projected;
  const std::vector<float>& profile;
  const std::vector<uint8_t>& in_window;
  const std::vector<float>& dense_raw;
  const std::vector<float>& lexical_raw;
  const std::vector<float>& dense_bare;    // the question alone, without its context
  const std::vector<float>& lexical_bare;
  int64_t graph_candidates;
  const std::vector<std::pair<std::string, float>>& word_rarity;  // QuestionWordRarity
};

// The named floor's turns (RetrieverConfig::named_floor): up to `slots` of those saying a word
// of the question that general English hardly knows and few turns say, best bare lexical match
// first, each with the word.
std::vector<std::pair<int32_t, std::string>> NamedTurns(const UserMemory& user, std::string_view query,
                                                        const RetrieverConfig& config, const GraphContext& ctx,
                                                        const std::vector<float>& lexical_bare, size_t slots) {
  std::vector<std::pair<int32_t, std::string>> out;
  if (slots == 0 || !ctx.word_rank) return out;
  for (const std::string& w : text::Tokenize(query)) {
    if (text::IsStopWord(w)) continue;
    const int64_t rank = ctx.word_rank(w);
    if (rank >= 0 && rank < config.named_floor_rank) continue;
    // Said in the turn itself (term frequency 1 or more), not only in the turn before it.
    const auto docs = user.bm25().DocsWith(text::Stem(w), 1.0f);
    if (docs.empty() || docs.size() > config.named_floor_max_turns) continue;
    for (int32_t d : docs)
      if (std::none_of(out.begin(), out.end(), [&](const auto& o) { return o.first == d; })) out.emplace_back(d, w);
  }
  std::stable_sort(out.begin(), out.end(),
                   [&](const auto& a, const auto& b) { return lexical_bare[a.first] > lexical_bare[b.first]; });
  if (out.size() > slots) out.resize(slots);
  return out;
}

// How rare a word of frequency rank `rank` is in general English, 0 (common) to 1 (not in the
// lexicon, rank -1). Ranks are by frequency; e^13 is about the lexicon's size (341k words).
float RankRarity(int64_t rank) {
  return rank < 0 ? 1.0f : std::min(1.0f, std::log1p(static_cast<float>(rank)) / 13.0f);
}

// The question's bare lexical scores, kept only for turns that say at least `min_terms` of its
// distinct content words themselves: a request shares one everyday word with chit-chat by
// chance ("what's your advice there?"), a question naming what it asks about shares a phrase
// ("my take on a Sunday planning session"). A word of `word_rarity` (QuestionWordRarity) at
// least as rare as rank `rare_rank` (0 = none) counts as a phrase.
std::vector<float> FloorMatches(const UserMemory& user, std::string_view query, size_t min_terms, int64_t rare_rank,
                                int64_t common_rank, const std::vector<std::pair<std::string, float>>& word_rarity,
                                const std::vector<float>& lexical_bare) {
  std::map<std::string, size_t> terms;  // stem -> how much saying it counts
  for (std::string& t : text::ContentTerms(query)) terms.emplace(std::move(t), 1);
  if (common_rank > 0) {
    const float common = RankRarity(common_rank);
    for (const auto& [stem, rarity] : word_rarity)
      if (rarity < common) terms.erase(stem);
  }
  if (rare_rank > 0) {
    const float rare = RankRarity(rare_rank);
    for (const auto& [stem, rarity] : word_rarity)
      if (rarity >= rare) terms[stem] = min_terms;
  }
  std::vector<size_t> said(lexical_bare.size(), 0);
  for (const auto& [t, weight] : terms)
    for (int32_t d : user.bm25().DocsWith(t, 1.0f)) said[d] += weight;
  std::vector<float> out(lexical_bare.size(), 0.0f);
  for (size_t i = 0; i < out.size(); ++i)
    if (said[i] >= min_terms) out[i] = lexical_bare[i];
  return out;
}

// The question's content words (stemmed, as the lexical index has them) with their RankRarity:
// "what's your advice there?" shares only everyday words with any thank-you for advice, while
// "what did you tell me about glazing?" names its turn. Empty without a lexicon.
std::vector<std::pair<std::string, float>> QuestionWordRarity(std::string_view query, const GraphContext& ctx) {
  std::vector<std::pair<std::string, float>> out;
  if (!ctx.word_rank) return out;
  for (const std::string& w : text::Tokenize(query)) {
    if (text::IsStopWord(w) || !std::isalpha(static_cast<unsigned char>(w[0]))) continue;
    out.emplace_back(text::Stem(w), RankRarity(ctx.word_rank(w)));
  }
  return out;
}

// log1p(tokens), from a table for the usual turn lengths (a search asks for hundreds).
float LogLength(uint32_t tokens) {
  static const auto table = [] {
    std::array<float, 512> t;
    for (size_t i = 0; i < t.size(); ++i) t[i] = std::log1p(static_cast<float>(i));
    return t;
  }();
  return tokens < table.size() ? table[tokens] : std::log1p(static_cast<float>(tokens));
}

// The combiner's candidates: the union of each view's best `combiner_candidates` turns, with
// their features (the layout of kCombinerFeatureNames). A view's rank feature is k / (k + rank)
// inside its best turns and 0 beyond; z-scores are clipped and scaled to about [-1, 2].
std::vector<std::pair<int32_t, CombinerFeatures>> CombinerCandidates(const UserMemory& user, std::string_view query,
                                                                     const SearchOptions& options,
                                                                     const RetrieverConfig& config,
                                                                     const CombinerInputs& in) {
  const GraphViewOut& gv = in.gv;
  const auto &dense = in.dense, &lexical = in.lexical, &fused = in.fused, &rewrite = in.rewrite,
             &projected = in.projected, &profile = in.profile;
  const auto& in_window = in.in_window;
  const size_t n = user.size();
  const size_t c = config.combiner_candidates;
  std::vector<int32_t> slot(n, -1);
  std::vector<std::pair<int32_t, CombinerFeatures>> rows;
  // Feature `f` of every turn among the view's best: calibrated rank, tied scores sharing one.
  // `order`: the view's best c turns, best first (TopK).
  auto view = [&](const std::vector<float>& s, std::span<const int32_t> order, size_t f) {
    size_t rank = 0;
    for (size_t j = 0; j < order.size(); ++j) {
      const int32_t i = order[j];
      if (j > 0 && s[i] != s[order[j - 1]]) rank = j;
      if (slot[i] < 0) {
        slot[i] = static_cast<int32_t>(rows.size());
        rows.emplace_back(i, CombinerFeatures{});
      }
      rows[slot[i]].second[f] = 10.0f / (10.0f + static_cast<float>(rank));
    }
  };
  view(gv.score, TopK(gv.score, c, true), 0);
  // (A full order's first c are TopK(fused, c): TopK's order is strict and total.)
  view(fused, std::span(in.fused_order).first(std::min(c, in.fused_order.size())), 15);
  view(dense, TopK(dense, c, false), 17);
  view(lexical, TopK(lexical, c, true), 19);
  view(rewrite, TopK(rewrite, c, false), 29);
  view(projected, TopK(projected, c, false), 31);
  const auto zd = ZNormalise(dense), zl = ZNormalise(lexical), zr = ZNormalise(rewrite), zp = ZNormalise(projected);
  auto clipz = [](float z) { return std::clamp(z, -4.0f, 8.0f) / 4.0f; };
  const float max_lz = zl.empty() ? 0.0f : *std::max_element(zl.begin(), zl.end());
  const std::string asker = text::AsciiLower(options.asker);
  // The turns' own scores before neighbour smoothing, and their neighbours': an answer is
  // often the reply to the turn that matches the question.
  const auto zdr = ZNormalise(in.dense_raw), zlr = ZNormalise(in.lexical_raw);
  // The question alone: "what was my take on Framely?" names its turn, while the chit-chat
  // before it ("I finally fixed the leaky tap.") matches other turns word for word.
  const auto zdb = ZNormalise(in.dense_bare), zlb = ZNormalise(in.lexical_bare);
  const float max_lzb = zlb.empty() ? 0.0f : clipz(*std::max_element(zlb.begin(), zlb.end()));
  auto zat = [&](const std::vector<float>& z, size_t i, int off) {
    const auto j = static_cast<int64_t>(i) + off;
    return j < 0 || j >= static_cast<int64_t>(z.size()) ? 0.0f : clipz(z[static_cast<size_t>(j)]);
  };
  // A factual question names whom it is about ("What did Caroline paint?").
  std::set<std::string> query_words;
  for (auto& w : text::Tokenize(query)) query_words.insert(text::AsciiLower(w));
  // Per speaker (a history has few): {is the asker, is named by the query}.
  std::unordered_map<std::string, std::pair<bool, bool>> speakers;
  auto speaker = [&](size_t i) {
    const std::string& who = user.turn(i).turn.speaker;
    auto it = speakers.find(who);
    if (it == speakers.end()) {
      const auto name = text::Tokenize(who);
      const bool named = !name.empty() && query_words.count(text::AsciiLower(name.front())) > 0;
      it = speakers.emplace(who, std::pair{!asker.empty() && text::AsciiLower(who) == asker, named}).first;
    }
    return it->second;
  };
  bool names_speaker = false;
  for (const auto& row : rows) names_speaker |= speaker(static_cast<size_t>(row.first)).second;
  const float query_len = std::log1p(static_cast<float>(text::ContentTerms(query).size())) / 3.0f;
  const float log_candidates = std::log1p(static_cast<float>(in.graph_candidates)) / 5.0f;
  const float time_span = text::NamesTimeSpan(query) ? 1.0f : 0.0f;
  for (auto& [ord, x] : rows) {
    const size_t i = static_cast<size_t>(ord);
    const std::string& rel = gv.Relation(i);
    x[1] = gv.score[i] > 0 ? 1.0f : 0.0f;
    x[2] = gv.score[i];
    x[3] = gv.domain_match[i];
    x[4] = gv.tail_sim[i];
    x[5] = gv.turn_sim[i];
    x[6] = gv.weight[i];
    x[7] = rel == "LIKES";
    x[8] = rel == "DISLIKES";
    x[9] = rel == "ALLERGIC_TO" || rel == "FOLLOWS_DIET" || rel == "AVOIDS";
    x[10] = rel == "HAS_HABIT";
    x[11] = rel == "USES";
    x[12] = !rel.empty() && x[7] + x[8] + x[9] + x[10] + x[11] == 0;
    x[13] = gv.promoted[i];
    x[14] = gv.hop_paths.count(ord) > 0;
    x[16] = clipz(fused[i]);
    x[18] = clipz(zd.empty() ? 0.0f : zd[i]);
    x[20] = clipz(zl.empty() ? 0.0f : zl[i]);
    x[21] = clipz(max_lz);
    x[22] = gv.top_domain_conf;
    x[23] = log_candidates;
    x[24] = !in_window.empty() && in_window[i];
    const auto [is_asker, named] = speaker(i);
    x[25] = is_asker;
    x[26] = n > 1 ? static_cast<float>(i) / static_cast<float>(n - 1) : 1.0f;
    x[27] = profile.empty() ? 0.0f : profile[i];
    x[28] = gv.domain_known[i];
    x[30] = clipz(zr.empty() ? 0.0f : zr[i]);
    x[32] = clipz(zp.empty() ? 0.0f : zp[i]);
    x[33] = zat(zlr, i, 0);
    x[34] = zat(zlr, i, -1);
    x[35] = zat(zlr, i, 1);
    x[36] = zat(zdr, i, 0);
    x[37] = zat(zdr, i, -1);
    x[38] = zat(zdr, i, 1);
    x[39] = named;
    x[40] = names_speaker;
    x[kTurnLengthFeature] = LogLength(user.token_count(i)) / 5.0f;
    x[42] = query_len;
    x[43] = zat(zlb, i, 0);
    x[44] = zat(zdb, i, 0);
    x[45] = max_lzb;
    x[48] = static_cast<float>(user.routine_cues(i)) / 3.0f;
    x[49] = time_span;
  }
  // The rarest question word each candidate says itself (the turn, not its neighbours).
  float query_rarity = 0;
  for (const auto& [stem, rarity] : in.word_rarity) {
    query_rarity = std::max(query_rarity, rarity);
    for (int32_t d : user.bm25().DocsWith(stem, 1.0f))
      if (slot[d] >= 0) rows[slot[d]].second[47] = std::max(rows[slot[d]].second[47], rarity);
  }
  for (auto& row : rows) row.second[46] = query_rarity;
  return rows;
}

// The combiner's probability for each candidate, one batched forward pass.
std::vector<float> CombinerScores(const learn::Mlp& m, const std::vector<std::pair<int32_t, CombinerFeatures>>& rows) {
  Eigen::MatrixXf A(static_cast<Eigen::Index>(kCombinerFeatures), static_cast<Eigen::Index>(rows.size()));
  for (size_t r = 0; r < rows.size(); ++r) std::copy(rows[r].second.begin(), rows[r].second.end(), A.col(static_cast<Eigen::Index>(r)).data());
  const Eigen::MatrixXf p = m.ForwardColumns(std::move(A));
  return std::vector<float>(p.data(), p.data() + p.cols());
}

}  // namespace

StatusOr<SearchResult> Retrieve(const UserMemory& user, const Embedder& embedder,
                                std::string_view query, const SearchOptions& options,
                                const RetrieverConfig& config, const GraphContext* graph_ctx) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  static const GraphContext kNoGraph;
  const GraphContext& ctx = graph_ctx ? *graph_ctx : kNoGraph;
  SearchResult result;
  result.method = MethodName(options.method);
  const size_t n = user.size();
  const size_t k = static_cast<size_t>(std::max(options.k, 0));

  std::vector<float> dense, lexical, qv, bare_qv, dense_raw, lexical_raw;
  const bool want_dense = options.method != Method::kBm25;
  const bool want_lexical = options.method != Method::kDense && options.method != Method::kRewrite &&
                            options.method != Method::kPpr;
  if (want_dense) {
    RETURN_IF_ERROR(DenseQuery(embedder, query, options, config, &qv, &bare_qv));
    if (options.method == Method::kRewrite)
      RETURN_IF_ERROR(RewriteQuery(embedder, query, options, config, ctx, &qv, &result.query_domains));
    if (options.method == Method::kDense && config.project_dense && ctx.dense_projection) qv = Project(*ctx.dense_projection, qv);
    user.dense().ScoreAll(qv.data(), &dense);
    if (options.method == Method::kFull) dense_raw = dense;
    SmoothWithNeighbours(config.neighbour_weight, &dense);
  }
  if (want_lexical) {
    user.bm25().ScoreAll(LexicalQuery(query, options, config), &lexical);
    if (options.method == Method::kFull) lexical_raw = lexical;
    SmoothWithNeighbours(config.neighbour_weight, &lexical);
  }
  // The fused dense + lexical view (z-scores, weighted; or reciprocal ranks).
  auto fuse = [&](const std::vector<float>& d, const std::vector<float>& l) {
    std::vector<float> out(n, 0.0f);
    if (config.fusion == FusionKind::kWeighted || options.method == Method::kFull) {
      std::vector<float> zd = ZNormalise(d), zl = ZNormalise(l);
      const float wd = config.fusion_dense_weight;
      for (size_t i = 0; i < n; ++i) out[i] = wd * zd[i] + (1 - wd) * zl[i];
    } else {
      auto add = [&](const std::vector<float>& s, bool positive_only) {
        auto order = TopK(s, n, positive_only);
        for (size_t r = 0; r < order.size(); ++r) out[order[r]] += 1.0f / (config.rrf_k + static_cast<float>(r + 1));
      };
      add(d, false);
      add(l, true);
    }
    return out;
  };

  std::vector<int32_t> top, floor_top;  // floor_top: the question's best lexical matches, when a combiner ranked
  std::unordered_map<int32_t, std::string> floor_why;  // what reserved a floor turn (its hit's path)
  std::vector<float> final_scores, graph_scores, profile_scores;
  GraphViewOut gv;  // method full's graph view (hits' paths)
  switch (options.method) {
    case Method::kDense:
    case Method::kRewrite:
      final_scores = dense;
      break;
    case Method::kBm25:
      final_scores = lexical;
      break;
    case Method::kPpr: {
      std::vector<float> ppr;
      PprScores(user, embedder, query, options, config, qv, &ppr);
      // Turns the PageRank reaches come first; the rest follow in dense order.
      final_scores.resize(n);
      for (size_t i = 0; i < n; ++i) {
        if (ppr[i] > 0) ++result.graph_candidates;
        final_scores[i] = ppr[i] > 0 ? 2.0f + ppr[i] : std::clamp((dense[i] + 1.0f) / 4.0f, 0.0f, 1.0f);
      }
      break;
    }
    case Method::kFusion:
      final_scores = fuse(dense, lexical);
      break;
    case Method::kFull: {
      std::vector<float> fused = fuse(dense, lexical);
      // Every turn by fused score, best first: calibration, the views' overlap and the
      // combiner's fused view all read it; sorted again only when `fused` changes.
      std::vector<int32_t> fused_order = TopK(fused, n, false);
      result.route = GraphView(user, query, options, config, ctx, dense, embedder, qv, &gv, &result.query_domains);
      std::vector<float>& s_graph = gv.score;
      // Static policy: a question about what was said, or (lexical_route_z) one with a strong
      // lexical match, names what it wants, so the fused views lead (dense-first) and the
      // graph only breaks ties.
      float wg = config.w_graph;
      if (result.route == "graph-first" && config.recall_cues && text::AsksWhatWasSaid(query)) {
        wg *= 0.2f;
        result.route = "dense-first";
      }
      if (config.lexical_route_z > 0) {
        const auto zl = ZNormalise(lexical);
        const float max_z = zl.empty() ? 0.0f : *std::max_element(zl.begin(), zl.end());
        if (max_z >= config.lexical_route_z) {
          wg *= 0.2f;
          result.route = "dense-first";
        }
      }
      // Unified score over calibrated views. rank_unify: each view by rank (1/(60 + rank), as
      // in RRF), so a view's best turn counts the same whatever its raw scale; otherwise the
      // graph score and the fused z-score squashed to (0, 1). s_profile in [-1, 1] is what
      // feedback said about the turn and the relation that brought it (0 without feedback).
      const bool use_profile = config.w_profile > 0 && !user.profile().empty();
      if (use_profile) {
        profile_scores.resize(n);
        for (size_t i = 0; i < n; ++i) profile_scores[i] = user.profile().Score(user.turn(i).turn.id, gv.Relation(i));
      }
      // Time cue: "two weeks ago" favours the turns said then.
      std::vector<uint8_t> in_window;
      if (config.w_time > 0 && n > 0) {
        int64_t now = options.now_ms;
        if (now == 0)
          for (const auto& t : user.turns()) now = std::max(now, t.turn.time_ms);
        if (now > 0)
          if (auto w = ResolveTimeExpression(query, now)) {
            result.time_phrase = w->phrase;
            result.time_from_ms = w->from_ms;
            result.time_to_ms = w->to_ms;
            in_window.assign(n, 0);
            for (size_t i = 0; i < n; ++i) {
              const int64_t ts = user.turn(i).turn.time_ms;
              in_window[i] = ts >= w->from_ms && ts < w->to_ms;
            }
          }
      }
      auto unify = [&](float w_graph) {
        final_scores.assign(n, 0.0f);
        if (config.rank_unify) {
          std::vector<float> rank_g(n, 0.0f), rank_d(n, 0.0f);
          // Tied scores share a rank, so the order of equal turns is not mistaken for evidence.
          auto calibrate = [](const std::vector<float>& s, const std::vector<int32_t>& order, float k,
                              std::vector<float>* out) {
            size_t rank = 0;
            for (size_t r = 0; r < order.size(); ++r) {
              if (r > 0 && s[order[r]] != s[order[r - 1]]) rank = r;
              (*out)[order[r]] = k / (k + static_cast<float>(rank));
            }
          };
          calibrate(s_graph, TopK(s_graph, n, /*require_positive=*/true), config.graph_rank_k, &rank_g);
          calibrate(fused, fused_order, config.dense_rank_k, &rank_d);
          for (size_t i = 0; i < n; ++i) {
            const float g = w_graph * rank_g[i], d = config.w_dense * rank_d[i];
            final_scores[i] = config.unify_max * std::max(g, d) + (1 - config.unify_max) * (g + d);
          }
        } else {
          for (size_t i = 0; i < n; ++i) final_scores[i] = w_graph * s_graph[i] + config.w_dense * Sigmoid(fused[i]);
        }
        if (use_profile)
          for (size_t i = 0; i < n; ++i) final_scores[i] += config.w_profile * profile_scores[i];
        for (size_t i = 0; i < in_window.size(); ++i) final_scores[i] += in_window[i] ? config.w_time : 0.0f;
      };
      unify(wg);

      // Uncertainty: the top two nearly tie, or the views disagree on their top 10.
      size_t proposed = 0;
      for (float v : s_graph) proposed += v > 0;
      if (proposed > 0) {
        const auto g10 = TopK(s_graph, 10, true);
        const std::vector<int32_t> f10(fused_order.begin(), fused_order.begin() + static_cast<long>(std::min<size_t>(10, n)));
        size_t shared = 0;
        for (int32_t i : g10) shared += std::find(f10.begin(), f10.end(), i) != f10.end();
        result.view_overlap = static_cast<double>(shared) / static_cast<double>(g10.size());
      }
      result.uncertainty = "none";
      const auto top2 = TopK(final_scores, 2, false);
      const bool close = top2.size() == 2 &&
                         final_scores[top2[0]] - final_scores[top2[1]] <
                             config.uncertainty_margin * std::max(std::abs(final_scores[top2[0]]), 1e-6f);
      const bool disagree = result.view_overlap >= 0 && result.view_overlap < config.uncertainty_min_overlap;
      if ((close || disagree) && options.latency_budget_us > 0) {
        // One expansion costs at most another pass: skip it when two passes would not fit.
        const int64_t spent = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
        if (2 * spent > options.latency_budget_us) {
          result.uncertainty = "skipped-latency";
          if (disagree) {
            unify(wg * 0.2f);
            result.route = "dense-first";
          }
        } else if (proposed > 0) {
          if (GraphHop(user, config, &gv)) unify(wg);
          result.uncertainty = "graph-hop";
        } else if (!top2.empty() && want_dense && config.probe_weight > 0) {
          // Dense probe: pseudo-relevance feedback from the best turn.
          std::vector<float> tv(qv.size());
          RETURN_IF_ERROR(embedder.Embed(user.turn(top2[0]).turn.text, tv.data()));
          double norm = 0;
          for (size_t d = 0; d < qv.size(); ++d) {
            qv[d] += config.probe_weight * tv[d];
            norm += qv[d] * qv[d];
          }
          if (norm > 0)
            for (float& v : qv) v = static_cast<float>(v / std::sqrt(norm));
          DenseView(user, qv, config, &dense);
          fused = fuse(dense, lexical);
          fused_order = TopK(fused, n, false);
          unify(wg);
          result.uncertainty = "dense-probe";
        }
      }
      for (size_t i = 0; i < n; ++i) result.graph_candidates += s_graph[i] > 0;
      // Two combiners, one per route: graph-first searches weigh the graph's evidence against
      // the other views; the others (no asker, or no domain with preference edges: factual
      // questions about a conversation) have only the dense and lexical evidence, and learned
      // from other data (docs/combiner.md).
      const bool graph_first = result.route == "graph-first";
      const learn::Mlp* combiner = !graph_first                     ? ctx.dense_combiner.get()
                                   : config.graph_combiner_override ? config.graph_combiner_override.get()
                                                                    : ctx.combiner.get();
      const bool combine = combiner && config.use_combiner;
      if (config.candidate_log) config.candidate_log->clear();
      // (Nothing to rank in an empty history: a dense-first search may have no turns.)
      if ((combine || config.candidate_log) && n > 0) {
        // The domain-aware dense view (method rewrite's query) as a fifth view.
        std::vector<float> rewrite = dense;
        if (!result.query_domains.empty()) {
          std::vector<float> rq = qv;
          RETURN_IF_ERROR(AddDomainCues(embedder, config, ctx, result.query_domains.front(), &rq));
          DenseView(user, rq, config, &rewrite);
        }
        // The learned projection of the dense query as a sixth view (plain dense without one).
        std::vector<float> projected = dense;
        if (ctx.dense_projection) DenseView(user, Project(*ctx.dense_projection, qv), config, &projected);
        // The question alone, unsmoothed (features and the lexical floor).
        std::vector<float> dense_bare = dense_raw, lexical_bare;
        if (bare_qv != qv) user.dense().ScoreAll(bare_qv.data(), &dense_bare);
        user.bm25().ScoreAll(QuestionTerms(query), &lexical_bare);
        const auto word_rarity = QuestionWordRarity(query, ctx);
        auto rows = CombinerCandidates(user, query, options, config,
                                             {gv, dense, lexical, fused, fused_order, rewrite, projected, profile_scores,
                                              in_window, dense_raw, lexical_raw, dense_bare, lexical_bare,
                                              result.graph_candidates, word_rarity});
        if (graph_first && !config.graph_combiner_turn_length)
          for (auto& row : rows) row.second[kTurnLengthFeature] = 0.0f;
        if (combine) {
          // A candidate's score is the combiner's probability that it is needed; every other
          // turn keeps its unified-score order below them (shifted under -1).
          const float top = *std::max_element(final_scores.begin(), final_scores.end());
          for (float& v : final_scores) v -= top + 1.0f;
          const auto p = CombinerScores(*combiner, rows);
          for (size_t r = 0; r < rows.size(); ++r) final_scores[rows[r].first] = p[r];
          result.route += "+combiner";
          // At most half of a small top k (none of a top 1): the combiner's best stays first.
          for (auto& [i, word] : NamedTurns(user, query, config, ctx, lexical_bare, std::min(config.named_floor, k / 2))) {
            floor_top.push_back(i);
            floor_why[i] = "floor: names '" + word + "'";
          }
          const size_t slots = static_cast<size_t>(std::lround(config.lexical_floor * static_cast<float>(k)));
          if (slots > 0) {
            // Only a graph-first search with a word minimum pays for the gated copy.
            std::vector<float> gated;
            const bool gate = graph_first && config.lexical_floor_min_terms_graph_first > 1;
            if (gate) {
              const bool request = ctx.recall_probability && ctx.recall_probability(query, options.context) < 0.5f;
              gated = FloorMatches(user, query, config.lexical_floor_min_terms_graph_first,
                                   config.lexical_floor_rare_rank, request ? config.lexical_floor_common_rank : 0,
                                   word_rarity, lexical_bare);
            }
            for (int32_t i : TopK(gate ? gated : lexical_bare, slots, true))
              if (floor_why.emplace(i, "floor: the question's own words").second) floor_top.push_back(i);
          }
        }
        if (config.candidate_log) {
          for (const auto& [ord, x] : rows) config.candidate_log->push_back(CombinerRow{user.turn(ord).turn.id, x});
        }
      }
      graph_scores = std::move(s_graph);
      break;
    }
  }
  const bool collapse = config.collapse_duplicates && options.collapse_duplicates;
  // Echoes: the latest turns (as many as the context has lines, plus two for the question and
  // a reply) that repeat the query or a context line are what the caller just said, and holds.
  // An older turn with the same text is a memory and stays.
  std::unordered_set<int32_t> echoes;
  if (config.skip_context_echoes) {
    std::unordered_set<uint64_t> said = {TextKey(query)};
    for (const auto& c : options.context) said.insert(TextKey(c));
    const size_t recent = std::min(n, options.context.size() + 2);
    for (size_t i = n - recent; i < n; ++i)
      if (said.count(user.text_key(i))) echoes.insert(static_cast<int32_t>(i));
  }
  top = TopKFiltered(user, final_scores, k, options.method == Method::kBm25, collapse, echoes);
  // Lexical floor: the turns matching the question's own words best (its context left out:
  // "what was my take on Framely?" after "I finally fixed the leaky tap.") take the last slots
  // of the top k unless the combiner already ranked them there, so a combiner trained on one
  // kind of question cannot bury what the question names (docs/combiner.md). A question that
  // shares no word with the history reserves nothing.
  std::unordered_set<int32_t> floor_entered;  // floor turns the combiner had not ranked in the top k
  if (!floor_top.empty() && top.size() == k) {
    std::vector<int32_t> merged(top.begin(), top.begin() + static_cast<long>(k - std::min(k, floor_top.size())));
    auto same = [&](int32_t a, int32_t b) {
      return a == b || (collapse &&
                        user.text_key(static_cast<size_t>(a)) == user.text_key(static_cast<size_t>(b)));
    };
    auto add = [&](int32_t i) {
      if (echoes.count(i)) return;
      if (merged.size() < k && std::none_of(merged.begin(), merged.end(), [&](int32_t j) { return same(i, j); }))
        merged.push_back(i);
    };
    const size_t own = merged.size();
    for (int32_t i : floor_top) add(i);
    for (size_t r = own; r < merged.size(); ++r)
      if (std::find(top.begin(), top.end(), merged[r]) == top.end()) floor_entered.insert(merged[r]);
    for (int32_t i : top) add(i);
    // Keep the combiner's order among the chosen turns.
    std::stable_sort(merged.begin(), merged.end(), [&](int32_t a, int32_t b) { return final_scores[a] > final_scores[b]; });
    top = std::move(merged);
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
      h.path = gv.Path(static_cast<size_t>(i));
    }
    // A turn a floor put in the top k says so when no edge explains it.
    if (auto it = floor_why.find(i); h.path.empty() && it != floor_why.end() && floor_entered.count(i)) h.path = it->second;
    if (!profile_scores.empty()) h.profile_score = profile_scores[i];
    result.context_tokens += static_cast<int64_t>(text::CountWhitespaceTokens(h.turn.turn.text));
    result.hits.push_back(std::move(h));
  }
  result.latency_us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
  return result;
}

}  // namespace ontomem
