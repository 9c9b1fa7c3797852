// Input checks shared by the library, CLI and (later) server: every message names what is wrong
// and where.
#pragma once

#include <string>
#include <string_view>

#include "ontomem/options.h"
#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem {

inline constexpr size_t kMaxNameBytes = 256;

// `what` is "tenant", "user", "speaker" or "turn id"; empty allowed only when allow_empty.
Status ValidateName(std::string_view what, std::string_view value, bool allow_empty);
Status ValidateKey(const UserKey& key);
// `where` prefixes the message, e.g. "turn 3 (id D1:3)".
Status ValidateTurn(const Turn& turn, const Options& options, std::string_view where);
// A time in Unix milliseconds (0: none): not negative and before the year 10000, which catches
// microseconds or nanoseconds sent for milliseconds (one such time would put every later turn
// of the user "before" it).
Status ValidateTimeMs(std::string_view what, int64_t ms);
Status ValidateQuery(std::string_view query, const SearchOptions& options);

}  // namespace ontomem
