// A scripted stand-in for the trained extractor in engine tests: "I love X" -> speaker LIKES X
// and, if asked, "I hate X" -> DISLIKES X and "I live with my X" -> HAS_RELATIVE X, where X is
// the rest of the turn. Deterministic and
// free of models, so the tests check the engine and not extraction quality.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/fact_extractor.h"

namespace ontomem::testing {

struct FakeExtractorOptions {
  std::string tail_type = "thing";  // Assertion::tail_type of every assertion
  std::string domain;               // Assertion::domain
  float confidence = 0.9f;
  bool dislikes = false;            // also read "I hate X"
  bool relatives = false;           // also read "I live with my X"
  // Turns containing this word get confidence 0.3 (under the graph threshold); "" = none.
  std::string low_confidence_word;
};

class FakeExtractor : public FactExtractor {
 public:
  explicit FakeExtractor(FakeExtractorOptions o = {}) : o_(std::move(o)) {}

  std::vector<Assertion> Extract(const Turn& turn, int64_t) const override {
    std::vector<Assertion> out;
    const std::pair<const char*, const char*> cues[] = {
        {"I love ", "LIKES"}, {"I hate ", "DISLIKES"}, {"I live with my ", "HAS_RELATIVE"}};
    for (const auto& [cue, rel] : cues) {
      if (std::string(rel) == "DISLIKES" && !o_.dislikes) continue;
      if (std::string(rel) == "HAS_RELATIVE" && !o_.relatives) continue;
      const auto pos = turn.text.find(cue);
      if (pos == std::string::npos) continue;
      Assertion a;
      a.head = turn.speaker;
      a.relation = rel;
      a.tail_begin = static_cast<int32_t>(pos + std::string(cue).size());
      a.tail_end = static_cast<int32_t>(turn.text.size());
      a.tail = turn.text.substr(static_cast<size_t>(a.tail_begin));
      a.tail_type = o_.tail_type;
      a.domain = o_.domain;
      a.time_ms = turn.time_ms;
      a.source_turn = turn.id;
      a.confidence = !o_.low_confidence_word.empty() && turn.text.find(o_.low_confidence_word) != std::string::npos
                         ? 0.3f
                         : o_.confidence;
      out.push_back(std::move(a));
    }
    return out;
  }

 private:
  FakeExtractorOptions o_;
};

}  // namespace ontomem::testing
