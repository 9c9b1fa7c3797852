#include "server/rate_limit.h"

#include <fmt/format.h>

#include <cmath>

namespace ontomem::server {

RateLimiter::RateLimiter(double rate_per_sec, double burst)
    : rate_(rate_per_sec), burst_(std::max(1.0, burst)) {}

int64_t RateLimiter::Acquire(const std::string& tenant, Clock::time_point now) {
  if (rate_ <= 0) return 0;
  Shard& shard = shards_[std::hash<std::string>{}(tenant) % kShards];
  std::lock_guard<std::mutex> lock(shard.mu);
  auto [it, fresh] = shard.buckets.try_emplace(tenant, Bucket{burst_, now});
  Bucket& b = it->second;
  if (!fresh) {
    const double elapsed = std::chrono::duration<double>(now - b.last).count();
    if (elapsed > 0) b.tokens = std::min(burst_, b.tokens + elapsed * rate_);
    b.last = std::max(b.last, now);
  }
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return 0;
  }
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil((1.0 - b.tokens) / rate_)));
}

Status QuotaTracker::Reserve(const std::string& tenant, int64_t turns, int64_t bytes,
                             const std::function<StatusOr<TenantStats>()>& stats) {
  if (!enabled()) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = usage_.find(tenant);
  if (it == usage_.end()) {
    // Read under the lock: concurrent first requests of a tenant must not double count.
    StatusOr<TenantStats> s = stats();
    if (!s.ok()) return Status::Ok();  // unknown usage: not enforced (retried next time)
    it = usage_.emplace(tenant, Usage{s->turns, s->text_bytes, 0, 0}).first;
  }
  Usage& u = it->second;
  if (max_turns_ > 0 && u.turns + u.reserved_turns + turns > max_turns_)
    return Status::ResourceExhausted(fmt::format(
        "storage quota: the tenant stores {} turns, this batch adds {}, the quota is {}", u.turns,
        turns, max_turns_));
  if (max_bytes_ > 0 && u.bytes + u.reserved_bytes + bytes > max_bytes_)
    return Status::ResourceExhausted(fmt::format(
        "storage quota: the tenant stores {} bytes of text, this batch adds {}, the quota is {}",
        u.bytes, bytes, max_bytes_));
  u.reserved_turns += turns;
  u.reserved_bytes += bytes;
  return Status::Ok();
}

void QuotaTracker::Release(const std::string& tenant, int64_t turns, int64_t bytes,
                           int64_t stored_turns, int64_t stored_bytes) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = usage_.find(tenant);
  if (it == usage_.end()) return;  // usage was unknown at Reserve, or invalidated since
  Usage& u = it->second;
  u.reserved_turns -= turns;
  u.reserved_bytes -= bytes;
  u.turns += stored_turns;
  u.bytes += stored_bytes;
  if (u.stale && u.reserved_turns == 0 && u.reserved_bytes == 0) usage_.erase(it);
}

void QuotaTracker::Invalidate(const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = usage_.find(tenant);
  if (it == usage_.end()) return;
  // In-flight reservations keep their entry; it is re-read once they are released.
  if (it->second.reserved_turns == 0 && it->second.reserved_bytes == 0) usage_.erase(it);
  else it->second.stale = true;
}

}  // namespace ontomem::server
