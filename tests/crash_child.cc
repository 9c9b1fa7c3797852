// Child process of CrashTest: `ontomem_crash_child <data_dir> <seed>` ingests turns through the
// public Memory API (SQLite, synchronous=FULL) until it is killed with SIGKILL. Protocol on stdout, one write(2) per message so that a kill never leaves
// half a message in the pipe (each is far below PIPE_BUF):
//   ready                  the store is open
//   begin <first> <last>   about to append turns k<first>..k<last> as one batch
//   ack k<n> ... batch <first> <last>   the batch is committed
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "crash_turn.h"
#include "common/random.h"
#include "ontomem/memory.h"
#include "store/store.h"

namespace ontomem {
namespace {

using testing::CrashTurn;

// Gives every turn the vector CrashTurn(n) stores, so the parent can check vectors exactly.
class CrashEmbedder : public Embedder {
 public:
  std::string id() const override { return "crash-test"; }
  int dim() const override { return 8; }
  Status Embed(std::string_view text, float* out) const override {
    // Ingest also embeds the graph's labels; those vectors are not stored.
    if (!text.starts_with("turn ")) {
      std::fill(out, out + dim(), 0.0f);
      return Status::Ok();
    }
    int64_t n = std::strtoll(std::string(text.substr(5, 20)).c_str(), nullptr, 10);  // "turn <n> ..."
    TurnRecord r = CrashTurn(n);
    std::copy(r.vector.begin(), r.vector.end(), out);
    return Status::Ok();
  }
};

void WriteAll(const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(STDOUT_FILENO, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(3);  // the parent is gone
    done += static_cast<size_t>(n);
  }
}

int Run(const std::string& dir, uint64_t seed) {
  Options options;
  options.data_dir = dir;
  options.durability = Durability::kFull;
  options.embedder = std::make_shared<CrashEmbedder>();
  options.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
  StatusOr<std::unique_ptr<Memory>> memory = Memory::Open(options);
  if (!memory.ok()) {
    std::fprintf(stderr, "crash_child: %s\n", memory.status().ToString().c_str());
    return 1;
  }
  WriteAll("ready\n");
  const UserKey key{"crash", "user"};
  // Bounded so an orphaned child cannot run forever.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int64_t next = 1;
  for (uint64_t b = 0; std::chrono::steady_clock::now() < deadline; ++b) {
    const int64_t size = 1 + static_cast<int64_t>(SplitMix64(seed * 1000003 + b) % 5);
    const int64_t last = next + size - 1;
    std::vector<Turn> turns;
    for (int64_t n = next; n <= last; ++n) turns.push_back(CrashTurn(n).stored.turn);
    WriteAll("begin " + std::to_string(next) + " " + std::to_string(last) + "\n");
    Status st = (*memory)->IngestBatch(key, turns);
    if (!st.ok()) {
      std::fprintf(stderr, "crash_child: %s\n", st.ToString().c_str());
      return 1;
    }
    std::string ack;
    for (const Turn& t : turns) ack += "ack " + t.id + "\n";
    ack += "batch " + std::to_string(next) + " " + std::to_string(last) + "\n";
    WriteAll(ack);
    next = last + 1;
  }
  return 0;
}

}  // namespace
}  // namespace ontomem

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <data_dir> <seed>\n", argv[0]);
    return 2;
  }
  return ontomem::Run(argv[1], std::strtoull(argv[2], nullptr, 10));
}
