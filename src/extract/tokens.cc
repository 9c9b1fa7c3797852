#include "extract/tokens.h"

#include <algorithm>
#include <cctype>

namespace ontomem::extract {
namespace {

bool IsWordByte(unsigned char c) { return std::isalnum(c) || c >= 0x80; }

// Length of an apostrophe at s[i] (ASCII ' or U+2019 ’), 0 if none.
size_t ApostropheAt(std::string_view s, size_t i) {
  if (i < s.size() && s[i] == '\'') return 1;
  if (i + 3 <= s.size() && static_cast<unsigned char>(s[i]) == 0xE2 &&
      static_cast<unsigned char>(s[i + 1]) == 0x80 && static_cast<unsigned char>(s[i + 2]) == 0x99)
    return 3;
  return 0;
}

// A word byte that is not the start of a curly apostrophe.
// General punctuation (U+2000..U+206F: dashes, curly quotes, ellipsis) and U+00A0 are not
// letters, as in text::Tokenize.
bool IsLetterAt(std::string_view s, size_t i) {
  if (i >= s.size()) return false;
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (!IsWordByte(c)) return false;
  if (c == 0xE2 && i + 1 < s.size()) {
    const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    if (c1 == 0x80 || c1 == 0x81) return false;
  }
  if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xA0) return false;
  return true;
}

// Length of the UTF-8 sequence starting with byte c (1 for invalid lead bytes).
size_t Utf8Len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;
}

void Push(std::string_view s, size_t b, size_t e, bool punct, std::vector<Token>* out) {
  Token t;
  t.text.assign(s.substr(b, e - b));
  t.begin = static_cast<int32_t>(b);
  t.end = static_cast<int32_t>(e);
  t.punct = punct;
  t.lower.reserve(t.text.size());
  for (size_t i = 0; i < t.text.size(); ++i) {
    size_t ap = ApostropheAt(t.text, i);
    if (ap == 3) { t.lower.push_back('\''); i += 2; continue; }
    t.lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(t.text[i]))));
  }
  out->push_back(std::move(t));
}

}  // namespace

std::vector<Token> TokenizeWithOffsets(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) { ++i; continue; }
    if (IsLetterAt(s, i)) {
      size_t b = i;
      size_t e = i;
      for (;;) {
        while (IsLetterAt(s, e)) e = std::min(n, e + Utf8Len(static_cast<unsigned char>(s[e])));
        // hyphenated compound: letter-hyphen-letter
        if (e + 1 < n && s[e] == '-' && IsLetterAt(s, e + 1)) { ++e; continue; }
        break;
      }
      // clitics: word'x
      size_t ap = ApostropheAt(s, e);
      if (ap > 0 && IsLetterAt(s, e + ap)) {
        // "n't": split before the n
        size_t ce = e + ap;
        while (IsLetterAt(s, ce)) ce = std::min(n, ce + Utf8Len(static_cast<unsigned char>(s[ce])));
        std::string_view tail = s.substr(e + ap, ce - e - ap);
        const bool nt = (tail == "t" || tail == "T") && e - b >= 2 && (s[e - 1] == 'n' || s[e - 1] == 'N');
        if (nt) {
          Push(s, b, e - 1, false, &out);
          Push(s, e - 1, ce, false, &out);
        } else {
          Push(s, b, e, false, &out);
          Push(s, e, ce, false, &out);
        }
        i = ce;
        continue;
      }
      Push(s, b, e, false, &out);
      i = e;
      continue;
    }
    // punctuation: one code point
    size_t len = ApostropheAt(s, i);
    if (len == 0) len = Utf8Len(c);
    if (i + len > n) len = n - i;
    Push(s, i, i + len, true, &out);
    i += len;
  }
  return out;
}

}  // namespace ontomem::extract
