// An httplib::Server on 127.0.0.1 at a free port, served on its own thread: the fake
// OpenAI-compatible endpoints of the LLM-verifier and embedder tests. Register routes on
// server(), then Start(); Stop() (also the destructor) ends it and may be called early.
#pragma once

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

namespace ontomem::testing {

class LoopbackHttpServer {
 public:
  ~LoopbackHttpServer() { Stop(); }
  httplib::Server& server() { return server_; }
  void Start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 200 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  void Stop() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace ontomem::testing

#endif
