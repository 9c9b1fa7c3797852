#include "retrieve/time_expr.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "common/civil_time.h"
#include "text/text.h"

namespace ontomem {
namespace {

constexpr int64_t kDayMs = 86400000;

int64_t MonthStartMs(int64_t y, int m) {  // m may run past 1..12
  while (m > 12) m -= 12, ++y;
  while (m < 1) m += 12, --y;
  return DaysFromCivil(y, static_cast<unsigned>(m), 1) * kDayMs;
}

int Number(const std::string& w) {
  static const std::array<const char*, 13> kWords = {"zero", "one", "two",   "three", "four", "five", "six",
                                                     "seven", "eight", "nine", "ten", "eleven", "twelve"};
  for (size_t i = 0; i < kWords.size(); ++i)
    if (w == kWords[i]) return static_cast<int>(i);
  if (w == "a" || w == "an") return 1;
  if (w == "couple") return 2;
  if (w == "few" || w == "several") return 3;
  if (!w.empty() && w.size() <= 3 && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::stoi(w);
  return -1;
}

int64_t UnitMs(const std::string& w) {
  if (w == "day" || w == "days") return kDayMs;
  if (w == "week" || w == "weeks") return 7 * kDayMs;
  if (w == "month" || w == "months") return 30 * kDayMs;
  if (w == "year" || w == "years") return 365 * kDayMs;
  return 0;
}

int MonthIndex(const std::string& w) {
  static const std::array<const char*, 12> kMonths = {"january", "february", "march",     "april",   "may",      "june",
                                                      "july",    "august",   "september", "october", "november", "december"};
  for (size_t i = 0; i < kMonths.size(); ++i)
    if (w == kMonths[i]) return static_cast<int>(i) + 1;
  return 0;
}

// First month of a meteorological season (winter starts in December).
int SeasonStart(const std::string& w) {
  if (w == "spring") return 3;
  if (w == "summer") return 6;
  if (w == "autumn" || w == "fall") return 9;
  if (w == "winter") return 12;
  return 0;
}

}  // namespace

std::optional<TimeWindow> ResolveTimeExpression(std::string_view text, int64_t reference_ms) {
  std::vector<std::string> t;
  for (auto& w : text::Tokenize(text)) t.push_back(text::AsciiLower(w));
  const int64_t ref = reference_ms;
  const int64_t day = (ref >= 0 ? ref / kDayMs : (ref - kDayMs + 1) / kDayMs) * kDayMs;
  int64_t ry;
  unsigned rm;
  CivilFromDays(day / kDayMs, &ry, &rm);
  auto window = [](int64_t from, int64_t to, std::string phrase) {
    return TimeWindow{from, to, std::move(phrase)};
  };
  auto at = [&](size_t i) -> const std::string& {
    static const std::string kNone;
    return i < t.size() ? t[i] : kNone;
  };
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& w = t[i];
    if (w == "yesterday") return window(day - kDayMs, day, w);
    if (w == "today" || w == "tonight") return window(day, day + kDayMs, w);
    if (w == "last" && at(i + 1) == "night") return window(day - kDayMs, day + kDayMs, "last night");
    // "<n> <unit> ago", "a couple of weeks ago"
    if (int n = Number(w); n > 0) {
      size_t j = i + 1;
      if (at(j) == "of") ++j;
      if (int64_t unit = UnitMs(at(j)); unit > 0 && at(j + 1) == "ago") {
        std::string phrase = w;
        for (size_t k = i + 1; k <= j + 1; ++k) phrase += " " + t[k];
        return window(ref - (n + 1) * unit, ref - (n - 1) * unit + kDayMs, phrase);
      }
    }
    if (w == "last" || w == "this" || w == "in" || w == "during") {
      const std::string& x = at(i + 1);
      const std::string phrase = w + " " + x;
      const bool last = w == "last";
      if (x == "week") return last ? window(day - 14 * kDayMs, day, phrase) : window(day - 7 * kDayMs, day + kDayMs, phrase);
      if (x == "weekend") return last ? window(day - 10 * kDayMs, day, phrase) : window(day - 3 * kDayMs, day + 3 * kDayMs, phrase);
      if (x == "month")
        return last ? window(MonthStartMs(ry, static_cast<int>(rm) - 1), MonthStartMs(ry, static_cast<int>(rm)), phrase)
                    : window(MonthStartMs(ry, static_cast<int>(rm)), day + kDayMs, phrase);
      if (x == "year")
        return last ? window(MonthStartMs(ry - 1, 1), MonthStartMs(ry, 1), phrase)
                    : window(MonthStartMs(ry, 1), day + kDayMs, phrase);
      if (int s = SeasonStart(x); s > 0) {
        // The season of this year (winter: the one that began last December), or for "last"
        // the most recent one that has ended.
        int64_t y = s == 12 ? ry - (rm < 12 ? 1 : 0) : ry;
        int64_t from = MonthStartMs(y, s), to = MonthStartMs(y, s + 3);
        if (last || (w != "this" && from > ref)) {
          while (to > ref) y -= 1, from = MonthStartMs(y, s), to = MonthStartMs(y, s + 3);
        }
        return window(from, to, phrase);
      }
      if (int m = MonthIndex(x); m > 0) {
        // "in March 2023" names the year; otherwise the most recent March that has begun.
        const std::string& y_word = at(i + 2);
        if (y_word.size() == 4 && std::isdigit(static_cast<unsigned char>(y_word[0]))) {
          const int64_t y = std::stoll(y_word);
          return window(MonthStartMs(y, m), MonthStartMs(y, m + 1), phrase + " " + y_word);
        }
        int64_t y = ry;
        if (MonthStartMs(y, m) > ref || (last && m == static_cast<int>(rm))) --y;
        return window(MonthStartMs(y, m), MonthStartMs(y, m + 1), phrase);
      }
      if (w == "in" && x.size() == 4 && std::isdigit(static_cast<unsigned char>(x[0])) &&
          std::all_of(x.begin(), x.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const int64_t y = std::stoll(x);
        if (y >= 1900 && y <= 2200) return window(MonthStartMs(y, 1), MonthStartMs(y + 1, 1), phrase);
      }
    }
  }
  return std::nullopt;
}

}  // namespace ontomem
