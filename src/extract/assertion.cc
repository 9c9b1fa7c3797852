#include "extract/assertion.h"

namespace ontomem {

const char* ModalityName(Modality m) {
  switch (m) {
    case Modality::kAsserted: return "asserted";
    case Modality::kNegated: return "negated";
    case Modality::kHypothetical: return "hypothetical";
    case Modality::kReported: return "reported";
    case Modality::kPast: return "past";
  }
  return "asserted";
}

bool ParseModality(const std::string& name, Modality* out) {
  for (Modality m : {Modality::kAsserted, Modality::kNegated, Modality::kHypothetical,
                     Modality::kReported, Modality::kPast}) {
    if (name == ModalityName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

}  // namespace ontomem
