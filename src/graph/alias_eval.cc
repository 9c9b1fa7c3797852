#include "graph/alias_eval.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "engine/pipeline.h"
#include "graph/alias.h"
#include "graph/memory_graph.h"
#include "ontology/ontology.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// "conv-43/D9:7" -> turn text, from a LoCoMo-format file.
StatusOr<std::unordered_map<std::string, std::string>> LocomoTexts(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::FailedPrecondition(fmt::format("cannot read the LoCoMo file {}", path));
  std::unordered_map<std::string, std::string> out;
  try {
    const json d = json::parse(in);
    for (const auto& sample : d) {
      const std::string sid = sample.at("sample_id").get<std::string>();
      for (const auto& [key, session] : sample.at("conversation").items()) {
        if (key.rfind("session_", 0) != 0 || !session.is_array()) continue;
        for (const auto& t : session)
          out[sid + "/" + t.at("dia_id").get<std::string>()] = t.at("text").get<std::string>();
      }
    }
  } catch (const json::exception& e) {
    return Status::InvalidArgument(fmt::format("{}: {}", path, e.what()));
  }
  return out;
}

const char* const kSignals[] = {"initialism", "containment", "near_spelling", "same_entity", "stated"};

std::vector<bool> Fired(const AliasEvidence& ev) {
  return {ev.initialism, ev.containment, ev.near_spelling, ev.same_entity, ev.stated};
}

void Count(Prf* p, bool predicted, bool gold) {
  if (predicted && gold) ++p->tp;
  else if (predicted) ++p->fp;
  else if (gold) ++p->fn;
}

}  // namespace

StatusOr<std::vector<AliasPair>> LoadAliasSet(const std::string& path, const std::string& locomo_path) {
  std::ifstream in(path);
  if (!in) return Status::FailedPrecondition(fmt::format("cannot read the alias set {}", path));
  std::unordered_map<std::string, std::string> locomo;
  bool locomo_loaded = false;
  std::vector<AliasPair> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, n);
    try {
      const json j = json::parse(line);
      AliasPair p;
      p.id = j.at("id").get<std::string>();
      p.split = j.at("split").get<std::string>();
      p.kind = j.at("kind").get<std::string>();
      p.known = j.at("known").get<std::string>();
      p.same = j.at("same").get<bool>();
      const std::string source = j.at("source").get<std::string>();
      if (source == "written") {
        p.text = j.at("text").get<std::string>();
        p.mention = j.at("new").get<std::string>();
      } else if (source == "locomo") {
        if (!locomo_loaded) {
          auto texts = LocomoTexts(locomo_path);
          if (!texts.ok()) return texts.status();
          locomo = std::move(*texts);
          locomo_loaded = true;
        }
        const std::string turn = j.at("sample_id").get<std::string>() + "/" + j.at("dia_id").get<std::string>();
        auto t = locomo.find(turn);
        if (t == locomo.end()) return Status::InvalidArgument(fmt::format("{}: no turn {}", where, turn));
        p.text = t->second;
        const int b = j.at("new_begin").get<int>(), e = j.at("new_end").get<int>();
        if (b < 0 || e <= b || static_cast<size_t>(e) > p.text.size())
          return Status::InvalidArgument(fmt::format("{}: span {}..{} outside the turn", where, b, e));
        p.mention = p.text.substr(static_cast<size_t>(b), static_cast<size_t>(e - b));
      } else {
        return Status::InvalidArgument(fmt::format("{}: unknown source '{}'", where, source));
      }
      if (p.split != "dev" && p.split != "test")
        return Status::InvalidArgument(fmt::format("{}: split must be dev or test", where));
      out.push_back(std::move(p));
    } catch (const json::exception& e) {
      return Status::InvalidArgument(fmt::format("{}: {}", where, e.what()));
    }
  }
  return out;
}

AliasReport EvaluateAliases(const std::vector<AliasPair>& pairs, const SameEntityFn& same_entity, int min_signals) {
  AliasReport r;
  for (const AliasPair& p : pairs) {
    ++r.pairs;
    r.positives += p.same;
    // As MemoryGraph::Apply: tails are normalised first; one key is one node already.
    const std::string known = MemoryGraph::NormalizeTail(p.known), mention = MemoryGraph::NormalizeTail(p.mention);
    const bool normalised = known == mention;
    r.normalised += normalised;
    const bool merged = normalised || ResolveAlias(mention, p.text, {known}, same_entity, min_signals) == known;
    Count(&r.merge, merged, p.same);
    Count(&r.by_kind[p.kind], merged, p.same);
    const AliasEvidence ev = AliasSignals(mention, known, p.text, same_entity);
    const std::vector<bool> fired = Fired(ev);
    std::vector<std::string> names;
    for (size_t i = 0; i < fired.size(); ++i) {
      Count(&r.signal[kSignals[i]], fired[i], p.same);
      if (fired[i]) names.push_back(kSignals[i]);
    }
    if (merged != p.same)
      r.errors.push_back(fmt::format("{} {} [{}] <- [{}]: {} ({}{})", p.id, p.kind, known, mention,
                                     merged ? "merged, different" : "kept apart, same",
                                     normalised ? "one key after normalisation; " : "", fmt::join(names, "+")));
  }
  return r;
}

std::string FormatAliasReport(const AliasReport& r, const std::string& title, bool show_errors) {
  std::string s = fmt::format("{}: {} pairs ({} same entity, {} one key after normalisation)\n", title, r.pairs,
                              r.positives, r.normalised);
  auto row = [](const std::string& name, const Prf& p) {
    return fmt::format("  {:<24} P {:.3f} R {:.3f} F1 {:.3f}  (tp {} fp {} fn {})\n", name, p.Precision(),
                       p.Recall(), p.F1(), p.tp, p.fp, p.fn);
  };
  s += row("merge", r.merge);
  s += "  each signal alone:\n";
  for (const char* name : kSignals) s += row(fmt::format("  {}", name), r.signal.count(name) ? r.signal.at(name) : Prf{});
  s += "  merges by pair kind:\n";
  for (const auto& [kind, p] : r.by_kind) s += row(fmt::format("  {}", kind), p);
  if (show_errors)
    for (const auto& e : r.errors) s += "    " + e + "\n";
  return s;
}

int RunEvalAlias(const EvalAliasArgs& args) {
  auto onto = Ontology::LoadDefault();
  if (!onto.ok()) {
    fmt::print(stderr, "eval alias: {}\n", onto.status().ToString());
    return 1;
  }
  const std::string set_path = SourceTreePath(args.set_path.empty() ? "data/annotations/alias.jsonl" : args.set_path);
  const std::string locomo = SourceTreePath(args.locomo_path);
  auto pairs = LoadAliasSet(set_path, locomo);
  if (!pairs.ok()) {
    fmt::print(stderr, "eval alias: {}\n", pairs.status().ToString());
    return 1;
  }
  std::vector<AliasPair> chosen;
  for (const AliasPair& p : *pairs)
    if (args.split == "all" || p.split == args.split) chosen.push_back(p);
  if (chosen.empty()) {
    fmt::print(stderr, "eval alias: no pairs in split '{}' (dev, test or all)\n", args.split);
    return 2;
  }
  // The resolver ingestion uses (the gazetteer); no lifter is needed for aliases.
  const GraphPolicy policy = MakeGraphPolicy(*onto, nullptr, {});
  const int min_signals = args.min_signals > 0 ? args.min_signals : policy.alias_min_signals;
  const AliasReport report = EvaluateAliases(chosen, policy.same_entity, min_signals);
  fmt::print("{}", FormatAliasReport(report, fmt::format("alias merges, split {}, min signals {}", args.split, min_signals),
                                     args.show_errors));
  return 0;
}

}  // namespace ontomem
