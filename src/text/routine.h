// Does a turn state when its speaker is busy or at their best, and does a question ask for a
// day or a week to be planned? A request to "lay out tomorrow" is governed by turns such as
// "I pick the kids up at half three on weekdays", which name no thing a preference edge could
// point at; the learned combiner reads these cues as two features (docs/combiner.md).
#pragma once

#include <string_view>

namespace ontomem::text {

// How many kinds of routine cue the text says, 0 to 3: a recurrence ("every morning",
// "on Mondays", "weekdays", "daily"), a time of day ("at seven", "9am", "10:30", "half four",
// "until eleven", "before lunch", "noon"), a working pattern ("shifts", "commute", "rota").
int RoutineCues(std::string_view text);

// The question names a day, part of a day or a week to arrange ("tomorrow", "my Thursday",
// "next week", "my workday").
bool NamesTimeSpan(std::string_view question);

}  // namespace ontomem::text
