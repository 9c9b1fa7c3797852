#include "store/read_only_store.h"

#include <utility>

#include <fmt/format.h>

#include "store/forwarding_store.h"

namespace ontomem {
namespace {

class ReadOnlyStore final : public ForwardingStore {
 public:
  ReadOnlyStore(std::unique_ptr<Store> base, std::string why)
      : ForwardingStore(std::move(base)), why_(std::move(why)) {}

  using ForwardingStore::AppendFeedback;
  using ForwardingStore::AppendTurns;
  Status AppendTurns(const UserKey&, std::vector<TurnRecord>*, GraphDelta*, WriteBase*) override {
    return Refuse("store turns or facts");
  }
  Status DeleteUser(const UserKey&) override { return Refuse("delete a user"); }
  Status AppendFeedback(const UserKey&, const Feedback&, WriteBase*) override { return Refuse("store feedback"); }
  Status UpdateVectors(const UserKey&, const std::vector<TurnRecord>&) override { return Status::Ok(); }

 private:
  Status Refuse(const char* what) const {
    return Status::FailedPrecondition(fmt::format("cannot {}: the store is read-only ({})", what, why_));
  }

  const std::string why_;
};

}  // namespace

std::unique_ptr<Store> NewReadOnlyStore(std::unique_ptr<Store> base, std::string why) {
  return std::make_unique<ReadOnlyStore>(std::move(base), std::move(why));
}

}  // namespace ontomem
