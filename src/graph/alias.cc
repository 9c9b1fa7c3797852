#include "graph/alias.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include "text/text.h"

namespace ontomem {
namespace {

std::string Initials(const std::vector<std::string>& words, bool skip_stop) {
  std::string out;
  for (const auto& w : words)
    if (!w.empty() && !(skip_stop && text::IsStopWord(w))) out.push_back(w[0]);
  return out;
}

// Damerau-Levenshtein (optimal string alignment) distance, capped for speed. Three rows kept
// per thread: it runs for most pairs of a user's tails on every load.
int EditDistance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  if (n > m + 3 || m > n + 3) return 4;
  thread_local std::vector<int> before, prev, cur;  // rows i-2, i-1, i
  before.assign(m + 1, 0);
  prev.resize(m + 1);
  cur.resize(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// First occurrence of `w` in `t` as whole words ("la" is not found in "land"), or npos.
size_t FindWord(const std::string& t, const std::string& w) {
  for (size_t p = t.find(w); p != std::string::npos; p = t.find(w, p + 1)) {
    const bool left = p == 0 || !IsWordChar(t[p - 1]);
    const bool right = p + w.size() >= t.size() || !IsWordChar(t[p + w.size()]);
    if (left && right) return p;
  }
  return std::string::npos;
}

// Where the turn writes the short form, it must look like one: at least two capitals
// ("LOTR", "GoT"), not a word ("La La Land", "got").
bool WrittenAsInitialism(const std::string& shorty, const std::string& text) {
  const size_t p = FindWord(text::AsciiLower(text), shorty);
  if (p == std::string::npos) return true;  // not in this turn: nothing to contradict it
  int caps = 0;
  for (size_t i = p; i < p + shorty.size(); ++i) caps += std::isupper(static_cast<unsigned char>(text[i])) != 0;
  return caps >= 2;
}

// Sequel and part markers: "toy story 3", "godfather part ii", "breaking bad season two".
bool IsInstalmentWord(const std::string& w) {
  static const std::set<std::string> kWords = {"part", "season", "seri", "vol", "volum", "chapter", "episod",
                                               "book", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix",
                                               "x", "two", "three", "four", "five", "six", "seven", "eight",
                                               "nine", "ten"};
  return std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
         kWords.count(w) > 0;
}

bool IsInitialismOf(const std::string& shorty, const std::vector<std::string>& long_words) {
  if (shorty.size() < 2 || shorty.size() > 8 || long_words.size() < 2) return false;
  if (shorty.find(' ') != std::string::npos) return false;
  return shorty == Initials(long_words, false) || shorty == Initials(long_words, true);
}

// "X, aka Y", "X (Y)", "we call it Y", "Y for short", "short for X", "also known as". `t` is
// the turn's text lower-cased, `pa` FindWord(t, a) (the same for every known tail `b`).
bool StatedInText(const std::string& a, size_t pa, const std::string& b, const std::string& t) {
  if (pa == std::string::npos || a == b) return false;
  const size_t pb = FindWord(t, b);
  if (pb == std::string::npos) return false;
  // The two mentions must be close; the cue may sit between them or just around them
  // ("we call X Y for short").
  const size_t first_end = pa < pb ? pa + a.size() : pb + b.size();
  const size_t second = std::max(pa, pb);
  if (first_end > second || second - first_end > 40) return false;
  const size_t lo = std::min(pa, pb) >= 12 ? std::min(pa, pb) - 12 : 0;
  const size_t hi = std::min(t.size(), second + (pa < pb ? b.size() : a.size()) + 12);
  const std::string between = t.substr(lo, hi - lo);
  static const char* kCues[] = {"aka", "a.k.a", "also known as", "call it", "calls it", "call them",
                                "called", "short for", "for short", "nickname", "(", "otherwise known as"};
  for (const char* c : kCues)
    if (between.find(c) != std::string::npos) return true;
  return false;
}

// A tail's lower-cased form, words and content terms: computed once per tail, not per pair.
struct Prepared {
  std::string lower;
  std::vector<std::string> words;
  std::set<std::string> content;
};

Prepared Prepare(const std::string& s) {
  Prepared p;
  p.lower = text::AsciiLower(s);
  p.words = text::Tokenize(p.lower);
  const auto c = text::ContentTerms(p.lower);
  p.content.insert(c.begin(), c.end());
  return p;
}

// Known tails recur in every resolution of a user's new tails (ingest compares each new tail
// with all known ones): keep their preparation per thread, bounded.
const Prepared& PrepareCached(const std::string& s) {
  thread_local std::unordered_map<std::string, Prepared> cache;
  if (cache.size() > 50000) cache.clear();
  auto it = cache.find(s);
  if (it == cache.end()) it = cache.emplace(s, Prepare(s)).first;
  return it->second;
}

// Every signal but same_entity; `text` as written, `lower_text` lower-cased and `a_at`
// FindWord(lower_text, a.lower).
AliasEvidence TextSignals(const Prepared& a, const Prepared& b, const std::string& text,
                          const std::string& lower_text, size_t a_at) {
  AliasEvidence ev;
  ev.initialism = (IsInitialismOf(a.lower, b.words) && WrittenAsInitialism(a.lower, text)) ||
                  (IsInitialismOf(b.lower, a.words) && WrittenAsInitialism(b.lower, text));
  // Containment on content words; a bare generic word ("movie") is too weak on its own.
  const auto& small = a.content.size() <= b.content.size() ? a.content : b.content;
  const auto& big = a.content.size() <= b.content.size() ? b.content : a.content;
  if (!small.empty() && small != big && std::includes(big.begin(), big.end(), small.begin(), small.end())) {
    size_t chars = 0;
    for (const auto& w : small) chars += w.size();
    // What the longer adds must not be an instalment: "toy story 3" is not "toy story".
    bool instalment = true;
    for (const auto& w : big) instalment = instalment && (small.count(w) || IsInstalmentWord(w));
    ev.containment = chars >= 4 && !instalment;
  }
  if (!small.empty() && small == big) ev.containment = true;  // differ only in stop words
  const size_t len = std::min(a.lower.size(), b.lower.size());
  const size_t gap = std::max(a.lower.size(), b.lower.size()) - len;
  if (len >= 5 && gap <= 2) {  // otherwise no distance can qualify
    const int dist = EditDistance(a.lower, b.lower);
    ev.near_spelling = (len >= 5 && dist <= 1) || (len >= 9 && dist <= 2);
  }
  ev.stated = StatedInText(a.lower, a_at, b.lower, lower_text);
  return ev;
}

}  // namespace

AliasEvidence AliasSignals(const std::string& a_in, const std::string& b_in, const std::string& text,
                           const std::function<bool(const std::string&, const std::string&)>& same_entity) {
  const Prepared a = Prepare(a_in), b = Prepare(b_in);
  if (a.lower.empty() || b.lower.empty() || a.lower == b.lower) return {};
  const std::string lower_text = text::AsciiLower(text);
  AliasEvidence ev = TextSignals(a, b, text, lower_text, FindWord(lower_text, a.lower));
  ev.same_entity = same_entity && same_entity(a.lower, b.lower);
  return ev;
}

std::string ResolveAlias(const std::string& tail, const std::string& text,
                         const std::vector<std::string>& known,
                         const std::function<bool(const std::string&, const std::string&)>& same_entity,
                         int min_signals) {
  const Prepared t = Prepare(tail);
  const std::string lower_text = text::AsciiLower(text);
  const size_t tail_at = FindWord(lower_text, t.lower);
  std::string best;
  int best_count = min_signals - 1;
  for (const auto& k : known) {
    if (k == tail) return "";  // already known under this name
    const Prepared& pk = PrepareCached(k);
    if (t.lower.empty() || pk.lower.empty() || t.lower == pk.lower) continue;
    AliasEvidence ev = TextSignals(t, pk, text, lower_text, tail_at);
    // The gazetteer adds at most one vote: ask it only when that vote could decide.
    if (ev.count() + 1 <= best_count) continue;
    ev.same_entity = same_entity && same_entity(t.lower, pk.lower);
    const int c = ev.count();
    if (c > best_count) {
      best_count = c;
      best = k;
    }
  }
  return best;
}

}  // namespace ontomem
