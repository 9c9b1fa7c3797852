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

}  // namespace ontomem
