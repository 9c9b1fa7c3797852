// The durable store behind Memory. One implementation per backend (SQLite now, Redis Cluster
// later); a fake in tests. Every method is one transaction.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "extract/assertion.h"
#include "graph/memory_graph.h"
#include "ontomem/options.h"
#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem {

// A turn plus its dense vector as stored.
struct TurnRecord {
  StoredTurn stored;          // seq is assigned by AppendTurns
  std::vector<float> vector;  // may be empty (then it is recomputed on load)
  std::string embedder_id;    // id of the embedder that made `vector`
  bool duplicate = false;     // set by AppendTurns: same id and content already stored
};

// Graph changes written in the same transaction as the turns that caused them.
struct GraphDelta {
  struct Item {
    // Index of the TurnRecord in the same call that the assertion was read from; kNoTurn for an
    // explicit fact added through the API.
    size_t record_index = kNoTurn;
    Assertion assertion;
  };
  static constexpr size_t kNoTurn = static_cast<size_t>(-1);
  std::vector<Item> assertions;
  std::vector<GraphEdge> edges;  // full edge states, upserted by GraphEdge::key
  // The edges are the user's whole graph: stored edges not among them are removed (the graph
  // was replayed because an assertion arrived before a later one).
  bool replace_edges = false;
  bool empty() const { return assertions.empty() && edges.empty() && !replace_edges; }
};

// The id an id-less turn gets: "T<seq>" for attempt 1, else "T<seq>.<attempt>". A store tries
// attempts in order until the id is free: a caller's own ids may look like ours.
inline std::string AssignedTurnId(int64_t seq, int attempt) {
  return attempt <= 1 ? fmt::format("T{}", seq) : fmt::format("T{}.{}", seq, attempt);
}

// Whether a resent turn id carries the stored turn's content (a retry) or other content (a
// conflict): speaker, text, time and session.
inline bool SameTurnContent(const Turn& a, const Turn& b) {
  return a.speaker == b.speaker && a.text == b.text && a.time_ms == b.time_ms && a.session == b.session;
}

// The source turn the engine gives an assertion of id-less record `record_index` before the
// store has assigned its id. Ids cannot contain control characters (ValidateTurn), so no valid
// id looks like one.
inline std::string PendingTurnId(size_t record_index) { return fmt::format("\x1f{}", record_index); }

// Replaces pending turn ids in the edge's provenance (source_turns, and the "<turn id>#..."
// prefix of assertion_keys) with assigned_ids[record_index]. False if one names no record.
bool ResolvePendingTurnIds(GraphEdge* e, const std::vector<std::string>& assigned_ids);

// Where a copy of a user stands in the store: the last turn, assertion and feedback it holds,
// and which incarnation of the user (a deleted and re-created user is another one).
struct UserCursor {
  uint64_t created = 0;    // the version of the user's first write
  int64_t turns = 0;       // seq of the last turn
  int64_t assertions = 0;  // Assertion::id of the last assertion
  int64_t feedback = 0;    // store id of the last feedback
};

// A user as stored, read in one snapshot: everything, or what came after a cursor.
struct UserSnapshot {
  std::vector<TurnRecord> turns;       // seq order
  std::vector<Assertion> assertions;   // as LoadAssertions
  std::vector<Feedback> feedback;      // as LoadFeedback
  uint64_t version = 0;                // see Store::UserVersion
  UserCursor cursor;                   // where the stored user stands
  bool since = false;                  // only the rows after the cursor asked for
};

// The state of the user a write was computed from. Processes (and Store instances) share a
// data directory, so the stored user may have moved on since the caller read it: the store then
// calls `rebase` inside its write transaction, before writing anything, with what is stored
// now, and the caller recomputes the write from that (for AppendTurns its delta: edges are
// upserted whole, so a delta from a stale graph would overwrite another writer's provenance).
// `rebase` must not call the store.
struct WriteBase {
  uint64_t version = 0;  // the version the caller's copy reflects; 0: the user was not stored
  // The rebase snapshot is everything stored, or, when `since` (the copy's cursor) is given and
  // the stored user is the same incarnation, only the rows after it (stored.since): a caller
  // that can catch its copy up then need not rebuild it under the store's write lock.
  std::function<Status(UserSnapshot&& stored, GraphDelta* delta)> rebase;  // may be empty
  const UserCursor* since = nullptr;
  // Called, when set, with the version the write is about to commit, just before the commit
  // (which may still fail). Other connections may see that version before the store call
  // returns (SQLite can checkpoint inside COMMIT), so a caller that must tell its own commit
  // from another writer's learns it here.
  std::function<void(uint64_t)> committing;
  // When the caller asked for the write, if it queued before calling (behind its own earlier
  // writes): a store that waits for a lock held elsewhere counts its timeout from here, so a
  // write queued behind a stuck one fails after one timeout, not two.
  std::optional<std::chrono::steady_clock::time_point> asked_at;
  uint64_t committed = 0;  // out: the user's version after the write
  UserCursor cursor;       // out: where the user stands after the write
};

// Stores are thread-safe: every method may be called from any thread.
class Store {
 public:
  virtual ~Store() = default;

  // The user's version: changes with every committed AppendTurns or AppendFeedback and grows
  // across all users of the store, so a copy at version v is current iff the stored version is
  // <= v. NotFound if the user is unknown. Cheap: searches call it before reading a cached user.
  virtual StatusOr<uint64_t> UserVersion(const UserKey& key) = 0;
  // Turns, assertions, feedback, version and cursor in one snapshot. With `since` of the same
  // incarnation of the user, only the rows after it (snapshot.since); else everything. NotFound
  // if the user is unknown.
  virtual StatusOr<UserSnapshot> LoadUser(const UserKey& key, const UserCursor* since) = 0;
  StatusOr<UserSnapshot> LoadUser(const UserKey& key) { return LoadUser(key, nullptr); }

  // Appends the records to the user's log in one transaction, creating tenant and user on
  // first use. Assigns stored.seq (next in the user's order) and stored.turn.id (AssignedTurnId)
  // when empty. A record whose id is already stored with the same speaker, text, time and
  // session is marked duplicate and not stored again; with different content (or two records of
  // the call sharing an id with different content) the whole call fails with AlreadyExists and
  // nothing is stored. OK means committed with the configured durability.
  //
  // `delta` (optional) is written in the same transaction: its assertions are stored against the
  // turns they name (those of duplicate records are skipped) and its edges are upserted, with
  // pending turn ids (PendingTurnId) replaced by the ids assigned here. With an empty `records`
  // and a non-empty delta (explicit facts) the user is created if needed.
  //
  // With `base`, the write is checked against the stored version first (WriteBase) and
  // base->committed is set; `delta` may then be rewritten by base->rebase.
  virtual Status AppendTurns(const UserKey& key, std::vector<TurnRecord>* records, GraphDelta* delta,
                             WriteBase* base) = 0;
  Status AppendTurns(const UserKey& key, std::vector<TurnRecord>* records, const GraphDelta* delta) {
    GraphDelta copy = delta != nullptr ? *delta : GraphDelta();
    return AppendTurns(key, records, &copy, nullptr);
  }
  Status AppendTurns(const UserKey& key, std::vector<TurnRecord>* records) {
    return AppendTurns(key, records, nullptr);
  }

  // The user's assertions in the order they were stored, with source_seq and source_turn set
  // (0 and "" for explicit facts). NotFound if the user is unknown.
  virtual StatusOr<std::vector<Assertion>> LoadAssertions(const UserKey& key) = 0;
  // The user's stored edges (the snapshot written by AppendTurns). NotFound if unknown.
  virtual StatusOr<std::vector<GraphEdge>> LoadEdges(const UserKey& key) = 0;

  // All of the user's turns in seq order. NotFound if the tenant or user is unknown.
  virtual StatusOr<std::vector<TurnRecord>> LoadTurns(const UserKey& key) = 0;

  // Whether the user exists.
  virtual StatusOr<bool> HasUser(const UserKey& key) = 0;

  // Deletes the user and all their rows (turns, vectors, assertions, edges, feedback) in one
  // transaction. NotFound if unknown.
  virtual Status DeleteUser(const UserKey& key) = 0;

  // Appends feedback to the user's log in one transaction, after checking (in it) that every
  // turn id in used/wrong/missed is one of the user's turns: InvalidArgument naming the first
  // id that is not, NotFound if the user is unknown. `feedback.time_ms` is stored as given;
  // the store adds recorded_at (its clock). With `base` as in AppendTurns (its delta is null).
  virtual Status AppendFeedback(const UserKey& key, const Feedback& feedback, WriteBase* base) = 0;
  Status AppendFeedback(const UserKey& key, const Feedback& feedback) {
    return AppendFeedback(key, feedback, nullptr);
  }
  // The user's feedback in order of arrival. NotFound if unknown.
  virtual StatusOr<std::vector<Feedback>> LoadFeedback(const UserKey& key) = 0;

  // Users, turns and turn text bytes of a tenant; zeros if unknown.
  virtual StatusOr<TenantStats> GetTenantStats(const std::string& tenant) = 0;

  // Users of the tenant, sorted by name; empty when the tenant is unknown.
  virtual StatusOr<std::vector<std::string>> ListUsers(const std::string& tenant) = 0;

  // Replaces stored vectors (after an embedder change). `records` name turns by seq.
  virtual Status UpdateVectors(const UserKey& key, const std::vector<TurnRecord>& records) = 0;
};

// Opens <dir>/ontomem.db (WAL, synchronous per durability, busy timeout for concurrent
// writers, migrations applied; reads on a connection of their own). Corruption if the file is
// not an ontomem database; FailedPrecondition if it was written by a newer schema; NotFound if
// absent and !create_if_missing. A directory or file this process cannot write is opened
// read-only (writes fail with FailedPrecondition naming why); it must then be at the latest
// schema.
StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& dir, bool create_if_missing,
                                                 Durability durability);

// A process-local store for unit tests; same contract, nothing durable.
std::unique_ptr<Store> NewInMemoryStore();

// Name of the database file inside a data directory.
inline constexpr const char* kDatabaseFileName = "ontomem.db";

}  // namespace ontomem
