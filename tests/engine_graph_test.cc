// The memory graph inside Memory: written with the turns, rebuilt on open, forgotten with the
// user. A fake extractor stands in for the trained one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <thread>
#include <set>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/memory_impl.h"
#include "fake_embedder.h"
#include "fake_extractor.h"
#include "store/forwarding_store.h"
#include "test_util.h"

namespace ontomem {
namespace {

// "I love X" -> LIKES X; "I hate X" -> DISLIKES X (X = the rest of the sentence); turns with
// "maybe" stay under the graph threshold.
std::shared_ptr<FactExtractor> PatternExtractor() {
  testing::FakeExtractorOptions o;
  o.tail_type = "movie";
  o.dislikes = true;
  o.low_confidence_word = "maybe";
  return std::make_shared<testing::FakeExtractor>(o);
}

GraphPolicy RomancePolicy() {
  GraphPolicy p;
  p.concept_relation = [](const std::string& rel, const std::string&) -> std::string {
    return rel == "LIKES" ? "PREFERS_GENRE" : rel == "DISLIKES" ? "DISLIKES_GENRE" : "";
  };
  p.lift = [](const Assertion& a, const std::string&) -> std::vector<LiftedConcept> {
    if (a.tail == "titanic" || a.tail == "the notebook") return {{"genre", "romance", "Romance", 0.9f}};
    return {};
  };
  return p;
}

Turn T(std::string id, std::string text, int64_t t, std::string session, std::string speaker = "Ana") {
  Turn turn;
  turn.id = std::move(id);
  turn.speaker = std::move(speaker);
  turn.text = std::move(text);
  turn.time_ms = t;
  turn.session = std::move(session);
  return turn;
}

// Every query is about movies.
GraphContext MoviesContext() {
  GraphContext ctx;
  ctx.detect_domains = [](std::string_view, const std::vector<std::string>&) {
    return std::vector<std::pair<std::string, float>>{{"movies_tv", 1.0f}};
  };
  return ctx;
}

// Forwards to a store and, once armed, runs `between` right after the first read of a user's
// turns: where another process's write lands between two reads of one request. Runs
// `before_append` (when set) at the start of AppendTurns: a write of this process in flight;
// `after_append` with what it returned.
class WriteBetweenReads final : public ForwardingStore {
 public:
  explicit WriteBetweenReads(std::unique_ptr<Store> base) : ForwardingStore(std::move(base)) {}
  bool armed = false;
  bool fired = false;
  std::function<void()> between;
  std::function<void()> before_append;
  std::function<void(const Status&)> after_append;

  using ForwardingStore::AppendTurns;
  using ForwardingStore::LoadUser;
  StatusOr<UserSnapshot> LoadUser(const UserKey& k, const UserCursor* since) override {
    return Fire(base().LoadUser(k, since));
  }
  Status AppendTurns(const UserKey& k, std::vector<TurnRecord>* r, GraphDelta* d, WriteBase* b) override {
    if (before_append) before_append();
    Status st = base().AppendTurns(k, r, d, b);
    if (after_append) after_append(st);
    return st;
  }
  StatusOr<std::vector<TurnRecord>> LoadTurns(const UserKey& k) override { return Fire(base().LoadTurns(k)); }

 private:
  template <typename T>
  T Fire(T result) {
    if (armed && !fired) {
      fired = true;
      between();
    }
    return result;
  }
};

// A write of `mem` held in flight: Ingest(turn) runs on a thread until, past its catch-up and
// planning, it is about to enter the store; there `meanwhile` runs (another process's write),
// and the write waits for Release(). The constructor returns once it waits.
class HeldWrite {
 public:
  HeldWrite(MemoryImpl* mem, WriteBetweenReads* hook, const UserKey& key, Turn turn, std::function<void()> meanwhile)
      : hook_(hook), released_(release_.get_future().share()) {
    hook->before_append = [this, meanwhile = std::move(meanwhile)] {
      if (once_.exchange(true)) return;
      meanwhile();
      entered_.set_value();
      released_.wait();
    };
    writer_ = std::thread([mem, key, turn = std::move(turn)] { EXPECT_TRUE(mem->Ingest(key, turn).ok()); });
    entered_.get_future().wait();
  }
  ~HeldWrite() {
    Join();
    hook_->before_append = nullptr;  // it names this object
  }
  void Release() {
    if (!released_called_.exchange(true)) release_.set_value();
  }
  void Join() {
    Release();
    if (writer_.joinable()) writer_.join();
  }

 private:
  WriteBetweenReads* hook_;
  std::promise<void> entered_, release_;
  std::shared_future<void> released_;
  std::atomic<bool> once_{false}, released_called_{false};
  std::thread writer_;
};

class EngineGraphTest : public ::testing::Test {
 protected:
  std::unique_ptr<MemoryImpl> Open(std::unique_ptr<Store> store = nullptr, bool shared_data_dir = true,
                                   std::chrono::milliseconds own_write_wait = Options().own_write_wait) {
    Options o;
    o.data_dir = dir_;
    o.shared_data_dir = shared_data_dir;
    o.own_write_wait = own_write_wait;
    auto emb = std::make_shared<testing::FakeEmbedder>();
    o.embedder = emb;
    o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
    if (!store) {
      auto opened = OpenSqliteStore(dir_, true, Durability::kNormal);
      EXPECT_TRUE(opened.ok());
      store = std::move(*opened);
    }
    auto mem = std::make_unique<MemoryImpl>(o, std::move(store), emb);
    mem->set_fact_pipeline(PatternExtractor(), RomancePolicy());
    return mem;
  }
  // Open() on the directory's store wrapped in a WriteBetweenReads, handed out in *hook.
  std::unique_ptr<MemoryImpl> OpenHooked(WriteBetweenReads** hook,
                                         std::chrono::milliseconds own_write_wait = Options().own_write_wait) {
    auto base = OpenSqliteStore(dir_, true, Durability::kNormal);
    EXPECT_TRUE(base.ok()) << base.status().ToString();
    auto hooked = std::make_unique<WriteBetweenReads>(std::move(*base));
    *hook = hooked.get();
    return Open(std::move(hooked), true, own_write_wait);
  }
  // The stored edge snapshot holds the edges of `live` (a GraphJson) with their provenance.
  void ExpectStoredEdgesMatch(const nlohmann::json& live) { ExpectStoredEdgesMatch(ana_, live); }
  void ExpectStoredEdgesMatch(const UserKey& key, const nlohmann::json& live) {
    auto store = OpenSqliteStore(dir_, false, Durability::kNormal);
    ASSERT_TRUE(store.ok());
    auto edges = (*store)->LoadEdges(key);
    ASSERT_TRUE(edges.ok());
    ASSERT_EQ(edges->size(), live["edges"].size());
    for (const GraphEdge& s : *edges) {
      SCOPED_TRACE(s.key);
      const nlohmann::json* match = nullptr;
      for (const auto& e : live["edges"])
        if (e["source"] == s.source && e["relation"] == s.relation && e["target"] == s.target &&
            e["valid_from"] == s.valid_from)
          match = &e;
      ASSERT_NE(match, nullptr);
      EXPECT_EQ((*match)["source_turns"], s.source_turns.get());
      EXPECT_EQ((*match)["assertions"], s.assertion_keys.get());
    }
  }
  // The turn ids of a dense top-10 search, or its error.
  static StatusOr<std::set<std::string>> DenseIds(MemoryImpl* m, const UserKey& k, const std::string& query) {
    SearchOptions so;
    so.k = 10;
    so.method = Method::kDense;
    auto r = m->Search(k, query, so);
    if (!r.ok()) return r.status();
    std::set<std::string> ids;
    for (const auto& h : r->hits) ids.insert(h.turn.turn.id);
    return ids;
  }
  static nlohmann::json Graph(MemoryImpl* m, const UserKey& k) {
    auto g = m->GraphJson(k);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return g.ok() ? nlohmann::json::parse(*g) : nlohmann::json();
  }
  static const nlohmann::json* EdgeOf(const nlohmann::json& g, const std::string& rel, const std::string& target) {
    for (const auto& e : g["edges"])
      if (e["relation"] == rel && e["target"] == target && e["valid_to"].is_null()) return &e;
    return nullptr;
  }
  const testing::TempDir temp_{"ontomem-graph"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  const UserKey ana_{"acme", "ana"};
};

TEST_F(EngineGraphTest, IngestBuildsTheGraphAndReopenRebuildsIt) {
  nlohmann::json before;
  {
    auto mem = Open();
    ASSERT_TRUE(mem->IngestBatch(ana_, {T("D1:1", "I love titanic", 1000, "s1"),
                                        T("D1:2", "we went out, maybe I love noise", 2000, "s1"),
                                        T("D1:3", "nothing to see", 3000, "s1")}).ok());
    ASSERT_TRUE(mem->Ingest(ana_, T("D2:1", "I love the notebook", 86400000, "s2")).ok());
    before = Graph(mem.get(), ana_);
    const auto* e = EdgeOf(before, "LIKES", "entity:titanic");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ((*e)["source_turns"], nlohmann::json::array({"D1:1"}));
    EXPECT_EQ(EdgeOf(before, "LIKES", "entity:noise"), nullptr);  // below the threshold
    const auto* promoted = EdgeOf(before, "PREFERS_GENRE", "concept:genre/romance");
    ASSERT_NE(promoted, nullptr);
    EXPECT_TRUE((*promoted)["promoted"].get<bool>());
    EXPECT_EQ((*promoted)["source_turns"], nlohmann::json::array({"D1:1", "D2:1"}));
  }
  auto mem = Open();
  nlohmann::json after = Graph(mem.get(), ana_);
  before.erase("promotion");
  after.erase("promotion");
  EXPECT_EQ(after, before);
  // The edge snapshot in the store matches the graph.
  auto store = OpenSqliteStore(dir_, false, Durability::kNormal);
  auto edges = (*store)->LoadEdges(ana_);
  ASSERT_TRUE(edges.ok());
  EXPECT_EQ(edges->size(), after["edges"].size());
}

// An id-less turn gets its id from the store while the turns and edges are written: its edges
// name that id in the live graph (searches use it), in the stored snapshot and after reopening.
TEST_F(EngineGraphTest, EdgesOfIdLessTurnsNameTheirAssignedIds) {
  nlohmann::json live;
  {
    auto mem = Open();
    mem->set_fact_pipeline(PatternExtractor(), RomancePolicy(), MoviesContext());
    std::vector<Turn> turns = {T("", "I love titanic", 1000, "s1"), T("D1:2", "nothing to see", 1500, "s1"),
                               T("", "I love the notebook", 2000, "s2")};
    for (int i = 0; i < 30; ++i)
      turns.push_back(T("", "weekend plans include watching paint dry number " + std::to_string(i), 3000 + i, "s2"));
    ASSERT_TRUE(mem->IngestBatch(ana_, turns).ok());
    live = Graph(mem.get(), ana_);
    const auto* e = EdgeOf(live, "LIKES", "entity:titanic");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ((*e)["source_turns"], nlohmann::json::array({"T1"}));
    EXPECT_EQ((*e)["assertions"], nlohmann::json::array({"T1#LIKES@7"}));
    const auto* promoted = EdgeOf(live, "PREFERS_GENRE", "concept:genre/romance");
    ASSERT_NE(promoted, nullptr);
    EXPECT_EQ((*promoted)["source_turns"], nlohmann::json::array({"T1", "T3"}));
    EXPECT_EQ((*promoted)["assertions"], nlohmann::json::array({"T1#LIKES@7", "T3#LIKES@7"}));
    for (const auto& edge : live["edges"]) EXPECT_FALSE(edge["source_turns"].empty()) << edge.dump();

    SearchOptions so;
    so.k = 5;
    so.asker = "Ana";
    so.method = Method::kFull;
    auto full = mem->Search(ana_, "what should I watch this weekend?", so);
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    EXPECT_EQ(full->route, "graph-first");
    ASSERT_FALSE(full->hits.empty());
    EXPECT_EQ(full->hits[0].turn.turn.id.substr(0, 1), "T");
    EXPECT_GT(full->hits[0].graph_score, 0);
    EXPECT_EQ(full->hits[0].path.rfind("person:ana -", 0), 0u) << full->hits[0].path;
  }
  // The stored snapshot agrees with the live graph.
  ExpectStoredEdgesMatch(live);
  auto mem = Open();
  nlohmann::json reopened = Graph(mem.get(), ana_);
  live.erase("promotion");
  reopened.erase("promotion");
  EXPECT_EQ(reopened, live);
}

// Two Memory instances on one data directory stand for two processes: each has its own SQLite
// connection and cache. A write from a stale cache is planned again on what is stored (edges
// are stored whole, so it used to overwrite the other writer's provenance), and a search sees
// what the other wrote without a write of its own.
TEST_F(EngineGraphTest, TwoWritersOnOneDirectoryKeepEachOthersEdgesAndSeeEachOthersTurns) {
  auto a = Open();
  auto b = Open();
  ASSERT_TRUE(a->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
  ASSERT_TRUE(b->Ingest(ana_, T("D2:1", "I love the notebook", 86400000, "s2")).ok());

  auto seen = DenseIds(a.get(), ana_, "the notebook");
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_TRUE(seen->count("D2:1")) << "a's cache did not pick up b's turn";

  // b's copy is stale now; its write is planned on the stored user.
  ASSERT_TRUE(a->Ingest(ana_, T("D3:1", "I love titanic", 2 * 86400000, "s3")).ok());
  ASSERT_TRUE(b->Ingest(ana_, T("D4:1", "I love the notebook", 3 * 86400000, "s4")).ok());
  nlohmann::json graph_b = Graph(b.get(), ana_);
  const auto* promoted = EdgeOf(graph_b, "PREFERS_GENRE", "concept:genre/romance");
  ASSERT_NE(promoted, nullptr);
  EXPECT_EQ((*promoted)["source_turns"], nlohmann::json::array({"D1:1", "D2:1", "D3:1", "D4:1"}));
  nlohmann::json graph_a = Graph(a.get(), ana_);
  EXPECT_EQ(graph_a, graph_b);

  ExpectStoredEdgesMatch(graph_b);
  nlohmann::json reopened = Graph(Open().get(), ana_);
  graph_b.erase("promotion");
  reopened.erase("promotion");
  EXPECT_EQ(reopened, graph_b);

  // One forgets the user: the other no longer finds it.
  ASSERT_TRUE(b->Forget(ana_).ok());
  EXPECT_EQ(DenseIds(a.get(), ana_, "the notebook").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(a->GraphJson(ana_).status().code(), StatusCode::kNotFound);

  // A re-created user is another user: a's copy of the old one is not caught up but reloaded.
  ASSERT_TRUE(a->Ingest(ana_, T("E1:1", "I love titanic", 4 * 86400000, "s5")).ok());
  ASSERT_TRUE(b->Forget(ana_).ok());
  ASSERT_TRUE(b->IngestBatch(ana_, {T("F1:1", "I hate noise", 5 * 86400000, "s6"),
                                    T("F1:2", "nothing to see", 5 * 86400000 + 1, "s6")}).ok());
  auto fresh = DenseIds(a.get(), ana_, "noise");
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(*fresh, (std::set<std::string>{"F1:1", "F1:2"}));
  EXPECT_EQ(Graph(a.get(), ana_), Graph(b.get(), ana_));
}

// shared_data_dir = false promises no other writer: a cached user is not checked against the
// store (so another writer's turn stays unseen), but a write is still planned on what is stored.
TEST_F(EngineGraphTest, AnUnsharedDataDirectorySkipsTheCheckButWritesStaySafe) {
  auto a = Open(nullptr, /*shared_data_dir=*/false);
  auto b = Open();
  ASSERT_TRUE(a->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
  ASSERT_TRUE(b->Ingest(ana_, T("D2:1", "I love the notebook", 86400000, "s2")).ok());
  auto r = DenseIds(a.get(), ana_, "the notebook");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->count("D2:1"));
  ASSERT_TRUE(a->Ingest(ana_, T("D3:1", "I love titanic", 2 * 86400000, "s3")).ok());
  const nlohmann::json graph = Graph(a.get(), ana_);
  const auto* promoted = EdgeOf(graph, "PREFERS_GENRE", "concept:genre/romance");
  ASSERT_NE(promoted, nullptr);
  EXPECT_EQ((*promoted)["source_turns"], nlohmann::json::array({"D1:1", "D2:1", "D3:1"}));
}

TEST_F(EngineGraphTest, ExportIsOneSnapshotWhileAnotherProcessWrites) {
  auto other = Open();
  ASSERT_TRUE(other->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
  WriteBetweenReads* hook = nullptr;
  auto mem = OpenHooked(&hook);
  ASSERT_TRUE(mem->GraphJson(ana_).ok());  // loaded and cached, as in a running server
  hook->between = [&] {
    ASSERT_TRUE(other->Ingest(ana_, T("D2:1", "I love the notebook", 86400000, "s2")).ok());
    Feedback f;
    f.query_id = "q1";
    f.used = {"D2:1"};
    ASSERT_TRUE(other->AddFeedback(ana_, f).ok());
  };
  hook->armed = true;
  auto doc = mem->Export(ana_);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_TRUE(hook->fired);
  nlohmann::json j = nlohmann::json::parse(*doc);
  std::set<std::string> ids;
  for (const auto& t : j["turns"]) ids.insert(t["id"].get<std::string>());
  ASSERT_TRUE(j.contains("graph"));
  EXPECT_FALSE(j["graph"]["edges"].empty());
  for (const auto& e : j["graph"]["edges"])
    for (const auto& t : e["source_turns"]) EXPECT_TRUE(ids.count(t.get<std::string>())) << "graph cites " << t;
  for (const auto& f : j["feedback"])
    for (const auto& t : f["used"]) EXPECT_TRUE(ids.count(t.get<std::string>())) << "feedback cites " << t;
}

// Another process's acknowledged write is seen by the next search even while a write of this
// process to the same user is in flight (it used to serve the stale copy until that committed):
// the search reads a copy of its own.
TEST_F(EngineGraphTest, ASearchDuringAnOwnWriteSeesAnotherProcesssAcknowledgedWrite) {
  auto other = Open();
  WriteBetweenReads* hook = nullptr;
  auto mem = OpenHooked(&hook);
  ASSERT_TRUE(mem->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
  HeldWrite held(mem.get(), hook, ana_, T("D3:1", "I hate horror", 2 * 86400000, "s3"), [&] {
    EXPECT_TRUE(other->Ingest(ana_, T("D2:1", "I love the notebook", 86400000, "s2")).ok());
  });
  auto seen = DenseIds(mem.get(), ana_, "the notebook");
  held.Join();
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_TRUE(seen->count("D2:1")) << "served the copy from before the other process's write";
  EXPECT_EQ(mem->GetCacheStats().private_copies, 1u);
  auto after = DenseIds(mem.get(), ana_, "titanic");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, (std::set<std::string>{"D1:1", "D2:1", "D3:1"}));
}

// Same, but the write of this process ends while the search waits for it (Options::
// own_write_wait): the search then catches up after it and reads no copy of its own.
TEST_F(EngineGraphTest, ASearchWaitsForAnOwnWriteThenCatchesUp) {
  auto other = Open();
  WriteBetweenReads* hook = nullptr;
  auto mem = OpenHooked(&hook, std::chrono::seconds(30));
  ASSERT_TRUE(mem->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
  HeldWrite held(mem.get(), hook, ana_, T("D3:1", "I hate horror", 2 * 86400000, "s3"), [&] {
    EXPECT_TRUE(other->Ingest(ana_, T("D2:1", "I love the notebook", 86400000, "s2")).ok());
  });
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    held.Release();
  });
  auto seen = DenseIds(mem.get(), ana_, "the notebook");
  releaser.join();
  held.Join();
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_TRUE(seen->count("D2:1"));
  EXPECT_EQ(mem->GetCacheStats().private_copies, 0u);
}

// Another process forgets the user while a write of this process to it is in flight: once the
// forget is acknowledged, searches and the graph say the user is unknown (a deleted user's
// version is 0, which passed for "only this process's write is ahead").
TEST_F(EngineGraphTest, AUserForgottenByAnotherProcessIsNotServedDuringAnOwnWrite) {
  auto other = Open();
  WriteBetweenReads* hook = nullptr;
  auto mem = OpenHooked(&hook);
  ASSERT_TRUE(mem->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
  HeldWrite held(mem.get(), hook, ana_, T("D2:1", "I hate horror", 86400000, "s2"),
                 [&] { EXPECT_TRUE(other->Forget(ana_).ok()); });
  const StatusCode search = DenseIds(mem.get(), ana_, "titanic").status().code();
  const StatusCode graph = mem->GraphJson(ana_).status().code();
  held.Join();
  EXPECT_EQ(search, StatusCode::kNotFound);
  EXPECT_EQ(graph, StatusCode::kNotFound);
  // The write went on after the forget: it made the user anew, with its own turn only.
  auto turns = mem->Turns(ana_);
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), 1u);
  EXPECT_EQ((*turns)[0].turn.id, "D2:1");
  auto ids = DenseIds(mem.get(), ana_, "titanic");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, std::set<std::string>{"D2:1"});
}

// Another process writes after this one checked its copy and before its write transaction: the
// store hands over only what came after the copy. With no search on the copy it is caught up in
// place; with one holding it, the attempt stores nothing and is retried, and nothing is lost.
TEST_F(EngineGraphTest, AWriteLandingJustBeforeOursIsCaughtUpWhetherOrNotTheCopyIsBusy) {
  for (const bool busy : {false, true}) {
    SCOPED_TRACE(busy ? "copy busy" : "copy free");
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto other = Open();
    WriteBetweenReads* hook = nullptr;
    auto mem = OpenHooked(&hook);
    ASSERT_TRUE(mem->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
    std::promise<void> holding, release;
    std::shared_future<void> released = release.get_future().share();
    std::thread reader;
    std::vector<StatusCode> attempts;
    hook->before_append = [&] {
      if (!attempts.empty()) return;
      if (busy) {  // a search on the (still current) copy, held until the first attempt ends
        reader = std::thread([&] {
          EXPECT_TRUE(mem->ReadGraph(ana_, [&](const MemoryGraph&) {
            holding.set_value();
            released.wait();
          }).ok());
        });
        holding.get_future().wait();
      }
      ASSERT_TRUE(other->Ingest(ana_, T("D2:1", "I love the notebook", 86400000, "s2")).ok());
    };
    hook->after_append = [&](const Status& st) {
      attempts.push_back(st.code());
      if (busy && attempts.size() == 1) release.set_value();
    };
    ASSERT_TRUE(mem->Ingest(ana_, T("D3:1", "I love titanic", 2 * 86400000, "s3")).ok());
    if (reader.joinable()) reader.join();
    const std::vector<StatusCode> expected =
        busy ? std::vector<StatusCode>{StatusCode::kUnavailable, StatusCode::kOk} : std::vector<StatusCode>{StatusCode::kOk};
    EXPECT_EQ(attempts, expected);
    nlohmann::json graph = Graph(mem.get(), ana_);
    const auto* promoted = EdgeOf(graph, "PREFERS_GENRE", "concept:genre/romance");
    ASSERT_NE(promoted, nullptr);
    EXPECT_EQ((*promoted)["source_turns"], nlohmann::json::array({"D1:1", "D2:1", "D3:1"}));
    EXPECT_EQ(graph, Graph(other.get(), ana_));
    ExpectStoredEdgesMatch(graph);
    auto ids = DenseIds(mem.get(), ana_, "the notebook");
    ASSERT_TRUE(ids.ok());
    EXPECT_TRUE(ids->count("D2:1"));
    EXPECT_EQ(mem->Turns(ana_)->size(), 3u);
  }
}

// A search catching up on another process's write lets go of the user before the next search
// looks at it: a search finding it still held took that for a write of this process in flight
// and read a whole private copy (the RSS growth of RESULTS session 42). A stress test: with the
// old order it fails often, not always (the window is a search's cache bookkeeping); with the
// new one no path leads to a private copy here, since this instance never writes meanwhile.
TEST_F(EngineGraphTest, SearchesCatchingUpOnAnotherProcesssWritesBuildNoPrivateCopy) {
  auto other = Open();
  auto mem = Open();
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(mem->Ingest(ana_, T(fmt::format("D{}:1", i), "I love titanic", 1000 + i, "s1")).ok());
  SearchOptions so;
  so.k = 5;
  so.method = Method::kDense;
  std::atomic<bool> stop{false};
  std::atomic<int> searches{0};
  std::vector<std::thread> searchers;
  for (int t = 0; t < 8; ++t)
    searchers.emplace_back([&] {
      while (!stop.load()) {
        EXPECT_TRUE(mem->Search(ana_, "titanic", so).ok());
        searches.fetch_add(1);
      }
    });
  // At least 400 writes and 2,000 searches overlapping them, however the threads are scheduled.
  const int before = searches.load();
  int writes = 0;
  for (; writes < 20000 && (writes < 400 || searches.load() - before < 2000); ++writes) {
    Feedback f;
    f.query_id = fmt::format("q{}", writes);  // "q" + std::to_string(i): a GCC 12 -Wrestrict false alarm
    f.used = {"D1:1"};
    const Status st = other->AddFeedback(ana_, f);
    EXPECT_TRUE(st.ok()) << st.ToString();  // not ASSERT: the searchers must be joined
    if (!st.ok()) break;
  }
  const int during = searches.load() - before;
  stop = true;
  for (auto& t : searchers) t.join();
  EXPECT_GE(during, 2000) << "searches did not overlap the " << writes << " writes";
  EXPECT_EQ(mem->GetCacheStats().private_copies, 0u);
}

TEST_F(EngineGraphTest, RetriesDoNotDoubleCountAndFailedBatchesChangeNothing) {
  auto mem = Open();
  ASSERT_TRUE(mem->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
  ASSERT_TRUE(mem->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());  // retry
  auto g = Graph(mem.get(), ana_);
  EXPECT_EQ((*EdgeOf(g, "LIKES", "entity:titanic"))["source_turns"].size(), 1u);
  // A batch rejected by the store (id reused with other content) leaves the graph as it was.
  Status st = mem->IngestBatch(ana_, {T("D9:1", "I hate titanic", 5000, "s9"), T("D1:1", "changed", 1, "s1")});
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(Graph(mem.get(), ana_), g);
  auto store = OpenSqliteStore(dir_, false, Durability::kNormal);
  EXPECT_EQ((*store)->LoadAssertions(ana_)->size(), 1u);
}

TEST_F(EngineGraphTest, ContradictionOverTimeKeepsHistory) {
  auto mem = Open();
  ASSERT_TRUE(mem->Ingest(ana_, T("D1:1", "I love titanic", 1000, "s1")).ok());
  ASSERT_TRUE(mem->Ingest(ana_, T("D5:1", "I hate titanic", 9000, "s5")).ok());
  auto g = Graph(mem.get(), ana_);
  EXPECT_EQ(EdgeOf(g, "LIKES", "entity:titanic"), nullptr);
  ASSERT_NE(EdgeOf(g, "DISLIKES", "entity:titanic"), nullptr);
  bool ended = false;
  for (const auto& e : g["edges"])
    if (e["relation"] == "LIKES" && e["valid_to"] == 9000) ended = true;
  EXPECT_TRUE(ended);
}

// The graph follows the turns' times, not their arrival: a history imported after newer turns
// (or turns resent out of order) ends in the graph the timeline gives. A late turn replays the
// graph and replaces the stored edges; another process's copy catching up on it does the same.
TEST_F(EngineGraphTest, TheGraphIsTheSameWhateverOrderTheTurnsArriveIn) {
  const int64_t day = 86400000;
  const std::vector<Turn> timeline = {T("D1:1", "I love titanic", 1000, "s1"),
                                      T("D2:1", "I love the notebook", day, "s2"),
                                      T("D3:1", "nothing to see", 2 * day, "s3"),
                                      T("D5:1", "I hate titanic", 9 * day, "s5")};
  const UserKey in_order{"acme", "in-order"}, late{"acme", "late"};
  auto mem = Open();
  auto other = Open();  // another process that has the user loaded
  for (const Turn& t : timeline) ASSERT_TRUE(mem->Ingest(in_order, t).ok());
  const nlohmann::json want = Graph(mem.get(), in_order);
  ASSERT_NE(EdgeOf(want, "DISLIKES", "entity:titanic"), nullptr);
  ASSERT_EQ(EdgeOf(want, "LIKES", "entity:titanic"), nullptr);

  // Newest first, then the rest as one batch out of order.
  ASSERT_TRUE(mem->Ingest(late, timeline[3]).ok());
  ASSERT_NE(EdgeOf(Graph(other.get(), late), "DISLIKES", "entity:titanic"), nullptr);
  ASSERT_TRUE(mem->IngestBatch(late, {timeline[2], timeline[0], timeline[1]}).ok());
  const nlohmann::json got = Graph(mem.get(), late);
  EXPECT_EQ(got["edges"], want["edges"]);
  EXPECT_EQ(got["nodes"], want["nodes"]);
  ExpectStoredEdgesMatch(late, got);  // the edges of the first graph are gone from the store
  EXPECT_EQ(Graph(other.get(), late)["edges"], want["edges"]);  // caught up, replayed
  EXPECT_EQ(Graph(Open().get(), late)["edges"], want["edges"]);  // reloaded

  // A fact stated for a past time goes before the later turns too: it does not reopen what
  // "I hate titanic" ended.
  Fact f;
  f.head = "Ana";
  f.relation = "LIKES";
  f.tail = "titanic";
  f.time_ms = 3 * day;
  ASSERT_TRUE(mem->AddFact(late, f).ok());
  const nlohmann::json with_fact = Graph(mem.get(), late);
  EXPECT_EQ(EdgeOf(with_fact, "LIKES", "entity:titanic"), nullptr);
  EXPECT_NE(EdgeOf(with_fact, "DISLIKES", "entity:titanic"), nullptr);
  ExpectStoredEdgesMatch(late, with_fact);
  EXPECT_EQ(Graph(other.get(), late)["edges"], with_fact["edges"]);
  EXPECT_EQ(Graph(Open().get(), late)["edges"], with_fact["edges"]);
}

// A turn without a time stands where it arrived in the timeline, and its edges say so: they
// start (and end others) at the latest time before it, not at 0.
TEST_F(EngineGraphTest, ATurnWithoutATimeTakesTheLatestTimeBeforeIt) {
  const int64_t day = 86400000;
  auto mem = Open();
  ASSERT_TRUE(mem->Ingest(ana_, T("D1:1", "I love titanic", day, "s1")).ok());
  ASSERT_TRUE(mem->Ingest(ana_, T("D1:2", "I hate titanic", 0, "s1")).ok());
  const nlohmann::json g = Graph(mem.get(), ana_);
  const auto* dislikes = EdgeOf(g, "DISLIKES", "entity:titanic");
  ASSERT_NE(dislikes, nullptr);
  EXPECT_EQ((*dislikes)["valid_from"], day);
  for (const auto& e : g["edges"]) {
    if (e["relation"] != "LIKES") continue;
    EXPECT_EQ(e["valid_to"], day + 1) << e.dump();  // ended where the hate stands
  }
  // An older turn replays the graph: the time-less turn keeps its place after day 1.
  ASSERT_TRUE(mem->Ingest(ana_, T("D0:1", "I love titanic", day / 2, "s0")).ok());
  const nlohmann::json replayed = Graph(mem.get(), ana_);
  const auto* still = EdgeOf(replayed, "DISLIKES", "entity:titanic");
  ASSERT_NE(still, nullptr);
  EXPECT_EQ((*still)["valid_from"], day);
  EXPECT_EQ(Graph(Open().get(), ana_)["edges"], replayed["edges"]);
}

TEST_F(EngineGraphTest, ExplicitFactsForgetAndErrors) {
  auto mem = Open();
  Fact f;
  f.relation = "ALLERGIC_TO";
  f.tail = "Peanuts";
  f.time_ms = 42;
  ASSERT_TRUE(mem->AddFact(ana_, f).ok());
  auto g = Graph(mem.get(), ana_);
  const auto* e = EdgeOf(g, "ALLERGIC_TO", "entity:peanuts");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE((*e)["explicit"].get<bool>());
  EXPECT_EQ((*e)["source"], "person:ana");
  {
    auto again = Open();  // durable
    EXPECT_NE(EdgeOf(Graph(again.get(), ana_), "ALLERGIC_TO", "entity:peanuts"), nullptr);
  }
  f.relation = "";
  EXPECT_EQ(mem->AddFact(ana_, f).code(), StatusCode::kInvalidArgument);
  f.relation = "likes things";
  EXPECT_EQ(mem->AddFact(ana_, f).code(), StatusCode::kInvalidArgument);
  f.relation = "ALLERGIC_TO";
  f.tail = " \t ";  // blank
  EXPECT_EQ(mem->AddFact(ana_, f).code(), StatusCode::kInvalidArgument);
  f.tail = "peanuts";
  for (int64_t bad : {int64_t{-1}, int64_t{1760000000000000}}) {  // was taken for "now"; microseconds
    f.time_ms = bad;
    EXPECT_EQ(mem->AddFact(ana_, f).code(), StatusCode::kInvalidArgument) << bad;
  }
  f.time_ms = 0;
  auto ontology = Ontology::Load(std::string(ONTOMEM_SOURCE_DIR) + "/data/ontology/ontology.json");
  ASSERT_TRUE(ontology.ok()) << ontology.status().ToString();
  mem->set_ontology(*ontology);
  f.relation = "FLIES_TO";
  EXPECT_EQ(mem->AddFact(ana_, f).code(), StatusCode::kInvalidArgument);
  f.relation = "ALLERGIC_TO";
  f.tail_type = "weird";  // would retype the peanuts node
  Status st = mem->AddFact(ana_, f);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("tail_type weird"), std::string::npos) << st.ToString();
  f.tail_type = "movie";  // a type, but not one an allergy can have
  EXPECT_EQ(mem->AddFact(ana_, f).code(), StatusCode::kInvalidArgument);
  f.tail_type = "allergen";
  f.domain = "nonsense_domain";
  st = mem->AddFact(ana_, f);
  EXPECT_NE(st.message().find("domain nonsense_domain"), std::string::npos) << st.ToString();
  f.domain = "food_diet";
  EXPECT_TRUE(mem->AddFact(ana_, f).ok());
  EXPECT_EQ(mem->GraphJson({"acme", "ghost"}).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(mem->Forget(ana_).ok());
  EXPECT_EQ(mem->GraphJson(ana_).status().code(), StatusCode::kNotFound);
  auto store = OpenSqliteStore(dir_, false, Durability::kNormal);
  EXPECT_EQ((*store)->LoadEdges(ana_).status().code(), StatusCode::kNotFound);
}

// The mission in one scenario: a preference stated early, many unrelated turns, then a request
// that shares no word with it. Fusion misses it; the graph view brings it back and says why.
TEST_F(EngineGraphTest, FullFindsAKeywordFreePreferenceThroughTheGraph) {
  auto mem = Open();
  mem->set_fact_pipeline(PatternExtractor(), RomancePolicy(), MoviesContext());
  std::vector<Turn> turns = {T("D1:1", "I love titanic", 1000, "s1")};
  for (int i = 0; i < 60; ++i)
    turns.push_back(T("D1:" + std::to_string(i + 2), "weekend plans include watching paint dry number " +
                                                         std::to_string(i), 2000 + i, "s1"));
  ASSERT_TRUE(mem->IngestBatch(ana_, turns).ok());
  SearchOptions so;
  so.k = 5;
  so.asker = "Ana";
  so.method = Method::kFusion;
  auto fusion = mem->Search(ana_, "what should I watch this weekend?", so);
  ASSERT_TRUE(fusion.ok());
  for (const auto& h : fusion->hits) EXPECT_NE(h.turn.turn.id, "D1:1");  // no shared word
  so.method = Method::kFull;
  auto full = mem->Search(ana_, "what should I watch this weekend?", so);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(full->route, "graph-first");
  ASSERT_FALSE(full->hits.empty());
  EXPECT_EQ(full->hits[0].turn.turn.id, "D1:1");
  EXPECT_GT(full->hits[0].graph_score, 0);
  EXPECT_EQ(full->hits[0].path, "person:ana -LIKES-> entity:titanic");
  EXPECT_EQ(full->query_domains, std::vector<std::string>{"movies_tv"});
  // Without an asker there is no user node to start from: dense-first, same as fusion.
  so.asker.clear();
  auto anon = mem->Search(ana_, "what should I watch this weekend?", so);
  EXPECT_EQ(anon->route, "dense-first");
  EXPECT_EQ(anon->hits[0].turn.turn.id, fusion->hits[0].turn.turn.id);
}

// A question about what was said ("what did you recommend?") asks to recall the conversation,
// not for a choice the user's preferences govern: it goes dense-first and finds the companion's
// reply, which the graph view would rank below the asker's own preference turn. A request
// naming the same thing stays graph-first.
TEST_F(EngineGraphTest, QuestionsAboutWhatWasSaidGoDenseFirst) {
  auto mem = Open();
  mem->set_fact_pipeline(PatternExtractor(), RomancePolicy(), MoviesContext());
  std::vector<Turn> turns = {T("D1:1", "I love titanic", 1000, "s1"),
                             T("D1:2", "then I recommend the notebook, another weepy film", 1001, "s1", "Bot")};
  for (int i = 0; i < 30; ++i)
    turns.push_back(T("D1:" + std::to_string(i + 3), "weekend plans include paint drying number " + std::to_string(i),
                      2000 + i, "s1"));
  ASSERT_TRUE(mem->IngestBatch(ana_, turns).ok());
  SearchOptions so;
  so.k = 3;
  so.asker = "Ana";
  so.method = Method::kFull;
  for (const char* q : {"Which film did you recommend to me?", "Remind me of the weepy film.",
                        "You suggested a film once, which one?", "What did I tell you about films?",
                        "Which film did you point me to?", "that film u told me about, the name?", "which film did u suggest"}) {
    auto r = mem->Search(ana_, q, so);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->route, "dense-first") << q;
  }
  auto recall = mem->Search(ana_, "Which film did you recommend to me?", so);
  EXPECT_EQ(recall->hits[0].turn.turn.id, "D1:2");
  auto request = mem->Search(ana_, "Which film would you recommend for tonight?", so);
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request->route, "graph-first");
  EXPECT_EQ(request->hits[0].turn.turn.id, "D1:1");
}

}  // namespace
}  // namespace ontomem
