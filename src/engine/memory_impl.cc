#include "engine/memory_impl.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "common/random.h"
#include "engine/pipeline.h"
#include "engine/validate.h"
#include "retrieve/scorer_weights.h"
#include "text/text.h"

namespace ontomem {
namespace {

// Tenant and user names may contain any character but control characters, so a NUL-free
// separator that ValidateName rejects keeps cache keys unambiguous.
std::string CacheKey(const UserKey& key) { return key.tenant + '\x1f' + key.user; }

std::string Describe(const UserKey& key) { return fmt::format("{}/{}", key.tenant, key.user); }

// A failed load of an unknown user reads as NotFound naming the user; other errors pass.
Status UnknownUserMessage(const Status& st, const UserKey& key) {
  if (st.code() == StatusCode::kNotFound)
    return Status::NotFound(fmt::format("no user {} (nothing ingested for it)", Describe(key)));
  return st;
}

uint64_t RandomQueryIdBase() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

// The context budget: keeps the longest prefix of hits whose whitespace tokens fit, and always
// the top hit (a prompt with no evidence is worse than one slightly over budget).
void ApplyContextBudget(int64_t max_tokens, SearchResult* result) {
  int64_t total = 0;
  size_t keep = 0;
  for (; keep < result->hits.size(); ++keep) {
    const auto n = static_cast<int64_t>(text::CountWhitespaceTokens(result->hits[keep].turn.turn.text));
    if (max_tokens > 0 && keep > 0 && total + n > max_tokens) break;
    total += n;
  }
  result->hits.resize(keep);
  result->context_tokens = total;
}

const std::string kNoText;

std::vector<SourcedAssertion> WithSources(const std::vector<Assertion>& assertions,
                                          const std::function<const Turn*(int64_t seq)>& turn_of) {
  std::vector<SourcedAssertion> out;
  out.reserve(assertions.size());
  for (const Assertion& a : assertions) {
    const Turn* t = a.source_seq > 0 ? turn_of(a.source_seq) : nullptr;
    out.push_back({&a, t ? &t->session : &kNoText, t ? &t->text : &kNoText});
  }
  return out;
}

// The turn of a seq in `mem`, for WithSources.
std::function<const Turn*(int64_t)> TurnOfSeq(const UserMemory& mem) {
  return [&mem](int64_t seq) -> const Turn* {
    const int64_t ord = mem.OrdinalOfSeq(seq);
    return ord >= 0 ? &mem.turn(static_cast<size_t>(ord)).turn : nullptr;
  };
}

// Applies `batch` (assertions in arrival order, after mem's) to *graph, which holds mem's graph,
// in time order. When part of the batch goes before what mem holds, the graph is replayed whole
// from mem's assertions and the batch, and true returned: the caller replaces the stored edges.
// *order: mem's time order with the batch placed; *dirty: keys of the edges created or changed.
bool ApplyBatch(const UserMemory& mem, const std::vector<SourcedAssertion>& batch, const GraphPolicy& policy,
                 MemoryGraph* graph, TimeOrder* order, std::set<std::string>* dirty) {
  *order = mem.time_order();
  if (ApplyInTimeOrder(batch, policy, order, graph, dirty)) return false;
  std::vector<SourcedAssertion> all = WithSources(mem.assertions(), TurnOfSeq(mem));
  all.insert(all.end(), batch.begin(), batch.end());
  *order = TimeOrder();
  *graph = MemoryGraph();
  dirty->clear();
  ApplyInTimeOrder(all, policy, order, graph, dirty);
  for (const GraphEdge& e : graph->edges()) dirty->insert(e.key);
  return true;
}

constexpr size_t kMaxFeedbackIds = 1000;
constexpr size_t kMaxFeedbackQueryBytes = 64 << 10;

Status ValidateFeedback(const Feedback& f) {
  if (f.query_id.empty()) return Status::InvalidArgument("feedback query_id is empty");
  RETURN_IF_ERROR(ValidateName("feedback query_id", f.query_id, false));
  if (f.query.size() > kMaxFeedbackQueryBytes)
    return Status::InvalidArgument("feedback query is longer than 64 KiB");
  if (size_t off = 0; !text::IsValidUtf8(f.query, &off))
    return Status::InvalidArgument(fmt::format("feedback query is not valid UTF-8 (bad byte at offset {})", off));
  const size_t n = f.used.size() + f.wrong.size() + f.missed.size();
  if (n == 0) return Status::InvalidArgument("feedback names no turn (used, wrong and missed are empty)");
  if (n > kMaxFeedbackIds)
    return Status::InvalidArgument(fmt::format("feedback names {} turns, the limit is {}", n, kMaxFeedbackIds));
  for (auto [field, ids] : {std::pair<const char*, const std::vector<std::string>*>{"used", &f.used},
                            {"wrong", &f.wrong}, {"missed", &f.missed}}) {
    for (size_t i = 0; i < ids->size(); ++i)
      RETURN_IF_ERROR(ValidateName(fmt::format("feedback {}[{}]", field, i), (*ids)[i], false));
  }
  RETURN_IF_ERROR(ValidateTimeMs("feedback time_ms", f.time_ms));
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Memory>> Memory::Open(const Options& options) {
  if (options.data_dir.empty()) return Status::InvalidArgument("Options::data_dir is empty");
  std::shared_ptr<Embedder> embedder = options.embedder;
  if (!embedder) {
    const std::string path = options.lexicon_path.empty() ? DefaultLexiconPath() : options.lexicon_path;
    ASSIGN_OR_RETURN(embedder, LoadSifEmbedder(path));
  }
  ASSIGN_OR_RETURN(auto store, OpenSqliteStore(options.data_dir, options.create_if_missing,
                                               options.durability));
  RetrieverConfig retriever;
  if (!options.scorer_path.empty()) {
    ASSIGN_OR_RETURN(ScorerWeights w, LoadScorerWeights(options.scorer_path));
    ApplyScorerWeights(w, &retriever);
  }
  auto impl = std::make_unique<MemoryImpl>(options, std::move(store), embedder, retriever);
  if (options.extract_facts) {
    ASSIGN_OR_RETURN(FactPipeline pipeline, OpenFactPipeline(options, embedder));
    impl->set_fact_pipeline(pipeline.extractor, pipeline.policy, pipeline.graph_context);
    impl->set_ontology(pipeline.ontology);
    impl->set_fact_verifier(pipeline.fact_verifier);
  }
  return std::unique_ptr<Memory>(std::move(impl));
}

MemoryImpl::MemoryImpl(Options options, std::unique_ptr<Store> store,
                       std::shared_ptr<Embedder> embedder, RetrieverConfig retriever,
                       LexicalConfig lexical)
    : options_(std::move(options)),
      store_(std::move(store)),
      embedder_(std::move(embedder)),
      retriever_(retriever),
      lexical_(lexical),
      query_id_base_(RandomQueryIdBase()) {}

std::string MemoryImpl::NextQueryId() {
  return fmt::format("{:016x}", SplitMix64(query_id_base_ + query_counter_.fetch_add(1)));
}

MemoryImpl::SlotPtr MemoryImpl::Acquire(const std::string& cache_key) {
  std::lock_guard<std::mutex> lock(cache_mu_);
  auto it = cache_.find(cache_key);
  if (it != cache_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.pos);
    return it->second.slot;
  }
  lru_.push_front(cache_key);
  auto slot = std::make_shared<Slot>();
  cache_.emplace(cache_key, Entry{slot, lru_.begin()});
  return slot;
}

StatusOr<std::unique_ptr<UserMemory>> MemoryImpl::BuildUserMemory(UserSnapshot&& stored,
                                                                   std::vector<TurnRecord>* stale) {
  auto mem = std::make_unique<UserMemory>(embedder_->dim(), lexical_);
  RETURN_IF_ERROR(ApplyStored(std::move(stored), mem.get(), stale));
  return mem;
}

Status MemoryImpl::ApplyStored(UserSnapshot&& stored, UserMemory* mem, std::vector<TurnRecord>* stale) {
  const std::string eid = embedder_->id();
  const size_t dim = static_cast<size_t>(embedder_->dim());
  // Vectors from another embedder (or none) are recomputed; the caller may write them back.
  std::vector<size_t> stale_at;
  std::vector<std::string_view> stale_texts;
  for (size_t i = 0; i < stored.turns.size(); ++i)
    if (const TurnRecord& r = stored.turns[i]; r.embedder_id != eid || r.vector.size() != dim) {
      stale_at.push_back(i);
      stale_texts.push_back(r.stored.turn.text);
    }
  std::vector<float> fresh(stale_at.size() * dim);
  RETURN_IF_ERROR(embedder_->EmbedBatch(stale_texts, fresh.data()));
  for (size_t j = 0; j < stale_at.size(); ++j) {
    TurnRecord& r = stored.turns[stale_at[j]];
    r.vector.assign(fresh.begin() + static_cast<std::ptrdiff_t>(j * dim),
                    fresh.begin() + static_cast<std::ptrdiff_t>((j + 1) * dim));
    r.embedder_id = eid;
    if (stale != nullptr) stale->push_back(r);
  }
  for (const TurnRecord& r : stored.turns) {
    if (r.stored.seq != static_cast<int64_t>(mem->size()) + 1)
      return Status::Internal(fmt::format("turn seq {} does not follow {}", r.stored.seq, mem->size()));
    RETURN_IF_ERROR(mem->Append(r.stored, r.vector.data()));
  }
  // The graph is the stored assertions replayed (the stored edges are what inspection reads).
  const std::vector<SourcedAssertion> batch = WithSources(stored.assertions, TurnOfSeq(*mem));
  TimeOrder order;
  std::set<std::string> dirty;
  ApplyBatch(*mem, batch, policy_, &mem->graph(), &order, &dirty);
  mem->AddAssertions(std::move(stored.assertions), order);
  // The profile cache (s_profile) is rebuilt from the stored feedback, oldest first.
  for (const Feedback& f : stored.feedback) mem->RecordFeedback(f);
  return Status::Ok();
}

Status MemoryImpl::EnsureLoaded(const UserKey& key, Slot* slot, bool create) {
  if (slot->mem) {
    cache_hits_.fetch_add(1, std::memory_order_relaxed);
    return Status::Ok();
  }
  cache_misses_.fetch_add(1, std::memory_order_relaxed);
  auto loaded = store_->LoadUser(key);
  if (!loaded.ok()) {
    if (loaded.status().code() == StatusCode::kNotFound && create) {
      slot->mem = std::make_unique<UserMemory>(embedder_->dim(), lexical_);
      slot->version = 0;
      slot->cursor = UserCursor();
      return Status::Ok();
    }
    return loaded.status();
  }
  const uint64_t version = loaded->version;
  const UserCursor cursor = loaded->cursor;
  std::vector<TurnRecord> stale;
  ASSIGN_OR_RETURN(auto mem, BuildUserMemory(std::move(*loaded), &stale));
  // Written back once, so a change of embedder needs no separate reindex step.
  if (!stale.empty()) RETURN_IF_ERROR(store_->UpdateVectors(key, stale));
  slot->mem = std::move(mem);
  slot->version = version;
  slot->cursor = cursor;
  return Status::Ok();
}

bool MemoryImpl::CatchUp(const UserKey& key, Slot* slot) {
  auto added = store_->LoadUser(key, &slot->cursor);
  return added.ok() && added->since && ApplyCaughtUp(std::move(*added), slot).ok();
}

Status MemoryImpl::ApplyCaughtUp(UserSnapshot&& added, Slot* slot) {
  const uint64_t version = added.version;
  const UserCursor cursor = added.cursor;
  // Vectors recomputed here are not written back: the next full load does that.
  RETURN_IF_ERROR(ApplyStored(std::move(added), slot->mem.get(), nullptr));
  slot->version = version;
  slot->cursor = cursor;
  return Status::Ok();
}

void MemoryImpl::DropIfUnloaded(const std::string& cache_key, const SlotPtr& slot) {
  std::lock_guard<std::mutex> lock(cache_mu_);
  // slot->mem is read under the slot's lock; try_lock because Forget holds it while it takes
  // cache_mu_. A busy slot is left to whoever holds it.
  std::shared_lock<WriterFirstMutex> slot_lock(slot->mu, std::try_to_lock);
  if (!slot_lock.owns_lock()) return;
  auto it = cache_.find(cache_key);
  if (it != cache_.end() && it->second.slot == slot && !slot->mem) {
    lru_.erase(it->second.pos);
    cache_.erase(it);
  }
}

void MemoryImpl::Account(const std::string& cache_key, Slot* slot, size_t now) {
  std::lock_guard<std::mutex> lock(cache_mu_);
  auto it = cache_.find(cache_key);
  if (it != cache_.end() && it->second.slot.get() == slot) {
    total_bytes_ = total_bytes_ - slot->bytes + now;
  }
  slot->bytes = now;
}

void MemoryImpl::EvictOverBudget(const std::string& keep) {
  std::lock_guard<std::mutex> lock(cache_mu_);
  auto it = lru_.end();
  while (total_bytes_ > options_.memory_budget_bytes && it != lru_.begin()) {
    --it;
    if (*it == keep) continue;
    auto entry = cache_.find(*it);
    // Holds the slot (and so its mutex) until slot_lock has unlocked it: erasing the entry may
    // drop the last other reference.
    const SlotPtr victim = entry->second.slot;
    Slot* slot = victim.get();
    std::unique_lock<std::mutex> write_lock(slot->write_mu, std::try_to_lock);
    if (!write_lock.owns_lock()) continue;  // being written: try the next one
    std::unique_lock<WriterFirstMutex> slot_lock(slot->mu, std::try_to_lock);
    if (!slot_lock.owns_lock()) continue;  // in use: try the next one
    slot->evicted = true;
    cache_evictions_.fetch_add(1, std::memory_order_relaxed);
    total_bytes_ -= slot->bytes;
    cache_.erase(entry);
    it = lru_.erase(it);
  }
}

Status MemoryImpl::Ingest(const UserKey& key, const Turn& turn) {
  return IngestBatch(key, std::vector<Turn>{turn});
}

Status MemoryImpl::IngestBatch(const UserKey& key, const std::vector<Turn>& turns,
                               std::vector<IngestedTurn>* ingested) {
  RETURN_IF_ERROR(ValidateKey(key));
  if (turns.empty()) return Status::InvalidArgument("batch has no turns");
  if (turns.size() > options_.max_batch_turns)
    return Status::ResourceExhausted(fmt::format("batch has {} turns, the limit is {}",
                                                 turns.size(), options_.max_batch_turns));
  std::vector<TurnRecord> records(turns.size());
  const std::string eid = embedder_->id();
  const size_t dim = static_cast<size_t>(embedder_->dim());
  std::vector<std::string_view> texts(turns.size());
  for (size_t i = 0; i < turns.size(); ++i) {
    RETURN_IF_ERROR(ValidateTurn(turns[i], options_,
                                 turns[i].id.empty() ? fmt::format("turn {}", i)
                                                     : fmt::format("turn {} (id {})", i, turns[i].id)));
    texts[i] = turns[i].text;
  }
  std::vector<float> vectors(turns.size() * dim);
  RETURN_IF_ERROR(embedder_->EmbedBatch(texts, vectors.data()));
  for (size_t i = 0; i < turns.size(); ++i) {
    records[i].stored.turn = turns[i];
    records[i].vector.assign(vectors.begin() + static_cast<std::ptrdiff_t>(i * dim),
                             vectors.begin() + static_cast<std::ptrdiff_t>((i + 1) * dim));
    records[i].embedder_id = eid;
  }
  // Step I outside any lock: extraction only reads the turn. With a fact verifier endpoint most
  // of its time is spent waiting for answers, so turns are read by several threads at once.
  std::vector<std::vector<Assertion>> facts(turns.size());
  if (extractor_) {
    auto read = [&](size_t i) {
      for (Assertion& a : extractor_->Extract(turns[i], 0))
        if (a.confidence >= options_.fact_threshold) facts[i].push_back(std::move(a));
    };
    const size_t workers =
        fact_verifier_ ? std::min(turns.size(), static_cast<size_t>(options_.fact_verifier.concurrency)) : 1;
    if (workers <= 1) {
      for (size_t i = 0; i < turns.size(); ++i) read(i);
    } else {
      std::atomic<size_t> next{0};
      std::vector<std::thread> pool;
      for (size_t w = 0; w < workers; ++w)
        pool.emplace_back([&] {
          for (size_t i = next++; i < turns.size(); i = next++) read(i);
        });
      for (auto& t : pool) t.join();
    }
  }
  // Step II on a copy of the graph: it replaces the live one only once the store committed.
  MemoryGraph next;
  std::set<std::string> dirty;  // keys of the edges the batch created or changed
  TimeOrder next_order;
  auto plan = [&](const UserMemory& mem, GraphDelta* delta) -> Status {
    next = mem.graph();
    dirty.clear();
    std::set<std::string> seen_ids;
    for (size_t i = 0; i < turns.size(); ++i) {
      const std::string& id = records[i].stored.turn.id;
      if (!id.empty() && (mem.OrdinalOf(id) >= 0 || !seen_ids.insert(id).second)) continue;
      for (Assertion a : facts[i]) {
        // The store assigns an id-less turn its id only while writing; until then its edges
        // name the record, and the store and (below) the engine put the id in.
        if (id.empty()) a.source_turn = PendingTurnId(i);
        delta->assertions.push_back({i, std::move(a)});
      }
    }
    std::vector<SourcedAssertion> batch;
    batch.reserve(delta->assertions.size());
    for (const GraphDelta::Item& item : delta->assertions)
      batch.push_back({&item.assertion, &turns[item.record_index].session, &turns[item.record_index].text});
    delta->replace_edges = ApplyBatch(mem, batch, policy_, &next, &next_order, &dirty);
    for (const std::string& k : dirty)
      if (const GraphEdge* e = next.Find(k)) delta->edges.push_back(*e);
    return Status::Ok();
  };
  std::vector<Assertion> added;  // the batch's assertions as stored (the copy keeps them)
  auto write = [&](GraphDelta* delta, WriteBase* base) -> Status {
    RETURN_IF_ERROR(store_->AppendTurns(key, &records, delta, base));
    std::vector<std::string> ids;
    for (const TurnRecord& r : records) ids.push_back(r.stored.turn.id);
    for (const std::string& k : dirty)
      if (GraphEdge* e = next.MutableFind(k)) (void)ResolvePendingTurnIds(e, ids);  // the store resolved these
    added.clear();
    for (GraphDelta::Item& item : delta->assertions) {
      const TurnRecord& r = records[item.record_index];
      if (r.duplicate) continue;  // the store skipped it too
      item.assertion.source_seq = r.stored.seq;
      item.assertion.source_turn = r.stored.turn.id;
      added.push_back(std::move(item.assertion));
    }
    return Status::Ok();
  };
  auto apply = [&](std::unique_ptr<UserMemory>& mem) -> Status {
    for (const TurnRecord& r : records) {
      if (r.duplicate) continue;
      // Another process wrote to this user, or the append failed: rebuild from the store,
      // which has everything in its order.
      if (r.stored.seq != static_cast<int64_t>(mem->size()) + 1 || !mem->Append(r.stored, r.vector.data()).ok()) {
        mem.reset();
        return Status::Ok();
      }
    }
    mem->AddAssertions(std::move(added), next_order);
    mem->graph() = std::move(next);
    mem->WarmTailVectors(dirty, *embedder_);
    return Status::Ok();
  };
  RETURN_IF_ERROR(WriteUser(key, /*create=*/true, plan, write, apply).WithContext("ingest into " + Describe(key)));
  if (ingested) {
    ingested->clear();
    for (const TurnRecord& r : records) ingested->push_back({r.stored.seq, r.stored.turn.id, r.duplicate});
  }
  return Status::Ok();
}

// How long a write holding the store's write lock waits for the searches reading its copy.
constexpr std::chrono::milliseconds kRebaseWait{20};

Status MemoryImpl::WriteUser(const UserKey& key, bool create, const PlanFn& plan, const WriteFn& write,
                             const ApplyFn& apply) {
  const std::string ck = CacheKey(key);
  const auto asked_at = std::chrono::steady_clock::now();  // the store's lock wait counts from here
  int busy_attempts = 0;  // attempts whose copy searches held too long under the store's lock
  for (;;) {
    SlotPtr slot = Acquire(ck);
    std::unique_lock<std::mutex> write_lock(slot->write_mu);
    {
      std::unique_lock<WriterFirstMutex> lock(slot->mu);
      if (slot->evicted) continue;
      // Load before appending so the in-memory order matches the store's seq order.
      Status st = EnsureLoaded(key, slot.get(), create);
      // What other processes stored since the copy was read is applied here, before the store's
      // write lock is taken (waiting for this user's searches under it would stall every
      // writer of the file); the rebase below is then for a write that lands in between.
      if (st.ok() && options_.shared_data_dir && slot->version != 0) {
        StatusOr<uint64_t> stored = store_->UserVersion(key);
        if (stored.ok() && *stored > slot->version && !CatchUp(key, slot.get())) {
          slot->mem.reset();
          st = EnsureLoaded(key, slot.get(), create);
        }
      }
      if (!st.ok()) {
        lock.unlock();
        write_lock.unlock();
        DropIfUnloaded(ck, slot);
        return UnknownUserMessage(st, key);
      }
    }
    // The commit (and its fsync) runs without `mu`: searches of this user go on.
    GraphDelta delta;
    if (plan) RETURN_IF_ERROR(plan(*slot->mem, &delta));
    // Another process (or Memory) wrote to the user since it was loaded: the store hands over
    // what it holds, inside its write transaction, and the write is planned again from that.
    // Rows after the copy's cursor catch the copy up in place once the searches reading it are
    // done (a whole rebuild of a long history holds the store's write lock for tens of ms). If
    // they take longer than kRebaseWait the attempt fails, storing nothing, and is retried; the
    // third such attempt rebuilds the user. A deleted or re-created user is rebuilt.
    std::unique_ptr<UserMemory> rebuilt;
    bool busy = false;
    WriteBase base;
    base.asked_at = asked_at;
    base.version = slot->version;
    const UserCursor since = slot->cursor;
    if (slot->version != 0 && busy_attempts < 2) base.since = &since;
    base.rebase = [&](UserSnapshot&& stored, GraphDelta* d) -> Status {
      const UserMemory* now = nullptr;
      if (stored.since) {
        if (!slot->mu.try_lock_for(kRebaseWait)) {
          busy = true;
          return Status::Unavailable("the cached copy is in use");
        }
        std::unique_lock<WriterFirstMutex> lock(slot->mu, std::adopt_lock);
        if (Status st = ApplyCaughtUp(std::move(stored), slot.get()); !st.ok()) {
          slot->mem.reset();  // half applied: the next access reloads it
          return st.WithContext("catch up with another writer");
        }
        now = slot->mem.get();
      } else {
        ASSIGN_OR_RETURN(rebuilt, BuildUserMemory(std::move(stored), nullptr));
        now = rebuilt.get();
      }
      if (!plan) return Status::Ok();
      *d = GraphDelta();
      return plan(*now, d);
    };
    base.committing = [&](uint64_t v) {
      if (!rebuilt) slot->own_commit.store(v, std::memory_order_release);
    };
    if (Status st = write(&delta, &base); !st.ok()) {
      slot->own_commit.store(0, std::memory_order_release);  // that version may be another's next
      if (busy && busy_attempts < 2) {  // nothing was stored
        ++busy_attempts;
        continue;
      }
      return st;
    }
    size_t bytes = 0;
    {
      std::unique_lock<WriterFirstMutex> lock(slot->mu);
      if (rebuilt) slot->mem = std::move(rebuilt);
      if (base.committed != 0) {  // 0: the store had nothing to write
        slot->version = base.committed;
        slot->cursor = base.cursor;
      }
      RETURN_IF_ERROR(apply(slot->mem));
      if (!slot->mem) RETURN_IF_ERROR(EnsureLoaded(key, slot.get(), true));
      bytes = slot->mem->MemoryBytes();  // under the lock: writers change it
    }
    write_lock.unlock();
    Account(ck, slot.get(), bytes);
    EvictOverBudget(ck);
    return Status::Ok();
  }
}

Status MemoryImpl::ReadUser(const UserKey& key, const std::function<Status(const UserMemory&)>& fn) {
  const std::string ck = CacheKey(key);
  // Read before the lock: a write of this process that lands meanwhile only makes the cached
  // copy newer. Versions grow across users, so a copy at or above it is current; a user
  // another process deleted or wrote is (re)loaded.
  const bool shared = options_.shared_data_dir;
  StatusOr<uint64_t> stored = shared ? store_->UserVersion(key) : StatusOr<uint64_t>(uint64_t{0});
  if (!stored.ok() && stored.status().code() != StatusCode::kNotFound) return stored.status();
  uint64_t version = stored.ok() ? *stored : 0;
  auto current = [&](const Slot& slot) {
    return slot.mem && (!shared || (version != 0 && slot.version >= version));
  };
  bool counted = false;  // this call already counted its cache hit or miss
  // How long this call may still wait for a write of this process (Options::own_write_wait).
  std::optional<std::chrono::steady_clock::time_point> wait_until;
  for (;;) {
    SlotPtr slot = Acquire(ck);
    {
      std::shared_lock<WriterFirstMutex> lock(slot->mu);
      if (slot->evicted) continue;
      if (current(*slot)) {
        if (!counted) cache_hits_.fetch_add(1, std::memory_order_relaxed);
        return fn(*slot->mem);
      }
    }
    std::unique_lock<WriterFirstMutex> lock(slot->mu);
    if (slot->evicted) continue;
    std::unique_lock<std::mutex> write_lock(slot->write_mu, std::defer_lock);
    if (slot->mem && !current(*slot)) {
      // try_lock: writers take write_mu before mu. A write of this process in flight brings the
      // copy up to date in its apply step, but another process's acknowledged write (or forget)
      // must be seen now.
      if (!write_lock.try_lock()) {
        // The store moved on only by that write, not acknowledged yet: this process's copy is
        // what it has acknowledged. (Between COMMIT and apply lies SQLite's auto-checkpoint.)
        // Version 0: another process deleted the user.
        if (version != 0 && version <= slot->own_commit.load(std::memory_order_acquire)) return fn(*slot->mem);
        // Another process wrote too: wait (holding neither lock) for this process's write, a
        // few ms, and catch up after it; a whole copy of its own costs a whole load. A write
        // stuck behind another process's lock is not waited for past own_write_wait.
        lock.unlock();
        if (!wait_until) wait_until = std::chrono::steady_clock::now() + options_.own_write_wait;
        // Polled: ThreadSanitizer does not see the timed lock libstdc++ uses (pthread_mutex_clocklock).
        while (!write_lock.try_lock() && std::chrono::steady_clock::now() < *wait_until)
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (!write_lock.owns_lock()) {
          private_copies_.fetch_add(1, std::memory_order_relaxed);
          auto snapshot = store_->LoadUser(key);
          if (!snapshot.ok()) return UnknownUserMessage(snapshot.status(), key);
          ASSIGN_OR_RETURN(auto fresh, BuildUserMemory(std::move(*snapshot), nullptr));
          return fn(*fresh);
        }
        lock.lock();  // after write_mu: the writers' order
        if (slot->evicted) continue;
      }
      // What another process added is read and applied in place; anything else (the user was
      // deleted or re-created, a step failed) reloads it whole.
      if (slot->mem && !current(*slot) && !CatchUp(key, slot.get())) slot->mem.reset();
    }
    Status st = EnsureLoaded(key, slot.get(), /*create=*/false);  // counts the cache hit or miss
    // Released with mu, not at the end of the loop: a search that took mu next and found
    // write_mu still held would take it for a write in flight and build a whole private copy.
    if (write_lock.owns_lock()) write_lock.unlock();
    if (!st.ok()) {
      lock.unlock();
      DropIfUnloaded(ck, slot);
      return UnknownUserMessage(st, key);
    }
    counted = true;
    // What was just loaded is at least as new as `version`, which may have been read before a
    // write of this process that the load includes.
    version = std::max(version, slot->version);
    // Only loads and writes change what a user holds, so only they re-measure it (searches
    // would pay O(vocabulary) for nothing).
    const size_t bytes = slot->mem->MemoryBytes();
    lock.unlock();
    Account(ck, slot.get(), bytes);
    EvictOverBudget(ck);
  }
}

Status MemoryImpl::AddFact(const UserKey& key, const Fact& fact) {
  RETURN_IF_ERROR(ValidateKey(key));
  for (auto [what, value] : {std::pair<const char*, const std::string*>{"fact head", &fact.head},
                             {"fact relation", &fact.relation}, {"fact tail", &fact.tail},
                             {"fact tail_type", &fact.tail_type}, {"fact domain", &fact.domain}})
    RETURN_IF_ERROR(ValidateName(what, *value, true));
  RETURN_IF_ERROR(ValidateTimeMs("fact time", fact.time_ms));
  const bool blank_tail = std::all_of(fact.tail.begin(), fact.tail.end(), [](unsigned char c) { return std::isspace(c); });
  if (fact.relation.empty() || blank_tail) return Status::InvalidArgument("fact needs a relation and a tail");
  if (ontology_) {
    const Relation* rel = ontology_->FindRelation(fact.relation);
    if (rel == nullptr)
      return Status::InvalidArgument(fmt::format("fact relation {} is not in the ontology", fact.relation));
    // A type or domain the ontology does not know would retype the tail's node silently.
    if (!fact.tail_type.empty()) {
      if (ontology_->FindType(fact.tail_type) == nullptr)
        return Status::InvalidArgument(fmt::format("fact tail_type {} is not an entity type of the ontology", fact.tail_type));
      if (!rel->tail_types.empty() &&
          std::find(rel->tail_types.begin(), rel->tail_types.end(), fact.tail_type) == rel->tail_types.end())
        return Status::InvalidArgument(fmt::format("fact tail_type {} is not a tail type of {} ({})", fact.tail_type,
                                                   fact.relation, fmt::join(rel->tail_types, ", ")));
    }
    if (!fact.domain.empty() && ontology_->FindDomain(fact.domain) == nullptr)
      return Status::InvalidArgument(fmt::format("fact domain {} is not a domain of the ontology", fact.domain));
  } else {
    for (char c : fact.relation)
      if (!((c >= 'A' && c <= 'Z') || c == '_'))
        return Status::InvalidArgument(fmt::format("fact relation {} is not an upper-case id", fact.relation));
  }
  Assertion a;
  a.head = fact.head.empty() ? key.user : fact.head;
  a.relation = fact.relation;
  a.tail = fact.tail;
  for (char& c : a.tail)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  a.tail_type = fact.tail_type;
  a.domain = fact.domain;
  a.time_ms = fact.time_ms > 0 ? fact.time_ms
                               : std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch()).count();
  a.confidence = 1.0f;
  a.explicit_fact = true;
  MemoryGraph next;
  std::set<std::string> dirty;
  TimeOrder next_order;
  auto plan = [&](const UserMemory& mem, GraphDelta* delta) -> Status {
    next = mem.graph();
    dirty.clear();
    delta->replace_edges = ApplyBatch(mem, {{&a, &kNoText, &kNoText}}, policy_, &next, &next_order, &dirty);
    delta->assertions.push_back({GraphDelta::kNoTurn, a});
    for (const std::string& k : dirty)
      if (const GraphEdge* e = next.Find(k)) delta->edges.push_back(*e);
    return Status::Ok();
  };
  auto write = [&](GraphDelta* delta, WriteBase* base) -> Status {
    std::vector<TurnRecord> none;
    return store_->AppendTurns(key, &none, delta, base).WithContext("add fact for " + Describe(key));
  };
  return WriteUser(key, /*create=*/true, plan, write, [&](std::unique_ptr<UserMemory>& mem) {
    mem->AddAssertions({a}, next_order);
    mem->graph() = std::move(next);
    mem->WarmTailVectors(dirty, *embedder_);
    return Status::Ok();
  });
}

Status MemoryImpl::ReadGraph(const UserKey& key, const std::function<void(const MemoryGraph&)>& fn) {
  return ReadUser(key, [&](const UserMemory& mem) {
    fn(mem.graph());
    return Status::Ok();
  });
}

StatusOr<std::string> MemoryImpl::GraphJson(const UserKey& key) {
  RETURN_IF_ERROR(ValidateKey(key));
  std::string out;
  RETURN_IF_ERROR(ReadUser(key, [&](const UserMemory& mem) -> Status {
    out = mem.graph().ToJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    return Status::Ok();
  }));
  return out;
}

StatusOr<SearchResult> MemoryImpl::Search(const UserKey& key, std::string_view query,
                                          const SearchOptions& options) {
  RETURN_IF_ERROR(ValidateKey(key));
  RETURN_IF_ERROR(ValidateQuery(query, options));
  if (options.max_context_tokens < 0)
    return Status::InvalidArgument(
        fmt::format("max_context_tokens is {}, it must be >= 0", options.max_context_tokens));
  StatusOr<SearchResult> result = Status::Internal("unreachable");
  RETURN_IF_ERROR(ReadUser(key, [&](const UserMemory& mem) {
    result = Retrieve(mem, *embedder_, query, options, retriever_, &graph_context_);
    return Status::Ok();
  }));
  if (result.ok()) {
    ApplyContextBudget(options.max_context_tokens, &*result);
    result->query_id = NextQueryId();
  }
  return result;
}

// Feedback goes straight to the store, which checks the turn ids in the same transaction: the
// store is the truth even when another process ingested the turns.
Status MemoryImpl::AddFeedback(const UserKey& key, const Feedback& feedback) {
  RETURN_IF_ERROR(ValidateKey(key));
  RETURN_IF_ERROR(ValidateFeedback(feedback));
  Feedback f = feedback;
  if (f.time_ms == 0) f.time_ms = NowMs();
  // With the user loaded first, so a concurrent load cannot replay this record and count it twice.
  auto write = [&](GraphDelta*, WriteBase* base) -> Status {
    Status st = store_->AppendFeedback(key, f, base);
    if (st.code() == StatusCode::kNotFound) return Status::NotFound(fmt::format("no user {}", Describe(key)));
    return st;
  };
  return WriteUser(key, /*create=*/false, nullptr, write, [&](std::unique_ptr<UserMemory>& mem) {
    mem->RecordFeedback(f);
    return Status::Ok();
  });
}

StatusOr<std::vector<Feedback>> MemoryImpl::FeedbackLog(const UserKey& key) {
  RETURN_IF_ERROR(ValidateKey(key));
  auto log = store_->LoadFeedback(key);
  if (!log.ok() && log.status().code() == StatusCode::kNotFound)
    return Status::NotFound(fmt::format("no user {}", Describe(key)));
  return log;
}

StatusOr<TenantStats> MemoryImpl::GetTenantStats(const std::string& tenant) {
  RETURN_IF_ERROR(ValidateName("tenant", tenant, false));
  return store_->GetTenantStats(tenant);
}

Status MemoryImpl::Forget(const UserKey& key) {
  RETURN_IF_ERROR(ValidateKey(key));
  const std::string ck = CacheKey(key);
  for (;;) {
    SlotPtr slot = Acquire(ck);
    std::unique_lock<std::mutex> write_lock(slot->write_mu);
    std::unique_lock<WriterFirstMutex> lock(slot->mu);
    if (slot->evicted) continue;
    Status st = store_->DeleteUser(key);
    // Drop the slot whatever happened: the store is the truth and is re-read on next use.
    slot->evicted = true;
    slot->mem.reset();
    {
      std::lock_guard<std::mutex> cl(cache_mu_);
      auto it = cache_.find(ck);
      if (it != cache_.end() && it->second.slot == slot) {
        total_bytes_ -= slot->bytes;
        lru_.erase(it->second.pos);
        cache_.erase(it);
      }
    }
    if (st.code() == StatusCode::kNotFound)
      return Status::NotFound(fmt::format("no user {}", Describe(key)));
    return st;
  }
}

StatusOr<std::vector<StoredTurn>> MemoryImpl::Turns(const UserKey& key) {
  RETURN_IF_ERROR(ValidateKey(key));
  auto loaded = store_->LoadTurns(key);
  if (!loaded.ok()) {
    if (loaded.status().code() == StatusCode::kNotFound)
      return Status::NotFound(fmt::format("no user {}", Describe(key)));
    return loaded.status();
  }
  std::vector<StoredTurn> out;
  out.reserve(loaded->size());
  for (auto& r : *loaded) out.push_back(std::move(r.stored));
  return out;
}

StatusOr<std::string> MemoryImpl::Export(const UserKey& key) {
  RETURN_IF_ERROR(ValidateKey(key));
  // One snapshot: another process may write between two reads, and a backup whose graph or
  // feedback cites turns it lacks is not one.
  auto stored = store_->LoadUser(key);
  if (!stored.ok()) {
    if (stored.status().code() == StatusCode::kNotFound)
      return Status::NotFound(fmt::format("no user {}", Describe(key)));
    return stored.status().WithContext("export " + Describe(key) + " (turns, graph and feedback)");
  }
  nlohmann::json doc;
  doc["format"] = "ontomem-export";
  doc["version"] = 1;
  doc["tenant"] = key.tenant;
  doc["user"] = key.user;
  auto& arr = doc["turns"] = nlohmann::json::array();
  for (const TurnRecord& r : stored->turns) {
    const StoredTurn& t = r.stored;
    arr.push_back({{"seq", t.seq}, {"id", t.turn.id}, {"speaker", t.turn.speaker},
                   {"text", t.turn.text}, {"time_ms", t.turn.time_ms}, {"session", t.turn.session}});
  }
  MemoryGraph graph;
  TimeOrder order;
  std::set<std::string> dirty;
  ApplyInTimeOrder(WithSources(stored->assertions, [&](int64_t seq) -> const Turn* {  // seqs are 1..n
    return seq <= static_cast<int64_t>(stored->turns.size()) ? &stored->turns[static_cast<size_t>(seq - 1)].stored.turn
                                                             : nullptr;
  }), policy_, &order, &graph, &dirty);
  doc["graph"] = graph.ToJson();
  auto& fb = doc["feedback"] = nlohmann::json::array();
  for (const Feedback& f : stored->feedback)
    fb.push_back({{"query_id", f.query_id}, {"query", f.query}, {"used", f.used},
                  {"wrong", f.wrong}, {"missed", f.missed}, {"time_ms", f.time_ms}});
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<std::vector<std::string>> MemoryImpl::ListUsers(const std::string& tenant) {
  RETURN_IF_ERROR(ValidateName("tenant", tenant, false));
  return store_->ListUsers(tenant);
}

size_t MemoryImpl::MemoryUsage() const {
  std::lock_guard<std::mutex> lock(cache_mu_);
  return total_bytes_;
}

CacheStats MemoryImpl::GetCacheStats() const {
  return {cache_hits_.load(std::memory_order_relaxed), cache_misses_.load(std::memory_order_relaxed),
          cache_evictions_.load(std::memory_order_relaxed), private_copies_.load(std::memory_order_relaxed)};
}

FactVerifierStats MemoryImpl::GetFactVerifierStats() const {
  if (!fact_verifier_) return {};
  return {static_cast<uint64_t>(fact_verifier_->calls()), static_cast<uint64_t>(fact_verifier_->failures())};
}

size_t MemoryImpl::LoadedUsers() const {
  std::lock_guard<std::mutex> lock(cache_mu_);
  size_t n = 0;
  for (const auto& [k, e] : cache_) n += e.slot->bytes > 0 ? 1 : 0;
  return n;
}

}  // namespace ontomem
