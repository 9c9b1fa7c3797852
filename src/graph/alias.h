// Alias and reference resolution for entity tails: "LOTR", "the Lord of the Rings" and "Lord of
// the Rings" are one entity only when independent signals agree. Uncertain cases stay separate
// (and reachable by dense search), as the paper prescribes.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ontomem {

struct AliasEvidence {
  bool initialism = false;     // "lotr" = initials of "lord of the rings"
  bool containment = false;    // every content word of one is in the other ("notebook" / "the notebook")
  bool near_spelling = false;  // a typo away ("titanc" / "titanic")
  bool same_entity = false;    // an outside resolver (the gazetteer) maps both to one entity
  bool stated = false;         // the turn says so: "X, aka Y", "we call it Y", "Y (short for X)"
  // Containment and near spelling both read the same two strings ("toy story" / "toy story 3"
  // is both): together they are one vote.
  int count() const { return initialism + (containment || near_spelling) + same_entity + stated; }
};

// Which signals link `a` and `b` (lower-case tails) given the turn `text` that mentions `a`.
// `same_entity` may be null.
AliasEvidence AliasSignals(const std::string& a, const std::string& b, const std::string& text,
                           const std::function<bool(const std::string&, const std::string&)>& same_entity);

// The known tail `tail` should merge into, or "" when none has at least `min_signals` agreeing
// signals (default 2). Ties go to the earliest known tail.
std::string ResolveAlias(const std::string& tail, const std::string& text,
                         const std::vector<std::string>& known,
                         const std::function<bool(const std::string&, const std::string&)>& same_entity,
                         int min_signals = 2);

}  // namespace ontomem
