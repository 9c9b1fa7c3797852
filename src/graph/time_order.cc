#include "graph/time_order.h"

#include <algorithm>
#include <numeric>

namespace ontomem {

std::vector<size_t> TimeOrder::Place(const std::vector<int64_t>& times, bool* after_all) {
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
  return order;
}

bool ApplyInTimeOrder(const std::vector<SourcedAssertion>& items, const GraphPolicy& policy, TimeOrder* order,
                      MemoryGraph* graph, std::set<std::string>* dirty) {
  std::vector<int64_t> times;
  times.reserve(items.size());
  for (const SourcedAssertion& x : items) times.push_back(x.a->time_ms);
  bool after_all = true;
  const std::vector<size_t> in_order = order->Place(times, &after_all);
  if (after_all)
    for (size_t i : in_order) graph->Apply(*items[i].a, *items[i].session, *items[i].text, policy, dirty);
  return after_all;
}

}  // namespace ontomem
