// ontomem::Memory: the long-term memory of many users, embedded in one process.
//
//   ASSIGN_OR_RETURN(auto mem, ontomem::Memory::Open(options));
//   RETURN_IF_ERROR(mem->Ingest({"acme", "ana"}, {.id = "D1:1", .speaker = "Ana", .text = "..."}));
//   ASSIGN_OR_RETURN(auto result, mem->Search({"acme", "ana"}, "what should I watch?", {}));
//
// All methods are thread-safe. Writes are durable when they return OK (see Options::durability).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ontomem/options.h"
#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem {

class Memory {
 public:
  virtual ~Memory() = default;

  // Opens (or creates) the store in options.data_dir and loads the embedder.
  // Errors: InvalidArgument (no data_dir), NotFound (missing and !create_if_missing),
  // Corruption (a file that is not an ontomem database), FailedPrecondition (a database from a
  // newer ontomem, a missing or corrupt lexicon), IOError.
  static StatusOr<std::unique_ptr<Memory>> Open(const Options& options);

  // Stores one turn; the tenant and user are created on first use. OK means durable.
  virtual Status Ingest(const UserKey& key, const Turn& turn) = 0;
  // Stores a batch atomically in one transaction: either every turn is stored or none is (a
  // bad turn rejects the whole batch with its index in the message). A turn whose id is already
  // stored with the same content is a duplicate (a safe retry) and is not stored again; the same
  // id with other content fails the batch with AlreadyExists. `ingested` (optional) receives one
  // entry per turn of the batch. Searches of the user are not blocked while the batch commits.
  virtual Status IngestBatch(const UserKey& key, const std::vector<Turn>& turns,
                             std::vector<IngestedTurn>* ingested = nullptr) = 0;

  // Ranks the user's turns for `query`. NotFound for an unknown tenant or user.
  virtual StatusOr<SearchResult> Search(const UserKey& key, std::string_view query,
                                        const SearchOptions& options) = 0;

  // Adds an explicit fact to the user's memory graph (created on first use); durable on OK.
  // InvalidArgument for an empty relation or tail or a relation the ontology does not know.
  virtual Status AddFact(const UserKey& key, const Fact& fact) = 0;

  // The user's memory graph as JSON: {"nodes":[{"id","label","type"}],"edges":[{"source",
  // "relation","target","weight","valid_from","valid_to","promoted","source_turns",...}]}
  // (docs/formats.md). NotFound if unknown.
  virtual StatusOr<std::string> GraphJson(const UserKey& key) = 0;

  // Stores feedback on a search durably. NotFound if the user is unknown; InvalidArgument if
  // a turn id is not one of the user's turns or no turn id is given.
  virtual Status AddFeedback(const UserKey& key, const Feedback& feedback) = 0;
  // The user's feedback in order of arrival. NotFound if unknown.
  virtual StatusOr<std::vector<Feedback>> FeedbackLog(const UserKey& key) = 0;

  // Removes the user and everything stored for them in one transaction. NotFound if unknown.
  virtual Status Forget(const UserKey& key) = 0;

  // All of a user's turns in order of arrival. NotFound if unknown.
  virtual StatusOr<std::vector<StoredTurn>> Turns(const UserKey& key) = 0;
  // The whole user as a JSON document (format in docs/formats.md). NotFound if unknown.
  virtual StatusOr<std::string> Export(const UserKey& key) = 0;

  // Users of a tenant, sorted; empty if the tenant is unknown.
  virtual StatusOr<std::vector<std::string>> ListUsers(const std::string& tenant) = 0;
  // Stored size of a tenant (zeros if unknown).
  virtual StatusOr<TenantStats> GetTenantStats(const std::string& tenant) = 0;

  // Approximate bytes held in memory by loaded users, and how many are loaded.
  virtual size_t MemoryUsage() const = 0;
  virtual size_t LoadedUsers() const = 0;
  virtual CacheStats GetCacheStats() const = 0;
  // Zeros without Options::fact_verifier.
  virtual FactVerifierStats GetFactVerifierStats() const = 0;
};

}  // namespace ontomem
