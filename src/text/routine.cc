#include "text/routine.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "text/text.h"

namespace ontomem::text {
namespace {

using Words = std::unordered_set<std::string_view>;

bool In(const Words& set, const std::string& w) { return set.count(w) > 0; }

const Words& Weekdays() {
  static const Words w = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};
  return w;
}
bool IsWeekday(const std::string& w) { return In(Weekdays(), w); }
// "mondays", "weekdays", "mornings": a plural day or part of a day is a habit.
bool IsPluralDay(const std::string& w) {
  static const Words plural = {"weekdays", "weekends", "mornings", "afternoons", "evenings", "nights", "lunchtimes"};
  return In(plural, w) || (w.size() > 1 && w.back() == 's' && IsWeekday(w.substr(0, w.size() - 1)));
}
bool IsTimeUnit(const std::string& w) {
  static const Words units = {"day",     "morning", "afternoon", "evening", "night",   "week",  "weekday",
                              "weekend", "month",   "hour",      "lunch",   "lunchtime", "shift"};
  return In(units, w) || IsWeekday(w);
}
bool IsHourWord(const std::string& w) {
  static const Words hours = {"one", "two",  "three", "four",   "five",  "six",  "seven",
                              "eight", "nine", "ten", "eleven", "twelve", "noon", "midnight"};
  if (In(hours, w)) return true;
  if (w.empty() || w.size() > 4) return false;
  for (char c : w)
    if (c < '0' || c > '9') return false;
  return std::stoi(w) <= 24;
}
// "9am", "7pm", "10:30" (tokenised as "10", "30").
bool IsClockToken(const std::string& w) {
  if (w.size() < 3 || w.size() > 4) return false;
  const std::string suffix = w.substr(w.size() - 2);
  return (suffix == "am" || suffix == "pm") && IsHourWord(w.substr(0, w.size() - 2));
}

}  // namespace

int RoutineCues(std::string_view text) {
  const std::vector<std::string> t = Tokenize(text);
  static const Words kRecurring = {"daily", "weekly", "nightly", "fortnightly"};
  static const Words kBefore = {"before", "after", "until", "till", "around"};
  static const Words kMeal = {"lunch", "breakfast", "dinner", "work", "school"};
  static const Words kPattern = {"shift", "shifts", "commute", "commuting", "rota", "timetable", "standup"};
  static const std::string kNone;  // past the last token (both arms lvalues: no copy per token)
  bool recurrence = false, clock = false, pattern = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& w = t[i];
    const std::string& next = i + 1 < t.size() ? t[i + 1] : kNone;
    const std::string& after = i + 2 < t.size() ? t[i + 2] : kNone;
    if (In(kRecurring, w) || IsPluralDay(w)) recurrence = true;
    if ((w == "every" || w == "each") && (IsTimeUnit(next) || ((next == "other" || next == "single") && IsTimeUnit(after))))
      recurrence = true;
    if (w == "on" && IsWeekday(next)) recurrence = true;
    if (IsClockToken(w) || w == "noon" || w == "midnight" || (w == "o" && (next == "clock" || next == "'clock")))
      clock = true;
    // "at seven", "until eleven", "before lunch"; not "at one point".
    const bool hour_next = IsHourWord(next) && after != "point" && after != "time" && after != "of";
    if ((w == "at" && hour_next) || (In(kBefore, w) && (hour_next || In(kMeal, next)))) clock = true;
    // "half four", "half past", "quarter to".
    if ((w == "half" || w == "quarter") && (next == "past" || next == "to" || IsHourWord(next))) clock = true;
    // "10:30": two digit runs.
    if (IsHourWord(w) && !w.empty() && w[0] >= '0' && w[0] <= '9' && next.size() == 2 && next[0] >= '0' &&
        next[0] <= '5' && text.find(w + ":" + next) != std::string_view::npos)
      clock = true;
    if (In(kPattern, w)) pattern = true;
  }
  return static_cast<int>(recurrence) + static_cast<int>(clock) + static_cast<int>(pattern);
}

bool NamesTimeSpan(std::string_view question) {
  static const Words kSpan = {"today",   "tomorrow", "tonight", "week",     "weekend", "workday",
                              "workweek", "morning", "afternoon", "evening", "schedule", "calendar"};
  const std::vector<std::string> t = Tokenize(question);
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& w = t[i];
    if (In(kSpan, w) || IsWeekday(w) || IsPluralDay(w)) return true;
    if ((w == "my" || w == "the" || w == "this") && i + 1 < t.size() && t[i + 1] == "day") return true;
  }
  return false;
}

}  // namespace ontomem::text
