// Helpers shared by tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "ontomem/types.h"

namespace ontomem::testing {

// A fresh empty directory under the system temp dir; removed by the caller (or left for
// inspection on failure).
std::string MakeTempDir(const std::string& prefix);

// Overwrites the byte at `offset` of an existing file with 0x7f (a damaged checkpoint).
void DamageByte(const std::string& path, long offset);

// FNV-1a 64-bit hash: the frozen-output checksums of generator tests.
uint64_t Fnv1a64(const std::string& s);

// A turn with an id, a speaker and text (no time, no session).
inline Turn MakeTurn(std::string id, std::string speaker, std::string text) {
  Turn t;
  t.id = std::move(id);
  t.speaker = std::move(speaker);
  t.text = std::move(text);
  return t;
}

}  // namespace ontomem::testing
