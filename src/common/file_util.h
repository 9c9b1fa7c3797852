// Small file helpers shared by loaders and tools.
#pragma once

#include <string>

#include "ontomem/status.h"

namespace ontomem {

// The whole file. NotFound ("<path>: cannot open"), InvalidArgument for a directory, or IOError.
StatusOr<std::string> ReadWholeFile(const std::string& path);

// Writes to a temporary file next to `path` (unique per writer) then renames, so a failed run
// never leaves half a file; the temporary is removed on failure. Concurrent writers each leave
// a whole file (the last rename wins): read-modify-write callers still need a lock.
Status WriteFileAtomic(const std::string& path, const std::string& content);

}  // namespace ontomem
