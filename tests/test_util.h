// Helpers shared by tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "ontomem/types.h"

namespace ontomem::testing {

// A fresh empty directory under the system temp dir, removed with everything in it when this
// goes out of scope, unless the test (or, outside a test, its suite) has failed: then it is kept
// for inspection and its path printed to stderr. Declare it before whatever uses the directory
// (stores, servers, child processes) so they are gone first.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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
