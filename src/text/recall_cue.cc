#include "text/recall_cue.h"

#include <string>
#include <vector>

#include "text/text.h"

namespace ontomem::text {

bool AsksWhatWasSaid(std::string_view question) {
  struct Pair {
    const char* first;
    const char* second;
  };
  static constexpr Pair kPairs[] = {
      {"did", "i"},   {"did", "you"},  {"have", "i"},   {"you", "once"},  {"i", "once"},       {"what", "was"},
      {"what", "were"}, {"when", "did"}, {"when", "was"}, {"remind", "me"}, {"i", "told"},      {"you", "told"},
      {"i", "said"},  {"you", "said"}, {"i", "mentioned"}, {"you", "mentioned"}};
  const std::vector<std::string> t = Tokenize(question);
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "remember") return true;
    if (i + 1 == t.size()) break;
    for (const Pair& p : kPairs)
      if (t[i] == p.first && t[i + 1] == p.second) return true;
  }
  return false;
}

}  // namespace ontomem::text
