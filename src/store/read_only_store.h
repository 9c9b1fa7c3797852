// A store opened read-only: OpenSqliteStore falls back to it when the database file or its
// directory is not writable, so read commands work on a data directory the process cannot write.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace ontomem {

// Reads go to `base`; writes fail with FailedPrecondition saying the store is read-only and
// `why` (e.g. "data directory d is not writable"), without reaching `base`. UpdateVectors, the
// engine's write-back of vectors recomputed on load, is skipped: the vectors stay in memory.
std::unique_ptr<Store> NewReadOnlyStore(std::unique_ptr<Store> base, std::string why);

// OpenSqliteStore with the connection read-only even when the files are writable (as root they
// always are): the database must exist and be at the latest schema. Tests use it.
StatusOr<std::unique_ptr<Store>> OpenSqliteStoreReadOnly(const std::string& dir);

}  // namespace ontomem
