// Helpers shared by tests.
#pragma once

#include <cstdint>
#include <string>

namespace ontomem::testing {

// A fresh empty directory under the system temp dir; removed by the caller (or left for
// inspection on failure).
std::string MakeTempDir(const std::string& prefix);

// FNV-1a 64-bit hash: the frozen-output checksums of generator tests.
uint64_t Fnv1a64(const std::string& s);

}  // namespace ontomem::testing
