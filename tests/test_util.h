// Helpers shared by tests.
#pragma once

#include <string>

namespace ontomem::testing {

// A fresh empty directory under the system temp dir; removed by the caller (or left for
// inspection on failure).
std::string MakeTempDir(const std::string& prefix);

}  // namespace ontomem::testing
