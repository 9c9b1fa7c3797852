// Small file helpers shared by loaders and tools.
#pragma once

#include <string>

#include "ontomem/status.h"

namespace ontomem {

// The whole file. NotFound ("<path>: cannot open") or IOError.
StatusOr<std::string> ReadWholeFile(const std::string& path);

// Writes to "<path>.tmp" then renames, so a failed run never leaves half a file.
Status WriteFileAtomic(const std::string& path, const std::string& content);

}  // namespace ontomem
