#include "extract/features.h"

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <unordered_set>

#include "text/text.h"

namespace ontomem::extract {
namespace {

// ------------------------------------------------------------------ hashing
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

inline uint64_t Mix(uint64_t h, std::string_view s) {
  for (unsigned char c : s) { h ^= c; h *= kFnvPrime; }
  return h;
}
inline uint64_t MixInt(uint64_t h, int64_t v) {
  for (int i = 0; i < 8; ++i) { h ^= static_cast<uint64_t>(v >> (8 * i)) & 0xff; h *= kFnvPrime; }
  return h;
}
inline uint32_t Final(uint64_t h) {
  h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33;
  return static_cast<uint32_t>(h);
}

// Feature templates (ids are part of the model: append only).
enum Tmpl : int {
  kBias = 1, kW, kStem, kShape, kPre3, kSuf3, kSuf2, kCap, kClus, kLex, kGaz, kWm1, kWm2, kWp1, kWp2,
  kClm1, kClp1, kBigL, kBigR, kShapeBig, kFirst, kCue, kCueDist, kAfterMy, kSpeaker, kPrevLab, kPrevLabW,
  kStemm1, kStemp1, kNeg, kFirstPerson, kPunctNext, kLexm1,
  // relation templates
  kRBias = 100, kRTailW, kRTailHead, kRTailClus, kRTailShape, kRTailLen, kRLeft, kRLeftBag, kRLeftStem,
  kRRight, kRNeg, kRQuestion, kRHolder, kRSentFirst, kRFirstPerson, kRCueTail, kRTailLex, kRTailGaz,
  kRClauseBag, kRNegCue, kRPast, kRHypo, kRHolderW, kRTailLexHead, kRLeftClus, kRRightBag,
  kRPolarity, kRPolNeg, kRRightClus, kRRightStem, kRClauseClus,
  kRStance, kRStanceWord, kROpenNeg, kRGroup, kRStanceRel,
  // layout 3: clause-scoped modality cues, change constructions, name and noun-position cues
  kRClauseCue, kRCond, kRChangePrep, kRChangeVerbPrep, kRAfterMark, kNameNext, kNpEnd,
};

class Emitter {
 public:
  explicit Emitter(std::vector<uint32_t>* out) : out_(out) {}
  void F(int t) { out_->push_back(Final(MixInt(kFnvOffset, t))); }
  void F(int t, std::string_view a) { out_->push_back(Final(Mix(MixInt(kFnvOffset, t), a))); }
  void F(int t, std::string_view a, std::string_view b) {
    uint64_t h = Mix(MixInt(kFnvOffset, t), a);
    h ^= 0x1f; h *= kFnvPrime;
    out_->push_back(Final(Mix(h, b)));
  }
  void F(int t, int64_t v) { out_->push_back(Final(MixInt(MixInt(kFnvOffset, t), v))); }
  void F(int t, std::string_view a, int64_t v) { out_->push_back(Final(MixInt(Mix(MixInt(kFnvOffset, t), a), v))); }

 private:
  std::vector<uint32_t>* out_;
};

const std::unordered_set<std::string_view>& NegationWords() {
  static const std::unordered_set<std::string_view> s = {"not", "n't", "never", "no", "nothing", "nobody",
                                                         "none", "nor", "cannot", "neither", "without"};
  return s;
}
const std::unordered_set<std::string_view>& FirstPerson() {
  static const std::unordered_set<std::string_view> s = {"i", "my", "me", "mine", "myself", "we", "our", "us", "'m"};
  return s;
}
// Words that typically announce a fact's tail (used for the cue-distance feature).
const std::unordered_set<std::string_view>& CueWords() {
  static const std::unordered_set<std::string_view> s = {
      "love", "loves", "loved", "like", "likes", "liked", "enjoy", "enjoys", "enjoyed", "adore", "hate",
      "hates", "hated", "dislike", "stand", "allergic", "allergy", "intolerant", "diet", "vegan",
      "vegetarian", "use", "uses", "using", "own", "owns", "have", "has", "got", "live", "lives", "living",
      "moved", "work", "works", "working", "job", "want", "wants", "wanna", "hope", "plan", "dream",
      "believe", "believes", "faith", "avoid", "avoids", "fan", "obsessed", "into", "favourite", "favorite",
      "swear", "rely", "named", "called", "pet", "dog", "cat", "sister", "brother", "mom", "mum", "dad",
      "friend", "diagnosed", "suffer", "try", "tried", "about", "of", "at", "as", "in", "from", "with", "to"};
  return s;
}
const std::unordered_set<std::string_view>& PastCues() {
  static const std::unordered_set<std::string_view> s = {"used", "anymore", "longer", "ago", "once", "was",
                                                         "were", "phase", "back", "grown", "outgrew", "over",
                                                         "teenager", "uni", "stopped", "quit", "gave"};
  return s;
}
const std::unordered_set<std::string_view>& HypoCues() {
  static const std::unordered_set<std::string_view> s = {"if", "would", "'d", "might", "maybe", "perhaps",
                                                         "wonder", "someday", "sometime", "could", "curious",
                                                         "imagine", "hypothetically", "whether", "should"};
  return s;
}
}  // namespace

int Polarity(std::string_view w) {
  static const std::unordered_set<std::string_view> pos = {
      "love", "loves", "loved", "loving", "enjoy", "enjoys", "enjoyed", "adore", "adores", "like", "likes", "fan",
      "favorite", "favourite", "best", "great", "amazing", "awesome", "obsessed", "passion", "passionate", "happy",
      "fun", "wonderful", "fantastic", "perfect", "brilliant", "excellent", "lovely", "hooked", "crazy", "swear",
      "beautiful", "nice", "good", "cool", "incredible", "glad", "excited", "delicious", "tasty", "proud", "cherish",
      "prefer", "rave", "raves", "rates", "winner", "wins", "treasure", "thrilled", "into", "addicted", "fond"};
  static const std::unordered_set<std::string_view> neg = {
      "hate", "hates", "hated", "dislike", "dislikes", "stand", "awful", "terrible", "horrible", "worst",
      "miserable", "struggle", "annoying", "annoys", "disgusting", "gross", "bored", "boring", "letdown",
      "disappointed", "disappointing", "waste", "regret", "regretted", "meh", "sick", "ruin", "ruins",
      "nightmare", "dread", "scared", "afraid", "fear", "sucks", "bad", "nasty", "irritating", "painful",
      "cope", "unbearable", "overrated", "miss", "loathe", "detest", "avoid", "hated", "off", "cringe"};
  if (pos.count(w)) return 1;
  if (neg.count(w)) return -1;
  return 0;
}

namespace {

const std::unordered_set<std::string_view>& ClauseBreakWords() {
  static const std::unordered_set<std::string_view> s = {"but", "though", "although", "however", "because",
                                                         "so", "and", "while", "whereas"};
  return s;
}

std::string Shape(std::string_view w) {
  std::string s;
  for (unsigned char c : w) {
    char k = std::isupper(c) ? 'X' : std::islower(c) ? 'x' : std::isdigit(c) ? 'd' : c >= 0x80 ? 'u' : static_cast<char>(c);
    if (s.empty() || s.back() != k) s.push_back(k);
    if (s.size() >= 6) break;
  }
  return s;
}

std::string_view Prefix(std::string_view s, size_t n) { return s.substr(0, std::min(n, s.size())); }
std::string_view Suffix(std::string_view s, size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

std::string_view WordAt(const Prepared& p, int i) {
  if (i < 0) return "<s>";
  if (i >= static_cast<int>(p.tokens.size())) return "</s>";
  return p.tokens[static_cast<size_t>(i)].lower;
}
int ClusterAt(const Prepared& p, int i) {
  if (i < 0 || i >= static_cast<int>(p.tokens.size())) return -2;
  return p.info[static_cast<size_t>(i)].cluster;
}

int Bucket(int d) { return d <= 0 ? 0 : d == 1 ? 1 : d == 2 ? 2 : d <= 4 ? 3 : d <= 8 ? 4 : 5; }

// ------------------------------------------------------------------ stance
// Stance lexicon (hand-written, general). kSPos/kSNeg count anywhere; kNegOnly words count only
// under a negation, with the given polarity before reversal ("can't stand" -> -1 from +1,
// "wouldn't miss" -> +1 from -1): unnegated they are mostly not opinions ("stand-up", "I miss").
enum StanceKind : int8_t { kNoStance = 0, kSPos, kSNeg, kSNegOnlyPos, kSNegOnlyNeg };

StanceKind StanceOf(std::string_view w, const char** key) {
  static const std::unordered_map<std::string_view, StanceKind> m = [] {
    std::unordered_map<std::string_view, StanceKind> r;
    for (const char* w : {"love", "loves", "loved", "loving", "enjoy", "enjoys", "enjoyed", "enjoying", "adore",
                          "adores", "adored", "fan", "fans", "favorite", "favourite", "favorites", "favourites", "best",
                          "great", "amazing", "awesome", "obsessed", "passion", "passionate", "fun", "wonderful",
                          "fantastic", "perfect", "brilliant", "excellent", "lovely", "hooked", "beautiful", "nice",
                          "good", "cool", "incredible", "delicious", "tasty", "prefer", "prefers", "addicted", "fond",
                          "care", "cares", "appeal", "appeals", "appealed", "swear", "swears", "rave", "raves",
                          "treasure", "cherish", "happy", "happier", "glad", "excited", "relaxing", "joy", "keen",
                          "crazy", "mad", "like", "likes", "liked", "liking", "into", "thing", "cup", "worth", "hype",
                          "recommend", "comfort"})
      r.emplace(w, kSPos);
    for (const char* w : {"hate", "hates", "hated", "hating", "dislike", "dislikes", "disliked", "awful", "terrible",
                          "horrible", "worst", "miserable", "annoying", "annoys", "annoyed", "disgusting", "gross",
                          "bored", "boring", "bores", "letdown", "disappointed", "disappointing", "disappoint",
                          "disappoints", "waste", "regret", "regretted", "meh", "sick", "ruin", "ruins", "ruined",
                          "nightmare", "dread", "scared", "afraid", "fear", "sucks", "bad", "nasty", "irritating",
                          "painful", "unbearable", "overrated", "loathe", "loathes", "detest", "detests", "cringe",
                          "tired", "exhausting", "fail", "fails", "failed", "dealbreaker", "annoyance", "awkward",
                          "struggle", "struggles", "struggled"})
      r.emplace(w, kSNeg);
    for (const char* w : {"stand", "bear", "stomach", "tolerate", "cope", "coped", "handle", "deal"})
      r.emplace(w, kSNegOnlyPos);
    for (const char* w : {"mind", "miss", "missed", "resist", "skip", "skipped", "complain", "beat", "beats", "top",
                          "tops"})
      r.emplace(w, kSNegOnlyNeg);
    return r;
  }();
  auto it = m.find(w);
  if (it == m.end()) return kNoStance;
  *key = it->first.data();  // a string literal: outlives the tokens
  return it->second;
}

bool IsNegator(std::string_view w) {
  return w == "not" || w == "n't" || w == "never" || w == "no" || w == "nothing" || w == "nobody" ||
         w == "none" || w == "nor" || w == "cannot" || w == "neither" || w == "without" || w == "hardly" ||
         w == "barely";
}
bool IsStanceBreak(std::string_view w) {
  return w == "but" || w == "though" || w == "although" || w == "however" || w == "whereas" || w == "while" ||
         w == "except" || w == ";";
}
bool IsSentenceEnd(const Token& t) {
  return t.punct && (t.text == "." || t.text == "!" || t.text == "?");
}
bool IsScopeBarrier(const Token& t) {
  return (t.punct && t.text != "'" && t.text != "-") || t.lower == "and" || IsStanceBreak(t.lower);
}

// Multi-word stance phrases starting at token j: key, polarity kind and tokens consumed.
struct Phrase {
  const char* key = nullptr;
  StanceKind kind = kNoStance;
  int len = 1;
};
Phrase PhraseAt(const std::vector<Token>& t, int j, int hi) {
  auto w = [&](int k) -> std::string_view { return k < hi ? std::string_view(t[static_cast<size_t>(k)].lower) : ""; };
  const std::string_view a = w(j);
  // "let me down", "lets us down"
  if (a == "let" || a == "lets" || a == "letting")
    for (int k = j + 1; k <= j + 3 && k < hi; ++k)
      if (w(k) == "down") return {"let_down", kSNeg, k - j + 1};
  // "get enough of"
  if ((a == "get" || a == "gets" || a == "got" || a == "getting") && (w(j + 1) == "enough" || w(j + 2) == "enough"))
    return {"get_enough", kSNegOnlyNeg, w(j + 1) == "enough" ? 2 : 3};
  if ((a == "get" || a == "gets" || a == "getting" || a == "grow" || a == "grows") && w(j + 1) == "old")
    return {"gets_old", kSNeg, 2};
  if ((a == "live" || a == "living" || a == "do" || a == "manage") && w(j + 1) == "without")
    return {"live_without", kSNegOnlyNeg, 2};
  if ((a == "go" || a == "goes" || a == "went" || a == "gone") && w(j + 1) == "wrong") return {"go_wrong", kSNeg, 2};
  if ((a == "give" || a == "gave" || a == "giving") && w(j + 1) == "up") return {"give_up", kSNegOnlyNeg, 2};
  if ((a == "say" || a == "said" || a == "turn" || a == "turned") && (w(j + 1) == "no" || w(j + 1) == "down"))
    return {"say_no", kSNegOnlyNeg, 2};
  if (a == "wait" && w(j + 1) == "for") return {"wait_for", kSNegOnlyNeg, 1};
  if (a == "thing" || a == "cup") {
    // Only "my thing", "my cup of tea" are opinions.
    if (j > 0 && (t[static_cast<size_t>(j - 1)].lower == "my" || t[static_cast<size_t>(j - 1)].lower == "our"))
      return {"my_thing", kSPos, 1};
    return {};
  }
  if (a == "into" || a == "like" || a == "likes" || a == "crazy" || a == "mad" || a == "worth") {
    // "into"/"crazy about" as a stance only after a copula or an intensifier; "like" not as a
    // preposition ("feel like", "looks like").
    const std::string_view prev = j > 0 ? std::string_view(t[static_cast<size_t>(j - 1)].lower) : "";
    if (a == "like" || a == "likes") {
      static const std::unordered_set<std::string_view> prep = {"feel", "feels", "felt", "look", "looks", "looked",
                                                                "sound", "sounds", "seem", "seems", "more",
                                                                "something", "anything", "is", "was", "'s", "things",
                                                                "stuff", "much", "be", "exactly"};
      if (prep.count(prev)) return {};
      return {"like", kSPos, 1};
    }
    // "for what it's worth" hedges a remark; it is no stance.
    if (a == "worth" && j >= 2 && t[static_cast<size_t>(j - 2)].lower == "it" && (prev == "'s" || prev == "is"))
      return {};
    if (a == "worth") return {"worth", kSPos, 1};
    static const std::unordered_set<std::string_view> cop = {"'m", "am", "are", "'re", "is", "'s", "was", "were",
                                                             "been", "be", "really", "so", "totally", "big", "very",
                                                             "super", "quite", "that", "too", "much"};
    if (!cop.count(prev)) return {};
    return {a == "into" ? "into" : "crazy_about", kSPos, 1};
  }
  const char* key = nullptr;
  const StanceKind k = StanceOf(a, &key);
  if (k == kNoStance) return {};
  return {key, k, 1};
}

}  // namespace

Stance AnalyseStance(const std::vector<Token>& t, int begin, int end) {
  Stance s;
  const int n = static_cast<int>(t.size());
  if (begin < 0 || end > n || begin >= end) return s;
  // The tail's sentence, cut at clause breaks ("but", "though", ...).
  int lo = begin, hi = end;
  while (lo > 0 && !IsSentenceEnd(t[static_cast<size_t>(lo - 1)]) && !IsStanceBreak(t[static_cast<size_t>(lo - 1)].lower)) --lo;
  while (hi < n && !IsSentenceEnd(t[static_cast<size_t>(hi)]) && !IsStanceBreak(t[static_cast<size_t>(hi)].lower)) ++hi;
  int pending = -1;  // unconsumed negator position
  std::array<int, 8> open{};
  int n_open = 0;
  auto close_pending = [&] {
    if (pending >= 0 && n_open < 8) open[static_cast<size_t>(n_open++)] = pending;
    pending = -1;
  };
  for (int j = lo; j < hi;) {
    if (j >= begin && j < end) { ++j; continue; }  // the tail is neither stance nor negation
    const Token& tok = t[static_cast<size_t>(j)];
    if (IsScopeBarrier(tok)) { close_pending(); ++j; continue; }
    const std::string_view w = tok.lower;
    // "nothing beats", "nobody does it better": a comparison, not a negation.
    if ((w == "nothing" || w == "nobody" || w == "none") && j + 1 < hi) {
      const std::string_view nx = t[static_cast<size_t>(j + 1)].lower;
      if (nx == "beats" || nx == "beat" || nx == "compares" || nx == "tops" || nx == "better" || nx == "like" ||
          nx == "else" || nx == "comes") {
        close_pending();
        ++s.positive;
        if (s.num_words < 4) { s.words[static_cast<size_t>(s.num_words)] = "nothing_beats"; s.signs[static_cast<size_t>(s.num_words++)] = 1; }
        j += 2;
        continue;
      }
    }
    // "not only", "no longer", "not sure", "no idea": not negations of a fact.
    if ((w == "not" && j + 1 < hi && (t[static_cast<size_t>(j + 1)].lower == "only" || t[static_cast<size_t>(j + 1)].lower == "sure")) ||
        (w == "no" && j + 1 < hi && (t[static_cast<size_t>(j + 1)].lower == "longer" || t[static_cast<size_t>(j + 1)].lower == "idea" || t[static_cast<size_t>(j + 1)].lower == "doubt"))) {
      close_pending();
      j += 2;
      continue;
    }
    const Phrase ph = PhraseAt(t, j, hi);
    if (ph.kind != kNoStance) {
      // Negated when an unconsumed negator is at most 4 non-tail tokens back.
      bool negated = false;
      if (pending >= 0) {
        int d = 0;
        for (int k = pending + 1; k < j; ++k) d += !(k >= begin && k < end);
        if (begin > pending && begin < j) d += 1;  // the tail counts as one word
        negated = d <= 3;
        if (negated) pending = -1;
      }
      int pol = 0;
      if (ph.kind == kSPos) pol = 1;
      else if (ph.kind == kSNeg) pol = -1;
      else if (negated) pol = ph.kind == kSNegOnlyPos ? 1 : -1;
      if (pol != 0) {
        if (negated) { pol = -pol; ++s.flipped; }
        (pol > 0 ? s.positive : s.negative)++;
        if (s.num_words < 4) { s.words[static_cast<size_t>(s.num_words)] = ph.key; s.signs[static_cast<size_t>(s.num_words++)] = pol; }
      }
      j += ph.len;
      continue;
    }
    if (IsNegator(w)) {
      close_pending();
      pending = j;
    } else if (pending >= 0 && j - pending > 6) {
      close_pending();
    }
    ++j;
  }
  close_pending();
  // The nearest open negation before the tail, with no barrier in between.
  for (int k = n_open - 1; k >= 0; --k) {
    const int at = open[static_cast<size_t>(k)];
    if (at >= begin) continue;
    bool blocked = false;
    for (int i = at + 1; i < begin; ++i) blocked |= IsScopeBarrier(t[static_cast<size_t>(i)]);
    if (!blocked && begin - at - 1 <= 6) { s.open_negation = begin - at - 1; break; }
  }
  return s;
}

int RelationIndex(std::string_view id) {
  for (int i = 0; i < kNumRelations; ++i)
    if (id == kRelationIds[static_cast<size_t>(i)]) return i;
  return -1;
}

int ClusterTable::Find(std::string_view w) const {
  auto it = map_.find(w);
  return it == map_.end() ? -1 : it->second.cluster;
}

const std::string& ClusterTable::Lexname(std::string_view w) const {
  static const std::string kEmpty;
  auto it = map_.find(w);
  if (it == map_.end() || it->second.lex < 0) return kEmpty;
  return lexnames_[static_cast<size_t>(it->second.lex)];
}

void ClusterTable::Set(const std::string& word, int cluster) { map_[word].cluster = static_cast<int16_t>(cluster); }

void ClusterTable::SetLexname(const std::string& word, const std::string& lexname) {
  if (lexname.empty()) return;
  auto it = std::find(lexnames_.begin(), lexnames_.end(), lexname);
  if (it == lexnames_.end()) it = lexnames_.insert(lexnames_.end(), lexname);
  map_[word].lex = static_cast<int16_t>(it - lexnames_.begin());
}

void ClusterTable::Write(BlobWriter* w) const {
  w->Pod<int32_t>(k_);
  w->Str(sources_);
  w->Pod<uint32_t>(static_cast<uint32_t>(lexnames_.size()));
  for (const auto& l : lexnames_) w->Str(l);
  std::vector<std::pair<std::string, Entry>> items(map_.begin(), map_.end());
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  w->Pod<uint64_t>(items.size());
  for (const auto& [word, e] : items) {
    w->Str(word);
    w->Pod<int16_t>(e.cluster);
    w->Pod<int16_t>(e.lex);
  }
}

bool ClusterTable::Read(BlobReader* r) {
  int32_t k = 0;
  uint32_t nl = 0;
  uint64_t n = 0;
  if (!r->Pod(&k) || !r->Str(&sources_) || !r->Pod(&nl) || nl > 1000) return false;
  k_ = k;
  lexnames_.assign(nl, "");
  for (auto& l : lexnames_) if (!r->Str(&l)) return false;
  if (!r->Pod(&n) || n > 10'000'000) return false;
  map_.clear();
  map_.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    std::string w;
    Entry e;
    if (!r->Str(&w) || !r->Pod(&e.cluster) || !r->Pod(&e.lex)) return false;
    if (e.lex >= static_cast<int16_t>(nl)) return false;
    map_.emplace(std::move(w), e);
  }
  return true;
}

Prepared Prepare(std::string_view text, std::string_view speaker, const ClusterTable& clusters,
                 const FeatureResources& res) {
  Prepared p;
  p.tokens = TokenizeWithOffsets(text);
  const size_t n = p.tokens.size();
  p.info.resize(n);
  std::string speaker_lower;
  for (char c : speaker) speaker_lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  int sentence = 0, clause = 0;
  for (size_t i = 0; i < n; ++i) {
    const Token& t = p.tokens[i];
    TokenInfo& in = p.info[i];
    in.sentence = sentence;
    in.clause = clause;
    if (t.punct) {
      in.shape = t.text;
      const char c = t.text[0];
      if (c == '.' || c == '!' || c == '?') {
        if (p.question_sentence.size() <= static_cast<size_t>(sentence)) p.question_sentence.resize(static_cast<size_t>(sentence) + 1, false);
        if (c == '?') p.question_sentence[static_cast<size_t>(sentence)] = true;
        ++sentence;
        ++clause;
      } else if (c == ',' || c == ';' || c == ':' || c == '-' || c == '(' || c == ')') {
        ++clause;
      }
      continue;
    }
    if (ClauseBreakWords().count(t.lower)) { ++clause; in.clause = clause; }
    in.stem = text::Stem(t.lower);
    in.shape = Shape(t.text);
    in.cap = std::isupper(static_cast<unsigned char>(t.text[0])) != 0;
    in.cluster = clusters.Find(t.lower);
    in.negation = NegationWords().count(t.lower) > 0;
    in.first_person = FirstPerson().count(t.lower) > 0;
    in.speaker_name = !speaker_lower.empty() && t.lower == speaker_lower;
    in.lexname = clusters.Lexname(t.lower);
    if (in.lexname.empty() && res.lexname && !text::IsStopWord(t.lower)) in.lexname = res.lexname(t.lower);
  }
  p.question_sentence.resize(static_cast<size_t>(sentence) + 1, false);
  if (res.gazetteer) {
    // Longest match first, up to 5 tokens, no punctuation inside.
    for (size_t i = 0; i < n;) {
      size_t matched = 0;
      std::string type;
      const bool may_start = !res.gazetteer_may_start || res.gazetteer_may_start(p.tokens[i].lower);
      for (size_t len = may_start ? std::min<size_t>(5, n - i) : 0; len >= 1 && !matched; --len) {
        bool ok = true;
        for (size_t k = i; k < i + len; ++k) ok &= !p.tokens[k].punct;
        if (!ok) continue;
        std::string phrase;
        for (size_t k = i; k < i + len; ++k) {
          if (k > i) phrase.push_back(' ');
          phrase += p.tokens[k].lower;
        }
        if (len == 1 && text::IsStopWord(phrase)) continue;
        type = res.gazetteer(phrase);
        if (!type.empty()) matched = len;
      }
      if (matched) {
        for (size_t k = i; k < i + matched; ++k) p.info[k].gaz = (k == i ? "B-" : "I-") + type;
        i += matched;
      } else {
        ++i;
      }
    }
  }
  return p;
}

void TaggerFeatures(const Prepared& p, int i, std::vector<uint32_t>* out) {
  Emitter e(out);
  const Token& t = p.tokens[static_cast<size_t>(i)];
  const TokenInfo& in = p.info[static_cast<size_t>(i)];
  e.F(kBias);
  e.F(kW, t.lower);
  e.F(kStem, in.stem);
  e.F(kShape, in.shape);
  e.F(kPre3, Prefix(t.lower, 3));
  e.F(kSuf3, Suffix(t.lower, 3));
  e.F(kSuf2, Suffix(t.lower, 2));
  e.F(kCap, static_cast<int64_t>(in.cap) * 2 + (i == 0 || (i > 0 && p.info[static_cast<size_t>(i - 1)].sentence != in.sentence)));
  e.F(kClus, in.cluster);
  if (!in.lexname.empty()) e.F(kLex, in.lexname);
  if (!in.gaz.empty()) e.F(kGaz, in.gaz);
  e.F(kWm1, WordAt(p, i - 1));
  e.F(kWm2, WordAt(p, i - 2));
  e.F(kWp1, WordAt(p, i + 1));
  e.F(kWp2, WordAt(p, i + 2));
  e.F(kClm1, ClusterAt(p, i - 1));
  e.F(kClp1, ClusterAt(p, i + 1));
  e.F(kBigL, WordAt(p, i - 1), t.lower);
  e.F(kBigR, t.lower, WordAt(p, i + 1));
  if (i > 0) e.F(kShapeBig, p.info[static_cast<size_t>(i - 1)].shape, in.shape);
  if (i > 0) e.F(kStemm1, p.info[static_cast<size_t>(i - 1)].stem);
  if (i + 1 < static_cast<int>(p.tokens.size())) e.F(kStemp1, p.info[static_cast<size_t>(i + 1)].stem);
  if (i > 0 && !p.info[static_cast<size_t>(i - 1)].lexname.empty()) e.F(kLexm1, p.info[static_cast<size_t>(i - 1)].lexname);
  // Nearest cue word before the token in the same sentence.
  for (int j = i - 1, d = 1; j >= 0 && d <= 8; --j, ++d) {
    if (p.info[static_cast<size_t>(j)].sentence != in.sentence) break;
    if (CueWords().count(p.tokens[static_cast<size_t>(j)].lower)) {
      e.F(kCue, p.tokens[static_cast<size_t>(j)].lower);
      e.F(kCueDist, p.tokens[static_cast<size_t>(j)].lower, Bucket(d));
      break;
    }
  }
  if (i > 0 && (WordAt(p, i - 1) == "my" || WordAt(p, i - 2) == "my")) e.F(kAfterMy, WordAt(p, i - 1) == "my" ? 1 : 2);
  if (in.speaker_name) e.F(kSpeaker);
  bool neg = false, fp = false;
  for (int j = i - 1; j >= 0 && j >= i - 6; --j) {
    if (p.info[static_cast<size_t>(j)].clause != in.clause) break;
    neg |= p.info[static_cast<size_t>(j)].negation;
    fp |= p.info[static_cast<size_t>(j)].first_person;
  }
  if (neg) e.F(kNeg);
  if (fp) e.F(kFirstPerson);
  if (i + 1 < static_cast<int>(p.tokens.size()) && p.tokens[static_cast<size_t>(i + 1)].punct)
    e.F(kPunctNext, p.tokens[static_cast<size_t>(i + 1)].text);
  // A capitalised word with the word after it ("Sarah loves", "Tom can't"): names as holders
  // whatever the name.
  if (in.cap && !text::IsStopWord(t.lower)) e.F(kNameNext, WordAt(p, i + 1));
  // Last word of a determiner phrase ("buy a convertible,"): a noun position, whatever the
  // word's most frequent sense.
  if (i > 0) {
    static const std::unordered_set<std::string_view> det = {"a", "an", "the", "my", "our", "his", "her",
                                                             "their", "your", "this", "that", "some", "new", "old"};
    const bool after_det = det.count(WordAt(p, i - 1)) > 0;
    const bool at_end = i + 1 >= static_cast<int>(p.tokens.size()) || p.tokens[static_cast<size_t>(i + 1)].punct ||
                        text::IsStopWord(p.tokens[static_cast<size_t>(i + 1)].lower);
    if (after_det && at_end) e.F(kNpEnd, WordAt(p, i - 2));
  }
}

void TaggerDynamicFeatures(const Prepared& p, int i, int prev_label, std::vector<uint32_t>* out) {
  Emitter e(out);
  e.F(kPrevLab, prev_label);
  e.F(kPrevLabW, p.tokens[static_cast<size_t>(i)].lower, prev_label);
}

namespace {

// ------------------------------------------------------------------ modality scope
// Time and condition cues scoped by clause, so that in "I used to love X but these days I'm into
// Y" only X is past, in "I've switched from X to Y" X is the old value, and in "If I ever buy a
// Z, ..." Z (and the consequent clause) is hypothetical.
bool IsNowCue(std::string_view w) {
  return w == "now" || w == "nowadays" || w == "currently" || w == "lately" || w == "days" || w == "instead";
}
bool IsConditional(std::string_view w) { return w == "if" || w == "unless" || w == "whenever"; }
bool IsModalFuture(std::string_view w) {
  return w == "would" || w == "'d" || w == "'ll" || w == "will" || w == "could" || w == "might" || w == "may";
}
// Verbs and markers of a change of preference or state.
bool IsChangeWord(std::string_view w) {
  static const std::unordered_set<std::string_view> s = {
      "switch", "switched", "switching", "change", "changed", "changing", "swap", "swapped", "swapping", "trade",
      "traded", "trading", "replace", "replaced", "replacing", "drop", "dropped", "dropping", "ditch", "ditched",
      "upgrade", "upgraded", "convert", "converted", "instead", "rather", "anymore", "longer", "stopped",
      "quit", "outgrew", "favour", "favor"};
  return s.count(w) > 0;
}
bool IsChangePrep(std::string_view w) {
  return w == "from" || w == "to" || w == "with" || w == "for" || w == "of" || w == "than" || w == "over" ||
         w == "by";
}

}  // namespace

void RelationFeatures(const Prepared& p, const SpanRef& c, std::vector<uint32_t>* out) {
  Emitter e(out);
  const int n = static_cast<int>(p.tokens.size());
  const TokenInfo& first = p.info[static_cast<size_t>(c.begin)];
  const int sent = first.sentence;
  const int last = c.end - 1;
  e.F(kRBias);
  for (int i = c.begin; i < c.end; ++i) {
    e.F(kRTailW, p.tokens[static_cast<size_t>(i)].lower);
    e.F(kRTailClus, p.info[static_cast<size_t>(i)].cluster);
  }
  e.F(kRTailHead, p.tokens[static_cast<size_t>(last)].lower);
  e.F(kRTailHead, p.info[static_cast<size_t>(last)].stem);
  if (!p.info[static_cast<size_t>(last)].lexname.empty()) {
    e.F(kRTailLex, p.info[static_cast<size_t>(last)].lexname);
  }
  if (!first.gaz.empty()) e.F(kRTailGaz, first.gaz.substr(2));
  e.F(kRTailShape, first.shape);
  e.F(kRTailLen, std::min(c.end - c.begin, 5));
  // Left context within the sentence.
  bool neg = false, past = false, hypo = false;
  int cue_seen = 0;
  for (int j = c.begin - 1, d = 1; j >= 0; --j, ++d) {
    const TokenInfo& in = p.info[static_cast<size_t>(j)];
    if (in.sentence != sent) break;
    const std::string& w = p.tokens[static_cast<size_t>(j)].lower;
    if (d <= 3) {
      e.F(kRLeft, w, d);
      e.F(kRLeftClus, static_cast<int64_t>(in.cluster) * 16 + d);
    }
    if (d <= 10) {
      e.F(kRLeftBag, w);
      if (!in.stem.empty()) e.F(kRLeftStem, in.stem);
    }
    if (in.clause == first.clause || d <= 4) neg |= in.negation;
    if (in.clause == first.clause && !in.stem.empty()) e.F(kRClauseBag, in.stem);
    if (cue_seen < 2 && CueWords().count(w) && w.size() > 3) {
      e.F(kRCueTail, w, p.tokens[static_cast<size_t>(last)].lower);
      ++cue_seen;
    }
  }
  // Whole-sentence cues.
  bool fp = false;
  std::string_view sent_first;
  for (int j = 0; j < n; ++j) {
    const TokenInfo& in = p.info[static_cast<size_t>(j)];
    if (in.sentence != sent) continue;
    const std::string& w = p.tokens[static_cast<size_t>(j)].lower;
    if (sent_first.empty() && !p.tokens[static_cast<size_t>(j)].punct) sent_first = w;
    past |= PastCues().count(w) > 0 || (w == "used" && j + 1 < n && p.tokens[static_cast<size_t>(j + 1)].lower == "to");
    hypo |= HypoCues().count(w) > 0;
    fp |= in.first_person;
    if (j >= c.end && j < c.end + 8) e.F(kRRightBag, w);
  }
  for (int j = c.end, d = 1; j < n && d <= 2; ++j, ++d) e.F(kRRight, p.tokens[static_cast<size_t>(j)].lower, d);
  // Right context (cue after the tail: "{x} make me miserable") and opinion polarity.
  int pol_left = 0, pol_right = 0;
  bool neg_any = false;
  for (int j = 0; j < n; ++j) {
    const TokenInfo& in = p.info[static_cast<size_t>(j)];
    if (in.sentence != sent || (j >= c.begin && j < c.end)) continue;
    const std::string& w = p.tokens[static_cast<size_t>(j)].lower;
    neg_any |= in.negation;
    const int pol = Polarity(w);
    if (j < c.begin) pol_left += pol;
    else pol_right += pol;
    if (j >= c.end && j < c.end + 6) {
      e.F(kRRightClus, in.cluster);
      if (!in.stem.empty()) e.F(kRRightStem, in.stem);
    }
    if (in.clause == first.clause || std::abs(j - c.begin) <= 6) e.F(kRClauseClus, in.cluster);
  }
  e.F(kRPolarity, std::clamp(pol_left, -2, 2) * 8 + std::clamp(pol_right, -2, 2));
  e.F(kRPolNeg, (pol_left + pol_right > 0 ? 1 : pol_left + pol_right < 0 ? 2 : 0) * 2 + (neg_any ? 1 : 0));
  e.F(kRNeg, neg ? 1 : 0);
  // Composed stance: polarity after negation scope ("never lets me down" is positive) and
  // whether a negation is left over for the fact itself ("I don't own a car").
  const Stance st = AnalyseStance(p.tokens, c.begin, c.end);
  const int sign = st.net() > 0 ? 2 : st.net() < 0 ? 0 : 1;
  const int open_neg = st.open_negation < 0 ? 0 : 1 + std::min(st.open_negation, 3);
  e.F(kRStance, sign * 4 + (st.flipped > 0 ? 2 : 0) + (st.open_negation >= 0 ? 1 : 0));
  for (int k = 0; k < st.num_words; ++k)
    e.F(kRStanceWord, st.words[static_cast<size_t>(k)], st.signs[static_cast<size_t>(k)]);
  e.F(kROpenNeg, open_neg);
  e.F(kRStanceRel, sign * 8 + open_neg * 2 + (c.hbegin >= 0 ? 1 : 0));
  // Clause-scoped modality cues: each cue class with where it occurs (the tail's clause, an
  // earlier or a later clause of the sentence).
  {
    const int clause = first.clause;
    int past_loc = 0, now_loc = 0, hypo_loc = 0, cond_begin = -1, cond_end = -1;
    bool change = false, modal_here = false;
    for (int j = 0; j < n; ++j) {
      const TokenInfo& in = p.info[static_cast<size_t>(j)];
      if (in.sentence != sent || (j >= c.begin && j < c.end)) continue;
      const std::string& w = p.tokens[static_cast<size_t>(j)].lower;
      const int loc = in.clause == clause ? 1 : in.clause < clause ? 2 : 4;
      const bool past_w = (w == "used" && j + 1 < n && p.tokens[static_cast<size_t>(j + 1)].lower == "to") ||
                          (PastCues().count(w) > 0 && w != "used");
      if (past_w) past_loc |= loc;
      if (IsNowCue(w)) now_loc |= loc;
      if (HypoCues().count(w)) hypo_loc |= loc;
      if (in.clause == clause && IsModalFuture(w)) modal_here = true;
      change |= IsChangeWord(w);
      if (IsConditional(w) && cond_begin < 0) {
        cond_begin = j;
        cond_end = j + 1;  // the conditional clause runs to the next comma, "then" or sentence end
        while (cond_end < n && p.info[static_cast<size_t>(cond_end)].sentence == sent &&
               !(p.tokens[static_cast<size_t>(cond_end)].punct && p.tokens[static_cast<size_t>(cond_end)].text != "'" &&
                 p.tokens[static_cast<size_t>(cond_end)].text != "-") &&
               p.tokens[static_cast<size_t>(cond_end)].lower != "then")
          ++cond_end;
      }
    }
    e.F(kRClauseCue, 0 * 8 + past_loc);
    e.F(kRClauseCue, 1 * 8 + now_loc);
    e.F(kRClauseCue, 2 * 8 + hypo_loc);
    e.F(kRClauseCue, 3 * 8 + (past_loc & 1) * 4 + (now_loc & 1) * 2 + (past_loc > 1 ? 1 : 0));
    const int cond = cond_begin < 0 ? 0 : (c.begin > cond_begin && c.begin < cond_end) ? 1 : 2;
    e.F(kRCond, cond == 0 ? 0 : cond * 2 + (modal_here ? 1 : 0));
    // The preposition introducing the tail ("from X to Y", "X instead of Y", "traded X for Y"),
    // with whether the sentence speaks of a change, and with the word before it.
    for (int j = c.begin - 1; j >= 0 && j >= c.begin - 3; --j) {
      if (p.info[static_cast<size_t>(j)].clause != clause) break;
      const std::string& w = p.tokens[static_cast<size_t>(j)].lower;
      if (!IsChangePrep(w)) continue;
      e.F(kRChangePrep, w, change ? 1 : 0);
      if (j > 0) e.F(kRChangeVerbPrep, WordAt(p, j - 1), w);
      break;
    }
    // The first change or time marker after the tail ("X instead", "X, not any more").
    for (int j = c.end; j < n && j < c.end + 8; ++j) {
      const TokenInfo& in = p.info[static_cast<size_t>(j)];
      if (in.sentence != sent) break;
      const std::string& w = p.tokens[static_cast<size_t>(j)].lower;
      if (IsChangeWord(w) || IsNowCue(w) || IsChangePrep(w)) {
        e.F(kRAfterMark, w, in.clause == clause ? 1 : 0);
        break;
      }
    }
  }
  // Group first person ("we're vegetarian at home", "our family doesn't eat pork"): the speaker.
  {
    int group = 0;
    for (int j = 0; j < n; ++j) {
      if (p.info[static_cast<size_t>(j)].sentence != sent) continue;
      const std::string& w = p.tokens[static_cast<size_t>(j)].lower;
      if (w == "we" || w == "our" || w == "us" || w == "ours" || w == "everyone" || w == "everybody") group |= 1;
      if (w == "household" || w == "home" || w == "house" || w == "family" || w == "kitchen") group |= 2;
    }
    e.F(kRGroup, group);
  }
  if (neg) for (int j = c.begin - 1; j >= 0 && j >= c.begin - 6; --j) e.F(kRNegCue, p.info[static_cast<size_t>(j)].stem);
  e.F(kRPast, past ? 1 : 0);
  e.F(kRHypo, hypo ? 1 : 0);
  e.F(kRQuestion, p.question_sentence[static_cast<size_t>(sent)] ? 1 : 0);
  e.F(kRFirstPerson, fp ? 1 : 0);
  e.F(kRSentFirst, sent_first);
  if (c.hbegin >= 0) {
    e.F(kRHolder, c.hbegin < c.begin ? 1 : 2);
    for (int j = c.hbegin; j < c.hend; ++j) e.F(kRHolderW, p.tokens[static_cast<size_t>(j)].lower);
  } else {
    e.F(kRHolder, 0);
  }
}

CueFlags Cues(const Prepared& p, const SpanRef& c) {
  CueFlags f;
  const int n = static_cast<int>(p.tokens.size());
  const TokenInfo& first = p.info[static_cast<size_t>(c.begin)];
  f.negation_before = AnalyseStance(p.tokens, c.begin, c.end).open_negation >= 0;
  for (int j = 0; j < n; ++j) {
    const TokenInfo& in = p.info[static_cast<size_t>(j)];
    if (in.sentence != first.sentence) continue;
    const std::string& w = p.tokens[static_cast<size_t>(j)].lower;
    f.past_cue |= PastCues().count(w) > 0;
    f.hypothetical_cue |= HypoCues().count(w) > 0;
    f.first_person |= in.first_person;
  }
  f.question = p.question_sentence[static_cast<size_t>(first.sentence)];
  return f;
}

}  // namespace ontomem::extract
