#include "graph/time_order.h"

#include <algorithm>
#include <numeric>

namespace ontomem {

std::vector<size_t> TimeOrder::Place(const std::vector<int64_t>& times, bool* after_all,
                                     std::vector<int64_t>* at_out) {
  const int64_t before = clock_;
  std::vector<int64_t> at(times.size());
  *after_all = true;
  for (size_t i = 0; i < times.size(); ++i) {
    at[i] = times[i] > 0 ? times[i] : clock_;
    *after_all &= at[i] >= before;
    clock_ = std::max(clock_, at[i]);
  }
  std::vector<size_t> order(times.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return at[a] < at[b]; });
  if (at_out != nullptr) *at_out = std::move(at);
  return order;
}

bool ApplyInTimeOrder(const std::vector<SourcedAssertion>& items, const GraphPolicy& policy, TimeOrder* order,
                      MemoryGraph* graph, std::set<std::string>* dirty) {
  std::vector<int64_t> times;
  times.reserve(items.size());
  for (const SourcedAssertion& x : items) times.push_back(x.a->time_ms);
  bool after_all = true;
  std::vector<int64_t> at;
  const std::vector<size_t> in_order = order->Place(times, &after_all, &at);
  if (!after_all) return false;
  Assertion placed;  // a time-less one, at the time it takes
  for (size_t i : in_order) {
    const Assertion* a = items[i].a;
    if (a->time_ms == 0 && at[i] != 0) {
      placed = *a;
      placed.time_ms = at[i];
      a = &placed;
    }
    graph->Apply(*a, *items[i].session, *items[i].text, policy, dirty);
  }
  return true;
}

}  // namespace ontomem
