// The one way ontomem's clients of OpenAI-compatible endpoints (LLM verifier, embedder) set up a
// cpp-httplib client: the same timeout for connect, read and write, and a bearer key when set.
// Only usable when cpp-httplib is linked (CPPHTTPLIB_OPENSSL_SUPPORT, see CMakeLists.txt).
#pragma once

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
#include <httplib.h>

#include <ctime>
#include <string>

namespace ontomem {

inline void SetTimeouts(httplib::Client* cli, int timeout_ms) {
  const time_t sec = timeout_ms / 1000;
  const time_t usec = static_cast<time_t>(timeout_ms % 1000) * 1000;
  cli->set_connection_timeout(sec, usec);
  cli->set_read_timeout(sec, usec);
  cli->set_write_timeout(sec, usec);
}

inline httplib::Headers BearerHeaders(const std::string& api_key) {
  httplib::Headers headers;
  if (!api_key.empty()) headers.emplace("Authorization", "Bearer " + api_key);
  return headers;
}

}  // namespace ontomem

#endif
