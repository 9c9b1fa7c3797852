#include "extract/verifier.h"

#include <set>
#include <string>

#include "extract/tokens.h"
#include "text/text.h"

namespace ontomem::extract {
namespace {

bool PositiveRelation(const std::string& r) {
  return r == "LIKES" || r == "OWNS" || r == "USES" || r == "HAS_PET" || r == "HAS_HABIT" || r == "FOLLOWS_DIET" ||
         r == "LIVES_IN" || r == "WORKS_AS" || r == "HAS_RELATIVE" || r == "HAS_FRIEND" || r == "WANTS";
}

bool SentenceEnd(const Token& t) { return t.punct && (t.text == "." || t.text == "!" || t.text == "?"); }
bool ClauseEnd(const Token& t) { return t.punct && t.text != "'" && t.text != "-"; }

// The sentence around token `at`: [*lo, *hi).
void SentenceOf(const std::vector<Token>& t, int at, int* lo, int* hi) {
  *lo = at;
  *hi = at;
  while (*lo > 0 && !SentenceEnd(t[static_cast<size_t>(*lo - 1)])) --*lo;
  while (*hi < static_cast<int>(t.size()) && !SentenceEnd(t[static_cast<size_t>(*hi)])) ++*hi;
}

// Whether token `at` is in the antecedent of an "if"/"unless" clause, or in a clause with a
// modal ('ll, will, 'd, would) of a sentence that has one.
bool InConditional(const std::vector<Token>& t, int at) {
  int lo = 0, hi = 0;
  SentenceOf(t, at, &lo, &hi);
  int cond = -1;
  for (int i = lo; i < hi && cond < 0; ++i)
    if (t[static_cast<size_t>(i)].lower == "if" || t[static_cast<size_t>(i)].lower == "unless") cond = i;
  if (cond < 0) return false;
  if (cond < at) {
    bool closed = false;  // a clause end between the conditional word and the tail
    for (int i = cond + 1; i < at; ++i) closed |= ClauseEnd(t[static_cast<size_t>(i)]) || t[static_cast<size_t>(i)].lower == "then";
    if (!closed) return true;
  }
  // The tail's clause (up to punctuation or the conditional word) with a modal.
  int cb = at, ce = at;
  while (cb > lo && !ClauseEnd(t[static_cast<size_t>(cb - 1)]) && cb - 1 != cond) --cb;
  while (ce < hi && !ClauseEnd(t[static_cast<size_t>(ce)]) && ce != cond) ++ce;
  for (int i = cb; i < ce; ++i) {
    const std::string& w = t[static_cast<size_t>(i)].lower;
    if (w == "'ll" || w == "will" || w == "'d" || w == "would") return true;
  }
  return false;
}

// A routine is said by its holder ("I knit while I watch telly") or with a word of frequency
// ("every Sunday", "three times a week"); "Our street is being dug up again" is neither.
bool HabitualSentence(const std::vector<Token>& t, int lo, int hi) {
  static const std::set<std::string, std::less<>> kCues = {
      "i",       "we",      "always",   "usually",   "often",    "regularly", "normally", "typically",
      "generally", "habitually", "daily", "weekly",  "nightly",  "monthly",   "every",    "each",
      "routine", "routinely", "habit",  "habits",    "tend",     "tends",     "religiously", "times",
      "whenever", "still",  "ritual",   "schedule"};
  for (int i = lo; i < hi; ++i)
    if (kCues.count(t[static_cast<size_t>(i)].lower)) return true;
  return false;
}

// Whether, walking back from token `at` until a token `stop` accepts, a word of `yes` comes
// before any word of `no`: who the nearest subject before the tail is.
bool NearestSubjectIn(const std::vector<Token>& t, int at, bool (*stop)(const Token&),
                      const std::set<std::string, std::less<>>& yes, const std::set<std::string, std::less<>>& no) {
  for (int i = at - 1; i >= 0 && !stop(t[static_cast<size_t>(i)]); --i) {
    const std::string& w = t[static_cast<size_t>(i)].lower;
    if (no.count(w)) return false;
    if (yes.count(w)) return true;
  }
  return false;
}

// Whether the stance is someone else's: the nearest subject pronoun before the tail in its
// sentence is a third person ("Then I have no doubt they'll love the icecream!"; but "They say
// it's overrated, but I love jazz" is the speaker's).
bool SaidOfSomeoneElse(const std::vector<Token>& t, int at) {
  static const std::set<std::string, std::less<>> kFirst = {"i", "we"};
  static const std::set<std::string, std::less<>> kThird = {"he", "she", "they"};
  return NearestSubjectIn(t, at, SentenceEnd, kThird, kFirst);
}

// Whether the tail [tb, ...) is introduced by "your" within two tokens of its clause ("Proud of
// you for starting your own business!", "I love your new haircut"): the listener's thing.
bool ListenersThing(const std::vector<Token>& t, int tb) {
  for (int i = tb; i >= 0 && i >= tb - 2; --i) {
    if (i < tb && ClauseEnd(t[static_cast<size_t>(i)])) break;
    const std::string& w = t[static_cast<size_t>(i)].lower;
    if (w == "your" || w == "yours") return true;
  }
  return false;
}

// The lower-cased token i if lo <= i < hi, else "" (lets the cue checks look around a token
// without bounds tests of their own).
const std::string& LowerIn(const std::vector<Token>& t, int i, int lo, int hi) {
  static const std::string kEmpty;
  return i >= lo && i < hi ? t[static_cast<size_t>(i)].lower : kEmpty;
}

bool Capitalised(const Token& t) { return !t.text.empty() && t.text[0] >= 'A' && t.text[0] <= 'Z'; }

// Whether the clause around token `at` places its stance in the past: "used to", "back in the
// day" / "back then", "years ago", "as a kid", "in my twenties", "when I was younger", "no
// longer" ("I don't drink any more" is a current avoidance). A clause ends at punctuation or a
// contrast word ("I used to be vegetarian but now I'm vegan": the vegan clause is current).
// The simple past alone is not enough: "I loved Titanic" is a stance held now about a film
// seen then.
bool PastClause(const std::vector<Token>& t, int at) {
  static const std::set<std::string, std::less<>> kContrast = {"but", "now", "though", "although", "whereas",
                                                              "nowadays", "today", "currently"};
  static const std::set<std::string, std::less<>> kAccustomed = {"get", "gets", "getting", "got", "gotten", "be", "am",
                                                                "is", "are", "was", "were", "'m", "'re", "'s",
                                                                "not", "so", "become", "grown"};
  static const std::set<std::string, std::less<>> kAgo = {"years", "ages", "decades", "long", "months"};
  static const std::set<std::string, std::less<>> kLifeStage = {
      "kid", "child", "teenager", "teen", "student", "youngster", "boy", "girl", "undergrad"};
  static const std::set<std::string, std::less<>> kDecades = {"teens", "twenties", "thirties", "forties",
                                                             "fifties", "youth", "childhood", "younger"};
  auto bound = [&](int i) { return ClauseEnd(t[static_cast<size_t>(i)]) || kContrast.count(t[static_cast<size_t>(i)].lower); };
  int lo = at, hi = at;
  while (lo > 0 && !bound(lo - 1)) --lo;
  while (hi < static_cast<int>(t.size()) && !bound(hi)) ++hi;
  auto w = [&](int i) -> const std::string& { return LowerIn(t, i, lo, hi); };
  for (int i = lo; i < hi; ++i) {
    const std::string& x = w(i);
    // "used to" as a past habit, not as "accustomed to" ("still getting used to the rain").
    if (x == "used" && w(i + 1) == "to" && !kAccustomed.count(w(i - 1))) return true;
    if (x == "back" && (w(i + 1) == "then" || (w(i + 1) == "in" && w(i + 2) == "the" && w(i + 3) == "day"))) return true;
    if (x == "ago" && kAgo.count(w(i - 1))) return true;
    if (x == "once" && w(i + 1) == "upon") return true;
    // "had me hooked at one point", "at one time", "in the past"; "a fan of it once, these days
    // ..." ("once a week", "at least once" are frequencies).
    if (x == "at" && w(i + 1) == "one" && (w(i + 2) == "point" || w(i + 2) == "time")) return true;
    if (x == "in" && w(i + 1) == "the" && w(i + 2) == "past") return true;
    if (x == "once" && i + 1 == hi && w(i - 1) != "least" && w(i - 1) != "than" && w(i - 1) != "more") return true;
    if (x == "no" && w(i + 1) == "longer") return true;
    if (x == "as" && (w(i + 1) == "a" || w(i + 1) == "an") && kLifeStage.count(w(i + 2))) return true;
    if ((x == "my" || x == "our") && kDecades.count(w(i + 1)) && (w(i - 1) == "in" || w(i - 1) == "during")) return true;
    if (x == "when" && (w(i + 1) == "i" || w(i + 1) == "we") && w(i + 2) == "was" && kDecades.count(w(i + 3))) return true;
  }
  return false;
}

// Whether the tail [tb, te) is what the speaker took up instead: the first term of a preference
// ("prefer hiking to cycling"), the right side of "in favour of", the target of a switch
// ("switched from Spotify to Tidal").
bool TakenUp(const std::vector<Token>& t, int tb, int te) {
  static const std::set<std::string, std::less<>> kDeterminer = {"my", "our", "the", "a", "an", "that", "those", "all"};
  auto w = [&](int i) -> const std::string& { return LowerIn(t, i, 0, static_cast<int>(t.size())); };
  int b = tb - 1;
  while (b >= 0 && kDeterminer.count(w(b))) --b;
  if ((w(b) == "prefer" || w(b) == "prefers" || w(b) == "preferred") && (w(te) == "to" || w(te) == "over")) return true;
  if (w(b) == "of" && (w(b - 1) == "favour" || w(b - 1) == "favor") && w(b - 2) == "in") return true;
  if (w(b) == "to") {
    for (int i = b - 1; i >= 1 && i >= b - 8 && !ClauseEnd(t[static_cast<size_t>(i)]); --i)
      if (w(i) == "from" && (w(i - 1) == "switched" || w(i - 1) == "moved" || w(i - 1) == "went" || w(i - 1) == "changed"))
        return true;
  }
  return false;
}

// Whether the tail's clause says "anymore" or "any more": with a negated liking, a liking that
// ended ("I don't like hiking anymore").
bool SaysAnymore(const std::vector<Token>& t, int at) {
  int lo = at, hi = at;
  while (lo > 0 && !ClauseEnd(t[static_cast<size_t>(lo - 1)])) --lo;
  while (hi < static_cast<int>(t.size()) && !ClauseEnd(t[static_cast<size_t>(hi)])) ++hi;
  for (int i = lo; i < hi; ++i) {
    const std::string& x = t[static_cast<size_t>(i)].lower;
    if (x == "anymore" || (x == "any" && LowerIn(t, i + 1, lo, hi) == "more")) return true;
  }
  return false;
}

// What the speaker says before the tail that they stopped: kStoppedDoing ("stopped playing
// chess", "quit WoW", "gave up coffee", "stopped going to the gym", "outgrew"), kStoppedLiking
// ("I've gone off opera", "lost interest in", "grew out of", "fell out of love with"), else
// kNotStopped. Between the phrase and the tail: determiners and possessives, or a verb in -ing
// with its preposition ("watching", "going to the"). Past forms only, and not negated, planned or
// nearly done ("never quit running", "I should give up sugar", "almost quit").
enum Ceased { kNotStopped, kStoppedDoing, kStoppedLiking };
Ceased CeasedBefore(const std::vector<Token>& t, int tb) {
  static const std::set<std::string, std::less<>> kDeterminer = {"my", "our", "the", "a", "an", "all", "that"};
  static const std::set<std::string, std::less<>> kPreposition = {"to", "at", "with", "for", "on", "in"};
  static const std::set<std::string, std::less<>> kNotDone = {
      "not", "n't", "never", "cannot", "to", "will", "'ll", "should", "might", "could", "would", "'d",
      "can", "must", "gonna", "almost", "nearly", "may", "wo", "ca", "shall"};
  auto w = [&](int i) -> const std::string& { return LowerIn(t, i, 0, static_cast<int>(t.size())); };
  // The phrase ending at token b and its length in words, or 0.
  auto phrase = [&](int b, Ceased* kind) {
    *kind = kStoppedDoing;
    if (w(b) == "stopped" || w(b) == "quit" || w(b) == "outgrew" || w(b) == "outgrown") return 1;
    if (w(b) == "up" && (w(b - 1) == "gave" || w(b - 1) == "given")) return 2;
    *kind = kStoppedLiking;
    if (w(b) == "off" && w(b - 1) == "gone") return 2;  // not "went off" (an alarm)
    if (w(b) == "in" && w(b - 1) == "interest" && w(b - 2) == "lost") return 3;
    if (w(b) == "of" && w(b - 1) == "out" && (w(b - 2) == "grew" || w(b - 2) == "grown")) return 3;
    if (w(b) == "with" && w(b - 1) == "love" && w(b - 2) == "of" && w(b - 3) == "out" && w(b - 4) == "fell") return 5;
    *kind = kNotStopped;
    return 0;
  };
  int b = tb - 1;
  while (b >= 0 && kDeterminer.count(w(b))) --b;
  Ceased kind = kNotStopped;
  int len = phrase(b, &kind);
  if (len == 0) {
    // "stopped going to the gym", "gave up watching TV"
    if (kPreposition.count(w(b))) --b;
    while (b >= 0 && kDeterminer.count(w(b))) --b;
    const std::string& ing = w(b);
    if (ing.size() < 5 || ing.compare(ing.size() - 3, 3, "ing") != 0) return kNotStopped;
    len = phrase(b - 1, &kind);
    if (len == 0) return kNotStopped;
    --b;
  }
  const int before = b - len;
  if (kNotDone.count(w(before)) || kNotDone.count(w(before - 1))) return kNotStopped;
  return kind;
}

// Why the tail [tb, te) names no thing the speaker could hold a stance on, or "" when it may:
// a verb before its object ("feed them properly") or particle ("I start to hang out"), the
// noun of a light-verb idiom ("give it a shot", "a fair try"), a person addressed ("That's
// awesome, John!", "Hi Melanie!").
std::string NotAThing(const std::vector<Token>& t, int tb, int te) {
  static const std::set<std::string, std::less<>> kObject = {"them", "him", "me", "us", "myself", "yourself", "themselves"};
  static const std::set<std::string, std::less<>> kParticle = {"out", "around", "up"};
  static const std::set<std::string, std::less<>> kBefore = {"to", "i", "we", "you", "they"};
  static const std::set<std::string, std::less<>> kIdiom = {"shot", "go", "whirl", "try"};
  static const std::set<std::string, std::less<>> kGreeting = {"hey", "hi", "hello", "thanks", "congrats",
                                                              "congratulations", "dear", "bye", "yo"};
  const int n = static_cast<int>(t.size());
  auto w = [&](int i) -> const std::string& { return LowerIn(t, i, 0, n); };
  if (te - tb == 1 && (kObject.count(w(te)) || (kParticle.count(w(te)) && kBefore.count(w(tb - 1)))))
    return "a verb, not a thing";
  // A span that starts with an object pronoun took the verb's object for the thing: "I gave
  // him extra marks".
  if (te - tb > 1 && kObject.count(w(tb))) return "a verb's object pronoun and more";
  if (kIdiom.count(w(te - 1)) && w(te) != "of" && (w(tb - 1) == "a" || w(tb) == "a" || w(tb - 1) == "another"))
    return "the noun of an idiom";
  const Token& name = t[static_cast<size_t>(tb)];
  const bool capital = Capitalised(name);
  if (te - tb == 1 && capital && tb > 0) {
    const bool closes = te == n || SentenceEnd(t[static_cast<size_t>(te)]) || w(te) == ",";
    const bool after_comma = w(tb - 1) == "," && tb >= 2 && !t[static_cast<size_t>(tb - 2)].punct &&
                             t[static_cast<size_t>(tb - 2)].text == t[static_cast<size_t>(tb - 2)].lower;
    if (closes && (after_comma || kGreeting.count(w(tb - 1)))) return "a person addressed";
  }
  return "";
}

// Whether the stance is put in someone else's mouth: "according to Sunniva, X is the best thing
// ever", "according to my sister, ..." (before the tail, in its sentence), "X is Dina's big
// thing" (right after it).
bool AttributedToOther(const std::vector<Token>& t, int tb, int te) {
  const int n = static_cast<int>(t.size());
  auto w = [&](int i) -> const std::string& { return LowerIn(t, i, 0, n); };
  for (int i = tb - 1; i >= 1 && !SentenceEnd(t[static_cast<size_t>(i)]); --i)
    if (w(i - 1) == "according" && w(i) == "to" && i + 1 < tb && w(i + 1) != "me") return true;
  const bool name_next = te + 1 < n && Capitalised(t[static_cast<size_t>(te + 1)]) && w(te + 1) != "i";
  return (w(te) == "is" || w(te) == "'s" || w(te) == "are") && name_next && w(te + 2) == "'s";
}

// Whether the tail's clause asks the listener about it: "could you fill me in on X", "what can
// you tell me about X", "have you heard of X", "any thoughts on X", with no stance word of the
// speaker's ("can you suggest something like X, which I loved" keeps its liking). A question
// mark is not needed: chat drops it.
bool AsksAbout(const std::vector<Token>& t, int tb) {
  static const std::set<std::string, std::less<>> kAux = {"can", "could", "would", "will", "do", "did",
                                                         "have", "has", "are", "were", "is"};
  static const std::set<std::string, std::less<>> kWh = {"what", "how", "which", "who", "where", "when", "why"};
  static const std::set<std::string, std::less<>> kAsk = {"tell", "fill", "heard", "hear", "know", "think",
                                                         "thoughts", "opinion", "views", "verdict", "explain"};
  int lo = tb;
  while (lo > 0 && !ClauseEnd(t[static_cast<size_t>(lo - 1)])) --lo;
  bool you = false, wh_or_aux = false, ask = false;
  for (int i = lo; i < tb; ++i) {
    const std::string& x = t[static_cast<size_t>(i)].lower;
    if (x == "you") {
      you = true;
      if (i > lo && kAux.count(t[static_cast<size_t>(i - 1)].lower)) wh_or_aux = true;
    }
    if (kWh.count(x)) wh_or_aux = true;
    if (kAsk.count(x)) ask = true;
  }
  // "any thoughts on X": no "you" needed.
  auto w = [&](int i) -> const std::string& { return LowerIn(t, i, lo, tb); };
  if (!you && w(tb - 1) == "on" && (w(tb - 2) == "thoughts" || w(tb - 2) == "views")) return w(tb - 3) == "any";
  return you && wh_or_aux && ask;
}

// Whether the tail's clause says a momentary wish before it: "feel like" ("made me feel like
// writing a drama", "I feel like pizza tonight") is wanting, not liking.
bool FeelLike(const std::vector<Token>& t, int at) {
  static const std::set<std::string, std::less<>> kFeel = {"feel", "feels", "felt", "feeling"};
  for (int i = at - 1; i >= 1 && !ClauseEnd(t[static_cast<size_t>(i)]); --i)
    if (t[static_cast<size_t>(i)].lower == "like" && kFeel.count(t[static_cast<size_t>(i - 1)].lower)) return true;
  return false;
}

// Whether a diet is said of a thing, not of a person: the nearest subject before the tail in
// its clause is "it", "this" or "that" ("It's dairy-free vanilla with strawberry filling"; not
// "Come to think of it, my household is keto").
bool DietOfAThing(const std::vector<Token>& t, int at) {
  static const std::set<std::string, std::less<>> kPerson = {"i", "we", "he", "she", "they", "you"};
  static const std::set<std::string, std::less<>> kThing = {"it", "this", "that"};
  return NearestSubjectIn(t, at, ClauseEnd, kThing, kPerson);
}

// Whether a tail the ontology does not name as a diet still reads as one: "wheat-free",
// "low-FODMAP", "no pork", "flexitarian", "a DASH diet", "fasting". The relation model learned
// diets from a closed list whose hyphenated members ("gluten-free") taught it that hyphenated
// words are diets ("four-fifteen", "place-order", "rubber-band").
bool ReadsAsDiet(const std::vector<Token>& t, int tb, int te) {
  static const std::set<std::string, std::less<>> kLead = {"low", "no", "non", "high", "zero", "plant"};
  static const std::set<std::string, std::less<>> kWord = {"diet", "fasting", "free", "eater", "diets"};
  auto ends_with = [](const std::string& w, std::string_view suffix) {
    return w.size() > suffix.size() && w.compare(w.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  auto starts_with = [](const std::string& w, std::string_view prefix) {
    return w.size() > prefix.size() && w.compare(0, prefix.size(), prefix) == 0;
  };
  for (int i = tb; i < te; ++i) {
    const std::string& w = t[static_cast<size_t>(i)].lower;
    if (kWord.count(w) || ends_with(w, "-free") || ends_with(w, "arian")) return true;
    if (i == tb && (kLead.count(w) || starts_with(w, "low-") || starts_with(w, "high-") || starts_with(w, "non-") ||
                    starts_with(w, "no-")))
      return true;
  }
  // "the DASH diet": the word after the tail names it a diet; "free" after it does not ("kept
  // Saturday free").
  static const std::set<std::string, std::less<>> kAfter = {"diet", "fasting", "eater", "diets"};
  return te < static_cast<int>(t.size()) && kAfter.count(t[static_cast<size_t>(te)].lower) > 0;
}

}  // namespace

Verdict RuleVerifier::Verify(const Assertion& c, const Turn& turn) const {
  Verdict v;
  auto reject = [&](std::string why) {
    v.valid = false;
    v.reason = std::move(why);
    return v;
  };
  // (1) content tail
  if (c.tail.empty()) return reject("empty tail");
  if (c.tail_end <= c.tail_begin || c.tail_end > static_cast<int32_t>(turn.text.size())) return reject("bad span");
  {
    bool content = false;
    for (const auto& w : text::Tokenize(c.tail)) content |= !text::IsStopWord(w);
    if (!content) return reject("tail is a function word");
  }
  // (15) A tail that names a condition, a diet or a belief states that relation, whatever the
  // copula was read as ("I'm coeliac" as BELIEVES, "I'm vegan" as WORKS_AS); a taste is no
  // condition either ("I'm celiac so no bread for me" read as DISLIKES celiac).
  const std::string state = res_.named_state ? res_.named_state(c.tail) : std::string();
  if (!state.empty() && state != c.relation &&
      (c.relation == "BELIEVES" || c.relation == "WORKS_AS" || c.relation == "HAS_CONDITION" ||
       c.relation == "FOLLOWS_DIET" ||
       ((c.relation == "LIKES" || c.relation == "DISLIKES") && state == "HAS_CONDITION"))) {
    Assertion as_state = c;
    as_state.relation = state;
    Verdict sv = Verify(as_state, turn);
    if (sv.valid && sv.relation.empty()) sv.relation = state;
    return sv;
  }
  // (2) ontology types
  if (res_.type_check && res_.type_check(c.relation, c.tail) < 0) return reject("type mismatch");
  // (12) A condition is a state of the body or mind: a tail whose most frequent WordNet sense
  // is a food is one the speaker dislikes ("I really struggle with capers"), and a person, a
  // group, an object or a place is no condition ("an endorsement with a beverage company").
  // A condition's own name passes ("diabetic" is first a person in WordNet).
  if (c.relation == "HAS_CONDITION" && res_.lexname && state != "HAS_CONDITION") {
    const auto words = text::Tokenize(c.tail);
    const std::string lex = words.empty() ? "" : res_.lexname(text::AsciiLower(words.back()));
    if (lex == "noun.food" || lex == "noun.plant") v.relation = "DISLIKES";
    else if (lex == "noun.person" || lex == "noun.group" || lex == "noun.artifact" || lex == "noun.location" ||
             lex == "noun.animal" || lex == "noun.communication")
      return reject("no condition");
  }
  // (3) and (5) polarity, with negation scope: a negation that reverses a stance word
  // ("never lets me down", "can't get enough of") does not negate the fact.
  const std::vector<Token> toks = TokenizeWithOffsets(turn.text);
  int tb = -1, te = -1;
  for (int i = 0; i < static_cast<int>(toks.size()); ++i) {
    const Token& t = toks[static_cast<size_t>(i)];
    if (t.punct || t.end <= c.tail_begin || t.begin >= c.tail_end) continue;
    if (tb < 0) tb = i;
    te = i + 1;
  }
  if (tb >= 0) {
    const Stance st = AnalyseStance(toks, tb, te);
    // (3) an open negation right before the tail contradicts an asserted positive fact.
    if (c.modality == Modality::kAsserted && PositiveRelation(c.relation) && st.open_negation >= 0 &&
        st.open_negation <= 4)
      return reject("negation cue contradicts an asserted " + c.relation);
    // (6) A conditional's antecedent ("If I ever buy a convertible, ...") and a consequent with a
    // modal ("..., I'll drive it to the coast"; "I'd get a kayak if ...") state nothing current.
    if (c.modality == Modality::kAsserted && InConditional(toks, tb)) return reject("asserted inside a conditional");
    // (7) A habit needs its holder or a word of frequency in its sentence.
    if (c.relation == "HAS_HABIT" && c.modality == Modality::kAsserted) {
      int lo = 0, hi = 0;
      SentenceOf(toks, tb, &lo, &hi);
      if (!HabitualSentence(toks, lo, hi)) return reject("habit without a holder or a word of frequency");
    }
    // (8) The speaker holds no stance stated of someone else ("they'll love the icecream").
    if (c.head_is_speaker && SaidOfSomeoneElse(toks, tb)) return reject("said of someone else");
    // (13) ... nor one on the listener's thing ("the colours of your painting are amazing").
    if (c.head_is_speaker && ListenersThing(toks, tb)) return reject("the listener's");
    // (14) ... nor a stance put in someone else's mouth, nor a question about the thing (a
    // question about one's own thing still has it: "can you tell me how to clean my Roomba").
    const bool stance = c.relation == "LIKES" || c.relation == "DISLIKES" || c.relation == "WANTS";
    if (c.head_is_speaker && stance && AttributedToOther(toks, tb, te)) return reject("someone else's stance");
    if (c.head_is_speaker && stance && st.positive == 0 && st.negative == 0 && AsksAbout(toks, tb))
      return reject("asked about, not a stance");
    // (11) The tail is a thing the speaker holds a stance on, a diet is a person's, and "feel
    // like" is a wish.
    if (std::string why = NotAThing(toks, tb, te); !why.empty()) return reject("tail is " + why);
    if (c.relation == "FOLLOWS_DIET" && DietOfAThing(toks, tb)) return reject("a diet said of a thing");
    // (16) A diet's tail names a diet (the ontology's diet_class synonyms) or reads as one.
    if (c.relation == "FOLLOWS_DIET" && res_.named_state && state != "FOLLOWS_DIET" && !ReadsAsDiet(toks, tb, te))
      return reject("no diet named");
    if (c.relation == "LIKES" && FeelLike(toks, tb)) v.relation = "WANTS";
    // (9) A stance placed in the past no longer holds.
    // Kin stay kin: "my brother used to race motocross" still has the brother.
    if (c.modality == Modality::kAsserted && c.relation != "HAS_RELATIVE" && c.relation != "HAS_FRIEND" &&
        PastClause(toks, tb))
      v.modality = Modality::kPast;
    // (10) What the speaker took up instead holds now.
    if (c.modality == Modality::kPast && TakenUp(toks, tb, te)) v.modality = Modality::kAsserted;
    // (17) A change of stance: a liking negated "anymore" ("don't like X anymore", "not a fan of
    // X any more") is a liking that ended, not a dislike held once, which would leave the liking
    // current in the graph ("don't miss X anymore", the other way, is left alone); what the
    // speaker stopped doing or liking ("stopped playing chess", "gone off opera") is a liking or
    // habit that ended, never a dislike nor a current habit.
    const bool taste = c.relation == "LIKES" || c.relation == "DISLIKES";
    const bool stopped_liking = (c.modality == Modality::kPast || c.modality == Modality::kAsserted) && taste &&
                                st.flipped > 0 && st.negative > 0 && st.positive == 0 && SaysAnymore(toks, tb);
    if (stopped_liking) {
      v.relation = "LIKES";
      v.modality = Modality::kPast;
    } else if (const Ceased ceased = CeasedBefore(toks, tb);
               c.modality != Modality::kNegated && (taste || c.relation == "HAS_HABIT") && ceased != kNotStopped) {
      v.modality = Modality::kPast;
      if (ceased == kStoppedLiking || (c.relation == "DISLIKES" && st.negative == 0)) v.relation = "LIKES";
    }
    // (5) LIKES vs DISLIKES against an unambiguous stance that a negation reversed ("don't
    // like", "never lets me down"): normalise the relation. Unnegated stance words are left to
    // the classifier ("so tired after work, painting helps").
    if (c.modality != Modality::kNegated && st.flipped > 0 && !stopped_liking) {
      if (c.relation == "LIKES" && st.negative > 0 && st.positive == 0) v.relation = "DISLIKES";
      if (c.relation == "DISLIKES" && st.positive > 0 && st.negative == 0) v.relation = "LIKES";
    }
  }
  // (4) head resolution
  if (c.modality == Modality::kReported && c.head_is_speaker) return reject("reported fact without a holder");
  if (!c.head_is_speaker && c.modality != Modality::kReported) return reject("third-party head but not reported");
  return v;
}

}  // namespace ontomem::extract
