// Candidate assertions and turns for the verifier and extractor tests.
#pragma once

#include <string>
#include <vector>

#include "extract/assertion.h"
#include "extract/extractor.h"
#include "ontomem/types.h"

namespace ontomem::extract::fixtures {

// A candidate `rel` assertion whose tail is the first occurrence of `tail` in `text`; the head
// is the speaker Ana, or her brother (reported) when !head_is_speaker.
inline Assertion Cand(const std::string& text, const std::string& tail, const std::string& rel, Modality m,
                      bool head_is_speaker = true) {
  Assertion a;
  a.relation = rel;
  a.modality = m;
  a.head_is_speaker = head_is_speaker;
  a.head = head_is_speaker ? "Ana" : "brother";
  const size_t b = text.find(tail);
  a.tail_begin = static_cast<int32_t>(b);
  a.tail_end = static_cast<int32_t>(b + tail.size());
  a.tail = tail;
  return a;
}

inline Turn MakeTurn(const std::string& text) {
  Turn t;
  t.speaker = "Ana";
  t.text = text;
  return t;
}

// What `ex` accepts (confidence >= its threshold) from Ana's turn `id` with `text`.
inline std::vector<Assertion> Accepted(const Extractor& ex, const std::string& text, const std::string& id = "T1",
                                       int64_t seq = 1) {
  Turn t = MakeTurn(text);
  t.id = id;
  std::vector<Assertion> out;
  for (auto& a : ex.Extract(t, seq))
    if (a.confidence >= ex.threshold()) out.push_back(a);
  return out;
}

}  // namespace ontomem::extract::fixtures
