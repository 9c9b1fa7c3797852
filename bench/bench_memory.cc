// Ingest throughput, search latency and memory per user, on the real GloVe-SIF lexicon and
// real LoCoMo turns. Run through scripts/run_bench.sh; results go to docs/RESULTS.md.
//   ONTOMEM_LEXICON   lexicon file (default ~/.cache/ontomem/lexicon.bin)
//   ONTOMEM_TURNS     LoCoMo-format JSON whose turns and questions are replayed
//                     (default ../shared/data/locomo/locomo_dev5.json)
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "bench/dataset.h"
#include "engine/memory_impl.h"
#include "ontomem/memory.h"
#include "store/store.h"

namespace ontomem {
namespace {

struct Corpus {
  std::shared_ptr<Embedder> embedder;
  std::vector<Turn> turns;
  std::vector<std::string> questions;
};

const Corpus& GetCorpus() {
  static Corpus* c = [] {
    auto* corpus = new Corpus;
    auto emb = LoadSifEmbedder(DefaultLexiconPath());
    if (!emb.ok()) {
      std::cerr << emb.status().ToString() << "\n";
      std::exit(1);
    }
    corpus->embedder = *emb;
    const char* env = std::getenv("ONTOMEM_TURNS");
    auto ds = LoadLocomo(env ? env : "../shared/data/locomo/locomo_dev5.json");
    if (!ds.ok()) {
      std::cerr << ds.status().ToString() << " (set ONTOMEM_TURNS)\n";
      std::exit(1);
    }
    for (auto& s : ds->samples) {
      for (auto& t : s.turns) corpus->turns.push_back(t);
      for (auto& q : s.qa) corpus->questions.push_back(q.question);
    }
    return corpus;
  }();
  return *c;
}

// A benchmark's store directory, removed on every exit (error returns included). Declare it
// before the Memory or store using it, so they close first.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / fmt::format("ontomem-bench-{}-{}", name, ::getpid())) {
    std::filesystem::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::unique_ptr<MemoryImpl> OpenMemory(const std::string& dir, Durability d) {
  const Corpus& c = GetCorpus();
  Options o;
  o.data_dir = dir;
  o.embedder = c.embedder;
  auto store = OpenSqliteStore(dir, true, d);
  if (!store.ok()) {
    std::cerr << store.status().ToString() << "\n";
    std::exit(1);
  }
  return std::make_unique<MemoryImpl>(o, std::move(*store), c.embedder);
}

// Turns of a synthetic user of n turns (LoCoMo turns cycled, ids made unique).
std::vector<Turn> UserTurns(size_t n, size_t offset = 0) {
  const Corpus& c = GetCorpus();
  std::vector<Turn> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Turn t = c.turns[(offset + i) % c.turns.size()];
    t.id = fmt::format("u{}", offset + i);
    out.push_back(std::move(t));
  }
  return out;
}

// UserTurns(n, offset) with turn k said at minute k: a user who speaks in time order.
std::vector<Turn> TimedUserTurns(size_t n, size_t offset) {
  std::vector<Turn> out = UserTurns(n, offset);
  for (size_t i = 0; i < n; ++i) out[i].time_ms = 1700000000000 + static_cast<int64_t>(offset + i) * 60000;
  return out;
}

// Memory::Open on `dir` as a user runs it (the shipped extractor and graph), durability off;
// null after reporting the error to `state`.
std::unique_ptr<Memory> OpenShipped(benchmark::State& state, const std::string& dir,
                                    size_t memory_budget_bytes = Options().memory_budget_bytes) {
  Options o;
  o.data_dir = dir;
  o.durability = Durability::kOff;
  o.memory_budget_bytes = memory_budget_bytes;
  auto mem = Memory::Open(o);
  if (!mem.ok()) {
    state.SkipWithError(mem.status().ToString().c_str());
    return nullptr;
  }
  return std::move(*mem);
}

// Durable ingest (synchronous=FULL), batches of range(0) turns.
void BM_IngestDurable(benchmark::State& state) {
  const size_t batch = static_cast<size_t>(state.range(0));
  const TempDir temp("ingest");
  const std::string& dir = temp.path();
  auto mem = OpenMemory(dir, Durability::kFull);
  size_t offset = 0, turns = 0;
  for (auto _ : state) {
    auto t = UserTurns(batch, offset);
    offset += batch;
    Status st = mem->IngestBatch({"bench", "ingest"}, t);
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
    turns += batch;
  }
  state.counters["turns_per_s"] = benchmark::Counter(static_cast<double>(turns), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_IngestDurable)->Arg(1)->Arg(100)->Arg(1000)->UseRealTime()->Unit(benchmark::kMicrosecond);

// Batches of 10 turns into a user of range(0) turns, with the shipped extractor and graph:
// range(1) = 0 appends each batch after the user's latest turn (the usual case), 1 puts it
// before the user's first (a history imported after newer turns: the graph is replayed in time
// order and its stored edges replaced, every batch). Turn k is said at minute k.
void BM_IngestAfterOrBefore(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const bool before = state.range(1) == 1;
  const TempDir temp("after-or-before");
  const std::string& dir = temp.path();
  std::unique_ptr<Memory> mem = OpenShipped(state, dir);
  if (!mem) return;
  const UserKey key{"bench", "backfill"};
  auto turns = [](size_t first, size_t count) {  // 20 turns a session
    std::vector<Turn> t = TimedUserTurns(count, first);
    for (size_t i = 0; i < count; ++i) t[i].session = fmt::format("s{}", (first + i) / 20);
    return t;
  };
  for (size_t k = n; k < 2 * n; k += 100)  // the user: turns n..2n-1
    if (!mem->IngestBatch(key, turns(k, 100)).ok()) state.SkipWithError("ingest failed");
  size_t batch = 0;
  for (auto _ : state) {
    const size_t first = before ? n - 10 * (batch + 1) : 2 * n + 10 * batch;
    ++batch;
    if (!mem->IngestBatch(key, turns(first, 10)).ok()) state.SkipWithError("ingest failed");
  }
}
BENCHMARK(BM_IngestAfterOrBefore)
    ->Args({1000, 0})
    ->Args({1000, 1})
    ->Iterations(50)  // 50 batches of 10 placed before the user's first turn fit in turns 0..n-1
    ->Unit(benchmark::kMicrosecond);

// The first search of a user that is not in memory (after a restart or an eviction): loading
// range(0) turns with the shipped extractor's graph (the stored assertions replayed), then one
// `full` search. Two users alternate under a memory budget too small for both.
void BM_SearchColdUser(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const TempDir temp("cold-user");
  const std::string& dir = temp.path();
  std::unique_ptr<Memory> mem = OpenShipped(state, dir, /*memory_budget_bytes=*/1);
  if (!mem) return;
  const UserKey users[2] = {{"bench", "a"}, {"bench", "b"}};
  for (const UserKey& k : users)
    for (size_t first = 0; first < n; first += 100)
      if (!mem->IngestBatch(k, TimedUserTurns(std::min<size_t>(100, n - first), first)).ok())
        state.SkipWithError("ingest failed");
  const Corpus& c = GetCorpus();
  SearchOptions so;
  so.k = 10;
  so.method = Method::kFull;
  size_t i = 0;
  for (auto _ : state) {
    auto r = mem->Search(users[i % 2], c.questions[i % c.questions.size()], so);
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    ++i;
  }
}
BENCHMARK(BM_SearchColdUser)->Arg(700)->Arg(2000)->Unit(benchmark::kMicrosecond);

// Search latency for a user of range(0) turns with method range(1); p50/p95 over iterations.
void BM_Search(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const Method method = static_cast<Method>(state.range(1));
  const TempDir temp("search");
  const std::string& dir = temp.path();
  auto mem = OpenMemory(dir, Durability::kOff);
  UserKey key{"bench", "u"};
  auto turns = UserTurns(n);
  for (size_t i = 0; i < turns.size(); i += 1000) {
    std::vector<Turn> b(turns.begin() + static_cast<long>(i),
                        turns.begin() + static_cast<long>(std::min(turns.size(), i + 1000)));
    if (!mem->IngestBatch(key, b).ok()) state.SkipWithError("ingest failed");
  }
  const auto& qs = GetCorpus().questions;
  SearchOptions so;
  so.method = method;
  std::vector<double> lat;
  size_t qi = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = mem->Search(key, qs[qi++ % qs.size()], so);
    lat.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(r);
  }
  std::sort(lat.begin(), lat.end());
  if (!lat.empty()) {
    state.counters["p50_us"] = lat[lat.size() / 2];
    state.counters["p95_us"] = lat[std::min(lat.size() - 1, lat.size() * 95 / 100)];
  }
  state.counters["user_bytes"] = static_cast<double>(mem->MemoryUsage());
  state.SetLabel(MethodName(method));
}
BENCHMARK(BM_Search)
    ->ArgsProduct({{100, 700, 5000},
                   {static_cast<int>(Method::kDense), static_cast<int>(Method::kBm25),
                    static_cast<int>(Method::kFusion)}})
    ->Unit(benchmark::kMicrosecond);

// The check every search makes before reading a cached user (Store::UserVersion: another
// process may have written it), on a store of range(0) users.
void BM_UserVersion(benchmark::State& state) {
  const TempDir temp("version");
  const std::string& dir = temp.path();
  auto store = OpenSqliteStore(dir, true, Durability::kOff);
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return;
  }
  const int64_t users = state.range(0);
  for (int64_t u = 0; u < users; ++u) {
    std::vector<TurnRecord> r(1);
    r[0].stored.turn.text = "hello";
    if (!(*store)->AppendTurns({"bench", fmt::format("u{}", u)}, &r).ok()) state.SkipWithError("append failed");
  }
  int64_t i = 0;
  const std::vector<std::string> names = [&] {
    std::vector<std::string> v;
    for (int64_t u = 0; u < users; ++u) v.push_back(fmt::format("u{}", u));
    return v;
  }();
  for (auto _ : state) {
    auto v = (*store)->UserVersion({"bench", names[static_cast<size_t>(i++ % users)]});
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_UserVersion)->Arg(1)->Arg(1000)->Unit(benchmark::kMicrosecond);

// A search right after another process (here another Memory on the same directory) wrote one
// turn to the user: the cached copy is stale and catches up on the new rows. User of range(0)
// turns.
void BM_SearchAfterOtherWriter(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const TempDir temp("other-writer");
  const std::string& dir = temp.path();
  auto reader = OpenMemory(dir, Durability::kOff);
  auto writer = OpenMemory(dir, Durability::kOff);
  UserKey key{"bench", "u"};
  if (!reader->IngestBatch(key, UserTurns(n)).ok()) state.SkipWithError("ingest failed");
  const auto& qs = GetCorpus().questions;
  SearchOptions so;
  so.method = Method::kDense;
  size_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (!writer->IngestBatch(key, UserTurns(1, n + i)).ok()) state.SkipWithError("write failed");
    state.ResumeTiming();
    auto r = reader->Search(key, qs[i++ % qs.size()], so);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_SearchAfterOtherWriter)->Arg(100)->Arg(700)->Unit(benchmark::kMicrosecond);

// A write (one turn) right after another process wrote to the same user: the writer's copy is
// stale and catches up on the new rows before the write is planned. User of range(0) turns.
void BM_WriteAfterOtherWriter(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const TempDir temp("write-after-other");
  const std::string& dir = temp.path();
  auto mine = OpenMemory(dir, Durability::kOff);
  auto other = OpenMemory(dir, Durability::kOff);
  UserKey key{"bench", "u"};
  if (!other->IngestBatch(key, UserTurns(n)).ok()) state.SkipWithError("ingest failed");
  if (!mine->IngestBatch(key, UserTurns(1, n)).ok()) state.SkipWithError("ingest failed");  // loads the user
  size_t next = n + 1;
  for (auto _ : state) {
    state.PauseTiming();
    if (!other->IngestBatch(key, UserTurns(1, next++)).ok()) state.SkipWithError("write failed");
    state.ResumeTiming();
    if (!mine->IngestBatch(key, UserTurns(1, next++)).ok()) state.SkipWithError("write failed");
  }
}
BENCHMARK(BM_WriteAfterOtherWriter)->Arg(100)->Arg(2000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ontomem

BENCHMARK_MAIN();
