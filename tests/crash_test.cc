// kill -9 durability: a child (crash_child.cc) appends turns with Durability::kFull and
// acknowledges each committed batch on a pipe; we SIGKILL it at a random moment, reopen the store
// and check that every acknowledged turn is there with exactly its content, seqs are 1..N, and
// only whole batches are visible.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "crash_turn.h"
#include "store/store.h"
#include "test_util.h"

extern char** environ;

namespace ontomem {
namespace {

using testing::CrashTurn;
using Clock = std::chrono::steady_clock;

// Reads what is available from `fd` into *out, waiting until `deadline`. False on EOF.
bool ReadUntil(int fd, Clock::time_point deadline, std::string* out) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return true;
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return true;
    char buf[4096];
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out->append(buf, static_cast<size_t>(n));
  }
}

// What the child reported before it died.
struct ChildLog {
  bool ready = false;
  int64_t acked_last = 0;     // last turn of the last acknowledged batch
  int64_t inflight_last = 0;  // last turn of a begun but unacknowledged batch, 0 if none
  std::set<int64_t> acked_ids;
  int64_t batches = 0;
};

void ParseLog(const std::string& text, ChildLog* log) {
  std::istringstream in(text);
  std::string line;
  int64_t inflight_first = 0;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no trailing newline: incomplete (cannot happen with atomic writes)
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    if (word == "ready") {
      log->ready = true;
    } else if (word == "begin") {
      int64_t first = 0, last = 0;
      ls >> first >> last;
      EXPECT_EQ(first, log->acked_last + 1) << line;
      EXPECT_EQ(log->inflight_last, 0) << line;
      inflight_first = first;
      log->inflight_last = last;
    } else if (word == "ack") {
      std::string id;
      ls >> id;
      ASSERT_EQ(id.substr(0, 1), "k") << line;
      log->acked_ids.insert(std::stoll(id.substr(1)));
    } else if (word == "batch") {
      int64_t first = 0, last = 0;
      ls >> first >> last;
      EXPECT_EQ(first, inflight_first) << line;
      EXPECT_EQ(last, log->inflight_last) << line;
      log->acked_last = last;
      log->inflight_last = 0;
      ++log->batches;
    } else {
      ADD_FAILURE() << "unexpected line from child: " << line;
    }
  }
  EXPECT_EQ(static_cast<int64_t>(log->acked_ids.size()), log->acked_last);
}

// during_open: kill 0-20 ms after spawn, typically while the child creates and migrates the
// database; otherwise 50-400 ms after the child reports the store open.
void RunOnce(uint64_t seed, bool during_open, int64_t* total_acked) {
  namespace fs = std::filesystem;
  const testing::TempDir temp("ontomem-crash");
  const std::string& dir = temp.path();
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);  // dup2 clears CLOEXEC
  const std::string seed_arg = std::to_string(seed);
  const char* child = ONTOMEM_CRASH_CHILD;
  char* argv[] = {const_cast<char*>(child), const_cast<char*>(dir.c_str()),
                  const_cast<char*>(seed_arg.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, child, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  ASSERT_EQ(rc, 0) << "cannot spawn " << child;

  // Otherwise start the random clock once the store is open, so the kill lands during ingestion
  // even on a loaded machine.
  std::string out;
  bool open = true;
  const auto ready_deadline = Clock::now() + std::chrono::seconds(60);
  while (!during_open && open && out.find("ready\n") == std::string::npos &&
         Clock::now() < ready_deadline) {
    open = ReadUntil(fds[0], std::min(ready_deadline, Clock::now() + std::chrono::milliseconds(20)), &out);
  }
  std::mt19937_64 rng(seed);
  const int delay_ms = during_open ? std::uniform_int_distribution<int>(0, 20)(rng)
                                   : std::uniform_int_distribution<int>(50, 400)(rng);
  if (open) open = ReadUntil(fds[0], Clock::now() + std::chrono::milliseconds(delay_ms), &out);
  ::kill(pid, SIGKILL);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  while (ReadUntil(fds[0], Clock::now() + std::chrono::seconds(10), &out)) {
  }
  ::close(fds[0]);
  ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
      << "child ended on its own (status " << wstatus << "); output:\n" << out;

  ChildLog log;
  ParseLog(out, &log);
  if (!during_open) {
    ASSERT_TRUE(log.ready) << out;
  }
  *total_acked += log.acked_last;
  std::printf("[ crash    ] seed %llu: killed %d ms after %s, %lld batches / %lld turns acked%s\n",
              static_cast<unsigned long long>(seed), delay_ms, during_open ? "spawn" : "ready",
              static_cast<long long>(log.batches), static_cast<long long>(log.acked_last),
              log.inflight_last != 0 ? ", one batch in flight" : "");

  // A child killed before it created the file leaves none; otherwise the file must open as is.
  auto store = OpenSqliteStore(dir, /*create_if_missing=*/!log.ready, Durability::kFull);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const UserKey key{"crash", "user"};
  std::vector<TurnRecord> got;
  auto loaded = (*store)->LoadTurns(key);
  if (loaded.ok()) {
    got = std::move(loaded).value();
  } else {
    ASSERT_EQ(loaded.status().code(), StatusCode::kNotFound) << loaded.status().ToString();
  }

  // All or nothing per batch: exactly the acknowledged prefix, or that plus the in-flight batch.
  const int64_t n = static_cast<int64_t>(got.size());
  if (log.inflight_last != 0) {
    EXPECT_TRUE(n == log.acked_last || n == log.inflight_last)
        << n << " turns stored; acked " << log.acked_last << ", in flight up to "
        << log.inflight_last;
  } else {
    EXPECT_EQ(n, log.acked_last);
  }
  for (int64_t i = 0; i < n; ++i) {
    const TurnRecord& r = got[i];
    const TurnRecord want = CrashTurn(i + 1);
    ASSERT_EQ(r.stored.seq, i + 1);
    ASSERT_EQ(r.stored.turn.id, want.stored.turn.id);
    ASSERT_EQ(r.stored.turn.speaker, want.stored.turn.speaker);
    ASSERT_EQ(r.stored.turn.text, want.stored.turn.text);
    ASSERT_EQ(r.stored.turn.time_ms, want.stored.turn.time_ms);
    ASSERT_EQ(r.stored.turn.session, want.stored.turn.session);
    ASSERT_EQ(r.vector, want.vector);
    ASSERT_EQ(r.embedder_id, want.embedder_id);
  }
  for (int64_t id : log.acked_ids) EXPECT_LE(id, n) << "acknowledged turn k" << id << " lost";

  // The recovered store keeps working where the child stopped.
  std::vector<TurnRecord> next = {CrashTurn(n + 1)};
  Status st = (*store)->AppendTurns(key, &next);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(next[0].stored.seq, n + 1);
}

uint64_t BaseSeed() {
  if (const char* env = std::getenv("ONTOMEM_CRASH_SEED")) return std::strtoull(env, nullptr, 10);
  return (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
}

void RunRounds(bool during_open, int rounds, int64_t* total_acked) {
  const uint64_t base = BaseSeed();
  std::printf("[ crash    ] base seed %llu (rerun with ONTOMEM_CRASH_SEED=%llu)\n",
              static_cast<unsigned long long>(base), static_cast<unsigned long long>(base));
  ::testing::Test::RecordProperty("crash_seed", std::to_string(base));
  for (int round = 0; round < rounds; ++round) {
    const uint64_t seed = base + static_cast<uint64_t>(round);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (base " + std::to_string(base) + ")");
    RunOnce(seed, during_open, total_acked);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(CrashTest, KillNineKeepsAcknowledgedTurns) {
  int64_t total_acked = 0;
  RunRounds(/*during_open=*/false, 5, &total_acked);
  // Guards against a test that never got to kill anything mid-ingest.
  EXPECT_GT(total_acked, 0);
}

TEST(CrashTest, KillNineDuringFirstOpen) {
  int64_t total_acked = 0;
  RunRounds(/*during_open=*/true, 5, &total_acked);
}

}  // namespace
}  // namespace ontomem
