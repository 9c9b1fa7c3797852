// Step I verification: a candidate triple {head, relation, tail} plus its turn in, a verdict
// out. The default is rule-based (no I/O); LlmVerifier asks an OpenAI-compatible chat endpoint
// and falls back to the rules on any failure. Verification only confirms or rejects (and may
// normalise the relation); it never invents a triple.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "extract/assertion.h"
#include "extract/features.h"
#include "ontomem/types.h"

namespace ontomem::extract {

struct Verdict {
  bool valid = true;
  std::string relation;  // normalised relation id; empty = keep the candidate's
  std::optional<Modality> modality;  // the modality the rules settled on; empty = keep the candidate's
  std::string reason;    // why it was rejected ("negation cue", "type mismatch", ...); "" if valid
  bool fallback = false; // LlmVerifier: the endpoint failed and the rule verdict was used
};

class Verifier {
 public:
  virtual ~Verifier() = default;
  // Must be thread-safe: Extractor::Extract calls it concurrently.
  virtual Verdict Verify(const Assertion& candidate, const Turn& turn) const = 0;
  virtual std::string name() const = 0;
};

// Rules: (1) the tail is a content mention (not a pronoun or stop word); (2) the ontology type
// check (FeatureResources::type_check) does not reject the (relation, tail) pair; (3) polarity:
// an asserted positive relation with an open negation right before it ("I don't own a car" ->
// OWNS asserted) is rejected, while a negation that reverses a stance word does not count
// ("I can't get enough of jazz"); (4) head resolution: reported facts need a third-party head,
// and a third-party head needs the reported modality; (5) LIKES/DISLIKES is normalised to the
// stance a negation reversed ("never lets me down" -> LIKES, "don't like" -> DISLIKES); (6) nothing
// asserted inside a conditional; (7) an asserted habit needs its holder ("I", "we") or a word of
// frequency in its sentence ("Our street is being dug up again" is no habit); (8) a speaker's
// fact is rejected when the nearest subject pronoun before the tail is a third person ("I have
// no doubt they'll love the icecream"); (9) an asserted stance whose clause places it in the
// past ("used to", "back in the day", "in my twenties", "years ago", "no longer", "at one point",
// "in the past", a clause-final "once") becomes a past one: it says what held once, not what
// holds now (kinship excepted); (10) what the speaker took up instead of something else is
// current ("in favour of Mubi", "prefer hiking to ...", "switched from Spotify to Tidal") even
// when the classifier read the sentence's past as its own;
// (11) the tail is no verb before its object or particle ("feed them properly", "to hang out"),
// does not start with an object pronoun ("gave him extra marks"), is no noun of a light-verb
// idiom ("give it a shot") and no person addressed ("That's awesome, John!"); a diet is not
// said of a thing ("It's dairy-free vanilla"); a liking after "feel like" is a wish (WANTS);
// (12) with WordNet, a HAS_CONDITION tail whose most frequent sense is a food becomes DISLIKES
// ("I really struggle with capers") and one that is a person, group, artifact, place, animal or
// text is rejected; (13) a speaker's stance on the listener's thing ("your new garden shed") is
// rejected; (14) so is a speaker's LIKES, DISLIKES or WANTS put in someone else's mouth
// ("according to Priya, X is unmissable", "X is Tomas's big thing") or asked about with no
// stance word of the speaker's ("could you fill me in on X", "any thoughts on X"; chat often
// drops the question mark the relation model reads); (15) a tail that names a condition, a
// diet or a belief (FeatureResources::named_state: "coeliac", "vegan", "catholic") takes that
// relation when the copula was read as another state, a job, or (a condition) a taste ("I'm
// diabetic" read as BELIEVES); (16) a FOLLOWS_DIET tail names a diet (a diet_class synonym) or
// reads as one ("wheat-free", "low-FODMAP", "no pork", "flexitarian", "the DASH diet"):
// "four-fifteen" and "place-order" are no diets; (17) a liking negated "anymore" ("I don't like
// hiking anymore") is a liking that ended (past LIKES, as "I'm not into X anymore"), and a liking
// or habit the speaker says they stopped ("stopped playing chess", "gave up X", "I've gone off
// opera", "lost interest in X") is past, a liking when read as a dislike with no word against it.
// The type check also refuses an ALLERGIC_TO tail WordNet knows with no food, plant, animal,
// substance, product or body sense ("dance", "auntie").
class RuleVerifier : public Verifier {
 public:
  explicit RuleVerifier(FeatureResources res = {}) : res_(std::move(res)) {}
  Verdict Verify(const Assertion& candidate, const Turn& turn) const override;
  std::string name() const override { return "rules"; }

 private:
  FeatureResources res_;
};

struct LlmVerifierOptions {
  std::string base_url = "http://127.0.0.1:8080";  // scheme://host:port of the server
  std::string model = "default";                  // the "model" field of the request
  std::string api_key;                            // sent as "Authorization: Bearer" if set
  int timeout_ms = 2000;                          // connect + read timeout per call
  // false: the endpoint's verdict replaces the fallback's (`eval extractor --llm`). true: the
  // fallback decides first and only what it passes is sent, with the fallback's relation and
  // modality; the endpoint can then only reject or rename it (the engine's
  // Options::fact_verifier), and a failure keeps the fallback's verdict.
  bool confirm_only = false;
};

// POST {base_url}/v1/chat/completions with a system prompt constraining the answer to the JSON
// object {"valid": bool, "relation": "<one of the 16 ids>"}; temperature 0. Any failure
// (connection, timeout, HTTP status, malformed JSON, unknown relation) falls back to
// `fallback` (the rules if null) and is counted.
// False when this build has no HTTP client (cpp-httplib not linked): LlmVerifier then always
// falls back to its fallback verifier.
bool LlmVerifierAvailable();

class LlmVerifier : public Verifier {
 public:
  LlmVerifier(LlmVerifierOptions options, std::shared_ptr<const Verifier> fallback = nullptr);
  Verdict Verify(const Assertion& candidate, const Turn& turn) const override;
  std::string name() const override { return "llm"; }

  int64_t calls() const { return calls_.load(); }
  int64_t failures() const { return failures_.load(); }  // fell back to the rules

 private:
  LlmVerifierOptions options_;
  std::shared_ptr<const Verifier> fallback_;
  mutable std::atomic<int64_t> calls_{0}, failures_{0};
};

}  // namespace ontomem::extract
