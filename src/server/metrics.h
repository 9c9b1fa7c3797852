// Prometheus metrics of the HTTP server. Counters are lock-free atomics indexed by route and
// status code, so recording a request never takes a lock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ontomem {
class Memory;
}

namespace ontomem::server {

class Metrics {
 public:
  // One label pair per route (method, path pattern); requests that match no route are counted
  // under the extra route "unmatched".
  struct RouteLabel {
    std::string method, route;
  };
  explicit Metrics(std::vector<RouteLabel> routes);

  size_t unmatched() const { return routes_.size() - 1; }
  void Observe(size_t route, int status, double seconds);
  void AddIngested(int64_t turns) { ingested_.fetch_add(turns, std::memory_order_relaxed); }
  void AddSearch() { searches_.fetch_add(1, std::memory_order_relaxed); }

  // Requests being handled, and accepted connections waiting for a worker thread.
  std::atomic<int64_t> inflight{0};
  std::atomic<int64_t> queued{0};

  // The text exposition format (version 0.0.4). `memory` (may be null) adds the engine gauges.
  std::string Render(const Memory* memory) const;

  static constexpr std::array<double, 14> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                      0.1,    0.25,  0.5,    1,     2.5,  5,     10};

 private:
  struct PerRoute {
    std::array<std::atomic<uint64_t>, 500> by_code{};  // status 100..599
    std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets{};  // last = +Inf
    std::atomic<uint64_t> sum_us{0}, count{0};
  };
  std::vector<RouteLabel> routes_;
  std::unique_ptr<PerRoute[]> per_route_;
  std::atomic<int64_t> ingested_{0}, searches_{0};
};

}  // namespace ontomem::server
