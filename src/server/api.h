// The handlers of the HTTP API, free of any HTTP library: each turns a Call (the tenant from
// the key, the decoded {user}, the body, the query string) into a Reply. They never throw.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ontomem/memory.h"
#include "server/api_json.h"
#include "server/metrics.h"
#include "server/rate_limit.h"

namespace ontomem::server {

// Everything `ontomem serve` can be told; every field states its default.
struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (HttpServer::port() tells which)
  Limits limits;
  double rate_per_sec = 1000;  // per tenant; 0 = unlimited
  double burst = 2000;         // token bucket size per tenant
  int64_t quota_turns = 0;     // stored turns per tenant; 0 = unlimited
  int64_t quota_bytes = 0;     // stored bytes of turn text per tenant; 0 = unlimited
  int read_timeout_sec = 10;   // reading a request (headers and body)
  int write_timeout_sec = 10;  // writing a response
  int keep_alive_timeout_sec = 5;
  int threads = 16;  // worker threads (one per connection being served)
  std::string keys_path;  // the key file, re-read when it changes (LiveKeys); empty: keys as given
};

struct Call {
  std::string tenant;     // from the API key; empty on routes without auth
  std::string user;       // the decoded {user} path parameter, if the route has one
  std::string_view body;  // request body
  const std::multimap<std::string, std::string>* params = nullptr;  // decoded query string
};

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
};

// {"error":{"code","message"}} with the status that goes with `code`.
Reply ErrorReply(int status, std::string_view code, std::string_view message);
// A non-OK Status as an HTTP error (InvalidArgument 400, NotFound 404, AlreadyExists 409,
// ResourceExhausted 413, FailedPrecondition and Unavailable 503, anything else 500 with a
// generic message; the detail goes to stderr).
Reply StatusReply(const Status& status);

class Api {
 public:
  Api(Memory* memory, const ServerOptions& options, Metrics* metrics);

  Reply PostTurns(const Call& call);
  Reply PostSearch(const Call& call);
  Reply PostFeedback(const Call& call);
  Reply PostFact(const Call& call);
  Reply ListUsers(const Call& call);
  Reply GetTurns(const Call& call);
  Reply GetGraph(const Call& call);
  Reply GetExport(const Call& call);
  Reply DeleteUser(const Call& call);
  Reply Healthz(const Call& call);
  Reply MetricsText(const Call& call);
  Reply OpenApi(const Call& call);
  Reply Inspector(const Call& call);

  RateLimiter& rate_limiter() { return rate_; }

 private:
  Memory* memory_;
  ServerOptions options_;
  Metrics* metrics_;
  RateLimiter rate_;
  QuotaTracker quota_;
  std::string openapi_;
};

}  // namespace ontomem::server
