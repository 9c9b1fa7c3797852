// MemoryBank as a retrieval test (../shared/data/memorybank/README.md): the 15 users' dialogue
// histories and the 100 hand-written probing questions, with evidence labels of our own
// (data/memorybank/labels.json; MemoryBank ships none), written as a LoCoMo-format dataset that
// `ontomem bench` reads. It is used only as an outside check: nothing is trained or chosen on it.
#pragma once

#include <string>

#include "ontomem/status.h"

namespace ontomem {

struct MemoryBankConfig {
  std::string dir;          // holds memory_bank_en.json and probing_questions_en.jsonl
  std::string labels_path;  // {"<user>": [[dia_id, ...] per question, in file order]}; "" = none
};

// One sample per user (names stripped of stray spaces), one session per day in date order; each
// {query, response} pair becomes two turns, the user's (speaker: the user's name, "D<day>:<2j+1>")
// and the companion's (speaker "AI", "D<day>:<2j+2>"). Every question is asked by its user; its
// evidence is the label list (empty without labels: the file to label from). Errors name the
// file and the user; labels must name existing turns and match the question count.
Status ConvertMemoryBank(const MemoryBankConfig& config, std::string* json_out);

}  // namespace ontomem
