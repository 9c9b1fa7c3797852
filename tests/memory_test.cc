// The Memory facade over the in-memory store and the real SQLite store.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "engine/memory_impl.h"
#include "fake_embedder.h"
#include "store/read_only_store.h"
#include "store/store.h"
#include "test_util.h"

namespace ontomem {
namespace {

using testing::FakeEmbedder;

std::unique_ptr<MemoryImpl> NewMemory(size_t budget = size_t{64} << 20,
                                      std::shared_ptr<Embedder> emb = nullptr) {
  Options o;
  o.data_dir = "unused";
  o.memory_budget_bytes = budget;
  if (!emb) emb = std::make_shared<FakeEmbedder>();
  return std::make_unique<MemoryImpl>(o, NewInMemoryStore(), emb);
}

Turn T(std::string id, std::string speaker, std::string text, int64_t time_ms = 0) {
  Turn t = testing::MakeTurn(std::move(id), std::move(speaker), std::move(text));
  t.time_ms = time_ms;
  return t;
}

const UserKey kAna{"acme", "ana"};

TEST(Memory, IngestThenSearchEveryMethod) {
  auto mem = NewMemory();
  ASSERT_TRUE(mem->IngestBatch(kAna, {T("D1:1", "Ana", "I adopted a greyhound named Pixel"),
                                      T("D1:2", "Ben", "Congrats! Greyhounds are gentle"),
                                      T("D1:3", "Ana", "Tomorrow I start pottery classes")})
                  .ok());
  for (Method m : {Method::kDense, Method::kBm25, Method::kFusion}) {
    SearchOptions so;
    so.method = m;
    so.k = 2;
    auto r = mem->Search(kAna, "pottery classes", so);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->hits.empty()) << MethodName(m);
    EXPECT_EQ(r->hits[0].turn.turn.id, "D1:3") << MethodName(m);
    EXPECT_LE(r->hits.size(), 2u);
    EXPECT_EQ(r->method, MethodName(m));
    EXPECT_GT(r->context_tokens, 0);
  }
}

TEST(Memory, AssignsIdsAndKeepsOrder) {
  auto mem = NewMemory();
  ASSERT_TRUE(mem->Ingest(kAna, T("", "Ana", "first")).ok());
  ASSERT_TRUE(mem->Ingest(kAna, T("custom", "Ana", "second")).ok());
  auto turns = mem->Turns(kAna);
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), 2u);
  EXPECT_EQ((*turns)[0].turn.id, "T1");
  EXPECT_EQ((*turns)[1].turn.id, "custom");
  EXPECT_EQ((*turns)[1].seq, 2);
}

TEST(Memory, TenantsAndUsersAreAHardPartition) {
  auto mem = NewMemory();
  UserKey a{"tenant-a", "bob"}, b{"tenant-b", "bob"}, c{"tenant-a", "carol"};
  ASSERT_TRUE(mem->Ingest(a, T("x", "Bob", "secret recipe of tenant a uses saffron")).ok());
  ASSERT_TRUE(mem->Ingest(b, T("x", "Bob", "tenant b likes saffron too")).ok());
  ASSERT_TRUE(mem->Ingest(c, T("y", "Carol", "carol mentions saffron")).ok());
  SearchOptions so;
  for (const UserKey& k : {a, b, c}) {
    auto r = mem->Search(k, "saffron", so);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->hits.size(), 1u);  // only the user's own turn, never another's
  }
  EXPECT_NE(mem->Search(a, "saffron", so)->hits[0].turn.turn.text,
            mem->Search(b, "saffron", so)->hits[0].turn.turn.text);
  // Same id under another tenant is not a duplicate of this one.
  EXPECT_EQ(mem->Turns(b)->at(0).turn.text, "tenant b likes saffron too");
  // Forgetting one leaves the others intact.
  ASSERT_TRUE(mem->Forget(a).ok());
  EXPECT_EQ(mem->Search(a, "saffron", so).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(mem->Search(b, "saffron", so)->hits.size(), 1u);
  EXPECT_EQ(mem->Search(c, "saffron", so)->hits.size(), 1u);
  EXPECT_EQ(*mem->ListUsers("tenant-a"), std::vector<std::string>{"carol"});
  EXPECT_EQ(*mem->ListUsers("tenant-b"), std::vector<std::string>{"bob"});
  auto exported = mem->Export(b);
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ(exported->find("tenant a"), std::string::npos);
}

TEST(Memory, UnknownUserIsNotFoundEverywhere) {
  auto mem = NewMemory();
  UserKey ghost{"acme", "ghost"};
  EXPECT_EQ(mem->Search(ghost, "anything", {}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(mem->Export(ghost).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(mem->Forget(ghost).code(), StatusCode::kNotFound);
  EXPECT_EQ(mem->Turns(ghost).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(mem->ListUsers("nobody")->empty());
  EXPECT_EQ(mem->LoadedUsers(), 0u);
}

TEST(Memory, BadInputIsRejectedAndLosesNothing) {
  auto mem = NewMemory();
  ASSERT_TRUE(mem->Ingest(kAna, T("keep", "Ana", "an existing turn")).ok());
  struct Case {
    Turn turn;
    StatusCode code;
    const char* mentions;
  };
  std::vector<Case> cases = {
      {T("a", "Ana", "bad \xFF utf8"), StatusCode::kInvalidArgument, "UTF-8"},
      {T("b", "Ana", "   "), StatusCode::kInvalidArgument, "empty"},
      {T("c", "Ana", std::string(70000, 'x')), StatusCode::kResourceExhausted, "limit"},
      {T("d", "A\x01na", "ok"), StatusCode::kInvalidArgument, "speaker"},
      {T(std::string(300, 'i'), "Ana", "ok"), StatusCode::kInvalidArgument, "turn id"},
      {T("e", "Ana", "ok", -1), StatusCode::kInvalidArgument, "negative"},
      {T("f", "Ana", "ok", 1760000000000000), StatusCode::kInvalidArgument, "microseconds"},
  };
  for (const auto& c : cases) {
    // The bad turn sits in the middle of a batch: the whole batch must be refused.
    Status st = mem->IngestBatch(kAna, {T("good1", "Ana", "fine"), c.turn, T("good2", "Ana", "fine")});
    EXPECT_EQ(st.code(), c.code) << st.ToString();
    EXPECT_NE(st.message().find(c.mentions), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("turn 1"), std::string::npos) << st.ToString();
  }
  EXPECT_EQ(mem->Turns(kAna)->size(), 1u);
  EXPECT_EQ(mem->Ingest({"", "ana"}, T("x", "A", "hi")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(mem->Ingest({"acme", "bad\xC3"}, T("x", "A", "hi")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(mem->IngestBatch(kAna, {}).code(), StatusCode::kInvalidArgument);
  SearchOptions so;
  EXPECT_EQ(mem->Search(kAna, "", so).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(mem->Search(kAna, "bad \xFF", so).status().code(), StatusCode::kInvalidArgument);
  so.k = 0;
  EXPECT_EQ(mem->Search(kAna, "fine", so).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(mem->Turns(kAna)->size(), 1u);
}

TEST(Memory, DuplicateIdsAreIdempotentOrRejected) {
  auto mem = NewMemory();
  ASSERT_TRUE(mem->Ingest(kAna, T("D1:1", "Ana", "hello")).ok());
  EXPECT_TRUE(mem->Ingest(kAna, T("D1:1", "Ana", "hello")).ok());  // a retry
  EXPECT_EQ(mem->Turns(kAna)->size(), 1u);
  Status st = mem->IngestBatch(kAna, {T("D1:2", "Ana", "new"), T("D1:1", "Ana", "changed")});
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(mem->Turns(kAna)->size(), 1u);
  auto r = mem->Search(kAna, "say hello", {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->hits.size(), 1u);  // not indexed twice
}

TEST(Memory, EvictsUnderBudgetAndReloadsTransparently) {
  auto mem = NewMemory(/*budget=*/1);
  for (int u = 0; u < 4; ++u) {
    UserKey k{"acme", "user" + std::to_string(u)};
    ASSERT_TRUE(mem->Ingest(k, T("t", "U", "favourite colour is teal number " + std::to_string(u))).ok());
  }
  EXPECT_LE(mem->LoadedUsers(), 1u);
  for (int u = 0; u < 4; ++u) {
    UserKey k{"acme", "user" + std::to_string(u)};
    auto r = mem->Search(k, "teal colour", {});
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->hits.size(), 1u);
    EXPECT_NE(r->hits[0].turn.turn.text.find(std::to_string(u)), std::string::npos);
  }
  EXPECT_LE(mem->LoadedUsers(), 1u);
  // Every search had to reload its user: 4 first uses + 4 reloads, and as many evictions.
  CacheStats cs = mem->GetCacheStats();
  EXPECT_EQ(cs.misses, 8u);
  EXPECT_GE(cs.evictions, 6u);
  auto big = NewMemory(size_t{64} << 20);
  for (int u = 0; u < 4; ++u)
    ASSERT_TRUE(big->Ingest({"acme", "u" + std::to_string(u)}, T("t", "U", "x y z")).ok());
  EXPECT_EQ(big->LoadedUsers(), 4u);
  EXPECT_GT(big->MemoryUsage(), 0u);
  ASSERT_TRUE(big->Search({"acme", "u0"}, "x", {}).ok());
  cs = big->GetCacheStats();
  EXPECT_EQ(cs.misses, 4u);
  EXPECT_GE(cs.hits, 1u);
  EXPECT_EQ(cs.evictions, 0u);
}

TEST(Memory, ConcurrentWritersAndReadersLoseNothing) {
  auto mem = NewMemory();
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string id = fmt::format("t{}-{}", t, i);
        ASSERT_TRUE(mem->Ingest(kAna, T(id, "Ana", "message " + id + " about gardens")).ok());
        if (i % 5 == 0) {
          ASSERT_TRUE(mem->Search(kAna, "gardens", {}).ok());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  auto turns = mem->Turns(kAna);
  ASSERT_EQ(turns->size(), static_cast<size_t>(kThreads * kPerThread));
  for (size_t i = 0; i < turns->size(); ++i) EXPECT_EQ((*turns)[i].seq, static_cast<int64_t>(i + 1));
  SearchOptions so;
  so.k = 1000;
  auto r = mem->Search(kAna, "gardens", so);
  EXPECT_EQ(r->hits.size(), static_cast<size_t>(kThreads * kPerThread));
}

// Options for a SQLite data directory holding Ana's two turns, written by `emb`.
Options TwoTurnsOnDisk(const std::string& dir, std::shared_ptr<FakeEmbedder> emb) {
  Options o;
  o.data_dir = dir;
  o.embedder = std::move(emb);
  o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
  auto mem = Memory::Open(o);
  EXPECT_TRUE(mem.ok()) << mem.status().ToString();
  if (mem.ok()) {
    EXPECT_TRUE((*mem)->IngestBatch(kAna, {T("D1:1", "Ana", "I love jazz records"),
                                           T("D1:2", "Ana", "Sunday brunch with my aunt")})
                    .ok());
  }
  return o;
}

// The real SQLite store: data survives reopening and vectors are reused, not recomputed.
TEST(MemorySqlite, PersistsAcrossReopenAndReusesVectors) {
  const testing::TempDir temp("ontomem-mem");
  const std::string& dir = temp.path();
  auto emb = std::make_shared<FakeEmbedder>();
  Options o = TwoTurnsOnDisk(dir, emb);
  ASSERT_FALSE(::testing::Test::HasFailure());
  emb->calls = 0;
  {
    auto mem = Memory::Open(o);
    ASSERT_TRUE(mem.ok());
    auto r = (*mem)->Search(kAna, "jazz", {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->hits.empty());
    EXPECT_EQ(r->hits[0].turn.turn.id, "D1:1");
    EXPECT_EQ(emb->calls.load(), 1);  // the query only
  }
  // A different embedder: stored vectors are stale and get recomputed once.
  auto other = std::make_shared<FakeEmbedder>(32, "fake-32");
  o.embedder = other;
  {
    auto mem = Memory::Open(o);
    ASSERT_TRUE(mem.ok());
    ASSERT_TRUE((*mem)->Search(kAna, "jazz", {}).ok());
    EXPECT_EQ(other->calls.load(), 3);  // two turns + the query
  }
  other->calls = 0;
  {
    auto mem = Memory::Open(o);
    ASSERT_TRUE((*mem)->Search(kAna, "jazz", {}).ok());
    EXPECT_EQ(other->calls.load(), 1);  // rewritten vectors were persisted
  }
}

// A data directory opened read-only (what OpenSqliteStore does when it cannot write there):
// searches work, also with another embedder (recomputed vectors stay in memory), and writes
// fail saying why.
TEST(MemorySqlite, ReadOnlyStoreServesSearchesAndRefusesWrites) {
  const testing::TempDir temp("ontomem-mem");
  const std::string& dir = temp.path();
  Options o = TwoTurnsOnDisk(dir, std::make_shared<FakeEmbedder>());
  ASSERT_FALSE(::testing::Test::HasFailure());
  auto other = std::make_shared<FakeEmbedder>(32, "fake-32");
  o.embedder = other;
  auto store = OpenSqliteStoreReadOnly(dir);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  MemoryImpl mem(o, std::move(*store), other);
  auto r = mem.Search(kAna, "jazz", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].turn.turn.id, "D1:1");
  EXPECT_EQ(mem.ListUsers("acme").value(), std::vector<std::string>{"ana"});
  EXPECT_EQ(mem.Turns(kAna)->size(), 2u);
  for (const Status& st : {mem.Ingest(kAna, T("D1:3", "Ana", "new")), mem.Forget(kAna)}) {
    EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition) << st.ToString();
    EXPECT_NE(st.message().find("read-only"), std::string::npos) << st.ToString();
  }
  EXPECT_EQ(mem.Turns(kAna)->size(), 2u);
}

TEST(MemorySqlite, OpenErrors) {
  Options o;
  EXPECT_EQ(Memory::Open(o).status().code(), StatusCode::kInvalidArgument);
  const testing::TempDir temp("ontomem-mem");
  o.data_dir = temp.path() + "/missing";
  o.embedder = std::make_shared<FakeEmbedder>();
  o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
  o.create_if_missing = false;
  EXPECT_EQ(Memory::Open(o).status().code(), StatusCode::kNotFound);
  o.embedder = nullptr;
  o.create_if_missing = true;
  o.lexicon_path = o.data_dir + "/no-such-lexicon.bin";
  auto st = Memory::Open(o).status();
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("make lexicon"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace ontomem
