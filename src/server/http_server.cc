#include "server/http_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <system_error>
#include <thread>

#include "engine/validate.h"
#include "server/routes.h"
#include "text/text.h"

namespace ontomem::server {
namespace {

// Bodies of routes that take none are read (and ignored) up to this size.
constexpr size_t kIgnoredBodyBytes = 4096;
// An oversized chunked body is drained up to this much so the client can read the 413; past
// it the connection is dropped.
constexpr size_t kDrainBytes = 64 << 20;

// httplib's thread pool, counting connections that wait for a worker (the queue depth).
class CountingQueue : public httplib::TaskQueue {
 public:
  CountingQueue(size_t threads, std::atomic<int64_t>* queued) : pool_(threads), queued_(queued) {}
  void enqueue(std::function<void()> fn) override {
    queued_->fetch_add(1, std::memory_order_relaxed);
    pool_.enqueue([fn = std::move(fn), q = queued_] {
      q->fetch_sub(1, std::memory_order_relaxed);
      fn();
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  std::atomic<int64_t>* queued_;
};

std::vector<Metrics::RouteLabel> RouteLabels() {
  std::vector<Metrics::RouteLabel> out;
  for (const Route& r : RouteTable()) out.push_back({r.method, r.path});
  return out;
}

// "Bearer KEY" -> KEY (scheme case-insensitive); empty if absent or another scheme.
std::string_view BearerToken(std::string_view h) {
  while (!h.empty() && h.front() == ' ') h.remove_prefix(1);
  if (h.size() < 7) return {};
  for (size_t i = 0; i < 6; ++i)
    if (std::tolower(static_cast<unsigned char>(h[i])) != "bearer"[i]) return {};
  if (h[6] != ' ') return {};
  h.remove_prefix(7);
  while (!h.empty() && h.front() == ' ') h.remove_prefix(1);
  while (!h.empty() && (h.back() == ' ' || h.back() == '\t')) h.remove_suffix(1);
  return h;
}

}  // namespace

struct HttpServer::Impl {
  Impl(Memory* m, KeyStore k, ServerOptions o)
      : memory(m),
        keys(std::move(k), o.keys_path),  // before `options` takes o
        options(std::move(o)),
        metrics(RouteLabels()),
        api(m, options, &metrics) {}

  Reply Dispatch(const httplib::Request& req, const httplib::ContentReader* reader, size_t* route_index);
  void Handle(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader* reader);

  Memory* memory;
  LiveKeys keys;
  ServerOptions options;
  Metrics metrics;
  Api api;
  httplib::Server svr;
  std::thread thread;
  std::atomic<bool> listen_done{false};
  int port = 0;
  std::mutex stop_mu;
};

Reply HttpServer::Impl::Dispatch(const httplib::Request& req, const httplib::ContentReader* reader,
                                 size_t* route_index) {
  // Match on the raw target: httplib's decoded path would turn "%2F" in a user name into '/'.
  std::string_view path = req.target;
  path = path.substr(0, path.find('?'));
  RouteMatch m = MatchRoute(req.method, path);
  if (m.route) *route_index = m.index;

  size_t limit = m.route ? MaxBody(*m.route, options.limits) : 0;
  if (limit == 0) limit = kIgnoredBodyBytes;
  // Refused before reading: httplib cannot decode other encodings, and would wait for a
  // declared length that is no number. (A length over the limit is read and dropped below:
  // clients send the whole body before they read the answer.)
  uint64_t declared = 0;  // Content-Length
  if (m.route && reader) {
    auto refuse = [](int status, std::string_view code, std::string message) {
      Reply r = ErrorReply(status, code, std::move(message));
      r.headers.emplace_back("Connection", "close");
      return r;
    };
    const std::string encoding = text::AsciiLower(req.get_header_value("Content-Encoding"));
    if (!encoding.empty() && encoding != "identity" && encoding != "gzip" && encoding != "deflate")
      return refuse(415, "unsupported_media_type",
                    fmt::format("body: Content-Encoding {} is not supported (gzip, deflate or none)", encoding));
    if (req.has_header("Content-Length")) {
      const std::string value = req.get_header_value("Content-Length");
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), declared);
      if (value.empty() || ec != std::errc() || end != value.data() + value.size())
        return refuse(400, "invalid_argument", fmt::format("Content-Length: \"{}\" is not a byte count", value));
    }
  }
  // httplib reads a form upload only through its multipart reader (the plain one would throw).
  const bool form = reader && req.is_multipart_form_data();
  if (form) {
    size_t drained = 0;
    (*reader)([](const httplib::MultipartFormData&) { return true; },
              [&](const char*, size_t len) { return (drained += len) <= kDrainBytes; });
  }
  std::string body;
  bool too_large = false, read_ok = true;
  size_t received = 0;
  if (reader && !form) {
    size_t drained = 0;
    read_ok = (*reader)([&](const char* data, size_t len) {
      received += len;
      if (too_large) return (drained += len) <= kDrainBytes;
      if (body.size() + len > limit) {
        too_large = true;
        body.clear();
        return true;
      }
      body.append(data, len);
      return true;
    });
  }
  if (!m.route) {
    if (!m.allowed.empty()) {
      Reply r = ErrorReply(405, "invalid_argument",
                           fmt::format("{} is not allowed on this path (allowed: {})", req.method, m.allowed));
      r.headers.emplace_back("Allow", m.allowed);
      return r;
    }
    return ErrorReply(404, "not_found", "no such route (see /v1/openapi.json)");
  }
  if (form) {
    Reply r = ErrorReply(415, "unsupported_media_type", "body: a form upload (multipart/form-data); send JSON");
    r.headers.emplace_back("Connection", "close");
    return r;
  }
  // httplib gives up by itself on a body over the server-wide limit (set_payload_max_length).
  if (!read_ok && (declared > limit || received >= limit)) too_large = true;
  if (too_large || !read_ok) {
    Reply r = too_large ? ErrorReply(413, "payload_too_large",
                                     fmt::format("body: more than {} bytes, the limit of {} {}", limit, m.route->method,
                                                 m.route->path))
                        : ErrorReply(400, "invalid_argument",
                                     "body: could not be read (malformed chunked framing or compressed data, or the "
                                     "connection ended before Content-Length bytes)");
    r.headers.emplace_back("Connection", "close");
    return r;
  }

  Call call;
  if (m.route->auth) {
    std::optional<std::string> tenant;
    const std::string header = req.get_header_value("Authorization");
    const std::string_view token = BearerToken(header);
    if (!token.empty()) tenant = keys.Lookup(token);
    if (!tenant) {
      Reply r = ErrorReply(401, "unauthenticated",
                           token.empty() ? "missing API key: send Authorization: Bearer KEY" : "unknown API key");
      r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return r;
    }
    call.tenant = std::move(*tenant);
    if (int64_t wait = api.rate_limiter().Acquire(call.tenant); wait > 0) {
      Reply r = ErrorReply(429, "rate_limited",
                           fmt::format("rate limit of {}/s for this tenant exceeded; retry in {} s",
                                       options.rate_per_sec, wait));
      r.headers.emplace_back("Retry-After", std::to_string(wait));
      return r;
    }
  }
  if (!m.user.empty()) {
    if (!DecodePathSegment(m.user, &call.user))
      return ErrorReply(400, "invalid_argument", "user: malformed percent-encoding in the path");
    Status st = ValidateName("user", call.user, false);
    if (!st.ok()) return ErrorReply(400, "invalid_argument", "user: " + st.message());
  }
  call.body = body;
  call.params = &req.params;
  return (api.*(m.route->handler))(call);
}

void HttpServer::Impl::Handle(const httplib::Request& req, httplib::Response& res,
                              const httplib::ContentReader* reader) {
  const auto start = std::chrono::steady_clock::now();
  metrics.inflight.fetch_add(1, std::memory_order_relaxed);
  size_t route = metrics.unmatched();
  Reply reply;
  try {
    reply = Dispatch(req, reader, &route);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ontomem serve: exception on %s %s: %s\n", req.method.c_str(), req.path.c_str(), e.what());
    reply = ErrorReply(500, "internal", "internal error (details are in the server log)");
  } catch (...) {
    reply = ErrorReply(500, "internal", "internal error (details are in the server log)");
  }
  res.status = reply.status;
  for (auto& [k, v] : reply.headers) res.set_header(k.c_str(), v);
  res.set_content(std::move(reply.body), reply.content_type.c_str());
  metrics.inflight.fetch_sub(1, std::memory_order_relaxed);
  metrics.Observe(route, reply.status,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

HttpServer::HttpServer(Memory* memory, KeyStore keys, ServerOptions options)
    : impl_(std::make_unique<Impl>(memory, std::move(keys), std::move(options))) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->port; }

Metrics& HttpServer::metrics() { return impl_->metrics; }

Status HttpServer::Start() {
  Impl* im = impl_.get();
  if (im->thread.joinable()) return Status::FailedPrecondition("the server is already started");
  auto& svr = im->svr;
  const size_t threads = static_cast<size_t>(std::max(1, im->options.threads));
  svr.new_task_queue = [im, threads] { return new CountingQueue(threads, &im->metrics.queued); };
  svr.set_payload_max_length(im->options.limits.max_body_bytes);
  svr.set_read_timeout(im->options.read_timeout_sec, 0);
  svr.set_write_timeout(im->options.write_timeout_sec, 0);
  svr.set_keep_alive_timeout(im->options.keep_alive_timeout_sec);
  svr.set_tcp_nodelay(true);
  // httplib's default sets SO_REUSEPORT, which lets a second server bind a busy port silently.
  svr.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  auto plain = [im](const httplib::Request& req, httplib::Response& res) { im->Handle(req, res, nullptr); };
  auto with_body = [im](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    im->Handle(req, res, &reader);
  };
  // Every path goes to Dispatch, which matches the route table itself ("[\\s\\S]*": ".*" would
  // not match a decoded path holding a newline).
  const std::string any = "[\\s\\S]*";
  svr.Get(any, plain);
  svr.Post(any, with_body);
  svr.Post(any, plain);
  svr.Put(any, with_body);
  svr.Put(any, plain);
  svr.Patch(any, with_body);
  svr.Patch(any, plain);
  svr.Delete(any, with_body);
  svr.Delete(any, plain);
  svr.Options(any, plain);
  // Errors httplib answers itself (malformed request line, body over the payload limit).
  svr.set_error_handler(httplib::Server::HandlerWithResponse([im](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string_view code = "invalid_argument";
    std::string message = "malformed HTTP request";
    if (res.status == 413) {
      code = "payload_too_large";
      message = fmt::format("body: more than {} bytes, the server's limit", im->options.limits.max_body_bytes);
    } else if (res.status == 414) {
      message = "the request target (path and query) is too long";
    } else if (res.status == 404) {
      code = "not_found";
      message = "no such route (see /v1/openapi.json)";
    } else if (res.status >= 500) {
      code = "internal";
      message = "internal error";
    }
    res.set_content(ErrorJson(code, message), "application/json");
    im->metrics.Observe(im->metrics.unmatched(), res.status, 0);
    return httplib::Server::HandlerResponse::Handled;
  }));
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    std::fprintf(stderr, "ontomem serve: exception in a request\n");
    res.status = 500;
    res.set_content(ErrorJson("internal", "internal error (details are in the server log)"), "application/json");
  });

  const std::string& host = im->options.host;
  if (im->options.port == 0) {
    im->port = svr.bind_to_any_port(host);
    if (im->port <= 0) return Status::IOError(fmt::format("cannot listen on {} (any port)", host));
  } else {
    if (!svr.bind_to_port(host, im->options.port))
      return Status::IOError(fmt::format("cannot listen on {}:{} (in use, or not an address of this machine?)",
                                         host, im->options.port));
    im->port = im->options.port;
  }
  im->thread = std::thread([im] {
    im->svr.listen_after_bind();
    im->listen_done = true;
  });
  return Status::Ok();
}

void HttpServer::Stop() {
  Impl* im = impl_.get();
  std::lock_guard<std::mutex> lock(im->stop_mu);
  if (!im->thread.joinable()) return;
  // httplib's stop() does nothing until listen has started running.
  while (!im->svr.is_running() && !im->listen_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // Closes the listening socket; listen then shuts its thread pool down and joins it: requests
  // being handled finish and are answered. Connections accepted but not yet picked up by a
  // worker are closed unanswered (httplib checks the listening socket first), so nothing they
  // sent was acknowledged.
  im->svr.stop();
  im->thread.join();
}

}  // namespace ontomem::server
