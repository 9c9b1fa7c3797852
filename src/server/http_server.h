// The HTTP server: cpp-httplib behind this small interface. Requests go through one path:
// route lookup (the route table), body size limit, API key, per-tenant rate limit, then the
// handler (Api). Nothing a client sends can crash it; a last-resort handler answers 500.
//
//   HttpServer server(memory.get(), std::move(keys), options);
//   RETURN_IF_ERROR(server.Start());   // listening on options.host:server.port()
//   ...
//   server.Stop();                     // stop accepting, finish in-flight requests
#pragma once

#include <memory>

#include "ontomem/memory.h"
#include "ontomem/status.h"
#include "server/api.h"
#include "server/keys.h"

namespace ontomem::server {

class HttpServer {
 public:
  // `memory` must outlive the server (close it only after Stop returns).
  HttpServer(Memory* memory, KeyStore keys, ServerOptions options);
  ~HttpServer();  // Stop()

  // Binds options.host:options.port (port 0: any free port) and serves on background
  // threads. IOError if the address cannot be bound.
  Status Start();
  // The bound port once Start succeeded.
  int port() const;
  // Closes the listening socket, then waits until every accepted connection's requests are
  // answered: a write acknowledged with 200 is committed before Stop returns. Idempotent.
  void Stop();

  Metrics& metrics();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ontomem::server
