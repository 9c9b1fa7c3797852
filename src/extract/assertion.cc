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
  if (name == "asserted") *out = Modality::kAsserted;
  else if (name == "negated") *out = Modality::kNegated;
  else if (name == "hypothetical") *out = Modality::kHypothetical;
  else if (name == "reported") *out = Modality::kReported;
  else if (name == "past") *out = Modality::kPast;
  else return false;
  return true;
}

}  // namespace ontomem
