#include "store/read_only_store.h"

#include <utility>

#include <fmt/format.h>

namespace ontomem {
namespace {

class ReadOnlyStore final : public Store {
 public:
  ReadOnlyStore(std::unique_ptr<Store> base, std::string why)
      : base_(std::move(base)), why_(std::move(why)) {}

  using Store::AppendTurns;
  using Store::AppendFeedback;
  Status AppendTurns(const UserKey&, std::vector<TurnRecord>*, GraphDelta*, WriteBase*) override {
    return Refuse("store turns or facts");
  }
  Status DeleteUser(const UserKey&) override { return Refuse("delete a user"); }
  Status AppendFeedback(const UserKey&, const Feedback&, WriteBase*) override { return Refuse("store feedback"); }
  Status UpdateVectors(const UserKey&, const std::vector<TurnRecord>&) override { return Status::Ok(); }

  StatusOr<uint64_t> UserVersion(const UserKey& key) override { return base_->UserVersion(key); }
  using Store::LoadUser;
  StatusOr<UserSnapshot> LoadUser(const UserKey& key, const UserCursor* since) override {
    return base_->LoadUser(key, since);
  }
  StatusOr<std::vector<TurnRecord>> LoadTurns(const UserKey& key) override { return base_->LoadTurns(key); }
  StatusOr<std::vector<Assertion>> LoadAssertions(const UserKey& key) override {
    return base_->LoadAssertions(key);
  }
  StatusOr<std::vector<GraphEdge>> LoadEdges(const UserKey& key) override { return base_->LoadEdges(key); }
  StatusOr<bool> HasUser(const UserKey& key) override { return base_->HasUser(key); }
  StatusOr<std::vector<std::string>> ListUsers(const std::string& tenant) override {
    return base_->ListUsers(tenant);
  }
  StatusOr<std::vector<Feedback>> LoadFeedback(const UserKey& key) override { return base_->LoadFeedback(key); }
  StatusOr<TenantStats> GetTenantStats(const std::string& tenant) override {
    return base_->GetTenantStats(tenant);
  }

 private:
  Status Refuse(const char* what) const {
    return Status::FailedPrecondition(fmt::format("cannot {}: the store is read-only ({})", what, why_));
  }

  std::unique_ptr<Store> base_;
  const std::string why_;
};

}  // namespace

std::unique_ptr<Store> NewReadOnlyStore(std::unique_ptr<Store> base, std::string why) {
  return std::make_unique<ReadOnlyStore>(std::move(base), std::move(why));
}

}  // namespace ontomem
