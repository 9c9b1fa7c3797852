#include "retrieve/domain_classifier_train.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "bench/ipr_synth.h"
#include "bench/prefeval_compose.h"
#include "common/file_util.h"
#include "common/random.h"
#include "ontology/wordnet.h"
#include "ontomem/options.h"
#include "text/text.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Templates: even indexes are the train half, odd the dev half (the same for word pools).
const std::vector<std::string> kRecommend = {
    "can you recommend something to do with {w}", "any suggestions about {w}",
    "I need some advice on {w}", "what would you suggest for {w} this weekend",
    "what's a good option when it comes to {w}", "I'm trying to decide on {w}, any ideas",
    "help me choose something for {w}", "what do you recommend regarding {w}",
    "thinking about {w} tonight, what should I go with", "which {w} would suit me best",
    "I want to try some {w}, where should I start", "could you pick a {w} for me",
    "what's the best {w} for me right now", "got any tips for {w}",
    "I'm looking for {w} ideas for next week", "what kind of {w} should I look at"};
const std::vector<std::string> kRecall = {
    "what did I say about {w} last time", "do you remember my opinion on {w}",
    "have I told you anything about {w}", "what was my experience with {w}",
    "when did I last mention {w}", "what do you know about my {w}",
    "did I ever talk about {w} with you", "what were my thoughts on {w} back then"};
const std::vector<std::string> kStatement = {
    "I've been thinking about {w} all week.", "We talked about {w} at lunch today.",
    "I need to sort out the {w} situation.", "My friend keeps going on about {w}.",
    "Tomorrow is all about {w}.", "I read something about {w} this morning.",
    "Honestly {w} has been on my mind.", "So, {w} again."};
const std::vector<std::string> kNeutral = {
    "so what do you suggest", "any ideas", "what would you pick", "what should I do then",
    "what's your recommendation", "which way would you go", "what do you think I should choose",
    "help me decide", "what would be best", "any advice"};
const std::vector<std::string> kReplies = {"Oh really?", "Ha, okay.", "Go on.", "I see.", "Interesting.", "Hmm."};

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string Fill(const std::string& t, const std::string& w) {
  std::string s = t;
  if (auto p = s.find("{w}"); p != std::string::npos) s.replace(p, 3, w);
  return s;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The half of `v` belonging to the split (even indexes train, odd dev); all of it when the
// half would be empty.
std::vector<std::string> Half(const std::vector<std::string>& v, bool dev) {
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i)
    if ((i % 2 == 1) == dev) out.push_back(v[i]);
  return out.empty() ? v : out;
}

// Relative paths that do not exist from the current directory are tried against the repo root
// (two levels above the executable), so the commands work from any directory.
std::string Resolve(const std::string& path) {
  std::error_code ec;
  if (path.empty() || fs::path(path).is_absolute() || fs::exists(path, ec)) return path;
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return path;
  buf[n] = 0;
  const fs::path alt = fs::path(buf).parent_path() / ".." / ".." / path;
  return fs::exists(alt, ec) ? alt.lexically_normal().string() : path;
}

struct Resources {
  std::shared_ptr<const Ontology> ontology;
  std::shared_ptr<const DomainFeaturizer> featurizer;
};

StatusOr<Resources> OpenResources(const std::string& lexicon_path) {
  Resources r;
  auto onto = Ontology::LoadDefault();
  if (!onto.ok()) return onto.status();
  r.ontology = *onto;
  std::shared_ptr<const WordNet> wordnet;
  if (auto wn = WordNet::Open(); wn.ok()) wordnet = *wn;
  auto emb = SifEmbedder::Open(lexicon_path.empty() ? DefaultLexiconPath() : lexicon_path);
  if (!emb.ok()) return emb.status();
  auto lifter = std::make_shared<ConceptLifter>(r.ontology, wordnet, *emb);
  r.featurizer = std::make_shared<DomainFeaturizer>(lifter, *emb);
  return r;
}

StatusOr<Dataset> GenerateIprDataset(const std::string& split, int dialogues, uint64_t seed, const std::string& filler) {
  IprConfig cfg;
  cfg.seed = seed;
  cfg.split = split;
  cfg.dialogues = dialogues;
  cfg.filler_path = Resolve(filler);
  std::error_code ec;
  if (!cfg.filler_path.empty() && !fs::exists(cfg.filler_path, ec)) {
    fmt::print(stderr, "note: IPR filler {} not found; using generated chit-chat only\n", cfg.filler_path);
    cfg.filler_path.clear();
  }
  std::string json;
  RETURN_IF_ERROR(GenerateIpr(cfg, &json));
  return ParseLocomo(json, "ipr-" + split);
}

// The neutral chit-chat lines of IPR contexts (not the ellipsis cue lines).
std::vector<std::string> ChitChat(const Dataset& ds) {
  std::set<std::string> lines;
  for (const auto& s : ds.samples)
    for (const auto& q : s.qa) {
      if (std::find(q.pathology.begin(), q.pathology.end(), "ellipsis") != q.pathology.end()) continue;
      for (const auto& c : q.context) lines.insert(c);
    }
  return {lines.begin(), lines.end()};
}

}  // namespace

std::string IprDomainToOntology(const std::string& d) {
  if (d == "MovieRec") return "movies_tv";
  if (d == "FoodPref") return "food_diet";
  if (d == "ProductivityAssist") return "productivity";
  return "";
}

std::vector<std::string> PrefEvalTopicDomains(const std::string& topic) {
  static const std::map<std::string, std::vector<std::string>> kTable = {
      {"education_learning_styles", {"learning"}},
      {"entertain_music_book", {"music", "books"}},
      {"entertain_shows", {"movies_tv"}},
      {"entertain_sports", {"sports", "fitness"}},
      {"lifestyle_beauty", {"beauty"}},
      {"lifestyle_dietary", {"food_diet", "restaurants", "cooking"}},
      {"lifestyle_health", {"health", "fitness"}},
      {"shop_fashion", {"fashion"}},
      {"shop_technology", {"technology"}},
      {"travel_activities", {"travel", "outdoors"}},
      {"travel_restaurant", {"restaurants", "food_diet"}},
      {"travel_transportation", {"transport", "travel", "cars"}},
  };
  auto it = kTable.find(topic);
  return it == kTable.end() ? std::vector<std::string>{} : it->second;
}

std::vector<DomainExample> IprExamples(const Dataset& dataset) {
  std::vector<DomainExample> out;
  for (const auto& s : dataset.samples)
    for (const auto& q : s.qa) {
      const std::string d = IprDomainToOntology(q.domain);
      if (d.empty()) continue;
      DomainExample e;
      e.query = q.question;
      e.context = q.context;
      e.domain = d;
      e.intent = q.implicit.value_or(true) ? static_cast<int>(QueryIntent::kRecommend) : static_cast<int>(QueryIntent::kRecall);
      out.push_back(std::move(e));
    }
  return out;
}

std::vector<DomainExample> OntologyExamples(const Ontology& ontology, const std::vector<std::string>& chit_chat,
                                            int per_domain, const std::string& split, uint64_t seed) {
  const bool dev = split == "dev";
  const auto& domains = ontology.domains();
  // Word pools per domain, three sources: cue words, concept labels/synonyms of inventories
  // whose first domain it is, gazetteer names of entity types whose first domain it is.
  std::vector<std::array<std::vector<std::string>, 3>> pools(domains.size());
  std::map<std::string, size_t> di;
  for (size_t d = 0; d < domains.size(); ++d) di[domains[d].id] = d;
  auto keep = [dev](const std::string& w) { return (Fnv1a(Lower(w)) % 2 == 1) == dev; };
  for (size_t d = 0; d < domains.size(); ++d)
    for (const auto& c : domains[d].cues)
      if (keep(c)) pools[d][0].push_back(c);
  for (const Inventory& inv : ontology.inventories()) {
    if (inv.domains.empty() || !di.count(inv.domains.front())) continue;
    auto& pool = pools[di[inv.domains.front()]][1];
    for (size_t ci : inv.concepts) {
      const Concept& c = ontology.concepts()[ci];
      if (keep(c.label)) pool.push_back(Lower(c.label));
      for (const auto& syn : c.synonyms)
        if (keep(syn)) pool.push_back(syn);
    }
  }
  for (const GazetteerEntry& g : ontology.gazetteer()) {
    const EntityType* t = ontology.FindType(g.type);
    if (!t || t->domains.empty() || !di.count(t->domains.front()) || !keep(g.name)) continue;
    pools[di[t->domains.front()]][2].push_back(g.name);
  }
  const auto recommend = Half(kRecommend, dev), recall = Half(kRecall, dev), statement = Half(kStatement, dev),
             neutral = Half(kNeutral, dev);
  std::mt19937_64 rng(SplitMix64(seed ^ (dev ? 0xD5ULL : 0x7AULL)));
  auto pick = [&rng](const std::vector<std::string>& v) -> const std::string& { return v[UniformBelow(rng, v.size())]; };
  auto word = [&](size_t d) -> std::string {
    std::vector<int> nonempty;
    for (int s = 0; s < 3; ++s)
      if (!pools[d][s].empty()) nonempty.push_back(s);
    if (nonempty.empty()) return Lower(domains[d].label);
    return pick(pools[d][nonempty[UniformBelow(rng, nonempty.size())]]);
  };
  auto other = [&](size_t d) {
    size_t o = UniformBelow(rng, domains.size() - 1);
    return o >= d ? o + 1 : o;
  };
  auto neutral_context = [&]() -> std::vector<std::string> {
    if (chit_chat.size() < 2 || UniformBelow(rng, 2) == 0) return {};
    return {pick(chit_chat), pick(chit_chat)};
  };
  std::vector<DomainExample> out;
  for (size_t d = 0; d < domains.size() && domains.size() > 1; ++d) {
    for (int i = 0; i < per_domain; ++i) {
      DomainExample e;
      e.domain = domains[d].id;
      e.intent = static_cast<int>(QueryIntent::kRecommend);
      const uint64_t kind = UniformBelow(rng, 20);
      if (kind < 8) {  // a request naming the domain, no or neutral context
        e.query = Fill(pick(recommend), word(d));
        e.context = neutral_context();
      } else if (kind < 12) {  // the same with another domain's talk as context: the query wins
        e.query = Fill(pick(recommend), word(d));
        e.context = {Fill(pick(statement), word(other(d))), pick(kReplies)};
      } else if (kind < 15) {  // recall a fact
        e.query = Fill(pick(recall), word(d));
        e.intent = static_cast<int>(QueryIntent::kRecall);
        if (UniformBelow(rng, 2) == 0) e.context = {Fill(pick(statement), word(other(d))), pick(kReplies)};
        else e.context = neutral_context();
      } else {  // an elliptic request: the context names the domain
        e.query = pick(neutral);
        e.context = {Fill(pick(statement), word(d)), pick(kReplies)};
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

StatusOr<std::vector<DomainRequest>> LoadDomainRequests(const std::string& path, const Ontology& ontology) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) return text.status().WithContext("domain requests");
  std::set<std::string> known;
  for (const auto& d : ontology.domains()) known.insert(d.id);
  std::vector<DomainRequest> out;
  std::istringstream lines(*text);
  size_t line_no = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto fail = [&](const std::string& what) {
      return Status::InvalidArgument(fmt::format("{}:{}: {}", path, line_no, what));
    };
    if (!text::IsValidUtf8(line)) return fail("invalid UTF-8");
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
    DomainRequest r;
    if (!j.contains("question") || !j["question"].is_string() || j["question"].get<std::string>().empty())
      return fail("\"question\" must be a non-empty string");
    r.question = j["question"].get<std::string>();
    if (j.contains("context")) {
      if (!j["context"].is_array()) return fail("\"context\" must be a list of strings");
      for (const auto& c : j["context"]) {
        if (!c.is_string()) return fail("\"context\" must be a list of strings");
        r.context.push_back(c.get<std::string>());
      }
    }
    if (!j.contains("domains") || !j["domains"].is_array() || j["domains"].empty())
      return fail("\"domains\" must be a non-empty list of ontology domain ids");
    for (const auto& d : j["domains"]) {
      if (!d.is_string() || !known.count(d.get<std::string>())) return fail("unknown domain " + d.dump());
      r.domains.push_back(d.get<std::string>());
    }
    const auto intent = j.find("intent");
    if (intent == j.end() || !intent->is_string() || (*intent != "recommend" && *intent != "recall"))
      return fail("\"intent\" must be \"recommend\" or \"recall\"");
    r.intent = static_cast<int>(*intent == "recall" ? QueryIntent::kRecall : QueryIntent::kRecommend);
    out.push_back(std::move(r));
  }
  if (out.empty()) return Status::InvalidArgument(path + ": no requests");
  return out;
}

std::vector<DomainExample> DomainRequestExamples(const std::vector<DomainRequest>& requests, float weight) {
  std::vector<DomainExample> out;
  for (const auto& r : requests)
    for (const auto& d : r.domains)
      out.push_back({r.question, r.context, d, r.intent, weight / static_cast<float>(r.domains.size())});
  return out;
}

int RunTrainDomain(const TrainDomainArgs& args) {
  const auto t0 = Clock::now();
  if (!(args.request_weight > 0)) {
    fmt::print(stderr, "train domain: --request-weight must be > 0, got {}\n", args.request_weight);
    return 1;
  }
  // Small matrices: OpenMP threads only spin on a shared machine (results are the same).
  Eigen::setNbThreads(1);
  auto res = OpenResources(args.lexicon_path);
  if (!res.ok()) {
    fmt::print(stderr, "train domain: {}\n", res.status().ToString());
    return 1;
  }
  auto ipr = GenerateIprDataset("train", args.ipr_dialogues, args.seed, args.filler_path);
  if (!ipr.ok()) {
    fmt::print(stderr, "train domain: {}\n", ipr.status().ToString());
    return 1;
  }
  std::vector<DomainExample> ex = IprExamples(*ipr);
  const size_t n_ipr = ex.size();
  for (auto& e : OntologyExamples(*res->ontology, ChitChat(*ipr), args.per_domain, "train", args.seed))
    ex.push_back(std::move(e));
  const size_t n_generated = ex.size();
  for (const auto& f : args.request_files) {
    auto r = LoadDomainRequests(Resolve(f), *res->ontology);
    if (!r.ok()) {
      fmt::print(stderr, "train domain: {}\n", r.status().ToString());
      return 1;
    }
    for (auto& e : DomainRequestExamples(*r, args.request_weight)) ex.push_back(std::move(e));
  }
  auto c = DomainClassifier::Train(res->featurizer, ex, args.train);
  if (!c.ok()) {
    fmt::print(stderr, "train domain: {}\n", c.status().ToString());
    return 1;
  }
  size_t right = 0;
  for (size_t i = 0; i < n_generated; ++i)
    right += (*c)->Predict(ex[i].query, ex[i].context).domains.front().first == ex[i].domain ? 1 : 0;
  std::string out = args.out_path;
  if (out.empty()) out = Resolve("models") + "/domain/classifier.bin";
  if (Status st = (*c)->Save(out); !st.ok()) {
    fmt::print(stderr, "train domain: {}\n", st.ToString());
    return 1;
  }
  std::error_code ec;
  fmt::print("trained on {} examples ({} IPR-synth train, {} ontology-generated, {} from hand-written requests at weight {}), "
             "train accuracy of the generated ones {:.4f}\n",
             ex.size(), n_ipr, n_generated - n_ipr, ex.size() - n_generated, args.request_weight,
             static_cast<double>(right) / static_cast<double>(n_generated));
  fmt::print("wrote {} ({} bytes) in {:.1f} s\n", out, fs::file_size(out, ec),
             std::chrono::duration<double>(Clock::now() - t0).count());
  return 0;
}

namespace {

struct EvalItem {
  std::string query;
  std::vector<std::string> context;
  std::vector<std::string> gold;  // accepted domains
  int intent = -1;
};

struct Tally {
  size_t n = 0, top1 = 0, top2 = 0, lifter1 = 0, lifter2 = 0, intent_n = 0, intent_ok = 0;
  std::map<std::pair<std::string, std::string>, size_t> confusions;  // (gold, predicted)
};

void Evaluate(const DomainClassifier& c, const std::vector<EvalItem>& items, Tally* t) {
  const ConceptLifter& lifter = c.featurizer().lifter();
  auto in = [](const std::vector<std::string>& gold, const std::string& d) {
    return std::find(gold.begin(), gold.end(), d) != gold.end();
  };
  for (const auto& it : items) {
    const DomainPrediction p = c.Predict(it.query, it.context);
    ++t->n;
    const bool ok1 = in(it.gold, p.domains[0].first);
    t->top1 += ok1;
    t->top2 += ok1 || (p.domains.size() > 1 && in(it.gold, p.domains[1].first));
    if (!ok1) ++t->confusions[{it.gold.front(), p.domains[0].first}];
    // The current detector: the query and its context as one text (as GraphView's cue).
    std::string cue = it.query;
    for (const auto& x : it.context) cue.append(" ").append(x);
    const auto hits = lifter.DetectDomains(cue, 2);
    const bool l1 = !hits.empty() && in(it.gold, hits[0].domain);
    t->lifter1 += l1;
    t->lifter2 += l1 || (hits.size() > 1 && in(it.gold, hits[1].domain));
    if (it.intent >= 0) {
      ++t->intent_n;
      t->intent_ok += static_cast<int>(p.intent) == it.intent;
    }
  }
}

void PrintRow(const std::string& name, const Tally& t) {
  auto r = [](size_t a, size_t n) { return n ? fmt::format("{:.4f}", static_cast<double>(a) / static_cast<double>(n)) : std::string("-"); };
  fmt::print("| {} | {} | {} | {} | {} | {} | {} |\n", name, t.n, r(t.top1, t.n), r(t.top2, t.n), r(t.lifter1, t.n),
             r(t.lifter2, t.n), r(t.intent_ok, t.intent_n));
}

void PrintConfusions(const std::string& name, const Tally& t) {
  std::vector<std::pair<size_t, std::pair<std::string, std::string>>> v;
  for (const auto& [k, n] : t.confusions) v.push_back({n, k});
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (v.empty()) return;
  std::string s;
  for (size_t i = 0; i < v.size() && i < 5; ++i)
    s += fmt::format("{}{} -> {} ({})", i ? ", " : "", v[i].second.first, v[i].second.second, v[i].first);
  fmt::print("  {} errors: {}\n", name, s);
}

}  // namespace

int RunEvalDomain(const EvalDomainArgs& args) {
  auto res = OpenResources(args.lexicon_path);
  if (!res.ok()) {
    fmt::print(stderr, "eval domain: {}\n", res.status().ToString());
    return 1;
  }
  const std::string path = args.model_path.empty() ? DefaultDomainModelPath() : args.model_path;
  auto c = DomainClassifier::Load(path, res->featurizer);
  if (!c.ok()) {
    fmt::print(stderr, "eval domain: {}\n", c.status().ToString());
    return 1;
  }
  fmt::print("model {}\n", path);
  fmt::print("| set | n | classifier top-1 | top-2 | DetectDomains(query+context) top-1 | top-2 | intent acc |\n");
  fmt::print("|---|---|---|---|---|---|---|\n");
  std::vector<std::pair<std::string, Tally>> confusions;
  for (const std::string& split : args.splits) {
    auto ds = GenerateIprDataset(split, args.ipr_dialogues, args.seed, args.filler_path);
    if (!ds.ok()) {
      fmt::print(stderr, "eval domain: {}\n", ds.status().ToString());
      return 1;
    }
    std::map<std::string, std::vector<EvalItem>> sets;
    for (const auto& s : ds->samples) {
      // The gold turns too (the user's preference statements), classified alone: how well the
      // model would label edges by their source turn.
      std::map<std::string, const Turn*> by_id;
      for (const Turn& t : s.turns) by_id[t.id] = &t;
      std::set<std::string> seen;
      for (const auto& q : s.qa)
        for (const auto& e : q.evidence)
          if (auto it = by_id.find(e); it != by_id.end() && seen.insert(e).second && !IprDomainToOntology(q.domain).empty())
            sets["gold statements (no context)"].push_back({it->second->text, {}, {IprDomainToOntology(q.domain)}, -1});
      for (const auto& q : s.qa) {
        EvalItem it{q.question, q.context, {IprDomainToOntology(q.domain)}, q.implicit.value_or(true) ? 0 : 1};
        if (it.gold.front().empty()) continue;
        const bool ellipsis = std::find(q.pathology.begin(), q.pathology.end(), "ellipsis") != q.pathology.end();
        sets["all"].push_back(it);
        sets[!q.implicit.value_or(true) ? "explicit" : ellipsis ? "implicit, ellipsis" : "implicit, not ellipsis"].push_back(it);
      }
    }
    for (const auto& [name, items] : sets) {
      Tally t;
      Evaluate(**c, items, &t);
      PrintRow(fmt::format("IPR {} {}", split, name), t);
      if (name == "all") confusions.emplace_back("IPR " + split, t);
    }
  }
  if (!args.prefeval_dir.empty()) {
    for (const std::string kind : {"explicit", "choice"}) {
      ComposeConfig cc;
      cc.prefeval_dir = Resolve(args.prefeval_dir);
      cc.filler_path = Resolve(args.filler_path);
      cc.kind = kind;
      cc.seed = 1;
      std::string json;
      Status st = ComposePrefEval(cc, &json);
      StatusOr<Dataset> ds = st.ok() ? ParseLocomo(json, "prefeval-" + std::string(kind)) : StatusOr<Dataset>(st);
      if (!ds.ok()) {
        fmt::print(stderr, "eval domain: PrefEval {}: {}\n", kind, ds.status().ToString());
        return 1;
      }
      std::vector<EvalItem> items;
      for (const auto& s : ds->samples)
        for (const auto& q : s.qa) {
          auto gold = PrefEvalTopicDomains(q.domain);
          if (gold.empty()) {
            fmt::print(stderr, "eval domain: PrefEval topic {} has no domain mapping (docs/domain.md)\n", q.domain);
            return 1;
          }
          // PrefEval questions are requests for a recommendation or a choice.
          items.push_back({q.question, q.context, gold, static_cast<int>(QueryIntent::kRecommend)});
        }
      Tally t;
      Evaluate(**c, items, &t);
      PrintRow(fmt::format("PrefEval {}", kind), t);
      confusions.emplace_back("PrefEval " + std::string(kind), t);
    }
  }
  if (args.ontology_dev) {
    auto ipr = GenerateIprDataset("dev", 100, args.seed, "");
    std::vector<EvalItem> items;
    if (ipr.ok())
      for (auto& e : OntologyExamples(*res->ontology, ChitChat(*ipr), 60, "dev", args.seed + 7))
        items.push_back({e.query, e.context, {e.domain}, e.intent});
    Tally t;
    Evaluate(**c, items, &t);
    PrintRow("ontology-generated, held-out words and templates", t);
    confusions.emplace_back("ontology dev", t);
  }
  for (const auto& f : args.request_files) {
    auto r = LoadDomainRequests(Resolve(f), *res->ontology);
    if (!r.ok()) {
      fmt::print(stderr, "eval domain: {}\n", r.status().ToString());
      return 1;
    }
    // One item per request, any listed domain counted correct.
    std::vector<EvalItem> items;
    for (const auto& q : *r) items.push_back({q.question, q.context, q.domains, q.intent});
    Tally t;
    Evaluate(**c, items, &t);
    const std::string name = "hand-written " + fs::path(f).filename().string();
    PrintRow(name, t);
    confusions.emplace_back(name, t);
  }
  for (const auto& [name, t] : confusions) PrintConfusions(name, t);
  return 0;
}

}  // namespace ontomem
