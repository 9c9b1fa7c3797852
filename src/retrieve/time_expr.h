// Time expressions in a query ("two weeks ago", "last summer", "in March", "yesterday")
// resolved against a reference time into a window of Unix milliseconds, so retrieval can favour
// turns said then. English only; deliberately small: an expression it does not know resolves to
// nothing rather than to a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ontomem {

struct TimeWindow {
  int64_t from_ms = 0;  // inclusive
  int64_t to_ms = 0;    // exclusive
  std::string phrase;   // the words that named it ("two weeks ago")
};

// The first time expression in `text`, resolved against `reference_ms` (the time the query is
// asked, Unix ms). Relative spans get slack on both sides ("two weeks ago" = 1 to 3 weeks
// before), seasons are northern-hemisphere meteorological ones.
std::optional<TimeWindow> ResolveTimeExpression(std::string_view text, int64_t reference_ms);

}  // namespace ontomem
