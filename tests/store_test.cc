// Store contract tests, run against the SQLite store and the in-memory fake, plus SQLite-only
// tests for files on disk (reopen, foreign files, newer schema, concurrent instances).
#include <grp.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/read_only_store.h"
#include "store/store.h"
#include "test_util.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;

TurnRecord Rec(std::string id, std::string speaker, std::string text, int64_t time_ms = 0,
               std::vector<float> vec = {}, std::string embedder = "") {
  TurnRecord r;
  r.stored.turn.id = std::move(id);
  r.stored.turn.speaker = std::move(speaker);
  r.stored.turn.text = std::move(text);
  r.stored.turn.time_ms = time_ms;
  r.vector = std::move(vec);
  r.embedder_id = std::move(embedder);
  return r;
}

std::vector<TurnRecord> LoadOrDie(Store* store, const UserKey& key) {
  StatusOr<std::vector<TurnRecord>> turns = store->LoadTurns(key);
  EXPECT_TRUE(turns.ok()) << turns.status().ToString();
  return turns.ok() ? std::move(turns).value() : std::vector<TurnRecord>{};
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Runs SQL against a database file with the raw C API (to fake foreign or future files).
void RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

int64_t RawQueryInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    v = sqlite3_column_int64(s, 0);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}

std::string RawQueryText(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  std::string v;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Contract, for both implementations.

class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    store_ = Make();
    ASSERT_NE(store_, nullptr);
  }
  void TearDown() override {
    store_.reset();
  }
  std::unique_ptr<Store> Make() {
    if (GetParam() == "Memory") return NewInMemoryStore();
    auto s = OpenSqliteStore(dir_, true, Durability::kNormal);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  void Append(const UserKey& key, std::vector<TurnRecord>* recs) {
    Status st = store_->AppendTurns(key, recs);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  const testing::TempDir temp_{"ontomem-store"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::unique_ptr<Store> store_;
  const UserKey alice_{"acme", "alice"};
};

TEST_P(StoreTest, GraphDeltaIsStoredWithItsTurnsAndDeletedWithTheUser) {
  std::vector<TurnRecord> recs = {Rec("D1:1", "Ana", "I love Titanic"), Rec("D1:2", "Ben", "nice")};
  GraphDelta delta;
  Assertion a;
  a.head = "Ana", a.relation = "LIKES", a.tail = "titanic", a.tail_type = "movie";
  a.domain = "movies_tv", a.tail_begin = 7, a.tail_end = 14, a.time_ms = 5, a.confidence = 0.9f;
  delta.assertions.push_back({0, a});
  GraphEdge e;
  e.key = "person:ana|LIKES|entity:titanic|5", e.source = "person:ana", e.relation = "LIKES";
  e.target = "entity:titanic", e.weight = 0.9f, e.valid_from = 5, e.source_turns = {"D1:1"};
  e.assertion_keys = {"D1:1#LIKES@7"};
  delta.edges.push_back(e);
  ASSERT_TRUE(store_->AppendTurns(alice_, &recs, &delta).ok());
  auto as = store_->LoadAssertions(alice_);
  ASSERT_TRUE(as.ok()) << as.status().ToString();
  ASSERT_EQ(as->size(), 1u);
  EXPECT_EQ((*as)[0].source_seq, 1);
  EXPECT_EQ((*as)[0].source_turn, "D1:1");
  EXPECT_EQ((*as)[0].tail, "titanic");
  EXPECT_EQ((*as)[0].modality, Modality::kAsserted);
  EXPECT_FLOAT_EQ((*as)[0].confidence, 0.9f);

  // The same turn retried: its assertion is not stored twice; the edge is upserted by key.
  std::vector<TurnRecord> again = {Rec("D1:1", "Ana", "I love Titanic")};
  delta.edges[0].weight = 0.95f;
  delta.edges[0].valid_to = 9;
  ASSERT_TRUE(store_->AppendTurns(alice_, &again, &delta).ok());
  EXPECT_TRUE(again[0].duplicate);
  EXPECT_EQ(store_->LoadAssertions(alice_)->size(), 1u);
  auto es = store_->LoadEdges(alice_);
  ASSERT_TRUE(es.ok());
  ASSERT_EQ(es->size(), 1u);
  EXPECT_FLOAT_EQ((*es)[0].weight, 0.95f);
  EXPECT_EQ((*es)[0].valid_to, 9);
  EXPECT_EQ((*es)[0].source_turns, std::vector<std::string>{"D1:1"});
  EXPECT_EQ((*es)[0].assertion_keys, std::vector<std::string>{"D1:1#LIKES@7"});

  // An explicit fact with no turn creates the user if needed.
  const UserKey bob{"acme", "bob"};
  GraphDelta fact;
  a.explicit_fact = true;
  fact.assertions.push_back({GraphDelta::kNoTurn, a});
  std::vector<TurnRecord> none;
  ASSERT_TRUE(store_->AppendTurns(bob, &none, &fact).ok());
  auto bas = store_->LoadAssertions(bob);
  ASSERT_TRUE(bas.ok());
  ASSERT_EQ(bas->size(), 1u);
  EXPECT_TRUE((*bas)[0].explicit_fact);
  EXPECT_EQ((*bas)[0].source_seq, 0);
  EXPECT_TRUE(store_->LoadTurns(bob)->empty());

  ASSERT_TRUE(store_->DeleteUser(alice_).ok());
  EXPECT_EQ(store_->LoadAssertions(alice_).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->LoadEdges(alice_).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->LoadAssertions(bob)->size(), 1u);  // others untouched
}

// The engine names id-less turns in its edges by record until the store has assigned their ids.
TEST_P(StoreTest, EdgesOfIdLessTurnsNameTheAssignedIds) {
  std::vector<TurnRecord> recs = {Rec("", "Ana", "I love jazz"), Rec("D1:2", "Ana", "hm"),
                                  Rec("", "Ana", "I love jazz, really")};
  GraphDelta delta;
  Assertion a;
  a.head = "Ana", a.relation = "LIKES", a.tail = "jazz", a.tail_begin = 7, a.confidence = 0.9f;
  a.source_turn = PendingTurnId(0);
  delta.assertions.push_back({0, a});
  a.source_turn = PendingTurnId(2);
  delta.assertions.push_back({2, a});
  GraphEdge e;
  e.key = "person:ana|LIKES|entity:jazz|0", e.source = "person:ana", e.relation = "LIKES";
  e.target = "entity:jazz", e.weight = 0.99f, e.source_turns = {PendingTurnId(0), "D1:2", PendingTurnId(2)};
  e.assertion_keys = {PendingTurnId(0) + "#LIKES@7", PendingTurnId(2) + "#LIKES@7"};
  delta.edges.push_back(e);
  ASSERT_TRUE(store_->AppendTurns(alice_, &recs, &delta).ok());
  EXPECT_EQ(recs[2].stored.turn.id, "T3");
  auto es = store_->LoadEdges(alice_);
  ASSERT_TRUE(es.ok()) << es.status().ToString();
  ASSERT_EQ(es->size(), 1u);
  EXPECT_EQ((*es)[0].source_turns.get(), (std::vector<std::string>{"T1", "D1:2", "T3"}));
  EXPECT_EQ((*es)[0].assertion_keys.get(), (std::vector<std::string>{"T1#LIKES@7", "T3#LIKES@7"}));
  auto as = store_->LoadAssertions(alice_);
  ASSERT_TRUE(as.ok()) << as.status().ToString();
  ASSERT_EQ(as->size(), 2u);
  EXPECT_EQ((*as)[0].source_turn, "T1");
  EXPECT_EQ((*as)[1].source_turn, "T3");

  // A pending id naming no record of the call is refused with the whole call.
  std::vector<TurnRecord> more = {Rec("", "Ana", "again")};
  delta.assertions.clear();
  delta.edges[0].source_turns = {PendingTurnId(1)};
  Status st = store_->AppendTurns(alice_, &more, &delta);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_EQ(LoadOrDie(store_.get(), alice_).size(), 3u);
  EXPECT_EQ(store_->LoadEdges(alice_)->at(0).source_turns.size(), 3u);
}

// A replayed graph replaces the user's stored edges: those it no longer has are removed, in the
// same transaction as the turns; other users' edges stay.
TEST_P(StoreTest, ReplacingEdgesRemovesTheOnesNotSentAgain) {
  auto edge = [](const std::string& target) {
    GraphEdge e;
    e.source = "person:ana", e.relation = "LIKES", e.target = target, e.weight = 0.9f;
    e.key = e.source + "|LIKES|" + target + "|0";
    return e;
  };
  const UserKey bob{"acme", "bob"};
  for (const UserKey& k : {alice_, bob}) {
    std::vector<TurnRecord> recs = {Rec("D1:1", "Ana", "I love jazz and tea")};
    GraphDelta delta;
    delta.edges = {edge("entity:jazz"), edge("entity:tea")};
    ASSERT_TRUE(store_->AppendTurns(k, &recs, &delta).ok());
  }
  std::vector<TurnRecord> recs = {Rec("D0:1", "Ana", "I love soup")};
  GraphDelta replay;
  replay.replace_edges = true;
  replay.edges = {edge("entity:soup"), edge("entity:tea")};
  ASSERT_TRUE(store_->AppendTurns(alice_, &recs, &replay).ok());
  auto targets = [&](const UserKey& k) {
    std::set<std::string> out;
    for (const GraphEdge& e : *store_->LoadEdges(k)) out.insert(e.target);
    return out;
  };
  EXPECT_EQ(targets(alice_), (std::set<std::string>{"entity:soup", "entity:tea"}));
  EXPECT_EQ(targets(bob), (std::set<std::string>{"entity:jazz", "entity:tea"}));
  // A replay down to no edges at all is a write too.
  GraphDelta none;
  none.replace_edges = true;
  std::vector<TurnRecord> nothing;
  ASSERT_TRUE(store_->AppendTurns(alice_, &nothing, &none).ok());
  EXPECT_TRUE(store_->LoadEdges(alice_)->empty());
}

TEST_P(StoreTest, RoundTripWithVectorsAndUnicode) {
  std::vector<TurnRecord> recs = {
      Rec("D1:1", "Zoë", "Ich möchte nach Zürich fahren 🚆", 1700000000123, {0.5f, -1.25f, 3e-8f},
          "glove-sif-300"),
      Rec("D1:2", "", "日本語のテキスト، والعربية too", 0),
      Rec("D1:3", "bob", "combining e\xcc\x81 and a NUL-free line\nwith newline", -5, {1.0f},
          "other"),
  };
  recs[1].stored.turn.session = "session_1";
  recs[2].stored.turn.session = "séance_2";
  Append(alice_, &recs);

  std::vector<TurnRecord> got = LoadOrDie(store_.get(), alice_);
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got[i].stored.seq, static_cast<int64_t>(i + 1));
    EXPECT_EQ(got[i].stored.turn.id, recs[i].stored.turn.id);
    EXPECT_EQ(got[i].stored.turn.speaker, recs[i].stored.turn.speaker);
    EXPECT_EQ(got[i].stored.turn.text, recs[i].stored.turn.text);
    EXPECT_EQ(got[i].stored.turn.time_ms, recs[i].stored.turn.time_ms);
    EXPECT_EQ(got[i].stored.turn.session, recs[i].stored.turn.session);
    EXPECT_EQ(got[i].vector, recs[i].vector);  // bit-exact floats
    EXPECT_EQ(got[i].embedder_id, recs[i].embedder_id);
    EXPECT_FALSE(got[i].duplicate);
  }
}

TEST_P(StoreTest, AssignsSeqAndIdsAcrossBatches) {
  std::vector<TurnRecord> a = {Rec("", "x", "one"), Rec("", "x", "two")};
  Append(alice_, &a);
  EXPECT_EQ(a[0].stored.seq, 1);
  EXPECT_EQ(a[0].stored.turn.id, "T1");
  EXPECT_EQ(a[1].stored.seq, 2);
  EXPECT_EQ(a[1].stored.turn.id, "T2");

  std::vector<TurnRecord> b = {Rec("D1:3", "x", "three"), Rec("", "x", "four")};
  Append(alice_, &b);
  EXPECT_EQ(b[0].stored.seq, 3);
  EXPECT_EQ(b[0].stored.turn.id, "D1:3");
  EXPECT_EQ(b[1].stored.seq, 4);
  EXPECT_EQ(b[1].stored.turn.id, "T4");

  std::vector<TurnRecord> got = LoadOrDie(store_.get(), alice_);
  ASSERT_EQ(got.size(), 4u);
  std::vector<std::string> texts;
  for (const auto& r : got) texts.push_back(r.stored.turn.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"one", "two", "three", "four"}));
  EXPECT_EQ(got[3].stored.turn.id, "T4");
}

TEST_P(StoreTest, EmptyBatchCreatesNothing) {
  std::vector<TurnRecord> none;
  Append(alice_, &none);
  auto has = store_->HasUser(alice_);
  ASSERT_TRUE(has.ok());
  EXPECT_FALSE(*has);
}

TEST_P(StoreTest, DuplicateWithSameContentIsNoOp) {
  std::vector<TurnRecord> a = {Rec("D1:1", "x", "hello", 42, {1, 2}, "e")};
  Append(alice_, &a);
  // Retry of the same turn (vector and session may differ; only id+content matter) plus a new one.
  std::vector<TurnRecord> b = {Rec("D1:1", "x", "hello", 42), Rec("D1:2", "y", "new")};
  Append(alice_, &b);
  EXPECT_TRUE(b[0].duplicate);
  EXPECT_EQ(b[0].stored.seq, 1);  // where the original lives
  EXPECT_FALSE(b[1].duplicate);
  EXPECT_EQ(b[1].stored.seq, 2);

  std::vector<TurnRecord> got = LoadOrDie(store_.get(), alice_);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].vector, (std::vector<float>{1, 2}));  // the original is untouched
  EXPECT_EQ(got[1].stored.turn.id, "D1:2");
}

TEST_P(StoreTest, DuplicateWithDifferentContentRejectsWholeBatch) {
  std::vector<TurnRecord> a = {Rec("D1:1", "x", "hello", 42)};
  Append(alice_, &a);

  const std::vector<TurnRecord> conflicts = {
      Rec("D1:1", "x", "hello!", 42),  // text
      Rec("D1:1", "y", "hello", 42),   // speaker
      Rec("D1:1", "x", "hello", 43),   // time
  };
  for (const TurnRecord& conflict : conflicts) {
    std::vector<TurnRecord> b = {Rec("D1:2", "x", "fine"), Rec("", "x", "fine too"), conflict};
    const std::vector<TurnRecord> before = b;
    Status st = store_->AppendTurns(alice_, &b);
    EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
    EXPECT_NE(st.message().find("D1:1"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("acme/alice"), std::string::npos) << st.message();
    // Nothing stored, caller's records untouched.
    EXPECT_EQ(LoadOrDie(store_.get(), alice_).size(), 1u);
    for (size_t i = 0; i < b.size(); ++i) {
      EXPECT_EQ(b[i].stored.seq, before[i].stored.seq);
      EXPECT_EQ(b[i].stored.turn.id, before[i].stored.turn.id);
      EXPECT_FALSE(b[i].duplicate);
    }
  }
  // The store still works and seqs continue without gaps.
  std::vector<TurnRecord> c = {Rec("D1:2", "x", "fine")};
  Append(alice_, &c);
  EXPECT_EQ(c[0].stored.seq, 2);
}

TEST_P(StoreTest, DuplicateInsideOneBatch) {
  std::vector<TurnRecord> same = {Rec("X", "s", "t", 1), Rec("X", "s", "t", 1)};
  Append(alice_, &same);
  EXPECT_FALSE(same[0].duplicate);
  EXPECT_TRUE(same[1].duplicate);
  EXPECT_EQ(same[0].stored.seq, 1);
  EXPECT_EQ(same[1].stored.seq, 1);
  EXPECT_EQ(LoadOrDie(store_.get(), alice_).size(), 1u);

  std::vector<TurnRecord> differ = {Rec("Y", "s", "t"), Rec("Y", "s", "u")};
  Status st = store_->AppendTurns(alice_, &differ);
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
  EXPECT_NE(st.message().find("turn id Y is given twice in this batch"), std::string::npos) << st.ToString();
  EXPECT_EQ(LoadOrDie(store_.get(), alice_).size(), 1u);  // the first Y is not stored either
}

TEST_P(StoreTest, AssignedIdSkipsIdsTheCallerTook) {
  // The caller used "T2" and "T2.2" for seqs 1 and 2; seq 2's id-less turn would be "T2". A
  // rejection here would refuse every id-less turn at this seq, retried or not.
  std::vector<TurnRecord> a = {Rec("T2", "x", "first"), Rec("T3", "x", "second")};
  Append(alice_, &a);
  std::vector<TurnRecord> b = {Rec("", "x", "third"), Rec("", "x", "fourth"), Rec("", "x", "fifth")};
  Append(alice_, &b);
  EXPECT_EQ(b[0].stored.seq, 3);
  EXPECT_EQ(b[0].stored.turn.id, "T3.2");  // "T3" is the caller's
  EXPECT_EQ(b[1].stored.turn.id, "T4");
  EXPECT_EQ(b[2].stored.turn.id, "T5");
  const auto all = LoadOrDie(store_.get(), alice_);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[2].stored.turn.id, "T3.2");
  EXPECT_EQ(all[2].stored.turn.text, "third");
  // Resending the caller's "T3" is still a duplicate of seq 2, not of the assigned turn.
  std::vector<TurnRecord> c = {Rec("T3", "x", "second")};
  Append(alice_, &c);
  EXPECT_TRUE(c[0].duplicate);
  EXPECT_EQ(c[0].stored.seq, 2);
}

TEST_P(StoreTest, ASessionChangeIsDifferentContent) {
  std::vector<TurnRecord> a = {Rec("a1", "x", "hello")};
  a[0].stored.turn.session = "s1";
  Append(alice_, &a);
  std::vector<TurnRecord> b = {Rec("a1", "x", "hello")};
  b[0].stored.turn.session = "s2";
  Status st = store_->AppendTurns(alice_, &b);
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
  EXPECT_NE(st.message().find("already stored"), std::string::npos) << st.ToString();
  b[0].stored.turn.session = "s1";
  Append(alice_, &b);
  EXPECT_TRUE(b[0].duplicate);
}

TEST_P(StoreTest, TenantsAndUsersArePartitioned) {
  const UserKey a{"tenant-a", "bob"}, b{"tenant-b", "bob"}, c{"tenant-a", "carol"};
  std::vector<TurnRecord> ra = {Rec("D1", "bob", "secret of a")};
  std::vector<TurnRecord> rb = {Rec("D1", "bob", "secret of b"), Rec("D2", "bob", "more b")};
  std::vector<TurnRecord> rc = {Rec("D1", "carol", "carol's")};
  Append(a, &ra);
  Append(b, &rb);  // same id, different content, other partition: no conflict
  Append(c, &rc);
  EXPECT_EQ(ra[0].stored.seq, 1);
  EXPECT_EQ(rb[0].stored.seq, 1);
  EXPECT_EQ(rc[0].stored.seq, 1);

  auto ga = LoadOrDie(store_.get(), a);
  auto gb = LoadOrDie(store_.get(), b);
  auto gc = LoadOrDie(store_.get(), c);
  ASSERT_EQ(ga.size(), 1u);
  ASSERT_EQ(gb.size(), 2u);
  ASSERT_EQ(gc.size(), 1u);
  EXPECT_EQ(ga[0].stored.turn.text, "secret of a");
  EXPECT_EQ(gb[0].stored.turn.text, "secret of b");
  EXPECT_EQ(gc[0].stored.turn.text, "carol's");

  // Unknown combinations do not exist even though both names do.
  EXPECT_EQ(store_->LoadTurns({"tenant-b", "carol"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(*store_->ListUsers("tenant-a"), (std::vector<std::string>{"bob", "carol"}));
  EXPECT_EQ(*store_->ListUsers("tenant-b"), (std::vector<std::string>{"bob"}));

  ASSERT_TRUE(store_->DeleteUser(b).ok());
  EXPECT_EQ(LoadOrDie(store_.get(), a).size(), 1u);
  EXPECT_EQ(store_->LoadTurns(b).status().code(), StatusCode::kNotFound);
}

TEST_P(StoreTest, DeleteRemovesEverythingAndLeavesOthers) {
  const UserKey bob{"acme", "bob"};
  std::vector<TurnRecord> ra = {Rec("D1", "a", "one", 0, {1, 2, 3}, "e"), Rec("D2", "a", "two")};
  std::vector<TurnRecord> rb = {Rec("D1", "b", "bob one", 0, {4, 5}, "e")};
  Append(alice_, &ra);
  Append(bob, &rb);

  ASSERT_TRUE(store_->DeleteUser(alice_).ok());
  EXPECT_EQ(store_->LoadTurns(alice_).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(*store_->HasUser(alice_));
  EXPECT_EQ(*store_->ListUsers("acme"), (std::vector<std::string>{"bob"}));
  EXPECT_EQ(store_->DeleteUser(alice_).code(), StatusCode::kNotFound);

  auto gb = LoadOrDie(store_.get(), bob);
  ASSERT_EQ(gb.size(), 1u);
  EXPECT_EQ(gb[0].vector, (std::vector<float>{4, 5}));

  // A re-created user starts from scratch: seq 1, old ids free, no old vectors.
  std::vector<TurnRecord> again = {Rec("D1", "a", "different now")};
  Append(alice_, &again);
  EXPECT_EQ(again[0].stored.seq, 1);
  EXPECT_FALSE(again[0].duplicate);
  auto ga = LoadOrDie(store_.get(), alice_);
  ASSERT_EQ(ga.size(), 1u);
  EXPECT_TRUE(ga[0].vector.empty());
  EXPECT_EQ(ga[0].stored.turn.text, "different now");
}

TEST_P(StoreTest, FeedbackIsCheckedStoredInOrderAndDeletedWithTheUser) {
  std::vector<TurnRecord> ra = {Rec("D1", "a", "one"), Rec("D2", "a", "two")};
  std::vector<TurnRecord> rb = {Rec("B1", "b", "bob's")};
  Append(alice_, &ra);
  Append({"acme", "bob"}, &rb);
  Feedback f;
  f.query_id = "q1";
  f.query = "what?";
  f.used = {"D1"};
  f.missed = {"D2"};
  f.time_ms = 42;
  ASSERT_TRUE(store_->AppendFeedback(alice_, f).ok());
  Feedback g;
  g.query_id = "q2";
  g.wrong = {"D2", "D1"};
  ASSERT_TRUE(store_->AppendFeedback(alice_, g).ok());
  Feedback bad = g;
  bad.wrong = {"D1", "B1"};  // bob's turn
  Status st = store_->AppendFeedback(alice_, bad);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("wrong names turn B1"), std::string::npos) << st.ToString();
  EXPECT_EQ(store_->AppendFeedback({"acme", "nobody"}, f).code(), StatusCode::kNotFound);

  auto log = store_->LoadFeedback(alice_);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  ASSERT_EQ(log->size(), 2u);
  EXPECT_EQ((*log)[0].query_id, "q1");
  EXPECT_EQ((*log)[0].query, "what?");
  EXPECT_EQ((*log)[0].used, std::vector<std::string>{"D1"});
  EXPECT_TRUE((*log)[0].wrong.empty());
  EXPECT_EQ((*log)[0].missed, std::vector<std::string>{"D2"});
  EXPECT_EQ((*log)[0].time_ms, 42);
  EXPECT_EQ((*log)[1].wrong, (std::vector<std::string>{"D2", "D1"}));
  EXPECT_TRUE(store_->LoadFeedback({"acme", "bob"})->empty());

  auto stats = store_->GetTenantStats("acme");
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->users, 2);
  EXPECT_EQ(stats->turns, 3);
  EXPECT_EQ(stats->text_bytes, 11);

  ASSERT_TRUE(store_->DeleteUser(alice_).ok());
  EXPECT_EQ(store_->LoadFeedback(alice_).status().code(), StatusCode::kNotFound);
  Append(alice_, &ra);  // re-created: starts with no feedback
  EXPECT_TRUE(store_->LoadFeedback(alice_)->empty());
}

TEST_P(StoreTest, UnknownUsersAndTenants) {
  EXPECT_EQ(store_->LoadTurns(alice_).status().code(), StatusCode::kNotFound);
  auto has = store_->HasUser(alice_);
  ASSERT_TRUE(has.ok());
  EXPECT_FALSE(*has);
  EXPECT_EQ(store_->DeleteUser(alice_).code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->UpdateVectors(alice_, {}).code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->LoadFeedback(alice_).status().code(), StatusCode::kNotFound);
  auto stats = store_->GetTenantStats("nobody");
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->users + stats->turns + stats->text_bytes, 0);
  auto users = store_->ListUsers("nobody");
  ASSERT_TRUE(users.ok());
  EXPECT_TRUE(users->empty());
}

// Versions tell a cached copy from the stored user: every committed write moves them on, across
// users, so a deleted and re-created user never looks like the copy of the old one.
TEST_P(StoreTest, VersionsMoveOnWithEveryWriteAndNeverRepeat) {
  EXPECT_EQ(store_->UserVersion(alice_).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->LoadUser(alice_).status().code(), StatusCode::kNotFound);
  std::vector<TurnRecord> r = {Rec("D1", "a", "one", 0, {1, 2}, "e")};
  WriteBase base;  // version 0: the caller knows of no stored user
  base.rebase = [](UserSnapshot&&, GraphDelta*) { return Status::Internal("nothing moved, no rebase"); };
  GraphDelta none;
  ASSERT_TRUE(store_->AppendTurns(alice_, &r, &none, &base).ok());
  const uint64_t v1 = *store_->UserVersion(alice_);
  EXPECT_GT(v1, 0u);
  EXPECT_EQ(base.committed, v1);

  std::vector<TurnRecord> other = {Rec("B1", "b", "bob")};
  Append({"acme", "bob"}, &other);
  EXPECT_EQ(*store_->UserVersion(alice_), v1);  // another user's write leaves alice's version
  EXPECT_GT(*store_->UserVersion({"acme", "bob"}), v1);

  TurnRecord revector = r[0];
  revector.vector = {3, 4};
  ASSERT_TRUE(store_->UpdateVectors(alice_, {revector}).ok());
  EXPECT_EQ(*store_->UserVersion(alice_), v1);  // same turns: a cached copy stays current

  Feedback f;
  f.query_id = "q1";
  f.used = {"D1"};
  ASSERT_TRUE(store_->AppendFeedback(alice_, f).ok());
  const uint64_t v2 = *store_->UserVersion(alice_);
  EXPECT_GT(v2, v1);

  auto snap = store_->LoadUser(alice_);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->version, v2);
  ASSERT_EQ(snap->turns.size(), 1u);
  EXPECT_EQ(snap->turns[0].stored.turn.id, "D1");
  EXPECT_EQ(snap->turns[0].vector, (std::vector<float>{3, 4}));
  ASSERT_EQ(snap->feedback.size(), 1u);
  EXPECT_EQ(snap->feedback[0].query_id, "q1");

  // What came after a cursor, and everything for another incarnation of the user.
  std::vector<TurnRecord> more = {Rec("D2", "a", "two")};
  Append(alice_, &more);
  auto added = store_->LoadUser(alice_, &snap->cursor);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_TRUE(added->since);
  ASSERT_EQ(added->turns.size(), 1u);
  EXPECT_EQ(added->turns[0].stored.turn.id, "D2");
  EXPECT_TRUE(added->feedback.empty());
  EXPECT_EQ(added->cursor.turns, 2);
  EXPECT_EQ(added->cursor.feedback, snap->cursor.feedback);
  EXPECT_EQ(added->cursor.created, snap->cursor.created);

  ASSERT_TRUE(store_->DeleteUser(alice_).ok());
  EXPECT_EQ(store_->UserVersion(alice_).status().code(), StatusCode::kNotFound);
  std::vector<TurnRecord> again = {Rec("D1", "a", "one"), Rec("D2", "a", "two"), Rec("D3", "a", "three")};
  Append(alice_, &again);
  EXPECT_GT(*store_->UserVersion(alice_), v2);
  auto reborn = store_->LoadUser(alice_, &added->cursor);
  ASSERT_TRUE(reborn.ok());
  EXPECT_FALSE(reborn->since);
  EXPECT_EQ(reborn->turns.size(), 3u);
  EXPECT_NE(reborn->cursor.created, added->cursor.created);
}

// A write computed from a stale copy is recomputed, inside the store's transaction, from what is
// stored: the delta the rebase writes is the one stored, the stale one is not.
TEST_P(StoreTest, AWriteFromAStaleCopyIsRebasedOnTheStoredUser) {
  std::vector<TurnRecord> first = {Rec("D1", "Ana", "I love jazz")};
  Append(alice_, &first);
  const uint64_t seen = *store_->UserVersion(alice_);
  std::vector<TurnRecord> second = {Rec("D2", "Ana", "I love jazz a lot")};
  Append(alice_, &second);  // another writer: `seen` is stale now

  GraphEdge stale_edge;
  stale_edge.key = "person:ana|LIKES|entity:jazz";
  stale_edge.source = "person:ana";
  stale_edge.relation = "LIKES";
  stale_edge.target = "entity:jazz";
  stale_edge.source_turns = std::vector<std::string>{"D1", "D3"};
  GraphDelta delta;
  delta.edges.push_back(stale_edge);
  size_t rebased_turns = 0;
  WriteBase base;
  base.version = seen;
  base.rebase = [&](UserSnapshot&& stored, GraphDelta* d) -> Status {
    rebased_turns = stored.turns.size();
    EXPECT_TRUE(d->edges.empty());  // handed over cleared
    GraphEdge e = stale_edge;
    e.source_turns = std::vector<std::string>{"D1", "D2", "D3"};
    d->edges.push_back(e);
    return Status::Ok();
  };
  std::vector<TurnRecord> third = {Rec("D3", "Ana", "jazz again")};
  Status st = store_->AppendTurns(alice_, &third, &delta, &base);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(rebased_turns, 2u);  // what was stored before this write
  EXPECT_EQ(third[0].stored.seq, 3);
  EXPECT_EQ(base.committed, *store_->UserVersion(alice_));
  auto edges = store_->LoadEdges(alice_);
  ASSERT_TRUE(edges.ok());
  ASSERT_EQ(edges->size(), 1u);
  EXPECT_EQ((*edges)[0].source_turns.get(), (std::vector<std::string>{"D1", "D2", "D3"}));

  // A failing rebase fails the write and stores nothing.
  base.version = seen;
  base.rebase = [](UserSnapshot&&, GraphDelta*) { return Status::Internal("cannot rebase"); };
  std::vector<TurnRecord> fourth = {Rec("D4", "Ana", "lost")};
  EXPECT_EQ(store_->AppendTurns(alice_, &fourth, &delta, &base).code(), StatusCode::kInternal);
  EXPECT_EQ(store_->LoadTurns(alice_)->size(), 3u);
  Feedback f;
  f.query_id = "q";
  f.used = {"D1"};
  EXPECT_EQ(store_->AppendFeedback(alice_, f, &base).code(), StatusCode::kInternal);
  EXPECT_TRUE(store_->LoadFeedback(alice_)->empty());
}

// With the copy's cursor, the rebase gets only what came after it, unless the user was re-created.
TEST_P(StoreTest, ARebaseFromACursorGetsOnlyTheRowsAfterIt) {
  std::vector<TurnRecord> first = {Rec("D1", "Ana", "I love jazz")};
  Append(alice_, &first);
  auto copy = store_->LoadUser(alice_);
  ASSERT_TRUE(copy.ok());
  std::vector<TurnRecord> second = {Rec("D2", "Ana", "I love jazz a lot")};
  Append(alice_, &second);  // another writer
  Feedback f;
  f.query_id = "q";
  f.used = {"D2"};
  ASSERT_TRUE(store_->AppendFeedback(alice_, f).ok());

  UserSnapshot handed;
  WriteBase base;
  base.version = copy->version;
  base.since = &copy->cursor;
  base.rebase = [&](UserSnapshot&& stored, GraphDelta*) -> Status {
    handed = std::move(stored);
    return Status::Ok();
  };
  std::vector<TurnRecord> third = {Rec("D3", "Ana", "jazz again")};
  ASSERT_TRUE(store_->AppendTurns(alice_, &third, nullptr, &base).ok());
  EXPECT_TRUE(handed.since);
  ASSERT_EQ(handed.turns.size(), 1u);
  EXPECT_EQ(handed.turns[0].stored.turn.id, "D2");
  ASSERT_EQ(handed.feedback.size(), 1u);
  EXPECT_EQ(handed.feedback[0].query_id, "q");
  EXPECT_EQ(handed.cursor.turns, 2);  // where the stored user stood before this write

  // The user is deleted and re-created: the old cursor means nothing, everything is handed over.
  ASSERT_TRUE(store_->DeleteUser(alice_).ok());
  std::vector<TurnRecord> again = {Rec("E1", "Ana", "new life"), Rec("E2", "Ana", "and more")};
  Append(alice_, &again);
  handed = UserSnapshot();
  std::vector<TurnRecord> fourth = {Rec("E3", "Ana", "third")};
  ASSERT_TRUE(store_->AppendTurns(alice_, &fourth, nullptr, &base).ok());
  EXPECT_FALSE(handed.since);
  EXPECT_EQ(handed.turns.size(), 2u);
}

TEST_P(StoreTest, ListUsersSorted) {
  for (const char* name : {"zed", "Ålice", "amy", "Bob", "bob"}) {
    std::vector<TurnRecord> r = {Rec("", "", "hi")};
    Append({"t", name}, &r);
  }
  std::vector<TurnRecord> other = {Rec("", "", "hi")};
  Append({"t2", "aaron"}, &other);
  std::vector<std::string> expected = {"zed", "Ålice", "amy", "Bob", "bob"};
  std::sort(expected.begin(), expected.end());  // byte order
  EXPECT_EQ(*store_->ListUsers("t"), expected);
  EXPECT_TRUE(*store_->HasUser({"t", "amy"}));
}

TEST_P(StoreTest, UpdateVectors) {
  std::vector<TurnRecord> r = {Rec("a", "", "one", 0, {1}, "old"), Rec("b", "", "two"),
                               Rec("c", "", "three", 0, {3}, "old")};
  Append(alice_, &r);

  std::vector<TurnRecord> upd(2);
  upd[0].stored.seq = 1;  // clear: recomputed on load
  upd[1].stored.seq = 2;
  upd[1].vector = {0.25f, 0.75f};
  upd[1].embedder_id = "new";
  ASSERT_TRUE(store_->UpdateVectors(alice_, upd).ok());

  auto got = LoadOrDie(store_.get(), alice_);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[0].vector.empty());
  EXPECT_EQ(got[0].embedder_id, "");
  EXPECT_EQ(got[1].vector, (std::vector<float>{0.25f, 0.75f}));
  EXPECT_EQ(got[1].embedder_id, "new");
  EXPECT_EQ(got[2].vector, (std::vector<float>{3}));
  EXPECT_EQ(got[2].embedder_id, "old");
  EXPECT_EQ(got[1].stored.turn.text, "two");

  // An unknown seq fails the whole call.
  std::vector<TurnRecord> bad(2);
  bad[0].stored.seq = 3;
  bad[0].vector = {9};
  bad[0].embedder_id = "x";
  bad[1].stored.seq = 4;
  bad[1].vector = {9};
  EXPECT_EQ(store_->UpdateVectors(alice_, bad).code(), StatusCode::kNotFound);
  EXPECT_EQ(LoadOrDie(store_.get(), alice_)[2].vector, (std::vector<float>{3}));
}

TEST_P(StoreTest, ConcurrentAppendsOnOneInstance) {
  constexpr int kThreads = 4, kBatches = 25, kPerBatch = 3;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int b = 0; b < kBatches; ++b) {
        std::vector<TurnRecord> recs;
        for (int i = 0; i < kPerBatch; ++i) {
          std::string id = fmt::format("t{}-{}-{}", t, b, i);
          recs.push_back(Rec(id, "", "text " + id));
        }
        if (!store_->AppendTurns(alice_, &recs).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto got = LoadOrDie(store_.get(), alice_);
  ASSERT_EQ(got.size(), static_cast<size_t>(kThreads * kBatches * kPerBatch));
  std::set<std::string> ids;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].stored.seq, static_cast<int64_t>(i + 1));
    EXPECT_EQ(got[i].stored.turn.text, "text " + got[i].stored.turn.id);
    ids.insert(got[i].stored.turn.id);
  }
  EXPECT_EQ(ids.size(), got.size());
}

INSTANTIATE_TEST_SUITE_P(Impl, StoreTest, ::testing::Values("Sqlite", "Memory"),
                         [](const auto& info) { return info.param; });

// ---------------------------------------------------------------------------------------------
// SQLite only.

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = (fs::path(dir_) / kDatabaseFileName).string();
  }
  std::unique_ptr<Store> Open(bool create = true, Durability d = Durability::kNormal) {
    auto s = OpenSqliteStore(dir_, create, d);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  // Open() with one turn ("a") stored for `key`; null on failure (already reported).
  std::unique_ptr<Store> OpenWithATurn(const UserKey& key) {
    auto store = Open();
    if (store == nullptr) return nullptr;
    std::vector<TurnRecord> first{Rec("a", "Ana", "hello")};
    const Status st = store->AppendTurns(key, &first);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return st.ok() ? std::move(store) : nullptr;
  }
  // Opens must fail with `code`, mentioning `needle`, and leave the file byte-identical.
  void ExpectOpenFailsUnchanged(StatusCode code, const std::string& needle) {
    const std::string before = ReadBytes(db_path_);
    for (bool create : {true, false}) {
      auto s = OpenSqliteStore(dir_, create, Durability::kFull);
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.status().code(), code) << s.status().ToString();
      EXPECT_NE(s.status().message().find(needle), std::string::npos) << s.status().ToString();
      EXPECT_NE(s.status().message().find(db_path_), std::string::npos) << s.status().ToString();
    }
    EXPECT_EQ(ReadBytes(db_path_), before);
  }

  const testing::TempDir temp_{"ontomem-sqlite"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::string db_path_;
};

TEST_F(SqliteStoreTest, ReopenPersists) {
  const UserKey key{"t", "u"};
  {
    auto store = Open(true, Durability::kFull);
    ASSERT_NE(store, nullptr);
    std::vector<TurnRecord> r = {Rec("D1", "s", "persist me ✓", 7, {1.5f, 2.5f}, "e")};
    ASSERT_TRUE(store->AppendTurns(key, &r).ok());
  }
  auto store = Open(false, Durability::kOff);
  ASSERT_NE(store, nullptr);
  auto got = LoadOrDie(store.get(), key);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].stored.turn.text, "persist me ✓");
  EXPECT_EQ(got[0].vector, (std::vector<float>{1.5f, 2.5f}));
  std::vector<TurnRecord> more = {Rec("", "s", "next")};
  ASSERT_TRUE(store->AppendTurns(key, &more).ok());
  EXPECT_EQ(more[0].stored.seq, 2);
}

TEST_F(SqliteStoreTest, IdentifiesItsFile) {
  { ASSERT_NE(Open(), nullptr); }
  EXPECT_NE(RawQueryInt(db_path_, "PRAGMA application_id"), 0);
  EXPECT_EQ(RawQueryInt(db_path_, "SELECT MAX(version) FROM schema_version"), 5);
  EXPECT_EQ(RawQueryInt(db_path_, "SELECT count(*) FROM schema_version"), 5);
  EXPECT_EQ(RawQueryText(db_path_, "PRAGMA journal_mode"), "wal");
  // Opening again applies nothing twice.
  { ASSERT_NE(Open(false), nullptr); }
  EXPECT_EQ(RawQueryInt(db_path_, "SELECT count(*) FROM schema_version"), 5);
}

// A database written by schema 1 (before the graph tables) is migrated in place and keeps its
// turns. (Schema 2 to 3 is tested in feedback_test.cc.)
TEST_F(SqliteStoreTest, MigratesSchemaOneToLatest) {
  {
    auto store = Open();
    std::vector<TurnRecord> r = {Rec("a", "Ana", "kept across the migration")};
    ASSERT_TRUE(store->AppendTurns({"t", "u"}, &r).ok());
  }
  RawExec(db_path_, "DROP TABLE write_counter; ALTER TABLE users DROP COLUMN version; "
                    "ALTER TABLE users DROP COLUMN created_version; "
                    "DROP TABLE feedback; DROP TABLE edges; DROP TABLE assertions; "
                    "ALTER TABLE users DROP COLUMN turn_count; ALTER TABLE users DROP COLUMN text_bytes; "
                    "DELETE FROM schema_version WHERE version >= 2;");
  ASSERT_EQ(RawQueryInt(db_path_, "SELECT MAX(version) FROM schema_version"), 1);
  auto store = Open(false);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RawQueryInt(db_path_, "SELECT MAX(version) FROM schema_version"), 5);
  auto turns = store->LoadTurns({"t", "u"});
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), 1u);
  EXPECT_EQ((*turns)[0].stored.turn.text, "kept across the migration");
  EXPECT_TRUE(store->LoadAssertions({"t", "u"})->empty());
  EXPECT_EQ(store->GetTenantStats("t")->text_bytes, 25);  // totals backfilled by the migration
}

TEST_F(SqliteStoreTest, RandomBytesAreNotAnOntomemDatabase) {
  std::mt19937 rng(1234);
  std::string junk(8192, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  WriteBytes(db_path_, junk);
  ExpectOpenFailsUnchanged(StatusCode::kCorruption, "is not an ontomem database");
}

TEST_F(SqliteStoreTest, ShortTextFileIsNotAnOntomemDatabase) {
  WriteBytes(db_path_, "hello\n");
  ExpectOpenFailsUnchanged(StatusCode::kCorruption, "is not an ontomem database");
}

TEST_F(SqliteStoreTest, ForeignSqliteDatabaseIsRejected) {
  RawExec(db_path_, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine');");
  ExpectOpenFailsUnchanged(StatusCode::kCorruption, "is not an ontomem database");
  EXPECT_EQ(RawQueryText(db_path_, "PRAGMA journal_mode"), "delete");
}

TEST_F(SqliteStoreTest, ForeignWalDatabaseIsRejected) {
  RawExec(db_path_, "PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);");
  ExpectOpenFailsUnchanged(StatusCode::kCorruption, "is not an ontomem database");
}

TEST_F(SqliteStoreTest, ForeignApplicationIdIsRejected) {
  RawExec(db_path_, "PRAGMA application_id = 42;");
  ExpectOpenFailsUnchanged(StatusCode::kCorruption, "is not an ontomem database");
}

TEST_F(SqliteStoreTest, NewerSchemaIsFailedPrecondition) {
  { ASSERT_NE(Open(), nullptr); }
  RawExec(db_path_, "INSERT INTO schema_version (version, applied_at) VALUES (7, 0);");
  ExpectOpenFailsUnchanged(StatusCode::kFailedPrecondition,
                           "newer ontomem (schema 7, this build knows 5)");
}

TEST_F(SqliteStoreTest, MissingDirectoryWithoutCreateIsNotFound) {
  const std::string missing = (fs::path(dir_) / "nope").string();
  auto s = OpenSqliteStore(missing, false, Durability::kFull);
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound) << s.status().ToString();
  EXPECT_FALSE(fs::exists(missing));
  // An existing directory without a database is NotFound too, and stays empty.
  auto s2 = OpenSqliteStore(dir_, false, Durability::kFull);
  EXPECT_EQ(s2.status().code(), StatusCode::kNotFound) << s2.status().ToString();
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(SqliteStoreTest, CreatesMissingDirectoriesAndSharesDirWithOtherFiles) {
  const std::string nested = (fs::path(dir_) / "a" / "b").string();
  auto s = OpenSqliteStore(nested, true, Durability::kFull);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(fs::exists(fs::path(nested) / kDatabaseFileName));

  WriteBytes((fs::path(dir_) / "notes.txt").string(), "not ours");
  auto s2 = OpenSqliteStore(dir_, true, Durability::kFull);
  ASSERT_TRUE(s2.ok()) << s2.status().ToString();
  EXPECT_EQ(ReadBytes((fs::path(dir_) / "notes.txt").string()), "not ours");
}

// SQLite would read "file:x/ontomem.db" as a URI naming x/ontomem.db (or fail on its query).
TEST_F(SqliteStoreTest, DataDirectoryNamedLikeAUriIsADirectory) {
  struct Chdir {
    const fs::path back = fs::current_path();
    explicit Chdir(const std::string& to) { fs::current_path(to); }
    ~Chdir() { fs::current_path(back); }
  } in_dir(dir_);
  for (const std::string name : {"file:x", "file:y?mode=memory"}) {
    {
      auto s = OpenSqliteStore(name, true, Durability::kNormal);
      ASSERT_TRUE(s.ok()) << name << ": " << s.status().ToString();
      std::vector<TurnRecord> r = {Rec("a", "Ana", "stored in " + name)};
      ASSERT_TRUE((*s)->AppendTurns({"t", "u"}, &r).ok());
    }
    EXPECT_TRUE(fs::is_regular_file(fs::path(dir_) / name / kDatabaseFileName)) << name;
    auto s = OpenSqliteStore(name, false, Durability::kNormal);
    ASSERT_TRUE(s.ok()) << name << ": " << s.status().ToString();
    EXPECT_EQ(LoadOrDie(s->get(), {"t", "u"}).at(0).stored.turn.text, "stored in " + name);
  }
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "x"));
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "y"));
}

TEST_F(SqliteStoreTest, EmptyFileIsANewDatabase) {
  WriteBytes(db_path_, "");
  auto store = Open(false);
  ASSERT_NE(store, nullptr);
  std::vector<TurnRecord> r = {Rec("", "", "hi")};
  EXPECT_TRUE(store->AppendTurns({"t", "u"}, &r).ok());
}

TEST_F(SqliteStoreTest, ConcurrentFirstOpensMigrateOnce) {
  const std::string fresh = (fs::path(dir_) / "fresh").string();
  constexpr int kOpeners = 4;
  std::vector<std::unique_ptr<Store>> stores(kOpeners);
  std::vector<std::thread> threads;
  for (int i = 0; i < kOpeners; ++i) {
    threads.emplace_back([&, i] {
      auto s = OpenSqliteStore(fresh, true, Durability::kFull);
      if (!s.ok()) {
        ADD_FAILURE() << s.status().ToString();
        return;
      }
      stores[i] = std::move(s).value();
      std::vector<TurnRecord> r = {Rec(fmt::format("o{}", i), "", "hi")};
      Status st = stores[i]->AppendTurns({"t", "u"}, &r);
      EXPECT_TRUE(st.ok()) << st.ToString();
    });
  }
  for (auto& th : threads) th.join();
  stores.clear();
  const std::string path = (fs::path(fresh) / kDatabaseFileName).string();
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM schema_version"), 5);
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM turns"), kOpeners);
}

TEST_F(SqliteStoreTest, OursWithoutRecordedVersionIsRejected) {
  { ASSERT_NE(Open(), nullptr); }
  RawExec(db_path_, "DELETE FROM schema_version;");
  ExpectOpenFailsUnchanged(StatusCode::kCorruption, "is not an ontomem database");
}

TEST_F(SqliteStoreTest, TwoInstancesAndThreadsLoseNothing) {
  auto first = Open(true, Durability::kNormal);
  auto second = Open(false, Durability::kFull);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const UserKey key{"shared", "user"};
  constexpr int kThreadsPerStore = 2, kBatches = 40;
  std::atomic<int> failures{0};
  std::atomic<int> expected_total{0};
  std::vector<std::thread> threads;
  for (int s = 0; s < 2; ++s) {
    for (int t = 0; t < kThreadsPerStore; ++t) {
      threads.emplace_back([&, s, t] {
        Store* store = s == 0 ? first.get() : second.get();
        for (int b = 0; b < kBatches; ++b) {
          std::vector<TurnRecord> recs;
          int n = 1 + (b + t) % 3;
          for (int i = 0; i < n; ++i) {
            std::string id = fmt::format("s{}t{}b{}i{}", s, t, b, i);
            recs.push_back(Rec(id, "", "text " + id));
          }
          Status st = store->AppendTurns(key, &recs);
          if (!st.ok()) {
            ADD_FAILURE() << st.ToString();
            ++failures;
          } else {
            expected_total += n;
          }
        }
      });
    }
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (Store* store : {first.get(), second.get()}) {
    auto got = LoadOrDie(store, key);
    ASSERT_EQ(got.size(), static_cast<size_t>(expected_total.load()));
    std::set<std::string> ids;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].stored.seq, static_cast<int64_t>(i + 1));
      EXPECT_EQ(got[i].stored.turn.text, "text " + got[i].stored.turn.id);
      ids.insert(got[i].stored.turn.id);
    }
    EXPECT_EQ(ids.size(), got.size());
  }
}

// ---------------------------------------------------------------------------------------------
// Read-only data directories.

// Two turns of t/u, closed (no -wal or -shm left).
void Populate(const std::string& dir) {
  auto s = OpenSqliteStore(dir, true, Durability::kNormal);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  std::vector<TurnRecord> r = {Rec("a", "Ana", "kept", 1, {1.5f, 2.5f}, "e"), Rec("b", "Ana", "also kept", 2)};
  ASSERT_TRUE((*s)->AppendTurns({"t", "u"}, &r).ok());
}

// "" if the store reads t/u (as Populate wrote it) and refuses a write with FailedPrecondition
// naming the read-only reason `why`; else what went wrong.
std::string ReadsAndRefusesWrites(Store* store, const std::string& why) {
  auto turns = store->LoadTurns({"t", "u"});
  if (!turns.ok()) return "LoadTurns: " + turns.status().ToString();
  if (turns->size() != 2 || (*turns)[0].stored.turn.text != "kept") return "LoadTurns: wrong turns";
  auto users = store->ListUsers("t");
  if (!users.ok() || *users != std::vector<std::string>{"u"}) return "ListUsers failed";
  std::vector<TurnRecord> more = {Rec("c", "Ana", "new")};
  Status st = store->AppendTurns({"t", "u"}, &more);
  if (st.code() != StatusCode::kFailedPrecondition || st.message().find("read-only") == std::string::npos ||
      st.message().find(why) == std::string::npos)
    return "AppendTurns: " + st.ToString();
  return "";
}

// Runs `check` in a child process as a user file permissions apply to: root (CI) drops to
// nobody there. Returns what `check` returned, or "skip: <why>" when that is impossible.
std::string RunUnprivileged(const std::string& dir, const std::function<std::string()>& check) {
  constexpr uid_t kNobody = 65534;
  int out[2];
  if (pipe(out) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    close(out[0]);
    std::string result;
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0)) {
      result = "skip: running as root and cannot drop to uid 65534";
    } else if (access(dir.c_str(), R_OK | X_OK) != 0) {
      result = "skip: uid " + std::to_string(geteuid()) + " cannot reach " + dir + " (set TMPDIR)";
    } else {
      result = check();
    }
    ssize_t ignored = write(out[1], result.data(), result.size());
    (void)ignored;
    _exit(0);
  }
  close(out[1]);
  std::string result;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof(buf))) > 0;) result.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "child failed: " + result;
  return result;
}

// Another connection (a process's writer) holds the database's write lock for `hold`, then
// rolls back; held() says whether it still does.
class LockHeldElsewhere {
 public:
  LockHeldElsewhere(const std::string& db, std::chrono::milliseconds hold) {
    if (sqlite3_open_v2(db.c_str(), &other_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK ||
        sqlite3_exec(other_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
      return;
    held_ = true;
    releaser_ = std::thread([this, hold] {
      std::this_thread::sleep_for(hold);
      held_ = false;
      sqlite3_exec(other_, "ROLLBACK", nullptr, nullptr, nullptr);
    });
  }
  ~LockHeldElsewhere() {
    Join();
    sqlite3_close(other_);
  }
  bool held() const { return held_; }
  void Join() {
    if (releaser_.joinable()) releaser_.join();
  }

 private:
  sqlite3* other_ = nullptr;
  std::atomic<bool> held_{false};
  std::thread releaser_;
};

// A write of this process that waits for another process's write lock (up to the busy timeout)
// must not hold up its reads: in WAL mode readers need no lock, and a server's loads, turn
// pages and exports would otherwise stall behind one busy writer.
TEST_F(SqliteStoreTest, ReadsDoNotWaitForAWriteWaitingOnAnotherWriter) {
  const UserKey key{"t", "u"};
  auto store = OpenWithATurn(key);
  ASSERT_NE(store, nullptr);
  LockHeldElsewhere other(db_path_, std::chrono::milliseconds(2500));
  ASSERT_TRUE(other.held());
  Status write_status;
  std::thread writer([&] {
    std::vector<TurnRecord> more{Rec("b", "Ana", "again")};
    write_status = store->AppendTurns(key, &more);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the writer waits for the lock
  auto turns = store->LoadTurns(key);
  auto user = store->LoadUser(key);
  auto users = store->ListUsers("t");
  auto has = store->HasUser(key);
  auto stats = store->GetTenantStats("t");
  const bool read_while_held = other.held();
  other.Join();
  writer.join();
  EXPECT_TRUE(read_while_held) << "reads waited for the other process's write lock";
  ASSERT_TRUE(turns.ok()) << turns.status().ToString();
  EXPECT_EQ(turns->size(), 1u);
  ASSERT_TRUE(user.ok()) << user.status().ToString();
  EXPECT_EQ(user->turns.size(), 1u);
  ASSERT_TRUE(users.ok());
  ASSERT_TRUE(has.ok());
  EXPECT_TRUE(*has);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->turns, 1);
  ASSERT_TRUE(write_status.ok()) << write_status.ToString();
  auto after = store->LoadTurns(key);  // reads see the write that just committed
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), 2u);
}

// The busy timeout counts from when the caller asked for the write (WriteBase::asked_at): a
// write that already queued nearly that long behind its own process's writes fails while the
// other connection still holds the lock, instead of waiting a whole timeout of its own; a write
// asked for long ago still takes a free lock.
TEST_F(SqliteStoreTest, TheLockWaitCountsFromWhenTheWriteWasAskedFor) {
  const UserKey key{"t", "u"};
  auto store = OpenWithATurn(key);
  ASSERT_NE(store, nullptr);
  LockHeldElsewhere other(db_path_, std::chrono::seconds(3));
  ASSERT_TRUE(other.held());
  WriteBase queued;
  queued.asked_at = std::chrono::steady_clock::now() - std::chrono::milliseconds(9500);
  std::vector<TurnRecord> more{Rec("b", "Ana", "again")};
  const Status st = store->AppendTurns(key, &more, nullptr, &queued);
  const bool failed_while_held = other.held();
  other.Join();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_TRUE(failed_while_held) << "the write waited for the lock past its asked_at + busy timeout";
  EXPECT_NE(st.ToString().find("held the write lock"), std::string::npos) << st.ToString();
  auto turns = store->LoadTurns(key);
  ASSERT_TRUE(turns.ok());
  EXPECT_EQ(turns->size(), 1u);  // nothing of the failed write was stored

  WriteBase late;  // long past its timeout, but the lock is free now
  late.asked_at = std::chrono::steady_clock::now() - std::chrono::seconds(60);
  Feedback fb;
  fb.used = {"a"};
  ASSERT_TRUE(store->AppendFeedback(key, fb, &late).ok());
  ASSERT_TRUE(store->AppendTurns(key, &more, nullptr, &late).ok());
  turns = store->LoadTurns(key);
  ASSERT_TRUE(turns.ok());
  EXPECT_EQ(turns->size(), 2u);
}

// Keeps a database open in another process (a running server), so its -wal and -shm exist.
class HeldOpen {
 public:
  explicit HeldOpen(const std::string& db) {
    int ready[2], stop[2];
    if (pipe(ready) != 0 || pipe(stop) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      close(stop[1]);
      sqlite3* h = nullptr;
      char c = sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK &&
                       sqlite3_exec(h, "SELECT count(*) FROM turns", nullptr, nullptr, nullptr) == SQLITE_OK
                   ? 'y'
                   : 'n';
      ssize_t ignored = write(ready[1], &c, 1);
      ignored = read(stop[0], &c, 1);  // returns at EOF: the parent closed its end
      (void)ignored;
      _exit(0);
    }
    close(ready[1]);
    close(stop[0]);
    stop_ = stop[1];
    char c = 'n';
    ok_ = read(ready[0], &c, 1) == 1 && c == 'y';
    close(ready[0]);
  }
  ~HeldOpen() {
    if (stop_ >= 0) close(stop_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }
  bool ok() const { return ok_; }

 private:
  pid_t pid_ = -1;
  int stop_ = -1;
  bool ok_ = false;
};

// Skips on "skip: ...", else expects RunUnprivileged's result to be empty.
#define EXPECT_UNPRIVILEGED_OK(result)                                            \
  do {                                                                            \
    if ((result).starts_with("skip: ")) GTEST_SKIP() << (result).substr(6);       \
    EXPECT_EQ((result), "");                                                      \
  } while (0)

TEST_F(SqliteStoreTest, ReadOnlyOpenReadsAndRefusesWritesNamingWhy) {
  ASSERT_NO_FATAL_FAILURE(Populate(dir_));
  const std::string before = ReadBytes(db_path_);
  {
    auto s = OpenSqliteStoreReadOnly(dir_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    Store* store = s->get();
    EXPECT_EQ(ReadsAndRefusesWrites(store, db_path_ + " was opened read-only"), "");
    const UserKey key{"t", "u"};
    EXPECT_TRUE(*store->HasUser(key));
    EXPECT_EQ(store->GetTenantStats("t")->turns, 2);
    EXPECT_TRUE(store->LoadAssertions(key).ok());
    EXPECT_TRUE(store->LoadEdges(key).ok());
    EXPECT_TRUE(store->LoadFeedback(key).ok());
    Feedback f;
    f.query_id = "q";
    f.used = {"a"};
    for (const Status& st : {store->DeleteUser(key), store->AppendFeedback(key, f)}) {
      EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition) << st.ToString();
      EXPECT_NE(st.message().find("read-only"), std::string::npos) << st.ToString();
    }
    // The engine's write-back of vectors recomputed on load is skipped, not an error.
    std::vector<TurnRecord> turns = LoadOrDie(store, key);
    ASSERT_EQ(turns.size(), 2u);
    turns[1].vector = {3.0f};
    turns[1].embedder_id = "e2";
    EXPECT_TRUE(store->UpdateVectors(key, {turns[1]}).ok());
    EXPECT_TRUE(LoadOrDie(store, key)[1].vector.empty());
  }
  EXPECT_EQ(ReadBytes(db_path_), before);
  auto rw = Open(false);
  ASSERT_NE(rw, nullptr);
  std::vector<TurnRecord> more = {Rec("c", "Ana", "new")};
  EXPECT_TRUE(rw->AppendTurns({"t", "u"}, &more).ok());
}

TEST_F(SqliteStoreTest, ReadOnlyOpenNeedsTheLatestSchema) {
  auto missing = OpenSqliteStoreReadOnly(dir_);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().ToString();
  EXPECT_FALSE(fs::exists(db_path_));
  ASSERT_NO_FATAL_FAILURE(Populate(dir_));
  RawExec(db_path_, "DROP TABLE write_counter; ALTER TABLE users DROP COLUMN version; "
                    "ALTER TABLE users DROP COLUMN created_version; "
                    "DROP TABLE feedback; DROP TABLE edges; DROP TABLE assertions; "
                    "ALTER TABLE users DROP COLUMN turn_count; ALTER TABLE users DROP COLUMN text_bytes; "
                    "DELETE FROM schema_version WHERE version >= 2;");
  auto s = OpenSqliteStoreReadOnly(dir_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition) << s.status().ToString();
  EXPECT_NE(s.status().message().find("at schema 1 and this build needs 5"), std::string::npos)
      << s.status().ToString();
  EXPECT_EQ(RawQueryInt(db_path_, "SELECT MAX(version) FROM schema_version"), 1);
}

// Permission tests: root ignores file modes, so as root they run in a child that drops to nobody.

TEST_F(SqliteStoreTest, UnwritableDirectoryReadsWhileAnotherProcessHasTheDatabaseOpen) {
  ASSERT_NO_FATAL_FAILURE(Populate(dir_));
  HeldOpen server(db_path_);
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(fs::exists(db_path_ + "-shm"));
  ASSERT_EQ(chmod(dir_.c_str(), 0555), 0);
  const std::string dir = dir_;
  const std::string result = RunUnprivileged(dir_, [dir] {
    auto s = OpenSqliteStore(dir, /*create_if_missing=*/true, Durability::kNormal);
    if (!s.ok()) return "open: " + s.status().ToString();
    return ReadsAndRefusesWrites(s->get(), "data directory " + dir + " is not writable");
  });
  chmod(dir_.c_str(), 0700);
  EXPECT_UNPRIVILEGED_OK(result);
}

TEST_F(SqliteStoreTest, UnwritableDirectoryWithoutWalFilesIsAClearError) {
  ASSERT_NO_FATAL_FAILURE(Populate(dir_));
  ASSERT_FALSE(fs::exists(db_path_ + "-shm"));
  const std::string dir = dir_, empty = dir_ + "/empty";
  ASSERT_TRUE(fs::create_directory(empty));
  ASSERT_EQ(chmod(empty.c_str(), 0555), 0);
  ASSERT_EQ(chmod(dir_.c_str(), 0555), 0);
  const std::string result = RunUnprivileged(dir_, [dir, empty]() -> std::string {
    auto s = OpenSqliteStore(dir, /*create_if_missing=*/true, Durability::kNormal);
    const std::string want = "data directory " + dir + " is not writable (ontomem needs to write " +
                             "ontomem.db-wal/-shm next to the database";
    if (s.ok()) return "opened: SQLite read WAL without -shm in a read-only directory";
    if (s.status().code() != StatusCode::kFailedPrecondition ||
        s.status().message().find(want) == std::string::npos)
      return s.status().ToString();
    // A new database cannot be created there either, and the error says why.
    auto fresh = OpenSqliteStore(empty, true, Durability::kNormal);
    if (fresh.ok() || fresh.status().message().find("data directory " + empty + " is not writable") ==
                          std::string::npos)
      return "create in a read-only directory: " + fresh.status().ToString();
    return "";
  });
  chmod(dir_.c_str(), 0700);
  chmod(empty.c_str(), 0700);
  EXPECT_UNPRIVILEGED_OK(result);
}

// A read-only open in a writable directory leaves -shm with the file's mode (0444); once the
// file is writable again, writers must not fail on it.
TEST_F(SqliteStoreTest, UnwritableDatabaseFileReadsAndLeavesWritersWorkingAfterChmod) {
  ASSERT_NO_FATAL_FAILURE(Populate(dir_));
  if (geteuid() == 0) {  // the child runs as nobody: give it the directory and the file
    ASSERT_EQ(chown(dir_.c_str(), 65534, 65534), 0);
    ASSERT_EQ(chown(db_path_.c_str(), 65534, 65534), 0);
  }
  ASSERT_EQ(chmod(db_path_.c_str(), 0444), 0);
  const std::string dir = dir_, db = db_path_;
  const std::string read = RunUnprivileged(dir_, [dir, db] {
    auto s = OpenSqliteStore(dir, /*create_if_missing=*/true, Durability::kNormal);
    if (!s.ok()) return "open: " + s.status().ToString();
    return ReadsAndRefusesWrites(s->get(), db + " is not writable");
  });
  EXPECT_UNPRIVILEGED_OK(read);
  ASSERT_EQ(chmod(db_path_.c_str(), 0644), 0);
  const std::string write = RunUnprivileged(dir_, [dir]() -> std::string {
    auto s = OpenSqliteStore(dir, /*create_if_missing=*/false, Durability::kNormal);
    if (!s.ok()) return "reopen: " + s.status().ToString();
    std::vector<TurnRecord> more = {Rec("c", "Ana", "new")};
    Status st = (*s)->AppendTurns({"t", "u"}, &more);
    return st.ok() ? "" : "write after chmod: " + st.ToString();
  });
  EXPECT_UNPRIVILEGED_OK(write);
}

}  // namespace
}  // namespace ontomem
