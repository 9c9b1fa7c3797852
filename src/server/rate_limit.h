// Per-tenant admission: a token-bucket rate limit and a storage quota. Both answer 429 with a
// Retry-After when they refuse.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem::server {

// Each tenant has a bucket of `burst` tokens refilled at `rate_per_sec`; a request takes one.
// rate_per_sec <= 0 disables the limit. Thread-safe (sharded locks).
class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  RateLimiter(double rate_per_sec, double burst);

  // 0 if the request may proceed (a token was taken), else whole seconds until one is
  // available (at least 1).
  int64_t Acquire(const std::string& tenant) { return Acquire(tenant, Clock::now()); }
  int64_t Acquire(const std::string& tenant, Clock::time_point now);

 private:
  struct Bucket {
    double tokens;
    Clock::time_point last;
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<std::string, Bucket> buckets;
  };
  static constexpr size_t kShards = 16;
  double rate_, burst_;
  Shard shards_[kShards];
};

// Storage quota per tenant: at most max_turns turns and max_bytes bytes of turn text (0 =
// unlimited). The tenant's usage is read once from Memory::GetTenantStats and then kept up to
// date by the server; while the engine cannot tell (an error), the quota is not enforced.
class QuotaTracker {
 public:
  QuotaTracker(int64_t max_turns, int64_t max_bytes) : max_turns_(max_turns), max_bytes_(max_bytes) {}
  bool enabled() const { return max_turns_ > 0 || max_bytes_ > 0; }

  // Reserves room for a batch of `turns` turns and `bytes` bytes of text: OK, or
  // ResourceExhausted naming the quota. `stats` reads the tenant's stored size.
  Status Reserve(const std::string& tenant, int64_t turns, int64_t bytes,
                 const std::function<StatusOr<TenantStats>()>& stats);
  // Ends a reservation; `stored_*` is what the ingest actually added (0 if it failed).
  void Release(const std::string& tenant, int64_t turns, int64_t bytes, int64_t stored_turns,
               int64_t stored_bytes);
  // Usage changed outside ingest (a user was deleted): re-read it next time.
  void Invalidate(const std::string& tenant);

 private:
  struct Usage {
    int64_t turns = 0, bytes = 0;  // stored
    int64_t reserved_turns = 0, reserved_bytes = 0;  // in flight
    bool stale = false;  // re-read once nothing is in flight
  };
  int64_t max_turns_, max_bytes_;
  std::mutex mu_;
  std::unordered_map<std::string, Usage> usage_;
};

}  // namespace ontomem::server
