// The Memory facade: validates input, writes through the Store, and keeps loaded users in an
// LRU cache under a memory budget.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <set>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "common/rw_mutex.h"
#include "engine/fact_extractor.h"
#include "engine/user_memory.h"
#include "extract/verifier.h"
#include "ontology/ontology.h"
#include "ontomem/memory.h"
#include "retrieve/retriever.h"
#include "store/store.h"

namespace ontomem {

class MemoryImpl : public Memory {
 public:
  MemoryImpl(Options options, std::unique_ptr<Store> store, std::shared_ptr<Embedder> embedder,
             RetrieverConfig retriever = {}, LexicalConfig lexical = {});

  // Step I and II wiring (Open does this from the ontology and models; tests inject fakes).
  // Null extractor: no extraction, the graph holds explicit facts only.
  void set_fact_pipeline(std::shared_ptr<const FactExtractor> extractor, GraphPolicy policy,
                         GraphContext graph_context = {}) {
    extractor_ = std::move(extractor);
    policy_ = std::move(policy);
    graph_context_ = std::move(graph_context);
  }
  // The endpoint verifier inside the extractor (Options::fact_verifier), for its counts.
  void set_fact_verifier(std::shared_ptr<const extract::LlmVerifier> v) { fact_verifier_ = std::move(v); }
  // Checks AddFact's relation, tail type and domain against the ontology; null: any upper-case
  // relation id, any type and domain.
  void set_ontology(std::shared_ptr<const Ontology> ontology) { ontology_ = std::move(ontology); }

  Status Ingest(const UserKey& key, const Turn& turn) override;
  Status IngestBatch(const UserKey& key, const std::vector<Turn>& turns,
                     std::vector<IngestedTurn>* ingested = nullptr) override;
  StatusOr<SearchResult> Search(const UserKey& key, std::string_view query,
                                const SearchOptions& options) override;
  Status AddFact(const UserKey& key, const Fact& fact) override;
  StatusOr<std::string> GraphJson(const UserKey& key) override;
  Status AddFeedback(const UserKey& key, const Feedback& feedback) override;
  StatusOr<std::vector<Feedback>> FeedbackLog(const UserKey& key) override;
  StatusOr<TenantStats> GetTenantStats(const std::string& tenant) override;
  Status Forget(const UserKey& key) override;
  StatusOr<std::vector<StoredTurn>> Turns(const UserKey& key) override;
  StatusOr<std::string> Export(const UserKey& key) override;
  StatusOr<std::vector<std::string>> ListUsers(const std::string& tenant) override;
  size_t MemoryUsage() const override;
  size_t LoadedUsers() const override;
  CacheStats GetCacheStats() const override;
  FactVerifierStats GetFactVerifierStats() const override;

  // Tuning hooks for the benchmark harness (not part of the public API).
  void set_retriever_config(const RetrieverConfig& c) { retriever_ = c; }
  // Runs `fn` on the user's loaded graph under the read lock (benchmark reporting).
  Status ReadGraph(const UserKey& key, const std::function<void(const MemoryGraph&)>& fn);

 private:
  // One user's cache slot. `mu` guards `mem` and `evicted`; a slot is evicted only when its
  // locks are free, so an in-flight write is never lost from the cache. Every writer holds
  // `write_mu` for its whole write (store commit included) and takes `mu` exclusively only to
  // load and to apply, so searches (shared `mu`) do not wait for a commit's fsync (unless another
  // process wrote the user meanwhile: Options::own_write_wait). Since only
  // holders of `write_mu` change a loaded `mem`, they may read it without `mu`.
  // Lock order: write_mu, mu, cache_mu_. `mu` lets a waiting writer in before new readers
  // (WriterFirstMutex), so a user searched without pause still gets its writes applied.
  struct Slot {
    std::mutex write_mu;
    WriterFirstMutex mu;
    std::unique_ptr<UserMemory> mem;  // null until loaded
    uint64_t version = 0;             // Store::UserVersion that `mem` reflects
    UserCursor cursor;                // where `mem` stands in the store
    // The version a write of this process in flight is committing, when it was planned on a
    // current copy (no rebase): a search finding the store there is behind only by that write.
    std::atomic<uint64_t> own_commit{0};
    bool evicted = false;
    size_t bytes = 0;
  };
  using SlotPtr = std::shared_ptr<Slot>;

  SlotPtr Acquire(const std::string& cache_key);
  // With the slot locked exclusively: loads the user from the store if needed. NotFound when
  // the user does not exist and !create.
  Status EnsureLoaded(const UserKey& key, Slot* slot, bool create);
  // A user's memory from what the store holds; turns whose vectors were recomputed go to
  // `stale` (may be null). Does not call the store.
  StatusOr<std::unique_ptr<UserMemory>> BuildUserMemory(UserSnapshot&& stored, std::vector<TurnRecord>* stale);
  // Appends the stored turns, replays the assertions and records the feedback, in order.
  Status ApplyStored(UserSnapshot&& stored, UserMemory* mem, std::vector<TurnRecord>* stale);
  // With the slot locked exclusively and write_mu held: applies what the store holds after
  // slot->cursor to slot->mem. False when it cannot (user gone or re-created, a failed step:
  // slot->mem may then be partly updated and must be reloaded).
  bool CatchUp(const UserKey& key, Slot* slot);
  // With the slot locked exclusively and write_mu held: applies `added` (the rows after
  // slot->cursor, snapshot.since) and moves the slot's version and cursor on. On an error
  // slot->mem may be partly updated and must be reloaded.
  Status ApplyCaughtUp(UserSnapshot&& added, Slot* slot);
  // `bytes`: slot->mem->MemoryBytes(), measured by the caller while it held slot->mu.
  void Account(const std::string& cache_key, Slot* slot, size_t bytes);
  // Empty slots of unknown users are not kept (a failed load leaves `slot->mem` null).
  void DropIfUnloaded(const std::string& cache_key, const SlotPtr& slot);
  // A write to one user, with the user loaded (created when `create`) and write_mu held:
  // `plan` (may be empty) computes the graph delta from the user's memory, `write` writes it
  // and the rest to the store under the given WriteBase; if the store finds that another
  // writer moved the user on, `plan` runs again, inside the store's transaction, on the user
  // rebuilt from the store. On success `apply` runs with `mu` held exclusively and updates
  // memory; it may reset the pointer to have the user reloaded from the store.
  using PlanFn = std::function<Status(const UserMemory&, GraphDelta*)>;
  using WriteFn = std::function<Status(GraphDelta*, WriteBase*)>;
  using ApplyFn = std::function<Status(std::unique_ptr<UserMemory>&)>;
  Status WriteUser(const UserKey& key, bool create, const PlanFn& plan, const WriteFn& write, const ApplyFn& apply);
  // Runs `fn` with the user loaded and `mu` held shared. NotFound for an unknown user.
  Status ReadUser(const UserKey& key, const std::function<Status(const UserMemory&)>& fn);
  void EvictOverBudget(const std::string& keep);

  Options options_;
  std::unique_ptr<Store> store_;
  std::shared_ptr<Embedder> embedder_;
  RetrieverConfig retriever_;
  LexicalConfig lexical_;
  std::shared_ptr<const FactExtractor> extractor_;
  std::shared_ptr<const extract::LlmVerifier> fact_verifier_;
  GraphPolicy policy_;
  GraphContext graph_context_;
  std::shared_ptr<const Ontology> ontology_;

  // Query ids: a random base drawn at construction plus a counter, mixed (bijectively) so ids
  // are unique within the process and unlikely to repeat across runs.
  std::string NextQueryId();
  const uint64_t query_id_base_;
  std::atomic<uint64_t> query_counter_{0};
  std::atomic<uint64_t> cache_hits_{0}, cache_misses_{0}, cache_evictions_{0};
  std::atomic<uint64_t> private_copies_{0};

  mutable std::mutex cache_mu_;
  std::list<std::string> lru_;  // front = most recently used
  struct Entry {
    SlotPtr slot;
    std::list<std::string>::iterator pos;
  };
  std::unordered_map<std::string, Entry> cache_;
  size_t total_bytes_ = 0;  // sum of Slot::bytes of cached slots, under cache_mu_
};

}  // namespace ontomem
