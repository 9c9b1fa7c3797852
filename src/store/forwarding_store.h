// A Store that passes every call to another, so a wrapper (a read-only view, reads on a second
// connection, a test hook) overrides only the calls it changes.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"

namespace ontomem {

class ForwardingStore : public Store {
 public:
  explicit ForwardingStore(std::unique_ptr<Store> base) : base_(std::move(base)) {}

  using Store::AppendFeedback;
  using Store::AppendTurns;
  using Store::LoadUser;
  StatusOr<uint64_t> UserVersion(const UserKey& key) override { return base_->UserVersion(key); }
  StatusOr<UserSnapshot> LoadUser(const UserKey& key, const UserCursor* since) override {
    return base_->LoadUser(key, since);
  }
  Status AppendTurns(const UserKey& key, std::vector<TurnRecord>* records, GraphDelta* delta,
                     WriteBase* base) override {
    return base_->AppendTurns(key, records, delta, base);
  }
  StatusOr<std::vector<Assertion>> LoadAssertions(const UserKey& key) override {
    return base_->LoadAssertions(key);
  }
  StatusOr<std::vector<GraphEdge>> LoadEdges(const UserKey& key) override { return base_->LoadEdges(key); }
  StatusOr<std::vector<TurnRecord>> LoadTurns(const UserKey& key) override { return base_->LoadTurns(key); }
  StatusOr<bool> HasUser(const UserKey& key) override { return base_->HasUser(key); }
  Status DeleteUser(const UserKey& key) override { return base_->DeleteUser(key); }
  Status AppendFeedback(const UserKey& key, const Feedback& feedback, WriteBase* base) override {
    return base_->AppendFeedback(key, feedback, base);
  }
  StatusOr<std::vector<Feedback>> LoadFeedback(const UserKey& key) override { return base_->LoadFeedback(key); }
  StatusOr<TenantStats> GetTenantStats(const std::string& tenant) override {
    return base_->GetTenantStats(tenant);
  }
  StatusOr<std::vector<std::string>> ListUsers(const std::string& tenant) override {
    return base_->ListUsers(tenant);
  }
  Status UpdateVectors(const UserKey& key, const std::vector<TurnRecord>& records) override {
    return base_->UpdateVectors(key, records);
  }

 protected:
  Store& base() { return *base_; }

 private:
  std::unique_ptr<Store> base_;
};

}  // namespace ontomem
