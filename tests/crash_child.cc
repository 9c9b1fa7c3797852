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

#include "ontomem/memory.h"
#include "store/store.h"

namespace ontomem {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The content of turn n. crash_test.cc holds an identical copy to verify against: keep in sync.
TurnRecord CrashTurn(int64_t n) {
  static const char* const kWords[8] = {"naïve", "Zürich", "日本語", "🚀", "ça va", "ελληνικά",
                                        "plain", "word"};
  const uint64_t h = SplitMix64(static_cast<uint64_t>(n));
  TurnRecord r;
  r.stored.turn.id = fmt::format("k{}", n);
  r.stored.turn.speaker = n % 2 != 0 ? "Zoë" : "bob";
  std::string text = fmt::format("turn {}", n);
  for (uint64_t i = 0; i < 1 + h % 12; ++i) {
    text += ' ';
    text += kWords[(h >> (4 * i)) % 8];
  }
  char hex[24];
  std::snprintf(hex, sizeof(hex), " %016llx", static_cast<unsigned long long>(h));
  r.stored.turn.text = text + hex;
  r.stored.turn.time_ms = 1700000000000 + n * 1000;
  r.stored.turn.session = "session_" + std::to_string(n / 10);
  for (int i = 0; i < 8; ++i) {
    r.vector.push_back(static_cast<float>((h >> (8 * i)) & 0xff) / 255.0f - 0.5f);
  }
  r.embedder_id = "crash-test";
  return r;
}

// Gives every turn the vector CrashTurn(n) stores, so the parent can check vectors exactly.
class CrashEmbedder : public Embedder {
 public:
  std::string id() const override { return "crash-test"; }
  int dim() const override { return 8; }
  Status Embed(std::string_view text, float* out) const override {
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
