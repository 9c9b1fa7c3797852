#include "text/text.h"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_set>

namespace ontomem::text {

bool IsValidUtf8(std::string_view s, size_t* error_offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  auto fail = [&](size_t at) {
    if (error_offset) *error_offset = at;
    return false;
  };
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) { ++i; continue; }
    int len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return fail(i);
    if (i + len > n) return fail(i);
    for (int k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return fail(i);
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return fail(i);
    i += len;
  }
  return true;
}

namespace {

bool IsAsciiAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Non-ASCII code points count as word characters except common punctuation and spaces
// (curly quotes, dashes, ellipsis, NBSP), which GloVe's tokenizer splits on.
bool IsWordCodePoint(uint32_t cp) {
  if (cp < 0x80) return IsAsciiAlnum(static_cast<unsigned char>(cp));
  if (cp == 0xA0 || (cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x3000 && cp <= 0x303F)) return false;
  if (cp == 0xAB || cp == 0xBB || cp == 0xBF || cp == 0xA1 || cp == 0xB7) return false;
  if (cp >= 0x1F000 || cp == 0xFFFD) return false;  // emoji, symbols, undecodable bytes
  return true;
}

bool IsApostrophe(uint32_t cp) { return cp == '\'' || cp == 0x2019; }

// Decodes one code point at s[i]; invalid bytes decode as U+FFFD of length 1.
uint32_t Decode(std::string_view s, size_t i, size_t* len) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) { *len = 1; return c; }
  int l = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (l == 0 || i + l > s.size()) { *len = 1; return 0xFFFD; }
  uint32_t cp = c & (0xFF >> (l + 1));
  for (int k = 1; k < l; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) { *len = 1; return 0xFFFD; }
    cp = (cp << 6) | (b & 0x3F);
  }
  *len = l;
  return cp;
}

void AppendLower(std::string* out, std::string_view s) {
  for (char c : s) out->push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
}

// Splits a lower-cased word with an inner apostrophe into GloVe-style pieces.
void EmitWithClitic(std::vector<std::string>* out, std::string word, std::string clitic) {
  if (!word.empty()) out->push_back(std::move(word));
  if (!clitic.empty()) out->push_back(std::move(clitic));
}

}  // namespace

std::vector<std::string> Tokenize(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  while (i < s.size()) {
    size_t len;
    uint32_t cp = Decode(s, i, &len);
    if (IsWordCodePoint(cp)) {
      AppendLower(&cur, s.substr(i, len));
      i += len;
      continue;
    }
    if (IsApostrophe(cp) && !cur.empty()) {
      // Look at the letters after the apostrophe: "n't" and "'s", "'m", "'re", "'ve", "'ll", "'d".
      size_t j = i + len;
      std::string tail;
      while (j < s.size()) {
        size_t l2;
        uint32_t c2 = Decode(s, j, &l2);
        if (!IsWordCodePoint(c2)) break;
        AppendLower(&tail, s.substr(j, l2));
        j += l2;
      }
      if (tail == "t" && cur.size() > 1 && cur.back() == 'n') {
        cur.pop_back();
        if (cur == "ca") cur = "can";
        else if (cur == "wo") cur = "will";
        EmitWithClitic(&out, std::move(cur), "n't");
      } else if (tail == "s" || tail == "m" || tail == "re" || tail == "ve" || tail == "ll" ||
                 tail == "d") {
        EmitWithClitic(&out, std::move(cur), "'" + tail);
      } else {
        flush();
        if (!tail.empty()) out.push_back(tail);  // o'clock, rock'n'roll: keep both parts
      }
      cur.clear();
      i = j;
      continue;
    }
    flush();
    i += len;
  }
  flush();
  return out;
}

bool IsStopWord(std::string_view w) {
  static const std::unordered_set<std::string_view> kStop = {
      "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
      "aren't", "as", "at", "be", "because", "been", "before", "being", "below", "between",
      "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during",
      "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her",
      "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is",
      "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not",
      "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves",
      "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that",
      "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
      "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were",
      "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
      "you", "your", "yours", "yourself", "yourselves", "'s", "'m", "'re", "'ve", "'ll", "'d",
      "n't", "also", "really", "yeah", "oh", "hey", "hi", "yes", "ok", "okay", "well", "got",
      "get", "us", "let", "lot", "much", "many", "may", "might", "must", "shall", "ever",
      "though", "still", "even", "any", "anything", "something", "thing", "things"};
  return kStop.count(w) > 0;
}

// ---- Porter stemmer (M.F. Porter, 1980), the reference algorithm on ASCII lower case. ----
namespace {

class Porter {
 public:
  explicit Porter(std::string w) : b_(std::move(w)) {}

  std::string Run() {
    if (b_.size() <= 2) return b_;
    k_ = static_cast<int>(b_.size()) - 1;
    Step1ab(); if (k_ > 0) { Step1c(); Step2(); Step3(); Step4(); Step5(); }
    return b_.substr(0, k_ + 1);
  }

 private:
  bool Cons(int i) const {
    switch (b_[i]) {
      case 'a': case 'e': case 'i': case 'o': case 'u': return false;
      case 'y': return i == 0 ? true : !Cons(i - 1);
      default: return true;
    }
  }
  // Number of VC sequences in b_[0..j_].
  int M() const {
    int n = 0, i = 0;
    for (;;) { if (i > j_) return n; if (!Cons(i)) break; ++i; }
    ++i;
    for (;;) {
      for (;;) { if (i > j_) return n; if (Cons(i)) break; ++i; }
      ++i; ++n;
      for (;;) { if (i > j_) return n; if (!Cons(i)) break; ++i; }
      ++i;
    }
  }
  bool VowelInStem() const { for (int i = 0; i <= j_; ++i) if (!Cons(i)) return true; return false; }
  bool DoubleC(int j) const { return j >= 1 && b_[j] == b_[j - 1] && Cons(j); }
  bool Cvc(int i) const {
    if (i < 2 || !Cons(i) || Cons(i - 1) || !Cons(i - 2)) return false;
    char ch = b_[i];
    return !(ch == 'w' || ch == 'x' || ch == 'y');
  }
  bool Ends(std::string_view s) {
    int len = static_cast<int>(s.size());
    if (len > k_ + 1) return false;
    if (b_.compare(k_ - len + 1, len, s) != 0) return false;
    j_ = k_ - len;
    return true;
  }
  void SetTo(std::string_view s) {
    b_.replace(j_ + 1, k_ - j_, s);
    k_ = j_ + static_cast<int>(s.size());
    b_.resize(k_ + 1);
  }
  void R(std::string_view s) { if (M() > 0) SetTo(s); }

  void Step1ab() {
    if (b_[k_] == 's') {
      if (Ends("sses")) k_ -= 2;
      else if (Ends("ies")) SetTo("i");
      else if (b_[k_ - 1] != 's') --k_;
    }
    b_.resize(k_ + 1);
    if (Ends("eed")) { if (M() > 0) --k_; }
    else if ((Ends("ed") || Ends("ing")) && VowelInStem()) {
      k_ = j_;
      b_.resize(k_ + 1);
      if (Ends("at")) SetTo("ate");
      else if (Ends("bl")) SetTo("ble");
      else if (Ends("iz")) SetTo("ize");
      else if (DoubleC(k_)) {
        --k_;
        char ch = b_[k_];
        if (ch == 'l' || ch == 's' || ch == 'z') ++k_;
      } else if (M() == 1 && Cvc(k_)) { j_ = k_; SetTo("e"); }
    }
    b_.resize(k_ + 1);
  }
  void Step1c() { if (Ends("y") && VowelInStem()) b_[k_] = 'i'; }
  void Step2() {
    if (k_ < 1) return;
    switch (b_[k_ - 1]) {
      case 'a': if (Ends("ational")) { R("ate"); break; } if (Ends("tional")) { R("tion"); break; } break;
      case 'c': if (Ends("enci")) { R("ence"); break; } if (Ends("anci")) { R("ance"); break; } break;
      case 'e': if (Ends("izer")) { R("ize"); break; } break;
      case 'l': if (Ends("bli")) { R("ble"); break; } if (Ends("alli")) { R("al"); break; }
                if (Ends("entli")) { R("ent"); break; } if (Ends("eli")) { R("e"); break; }
                if (Ends("ousli")) { R("ous"); break; } break;
      case 'o': if (Ends("ization")) { R("ize"); break; } if (Ends("ation")) { R("ate"); break; }
                if (Ends("ator")) { R("ate"); break; } break;
      case 's': if (Ends("alism")) { R("al"); break; } if (Ends("iveness")) { R("ive"); break; }
                if (Ends("fulness")) { R("ful"); break; } if (Ends("ousness")) { R("ous"); break; } break;
      case 't': if (Ends("aliti")) { R("al"); break; } if (Ends("iviti")) { R("ive"); break; }
                if (Ends("biliti")) { R("ble"); break; } break;
      case 'g': if (Ends("logi")) { R("log"); break; } break;
    }
  }
  void Step3() {
    switch (b_[k_]) {
      case 'e': if (Ends("icate")) { R("ic"); break; } if (Ends("ative")) { R(""); break; }
                if (Ends("alize")) { R("al"); break; } break;
      case 'i': if (Ends("iciti")) { R("ic"); break; } break;
      case 'l': if (Ends("ical")) { R("ic"); break; } if (Ends("ful")) { R(""); break; } break;
      case 's': if (Ends("ness")) { R(""); break; } break;
    }
  }
  void Step4() {
    if (k_ < 1) return;
    switch (b_[k_ - 1]) {
      case 'a': if (Ends("al")) break; return;
      case 'c': if (Ends("ance")) break; if (Ends("ence")) break; return;
      case 'e': if (Ends("er")) break; return;
      case 'i': if (Ends("ic")) break; return;
      case 'l': if (Ends("able")) break; if (Ends("ible")) break; return;
      case 'n':
        if (Ends("ant") || Ends("ement") || Ends("ment") || Ends("ent")) break;
        return;
      case 'o':
        if (Ends("ion") && j_ >= 0 && (b_[j_] == 's' || b_[j_] == 't')) break;
        if (Ends("ou")) break;
        return;
      case 's': if (Ends("ism")) break; return;
      case 't': if (Ends("ate")) break; if (Ends("iti")) break; return;
      case 'u': if (Ends("ous")) break; return;
      case 'v': if (Ends("ive")) break; return;
      case 'z': if (Ends("ize")) break; return;
      default: return;
    }
    if (M() > 1) { k_ = j_; b_.resize(k_ + 1); }
  }
  void Step5() {
    j_ = k_;
    if (b_[k_] == 'e') {
      int a = M();
      if (a > 1 || (a == 1 && !Cvc(k_ - 1))) --k_;
    }
    if (b_[k_] == 'l' && DoubleC(k_) && M() > 1) --k_;
    b_.resize(k_ + 1);
  }

  std::string b_;
  int k_ = 0, j_ = 0;
};

}  // namespace

std::string Stem(std::string_view w) {
  for (char c : w) if (c < 'a' || c > 'z') return std::string(w);
  return Porter(std::string(w)).Run();
}

std::vector<std::string> ContentTerms(std::string_view s) {
  std::vector<std::string> out;
  for (auto& t : Tokenize(s)) {
    if (IsStopWord(t)) continue;
    out.push_back(Stem(t));
  }
  return out;
}

std::set<std::string> ContentTermSet(std::string_view s) {
  std::vector<std::string> t = ContentTerms(s);
  return std::set<std::string>(t.begin(), t.end());
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

size_t CountWhitespaceTokens(std::string_view s) {
  size_t n = 0;
  bool in = false;
  for (char c : s) {
    bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!ws && !in) ++n;
    in = !ws;
  }
  return n;
}

}  // namespace ontomem::text
