// The order a user's assertions are applied to the graph in: their times, ties in arrival order.
// A turn that arrives late (a history imported after newer turns) then takes its place in the
// timeline instead of overriding what was said after it ("I used to love yoga" stays the last
// word on yoga however the two turns arrived).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "graph/memory_graph.h"

namespace ontomem {

class TimeOrder {
 public:
  // The latest time placed so far.
  int64_t clock() const { return clock_; }

  // Places `times` (in arrival order) after everything placed so far. An assertion without a
  // time (0) takes the latest time before it in arrival order. Returns the order to apply them
  // in (indices into `times`); *after_all is false when one goes before an earlier placed one
  // (the graph must then be replayed whole, from every assertion in a fresh TimeOrder).
  // *at (optional): the time each one takes.
  std::vector<size_t> Place(const std::vector<int64_t>& times, bool* after_all,
                            std::vector<int64_t>* at = nullptr);

 private:
  int64_t clock_ = 0;
};

// An assertion with the session and text of the turn it was read from (empty for a fact).
struct SourcedAssertion {
  const Assertion* a;
  const std::string* session;
  const std::string* text;
};

// Applies `items` (in arrival order) to *graph in time order, placing them after what `order`
// placed before; one without a time is applied at the time it takes (so its edges start, and
// end others, where it stands in the timeline, not at 0). Returns TimeOrder::Place's
// after_all; when false nothing was applied and the graph must be replayed whole.
bool ApplyInTimeOrder(const std::vector<SourcedAssertion>& items, const GraphPolicy& policy, TimeOrder* order,
                      MemoryGraph* graph, std::set<std::string>* dirty);

}  // namespace ontomem
