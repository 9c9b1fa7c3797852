#include "retrieve/profile.h"

#include <algorithm>
#include <cmath>

namespace ontomem {

float RetrievalProfile::Score(const std::string& turn_id, const std::string& relation) const {
  float t = 0, r = 0;
  if (auto it = turn_credit_.find(turn_id); it != turn_credit_.end()) t = std::tanh(it->second);
  if (!relation.empty())
    if (auto it = relation_credit_.find(relation); it != relation_credit_.end()) r = std::tanh(it->second);
  return config_.turn_share * t + (1 - config_.turn_share) * r;
}

void RetrievalProfile::Decay() {
  for (auto& [_, c] : turn_credit_) c *= config_.decay;
  for (auto& [_, c] : relation_credit_) c *= config_.decay;
}

void RetrievalProfile::Credit(const std::string& turn_id, float amount,
                              const std::vector<std::string>& relations) {
  turn_credit_[turn_id] += amount;
  // A relation's credit moves less than a turn's: one turn says little about all such edges.
  for (const auto& r : relations) relation_credit_[r] += 0.5f * amount;
}

void RetrievalProfile::Cap() {
  if (turn_credit_.size() <= config_.max_turns) return;
  std::vector<std::pair<float, std::string>> by_weight;
  by_weight.reserve(turn_credit_.size());
  for (const auto& [id, c] : turn_credit_) by_weight.emplace_back(std::abs(c), id);
  const size_t drop = turn_credit_.size() - config_.max_turns;
  std::nth_element(by_weight.begin(), by_weight.begin() + static_cast<long>(drop), by_weight.end());
  for (size_t i = 0; i < drop; ++i) turn_credit_.erase(by_weight[i].second);
}

size_t RetrievalProfile::MemoryBytes() const {
  size_t b = sizeof(*this);
  for (const auto& [id, _] : turn_credit_) b += id.capacity() + sizeof(float) + 32;
  for (const auto& [r, _] : relation_credit_) b += r.capacity() + sizeof(float) + 32;
  return b;
}

}  // namespace ontomem
