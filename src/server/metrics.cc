#include "server/metrics.h"

#include <fmt/format.h>

#include "ontomem/memory.h"

namespace ontomem::server {

Metrics::Metrics(std::vector<RouteLabel> routes) : routes_(std::move(routes)) {
  routes_.push_back({"", "unmatched"});
  per_route_ = std::make_unique<PerRoute[]>(routes_.size());
}

void Metrics::Observe(size_t route, int status, double seconds) {
  if (route >= routes_.size()) route = unmatched();
  PerRoute& r = per_route_[route];
  if (status >= 100 && status < 600) r.by_code[static_cast<size_t>(status - 100)].fetch_add(1, std::memory_order_relaxed);
  size_t b = 0;
  while (b < kBuckets.size() && seconds > kBuckets[b]) ++b;
  r.buckets[b].fetch_add(1, std::memory_order_relaxed);
  r.sum_us.fetch_add(static_cast<uint64_t>(seconds * 1e6), std::memory_order_relaxed);
  r.count.fetch_add(1, std::memory_order_relaxed);
}

std::string Metrics::Render(const Memory* memory) const {
  std::string out;
  out += "# HELP ontomem_http_requests_total HTTP requests by route, method and status code.\n";
  out += "# TYPE ontomem_http_requests_total counter\n";
  for (size_t i = 0; i < routes_.size(); ++i)
    for (size_t c = 0; c < 500; ++c)
      if (uint64_t n = per_route_[i].by_code[c].load(std::memory_order_relaxed))
        out += fmt::format("ontomem_http_requests_total{{route=\"{}\",method=\"{}\",code=\"{}\"}} {}\n",
                           routes_[i].route, routes_[i].method, c + 100, n);
  out += "# HELP ontomem_http_request_duration_seconds Time from routing to response, by route.\n";
  out += "# TYPE ontomem_http_request_duration_seconds histogram\n";
  for (size_t i = 0; i < routes_.size(); ++i) {
    const PerRoute& r = per_route_[i];
    const uint64_t count = r.count.load(std::memory_order_relaxed);
    if (count == 0) continue;
    const std::string labels = fmt::format("route=\"{}\",method=\"{}\"", routes_[i].route, routes_[i].method);
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= kBuckets.size(); ++b) {
      cumulative += r.buckets[b].load(std::memory_order_relaxed);
      const std::string le = b < kBuckets.size() ? fmt::format("{}", kBuckets[b]) : "+Inf";
      out += fmt::format("ontomem_http_request_duration_seconds_bucket{{{},le=\"{}\"}} {}\n", labels, le, cumulative);
    }
    out += fmt::format("ontomem_http_request_duration_seconds_sum{{{}}} {}\n", labels,
                       static_cast<double>(r.sum_us.load(std::memory_order_relaxed)) / 1e6);
    out += fmt::format("ontomem_http_request_duration_seconds_count{{{}}} {}\n", labels, cumulative);
  }
  out += "# HELP ontomem_ingested_turns_total Turns stored through the API (duplicates excluded).\n";
  out += "# TYPE ontomem_ingested_turns_total counter\n";
  out += fmt::format("ontomem_ingested_turns_total {}\n", ingested_.load(std::memory_order_relaxed));
  out += "# HELP ontomem_searches_total Searches answered.\n";
  out += "# TYPE ontomem_searches_total counter\n";
  out += fmt::format("ontomem_searches_total {}\n", searches_.load(std::memory_order_relaxed));
  out += "# HELP ontomem_inflight_requests Requests being handled now.\n";
  out += "# TYPE ontomem_inflight_requests gauge\n";
  out += fmt::format("ontomem_inflight_requests {}\n", inflight.load(std::memory_order_relaxed));
  out += "# HELP ontomem_queued_connections Accepted connections waiting for a worker thread.\n";
  out += "# TYPE ontomem_queued_connections gauge\n";
  out += fmt::format("ontomem_queued_connections {}\n", queued.load(std::memory_order_relaxed));
  if (memory) {
    out += "# HELP ontomem_loaded_users Users held in memory.\n";
    out += "# TYPE ontomem_loaded_users gauge\n";
    out += fmt::format("ontomem_loaded_users {}\n", memory->LoadedUsers());
    out += "# HELP ontomem_memory_bytes Approximate bytes held by loaded users.\n";
    out += "# TYPE ontomem_memory_bytes gauge\n";
    out += fmt::format("ontomem_memory_bytes {}\n", memory->MemoryUsage());
    const CacheStats cs = memory->GetCacheStats();
    out += "# HELP ontomem_user_cache_total Lookups of the in-memory user cache by result.\n";
    out += "# TYPE ontomem_user_cache_total counter\n";
    out += fmt::format("ontomem_user_cache_total{{result=\"hit\"}} {}\n", cs.hits);
    out += fmt::format("ontomem_user_cache_total{{result=\"miss\"}} {}\n", cs.misses);
    out += "# HELP ontomem_user_cache_evictions_total Users dropped from memory to stay within the budget.\n";
    out += "# TYPE ontomem_user_cache_evictions_total counter\n";
    out += fmt::format("ontomem_user_cache_evictions_total {}\n", cs.evictions);
    out += "# HELP ontomem_user_private_copies_total Searches that loaded a whole user for themselves (another "
           "process wrote while a write of this one held the user).\n";
    out += "# TYPE ontomem_user_private_copies_total counter\n";
    out += fmt::format("ontomem_user_private_copies_total {}\n", cs.private_copies);
    const FactVerifierStats fv = memory->GetFactVerifierStats();
    out += "# HELP ontomem_fact_verifier_requests_total Requests to the fact verifier endpoint by result "
           "(failed: the rules' verdict was kept).\n";
    out += "# TYPE ontomem_fact_verifier_requests_total counter\n";
    out += fmt::format("ontomem_fact_verifier_requests_total{{result=\"ok\"}} {}\n", fv.requests - fv.failures);
    out += fmt::format("ontomem_fact_verifier_requests_total{{result=\"failed\"}} {}\n", fv.failures);
  }
  return out;
}

}  // namespace ontomem::server
