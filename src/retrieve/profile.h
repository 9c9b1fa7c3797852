// The per-user profile cache behind s_profile in the unified score: what feedback said was
// useful recently. Turns cited and right (or needed but missing) gain credit, turns cited and
// wrong lose it; the relations of the edges those turns support gain or lose with them.
// Credits decay with every feedback so the profile follows the user's recent needs, and the
// number of remembered turns is capped so a profile stays near 50 KB.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "ontomem/types.h"

namespace ontomem {

struct ProfileConfig {
  float decay = 0.97f;          // every credit is multiplied by this per feedback record
  size_t max_turns = 1024;      // turns with the smallest |credit| are forgotten past this
  float turn_share = 0.7f;      // s_profile = turn_share * turn credit + rest * relation credit
};

class RetrievalProfile {
 public:
  explicit RetrievalProfile(ProfileConfig config = {}) : config_(config) {}

  // One feedback record; `relations_of(id)` names the relations of the current edges the turn
  // supports (empty when none).
  template <typename RelationsOf>
  void Record(const Feedback& f, RelationsOf relations_of) {
    Decay();
    for (const auto& id : f.used) Credit(id, +1.0f, relations_of(id));
    for (const auto& id : f.missed) Credit(id, +1.0f, relations_of(id));
    for (const auto& id : f.wrong) Credit(id, -1.0f, relations_of(id));
    ++records_;
    Cap();
  }

  bool empty() const { return records_ == 0; }
  size_t records() const { return records_; }
  // In [-1, 1]: the turn's own credit and that of `relation` (the edge that brought it; may be
  // empty), each squashed with tanh.
  float Score(const std::string& turn_id, const std::string& relation) const;
  size_t MemoryBytes() const;

 private:
  void Decay();
  void Credit(const std::string& turn_id, float amount, const std::vector<std::string>& relations);
  void Cap();

  ProfileConfig config_;
  std::unordered_map<std::string, float> turn_credit_;
  std::unordered_map<std::string, float> relation_credit_;
  size_t records_ = 0;
};

}  // namespace ontomem
