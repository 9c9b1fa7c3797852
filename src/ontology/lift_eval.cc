#include "ontology/lift_eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "embed/sif_embedder.h"
#include "engine/pipeline.h"
#include "extract/annotations.h"
#include "extract/features.h"
#include "extract/models.h"
#include "extract/tokens.h"
#include "ontology/concept_lifter.h"
#include "ontology/ontology.h"
#include "ontology/wordnet.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The extractor's tail normalisation (leading determiners dropped, last word singular).
std::string NormaliseSpan(const std::string& text, int begin, int end) {
  extract::Prepared p;
  p.tokens = extract::TokenizeWithOffsets(text);
  int b = -1, e = -1;
  for (size_t i = 0; i < p.tokens.size(); ++i) {
    if (b < 0 && p.tokens[i].begin >= begin) b = static_cast<int>(i);
    if (p.tokens[i].end <= end) e = static_cast<int>(i) + 1;
  }
  if (b < 0 || e <= b) return text.substr(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
  return extract::NormaliseTail(p, b, e);
}

std::vector<std::string> Strings(const json& j, const char* key) {
  std::vector<std::string> out;
  if (j.contains(key))
    for (const auto& s : j.at(key)) out.push_back(s.get<std::string>());
  return out;
}

}  // namespace

StatusOr<std::vector<LiftItem>> LoadLiftingSet(const std::string& path, const std::string& locomo_path) {
  const fs::path dir = fs::path(path).parent_path();
  std::unordered_map<std::string, std::string> texts;  // turn id -> text
  bool locomo_loaded = false, hand_loaded = false;
  std::ifstream in(path);
  if (!in) return Status::FailedPrecondition(fmt::format("cannot read the lifting set {}", path));
  std::vector<LiftItem> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, n);
    json j;
    try {
      j = json::parse(line);
    } catch (const std::exception& e) {
      return Status::InvalidArgument(fmt::format("{}: {}", where, e.what()));
    }
    try {
      LiftItem it;
      it.source = j.at("source").get<std::string>();
      it.split = j.at("split").get<std::string>();
      it.relation = j.at("relation").get<std::string>();
      it.gold = Strings(j, "gold");
      it.ok = Strings(j, "ok");
      const int b = j.at("tail_begin").get<int>(), e = j.at("tail_end").get<int>();
      std::string turn;
      if (it.source == "locomo") {
        if (!locomo_loaded) {
          auto turns = extract::LoadLocomoAnnotations((dir / "locomo_dev5.jsonl").string(), locomo_path);
          if (!turns.ok()) return turns.status();
          for (const auto& t : *turns) texts[t.id] = t.text;
          locomo_loaded = true;
        }
        turn = j.at("sample_id").get<std::string>() + "/" + j.at("dia_id").get<std::string>();
      } else if (it.source == "handwritten") {
        if (!hand_loaded) {
          auto turns = extract::LoadHandwritten((dir / "handwritten.jsonl").string(), -1);
          if (!turns.ok()) return turns.status();
          for (const auto& t : *turns) texts[t.id] = t.text;
          hand_loaded = true;
        }
        turn = j.at("id").get<std::string>();
      } else if (it.source == "written") {
        turn = j.at("id").get<std::string>();
        texts[turn] = j.at("text").get<std::string>();
      } else {
        return Status::InvalidArgument(fmt::format("{}: unknown source '{}'", where, it.source));
      }
      auto t = texts.find(turn);
      if (t == texts.end()) return Status::InvalidArgument(fmt::format("{}: no turn {}", where, turn));
      it.context = t->second;
      if (b < 0 || e <= b || static_cast<size_t>(e) > it.context.size())
        return Status::InvalidArgument(fmt::format("{}: span {}..{} outside the turn", where, b, e));
      it.id = it.source == "written" ? turn : fmt::format("{}@{}", turn, b);
      it.span = it.context.substr(static_cast<size_t>(b), static_cast<size_t>(e - b));
      it.tail = NormaliseSpan(it.context, b, e);
      if (j.contains("tail") && j.at("tail").get<std::string>() != it.span)
        return Status::InvalidArgument(fmt::format("{}: span is '{}', not '{}'", where, it.span,
                                                   j.at("tail").get<std::string>()));
      out.push_back(std::move(it));
    } catch (const json::exception& e) {
      return Status::InvalidArgument(fmt::format("{}: {}", where, e.what()));
    }
  }
  return out;
}

LiftReport EvaluateLifting(const std::vector<LiftItem>& items, const LiftFn& lift,
                           const std::function<bool(const std::string&)>& in_gazetteer) {
  LiftReport r;
  auto inv = [](const std::string& c) { return c.substr(0, c.find(':')); };
  for (const LiftItem& it : items) {
    ++r.items;
    std::vector<std::string> pred = lift(it);
    std::sort(pred.begin(), pred.end());
    pred.erase(std::unique(pred.begin(), pred.end()), pred.end());
    Prf& gz = in_gazetteer(it.tail) ? r.in_gazetteer : r.not_in_gazetteer;
    if (it.gold.empty()) {
      ++r.none_items;
      bool any = false;
      for (const auto& p : pred) any = any || std::find(it.ok.begin(), it.ok.end(), p) == it.ok.end();
      if (any) ++r.none_lifted;
    }
    std::vector<std::string> wrong, missed;
    for (const auto& p : pred) {
      if (std::find(it.gold.begin(), it.gold.end(), p) != it.gold.end()) {
        ++r.micro.tp, ++gz.tp, ++r.per_inventory[inv(p)].tp;
      } else if (std::find(it.ok.begin(), it.ok.end(), p) == it.ok.end()) {
        ++r.micro.fp, ++gz.fp, ++r.per_inventory[inv(p)].fp;
        wrong.push_back(p);
      }
    }
    for (const auto& g : it.gold) {
      if (std::find(pred.begin(), pred.end(), g) == pred.end()) {
        ++r.micro.fn, ++gz.fn, ++r.per_inventory[inv(g)].fn;
        missed.push_back(g);
      }
    }
    if (!wrong.empty() || !missed.empty()) {
      r.errors.push_back(fmt::format("{} {} [{}] wrong: {} missed: {}", it.id, it.relation, it.span,
                                     fmt::join(wrong, ","), fmt::join(missed, ",")));
    }
  }
  return r;
}

std::string FormatLiftReport(const LiftReport& r, const std::string& title, bool show_errors) {
  std::string s = fmt::format("{}: {} items ({} gold none)\n", title, r.items, r.none_items);
  auto row = [](const std::string& name, const Prf& p) {
    return fmt::format("  {:<22} P {:.3f} R {:.3f} F1 {:.3f}  (tp {} fp {} fn {})\n", name, p.Precision(),
                       p.Recall(), p.F1(), p.tp, p.fp, p.fn);
  };
  s += row("micro", r.micro);
  s += row("tail in gazetteer", r.in_gazetteer);
  s += row("tail not in gazetteer", r.not_in_gazetteer);
  s += fmt::format("  gold-none items given a concept: {} / {}\n", r.none_lifted, r.none_items);
  for (const auto& [inv, p] : r.per_inventory) s += row(inv, p);
  if (show_errors)
    for (const auto& e : r.errors) s += "    " + e + "\n";
  return s;
}

int RunEvalLifter(const EvalLifterArgs& args) {
  auto onto = Ontology::LoadDefault();
  if (!onto.ok()) {
    fmt::print(stderr, "eval lifter: {}\n", onto.status().ToString());
    return 1;
  }
  const std::string set_path = SourceTreePath(args.lifting_path.empty() ? "data/annotations/lifting.jsonl" : args.lifting_path);
  const std::string locomo = SourceTreePath(args.locomo_path);
  auto items = LoadLiftingSet(set_path, locomo);
  if (!items.ok()) {
    fmt::print(stderr, "eval lifter: {}\n", items.status().ToString());
    return 1;
  }
  std::vector<LiftItem> chosen;
  for (const LiftItem& it : *items)
    if (args.split == "all" || it.split == args.split) chosen.push_back(it);
  if (chosen.empty()) {
    fmt::print(stderr, "eval lifter: no items in split '{}' (dev, test or all)\n", args.split);
    return 2;
  }
  std::shared_ptr<const WordNet> wordnet;
  if (auto wn = WordNet::Open(); wn.ok()) wordnet = *wn;
  else fmt::print(stderr, "note: {}; lifting without WordNet\n", wn.status().ToString());
  auto emb = SifEmbedder::Open(args.lexicon_path.empty() ? DefaultLexiconPath() : args.lexicon_path);
  if (!emb.ok()) {
    fmt::print(stderr, "eval lifter: {}\n", emb.status().ToString());
    return 1;
  }
  LifterConfig config;
  config.precision_rules = !args.baseline;
  auto lifter = std::make_shared<ConceptLifter>(*onto, wordnet, *emb, config);
  // Exactly what ingestion links: the policy's lift, then the graph's lift threshold.
  auto make_lift = [&](std::shared_ptr<const ConceptLifter> l) -> LiftFn {
    return [policy = MakeGraphPolicy(*onto, std::move(l), {})](const LiftItem& it) {
      Assertion a;
      a.relation = it.relation;
      a.tail = it.tail;
      std::vector<std::string> out;
      for (const LiftedConcept& c : policy.lift(a, it.context))
        if (c.score >= policy.lift_threshold) out.push_back(c.inventory + ":" + c.concept_id);
      return out;
    };
  };
  if (!args.trace.empty()) {
    for (const LiftItem& it : chosen) {
      if (args.trace != "*" && it.id.find(args.trace) == std::string::npos &&
          it.span.find(args.trace) == std::string::npos)
        continue;
      LiftOptions lo;
      for (const ConceptRelation* cr : (*onto)->ConceptRelationsFor(it.relation)) lo.inventories.push_back(cr->inventory);
      fmt::print("trace {} {} [{}] tail '{}'\n", it.id, it.relation, it.span, it.tail);
      for (const ConceptHit& h : lifter->Lift(it.tail, it.context, lo).hits)
        fmt::print("    {:<32} {:.3f} {}\n", h.concept_id, h.score, h.evidence);
    }
  }
  auto in_gaz = [&](const std::string& tail) { return !(*onto)->LookupGazetteer(tail).empty(); };
  const LiftReport report = EvaluateLifting(chosen, make_lift(lifter), in_gaz);
  fmt::print("{}", FormatLiftReport(report,
                                    fmt::format("lifting, split {}, {}", args.split,
                                                args.baseline ? "baseline (no precision rules)" : "with precision rules"),
                                    args.show_errors));
  if (args.timing_rounds > 0) {
    // One pass per round over the items with a fresh lifter (its caches empty, as for a new
    // process; the OS page cache is warm from the pass above). Construction is not timed.
    double us = 0;
    for (int round = 0; round < args.timing_rounds; ++round) {
      LiftFn fresh = make_lift(std::make_shared<ConceptLifter>(*onto, wordnet, *emb, config));
      const auto t0 = std::chrono::steady_clock::now();
      for (const LiftItem& it : chosen) (void)fresh(it);
      us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    const size_t n = chosen.size() * static_cast<size_t>(args.timing_rounds);
    fmt::print("  cost: {:.1f} us/lift ({} lifts, {} rounds of one pass, fresh lifter each)\n",
               us / static_cast<double>(n), n, args.timing_rounds);
  }
  return 0;
}

}  // namespace ontomem
