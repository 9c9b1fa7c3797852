// Gold assertions at turn level, from the three sources of docs/annotations.md and the IPR-synth
// "facts" turn field: spans are byte offsets into the turn text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "extract/assertion.h"
#include "ontomem/status.h"

namespace ontomem::extract {

struct GoldFact {
  std::string relation;
  int32_t tail_begin = 0, tail_end = 0;
  Modality modality = Modality::kAsserted;
  bool head_is_speaker = true;
  int32_t head_begin = -1, head_end = -1;  // third-party holder mention
};

struct AnnotatedTurn {
  std::string id;  // "conv-26/D1:3", "H001", "ipr-train-0003/D2:5"
  std::string speaker;
  std::string text;
  std::vector<GoldFact> facts;  // empty = read and holds none
};

// Turns carrying a "facts" array in an IPR-synth (LoCoMo-format) document.
StatusOr<std::vector<AnnotatedTurn>> ParseIprFacts(const std::string& json_text, const std::string& origin);
// data/annotations/locomo_dev5.jsonl joined with the LoCoMo file for the text.
StatusOr<std::vector<AnnotatedTurn>> LoadLocomoAnnotations(const std::string& annotations_path,
                                                           const std::string& locomo_path);
// data/annotations/handwritten.jsonl; parity 1 = odd ids (train), 0 = even ids (eval), -1 = all.
StatusOr<std::vector<AnnotatedTurn>> LoadHandwritten(const std::string& path, int parity);

}  // namespace ontomem::extract
