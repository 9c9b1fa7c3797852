// kill -9 under HTTP load: client threads ingest batches into the real `ontomem serve` binary
// while it is SIGKILLed at a random moment, ten times on one data directory. After each restart
// every acknowledged (200) turn is present exactly once and intact, and nothing is stored that
// was never sent.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "lexicon_fixture.h"
#include "test_util.h"

extern char** environ;

namespace ontomem {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int kRounds = 10;
constexpr int kClients = 3;
const char* const kUsers[] = {"ana", "ben", "caro"};

// A port nobody listens on right now (the server binds it a moment later).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return 0;
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Runs a command, returns its stdout.
std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

struct Sent {
  json turn;           // as sent
  bool acked = false;  // a 200 came back
};

class HttpCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lexicon_ = testing::WriteTinyLexicon(dir_);
    const std::string out = Shell("'" ONTOMEM_CLI "' keys add --keys '" + dir_ + "/keys' acme 2>&1");
    const size_t nl = out.find_last_of('\n', out.size() - 2);
    key_ = out.substr(nl == std::string::npos ? 0 : nl + 1);
    while (!key_.empty() && (key_.back() == '\n' || key_.back() == '\r')) key_.pop_back();
    ASSERT_FALSE(key_.empty()) << out;
  }
  void TearDown() override {
    Stop(SIGKILL);
  }

  // Starts the server on a fresh port and waits for /healthz.
  void Start() {
    port_ = FreePort();
    ASSERT_NE(port_, 0);
    const std::string port = std::to_string(port_), data = dir_ + "/data", keys = dir_ + "/keys";
    const std::string lex = "ONTOMEM_LEXICON=" + lexicon_;
    std::vector<char*> env;
    for (char** e = environ; *e; ++e)
      if (std::string(*e).rfind("ONTOMEM_LEXICON=", 0) != 0) env.push_back(*e);
    env.push_back(const_cast<char*>(lex.c_str()));
    env.push_back(nullptr);
    const char* argv[] = {ONTOMEM_CLI, "serve", "--data", data.c_str(), "--keys", keys.c_str(),
                          "--host", "127.0.0.1", "--port", port.c_str(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = dir_ + "/server.log";
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    ASSERT_EQ(posix_spawn(&pid_, ONTOMEM_CLI, &actions, nullptr, const_cast<char**>(argv), env.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    httplib::Client cli("127.0.0.1", port_);
    cli.set_connection_timeout(0, 100000);
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
      if (auto r = cli.Get("/healthz"); r && r->status == 200) return;
      int st = 0;
      ASSERT_EQ(::waitpid(pid_, &st, WNOHANG), 0) << "server exited; log:\n" << Shell("cat '" + log + "'");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL() << "server not healthy after 20 s; log:\n" << Shell("cat '" + log + "'");
  }

  void Stop(int sig) {
    if (pid_ <= 0) return;
    ::kill(pid_, sig);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
  }

  httplib::Headers Auth() const { return {{"Authorization", "Bearer " + key_}}; }

  // All of a user's turns through the paginated API.
  std::vector<json> Turns(const std::string& user) {
    std::vector<json> out;
    httplib::Client cli("127.0.0.1", port_);
    for (int offset = 0;;) {
      auto r = cli.Get("/v1/users/" + user + "/turns?offset=" + std::to_string(offset) + "&limit=100", Auth());
      EXPECT_TRUE(r) << "GET turns of " << user;
      if (!r) return out;
      if (r->status == 404) return out;  // no acknowledged turn yet
      EXPECT_EQ(r->status, 200) << r->body;
      const json page = json::parse(r->body, nullptr, false);
      EXPECT_FALSE(page.is_discarded()) << r->body;
      if (page.is_discarded()) return out;
      for (const auto& t : page["turns"]) out.push_back(t);
      if (page["next_offset"].is_null()) return out;
      offset = page["next_offset"].get<int>();
    }
  }

  const testing::TempDir temp_{"ontomem-http-crash"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::string lexicon_, key_;
  pid_t pid_ = -1;
  int port_ = 0;
};

TEST_F(HttpCrashTest, AcknowledgedTurnsSurviveKill9UnderLoad) {
  std::mutex mu;
  std::map<std::string, Sent> sent[std::size(kUsers)];  // per user: id -> what was sent
  std::mt19937_64 rng(20261202);
  int64_t total_acked = 0;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    ASSERT_NO_FATAL_FAILURE(Start());
    std::atomic<bool> stop{false};
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c] {
        httplib::Client cli("127.0.0.1", port_);
        cli.set_connection_timeout(0, 200000);
        cli.set_read_timeout(5, 0);
        std::mt19937 crng(round * 100 + c);
        for (int n = 0; !stop; ++n) {
          const size_t u = crng() % std::size(kUsers);
          json body = {{"turns", json::array()}};
          const int size = 1 + static_cast<int>(crng() % 4);
          for (int i = 0; i < size; ++i) {
            // fmt rather than a chain of string + (GCC 12 warns -Wrestrict on it, falsely).
            const std::string id = fmt::format("r{}c{}n{}i{}", round, c, n, i);
            body["turns"].push_back({{"id", id},
                                     {"speaker", c % 2 ? "Ben" : "Ana"},
                                     {"text", "I love movie " + id + " with caf\xc3\xa9 and \"quotes\""},
                                     {"time", int64_t{1700000000000} + round * 1000000 + n * 10 + i},
                                     {"session", "round" + std::to_string(round)}});
          }
          {
            std::lock_guard<std::mutex> lock(mu);
            for (const auto& t : body["turns"]) sent[u][t["id"].get<std::string>()] = Sent{t, false};
          }
          auto r = cli.Post("/v1/users/" + std::string(kUsers[u]) + "/turns", Auth(), body.dump(),
                            "application/json");
          if (r && r->status == 200) {
            std::lock_guard<std::mutex> lock(mu);
            for (const auto& t : body["turns"]) sent[u][t["id"].get<std::string>()].acked = true;
          } else if (!r) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));  // server gone
          } else {
            ADD_FAILURE() << "HTTP " << r->status << ": " << r->body;
            return;
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(100, 600)(rng)));
    Stop(SIGKILL);
    stop = true;
    for (auto& t : clients) t.join();

    ASSERT_NO_FATAL_FAILURE(Start());
    for (size_t u = 0; u < std::size(kUsers); ++u) {
      std::map<std::string, int> seen;
      for (const json& t : Turns(kUsers[u])) {
        const std::string id = t["id"].get<std::string>();
        ++seen[id];
        auto it = sent[u].find(id);
        ASSERT_NE(it, sent[u].end()) << kUsers[u] << " holds a turn never sent: " << t.dump();
        const json& want = it->second.turn;
        EXPECT_EQ(t["text"], want["text"]) << id;
        EXPECT_EQ(t["speaker"], want["speaker"]) << id;
        EXPECT_EQ(t["session"], want["session"]) << id;
        EXPECT_EQ(t["time"], want["time"]) << id;
        // Stored but unacknowledged (killed before the answer) counts as acknowledged from now
        // on: the next round must still find it.
        it->second.acked = true;
      }
      for (const auto& [id, s] : sent[u]) {
        if (s.acked) {
          EXPECT_EQ(seen[id], 1) << kUsers[u] << ": acknowledged turn " << id;
        }
      }
      // Sent, unacknowledged and not stored: gone for good, never expected again.
      for (auto it = sent[u].begin(); it != sent[u].end();) it = it->second.acked ? std::next(it) : sent[u].erase(it);
      total_acked += static_cast<int64_t>(seen.size());
    }
    Stop(SIGTERM);
    if (HasFailure()) return;
  }
  std::printf("[ crash    ] %d kill -9 rounds, %lld turns checked in total\n", kRounds,
              static_cast<long long>(total_acked));
}


// `ontomem serve` and `ontomem ingest` on one data directory, as the docs allow: the server's
// search sees what the other process stored without a write of its own, and the server's next
// write, planned from its stale cache, keeps the other process's provenance in the stored edges.
TEST_F(HttpCrashTest, ServeAndIngestShareADataDirectory) {
  ASSERT_NO_FATAL_FAILURE(Start());
  httplib::Client cli("127.0.0.1", port_);
  const std::string text = "I really love jazz music and I play the guitar every day";
  auto post_turn = [&](const std::string& id) {
    json body = {{"turns", json::array({{{"id", id}, {"speaker", "Ana"}, {"text", text + " (" + id + ")"}, {"session", id}}})}};
    auto r = cli.Post("/v1/users/ana/turns", Auth(), body.dump(), "application/json");
    ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no response");
  };
  ASSERT_NO_FATAL_FAILURE(post_turn("D1:1"));
  {
    std::ofstream(dir_ + "/other.jsonl")
        << json({{"id", "D2:1"}, {"speaker", "Ana"}, {"text", text + " (D2:1)"}, {"session", "D2:1"}}).dump() << "\n";
    const std::string out = Shell("ONTOMEM_LEXICON='" + lexicon_ + "' '" ONTOMEM_CLI "' ingest --data '" + dir_ +
                                  "/data' --tenant acme --user ana '" + dir_ + "/other.jsonl' 2>&1");
    ASSERT_NE(out.find("1 new"), std::string::npos) << out;
  }
  auto r = cli.Post("/v1/users/ana/search", Auth(), json({{"query", "jazz"}, {"k", 10}, {"method", "dense"}}).dump(),
                    "application/json");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no response");
  std::set<std::string> ids;
  const json found = json::parse(r->body);
  for (const auto& h : found["hits"]) ids.insert(h["id"].get<std::string>());
  EXPECT_TRUE(ids.count("D2:1")) << r->body;

  ASSERT_NO_FATAL_FAILURE(post_turn("D3:1"));
  r = cli.Get("/v1/users/ana/graph", Auth());
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no response");
  const json live = json::parse(r->body);
  Stop(SIGTERM);

  // The stored snapshot, read without ontomem, against the server's graph.
  json rows = json::array();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2((dir_ + "/data/ontomem.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT source, relation, target, source_turns FROM edges", -1, &st, nullptr),
              SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
      json row;
      for (int i = 0; i < 4; ++i)
        row[sqlite3_column_name(st, i)] = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
      rows.push_back(row);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  bool jazz = false;
  for (const auto& row : rows) {
    SCOPED_TRACE(row.dump());
    const json* match = nullptr;
    for (const auto& e : live["edges"])
      if (e["source"] == row["source"] && e["relation"] == row["relation"] && e["target"] == row["target"] &&
          e["valid_to"].is_null())
        match = &e;
    ASSERT_NE(match, nullptr);
    EXPECT_EQ((*match)["source_turns"], json::parse(row["source_turns"].get<std::string>()));
    if (row["relation"] == "LIKES") {
      jazz = true;
      EXPECT_EQ(json::parse(row["source_turns"].get<std::string>()), json({"D1:1", "D2:1", "D3:1"}));
    }
  }
  EXPECT_TRUE(jazz) << live.dump();
  EXPECT_EQ(rows.size(), live["edges"].size());
}

}  // namespace
}  // namespace ontomem
