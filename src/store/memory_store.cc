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
  Status AppendTurns(const UserKey& key, std::vector<TurnRecord>* records,
                     const GraphDelta* delta) override {
    // An empty call creates nothing, like the SQLite store.
    if (records->empty() && (delta == nullptr || delta->empty())) return Status::Ok();
    const std::string ctx = fmt::format("append turns for {}/{}", key.tenant, key.user);
    std::lock_guard<std::mutex> lock(mu_);
    UserData empty;
    UserData* user = Find(key);
    const UserData& existing = user != nullptr ? *user : empty;

    // Stage everything first so a rejected batch leaves no trace.
    std::vector<TurnRecord> staged;
    std::unordered_map<std::string, size_t> staged_ids;
    std::vector<std::pair<int64_t, bool>> result;  // seq, duplicate
    int64_t next_seq = static_cast<int64_t>(existing.turns.size()) + 1;
    for (const TurnRecord& r : *records) {
      const Turn& t = r.stored.turn;
      const bool assigned = t.id.empty();
      std::string id = assigned ? fmt::format("T{}", next_seq) : t.id;
      const TurnRecord* prior = nullptr;
      if (auto it = existing.by_id.find(id); it != existing.by_id.end()) {
        prior = &existing.turns[it->second];
      } else if (auto it2 = staged_ids.find(id); it2 != staged_ids.end()) {
        prior = &staged[it2->second];
      }
      if (prior != nullptr) {
        if (assigned) {
          return Status::AlreadyExists(fmt::format(
              "{}: assigned turn id {} is already used by the turn with seq {}", ctx, id,
              prior->stored.seq));
        }
        const Turn& p = prior->stored.turn;
        if (p.speaker != t.speaker || p.text != t.text || p.time_ms != t.time_ms) {
          return Status::AlreadyExists(
              fmt::format("{}: turn id {} is already stored with different content", ctx, id));
        }
        result.emplace_back(prior->stored.seq, true);
        continue;
      }
      TurnRecord copy = r;
      copy.stored.seq = next_seq;
      copy.stored.turn.id = id;
      copy.duplicate = false;
      if (copy.vector.empty()) copy.embedder_id.clear();  // SQLite stores no row then
      staged_ids.emplace(id, staged.size());
      staged.push_back(std::move(copy));
      result.emplace_back(next_seq, false);
      ++next_seq;
    }

    if (delta != nullptr) {
      for (const auto& item : delta->assertions)
        if (item.record_index != GraphDelta::kNoTurn && item.record_index >= records->size())
          return Status::InvalidArgument(fmt::format("{}: assertion names record {} of {}", ctx,
                                                     item.record_index, records->size()));
    }
    if (user == nullptr) user = &tenants_[key.tenant][key.user];
    for (TurnRecord& r : staged) {
      user->by_id.emplace(r.stored.turn.id, user->turns.size());
      user->turns.push_back(std::move(r));
    }
    if (delta != nullptr) {
      for (const auto& item : delta->assertions) {
        Assertion a = item.assertion;
        if (item.record_index != GraphDelta::kNoTurn) {
          if (result[item.record_index].second) continue;  // duplicate turn: already stored
          a.source_seq = result[item.record_index].first;
          a.source_turn = user->turns[a.source_seq - 1].stored.turn.id;
        } else {
          a.source_seq = 0;
          a.source_turn.clear();
        }
        a.id = static_cast<int64_t>(user->assertions.size()) + 1;
        user->assertions.push_back(std::move(a));
      }
      for (const GraphEdge& e : delta->edges) {
        auto [it, inserted] = user->edge_index.try_emplace(e.key, user->edges.size());
        if (inserted) user->edges.push_back(e);
        else user->edges[it->second] = e;
      }
    }
    for (size_t i = 0; i < records->size(); ++i) {
      TurnRecord& r = (*records)[i];
      r.stored.seq = result[i].first;
      r.duplicate = result[i].second;
      if (r.stored.turn.id.empty()) r.stored.turn.id = fmt::format("T{}", r.stored.seq);
    }
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

  Status AppendFeedback(const UserKey& key, const Feedback& feedback) override {
    const std::string ctx = fmt::format("store feedback for {}/{}", key.tenant, key.user);
    std::lock_guard<std::mutex> lock(mu_);
    UserData* user = Find(key);
    if (user == nullptr) return Status::NotFound(ctx + ": unknown user");
    for (auto [field, ids] : {std::pair<const char*, const std::vector<std::string>*>{"used", &feedback.used},
                              {"wrong", &feedback.wrong}, {"missed", &feedback.missed}}) {
      for (const std::string& id : *ids)
        if (!user->by_id.count(id))
          return Status::InvalidArgument(
              fmt::format("{}: {} names turn {}, which is not one of the user's turns", ctx, field, id));
    }
    user->feedback.push_back(feedback);
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
  };

  UserData* Find(const UserKey& key) {
    auto t = tenants_.find(key.tenant);
    if (t == tenants_.end()) return nullptr;
    auto u = t->second.find(key.user);
    return u == t->second.end() ? nullptr : &u->second;
  }

  std::mutex mu_;
  std::map<std::string, std::map<std::string, UserData>> tenants_;
};

}  // namespace

std::unique_ptr<Store> NewInMemoryStore() { return std::make_unique<MemoryStore>(); }

}  // namespace ontomem
