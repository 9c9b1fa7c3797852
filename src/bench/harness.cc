#include "bench/harness.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <unordered_set>

#include <unistd.h>

#include "bench/dataset.h"
#include "engine/memory_impl.h"
#include "engine/pipeline.h"
#include "ontology/ontology.h"
#include "retrieve/combiner.h"
#include "text/text.h"

namespace ontomem {

std::vector<std::string> RankAskerTurnsByLength(const Sample& s, const std::string& asker, size_t k) {
  std::vector<std::pair<size_t, size_t>> by_words;  // (words, turn index)
  for (size_t i = 0; i < s.turns.size(); ++i)
    if (asker.empty() || s.turns[i].speaker == asker) by_words.emplace_back(text::Tokenize(s.turns[i].text).size(), i);
  std::stable_sort(by_words.begin(), by_words.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> ranked;
  for (size_t i = 0; i < by_words.size() && i < k; ++i) ranked.push_back(s.turns[by_words[i].second].id);
  return ranked;
}

namespace {

// CPU time of the calling thread (ingest runs on it; the store has no background threads).
double ThreadCpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct SliceAcc {
  size_t n = 0;
  double recall = 0, ndcg = 0, precision = 0;
  void Add(double r, double g, double p) { ++n; recall += r; ndcg += g; precision += p; }
  json ToJson() const {
    double d = n ? static_cast<double>(n) : 1.0;
    return {{"n", n}, {"recall", recall / d}, {"ndcg", ndcg / d}, {"evidence_precision", precision / d}};
  }
};

struct MethodAcc {
  SliceAcc all;
  std::map<std::string, SliceAcc> slices;
  std::vector<double> latency_us;
  double context_tokens = 0;
  std::map<std::string, size_t> routes;  // method full: "<route>/<uncertainty>" -> queries
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double idx = p * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(idx)), hi = static_cast<size_t>(std::ceil(idx));
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}

// A knob of the retrieval methods (docs/tuning.md). False when `name` is not one.
bool ApplyRetrieverKnob(const std::string& name, float v, RetrieverConfig* r) {
  // 0 drops the relation from those the graph view follows, anything else adds it.
  auto follow = [&](const char* relation) {
    if (v == 0) r->graph_relations.erase(relation);
    else r->graph_relations.insert(relation);
  };
  if (name == "context_weight") r->context_weight = v;
  else if (name == "asker_weight") r->asker_weight = v;
  else if (name == "neighbour_weight") r->neighbour_weight = v;
  else if (name == "fusion_dense_weight") r->fusion_dense_weight = v;
  else if (name == "rrf_k") r->rrf_k = v;
  else if (name == "w_graph") r->w_graph = v;
  else if (name == "w_dense") r->w_dense = v;
  else if (name == "w_profile") r->w_profile = v;
  else if (name == "graph_domain_share") r->graph_domain_share = v;
  else if (name == "graph_unknown_domain") r->graph_unknown_domain = v;
  else if (name == "lexical_route_z") r->lexical_route_z = v;
  else if (name == "recall_cues") r->recall_cues = v != 0;
  else if (name == "tail_similarity_share") r->tail_similarity_share = v;
  else if (name == "graph_min_weight") r->graph_min_weight = v;
  else if (name == "rank_unify") r->rank_unify = v != 0;
  else if (name == "graph_rank_k") r->graph_rank_k = v;
  else if (name == "unify_max") r->unify_max = v;
  else if (name == "dense_rank_k") r->dense_rank_k = v;
  else if (name == "graph_habits") follow("HAS_HABIT");
  else if (name == "graph_combiner_turn_length") r->graph_combiner_turn_length = v != 0;
  else if (name == "graph_conditions") follow("HAS_CONDITION");
  else if (name == "graph_top_n") r->graph_top_n = static_cast<size_t>(v);
  else if (name == "graph_all_relations") {
    if (v != 0) r->graph_relations.clear();
  }
  else if (name == "w_time") r->w_time = v;
  else if (name == "uncertainty_margin") r->uncertainty_margin = v;
  else if (name == "uncertainty_min_overlap") r->uncertainty_min_overlap = v;
  else if (name == "hop_decay") r->hop_decay = v;
  else if (name == "hop_max_new") r->hop_max_new = static_cast<size_t>(v);
  else if (name == "probe_weight") r->probe_weight = v;
  else if (name == "rewrite_domain_weight") r->rewrite_domain_weight = v;
  else if (name == "ppr_damping") r->ppr_damping = v;
  else if (name == "ppr_seed_nodes") r->ppr_seed_nodes = static_cast<size_t>(v);
  else if (name == "ppr_seed_min_cos") r->ppr_seed_min_cos = v;
  else if (name == "max_query_domains") r->max_query_domains = static_cast<size_t>(v);
  else if (name == "combiner") r->use_combiner = v != 0;
  else if (name == "combiner_candidates") r->combiner_candidates = static_cast<size_t>(v);
  else if (name == "lexical_floor") r->lexical_floor = v;
  else if (name == "lexical_floor_min_terms") r->lexical_floor_min_terms_graph_first = static_cast<size_t>(v);
  else if (name == "lexical_floor_rare_rank") r->lexical_floor_rare_rank = static_cast<int64_t>(v);
  else if (name == "lexical_floor_common_rank") r->lexical_floor_common_rank = static_cast<int64_t>(v);
  else if (name == "group_relations") r->graph_group_relations = v != 0 ? std::set<std::string>{"HAS_RELATIVE"} : std::set<std::string>{};
  else if (name == "group_from_context") r->group_from_context = v != 0;
  else if (name == "named_floor") r->named_floor = static_cast<size_t>(v);
  else if (name == "named_floor_rank") r->named_floor_rank = static_cast<int64_t>(v);
  else if (name == "named_floor_max_turns") r->named_floor_max_turns = static_cast<size_t>(v);
  else if (name == "collapse_duplicates") r->collapse_duplicates = v != 0;
  else if (name == "skip_context_echoes") r->skip_context_echoes = v != 0;
  else if (name == "project") r->project_dense = v != 0;
  else return false;
  return true;
}

StatusOr<std::pair<std::string, float>> ParseAssignment(const std::string& assignment, std::string_view what) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos) return Status::InvalidArgument(fmt::format("{} wants name=value, got {}", what, assignment));
  std::string name = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  try {
    size_t used = 0;
    const float v = std::stof(value, &used);
    // "2@lexical_floor=0.2" must not read as 2 (knobs are separated by ':').
    if (used == value.size()) return std::make_pair(name, v);
  } catch (...) {
  }
  return Status::InvalidArgument(fmt::format("{} {}: value \"{}\" is not a number", what, name, value));
}

// "<method>@knob=v:knob=v": the method with its own retriever knobs, so variants share one
// ingest (`ontomem train scorer` compares a grid of weights this way).
Status MethodSetup(const std::string& spec, const BenchConfig& config, Method* method,
                   RetrieverConfig* rc) {
  *rc = config.retriever;
  const auto at = spec.find('@');
  const std::string name = spec.substr(0, at);
  if (at != std::string::npos) {
    std::string rest = spec.substr(at + 1);
    for (size_t pos = 0; pos <= rest.size();) {
      const size_t comma = std::min(rest.find(':', pos), rest.size());
      ASSIGN_OR_RETURN(auto kv, ParseAssignment(rest.substr(pos, comma - pos), "method " + spec + ":"));
      if (kv.first == "combiner_variant") {
        // Range first: casting a negative or NaN float to size_t is undefined.
        const float v = kv.second;
        if (!(v >= 1 && v <= static_cast<float>(config.combiner_variants.size())) || v != std::floor(v))
          return Status::InvalidArgument(fmt::format("method {}: combiner_variant must name one of the {} --combiner-variant files (1-based)",
                                                     spec, config.combiner_variants.size()));
        rc->graph_combiner_override = config.combiner_variants[static_cast<size_t>(v) - 1];
      } else if (!ApplyRetrieverKnob(kv.first, kv.second, rc))
        return Status::InvalidArgument(fmt::format("method {}: unknown knob {} (see docs/tuning.md)", spec, kv.first));
      pos = comma + 1;
    }
  }
  if (name == "fusion-rrf") { *method = Method::kFusion; rc->fusion = FusionKind::kRrf; return Status::Ok(); }
  if (name == "fusion-weighted") { *method = Method::kFusion; rc->fusion = FusionKind::kWeighted; return Status::Ok(); }
  if (name == "full-no-promotion") { *method = Method::kFull; rc->use_promoted = false; return Status::Ok(); }
  if (ParseMethod(name, method)) return Status::Ok();
  return Status::InvalidArgument(fmt::format("unknown method \"{}\" (dense, bm25, fusion, full, rewrite, ppr, length, fusion-rrf, fusion-weighted, full-no-promotion)", name));
}

// True when some 1-4 word span of `text` is a gazetteer entry. Single common words are
// skipped: the gazetteer holds titles like "Heat" that would match everywhere.
bool MentionsGazetteerEntity(const Ontology& ontology, const std::string& text) {
  const auto toks = text::Tokenize(text);
  for (size_t i = 0; i < toks.size(); ++i) {
    std::string span;
    for (size_t len = 1; len <= 4 && i + len <= toks.size(); ++len) {
      span += (len > 1 ? " " : "") + toks[i + len - 1];
      if (len == 1 && (text::IsStopWord(span) || span.size() < 5)) continue;
      if (!ontology.LookupGazetteer(span).empty()) return true;
    }
  }
  return false;
}

}  // namespace

double RecallAtK(const std::vector<std::string>& ranked, const std::vector<std::string>& gold, size_t k) {
  std::unordered_set<std::string> g(gold.begin(), gold.end());
  if (g.empty()) return 0;
  size_t hit = 0;
  for (size_t i = 0; i < ranked.size() && i < k; ++i) hit += g.count(ranked[i]);
  return static_cast<double>(hit) / static_cast<double>(g.size());
}

double NdcgAtK(const std::vector<std::string>& ranked, const std::vector<std::string>& gold, size_t k) {
  std::unordered_set<std::string> g(gold.begin(), gold.end());
  if (g.empty()) return 0;
  double dcg = 0, idcg = 0;
  for (size_t i = 0; i < ranked.size() && i < k; ++i)
    if (g.count(ranked[i])) dcg += 1.0 / std::log2(static_cast<double>(i) + 2.0);
  for (size_t i = 0; i < g.size() && i < k; ++i) idcg += 1.0 / std::log2(static_cast<double>(i) + 2.0);
  return dcg / idcg;
}

double PrecisionAtK(const std::vector<std::string>& ranked, const std::vector<std::string>& gold, size_t k) {
  std::unordered_set<std::string> g(gold.begin(), gold.end());
  size_t n = std::min(k, ranked.size());
  if (n == 0) return 0;
  size_t hit = 0;
  for (size_t i = 0; i < n; ++i) hit += g.count(ranked[i]);
  return static_cast<double>(hit) / static_cast<double>(n);
}

Status ApplyBenchParam(const std::string& assignment, BenchConfig* c) {
  ASSIGN_OR_RETURN(auto kv, ParseAssignment(assignment, "--param"));
  const auto& [name, v] = kv;
  if (ApplyRetrieverKnob(name, v, &c->retriever)) return Status::Ok();
  if (name == "prev_turn_weight") c->lexical.prev_turn_weight = v;
  else if (name == "speaker_weight") c->lexical.speaker_weight = v;
  else if (name == "sif_a") c->sif.sif_a = v;
  else if (name == "fact_threshold") c->fact_threshold = v;
  else if (name == "drop_stop_words") c->sif.drop_stop_words = v != 0;
  else if (name == "common_component") c->sif.remove_common_component = v != 0;
  else if (name == "sif_weighting")
    c->sif.weighting = v != 0 ? SifEmbedderOptions::Weighting::kSif : SifEmbedderOptions::Weighting::kUniform;
  else return Status::InvalidArgument("--param: unknown knob " + name + " (see docs/tuning.md)");
  return Status::Ok();
}

StatusOr<Dataset> LoadBenchDataset(const std::string& spec) {
  const size_t hash = spec.rfind('#');
  if (hash == std::string::npos) return LoadLocomo(spec);
  ASSIGN_OR_RETURN(Dataset ds, LoadLocomo(spec.substr(0, hash)));
  std::vector<std::string> ids;
  std::stringstream list(spec.substr(hash + 1));
  for (std::string id; std::getline(list, id, ',');)
    if (!id.empty()) ids.push_back(id);
  std::vector<Sample> keep;
  for (const auto& id : ids) {
    auto it = std::find_if(ds.samples.begin(), ds.samples.end(), [&](const Sample& s) { return s.sample_id == id; });
    if (it == ds.samples.end()) return Status::NotFound(fmt::format("{}: no sample `{}`", spec, id));
    keep.push_back(std::move(*it));
  }
  if (keep.empty()) return Status::InvalidArgument(fmt::format("{}: no sample ids after `#`", spec));
  ds.samples = std::move(keep);
  return ds;
}

namespace {

// A dumped turn's combiner features (the nonzero ones, by name) when it was a candidate.
void AddCombinerFeatures(const std::vector<CombinerRow>& log, const std::string& id, json* out) {
  for (const CombinerRow& row : log) {
    if (row.turn_id != id) continue;
    json x = json::object();
    for (size_t f = 0; f < kCombinerFeatures; ++f)
      if (row.x[f] != 0.0f) x[kCombinerFeatureNames[f]] = row.x[f];
    (*out)["x"] = std::move(x);
    return;
  }
}

}  // namespace

Status RunBench(const BenchConfig& config, std::ostream& table, json* result) {
  if (!config.embedder) return Status::InvalidArgument("bench needs an embedder");
  if (config.k < 1) return Status::InvalidArgument("--k must be at least 1");
  std::ofstream dump;
  if (!config.dump_path.empty()) {
    dump.open(config.dump_path, std::ios::binary | std::ios::trunc);
    if (!dump) return Status::IOError("cannot write " + config.dump_path);
  }
  // The `length` baseline runs no search: its setup is a placeholder.
  auto length_only = [&](size_t m) { return config.methods[m] == "length"; };
  std::vector<std::pair<Method, RetrieverConfig>> setups;
  for (size_t i = 0; i < config.methods.size(); ++i) {
    Method method = Method::kDense;
    RetrieverConfig rc = config.retriever;
    if (!length_only(i)) RETURN_IF_ERROR(MethodSetup(config.methods[i], config, &method, &rc));
    // The dump also shows the combiner's features of each hit and gold turn.
    if ((config.on_candidates || !config.dump_path.empty()) && method == Method::kFull)
      rc.candidate_log = std::make_shared<std::vector<CombinerRow>>();
    setups.emplace_back(method, rc);
  }
  const size_t k = static_cast<size_t>(config.k);
  *result = json{{"k", config.k}, {"datasets", json::array()}};

  for (const auto& path : config.datasets) {
    ASSIGN_OR_RETURN(Dataset ds, LoadBenchDataset(path));
    // A throwaway durable store: ingest cost is measured as users would pay it.
    auto dir = std::filesystem::temp_directory_path() /
               fmt::format("ontomem-bench-{}-{}", ::getpid(), result->at("datasets").size());
    std::filesystem::remove_all(dir);
    // Removed on every exit, error returns included; declared before the store, which closes first.
    struct RemoveDir {
      std::filesystem::path dir;
      ~RemoveDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
    } remove_dir{dir};
    Options opts;
    opts.data_dir = dir.string();
    opts.embedder = config.embedder;
    opts.fact_threshold = config.fact_threshold;
    opts.fact_verifier = config.fact_verifier;
    ASSIGN_OR_RETURN(auto store, OpenSqliteStore(opts.data_dir, true, Durability::kFull));
    MemoryImpl mem(opts, std::move(store), config.embedder, config.retriever, config.lexical);
    std::shared_ptr<const Ontology> ontology;  // set with the graph: gazetteer slices
    // The graph is built only when a method reads it, so baseline ingest costs stay comparable.
    // `dense@project=1` needs the pipeline too: it holds the projection (without it the method
    // would silently be plain dense).
    auto projected_dense = [&](size_t m) { return setups[m].first == Method::kDense && setups[m].second.project_dense; };
    bool needs_graph = false;
    for (size_t m = 0; m < setups.size(); ++m)
      needs_graph |= setups[m].first == Method::kFull || setups[m].first == Method::kPpr ||
                     setups[m].first == Method::kRewrite || projected_dense(m);
    if (needs_graph) {
      ASSIGN_OR_RETURN(FactPipeline pipeline, OpenFactPipeline(opts, config.embedder));
      mem.set_fact_pipeline(pipeline.extractor, pipeline.policy, pipeline.graph_context);
      ontology = pipeline.ontology;
      mem.set_fact_verifier(pipeline.fact_verifier);  // its requests overlap and are counted, as in the engine
      for (size_t m = 0; m < setups.size(); ++m)
        if (projected_dense(m) && !pipeline.graph_context.dense_projection)
          return Status::InvalidArgument(fmt::format(
              "method {}: no dense projection for this embedder (it maps GloVe-SIF query vectors; see ONTOMEM_PROJECTION)",
              config.methods[m]));
    }

    std::vector<MethodAcc> acc(setups.size());
    size_t questions = 0, skipped_evidence = 0, turns_total = 0;
    double graph_bytes = 0, graph_edges = 0;
    size_t promoted_judged = 0, promoted_on_gold = 0, promoted_touching_gold = 0, gold_turns = 0, gold_covered = 0;
    double ingest_us_total = 0, ingest_cpu_us_total = 0;
    for (size_t si = 0; si < ds.samples.size(); ++si) {
      const Sample& s = ds.samples[si];
      if (config.progress)
        fmt::print(stderr, "\r{}: sample {}/{} ({})      ", path, si + 1, ds.samples.size(), s.sample_id);
      UserKey key{"bench", s.sample_id};
      // Ingest session by session, one batch each, as a chat app would flush them.
      std::set<std::string> ids;
      std::map<std::string, const Turn*> by_id;
      for (const Turn& t : s.turns) by_id[t.id] = &t;
      size_t i = 0;
      while (i < s.turns.size()) {
        size_t j = i;
        while (j < s.turns.size() && s.turns[j].session == s.turns[i].session) ++j;
        std::vector<Turn> batch(s.turns.begin() + static_cast<long>(i), s.turns.begin() + static_cast<long>(j));
        auto t0 = Clock::now();
        const double cpu0 = ThreadCpuMicros();
        Status st = mem.IngestBatch(key, batch);
        ingest_us_total += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        ingest_cpu_us_total += ThreadCpuMicros() - cpu0;
        if (!st.ok()) return st.WithContext(fmt::format("{}: ingest {}", path, s.sample_id));
        for (const auto& t : batch) ids.insert(t.id);
        i = j;
      }
      turns_total += s.turns.size();
      if (needs_graph) {
        // How the graph covers the gold: the share of gold turns that are the source of a
        // current edge, and the share of promoted edges standing only on gold turns (in
        // IPR-synth every gold turn is a stated preference of the user, so a promotion
        // resting on anything else lifted a distractor or filler).
        std::set<std::string> gold_all;
        for (const QaItem& q : s.qa)
          for (const auto& e : q.evidence)
            if (ids.count(e)) gold_all.insert(e);
        std::set<std::string> covered;
        RETURN_IF_ERROR(mem.ReadGraph(key, [&](const MemoryGraph& g) {
          graph_bytes += static_cast<double>(g.MemoryBytes());
          for (const GraphEdge& e : g.edges()) {
            if (!e.current()) continue;
            graph_edges += 1;
            bool all_gold = !e.source_turns.empty(), any_gold = false;
            for (const std::string& id : e.source_turns) {
              if (gold_all.count(id)) covered.insert(id), any_gold = true;
              else all_gold = false;
            }
            if (e.promoted) {
              ++promoted_judged;
              promoted_on_gold += all_gold ? 1 : 0;
              promoted_touching_gold += any_gold ? 1 : 0;
            }
          }
        }));
        gold_turns += gold_all.size();
        gold_covered += covered.size();
      }
      for (const QaItem& q : s.qa) {
        std::vector<std::string> gold;
        for (const auto& e : q.evidence) {
          if (ids.count(e)) gold.push_back(e);
          else ++skipped_evidence;
        }
        if (gold.empty()) continue;
        ++questions;
        // Recall is reported separately for gold turns naming a gazetteer entity and for the
        // rest, so seed knowledge cannot hide how the method does on unknown entities.
        std::string gazetteer_slice;
        if (ontology) {
          bool in = false;
          for (const auto& gid : gold)
            if (auto it = by_id.find(gid); it != by_id.end()) in |= MentionsGazetteerEntity(*ontology, it->second->text);
          gazetteer_slice = in ? "gazetteer:in" : "gazetteer:out";
        }
        for (size_t m = 0; m < setups.size(); ++m) {
          // Every slice a question belongs to, for the method's ranking.
          auto add = [&](const std::vector<std::string>& ranked, double us) {
            double r = RecallAtK(ranked, gold, k), g = NdcgAtK(ranked, gold, k), p = PrecisionAtK(ranked, gold, k);
            MethodAcc& a = acc[m];
            a.all.Add(r, g, p);
            a.latency_us.push_back(us);
            if (q.implicit.has_value()) a.slices[*q.implicit ? "implicit" : "explicit"].Add(r, g, p);
            if (!q.category.empty()) a.slices["category:" + q.category].Add(r, g, p);
            for (const auto& pth : q.pathology) a.slices["pathology:" + pth].Add(r, g, p);
            if (!q.domain.empty()) a.slices["domain:" + q.domain].Add(r, g, p);
            if (!gazetteer_slice.empty()) a.slices[gazetteer_slice].Add(r, g, p);
          };
          if (length_only(m)) {
            add(RankAskerTurnsByLength(s, q.speaker, k), 0);
            continue;
          }
          mem.set_retriever_config(setups[m].second);
          SearchOptions so;
          so.k = config.k;
          so.method = setups[m].first;
          so.asker = q.speaker;
          so.context = q.context;
          so.latency_budget_us = config.latency_budget_us;
          auto t0 = Clock::now();
          auto res = mem.Search(key, q.question, so);
          double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
          if (!res.ok()) return res.status().WithContext(fmt::format("{}: search {}", path, s.sample_id));
          std::vector<std::string> ranked;
          for (const auto& h : res->hits) ranked.push_back(h.turn.turn.id);
          const auto& log = setups[m].second.candidate_log;
          if (log && config.on_candidates) config.on_candidates(path, m, gold, res->route, *log, ranked);
          if (dump.is_open()) {
            json hits = json::array();
            for (const auto& h : res->hits) {
              hits.push_back({{"id", h.turn.turn.id}, {"score", h.score}, {"dense_rank", h.dense_rank},
                              {"bm25_rank", h.bm25_rank}, {"graph", h.graph_score}, {"path", h.path}});
              if (log) AddCombinerFeatures(*log, h.turn.turn.id, &hits.back());
            }
            json line{{"dataset", path}, {"sample", s.sample_id}, {"method", config.methods[m]},
                      {"question", q.question}, {"context", q.context}, {"gold", gold}, {"hits", hits},
                      {"route", res->route}, {"uncertainty", res->uncertainty},
                      {"domains", res->query_domains}, {"pathology", q.pathology}};
            if (q.implicit.has_value()) line["implicit"] = *q.implicit;
            // Where each gold turn ranks in full, and what brought it there.
            SearchOptions all = so;
            all.k = 1000;
            auto full = mem.Search(key, q.question, all);
            if (!full.ok()) return full.status().WithContext(fmt::format("{}: dump {}", path, s.sample_id));
            json golds = json::array();
            for (size_t r = 0; r < full->hits.size(); ++r) {
              const Hit& h = full->hits[r];
              if (std::find(gold.begin(), gold.end(), h.turn.turn.id) == gold.end()) continue;
              golds.push_back({{"id", h.turn.turn.id}, {"rank", r + 1}, {"score", h.score},
                               {"dense_rank", h.dense_rank}, {"bm25_rank", h.bm25_rank},
                               {"graph", h.graph_score}, {"path", h.path}, {"text", h.turn.turn.text}});
              if (log) AddCombinerFeatures(*log, h.turn.turn.id, &golds.back());
            }
            line["gold_ranks"] = golds;
            dump << line.dump() << "\n";
          }
          add(ranked, us);
          acc[m].context_tokens += static_cast<double>(res->context_tokens);
          if (!res->route.empty()) ++acc[m].routes[res->route + "/" + res->uncertainty];
        }
      }
      (void)mem.Forget(key);  // keep the bench's memory flat across samples
    }
    if (config.progress) fmt::print(stderr, "\n");

    json dj{{"path", path}, {"questions", questions}, {"skipped_evidence", skipped_evidence},
            {"turns", turns_total}, {"methods", json::object()}};
    if (ds.history_scale > 0) dj["history_scale"] = ds.history_scale;
    std::string graph_line;
    if (needs_graph && !ds.samples.empty()) {
      const double users = static_cast<double>(ds.samples.size());
      const double coverage = gold_turns ? static_cast<double>(gold_covered) / static_cast<double>(gold_turns) : 0;
      const double on_gold =
          promoted_judged ? static_cast<double>(promoted_on_gold) / static_cast<double>(promoted_judged) : 0;
      dj["graph"] = {{"bytes_per_user", graph_bytes / users}, {"current_edges_per_user", graph_edges / users},
                     {"promoted_edges_per_user", static_cast<double>(promoted_judged) / users},
                     {"gold_turn_coverage", coverage}, {"promoted_on_gold_share", on_gold},
                     {"promoted_edges", promoted_judged}, {"promoted_touching_gold", promoted_touching_gold}};
      graph_line = fmt::format(
          "graph per user: {:.0f} bytes, {:.1f} current edges, {:.2f} promoted; gold turns with an edge "
          "{:.3f}; promoted edges resting only on gold turns {}/{} (touching gold {})\n",
          graph_bytes / users, graph_edges / users, static_cast<double>(promoted_judged) / users, coverage, promoted_on_gold,
          promoted_judged, promoted_touching_gold);
      if (!config.fact_verifier.base_url.empty()) {
        const FactVerifierStats fv = mem.GetFactVerifierStats();
        dj["graph"]["fact_verifier"] = {{"requests", fv.requests}, {"failures", fv.failures}};
        graph_line += fmt::format("fact verifier {}: {} requests, {} failed (the rules' verdict kept)\n",
                                  config.fact_verifier.base_url, fv.requests, fv.failures);
      }
    }
    const double ingest_per_turn = turns_total ? ingest_us_total / static_cast<double>(turns_total) : 0;
    const double ingest_cpu_per_turn = turns_total ? ingest_cpu_us_total / static_cast<double>(turns_total) : 0;
    table << fmt::format("\n{}  ({} questions, {} turns, {} evidence ids skipped)\n", path,
                         questions, turns_total, skipped_evidence);
    // Wall time includes waiting for the durable commit; CPU time is what a core spends.
    table << fmt::format("ingest per turn: {:.1f} us wall, {:.1f} us CPU\n", ingest_per_turn, ingest_cpu_per_turn);
    table << graph_line;
    table << fmt::format("{:<16} {:>8} {:>8} {:>8} {:>9} {:>9} {:>10} {:>8}\n", "method",
                         fmt::format("R@{}", k), fmt::format("nDCG@{}", k), "EvP", "p50 us",
                         "p95 us", "ingest us", "ctx tok");
    for (size_t m = 0; m < setups.size(); ++m) {
      const MethodAcc& a = acc[m];
      json mj = a.all.ToJson();
      mj.erase("n");
      mj["latency_us"] = {{"p50", Percentile(a.latency_us, 0.5)}, {"p95", Percentile(a.latency_us, 0.95)}};
      mj["ingest_us_per_turn"] = ingest_per_turn;
      mj["ingest_cpu_us_per_turn"] = ingest_cpu_per_turn;
      mj["context_tokens"] = questions ? a.context_tokens / static_cast<double>(questions) : 0;
      json sj = json::object();
      for (const auto& [name, sl] : a.slices) sj[name] = sl.ToJson();
      mj["slices"] = sj;
      if (!a.routes.empty()) mj["routes"] = a.routes;
      dj["methods"][config.methods[m]] = mj;
      table << fmt::format("{:<16} {:>8.4f} {:>8.4f} {:>8.4f} {:>9.1f} {:>9.1f} {:>10.1f} {:>8.1f}\n",
                           config.methods[m], mj["recall"].get<double>(), mj["ndcg"].get<double>(),
                           mj["evidence_precision"].get<double>(), mj["latency_us"]["p50"].get<double>(),
                           mj["latency_us"]["p95"].get<double>(), ingest_per_turn,
                           mj["context_tokens"].get<double>());
    }
    // Per-slice recall, one row per slice, methods as columns.
    std::set<std::string> slice_names;
    for (const auto& a : acc) for (const auto& [n, _] : a.slices) slice_names.insert(n);
    if (!slice_names.empty()) {
      table << fmt::format("{:<24} {:>6}", "slice (R@k)", "n");
      for (const auto& m : config.methods) table << fmt::format(" {:>16}", m);
      table << "\n";
      for (const auto& sn : slice_names) {
        size_t n = 0;
        for (const auto& a : acc) if (auto it = a.slices.find(sn); it != a.slices.end()) n = it->second.n;
        table << fmt::format("{:<24} {:>6}", sn, n);
        for (const auto& a : acc) {
          auto it = a.slices.find(sn);
          table << fmt::format(" {:>16.4f}", it == a.slices.end() || it->second.n == 0 ? 0.0 : it->second.recall / static_cast<double>(it->second.n));
        }
        table << "\n";
      }
    }
    (*result)["datasets"].push_back(dj);
  }
  return Status::Ok();
}

}  // namespace ontomem
