// In-memory Store for unit tests: the same contract as the SQLite store, nothing durable.
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "store/store.h"

namespace ontomem {
namespace {

class MemoryStore final : public Store {
 public:
  StatusOr<uint64_t> UserVersion(const UserKey& key) override {
    std::lock_guard<std::mutex> lock(mu_);
    const UserData* user = Find(key);
    if (user == nullptr) return Status::NotFound(fmt::format("user {}/{}: unknown user", key.tenant, key.user));
    return user->version;
  }

  using Store::LoadUser;
  StatusOr<UserSnapshot> LoadUser(const UserKey& key, const UserCursor* since) override {
    std::lock_guard<std::mutex> lock(mu_);
    const UserData* user = Find(key);
    if (user == nullptr) return Status::NotFound(fmt::format("load user {}/{}: unknown user", key.tenant, key.user));
    return Snapshot(*user, since);
  }

  Status AppendTurns(const UserKey& key, std::vector<TurnRecord>* records, GraphDelta* delta,
                     WriteBase* base) override {
    // An empty call creates nothing, like the SQLite store.
    if (records->empty() && (delta == nullptr || delta->empty())) return Status::Ok();
    const std::string ctx =
        fmt::format("{} for {}/{}", records->empty() ? "store facts" : "append turns", key.tenant, key.user);
    std::lock_guard<std::mutex> lock(mu_);
    GraphDelta none;
    if (delta == nullptr) delta = &none;
    UserData empty;
    UserData* user = Find(key);
    RETURN_IF_ERROR(Rebase(user, base, delta).WithContext(ctx));
    const UserData& existing = user != nullptr ? *user : empty;

    // Stage everything first so a rejected batch leaves no trace.
    std::vector<TurnRecord> staged;
    std::unordered_map<std::string, size_t> staged_ids;
    struct Assigned {
      int64_t seq;
      bool duplicate;
      std::string id;
    };
    std::vector<Assigned> result;
    int64_t next_seq = static_cast<int64_t>(existing.turns.size()) + 1;
    for (const TurnRecord& r : *records) {
      const Turn& t = r.stored.turn;
      // The stored or staged turn holding `id`, if any, and whether it is staged.
      auto find = [&](const std::string& id) -> std::pair<const TurnRecord*, bool> {
        if (auto it = existing.by_id.find(id); it != existing.by_id.end()) return {&existing.turns[it->second], false};
        if (auto it = staged_ids.find(id); it != staged_ids.end()) return {&staged[it->second], true};
        return {nullptr, false};
      };
      std::string id = t.id;
      for (int attempt = 1; id.empty() || (t.id.empty() && find(id).first != nullptr); ++attempt)
        id = AssignedTurnId(next_seq, attempt);
      const auto [prior, in_batch] = find(id);
      if (prior != nullptr) {
        if (!SameTurnContent(prior->stored.turn, t)) {
          return Status::AlreadyExists(
              fmt::format("{}: turn id {} is {} with different content (speaker, text, time or session)", ctx, id,
                          in_batch ? "given twice in this batch" : "already stored"));
        }
        result.push_back({prior->stored.seq, true, id});
        continue;
      }
      TurnRecord copy = r;
      copy.stored.seq = next_seq;
      copy.stored.turn.id = id;
      copy.duplicate = false;
      if (copy.vector.empty()) copy.embedder_id.clear();  // SQLite stores no row then
      staged_ids.emplace(id, staged.size());
      staged.push_back(std::move(copy));
      result.push_back({next_seq, false, id});
      ++next_seq;
    }

    std::vector<GraphEdge> edges;
    {
      for (const auto& item : delta->assertions)
        if (item.record_index != GraphDelta::kNoTurn && item.record_index >= records->size())
          return Status::InvalidArgument(fmt::format("{}: assertion names record {} of {}", ctx,
                                                     item.record_index, records->size()));
      std::vector<std::string> ids;
      for (const Assigned& a : result) ids.push_back(a.id);
      edges = delta->edges;
      for (GraphEdge& e : edges)
        if (!ResolvePendingTurnIds(&e, ids))
          return Status::InvalidArgument(fmt::format("{}: edge {} names a pending turn of no record", ctx, e.key));
    }
    if (user == nullptr) user = &tenants_[key.tenant][key.user];
    for (TurnRecord& r : staged) {
      user->by_id.emplace(r.stored.turn.id, user->turns.size());
      user->turns.push_back(std::move(r));
    }
    {
      for (const auto& item : delta->assertions) {
        Assertion a = item.assertion;
        if (item.record_index != GraphDelta::kNoTurn) {
          if (result[item.record_index].duplicate) continue;  // duplicate turn: already stored
          a.source_seq = result[item.record_index].seq;
          a.source_turn = user->turns[a.source_seq - 1].stored.turn.id;
        } else {
          a.source_seq = 0;
          a.source_turn.clear();
        }
        a.id = static_cast<int64_t>(user->assertions.size()) + 1;
        user->assertions.push_back(std::move(a));
      }
      if (delta->replace_edges) {
        user->edges.clear();
        user->edge_index.clear();
      }
      for (GraphEdge& e : edges) {
        auto [it, inserted] = user->edge_index.try_emplace(e.key, user->edges.size());
        if (inserted) user->edges.push_back(std::move(e));
        else user->edges[it->second] = std::move(e);
      }
    }
    for (size_t i = 0; i < records->size(); ++i) {
      TurnRecord& r = (*records)[i];
      r.stored.seq = result[i].seq;
      r.duplicate = result[i].duplicate;
      r.stored.turn.id = result[i].id;
    }
    Committed(user, base);
    return Status::Ok();
  }

  StatusOr<std::vector<TurnRecord>> LoadTurns(const UserKey& key) override {
    std::lock_guard<std::mutex> lock(mu_);
    const UserData* user = Find(key);
    if (user == nullptr) {
      return Status::NotFound(
          fmt::format("load turns for {}/{}: unknown user", key.tenant, key.user));
    }
    return user->turns;
  }

  StatusOr<std::vector<Assertion>> LoadAssertions(const UserKey& key) override {
    std::lock_guard<std::mutex> lock(mu_);
    const UserData* user = Find(key);
    if (user == nullptr)
      return Status::NotFound(fmt::format("load assertions for {}/{}: unknown user", key.tenant, key.user));
    return user->assertions;
  }

  StatusOr<std::vector<GraphEdge>> LoadEdges(const UserKey& key) override {
    std::lock_guard<std::mutex> lock(mu_);
    const UserData* user = Find(key);
    if (user == nullptr)
      return Status::NotFound(fmt::format("load edges for {}/{}: unknown user", key.tenant, key.user));
    return user->edges;
  }

  StatusOr<bool> HasUser(const UserKey& key) override {
    std::lock_guard<std::mutex> lock(mu_);
    return Find(key) != nullptr;
  }

  Status DeleteUser(const UserKey& key) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto t = tenants_.find(key.tenant);
    if (t == tenants_.end() || t->second.erase(key.user) == 0) {
      return Status::NotFound(fmt::format("delete user {}/{}: unknown user", key.tenant, key.user));
    }
    if (t->second.empty()) tenants_.erase(t);
    return Status::Ok();
  }

  StatusOr<std::vector<std::string>> ListUsers(const std::string& tenant) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    if (auto t = tenants_.find(tenant); t != tenants_.end()) {
      for (const auto& [name, data] : t->second) out.push_back(name);  // std::map: sorted
    }
    return out;
  }

  Status UpdateVectors(const UserKey& key, const std::vector<TurnRecord>& records) override {
    const std::string ctx = fmt::format("update vectors for {}/{}", key.tenant, key.user);
    std::lock_guard<std::mutex> lock(mu_);
    UserData* user = Find(key);
    if (user == nullptr) return Status::NotFound(ctx + ": unknown user");
    // Validate all seqs first: the call is all or nothing.
    for (const TurnRecord& r : records) {
      if (r.stored.seq < 1 || r.stored.seq > static_cast<int64_t>(user->turns.size())) {
        return Status::NotFound(fmt::format("{}: no turn with seq {}", ctx, r.stored.seq));
      }
    }
    for (const TurnRecord& r : records) {
      TurnRecord& dst = user->turns[r.stored.seq - 1];  // seqs are 1..n without gaps
      dst.vector = r.vector;
      dst.embedder_id = r.vector.empty() ? std::string() : r.embedder_id;
    }
    return Status::Ok();
  }

  Status AppendFeedback(const UserKey& key, const Feedback& feedback, WriteBase* base) override {
    const std::string ctx = fmt::format("store feedback for {}/{}", key.tenant, key.user);
    std::lock_guard<std::mutex> lock(mu_);
    UserData* user = Find(key);
    if (user == nullptr) return Status::NotFound(ctx + ": unknown user");
    RETURN_IF_ERROR(Rebase(user, base, nullptr).WithContext(ctx));
    for (auto [field, ids] : {std::pair<const char*, const std::vector<std::string>*>{"used", &feedback.used},
                              {"wrong", &feedback.wrong}, {"missed", &feedback.missed}}) {
      for (const std::string& id : *ids)
        if (!user->by_id.count(id))
          return Status::InvalidArgument(
              fmt::format("{}: {} names turn {}, which is not one of the user's turns", ctx, field, id));
    }
    user->feedback.push_back(feedback);
    Committed(user, base);
    return Status::Ok();
  }

  StatusOr<std::vector<Feedback>> LoadFeedback(const UserKey& key) override {
    std::lock_guard<std::mutex> lock(mu_);
    const UserData* user = Find(key);
    if (user == nullptr)
      return Status::NotFound(fmt::format("load feedback for {}/{}: unknown user", key.tenant, key.user));
    return user->feedback;
  }

  StatusOr<TenantStats> GetTenantStats(const std::string& tenant) override {
    std::lock_guard<std::mutex> lock(mu_);
    TenantStats out;
    auto t = tenants_.find(tenant);
    if (t == tenants_.end()) return out;
    for (const auto& [name, data] : t->second) {
      ++out.users;
      out.turns += static_cast<int64_t>(data.turns.size());
      for (const TurnRecord& r : data.turns) out.text_bytes += static_cast<int64_t>(r.stored.turn.text.size());
    }
    return out;
  }

 private:
  struct UserData {
    std::vector<TurnRecord> turns;                   // index = seq - 1
    std::unordered_map<std::string, size_t> by_id;  // turn id -> index
    std::vector<Assertion> assertions;
    std::vector<GraphEdge> edges;
    std::unordered_map<std::string, size_t> edge_index;  // edge key -> index
    std::vector<Feedback> feedback;
    uint64_t version = 0;
    uint64_t created = 0;  // version of the first write
  };

  // Assertion ids are 1..n in order, feedback is numbered the same way.
  static UserCursor CursorOf(const UserData& user) {
    return {user.created, static_cast<int64_t>(user.turns.size()), static_cast<int64_t>(user.assertions.size()),
            static_cast<int64_t>(user.feedback.size())};
  }

  static UserSnapshot Snapshot(const UserData& user, const UserCursor* since = nullptr) {
    UserSnapshot out;
    out.version = user.version;
    out.cursor = CursorOf(user);
    out.since = since != nullptr && since->created == user.created;
    const UserCursor from = out.since ? *since : UserCursor();
    auto tail = [](const auto& v, int64_t after) {
      return std::vector(v.begin() + std::min<int64_t>(after, static_cast<int64_t>(v.size())), v.end());
    };
    out.turns = tail(user.turns, from.turns);
    out.assertions = tail(user.assertions, from.assertions);
    out.feedback = tail(user.feedback, from.feedback);
    return out;
  }

  void Committed(UserData* user, WriteBase* base) {
    if (base != nullptr && base->committing) base->committing(last_version_ + 1);
    user->version = ++last_version_;
    if (user->created == 0) user->created = user->version;
    if (base == nullptr) return;
    base->committed = user->version;
    base->cursor = CursorOf(*user);
  }

  // WriteBase: a caller whose copy is not the stored state recomputes its write from it.
  static Status Rebase(const UserData* user, WriteBase* base, GraphDelta* delta) {
    const uint64_t stored = user != nullptr ? user->version : 0;
    if (base == nullptr || base->version == stored || !base->rebase) return Status::Ok();
    if (delta != nullptr) *delta = GraphDelta();
    return base->rebase(user != nullptr ? Snapshot(*user, base->since) : UserSnapshot(), delta);
  }

  UserData* Find(const UserKey& key) {
    auto t = tenants_.find(key.tenant);
    if (t == tenants_.end()) return nullptr;
    auto u = t->second.find(key.user);
    return u == t->second.end() ? nullptr : &u->second;
  }

  std::mutex mu_;
  std::map<std::string, std::map<std::string, UserData>> tenants_;
  uint64_t last_version_ = 0;  // versions grow across users: a deleted and re-created user moves on
};

}  // namespace

std::unique_ptr<Store> NewInMemoryStore() { return std::make_unique<MemoryStore>(); }

}  // namespace ontomem
