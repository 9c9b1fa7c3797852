// Alias-merge precision: the labelled pairs of data/annotations/alias.jsonl (docs/alias.md) run
// through ResolveAlias with the gazetteer as `same_entity`, as ingestion does; `ontomem eval alias`.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ontology/lift_eval.h"  // Prf
#include "ontomem/status.h"

namespace ontomem {

struct AliasPair {
  std::string id;     // "A001"
  std::string split;  // dev | test
  std::string kind;   // what the pair tests: initialism, stated, typo, sequel, compound, ...
  std::string known;  // the tail the graph already holds
  std::string mention;  // the new tail as written in the turn
  std::string text;     // the turn that mentions the new tail
  bool same = false;    // gold: one entity
};

// Reads the set; LoCoMo pairs take their turn text from `locomo_path` (dia_id + offsets).
StatusOr<std::vector<AliasPair>> LoadAliasSet(const std::string& path, const std::string& locomo_path);

using SameEntityFn = std::function<bool(const std::string&, const std::string&)>;

struct AliasReport {
  int pairs = 0, positives = 0;
  Prf merge;                          // ResolveAlias merges (or the graph's normalisation does) vs gold
  std::map<std::string, Prf> signal;  // each signal alone: fired on a same/different pair, silent on a same one
  std::map<std::string, Prf> by_kind;
  int normalised = 0;                 // pairs whose tails are one key after NormalizeTail (merged without ResolveAlias)
  std::vector<std::string> errors;    // "id kind [known] <- [mention]: merged|kept signals"
};

// Counts one pair per item: merged = ResolveAlias(new, text, {known}) returns known, or both
// normalise to the same graph key.
AliasReport EvaluateAliases(const std::vector<AliasPair>& pairs, const SameEntityFn& same_entity, int min_signals);
std::string FormatAliasReport(const AliasReport& report, const std::string& title, bool show_errors);

struct EvalAliasArgs {
  std::string set_path;  // "" = <repo>/data/annotations/alias.jsonl
  std::string locomo_path = "../shared/data/locomo/locomo_dev5.json";
  std::string split = "dev";  // dev | test | all
  int min_signals = 0;  // 0 = the graph policy's alias_min_signals
  bool show_errors = false;
};
int RunEvalAlias(const EvalAliasArgs& args);

}  // namespace ontomem
