#include "server/serve.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <cstdio>

#include "ontomem/memory.h"
#include "server/http_server.h"
#include "server/keys.h"

namespace ontomem::server {

Status Serve(const Options& memory_options, const std::string& keys_path, const ServerOptions& options) {
  // Block the stop signals before any thread starts, so every thread inherits the mask and
  // only the sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto keys = KeyStore::Load(keys_path);
  if (!keys.ok()) {
    if (keys.status().code() == StatusCode::kNotFound)
      return Status::NotFound(fmt::format("no key file {}: create it with `ontomem keys add --keys {} TENANT`",
                                          keys_path, keys_path));
    return keys.status();
  }
  if (keys->size() == 0)
    std::fprintf(stderr, "ontomem serve: %s holds no keys; every /v1 request will get 401\n", keys_path.c_str());
  auto memory = Memory::Open(memory_options);
  if (!memory.ok()) return memory.status().WithContext("open " + memory_options.data_dir);
  const size_t nkeys = keys->size();
  ServerOptions live = options;
  live.keys_path = keys_path;  // `ontomem keys add` takes effect without a restart
  auto server = std::make_unique<HttpServer>(memory->get(), std::move(*keys), live);
  RETURN_IF_ERROR(server->Start());
  const std::string base = fmt::format("http://{}:{}", options.host, server->port());
  std::printf("ontomem serve: listening on %s (data %s, %zu key(s) from %s)\n", base.c_str(),
              memory_options.data_dir.c_str(), nkeys, keys_path.c_str());
  std::printf("  store:  curl -s -H \"Authorization: Bearer $KEY\" -d '{\"turns\":[{\"speaker\":\"Ana\",\"text\":\"I adore old romantic films.\"}]}' %s/v1/users/ana/turns\n",
              base.c_str());
  std::printf("  search: curl -s -H \"Authorization: Bearer $KEY\" -d '{\"query\":\"which films does Ana like?\"}' %s/v1/users/ana/search\n",
              base.c_str());
  std::printf("  inspector: %s/   API: %s/v1/openapi.json   stop: Ctrl-C or SIGTERM\n", base.c_str(), base.c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::printf("ontomem serve: %s, draining in-flight requests\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  std::fflush(stdout);
  server->Stop();
  server.reset();
  memory->reset();  // closes the store after the last request was answered
  std::printf("ontomem serve: stopped\n");
  std::fflush(stdout);
  return Status::Ok();
}

}  // namespace ontomem::server
