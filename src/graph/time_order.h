// The order a user's assertions are applied to the graph in: their times, ties in arrival order.
// A turn that arrives late (a history imported after newer turns) then takes its place in the
// timeline instead of overriding what was said after it ("I used to love yoga" stays the last
// word on yoga however the two turns arrived).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ontomem {

class TimeOrder {
 public:
  // The latest time placed so far.
  int64_t clock() const { return clock_; }

  // Places `times` (in arrival order) after everything placed so far. An assertion without a
  // time (0) takes the latest time before it in arrival order. Returns the order to apply them
  // in (indices into `times`); *after_all is false when one goes before an earlier placed one
  // (the graph must then be replayed whole, from every assertion in a fresh TimeOrder).
  std::vector<size_t> Place(const std::vector<int64_t>& times, bool* after_all);

 private:
  int64_t clock_ = 0;
};

}  // namespace ontomem
