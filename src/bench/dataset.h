// Loader for the LoCoMo JSON format (../shared/data/locomo/README.md) and its extensions
// (IPR-synth, PrefEval-in-LoCoMo), plus JSONL turn files for `ontomem ingest`.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem {

struct QaItem {
  std::string question;
  std::vector<std::string> evidence;  // normalised dia_ids ("D:11:26" -> "D11:26", split on ';')
  std::string category;               // "" when absent; numbers as their decimal string
  std::optional<bool> implicit;
  std::vector<std::string> pathology;  // a string or a list in the file
  std::string speaker;                 // who asks
  std::vector<std::string> context;    // recent turns before the question
  std::string domain;
};

struct Sample {
  std::string sample_id;
  std::vector<Turn> turns;  // in session then turn order; image turns carry their caption
  std::vector<QaItem> qa;
};

struct Dataset {
  std::string path;
  int history_scale = 0;  // the samples' "history_scale" (IPR-synth --scale), 0 if absent
  std::vector<Sample> samples;
};

// Parses a LoCoMo-format file. Errors name the file and the JSON path of the problem
// ("conv-26: conversation.session_3[4].text: not a string").
StatusOr<Dataset> LoadLocomo(const std::string& path);
// Same from an in-memory document (`origin` names it in messages).
StatusOr<Dataset> ParseLocomo(const std::string& json_text, const std::string& origin);

// The "session_<n>" lists of a LoCoMo conversation object as (n, key), sorted by n
// ("session_10" after "session_9"). Works for nlohmann::json and ordered_json. A session_<n>
// whose value is not a list is skipped; `not_a_list`, when given, gets the first such key
// ("" if none) so a loader can refuse the file instead of losing the session.
template <typename Json>
std::vector<std::pair<int, std::string>> LocomoSessionKeys(const Json& conv, std::string* not_a_list = nullptr) {
  std::vector<std::pair<int, std::string>> keys;
  if (not_a_list) not_a_list->clear();
  for (auto it = conv.begin(); it != conv.end(); ++it) {
    const std::string& k = it.key();
    if (k.rfind("session_", 0) != 0) continue;
    const std::string num = k.substr(8);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 6) continue;
    if (!it.value().is_array()) {
      if (not_a_list && not_a_list->empty()) *not_a_list = k;
      continue;
    }
    keys.emplace_back(std::stoi(num), k);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Parses "1:56 pm on 8 May, 2023" (LoCoMo session times) to Unix milliseconds, UTC.
std::optional<int64_t> ParseLocomoDateTime(const std::string& s);
// Noon of a civil date in that format ("12:00 pm on 8 May, 2023"); month 1-12.
std::string FormatLocomoNoon(int64_t year, unsigned month, unsigned day);

// Splits and normalises one evidence string: "D8:6; D9:17" -> {"D8:6","D9:17"},
// "D:11:26" -> {"D11:26"}; returns what it could not make sense of as-is.
std::vector<std::string> NormaliseEvidence(const std::string& raw);

// Reads a JSONL file of turns: one object per line with "text" and optional "speaker", "id",
// "time" (Unix ms, ISO-8601 date/time with an optional UTC offset, or a LoCoMo date) and
// "session". Errors name the line number; `line_numbers`, when given, gets each turn's line.
StatusOr<std::vector<Turn>> LoadTurnsJsonl(const std::string& path, std::vector<size_t>* line_numbers = nullptr);

}  // namespace ontomem
