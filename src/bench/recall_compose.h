// Recall questions over real dialogues, for training the graph-first combiner: in a LoCoMo-format
// file, one speaker asks about something said earlier ("What did you tell me about the pottery
// class?" of the other speaker's turn, "What did I say about ..." of their own), naming a few
// of that turn's words. IPR-synth and PrefEval only ask for the asker's own preferences, so a
// combiner trained on them alone learns that a strong text match without a graph edge is a
// distractor and buries the answer to "what did you recommend to me?" (docs/RESULTS.md,
// session 6, MemoryBank). Not a benchmark: the questions are templated from the gold turn.
#pragma once

#include <cstdint>
#include <string>

#include "ontomem/status.h"

namespace ontomem {

struct RecallComposeConfig {
  std::string dialogues_path;  // LoCoMo-format file; its own QA is dropped
  uint64_t seed = 1;
  int per_sample = 60;  // questions per conversation
};

// Writes a LoCoMo-format dataset (the same conversations, new QA with `speaker` and one
// evidence turn each) into *json_out.
Status ComposeRecall(const RecallComposeConfig& config, std::string* json_out);

}  // namespace ontomem
