// The content of turn n in the kill -9 test: the child program (crash_child.cc) ingests it, the
// test (crash_test.cc) checks what survived against it.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "common/random.h"
#include "store/store.h"

namespace ontomem::testing {

inline TurnRecord CrashTurn(int64_t n) {
  static const char* const kWords[8] = {"naïve", "Zürich", "日本語", "🚀", "ça va", "ελληνικά",
                                        "plain", "word"};
  const uint64_t h = SplitMix64(static_cast<uint64_t>(n));
  TurnRecord r;
  r.stored.turn.id = fmt::format("k{}", n);
  r.stored.turn.speaker = n % 2 != 0 ? "Zoë" : "bob";
  std::string text = fmt::format("turn {}", n);
  for (uint64_t i = 0; i < 1 + h % 12; ++i) {
    text += ' ';
    text += kWords[(h >> (4 * i)) % 8];
  }
  char hex[24];
  std::snprintf(hex, sizeof(hex), " %016llx", static_cast<unsigned long long>(h));
  r.stored.turn.text = text + hex;
  r.stored.turn.time_ms = 1700000000000 + n * 1000;
  r.stored.turn.session = "session_" + std::to_string(n / 10);
  for (int i = 0; i < 8; ++i) {
    r.vector.push_back(static_cast<float>((h >> (8 * i)) & 0xff) / 255.0f - 0.5f);
  }
  r.embedder_id = "crash-test";
  return r;
}

}  // namespace ontomem::testing
