#include "text/recall_cue.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "text/text.h"

namespace ontomem::text {

bool AsksWhatWasSaid(std::string_view question) {
  // Adjacent pairs: "did I", "you once", "what was", ...
  struct Pair {
    const char* first;
    const char* second;
  };
  static constexpr Pair kPairs[] = {
      {"did", "i"},     {"did", "you"},   {"have", "i"},    {"you", "once"}, {"i", "once"},
      {"what", "was"},  {"what", "were"}, {"when", "did"},  {"when", "was"}};
  static const std::unordered_set<std::string_view> kMemory = {"remember", "recall", "remind", "forgot", "forget"};
  // "I/you/we" + a past verb of saying ("you recommended"), or "did/have/had I/you/we" + a verb
  // of saying ("had we discussed").
  static const std::unordered_set<std::string_view> kSaid = {
      "told",   "said",      "mentioned", "shared",    "recommended", "suggested", "gave",       "asked",
      "talked", "discussed", "described", "explained", "advised",     "showed",    "introduced", "wrote",
      "sent",   "consulted"};
  static const std::unordered_set<std::string_view> kSay = {
      "tell",    "say",      "mention", "share",  "recommend", "suggest",   "give",  "ask",  "talk",
      "discuss", "describe", "explain", "advise", "show",      "introduce", "write", "send", "consult"};
  auto person = [](const std::string& w) { return w == "i" || w == "you" || w == "we"; };
  std::vector<std::string> t = Tokenize(question);
  // Texting "u" is "you" ("did u say", "the vet u gave me"); "ur" stays out: it is also "our".
  for (std::string& w : t)
    if (w == "u") w = "you";
  for (size_t i = 0; i < t.size(); ++i) {
    if (kMemory.count(t[i])) return true;
    if (i + 1 < t.size()) {
      for (const Pair& p : kPairs)
        if (t[i] == p.first && t[i + 1] == p.second) return true;
      if (person(t[i]) && kSaid.count(t[i + 1])) return true;
    }
    if (i + 2 < t.size() && (t[i] == "did" || t[i] == "have" || t[i] == "had") && person(t[i + 1]) &&
        (kSay.count(t[i + 2]) || kSaid.count(t[i + 2])))
      return true;
  }
  return false;
}

}  // namespace ontomem::text
