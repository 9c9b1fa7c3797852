// SQLite implementation of Store: <dir>/ontomem.db, WAL, a versioned schema with ordered
// migrations. One connection per Store, serialized by a mutex; other Store instances and other
// processes coordinate through SQLite's file locks (BEGIN IMMEDIATE + busy timeout).
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "store/forwarding_store.h"
#include "store/read_only_store.h"
#include "store/store.h"

namespace ontomem {
namespace {

// "ONTM" in the SQLite header (PRAGMA application_id): tells our files from other SQLite files.
constexpr int32_t kApplicationId = 0x4F4E544D;
constexpr int kBusyTimeoutMs = 10000;

// Vectors are stored as raw float32 bytes; the format is little-endian by definition.
static_assert(std::endian::native == std::endian::little, "vector blobs assume little-endian");
static_assert(sizeof(float) == 4);

struct Migration {
  int version;
  const char* sql;
};

// Ordered. Never edit a released entry: append a new migration instead.
constexpr Migration kMigrations[] = {
    {1, R"sql(
CREATE TABLE tenants (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
CREATE TABLE users (
  id        INTEGER PRIMARY KEY,
  tenant_id INTEGER NOT NULL REFERENCES tenants(id),
  name      TEXT NOT NULL,
  UNIQUE (tenant_id, name)
);
CREATE TABLE turns (
  id      INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  seq     INTEGER NOT NULL,
  ext_id  TEXT NOT NULL,
  speaker TEXT NOT NULL,
  text    TEXT NOT NULL,
  time_ms INTEGER NOT NULL,
  session TEXT NOT NULL,
  UNIQUE (user_id, ext_id),
  UNIQUE (user_id, seq)
);
CREATE TABLE vectors (
  turn_id     INTEGER PRIMARY KEY REFERENCES turns(id),
  embedder_id TEXT NOT NULL,
  dim         INTEGER NOT NULL,
  data        BLOB NOT NULL
);
)sql"},
    // Tag2Graph: assertions read from turns (or added explicitly) and the edge snapshot.
    {2, R"sql(
CREATE TABLE assertions (
  id              INTEGER PRIMARY KEY,
  user_id         INTEGER NOT NULL REFERENCES users(id),
  turn_id         INTEGER REFERENCES turns(id),
  head            TEXT NOT NULL,
  head_is_speaker INTEGER NOT NULL,
  relation        TEXT NOT NULL,
  tail            TEXT NOT NULL,
  tail_type       TEXT NOT NULL,
  domain          TEXT NOT NULL,
  tail_begin      INTEGER NOT NULL,
  tail_end        INTEGER NOT NULL,
  modality        TEXT NOT NULL,
  time_ms         INTEGER NOT NULL,
  confidence      REAL NOT NULL,
  explicit        INTEGER NOT NULL
);
CREATE INDEX assertions_by_user ON assertions(user_id, id);
CREATE TABLE edges (
  user_id        INTEGER NOT NULL REFERENCES users(id),
  key            TEXT NOT NULL,
  source         TEXT NOT NULL,
  relation       TEXT NOT NULL,
  target         TEXT NOT NULL,
  weight         REAL NOT NULL,
  valid_from     INTEGER NOT NULL,
  valid_to       INTEGER NOT NULL,
  recorded_at    INTEGER NOT NULL,
  promoted       INTEGER NOT NULL,
  explicit       INTEGER NOT NULL,
  domain         TEXT NOT NULL,
  source_turns   TEXT NOT NULL,
  assertion_keys TEXT NOT NULL,
  PRIMARY KEY (user_id, key)
);
)sql"},
    // Feedback on searches: which cited turns were used, wrong or missed (external turn ids).
    {3, R"sql(
CREATE TABLE feedback (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id),
  query_id    TEXT NOT NULL,
  query       TEXT NOT NULL,
  used        TEXT NOT NULL,
  wrong       TEXT NOT NULL,
  missed      TEXT NOT NULL,
  time_ms     INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL
);
CREATE INDEX feedback_by_user ON feedback(user_id, id);
-- Per-user totals for tenant quotas, kept by every append so stats never scan the turns.
ALTER TABLE users ADD COLUMN turn_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN text_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE users SET
  turn_count = (SELECT count(*) FROM turns WHERE turns.user_id = users.id),
  text_bytes = (SELECT COALESCE(SUM(length(CAST(text AS BLOB))), 0) FROM turns WHERE turns.user_id = users.id);
)sql"},
    // Versions (Store::UserVersion): one counter for the whole file, so a re-created user never
    // repeats a version; 0 means "not stored", so existing users start at 1.
    {4, R"sql(
CREATE TABLE write_counter (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  value INTEGER NOT NULL
);
INSERT INTO write_counter (id, value) VALUES (1, 1);
ALTER TABLE users ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
UPDATE users SET version = 1;
)sql"},
    // The version of the user's first write: tells a re-created user from the one a cached copy
    // holds, so a copy can be caught up by the rows after it (Store::LoadUser with a cursor).
    {5, R"sql(
ALTER TABLE users ADD COLUMN created_version INTEGER NOT NULL DEFAULT 0;
UPDATE users SET created_version = 1;
)sql"},
};
constexpr int kLatestSchema = kMigrations[std::size(kMigrations) - 1].version;

constexpr const char* kCreateSchemaVersion =
    "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)";

// Statements run through the cache (pointer identity is the cache key).
constexpr const char* kSelectTenant = "SELECT id FROM tenants WHERE name = ?1";
constexpr const char* kInsertTenant = "INSERT INTO tenants (name) VALUES (?1)";
constexpr const char* kSelectUserIn = "SELECT id FROM users WHERE tenant_id = ?1 AND name = ?2";
constexpr const char* kInsertUser = "INSERT INTO users (tenant_id, name) VALUES (?1, ?2)";
constexpr const char* kSelectUser =
    "SELECT u.id FROM users u JOIN tenants t ON t.id = u.tenant_id "
    "WHERE t.name = ?1 AND u.name = ?2";
constexpr const char* kSelectUserVersion =
    "SELECT u.version FROM users u JOIN tenants t ON t.id = u.tenant_id "
    "WHERE t.name = ?1 AND u.name = ?2";
// Version and UserCursor of a user row: the maxima come from the (user_id, ...) indexes.
constexpr const char* kCursorOf =
    "SELECT u.version, u.created_version, "
    "(SELECT COALESCE(MAX(seq), 0) FROM turns WHERE user_id = u.id), "
    "(SELECT COALESCE(MAX(id), 0) FROM assertions WHERE user_id = u.id), "
    "(SELECT COALESCE(MAX(id), 0) FROM feedback WHERE user_id = u.id) "
    "FROM users u WHERE u.id = ?1";
constexpr const char* kNextVersion = "UPDATE write_counter SET value = value + 1 WHERE id = 1 RETURNING value";
constexpr const char* kSetVersion =
    "UPDATE users SET version = ?2, "
    "created_version = CASE created_version WHEN 0 THEN ?2 ELSE created_version END WHERE id = ?1";
constexpr const char* kMaxSeq = "SELECT COALESCE(MAX(seq), 0) FROM turns WHERE user_id = ?1";
constexpr const char* kSelectTurnById =
    "SELECT seq, speaker, text, time_ms, session FROM turns WHERE user_id = ?1 AND ext_id = ?2";
constexpr const char* kInsertTurn =
    "INSERT INTO turns (user_id, seq, ext_id, speaker, text, time_ms, session) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr const char* kUpsertVector =
    "INSERT OR REPLACE INTO vectors (turn_id, embedder_id, dim, data) VALUES (?1, ?2, ?3, ?4)";
constexpr const char* kLoadTurns =
    "SELECT t.seq, t.ext_id, t.speaker, t.text, t.time_ms, t.session, "
    "       v.embedder_id, v.dim, v.data "
    "FROM turns t LEFT JOIN vectors v ON v.turn_id = t.id "
    "WHERE t.user_id = ?1 AND t.seq > ?2 ORDER BY t.seq";
constexpr const char* kDeleteUserVectors =
    "DELETE FROM vectors WHERE turn_id IN (SELECT id FROM turns WHERE user_id = ?1)";
constexpr const char* kDeleteUserTurns = "DELETE FROM turns WHERE user_id = ?1";
constexpr const char* kDeleteUserAssertions = "DELETE FROM assertions WHERE user_id = ?1";
constexpr const char* kDeleteUserEdges = "DELETE FROM edges WHERE user_id = ?1";
constexpr const char* kDeleteUserFeedback = "DELETE FROM feedback WHERE user_id = ?1";
constexpr const char* kSelectTurnExists = "SELECT 1 FROM turns WHERE user_id = ?1 AND ext_id = ?2";
constexpr const char* kInsertFeedback =
    "INSERT INTO feedback (user_id, query_id, query, used, wrong, missed, time_ms, recorded_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
constexpr const char* kLoadFeedback =
    "SELECT query_id, query, used, wrong, missed, time_ms FROM feedback WHERE user_id = ?1 AND id > ?2 "
    "ORDER BY id";
constexpr const char* kAddUserTotals =
    "UPDATE users SET turn_count = turn_count + ?2, text_bytes = text_bytes + ?3 WHERE id = ?1";
// Sums the per-user totals: O(users of the tenant), not O(turns).
constexpr const char* kTenantStats =
    "SELECT count(*), COALESCE(SUM(u.turn_count), 0), COALESCE(SUM(u.text_bytes), 0) "
    "FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE t.name = ?1";
constexpr const char* kInsertAssertion =
    "INSERT INTO assertions (user_id, turn_id, head, head_is_speaker, relation, tail, tail_type, "
    "domain, tail_begin, tail_end, modality, time_ms, confidence, explicit) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
constexpr const char* kLoadAssertions =
    "SELECT a.id, t.seq, t.ext_id, a.head, a.head_is_speaker, a.relation, a.tail, a.tail_type, "
    "a.domain, a.tail_begin, a.tail_end, a.modality, a.time_ms, a.confidence, a.explicit "
    "FROM assertions a LEFT JOIN turns t ON t.id = a.turn_id WHERE a.user_id = ?1 AND a.id > ?2 ORDER BY a.id";
constexpr const char* kUpsertEdge =
    "INSERT INTO edges (user_id, key, source, relation, target, weight, valid_from, valid_to, "
    "recorded_at, promoted, explicit, domain, source_turns, assertion_keys) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
    "ON CONFLICT (user_id, key) DO UPDATE SET weight = excluded.weight, "
    "valid_from = excluded.valid_from, valid_to = excluded.valid_to, "
    "recorded_at = excluded.recorded_at, promoted = excluded.promoted, "
    "explicit = excluded.explicit, domain = excluded.domain, "
    "source_turns = excluded.source_turns, assertion_keys = excluded.assertion_keys";
constexpr const char* kLoadEdges =
    "SELECT key, source, relation, target, weight, valid_from, valid_to, recorded_at, promoted, "
    "explicit, domain, source_turns, assertion_keys FROM edges WHERE user_id = ?1 ORDER BY rowid";
constexpr const char* kDeleteUserRow = "DELETE FROM users WHERE id = ?1";
constexpr const char* kListUsers =
    "SELECT u.name FROM users u JOIN tenants t ON t.id = u.tenant_id "
    "WHERE t.name = ?1 ORDER BY u.name";
constexpr const char* kSelectTurnBySeq = "SELECT id FROM turns WHERE user_id = ?1 AND seq = ?2";
constexpr const char* kDeleteVector = "DELETE FROM vectors WHERE turn_id = ?1";

Status FromSqlite(int rc, const char* detail, std::string_view what) {
  std::string msg = fmt::format("{}: {} (sqlite code {})", what, detail, rc);
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(std::move(msg));
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_PROTOCOL:
      return Status::IOError(std::move(msg));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(std::move(msg));
    case SQLITE_NOMEM:
      return Status::ResourceExhausted(std::move(msg));
    case SQLITE_CONSTRAINT:
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
      return Status::Internal(std::move(msg));
    default:
      return Status::IOError(std::move(msg));
  }
}

Status FromSqlite(sqlite3* db, int rc, std::string_view what) {
  return FromSqlite(rc, db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc), what);
}

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;

struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

// A use of a cached prepared statement. Resets it on destruction so a half-read SELECT never
// keeps a read snapshot (and thus a transaction) open.
class Stmt {
 public:
  Stmt(sqlite3* db, sqlite3_stmt* s) : db_(db), s_(s) {}
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

  // Bind errors are remembered and reported by the next Step. Text and blobs are bound
  // SQLITE_STATIC: callers keep them alive until the statement is done.
  void Bind(int i, int64_t v) { Check(sqlite3_bind_int64(s_, i, v)); }
  void Bind(int i, std::string_view v) {
    Check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC));
  }
  void BindDouble(int i, double v) { Check(sqlite3_bind_double(s_, i, v)); }
  void BindNull(int i) { Check(sqlite3_bind_null(s_, i)); }
  void BindBlob(int i, const void* data, size_t n) {
    Check(sqlite3_bind_blob(s_, i, n == 0 ? "" : data, static_cast<int>(n), SQLITE_STATIC));
  }

  // Returns SQLITE_ROW or SQLITE_DONE in *rc; any other outcome is an error Status.
  Status Step(std::string_view what, int* rc) {
    if (bind_rc_ != SQLITE_OK) return FromSqlite(db_, bind_rc_, what);
    *rc = sqlite3_step(s_);
    if (*rc == SQLITE_ROW || *rc == SQLITE_DONE) return Status::Ok();
    return FromSqlite(db_, *rc, what);
  }
  // For statements that return no rows.
  Status Run(std::string_view what) {
    int rc = 0;
    RETURN_IF_ERROR(Step(what, &rc));
    if (rc != SQLITE_DONE) return Status::Internal(fmt::format("{}: unexpected result row", what));
    return Status::Ok();
  }

  int64_t Int(int col) const { return sqlite3_column_int64(s_, col); }
  double Double(int col) const { return sqlite3_column_double(s_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  std::string Text(int col) const {
    const unsigned char* p = sqlite3_column_text(s_, col);
    int n = sqlite3_column_bytes(s_, col);
    return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p), n);
  }
  std::string_view Blob(int col) const {
    const void* p = sqlite3_column_blob(s_, col);
    int n = sqlite3_column_bytes(s_, col);
    return p == nullptr ? std::string_view() : std::string_view(static_cast<const char*>(p), n);
  }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  }
  sqlite3* db_;
  sqlite3_stmt* s_;
  int bind_rc_ = SQLITE_OK;
};

// Rolls back on destruction unless committed, so every early error return leaves nothing behind.
class Txn {
 public:
  explicit Txn(sqlite3* db) : db_(db) {}
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;
  ~Txn() {
    // Some errors (FULL, IOERR, BUSY) already rolled back; ROLLBACK then would only fail.
    if (active_ && !sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  // Immediate: take the write lock now (waiting up to the busy timeout) so the transaction
  // never has to upgrade a read snapshot, which SQLite cannot retry in WAL mode.
  Status Begin(bool immediate) {
    int rc = sqlite3_exec(db_, immediate ? "BEGIN IMMEDIATE" : "BEGIN", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return FromSqlite(db_, rc, "begin transaction");
    active_ = true;
    return Status::Ok();
  }
  Status Commit() {
    int rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return FromSqlite(db_, rc, "commit");
    active_ = false;
    return Status::Ok();
  }

 private:
  sqlite3* db_;
  bool active_ = false;
};

std::string UserName(const UserKey& key) { return key.tenant + "/" + key.user; }

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Rejects files that are not SQLite before SQLite sees them. An empty file is a new database.
Status CheckFileHeader(const std::string& path) {
  // A FIFO would block the read below forever; a directory reads as an empty file.
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && st.type() != std::filesystem::file_type::regular)
    return Status::FailedPrecondition(fmt::format("{} is not a regular file (an ontomem database is one)", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(fmt::format("cannot read {}", path));
  char header[16] = {};
  in.read(header, sizeof(header));
  std::streamsize n = in.gcount();
  if (n == 0) return Status::Ok();
  if (n < static_cast<std::streamsize>(sizeof(header)) ||
      std::memcmp(header, "SQLite format 3", sizeof(header)) != 0) {
    return Status::Corruption(fmt::format("{} is not an ontomem database", path));
  }
  return Status::Ok();
}

class SqliteStore final : public Store {
 public:
  SqliteStore(std::string path, DbPtr db) : path_(std::move(path)), db_(std::move(db)) {}

  Status Init(Durability durability);

  StatusOr<uint64_t> UserVersion(const UserKey& key) override;
  using Store::LoadUser;
  StatusOr<UserSnapshot> LoadUser(const UserKey& key, const UserCursor* since) override;
  Status AppendTurns(const UserKey& key, std::vector<TurnRecord>* records, GraphDelta* delta,
                     WriteBase* base) override;
  StatusOr<std::vector<TurnRecord>> LoadTurns(const UserKey& key) override;
  StatusOr<std::vector<Assertion>> LoadAssertions(const UserKey& key) override;
  StatusOr<std::vector<GraphEdge>> LoadEdges(const UserKey& key) override;
  StatusOr<bool> HasUser(const UserKey& key) override;
  Status DeleteUser(const UserKey& key) override;
  StatusOr<std::vector<std::string>> ListUsers(const std::string& tenant) override;
  Status UpdateVectors(const UserKey& key, const std::vector<TurnRecord>& records) override;
  Status AppendFeedback(const UserKey& key, const Feedback& feedback, WriteBase* base) override;
  StatusOr<std::vector<Feedback>> LoadFeedback(const UserKey& key) override;
  StatusOr<TenantStats> GetTenantStats(const std::string& tenant) override;

 private:
  struct Assigned {
    int64_t seq;
    std::string id;
    bool duplicate;
    int64_t row = 0;  // turns.id of a newly inserted turn
  };

  sqlite3* db() const { return db_.get(); }
  Status Exec(const char* sql, std::string_view what);
  StatusOr<int64_t> QueryInt(const char* sql, std::string_view what);
  // The cached statement for `sql` (a constant above).
  StatusOr<sqlite3_stmt*> Prepare(const char* sql);
  // Schema version of the file: 0 for a new empty database. Corruption if the file is not ours.
  StatusOr<int> ReadSchemaVersion();
  Status Migrate();
  Status EnableWal();

  StatusOr<std::optional<int64_t>> FindUser(const UserKey& key);
  StatusOr<int64_t> FindOrCreate(const char* select_sql, const char* insert_sql,
                                 std::optional<int64_t> parent, const std::string& name);
  Status AppendLocked(const UserKey& key, const std::vector<TurnRecord>& records,
                      std::vector<Assigned>* out, int64_t* user_id_out);
  Status WriteDelta(int64_t user_id, const std::vector<Assigned>& assigned, const GraphDelta& delta);
  // In one read transaction: finds the user (NotFound if unknown) and calls `read` with its id.
  Status ReadUserTxn(const UserKey& key, const std::string& ctx, const std::function<Status(int64_t)>& read);
  // Calls `row` for every row `sql` (bound to the user id and `after`) returns; in the
  // caller's transaction.
  Status ForEachRow(int64_t user_id, const char* sql, const std::function<Status(Stmt&)>& row, int64_t after = 0);
  // The user's rows after seq / id `after`.
  Status ReadTurns(int64_t user_id, int64_t after, std::vector<TurnRecord>* out);
  Status ReadAssertions(int64_t user_id, int64_t after, std::vector<Assertion>* out);
  Status ReadFeedback(int64_t user_id, int64_t after, std::vector<Feedback>* out);
  // The user's cursor and, when `version` is given, its version: one row, one query.
  StatusOr<UserCursor> ReadCursor(int64_t user_id, uint64_t* version = nullptr);
  // Turns, assertions and feedback of the user into *out (whose cursor is read already): those
  // after `since` when it is of the same incarnation (out->since), else all.
  Status ReadRows(int64_t user_id, const UserCursor* since, UserSnapshot* out);
  // Inside a write transaction: calls base->rebase when the stored user (row `user_id`, if
  // any) is not at base->version.
  Status RebaseIfMoved(std::optional<int64_t> user_id, WriteBase* base, GraphDelta* delta);
  // BEGIN IMMEDIATE, waiting for another connection's write lock at most until the busy timeout
  // counted from base->asked_at (when set).
  Status BeginWrite(Txn& txn, const WriteBase* base);
  // Inside a write transaction: gives the user the next version of the file.
  StatusOr<uint64_t> BumpVersion(int64_t user_id);
  Status PutVector(int64_t turn_row, const TurnRecord& r, std::string_view what);

  std::mutex mu_;
  const std::string path_;
  DbPtr db_;  // declared before stmts_: statements are finalized first
  std::unordered_map<const char*, StmtPtr> stmts_;

  // UserVersion's own read-only connection: a search must not wait for another user's commit
  // (and its fsync) on db_. WAL lets it read while db_ writes.
  std::mutex version_mu_;
  DbPtr version_db_;
  StmtPtr version_stmt_;
};

Status SqliteStore::Exec(const char* sql, std::string_view what) {
  char* err = nullptr;
  int rc = sqlite3_exec(db(), sql, nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::Ok();
  Status st = FromSqlite(rc, err != nullptr ? err : sqlite3_errstr(rc), what);
  sqlite3_free(err);
  return st;
}

StatusOr<int64_t> SqliteStore::QueryInt(const char* sql, std::string_view what) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db(), sql, -1, &raw, nullptr);
  StmtPtr owned(raw);
  if (rc != SQLITE_OK) return FromSqlite(db(), rc, what);
  rc = sqlite3_step(raw);
  if (rc == SQLITE_ROW) return sqlite3_column_int64(raw, 0);
  if (rc == SQLITE_DONE) return Status::Internal(fmt::format("{}: no result row", what));
  return FromSqlite(db(), rc, what);
}

StatusOr<sqlite3_stmt*> SqliteStore::Prepare(const char* sql) {
  auto it = stmts_.find(sql);
  if (it != stmts_.end()) return it->second.get();
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v3(db(), sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(raw);
    return FromSqlite(db(), rc, fmt::format("prepare \"{}\"", sql));
  }
  stmts_.emplace(sql, StmtPtr(raw));
  return raw;
}

StatusOr<int> SqliteStore::ReadSchemaVersion() {
  const std::string not_ours = fmt::format("{} is not an ontomem database", path_);
  auto wrap = [&](const Status& st) {
    // Whatever SQLite says about a file that is not a database, the useful message is ours.
    if (st.code() == StatusCode::kCorruption) return Status::Corruption(not_ours + " (" + st.message() + ")");
    return st.WithContext(fmt::format("open {}", path_));
  };
  StatusOr<int64_t> app_id = QueryInt("PRAGMA application_id", "read application_id");
  if (!app_id.ok()) return wrap(app_id.status());
  StatusOr<int64_t> objects = QueryInt("SELECT count(*) FROM sqlite_master", "read schema");
  if (!objects.ok()) return wrap(objects.status());
  StatusOr<int64_t> has_version = QueryInt(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
      "read schema");
  if (!has_version.ok()) return wrap(has_version.status());

  if (*app_id == 0 && *objects == 0) return 0;  // new, empty database
  if (*app_id != kApplicationId || *has_version == 0) return Status::Corruption(not_ours);
  StatusOr<int64_t> version =
      QueryInt("SELECT COALESCE(MAX(version), 0) FROM schema_version", "read schema_version");
  if (!version.ok()) return wrap(version.status());
  if (*version > kLatestSchema) {
    return Status::FailedPrecondition(
        fmt::format("{} was written by a newer ontomem (schema {}, this build knows {})", path_,
                    *version, kLatestSchema));
  }
  // Migration 1 records itself in the transaction that creates the table, so ours is never empty.
  if (*version < 1) return Status::Corruption(not_ours + " (no schema version recorded)");
  return static_cast<int>(*version);
}

Status SqliteStore::Migrate() {
  Txn txn(db());
  RETURN_IF_ERROR(txn.Begin(/*immediate=*/true).WithContext("migrate " + path_));
  // Re-read under the write lock: another process may have migrated since the first check.
  ASSIGN_OR_RETURN(int current, ReadSchemaVersion());
  if (current == kLatestSchema) return Status::Ok();
  if (current == 0) {
    RETURN_IF_ERROR(Exec(kCreateSchemaVersion, "create schema_version"));
    RETURN_IF_ERROR(Exec(fmt::format("PRAGMA application_id = {}", kApplicationId).c_str(),
                         "set application_id"));
  }
  for (const Migration& m : kMigrations) {
    if (m.version <= current) continue;
    std::string what = fmt::format("migrate {} to schema {}", path_, m.version);
    RETURN_IF_ERROR(Exec(m.sql, what));
    RETURN_IF_ERROR(Exec(fmt::format("INSERT INTO schema_version (version, applied_at) "
                                     "VALUES ({}, {})",
                                     m.version, NowMs())
                             .c_str(),
                         what));
  }
  return txn.Commit().WithContext("migrate " + path_);
}

Status SqliteStore::EnableWal() {
  const std::string what = "enable WAL on " + path_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db(), "PRAGMA journal_mode = WAL", -1, &raw, nullptr);
    StmtPtr owned(raw);
    if (rc != SQLITE_OK) return FromSqlite(db(), rc, what);
    rc = sqlite3_step(raw);
    if (rc == SQLITE_ROW) {
      const unsigned char* p = sqlite3_column_text(raw, 0);
      std::string mode = p != nullptr ? reinterpret_cast<const char*>(p) : "unknown";
      if (mode == "wal") return Status::Ok();
      return Status::IOError(fmt::format("{}: journal mode stays {}", what, mode));
    }
    // Leaving rollback mode needs an exclusive lock and SQLite does not call the busy handler
    // for it; only concurrent first opens of a new file get here.
    const int primary = rc & 0xff;
    if ((primary == SQLITE_BUSY || primary == SQLITE_LOCKED) &&
        std::chrono::steady_clock::now() < deadline) {
      owned.reset();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    return FromSqlite(db(), rc, what);
  }
}

Status SqliteStore::Init(Durability durability) {
  sqlite3_extended_result_codes(db(), 1);
  int rc = sqlite3_busy_timeout(db(), kBusyTimeoutMs);
  if (rc != SQLITE_OK) return FromSqlite(db(), rc, "set busy timeout");

  const bool read_only = sqlite3_db_readonly(db(), "main") == 1;
  // Validate before anything that writes: a foreign or newer file must be left untouched. One
  // read transaction, so a concurrent first open cannot show us half of its migration.
  int version = 0;
  {
    Txn read(db());
    Status st = read.Begin(/*immediate=*/false).WithContext("open " + path_);
    StatusOr<int> v = st.ok() ? ReadSchemaVersion() : StatusOr<int>(st);
    // A WAL reader must create -shm when no other connection has the file open.
    if (!v.ok() && sqlite3_extended_errcode(db()) == SQLITE_READONLY_DIRECTORY) {
      const std::string dir = std::filesystem::path(path_).parent_path().string();
      return Status::FailedPrecondition(fmt::format(
          "open {}: data directory {} is not writable (ontomem needs to write {}-wal/-shm next to "
          "the database, even to read it)",
          path_, dir.empty() ? "." : dir, kDatabaseFileName));
    }
    ASSIGN_OR_RETURN(version, std::move(v));
  }
  if (read_only) {
    // Nothing below may write; journal mode and schema are the file's as they are.
    if (version < kLatestSchema) {
      return Status::FailedPrecondition(fmt::format(
          "open {}: the database is at schema {} and this build needs {}, but it is read-only, so "
          "it cannot be migrated",
          path_, version, kLatestSchema));
    }
    return Exec("PRAGMA foreign_keys = ON", "enable foreign keys on " + path_);
  }

  RETURN_IF_ERROR(EnableWal());
  const char* sync = durability == Durability::kFull     ? "PRAGMA synchronous = FULL"
                     : durability == Durability::kNormal ? "PRAGMA synchronous = NORMAL"
                                                         : "PRAGMA synchronous = OFF";
  RETURN_IF_ERROR(Exec(sync, "set synchronous on " + path_));
  RETURN_IF_ERROR(Exec("PRAGMA foreign_keys = ON", "enable foreign keys on " + path_));
  if (version < kLatestSchema) RETURN_IF_ERROR(Migrate());
  return Status::Ok();
}

StatusOr<std::optional<int64_t>> SqliteStore::FindUser(const UserKey& key) {
  ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kSelectUser));
  Stmt s(db(), raw);
  s.Bind(1, key.tenant);
  s.Bind(2, key.user);
  int rc = 0;
  RETURN_IF_ERROR(s.Step("look up user", &rc));
  if (rc == SQLITE_ROW) return std::optional<int64_t>(s.Int(0));
  return std::optional<int64_t>();
}

StatusOr<int64_t> SqliteStore::FindOrCreate(const char* select_sql, const char* insert_sql,
                                            std::optional<int64_t> parent,
                                            const std::string& name) {
  int col = 1;
  {
    ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(select_sql));
    Stmt s(db(), raw);
    if (parent) s.Bind(col++, *parent);
    s.Bind(col, name);
    int rc = 0;
    RETURN_IF_ERROR(s.Step("look up " + name, &rc));
    if (rc == SQLITE_ROW) return s.Int(0);
  }
  col = 1;
  ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(insert_sql));
  Stmt s(db(), raw);
  if (parent) s.Bind(col++, *parent);
  s.Bind(col, name);
  RETURN_IF_ERROR(s.Run("create " + name));
  return sqlite3_last_insert_rowid(db());
}

Status SqliteStore::PutVector(int64_t turn_row, const TurnRecord& r, std::string_view what) {
  ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kUpsertVector));
  Stmt s(db(), raw);
  s.Bind(1, turn_row);
  s.Bind(2, r.embedder_id);
  s.Bind(3, static_cast<int64_t>(r.vector.size()));
  s.BindBlob(4, r.vector.data(), r.vector.size() * sizeof(float));
  return s.Run(what);
}

Status SqliteStore::AppendLocked(const UserKey& key, const std::vector<TurnRecord>& records,
                                 std::vector<Assigned>* out, int64_t* user_id_out) {
  ASSIGN_OR_RETURN(int64_t tenant_id, FindOrCreate(kSelectTenant, kInsertTenant, std::nullopt, key.tenant));
  ASSIGN_OR_RETURN(int64_t user_id, FindOrCreate(kSelectUserIn, kInsertUser, tenant_id, key.user));
  *user_id_out = user_id;
  int64_t next_seq = 0;
  {
    ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kMaxSeq));
    Stmt s(db(), raw);
    s.Bind(1, user_id);
    int rc = 0;
    RETURN_IF_ERROR(s.Step("read last seq", &rc));
    next_seq = s.Int(0) + 1;
  }

  int64_t added_turns = 0, added_bytes = 0;
  const size_t first_new = out->size();
  for (const TurnRecord& r : records) {
    const Turn& t = r.stored.turn;
    // Finds earlier rows of this same batch too: they are already inserted in this txn.
    // Returns whether `id` is taken; for an explicit id also settles duplicate or conflict.
    auto lookup = [&](const std::string& id, bool assigned) -> StatusOr<bool> {
      ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kSelectTurnById));
      Stmt s(db(), raw);
      s.Bind(1, user_id);
      s.Bind(2, id);
      int rc = 0;
      RETURN_IF_ERROR(s.Step("look up turn " + id, &rc));
      if (rc != SQLITE_ROW) return false;
      if (assigned) return true;
      const int64_t seq = s.Int(0);
      if (s.Text(1) != t.speaker || s.Text(2) != t.text || s.Int(3) != t.time_ms || s.Text(4) != t.session) {
        const bool in_batch = std::any_of(out->begin() + static_cast<long>(first_new), out->end(),
                                          [&](const Assigned& a) { return a.seq == seq && !a.duplicate; });
        return Status::AlreadyExists(fmt::format("turn id {} is {} with different content (speaker, text, time or session)",
                                                 id, in_batch ? "given twice in this batch" : "already stored"));
      }
      out->push_back({seq, id, true});
      return true;
    };
    std::string id = t.id;
    if (id.empty()) {
      for (int attempt = 1;; ++attempt) {
        id = AssignedTurnId(next_seq, attempt);
        ASSIGN_OR_RETURN(bool taken, lookup(id, true));
        if (!taken) break;
      }
    } else {
      ASSIGN_OR_RETURN(bool duplicate, lookup(id, false));
      if (duplicate) continue;
    }
    std::string what = "store turn " + id;
    {
      ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kInsertTurn));
      Stmt s(db(), raw);
      s.Bind(1, user_id);
      s.Bind(2, next_seq);
      s.Bind(3, id);
      s.Bind(4, t.speaker);
      s.Bind(5, t.text);
      s.Bind(6, t.time_ms);
      s.Bind(7, t.session);
      RETURN_IF_ERROR(s.Run(what));
    }
    if (!r.vector.empty()) RETURN_IF_ERROR(PutVector(sqlite3_last_insert_rowid(db()), r, what));
    out->push_back({next_seq, std::move(id), false, sqlite3_last_insert_rowid(db())});
    ++next_seq;
    ++added_turns;
    added_bytes += static_cast<int64_t>(t.text.size());
  }
  if (added_turns == 0) return Status::Ok();
  ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kAddUserTotals));
  Stmt s(db(), raw);
  s.Bind(1, user_id);
  s.Bind(2, added_turns);
  s.Bind(3, added_bytes);
  return s.Run("update user totals");
}

namespace {
std::string JsonList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : v[i]) {
      if (c == '"' || c == '\\') out += '\\';
      if (static_cast<unsigned char>(c) < 0x20) {
        out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        continue;
      }
      out += c;
    }
    out += '"';
  }
  return out + "]";
}
}  // namespace

Status SqliteStore::WriteDelta(int64_t user_id, const std::vector<Assigned>& assigned,
                               const GraphDelta& delta) {
  for (const auto& item : delta.assertions) {
    const Assertion& a = item.assertion;
    int64_t turn_row = 0;
    if (item.record_index != GraphDelta::kNoTurn) {
      if (item.record_index >= assigned.size())
        return Status::InvalidArgument(fmt::format("assertion names record {} of {}", item.record_index, assigned.size()));
      if (assigned[item.record_index].duplicate) continue;  // stored with the original turn
      turn_row = assigned[item.record_index].row;
    }
    ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kInsertAssertion));
    Stmt s(db(), raw);
    s.Bind(1, user_id);
    if (turn_row != 0) s.Bind(2, turn_row);
    else s.BindNull(2);
    s.Bind(3, a.head);
    s.Bind(4, static_cast<int64_t>(a.head_is_speaker));
    s.Bind(5, a.relation);
    s.Bind(6, a.tail);
    s.Bind(7, a.tail_type);
    s.Bind(8, a.domain);
    s.Bind(9, static_cast<int64_t>(a.tail_begin));
    s.Bind(10, static_cast<int64_t>(a.tail_end));
    s.Bind(11, std::string_view(ModalityName(a.modality)));
    s.Bind(12, a.time_ms);
    s.BindDouble(13, a.confidence);
    s.Bind(14, static_cast<int64_t>(a.explicit_fact));
    RETURN_IF_ERROR(s.Run("store assertion"));
  }
  if (delta.replace_edges) {
    ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kDeleteUserEdges));
    Stmt s(db(), raw);
    s.Bind(1, user_id);
    RETURN_IF_ERROR(s.Run("replace the graph's edges"));
  }
  std::vector<std::string> ids;
  for (const Assigned& a : assigned) ids.push_back(a.id);
  for (GraphEdge e : delta.edges) {
    if (!ResolvePendingTurnIds(&e, ids))
      return Status::InvalidArgument(fmt::format("edge {} names a pending turn of no record", e.key));
    ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kUpsertEdge));
    Stmt s(db(), raw);
    s.Bind(1, user_id);
    s.Bind(2, e.key);
    s.Bind(3, e.source);
    s.Bind(4, e.relation);
    s.Bind(5, e.target);
    s.BindDouble(6, e.weight);
    s.Bind(7, e.valid_from);
    s.Bind(8, e.valid_to);
    s.Bind(9, e.recorded_at);
    s.Bind(10, static_cast<int64_t>(e.promoted));
    s.Bind(11, static_cast<int64_t>(e.explicit_fact));
    s.Bind(12, e.domain);
    const std::string turns = JsonList(e.source_turns), keys = JsonList(e.assertion_keys);  // bound static
    s.Bind(13, turns);
    s.Bind(14, keys);
    RETURN_IF_ERROR(s.Run("store edge " + e.key));
  }
  return Status::Ok();
}

Status SqliteStore::AppendTurns(const UserKey& key, std::vector<TurnRecord>* records, GraphDelta* delta,
                                WriteBase* base) {
  // An empty call creates nothing (not even the user), like the in-memory store.
  if (records->empty() && (delta == nullptr || delta->empty())) return Status::Ok();
  // A write of facts alone (no turns) says so: "append turns" would mislead whoever reads the error.
  const std::string ctx = (records->empty() ? "store facts for " : "append turns for ") + UserName(key);
  std::lock_guard<std::mutex> lock(mu_);
  GraphDelta none;
  if (delta == nullptr) delta = &none;
  std::vector<Assigned> assigned;
  assigned.reserve(records->size());
  {
    Txn txn(db());
    RETURN_IF_ERROR(BeginWrite(txn, base).WithContext(ctx));
    StatusOr<std::optional<int64_t>> existing = FindUser(key);
    if (!existing.ok()) return existing.status().WithContext(ctx);
    RETURN_IF_ERROR(RebaseIfMoved(*existing, base, delta).WithContext(ctx));
    int64_t user_id = 0;
    RETURN_IF_ERROR(AppendLocked(key, *records, &assigned, &user_id).WithContext(ctx));
    RETURN_IF_ERROR(WriteDelta(user_id, assigned, *delta).WithContext(ctx));
    StatusOr<uint64_t> version = BumpVersion(user_id);
    if (!version.ok()) return version.status().WithContext(ctx);
    StatusOr<UserCursor> cursor = ReadCursor(user_id);
    if (!cursor.ok()) return cursor.status().WithContext(ctx);
    if (base != nullptr && base->committing) base->committing(*version);
    RETURN_IF_ERROR(txn.Commit().WithContext(ctx));
    if (base != nullptr) {
      base->committed = *version;
      base->cursor = *cursor;
    }
  }
  // Only a committed batch changes the caller's records.
  for (size_t i = 0; i < records->size(); ++i) {
    TurnRecord& r = (*records)[i];
    r.stored.seq = assigned[i].seq;
    r.stored.turn.id = std::move(assigned[i].id);
    r.duplicate = assigned[i].duplicate;
  }
  return Status::Ok();
}

Status SqliteStore::ReadUserTxn(const UserKey& key, const std::string& ctx,
                                const std::function<Status(int64_t)>& read) {
  std::lock_guard<std::mutex> lock(mu_);
  Txn txn(db());  // one snapshot for the user lookup and the rows
  RETURN_IF_ERROR(txn.Begin(/*immediate=*/false).WithContext(ctx));
  StatusOr<std::optional<int64_t>> user = FindUser(key);
  if (!user.ok()) return user.status().WithContext(ctx);
  if (!user->has_value()) return Status::NotFound(ctx + ": unknown user");
  RETURN_IF_ERROR(read(**user).WithContext(ctx));
  return txn.Commit().WithContext(ctx);
}

Status SqliteStore::ForEachRow(int64_t user_id, const char* sql, const std::function<Status(Stmt&)>& row,
                               int64_t after) {
  ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(sql));
  Stmt s(db(), raw);
  s.Bind(1, user_id);
  if (sqlite3_bind_parameter_count(raw) >= 2) s.Bind(2, after);
  for (;;) {
    int rc = 0;
    RETURN_IF_ERROR(s.Step("read rows", &rc));
    if (rc == SQLITE_DONE) return Status::Ok();
    RETURN_IF_ERROR(row(s));
  }
}

Status SqliteStore::ReadTurns(int64_t user_id, int64_t after, std::vector<TurnRecord>* out) {
  return ForEachRow(user_id, kLoadTurns, [&](Stmt& s) {
    TurnRecord r;
    r.stored.seq = s.Int(0);
    r.stored.turn.id = s.Text(1);
    r.stored.turn.speaker = s.Text(2);
    r.stored.turn.text = s.Text(3);
    r.stored.turn.time_ms = s.Int(4);
    r.stored.turn.session = s.Text(5);
    if (!s.IsNull(6)) {
      r.embedder_id = s.Text(6);
      int64_t dim = s.Int(7);
      std::string_view blob = s.Blob(8);
      if (dim < 0 || blob.size() != static_cast<size_t>(dim) * sizeof(float)) {
        return Status::Corruption(
            fmt::format("vector of turn {} has {} bytes for dim {}", r.stored.seq, blob.size(), dim));
      }
      r.vector.resize(dim);
      if (dim > 0) std::memcpy(r.vector.data(), blob.data(), blob.size());
    }
    out->push_back(std::move(r));
    return Status::Ok();
  }, after);
}

Status SqliteStore::ReadAssertions(int64_t user_id, int64_t after, std::vector<Assertion>* out) {
  return ForEachRow(user_id, kLoadAssertions, [&](Stmt& s) {
    Assertion a;
    a.id = s.Int(0);
    a.source_seq = s.IsNull(1) ? 0 : s.Int(1);
    a.source_turn = s.IsNull(2) ? std::string() : s.Text(2);
    a.head = s.Text(3);
    a.head_is_speaker = s.Int(4) != 0;
    a.relation = s.Text(5);
    a.tail = s.Text(6);
    a.tail_type = s.Text(7);
    a.domain = s.Text(8);
    a.tail_begin = static_cast<int32_t>(s.Int(9));
    a.tail_end = static_cast<int32_t>(s.Int(10));
    if (!ParseModality(s.Text(11), &a.modality))
      return Status::Corruption(fmt::format("assertion {} has modality \"{}\"", a.id, s.Text(11)));
    a.time_ms = s.Int(12);
    a.confidence = static_cast<float>(s.Double(13));
    a.explicit_fact = s.Int(14) != 0;
    out->push_back(std::move(a));
    return Status::Ok();
  }, after);
}

Status SqliteStore::ReadFeedback(int64_t user_id, int64_t after, std::vector<Feedback>* out) {
  return ForEachRow(user_id, kLoadFeedback, [&](Stmt& s) {
    Feedback f;
    f.query_id = s.Text(0);
    f.query = s.Text(1);
    try {
      f.used = nlohmann::json::parse(s.Text(2)).get<std::vector<std::string>>();
      f.wrong = nlohmann::json::parse(s.Text(3)).get<std::vector<std::string>>();
      f.missed = nlohmann::json::parse(s.Text(4)).get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& ex) {
      return Status::Corruption(fmt::format("feedback on query {}: {}", f.query_id, ex.what()));
    }
    f.time_ms = s.Int(5);
    out->push_back(std::move(f));
    return Status::Ok();
  }, after);
}

StatusOr<std::vector<TurnRecord>> SqliteStore::LoadTurns(const UserKey& key) {
  std::vector<TurnRecord> out;
  RETURN_IF_ERROR(ReadUserTxn(key, "load turns for " + UserName(key), [&](int64_t id) { return ReadTurns(id, 0, &out); }));
  return out;
}

StatusOr<std::vector<Assertion>> SqliteStore::LoadAssertions(const UserKey& key) {
  std::vector<Assertion> out;
  RETURN_IF_ERROR(ReadUserTxn(key, "load assertions for " + UserName(key),
                              [&](int64_t id) { return ReadAssertions(id, 0, &out); }));
  return out;
}

StatusOr<UserCursor> SqliteStore::ReadCursor(int64_t user_id, uint64_t* version) {
  ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kCursorOf));
  Stmt s(db(), raw);
  s.Bind(1, user_id);
  int rc = 0;
  RETURN_IF_ERROR(s.Step("read cursor", &rc));
  if (rc != SQLITE_ROW) return Status::NotFound("unknown user");
  if (version != nullptr) *version = static_cast<uint64_t>(s.Int(0));
  return UserCursor{static_cast<uint64_t>(s.Int(1)), s.Int(2), s.Int(3), s.Int(4)};
}

Status SqliteStore::ReadRows(int64_t user_id, const UserCursor* since, UserSnapshot* out) {
  out->since = since != nullptr && since->created == out->cursor.created;
  const UserCursor from = out->since ? *since : UserCursor();
  RETURN_IF_ERROR(ReadTurns(user_id, from.turns, &out->turns));
  RETURN_IF_ERROR(ReadAssertions(user_id, from.assertions, &out->assertions));
  return ReadFeedback(user_id, from.feedback, &out->feedback);
}

StatusOr<UserSnapshot> SqliteStore::LoadUser(const UserKey& key, const UserCursor* since) {
  UserSnapshot out;
  RETURN_IF_ERROR(ReadUserTxn(key, "load user " + UserName(key), [&](int64_t id) -> Status {
    ASSIGN_OR_RETURN(out.cursor, ReadCursor(id, &out.version));
    return ReadRows(id, since, &out);
  }));
  return out;
}

StatusOr<uint64_t> SqliteStore::UserVersion(const UserKey& key) {
  const std::string ctx = "read version of " + UserName(key);
  std::lock_guard<std::mutex> lock(version_mu_);
  if (!version_stmt_) {
    const char* file = sqlite3_db_filename(db(), "main");  // absolute: a relative path_ may be a URI
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(file, &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    DbPtr conn(raw);
    if (rc != SQLITE_OK) return FromSqlite(raw, rc, ctx);
    sqlite3_extended_result_codes(raw, 1);
    rc = sqlite3_busy_timeout(raw, kBusyTimeoutMs);
    if (rc != SQLITE_OK) return FromSqlite(raw, rc, ctx);
    sqlite3_stmt* stmt = nullptr;
    rc = sqlite3_prepare_v3(raw, kSelectUserVersion, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    StmtPtr owned(stmt);
    if (rc != SQLITE_OK) return FromSqlite(raw, rc, ctx);
    version_db_ = std::move(conn);
    version_stmt_ = std::move(owned);
  }
  Stmt s(version_db_.get(), version_stmt_.get());
  s.Bind(1, key.tenant);
  s.Bind(2, key.user);
  int rc = 0;
  RETURN_IF_ERROR(s.Step("read version", &rc).WithContext(ctx));
  if (rc != SQLITE_ROW) return Status::NotFound(ctx + ": unknown user");
  return static_cast<uint64_t>(s.Int(0));
}

Status SqliteStore::BeginWrite(Txn& txn, const WriteBase* base) {
  if (base == nullptr || !base->asked_at) return txn.Begin(/*immediate=*/true);
  using namespace std::chrono;
  const auto left = duration_cast<milliseconds>(*base->asked_at + milliseconds(kBusyTimeoutMs) - steady_clock::now());
  // 0 clears the busy handler: a free lock is still taken, a held one fails at once.
  sqlite3_busy_timeout(db(), static_cast<int>(std::max<int64_t>(0, left.count())));
  Status st = txn.Begin(/*immediate=*/true);
  sqlite3_busy_timeout(db(), kBusyTimeoutMs);
  if (st.code() == StatusCode::kUnavailable)
    return st.WithContext(fmt::format("another connection held the write lock for the {} s this write may wait",
                                      kBusyTimeoutMs / 1000));
  return st;
}

Status SqliteStore::RebaseIfMoved(std::optional<int64_t> user_id, WriteBase* base, GraphDelta* delta) {
  if (base == nullptr || !base->rebase) return Status::Ok();
  UserSnapshot stored;
  if (user_id) {
    ASSIGN_OR_RETURN(stored.cursor, ReadCursor(*user_id, &stored.version));
  }
  if (stored.version == base->version) return Status::Ok();
  if (user_id) RETURN_IF_ERROR(ReadRows(*user_id, base->since, &stored));
  if (delta != nullptr) *delta = GraphDelta();
  return base->rebase(std::move(stored), delta);
}

StatusOr<uint64_t> SqliteStore::BumpVersion(int64_t user_id) {
  uint64_t version = 0;
  {
    ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kNextVersion));
    Stmt s(db(), raw);
    int rc = 0;
    RETURN_IF_ERROR(s.Step("next version", &rc));
    if (rc != SQLITE_ROW) return Status::Corruption("write_counter has no row");
    version = static_cast<uint64_t>(s.Int(0));
    RETURN_IF_ERROR(s.Step("next version", &rc));  // a RETURNING statement finishes on DONE
  }
  ASSIGN_OR_RETURN(sqlite3_stmt * raw, Prepare(kSetVersion));
  Stmt s(db(), raw);
  s.Bind(1, user_id);
  s.Bind(2, static_cast<int64_t>(version));
  RETURN_IF_ERROR(s.Run("set version"));
  return version;
}

StatusOr<std::vector<GraphEdge>> SqliteStore::LoadEdges(const UserKey& key) {
  std::vector<GraphEdge> out;
  auto row = [&](Stmt& s) -> Status {
    GraphEdge e;
    e.key = s.Text(0);
    e.source = s.Text(1);
    e.relation = s.Text(2);
    e.target = s.Text(3);
    e.weight = static_cast<float>(s.Double(4));
    e.valid_from = s.Int(5);
    e.valid_to = s.Int(6);
    e.recorded_at = s.Int(7);
    e.promoted = s.Int(8) != 0;
    e.explicit_fact = s.Int(9) != 0;
    e.domain = s.Text(10);
    try {
      e.source_turns = nlohmann::json::parse(s.Text(11)).get<std::vector<std::string>>();
      e.assertion_keys = nlohmann::json::parse(s.Text(12)).get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& ex) {
      return Status::Corruption(fmt::format("edge {} provenance: {}", e.key, ex.what()));
    }
    out.push_back(std::move(e));
    return Status::Ok();
  };
  RETURN_IF_ERROR(ReadUserTxn(key, "load edges for " + UserName(key),
                              [&](int64_t id) { return ForEachRow(id, kLoadEdges, row); }));
  return out;
}

StatusOr<bool> SqliteStore::HasUser(const UserKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  StatusOr<std::optional<int64_t>> user = FindUser(key);
  if (!user.ok()) return user.status().WithContext("look up user " + UserName(key));
  return user->has_value();
}

Status SqliteStore::DeleteUser(const UserKey& key) {
  const std::string ctx = "delete user " + UserName(key);
  std::lock_guard<std::mutex> lock(mu_);
  Txn txn(db());
  RETURN_IF_ERROR(txn.Begin(/*immediate=*/true).WithContext(ctx));
  StatusOr<std::optional<int64_t>> user = FindUser(key);
  if (!user.ok()) return user.status().WithContext(ctx);
  if (!user->has_value()) return Status::NotFound(ctx + ": unknown user");
  for (const char* sql : {kDeleteUserFeedback, kDeleteUserEdges, kDeleteUserAssertions,
                          kDeleteUserVectors, kDeleteUserTurns, kDeleteUserRow}) {
    StatusOr<sqlite3_stmt*> raw = Prepare(sql);
    if (!raw.ok()) return raw.status().WithContext(ctx);
    Stmt s(db(), *raw);
    s.Bind(1, **user);
    RETURN_IF_ERROR(s.Run("delete rows").WithContext(ctx));
  }
  return txn.Commit().WithContext(ctx);
}

StatusOr<std::vector<std::string>> SqliteStore::ListUsers(const std::string& tenant) {
  const std::string ctx = "list users of " + tenant;
  std::lock_guard<std::mutex> lock(mu_);
  StatusOr<sqlite3_stmt*> raw = Prepare(kListUsers);
  if (!raw.ok()) return raw.status().WithContext(ctx);
  Stmt s(db(), *raw);
  s.Bind(1, tenant);
  std::vector<std::string> out;
  for (;;) {
    int rc = 0;
    Status st = s.Step("read users", &rc);
    if (!st.ok()) return st.WithContext(ctx);
    if (rc == SQLITE_DONE) break;
    out.push_back(s.Text(0));
  }
  return out;
}

Status SqliteStore::UpdateVectors(const UserKey& key, const std::vector<TurnRecord>& records) {
  const std::string ctx = "update vectors for " + UserName(key);
  std::lock_guard<std::mutex> lock(mu_);
  Txn txn(db());
  RETURN_IF_ERROR(txn.Begin(/*immediate=*/true).WithContext(ctx));
  StatusOr<std::optional<int64_t>> user = FindUser(key);
  if (!user.ok()) return user.status().WithContext(ctx);
  if (!user->has_value()) return Status::NotFound(ctx + ": unknown user");
  for (const TurnRecord& r : records) {
    const int64_t seq = r.stored.seq;
    int64_t turn_row = 0;
    {
      StatusOr<sqlite3_stmt*> raw = Prepare(kSelectTurnBySeq);
      if (!raw.ok()) return raw.status().WithContext(ctx);
      Stmt s(db(), *raw);
      s.Bind(1, **user);
      s.Bind(2, seq);
      int rc = 0;
      RETURN_IF_ERROR(s.Step("look up turn", &rc).WithContext(ctx));
      if (rc != SQLITE_ROW) return Status::NotFound(fmt::format("{}: no turn with seq {}", ctx, seq));
      turn_row = s.Int(0);
    }
    std::string what = fmt::format("store vector of turn {}", seq);
    if (r.vector.empty()) {
      // No vector: drop the stored one so the turn is re-embedded on load.
      StatusOr<sqlite3_stmt*> raw = Prepare(kDeleteVector);
      if (!raw.ok()) return raw.status().WithContext(ctx);
      Stmt s(db(), *raw);
      s.Bind(1, turn_row);
      RETURN_IF_ERROR(s.Run(what).WithContext(ctx));
    } else {
      RETURN_IF_ERROR(PutVector(turn_row, r, what).WithContext(ctx));
    }
  }
  return txn.Commit().WithContext(ctx);
}

Status SqliteStore::AppendFeedback(const UserKey& key, const Feedback& feedback, WriteBase* base) {
  const std::string ctx = "store feedback for " + UserName(key);
  std::lock_guard<std::mutex> lock(mu_);
  Txn txn(db());
  RETURN_IF_ERROR(BeginWrite(txn, base).WithContext(ctx));
  StatusOr<std::optional<int64_t>> user = FindUser(key);
  if (!user.ok()) return user.status().WithContext(ctx);
  if (!user->has_value()) return Status::NotFound(ctx + ": unknown user");
  RETURN_IF_ERROR(RebaseIfMoved(*user, base, nullptr).WithContext(ctx));
  for (auto [field, ids] : {std::pair<const char*, const std::vector<std::string>*>{"used", &feedback.used},
                            {"wrong", &feedback.wrong}, {"missed", &feedback.missed}}) {
    for (const std::string& id : *ids) {
      StatusOr<sqlite3_stmt*> raw = Prepare(kSelectTurnExists);
      if (!raw.ok()) return raw.status().WithContext(ctx);
      Stmt s(db(), *raw);
      s.Bind(1, **user);
      s.Bind(2, id);
      int rc = 0;
      RETURN_IF_ERROR(s.Step("look up turn " + id, &rc).WithContext(ctx));
      if (rc != SQLITE_ROW)
        return Status::InvalidArgument(
            fmt::format("{}: {} names turn {}, which is not one of the user's turns", ctx, field, id));
    }
  }
  {
    StatusOr<sqlite3_stmt*> raw = Prepare(kInsertFeedback);
    if (!raw.ok()) return raw.status().WithContext(ctx);
    Stmt s(db(), *raw);
    const std::string used = JsonList(feedback.used), wrong = JsonList(feedback.wrong),
                      missed = JsonList(feedback.missed);  // bound static
    s.Bind(1, **user);
    s.Bind(2, feedback.query_id);
    s.Bind(3, feedback.query);
    s.Bind(4, used);
    s.Bind(5, wrong);
    s.Bind(6, missed);
    s.Bind(7, feedback.time_ms);
    s.Bind(8, NowMs());
    RETURN_IF_ERROR(s.Run("insert feedback").WithContext(ctx));
  }
  StatusOr<uint64_t> version = BumpVersion(**user);
  if (!version.ok()) return version.status().WithContext(ctx);
  StatusOr<UserCursor> cursor = ReadCursor(**user);
  if (!cursor.ok()) return cursor.status().WithContext(ctx);
  if (base != nullptr && base->committing) base->committing(*version);
  RETURN_IF_ERROR(txn.Commit().WithContext(ctx));
  if (base != nullptr) {
    base->committed = *version;
    base->cursor = *cursor;
  }
  return Status::Ok();
}

StatusOr<std::vector<Feedback>> SqliteStore::LoadFeedback(const UserKey& key) {
  std::vector<Feedback> out;
  RETURN_IF_ERROR(ReadUserTxn(key, "load feedback for " + UserName(key),
                              [&](int64_t id) { return ReadFeedback(id, 0, &out); }));
  return out;
}

StatusOr<TenantStats> SqliteStore::GetTenantStats(const std::string& tenant) {
  const std::string ctx = "read stats of tenant " + tenant;
  std::lock_guard<std::mutex> lock(mu_);
  StatusOr<sqlite3_stmt*> raw = Prepare(kTenantStats);
  if (!raw.ok()) return raw.status().WithContext(ctx);
  Stmt s(db(), *raw);
  s.Bind(1, tenant);
  int rc = 0;
  RETURN_IF_ERROR(s.Step("tenant stats", &rc).WithContext(ctx));
  if (rc != SQLITE_ROW) return Status::Internal(ctx + ": no result row");
  TenantStats out;
  out.users = s.Int(0);
  out.turns = s.Int(1);
  out.text_bytes = s.Int(2);
  return out;
}

// Reads on their own connection: a write waits for another process's write lock (up to the busy
// timeout) holding the writer's mutex, and in WAL mode a read needs no lock, so it must not wait
// behind that write. A read that starts after a commit of either connection sees it.
class SplitStore final : public ForwardingStore {
 public:
  // Writes (and the version check, on its own connection) go to `writer`. The reader is a member
  // so that it closes first: the writer, closing last, checkpoints and removes the WAL files.
  SplitStore(std::unique_ptr<Store> writer, std::unique_ptr<Store> reader)
      : ForwardingStore(std::move(writer)), r_(std::move(reader)) {}

  using ForwardingStore::LoadUser;
  StatusOr<UserSnapshot> LoadUser(const UserKey& key, const UserCursor* since) override {
    return r_->LoadUser(key, since);
  }
  StatusOr<std::vector<TurnRecord>> LoadTurns(const UserKey& key) override { return r_->LoadTurns(key); }
  StatusOr<std::vector<Assertion>> LoadAssertions(const UserKey& key) override { return r_->LoadAssertions(key); }
  StatusOr<std::vector<GraphEdge>> LoadEdges(const UserKey& key) override { return r_->LoadEdges(key); }
  StatusOr<bool> HasUser(const UserKey& key) override { return r_->HasUser(key); }
  StatusOr<std::vector<std::string>> ListUsers(const std::string& tenant) override { return r_->ListUsers(tenant); }
  StatusOr<std::vector<Feedback>> LoadFeedback(const UserKey& key) override { return r_->LoadFeedback(key); }
  StatusOr<TenantStats> GetTenantStats(const std::string& tenant) override { return r_->GetTenantStats(tenant); }

 private:
  std::unique_ptr<Store> r_;
};

}  // namespace

namespace {

// Write permission for the effective uid; false on a read-only mount even for root.
bool CanWrite(const std::string& path) {
  return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0;
}

StatusOr<std::unique_ptr<Store>> Open(const std::string& dir, bool create_if_missing,
                                      Durability durability, bool force_read_only) {
  namespace fs = std::filesystem;
  if (dir.empty()) return Status::InvalidArgument("open store: data directory is empty");
  fs::path dir_path(dir);
  // SQLite reads a name that starts with "file:" as a URI (Debian's build enables URI names).
  if (dir.starts_with("file:")) dir_path = fs::path(".") / dir_path;
  const std::string path = (dir_path / kDatabaseFileName).string();

  std::error_code ec;
  fs::file_status dir_status = fs::status(dir_path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IOError(fmt::format("open store: cannot stat {}: {}", dir, ec.message()));
  }
  if (!fs::exists(dir_status)) {
    if (!create_if_missing || force_read_only) {
      return Status::NotFound(fmt::format("open store: data directory {} does not exist", dir));
    }
    fs::create_directories(dir_path, ec);
    if (ec) return Status::IOError(fmt::format("open store: cannot create {}: {}", dir, ec.message()));
  } else if (!fs::is_directory(dir_status)) {
    return Status::InvalidArgument(fmt::format("open store: {} is not a directory", dir));
  }

  // A directory that holds other files but no ontomem.db is fine: users point us at ./data.
  const bool exists = fs::exists(fs::path(path), ec);
  if (!exists && (!create_if_missing || force_read_only)) {
    return Status::NotFound(fmt::format("open store: {} does not exist", path));
  }
  // Reading needs no write access: open read-only instead of failing on the first PRAGMA that
  // writes, and let writes fail naming the reason.
  std::string read_only_why;
  if (force_read_only) {
    read_only_why = fmt::format("{} was opened read-only", path);
  } else if (!CanWrite(dir_path.string())) {
    if (!exists) {
      return Status::FailedPrecondition(
          fmt::format("open store: cannot create {}: data directory {} is not writable", path, dir));
    }
    read_only_why = fmt::format("data directory {} is not writable", dir);
  } else if (exists && !CanWrite(path)) {
    read_only_why = fmt::format("{} is not writable", path);
  }
  if (read_only_why.empty()) {
    // SQLite gives -shm/-wal the database file's mode, so a read-only open of a 0444 file leaves
    // them read-only, and once the file is writable again every write fails on them.
    for (const char* suffix : {"-shm", "-wal"}) {
      const std::string side = path + suffix;
      if (!fs::exists(fs::path(side), ec) || CanWrite(side)) continue;
      const auto perms = fs::status(fs::path(path), ec).permissions();
      if (!ec) fs::permissions(fs::path(side), perms | fs::perms::owner_write, ec);
      if (!CanWrite(side)) {
        return Status::FailedPrecondition(fmt::format(
            "open store: {} is not writable, though {} is (left by a read-only open?); make it "
            "writable, or remove it while no process has the database open",
            side, path));
      }
    }
  }
  // A hot rollback journal (a crash while the first open switched the file to WAL) means the
  // header may be half-written; SQLite rolls it back on open and validation follows anyway.
  const bool hot_journal = fs::file_size(fs::path(path + "-journal"), ec) > 0 && !ec;
  if (exists && !hot_journal) RETURN_IF_ERROR(CheckFileHeader(path));

  int flags = SQLITE_OPEN_NOMUTEX;  // our own mutex serializes use
  if (!read_only_why.empty()) {
    flags |= SQLITE_OPEN_READONLY;
  } else {
    flags |= SQLITE_OPEN_READWRITE;
    if (!exists) flags |= SQLITE_OPEN_CREATE;
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) return FromSqlite(raw, rc, "open " + path);

  auto store = std::make_unique<SqliteStore>(path, std::move(db));
  RETURN_IF_ERROR(store->Init(durability));
  if (!read_only_why.empty()) return NewReadOnlyStore(std::move(store), std::move(read_only_why));
  // Opened after the writer's Init: the file is in WAL mode and at the latest schema.
  sqlite3* raw_reader = nullptr;
  rc = sqlite3_open_v2(path.c_str(), &raw_reader, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READONLY, nullptr);
  DbPtr reader_db(raw_reader);
  if (rc != SQLITE_OK) return FromSqlite(raw_reader, rc, "open " + path + " for reading");
  auto reader = std::make_unique<SqliteStore>(path, std::move(reader_db));
  RETURN_IF_ERROR(reader->Init(durability));
  return std::unique_ptr<Store>(std::make_unique<SplitStore>(std::move(store), std::move(reader)));
}

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& dir, bool create_if_missing,
                                                 Durability durability) {
  return Open(dir, create_if_missing, durability, /*force_read_only=*/false);
}

StatusOr<std::unique_ptr<Store>> OpenSqliteStoreReadOnly(const std::string& dir) {
  return Open(dir, /*create_if_missing=*/false, Durability::kNormal, /*force_read_only=*/true);
}

}  // namespace ontomem
