// The real `ontomem serve` binary: SIGTERM while clients are ingesting drains the requests in
// flight and loses no acknowledged turn; a restart on the same data serves every one of them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "lexicon_fixture.h"
#include "test_util.h"

extern char** environ;

namespace ontomem {
namespace {

using json = nlohmann::json;

struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;  // the child's stdout
  int port = 0;
};

// Starts `ontomem serve` and waits for its "listening on http://127.0.0.1:PORT" line.
Child StartServe(const std::string& dir, const std::string& lexicon) {
  Child c;
  int fds[2];
  if (pipe(fds) != 0) return c;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, (dir + "/serve.err").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const std::vector<std::string> args = {ONTOMEM_CLI, "serve", "--data", dir + "/data", "--keys", dir + "/keys",
                                         "--host", "127.0.0.1", "--port", "0", "--threads", "8"};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_store = {"ONTOMEM_LEXICON=" + lexicon};
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind("ONTOMEM_LEXICON=", 0) != 0) env_store.push_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int rc = posix_spawn(&c.pid, ONTOMEM_CLI, &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    c.pid = -1;
    return c;
  }
  c.out = fdopen(fds[0], "r");
  std::array<char, 1024> line;
  while (fgets(line.data(), line.size(), c.out)) {
    if (std::sscanf(line.data(), "ontomem serve: listening on http://127.0.0.1:%d", &c.port) == 1) break;
  }
  return c;
}

// SIGTERM, then the exit status (-1 if it did not exit normally).
int Terminate(Child& c) {
  kill(c.pid, SIGTERM);
  std::string rest;
  std::array<char, 1024> buf;
  while (fgets(buf.data(), buf.size(), c.out)) rest += buf.data();
  fclose(c.out);
  int status = 0;
  waitpid(c.pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string CreateKey(const std::string& dir) {
  std::string out;
  FILE* p = popen(("'" ONTOMEM_CLI "' keys add --keys '" + dir + "/keys' acme").c_str(), "r");
  std::array<char, 512> buf;
  while (fgets(buf.data(), buf.size(), p)) out = buf.data();  // the last line
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

TEST(ServerSigterm, DrainsInFlightIngestsAndLosesNoAcknowledgedTurn) {
  const testing::TempDir temp("ontomem-sigterm");
  const std::string& dir = temp.path();
  const std::string lexicon = testing::WriteTinyLexicon(dir);
  const std::string key = CreateKey(dir);
  ASSERT_EQ(key.rfind("om_", 0), 0u) << key;
  Child server = StartServe(dir, lexicon);
  ASSERT_GT(server.pid, 0);
  ASSERT_GT(server.port, 0) << "serve did not start; see " << dir << "/serve.err";

  // Clients on two shared users ingest batches of 1-3 turns until the server goes away.
  constexpr int kClients = 6;
  std::vector<std::vector<std::pair<std::string, std::string>>> acked(kClients);  // (user, id)
  std::atomic<int> errors_after_ack{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  const httplib::Headers auth = {{"Authorization", "Bearer " + key}};
  for (int t = 0; t < kClients; ++t)
    clients.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", server.port);
      c.set_read_timeout(30, 0);
      const std::string user = t % 2 ? "ben" : "ana";
      for (int b = 0; !stop && b < 100000; ++b) {
        json turns = json::array();
        const int n = 1 + (t + b) % 3;
        for (int j = 0; j < n; ++j)
          turns.push_back({{"id", fmt::format("c{}-b{}-{}", t, b, j)},
                           {"speaker", "A"},
                           {"text", fmt::format("client {} batch {} turn {} about jazz", t, b, j)}});
        auto r = c.Post(("/v1/users/" + user + "/turns").c_str(), auth, json{{"turns", turns}}.dump(), "application/json");
        if (!r) break;  // the server closed: nothing more is acknowledged
        if (r->status != 200) {
          ++errors_after_ack;
          continue;
        }
        for (const auto& x : turns) acked[t].push_back({user, x["id"]});
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const int code = Terminate(server);
  stop = true;
  for (auto& th : clients) th.join();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(errors_after_ack.load(), 0);
  size_t total = 0;
  for (const auto& a : acked) total += a.size();
  ASSERT_GT(total, 0u);

  // Restart on the same data: every acknowledged turn is there, text intact.
  Child again = StartServe(dir, lexicon);
  ASSERT_GT(again.port, 0) << "restart failed; see " << dir << "/serve.err";
  httplib::Client c("127.0.0.1", again.port);
  std::map<std::pair<std::string, std::string>, std::string> stored;
  for (const std::string user : {"ana", "ben"}) {
    for (json next = 0; !next.is_null();) {
      auto r = c.Get(fmt::format("/v1/users/{}/turns?limit=1000&offset={}", user, next.get<int64_t>()).c_str(), auth);
      ASSERT_TRUE(r);
      ASSERT_EQ(r->status, 200) << r->body;
      auto page = json::parse(r->body);
      for (const auto& t : page["turns"]) stored[{user, t["id"]}] = t["text"];
      next = page["next_offset"];
    }
  }
  size_t missing = 0;
  for (int t = 0; t < kClients; ++t)
    for (const auto& [user, id] : acked[t]) {
      auto it = stored.find({user, id});
      if (it == stored.end()) {
        ++missing;
        continue;
      }
      // "c{t}-b{b}-{j}" -> "client {t} batch {b} turn {j} about jazz"
      int ct, cb, cj;
      ASSERT_EQ(std::sscanf(id.c_str(), "c%d-b%d-%d", &ct, &cb, &cj), 3);
      EXPECT_EQ(it->second, fmt::format("client {} batch {} turn {} about jazz", ct, cb, cj));
    }
  EXPECT_EQ(missing, 0u) << "of " << total << " acknowledged turns";
  std::printf("SIGTERM during ingest: %zu acknowledged turns, %zu missing after restart\n", total, missing);
  EXPECT_EQ(Terminate(again), 0);
}

}  // namespace
}  // namespace ontomem
