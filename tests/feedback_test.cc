// Feedback, tenant stats, query ids and the context budget, over the real SQLite store (and the
// in-memory fake where the contract is the same).
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/memory_impl.h"
#include "fake_embedder.h"
#include "store/store.h"
#include "test_util.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;
using testing::FakeEmbedder;

const UserKey kAna{"acme", "ana"};
const UserKey kBen{"acme", "ben"};

Turn T(std::string id, std::string speaker, std::string text) {
  return testing::MakeTurn(std::move(id), std::move(speaker), std::move(text));
}

Feedback Fb(std::string query_id, std::vector<std::string> used, std::vector<std::string> wrong = {},
            std::vector<std::string> missed = {}) {
  Feedback f;
  f.query_id = std::move(query_id);
  f.used = std::move(used);
  f.wrong = std::move(wrong);
  f.missed = std::move(missed);
  return f;
}

// A small read-only window on the database file, independent of the store under test.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  }
  ~RawDb() { sqlite3_close(db_); }
  // All rows of a query as strings (NULL as "").
  std::vector<std::vector<std::string>> Rows(const std::string& sql) {
    std::vector<std::vector<std::string>> out;
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(db_);
    while (s != nullptr && sqlite3_step(s) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(s); ++i) {
        const unsigned char* p = sqlite3_column_text(s, i);
        row.emplace_back(p ? reinterpret_cast<const char*>(p) : "");
      }
      out.push_back(std::move(row));
    }
    sqlite3_finalize(s);
    return out;
  }
  int64_t Int(const std::string& sql) {
    auto rows = Rows(sql);
    return rows.empty() || rows[0].empty() ? -1 : std::stoll(rows[0][0]);
  }

 private:
  sqlite3* db_ = nullptr;
};

void RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

class FeedbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = (fs::path(dir_) / kDatabaseFileName).string();
  }
  std::unique_ptr<MemoryImpl> Open() {
    Options o;
    o.data_dir = dir_;
    o.embedder = emb_;
    o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
    auto store = OpenSqliteStore(dir_, true, Durability::kNormal);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return nullptr;
    return std::make_unique<MemoryImpl>(o, std::move(store).value(), emb_);
  }
  void IngestDialogue(Memory* mem) {
    ASSERT_TRUE(mem->IngestBatch(kAna, {T("D1:1", "Ana", "I adopted a greyhound named Pixel"),
                                        T("D1:2", "Ben", "Greyhounds are gentle dogs"),
                                        T("D1:3", "Ana", "Tomorrow I start pottery classes")})
                    .ok());
  }

  std::shared_ptr<FakeEmbedder> emb_ = std::make_shared<FakeEmbedder>();
  const testing::TempDir temp_{"ontomem-feedback"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::string db_path_;
};

TEST_F(FeedbackTest, RoundTripThroughReopenAndExport) {
  std::string qid;
  {
    auto mem = Open();
    IngestDialogue(mem.get());
    auto r = mem->Search(kAna, "pottery", {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    qid = r->query_id;
    Feedback f = Fb(qid, {"D1:3"}, {"D1:2"}, {"D1:1"});
    f.query = "pottery — when?";
    f.time_ms = 1700000000000;
    ASSERT_TRUE(mem->AddFeedback(kAna, f).ok());
    Feedback g = Fb("second", {}, {}, {"D1:1", "D1:3"});  // time 0 = now
    Status st = mem->AddFeedback(kAna, g);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  auto mem = Open();
  auto log = mem->FeedbackLog(kAna);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  ASSERT_EQ(log->size(), 2u);
  EXPECT_EQ((*log)[0].query_id, qid);
  EXPECT_EQ((*log)[0].query, "pottery — when?");
  EXPECT_EQ((*log)[0].used, std::vector<std::string>{"D1:3"});
  EXPECT_EQ((*log)[0].wrong, std::vector<std::string>{"D1:2"});
  EXPECT_EQ((*log)[0].missed, std::vector<std::string>{"D1:1"});
  EXPECT_EQ((*log)[0].time_ms, 1700000000000);
  EXPECT_EQ((*log)[1].query_id, "second");
  EXPECT_EQ((*log)[1].missed, (std::vector<std::string>{"D1:1", "D1:3"}));
  EXPECT_GT((*log)[1].time_ms, 1700000000000);  // stamped with the current time
  EXPECT_EQ(RawDb(db_path_).Int("SELECT count(*) FROM feedback WHERE recorded_at > 0"), 2);

  auto exported = mem->Export(kAna);
  ASSERT_TRUE(exported.ok());
  auto doc = nlohmann::json::parse(*exported);
  ASSERT_EQ(doc["feedback"].size(), 2u);
  EXPECT_EQ(doc["feedback"][0]["query_id"], qid);
  EXPECT_EQ(doc["feedback"][0]["used"], nlohmann::json::array({"D1:3"}));
  EXPECT_EQ(doc["feedback"][1]["missed"], nlohmann::json::array({"D1:1", "D1:3"}));
  // A user without feedback exports an empty list, not a missing key.
  ASSERT_TRUE(mem->Ingest(kBen, T("x", "Ben", "hello")).ok());
  EXPECT_EQ(nlohmann::json::parse(*mem->Export(kBen))["feedback"], nlohmann::json::array());
}

// A database written by schema 2 (before feedback) is migrated in place and keeps its turns and
// graph.
TEST_F(FeedbackTest, MigratesSchemaTwoToLatestKeepingData) {
  {
    auto mem = Open();
    IngestDialogue(mem.get());
    Fact fact;
    fact.relation = "LIKES";
    fact.tail = "pottery";
    ASSERT_TRUE(mem->AddFact(kAna, fact).ok());
  }
  RawExec(db_path_, "DROP TABLE write_counter; ALTER TABLE users DROP COLUMN version; "
                    "ALTER TABLE users DROP COLUMN created_version; "
                    "DROP TABLE feedback; ALTER TABLE users DROP COLUMN turn_count; "
                    "ALTER TABLE users DROP COLUMN text_bytes; DELETE FROM schema_version WHERE version >= 3;");
  ASSERT_EQ(RawDb(db_path_).Int("SELECT MAX(version) FROM schema_version"), 2);
  ASSERT_EQ(RawDb(db_path_).Int("SELECT count(*) FROM sqlite_master WHERE name = 'feedback'"), 0);

  auto mem = Open();
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(RawDb(db_path_).Int("SELECT MAX(version) FROM schema_version"), 5);
  auto turns = mem->Turns(kAna);
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), 3u);
  EXPECT_EQ((*turns)[2].turn.text, "Tomorrow I start pottery classes");
  auto graph = mem->GraphJson(kAna);
  ASSERT_TRUE(graph.ok());
  EXPECT_NE(graph->find("pottery"), std::string::npos);
  // The per-user totals behind tenant stats are backfilled from the stored turns.
  auto stats = mem->GetTenantStats("acme");
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->users, 1);
  EXPECT_EQ(stats->turns, 3);
  EXPECT_EQ(stats->text_bytes, 33 + 26 + 32);
  auto log = mem->FeedbackLog(kAna);
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(log->empty());
  ASSERT_TRUE(mem->AddFeedback(kAna, Fb("q", {"D1:1"})).ok());
  EXPECT_EQ(mem->FeedbackLog(kAna)->size(), 1u);
}

TEST_F(FeedbackTest, ValidationErrorsNameTheProblemAndStoreNothing) {
  auto mem = Open();
  IngestDialogue(mem.get());
  ASSERT_TRUE(mem->Ingest(kBen, T("B1", "Ben", "ben's own turn")).ok());

  Status st = mem->AddFeedback({"acme", "nobody"}, Fb("q", {"D1:1"}));
  EXPECT_EQ(st.code(), StatusCode::kNotFound) << st.ToString();
  EXPECT_EQ(mem->FeedbackLog({"acme", "nobody"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(mem->AddFeedback({"other", "ana"}, Fb("q", {"D1:1"})).code(), StatusCode::kNotFound);

  st = mem->AddFeedback(kAna, Fb("q", {}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("names no turn"), std::string::npos) << st.ToString();

  // One unknown id rejects the whole feedback and names the id and its field.
  st = mem->AddFeedback(kAna, Fb("q", {"D1:1"}, {}, {"D9:9"}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("D9:9"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("missed"), std::string::npos) << st.ToString();

  // Another user's turn is not one of Ana's.
  st = mem->AddFeedback(kAna, Fb("q", {"B1"}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("B1"), std::string::npos) << st.ToString();

  st = mem->AddFeedback(kAna, Fb("", {"D1:1"}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("query_id"), std::string::npos) << st.ToString();

  st = mem->AddFeedback(kAna, Fb("q", {"D1:1", std::string("bad\xff")}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("used[1]"), std::string::npos) << st.ToString();

  Feedback neg = Fb("q", {"D1:1"});
  neg.time_ms = -1;
  EXPECT_EQ(mem->AddFeedback(kAna, neg).code(), StatusCode::kInvalidArgument);

  auto log = mem->FeedbackLog(kAna);
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(log->empty());
  EXPECT_EQ(RawDb(db_path_).Int("SELECT count(*) FROM feedback"), 0);
}

// Forget removes every row that belongs to the user from every table: found by walking the
// schema, so a table added later without a user or turn link fails this test until handled.
TEST_F(FeedbackTest, ForgetLeavesNoRowOfTheUserInAnyTable) {
  const std::string marker = "zanzibar-marker-7731";
  auto mem = Open();
  ASSERT_TRUE(mem->IngestBatch(kAna, {T("D1:1", "Ana", "I adopted a greyhound named " + marker),
                                      T("D1:2", "Ana", "Tomorrow I start pottery classes")})
                  .ok());
  ASSERT_TRUE(mem->Ingest(kBen, T("B1", "Ben", "Ben likes chess")).ok());
  Fact fact;
  fact.relation = "LIKES";
  fact.tail = marker;
  ASSERT_TRUE(mem->AddFact(kAna, fact).ok());
  ASSERT_TRUE(mem->AddFact(kBen, Fact{.head = "", .relation = "LIKES", .tail = "chess", .tail_type = "", .domain = ""}).ok());
  auto r = mem->Search(kAna, "greyhound", {});
  ASSERT_TRUE(r.ok());
  Feedback f = Fb(r->query_id, {"D1:1"});
  f.query = "what about " + marker;
  ASSERT_TRUE(mem->AddFeedback(kAna, f).ok());
  ASSERT_TRUE(mem->AddFeedback(kBen, Fb("qb", {"B1"})).ok());

  std::string ana_id, turn_ids;
  std::vector<std::string> tables;
  {
    RawDb db(db_path_);
    ana_id = std::to_string(db.Int(
        "SELECT u.id FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE t.name = 'acme' AND u.name = 'ana'"));
    for (const auto& row : db.Rows("SELECT id FROM turns WHERE user_id = " + ana_id))
      turn_ids += (turn_ids.empty() ? "" : ",") + row[0];
    for (const auto& row : db.Rows("SELECT name FROM sqlite_master WHERE type = 'table'"))
      tables.push_back(row[0]);
  }
  ASSERT_FALSE(turn_ids.empty());

  // Counts the user's rows in `table`, by user_id, turn_id or (users) id; -1 if unlinked.
  auto count_rows = [&](RawDb& db, const std::string& table) -> int64_t {
    std::set<std::string> cols;
    for (const auto& row : db.Rows("PRAGMA table_info(" + table + ")")) cols.insert(row[1]);
    if (table == "users") return db.Int("SELECT count(*) FROM users WHERE id = " + ana_id);
    if (cols.count("user_id")) return db.Int("SELECT count(*) FROM " + table + " WHERE user_id = " + ana_id);
    if (cols.count("turn_id"))
      return db.Int("SELECT count(*) FROM " + table + " WHERE turn_id IN (" + turn_ids + ")");
    return -1;
  };
  // Rows anywhere whose text mentions the marker.
  auto marker_rows = [&](RawDb& db, const std::string& table) -> int64_t {
    int64_t n = 0;
    for (const auto& col : db.Rows("PRAGMA table_info(" + table + ")"))
      n += db.Int(fmt::format("SELECT count(*) FROM {} WHERE CAST(\"{}\" AS TEXT) LIKE '%{}%'", table,
                              col[1], marker));
    return n;
  };
  {
    RawDb db(db_path_);
    for (const std::string t : {"users", "turns", "vectors", "assertions", "edges", "feedback"})
      EXPECT_GT(count_rows(db, t), 0) << t << ": the test would prove nothing";
    int64_t seen = 0;
    for (const std::string& t : tables) seen += marker_rows(db, t);
    EXPECT_GE(seen, 4);  // turn, assertion, edge, feedback
  }

  ASSERT_TRUE(mem->Forget(kAna).ok());

  RawDb db(db_path_);
  for (const std::string& t : tables) {
    if (t == "tenants" || t == "schema_version" || t == "write_counter") continue;  // shared, hold nothing of a user
    EXPECT_EQ(count_rows(db, t), 0) << "table " << t << " (-1: no user or turn link; handle it in DeleteUser)";
    EXPECT_EQ(marker_rows(db, t), 0) << "table " << t;
  }
  // Ben is untouched.
  EXPECT_EQ(db.Int("SELECT count(*) FROM feedback f JOIN users u ON u.id = f.user_id WHERE u.name = 'ben'"), 1);
  EXPECT_EQ(db.Int("SELECT count(*) FROM turns x JOIN users u ON u.id = x.user_id WHERE u.name = 'ben'"), 1);
  EXPECT_EQ(mem->FeedbackLog(kAna).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(mem->FeedbackLog(kBen)->size(), 1u);
}

TEST_F(FeedbackTest, TenantStatsCountUsersTurnsAndBytes) {
  auto sqlite = Open();
  Options o;
  o.data_dir = "unused";
  auto fake = std::make_unique<MemoryImpl>(o, NewInMemoryStore(), emb_);
  for (MemoryImpl* mem : {sqlite.get(), fake.get()}) {
    auto zero = mem->GetTenantStats("acme");
    ASSERT_TRUE(zero.ok()) << zero.status().ToString();
    EXPECT_EQ(zero->users, 0);
    EXPECT_EQ(zero->turns, 0);
    EXPECT_EQ(zero->text_bytes, 0);

    ASSERT_TRUE(mem->IngestBatch(kAna, {T("a", "", "héllo"), T("b", "", "12345")}).ok());  // 6 + 5 bytes
    ASSERT_TRUE(mem->Ingest(kBen, T("c", "", "日本")).ok());                               // 6 bytes
    ASSERT_TRUE(mem->Ingest({"other", "ana"}, T("d", "", "not counted")).ok());
    ASSERT_TRUE(mem->AddFact({"acme", "carol"}, Fact{.head = "", .relation = "LIKES", .tail = "tea", .tail_type = "", .domain = ""}).ok());  // no turns

    ASSERT_TRUE(mem->Ingest(kAna, T("a", "", "héllo")).ok());  // a retried duplicate counts once

    auto st = mem->GetTenantStats("acme");
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->users, 3);
    EXPECT_EQ(st->turns, 3);
    EXPECT_EQ(st->text_bytes, 17);

    ASSERT_TRUE(mem->Forget(kAna).ok());
    st = mem->GetTenantStats("acme");
    EXPECT_EQ(st->users, 2);
    EXPECT_EQ(st->turns, 1);
    EXPECT_EQ(st->text_bytes, 6);
    EXPECT_EQ(mem->GetTenantStats("other")->turns, 1);
    EXPECT_EQ(mem->GetTenantStats("nobody")->users, 0);
    EXPECT_EQ(mem->GetTenantStats("").status().code(), StatusCode::kInvalidArgument);
  }
}

TEST_F(FeedbackTest, QueryIdsAreUniqueAcrossThreadsAndInstances) {
  auto mem = Open();
  IngestDialogue(mem.get());
  constexpr int kThreads = 4, kPerThread = 200;
  std::mutex mu;
  std::set<std::string> ids;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        auto r = mem->Search(kAna, "greyhound", {});
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r->query_id.size(), 16u);
        EXPECT_EQ(r->query_id.find_first_not_of("0123456789abcdef"), std::string::npos) << r->query_id;
        std::lock_guard<std::mutex> lock(mu);
        ids.insert(r->query_id);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ids.size(), static_cast<size_t>(kThreads * kPerThread));
  // A second instance (another process run) draws another base.
  auto again = Open();
  auto r = again->Search(kAna, "greyhound", {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ids.count(r->query_id), 0u);
}

TEST_F(FeedbackTest, ContextBudgetDropsHitsFromTheTail) {
  auto mem = Open();
  // Whitespace tokens: 6, 4, 3; all mention "kayak" so every one is retrieved.
  ASSERT_TRUE(mem->IngestBatch(kAna, {T("a", "", "kayak kayak kayak trip on Sunday"),
                                      T("b", "", "kayak kayak rental shop"),
                                      T("c", "", "kayak paddle broke")})
                  .ok());
  SearchOptions so;
  so.method = Method::kBm25;
  so.k = 3;
  auto full = mem->Search(kAna, "kayak", so);
  ASSERT_TRUE(full.ok());
  ASSERT_EQ(full->hits.size(), 3u);
  EXPECT_EQ(full->context_tokens, 13);
  std::vector<int64_t> tokens;
  for (const Hit& h : full->hits) tokens.push_back(h.turn.turn.text == "kayak kayak kayak trip on Sunday" ? 6
                                                   : h.turn.turn.text == "kayak kayak rental shop"     ? 4
                                                                                                        : 3);

  // A budget that fits the first two hits exactly.
  so.max_context_tokens = tokens[0] + tokens[1];
  auto two = mem->Search(kAna, "kayak", so);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->hits.size(), 2u);
  EXPECT_EQ(two->context_tokens, tokens[0] + tokens[1]);
  EXPECT_EQ(two->hits[0].turn.turn.id, full->hits[0].turn.turn.id);
  EXPECT_EQ(two->hits[1].turn.turn.id, full->hits[1].turn.turn.id);

  // One token short: the second hit does not fit, and nothing after it is taken either.
  so.max_context_tokens = tokens[0] + tokens[1] - 1;
  auto one = mem->Search(kAna, "kayak", so);
  ASSERT_EQ(one->hits.size(), 1u);
  EXPECT_EQ(one->context_tokens, tokens[0]);

  // The top hit is kept even when it alone is over budget.
  so.max_context_tokens = 1;
  auto top = mem->Search(kAna, "kayak", so);
  ASSERT_EQ(top->hits.size(), 1u);
  EXPECT_EQ(top->hits[0].turn.turn.id, full->hits[0].turn.turn.id);
  EXPECT_EQ(top->context_tokens, tokens[0]);

  so.max_context_tokens = -1;
  EXPECT_EQ(mem->Search(kAna, "kayak", so).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ontomem
