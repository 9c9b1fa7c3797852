// Lifting precision: the hand-labelled set data/annotations/lifting.jsonl (docs/lifting.md) run
// through the same lift the graph uses at ingestion (MakeGraphPolicy's `lift`, lift threshold
// applied), scored against gold concepts; `ontomem eval lifter`.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ontomem/status.h"

namespace ontomem {

struct LiftItem {
  std::string id;        // "conv-42/D1:13@24", "H001@22", "W003"
  std::string source;    // locomo | handwritten | written
  std::string split;     // dev | test
  std::string relation;  // assertion relation ("LIKES")
  std::string span;      // the tail as written in the turn
  std::string tail;      // normalised as the extractor does ("fantasy novel")
  std::string context;   // the turn text
  std::vector<std::string> gold;  // concept ids; empty = the tail is no instance of any
  std::vector<std::string> ok;    // also acceptable (not needed for recall, not counted wrong)
};

// Reads the labelled set; LoCoMo items take their text from `locomo_path` (via the locomo_dev5
// annotations beside `path`), handwritten ones from handwritten.jsonl beside `path`.
StatusOr<std::vector<LiftItem>> LoadLiftingSet(const std::string& path, const std::string& locomo_path);

struct Prf {
  int tp = 0, fp = 0, fn = 0;
  double Precision() const { return tp + fp ? static_cast<double>(tp) / (tp + fp) : 0.0; }
  double Recall() const { return tp + fn ? static_cast<double>(tp) / (tp + fn) : 0.0; }
  double F1() const {
    const double p = Precision(), r = Recall();
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
  }
};

struct LiftReport {
  int items = 0, none_items = 0, none_lifted = 0;  // gold-none items given some concept
  // A prediction in `ok` counts neither way; micro over all items.
  Prf micro, in_gazetteer, not_in_gazetteer;
  std::map<std::string, Prf> per_inventory;
  std::vector<std::string> errors;  // "id relation [span] -> predicted | gold"
};

// Concept ids ("genre:romance") lifted for an item.
using LiftFn = std::function<std::vector<std::string>(const LiftItem&)>;
// `in_gazetteer(tail)`: whether the tail names a seed entity (recall is reported both ways).
LiftReport EvaluateLifting(const std::vector<LiftItem>& items, const LiftFn& lift,
                           const std::function<bool(const std::string&)>& in_gazetteer);
std::string FormatLiftReport(const LiftReport& report, const std::string& title, bool show_errors);

struct EvalLifterArgs {
  std::string lifting_path;  // "" = <repo>/data/annotations/lifting.jsonl
  std::string locomo_path = "../shared/data/locomo/locomo_dev5.json";
  std::string lexicon_path;  // "" = DefaultLexiconPath()
  std::string split = "dev";  // dev | test | all
  bool baseline = false;      // the lifter without its precision rules (as before them)
  bool show_errors = false;
  std::string trace;          // print the raw lifter hits of items whose id or span contains this ("*": all)
  int timing_rounds = 3;      // passes over the items for us/lift (0 = skip)
};
int RunEvalLifter(const EvalLifterArgs& args);

}  // namespace ontomem
