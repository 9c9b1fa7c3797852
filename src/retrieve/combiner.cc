#include "retrieve/combiner.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "extract/extractor.h"

namespace ontomem {

// The order is the model's input layout: changing it needs a retrained combiner (LoadCombiner
// refuses a model of another width).
const std::array<const char*, kCombinerFeatures> kCombinerFeatureNames = {
    "graph_rank",     "graph_has",      "graph_score",    "graph_domain",   "graph_tail_sim",
    "graph_turn_sim", "graph_weight",   "rel_likes",      "rel_dislikes",   "rel_constraint",
    "rel_habit",      "rel_uses",       "rel_other",      "graph_promoted", "graph_hop",
    "fused_rank",     "fused_z",        "dense_rank",     "dense_z",        "lexical_rank",
    "lexical_z",      "query_max_lexical_z", "query_domain_conf", "query_graph_candidates",
    "in_time_window", "speaker_is_asker", "position",     "profile", "graph_domain_known",
    "rewrite_rank",   "rewrite_z",      "projected_rank", "projected_z",
    "lexical_own_z",  "lexical_prev_z", "lexical_next_z", "dense_own_z",   "dense_prev_z",
    "dense_next_z",   "speaker_named",  "query_names_speaker", "turn_length", "query_length",
    "lexical_bare_z", "dense_bare_z",  "query_max_lexical_bare_z", "query_word_rarity", "matched_word_rarity",
    "turn_routine",   "query_time_span"};

void DropGraphEvidence(CombinerFeatures* x) {
  // graph_rank .. graph_hop, and graph_domain_known.
  for (size_t f = 0; f <= 14; ++f) (*x)[f] = 0.0f;
  (*x)[28] = 0.0f;
}

namespace {

// The file named by $env, else the default path; "" when the variable says "none" or the
// default file does not exist (the model is optional; a named file must load).
std::string ModelPath(const char* env, const std::string& default_path, bool* from_env) {
  const char* v = std::getenv(env);
  *from_env = v && *v;
  const std::string path = *from_env ? v : default_path;
  std::error_code ec;
  if (path == "none" || (!*from_env && !std::filesystem::exists(path, ec))) return "";
  return path;
}

// <models_dir>/retrieval/<file> ("" = the extractor's default models directory).
std::string RetrievalModelPath(const std::string& models_dir, const char* file) {
  return (models_dir.empty() ? extract::DefaultModelsDir() : models_dir) + "/retrieval/" + file;
}

// A combiner named by $env or at its default path; null when there is none.
StatusOr<std::shared_ptr<const learn::Mlp>> LoadCombinerFrom(const char* env, const std::string& default_path) {
  bool from_env = false;
  const std::string path = ModelPath(env, default_path, &from_env);
  if (path.empty()) return std::shared_ptr<const learn::Mlp>();
  return LoadCombiner(path, env);
}

}  // namespace

Status SaveRetrievalModel(const learn::Mlp& m, const std::string& path) {
  std::error_code ec;
  if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);
  return m.Save(path);
}

std::string DefaultCombinerPath(const std::string& models_dir) { return RetrievalModelPath(models_dir, "combiner.bin"); }

StatusOr<std::shared_ptr<const learn::Mlp>> LoadCombiner(const std::string& path, std::string_view env) {
  auto m = learn::Mlp::Load(path);
  if (!m.ok())
    return m.status().WithContext(
        fmt::format("combiner (rebuild it with `ontomem train combiner`, or set {}=none)", env));
  if (m->inputs() != static_cast<int>(kCombinerFeatures) || m->outputs() != 1 ||
      m->output_activation() != learn::OutputActivation::kSigmoid)
    return Status::InvalidArgument(fmt::format(
        "{}: combiner has {} inputs and {} outputs, this build computes {} features and one score (retrain it "
        "with `ontomem train combiner`)",
        path, m->inputs(), m->outputs(), kCombinerFeatures));
  return std::shared_ptr<const learn::Mlp>(std::make_shared<learn::Mlp>(std::move(*m)));
}

StatusOr<std::shared_ptr<const learn::Mlp>> LoadDefaultCombiner(const std::string& models_dir) {
  return LoadCombinerFrom("ONTOMEM_COMBINER", DefaultCombinerPath(models_dir));
}

std::string DefaultDenseCombinerPath(const std::string& models_dir) {
  return RetrievalModelPath(models_dir, "combiner_dense.bin");
}

StatusOr<std::shared_ptr<const learn::Mlp>> LoadDefaultDenseCombiner(const std::string& models_dir) {
  return LoadCombinerFrom("ONTOMEM_DENSE_COMBINER", DefaultDenseCombinerPath(models_dir));
}

std::string DefaultProjectionPath(const std::string& models_dir) { return RetrievalModelPath(models_dir, "projection.bin"); }

StatusOr<std::shared_ptr<const learn::Mlp>> LoadProjection(const std::string& path, int dim) {
  auto m = learn::Mlp::Load(path);
  if (!m.ok())
    return m.status().WithContext("dense projection (rebuild it with `ontomem train projection`, or set ONTOMEM_PROJECTION=none)");
  if (m->sizes() != std::vector<int>{dim, dim} || m->output_activation() != learn::OutputActivation::kLinear)
    return Status::InvalidArgument(fmt::format(
        "{}: not a linear map of dimension {} (the embedder's); retrain it with `ontomem train projection`", path, dim));
  return std::shared_ptr<const learn::Mlp>(std::make_shared<learn::Mlp>(std::move(*m)));
}

StatusOr<std::shared_ptr<const learn::Mlp>> LoadDefaultProjection(const std::string& models_dir, int dim) {
  bool from_env = false;
  const std::string path = ModelPath("ONTOMEM_PROJECTION", DefaultProjectionPath(models_dir), &from_env);
  if (path.empty()) return std::shared_ptr<const learn::Mlp>();
  auto p = LoadProjection(path, dim);
  // The shipped map is for the GloVe-SIF lexicon's 100 dimensions; another embedder simply
  // goes without it. A file named in the environment must fit.
  if (!p.ok() && !from_env && p.status().code() == StatusCode::kInvalidArgument) return std::shared_ptr<const learn::Mlp>();
  return p;
}

}  // namespace ontomem
