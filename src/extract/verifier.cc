#include "extract/verifier.h"

#include "extract/tokens.h"
#include "text/text.h"

namespace ontomem::extract {
namespace {

bool PositiveRelation(const std::string& r) {
  return r == "LIKES" || r == "OWNS" || r == "USES" || r == "HAS_PET" || r == "HAS_HABIT" || r == "FOLLOWS_DIET" ||
         r == "LIVES_IN" || r == "WORKS_AS" || r == "HAS_RELATIVE" || r == "HAS_FRIEND" || r == "WANTS";
}

}  // namespace

Verdict RuleVerifier::Verify(const Assertion& c, const Turn& turn) const {
  Verdict v;
  auto reject = [&](std::string why) {
    v.valid = false;
    v.reason = std::move(why);
    return v;
  };
  // (1) content tail
  if (c.tail.empty()) return reject("empty tail");
  if (c.tail_end <= c.tail_begin || c.tail_end > static_cast<int32_t>(turn.text.size())) return reject("bad span");
  {
    bool content = false;
    for (const auto& w : text::Tokenize(c.tail)) content |= !text::IsStopWord(w);
    if (!content) return reject("tail is a function word");
  }
  // (2) ontology types
  if (res_.type_check && res_.type_check(c.relation, c.tail) < 0) return reject("type mismatch");
  // (3) polarity: negation right before the tail in its clause
  if (c.modality == Modality::kAsserted && PositiveRelation(c.relation)) {
    const std::vector<Token> toks = TokenizeWithOffsets(std::string_view(turn.text).substr(0, static_cast<size_t>(c.tail_begin)));
    int seen = 0;
    for (auto it = toks.rbegin(); it != toks.rend() && seen < 5; ++it, ++seen) {
      if (it->punct && it->text != "'") break;
      if (it->lower == "n't" || it->lower == "not" || it->lower == "never" || it->lower == "no")
        return reject("negation cue contradicts an asserted " + c.relation);
      if (it->lower == "but") break;
    }
  }
  // (4) head resolution
  if (c.modality == Modality::kReported && c.head_is_speaker) return reject("reported fact without a holder");
  if (!c.head_is_speaker && c.modality != Modality::kReported) return reject("third-party head but not reported");
  return v;
}

}  // namespace ontomem::extract
