// What the engine needs from Step I: assertions of one turn. The trained extractor implements
// it; tests use fakes.
#pragma once

#include <cstdint>
#include <vector>

#include "extract/assertion.h"
#include "ontomem/types.h"

namespace ontomem {

class FactExtractor {
 public:
  virtual ~FactExtractor() = default;
  // Candidate assertions with confidence (the engine keeps those >= Options::fact_threshold).
  // Thread-safe.
  virtual std::vector<Assertion> Extract(const Turn& turn, int64_t seq) const = 0;
};

}  // namespace ontomem
