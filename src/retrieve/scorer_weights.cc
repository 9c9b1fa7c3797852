#include "retrieve/scorer_weights.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/file_util.h"

namespace ontomem {

StatusOr<ScorerWeights> LoadScorerWeights(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return Status::InvalidArgument(fmt::format("{}: not a JSON object", path));
  if (doc.value("format", "") != "ontomem-scorer")
    return Status::InvalidArgument(fmt::format("{}: \"format\" is not \"ontomem-scorer\"", path));
  if (doc.value("version", 0) != 1)
    return Status::FailedPrecondition(fmt::format("{}: unsupported version (this build reads 1)", path));
  ScorerWeights w;
  for (auto [name, field] : {std::pair<const char*, float*>{"w_graph", &w.w_graph}, {"w_dense", &w.w_dense},
                             {"w_profile", &w.w_profile}}) {
    auto it = doc.find(name);
    if (it == doc.end() || !it->is_number())
      return Status::InvalidArgument(fmt::format("{}: \"{}\" is missing or not a number", path, name));
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0 || v > 1)
      return Status::InvalidArgument(fmt::format("{}: \"{}\" is {}, expected 0..1", path, name, v));
    *field = static_cast<float>(v);
  }
  if (w.w_graph + w.w_dense + w.w_profile <= 0)
    return Status::InvalidArgument(fmt::format("{}: the weights are all zero", path));
  return w;
}

Status SaveScorerWeights(const std::string& path, const ScorerWeights& w, const std::string& fitted_json) {
  auto round4 = [](float v) { return std::round(static_cast<double>(v) * 1e4) / 1e4; };
  nlohmann::json doc{{"format", "ontomem-scorer"}, {"version", 1}, {"w_graph", round4(w.w_graph)},
                     {"w_dense", round4(w.w_dense)}, {"w_profile", round4(w.w_profile)}};
  if (!fitted_json.empty()) doc["fitted"] = nlohmann::json::parse(fitted_json, nullptr, false);
  return WriteFileAtomic(path, doc.dump(2) + "\n");
}

}  // namespace ontomem
