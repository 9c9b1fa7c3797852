// The write path of Memory: what IngestBatch reports per turn, and that a user's searches and
// graph reads go on while one of the user's writes is committing (the store's fsync).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "engine/memory_impl.h"
#include "fake_embedder.h"
#include "store/forwarding_store.h"
#include "store/store.h"

namespace ontomem {
namespace {

using namespace std::chrono_literals;

Turn T(std::string id, std::string text) {
  Turn t;
  t.id = std::move(id);
  t.speaker = "Ana";
  t.text = std::move(text);
  t.time_ms = 1000;
  return t;
}

// Delegates to the in-memory store; while armed, AppendTurns blocks until released, so a test
// can act while a write is inside its commit.
class GatedStore : public ForwardingStore {
 public:
  GatedStore() : ForwardingStore(NewInMemoryStore()) {}
  using ForwardingStore::AppendTurns;
  void Arm() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = true;
  }
  void WaitUntilEntered() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return entered_; });
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = false;
    cv_.notify_all();
  }

  Status AppendTurns(const UserKey& key, std::vector<TurnRecord>* records, GraphDelta* delta,
                     WriteBase* base) override {
    {
      std::unique_lock<std::mutex> l(mu_);
      if (armed_) {
        entered_ = true;
        cv_.notify_all();
        cv_.wait(l, [&] { return !armed_; });
      }
    }
    return ForwardingStore::AppendTurns(key, records, delta, base);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, entered_ = false;
};

std::unique_ptr<MemoryImpl> NewMemory(std::unique_ptr<Store> store) {
  Options o;
  o.data_dir = "unused";
  return std::make_unique<MemoryImpl>(o, std::move(store), std::make_shared<testing::FakeEmbedder>());
}

const UserKey kAna{"acme", "ana"};

TEST(WritePath, IngestBatchReportsSeqIdAndDuplicatePerTurn) {
  auto mem = NewMemory(NewInMemoryStore());
  std::vector<IngestedTurn> out;
  ASSERT_TRUE(mem->IngestBatch(kAna, {T("a", "first"), T("", "no id"), T("b", "third")}, &out).ok());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].seq, 1);
  EXPECT_EQ(out[0].id, "a");
  EXPECT_EQ(out[1].seq, 2);
  EXPECT_EQ(out[1].id, "T2");  // assigned
  EXPECT_EQ(out[2].seq, 3);
  EXPECT_FALSE(out[0].duplicate || out[1].duplicate || out[2].duplicate);

  // A retry of b, a new c and c again in the same batch: one turn stored.
  ASSERT_TRUE(mem->IngestBatch(kAna, {T("b", "third"), T("c", "fourth"), T("c", "fourth")}, &out).ok());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].duplicate);
  EXPECT_EQ(out[0].seq, 3);
  EXPECT_FALSE(out[1].duplicate);
  EXPECT_EQ(out[1].seq, 4);
  EXPECT_TRUE(out[2].duplicate);
  EXPECT_EQ(out[2].seq, 4);
  auto turns = mem->Turns(kAna);
  ASSERT_TRUE(turns.ok());
  EXPECT_EQ(turns->size(), 4u);

  // A failed batch leaves `ingested` as the caller passed it and stores nothing.
  out.assign(1, IngestedTurn{42, "x", false});
  EXPECT_EQ(mem->IngestBatch(kAna, {T("d", "new"), T("a", "changed")}, &out).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(mem->Turns(kAna)->size(), 4u);
}

TEST(WritePath, SearchAndGraphReadsGoOnWhileAWriteCommits) {
  auto store = std::make_unique<GatedStore>();
  GatedStore* gate = store.get();
  auto mem = NewMemory(std::move(store));
  ASSERT_TRUE(mem->Ingest(kAna, T("a", "kayak trip on the lake")).ok());

  gate->Arm();
  auto writer = std::async(std::launch::async, [&] { return mem->Ingest(kAna, T("b", "kayak paddles")); });
  gate->WaitUntilEntered();  // the write holds the user while its commit waits
  // Before the write lock was split from the read lock, these waited for the commit (forever here).
  auto search = std::async(std::launch::async, [&] { return mem->Search(kAna, "kayak", SearchOptions{}); });
  auto graph = std::async(std::launch::async, [&] { return mem->GraphJson(kAna); });
  const bool search_done = search.wait_for(20s) == std::future_status::ready;
  const bool graph_done = graph.wait_for(20s) == std::future_status::ready;
  gate->Release();
  ASSERT_TRUE(writer.get().ok());
  ASSERT_TRUE(search_done) << "search waited for another write's commit";
  ASSERT_TRUE(graph_done) << "graph read waited for another write's commit";
  auto hits = search.get();
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->hits.size(), 1u);  // the committing turn is not visible yet
  EXPECT_EQ(hits->hits[0].turn.turn.id, "a");
  EXPECT_TRUE(graph.get().ok());

  auto after = mem->Search(kAna, "kayak", SearchOptions{});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->hits.size(), 2u);  // and is once the commit returned
}

TEST(WritePath, ConcurrentWritersOfOneUserAreSerialisedInSeqOrder) {
  auto mem = NewMemory(NewInMemoryStore());
  constexpr int kThreads = 4, kPerThread = 25;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::vector<int64_t> seqs;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::vector<IngestedTurn> out;
        const std::string id = std::to_string(t) + "-" + std::to_string(i);
        Status st = mem->IngestBatch(kAna, {T(id, "turn " + id)}, &out);
        ASSERT_TRUE(st.ok()) << st.ToString();
        std::lock_guard<std::mutex> l(mu);
        seqs.push_back(out.at(0).seq);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::sort(seqs.begin(), seqs.end());
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], static_cast<int64_t>(i) + 1);
  auto turns = mem->Turns(kAna);
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), static_cast<size_t>(kThreads * kPerThread));
  // Memory agrees with the store: every turn is searchable exactly once.
  SearchOptions so;
  so.k = kThreads * kPerThread + 10;
  auto hits = mem->Search(kAna, "turn", so);
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(hits->hits.size(), static_cast<size_t>(kThreads * kPerThread));
}

}  // namespace
}  // namespace ontomem
