#include "graph/promotion_gate.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "extract/extractor.h"

namespace ontomem {
namespace {

thread_local PromotionTrace* g_trace = nullptr;

Status Damaged(const std::string& path, const std::string& what) {
  return Status::InvalidArgument(fmt::format(
      "{}: {} (rebuild it with `ontomem train promotion`, or delete it to use the hand-set gate)", path, what));
}

}  // namespace

const std::array<const char*, kPromotionSignals> kPromotionSignalNames = {
    "bias", "log1p_support", "recency_support", "sessions_minus_1", "lift_score", "log1p_entities", "edge_weight",
    "top_concept_share"};

double PromotionScore(const std::vector<float>& weights, const PromotionSignals& x) {
  double z = 0;
  for (size_t i = 0; i < kPromotionSignals && i < weights.size(); ++i) z += weights[i] * x[i];
  return 1.0 / (1.0 + std::exp(-z));
}

StatusOr<PromotionGate> LoadPromotionGate(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Damaged(path, "not a JSON object");
  if (doc.value("format", "") != "ontomem-promotion-gate") return Damaged(path, "\"format\" is not \"ontomem-promotion-gate\"");
  if (doc.value("version", 0) != 1) return Damaged(path, "unsupported version (this build reads 1)");
  PromotionGate g;
  const auto w = doc.find("weights");
  if (w == doc.end() || !w->is_object()) return Damaged(path, "\"weights\" is missing or not an object");
  for (const char* name : kPromotionSignalNames) {
    auto it = w->find(name);
    if (it == w->end() || !it->is_number() || !std::isfinite(it->get<double>()))
      return Damaged(path, fmt::format("weight \"{}\" is missing or not a finite number", name));
    g.weights.push_back(it->get<float>());
  }
  if (w->size() != kPromotionSignals) return Damaged(path, "\"weights\" has signals this build does not compute");
  const auto tau = doc.find("tau");
  if (tau == doc.end() || !tau->is_number() || !(tau->get<double>() > 0 && tau->get<double>() < 1))
    return Damaged(path, "\"tau\" is missing or not in (0, 1)");
  g.tau = tau->get<float>();
  const auto ms = doc.find("min_sessions");
  if (ms == doc.end() || !ms->is_number_integer() || ms->get<int>() < 1)
    return Damaged(path, "\"min_sessions\" is missing or not an integer >= 1");
  g.min_sessions = ms->get<int>();
  return g;
}

Status SavePromotionGate(const PromotionGate& gate, const std::string& about, const std::string& path) {
  if (gate.weights.size() != kPromotionSignals)
    return Status::InvalidArgument(fmt::format("promotion gate: {} weights, expected {}", gate.weights.size(), kPromotionSignals));
  // Fixed decimals: the file is byte-identical on a rerun and diffs stay readable.
  std::string weights;
  for (size_t i = 0; i < kPromotionSignals; ++i)
    weights += fmt::format("{}    \"{}\": {:.6f}", i ? ",\n" : "", kPromotionSignalNames[i], gate.weights[i]);
  const std::string text = fmt::format(
      "{{\n  \"format\": \"ontomem-promotion-gate\",\n  \"version\": 1,\n  \"about\": {},\n"
      "  \"weights\": {{\n{}\n  }},\n  \"tau\": {:.2f},\n  \"min_sessions\": {}\n}}\n",
      nlohmann::json(about).dump(), weights, gate.tau, gate.min_sessions);
  std::error_code ec;
  if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);
  return WriteFileAtomic(path, text);
}

std::string DefaultPromotionGatePath(const std::string& models_dir) {
  return (models_dir.empty() ? extract::DefaultModelsDir() : models_dir) + "/promotion/gate.json";
}

void ApplyPromotionGate(const PromotionGate& gate, GraphPolicy* policy) {
  policy->promotion_weights = gate.weights;
  policy->promotion_tau = gate.tau;
  policy->min_sessions = gate.min_sessions;
}

StatusOr<bool> LoadDefaultPromotionGate(const std::string& models_dir, GraphPolicy* policy) {
  const char* env = std::getenv("ONTOMEM_PROMOTION_GATE");
  const bool from_env = env && *env;
  const std::string path = from_env ? env : DefaultPromotionGatePath(models_dir);
  if (path == "none") return false;
  std::error_code ec;
  if (!from_env && !std::filesystem::exists(path, ec)) return false;
  auto gate = LoadPromotionGate(path);
  if (!gate.ok())
    return gate.status().WithContext(
        fmt::format("promotion gate{} (rebuild it with `ontomem train promotion`, or set ONTOMEM_PROMOTION_GATE=none)",
                    from_env ? " named by ONTOMEM_PROMOTION_GATE" : ""));
  ApplyPromotionGate(*gate, policy);
  return true;
}

PromotionTrace::PromotionTrace(std::function<void(const PromotionCandidate&)> fn)
    : fn_(std::move(fn)), previous_(g_trace) {
  g_trace = this;
}
PromotionTrace::~PromotionTrace() { g_trace = previous_; }
bool PromotionTrace::active() { return g_trace != nullptr; }
void PromotionTrace::Report(const PromotionCandidate& c) {
  if (g_trace) g_trace->fn_(c);
}

}  // namespace ontomem
