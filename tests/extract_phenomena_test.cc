// Polarity, negation scope, modality (hypotheticals, updates), reported speech (also with a
// named holder) and group first person, checked on
// sentences from domains the phenomenon drills do not use (gardening, cars, music): the stance
// analysis and the rule verifier directly, then the shipped extractor models end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "extract/extractor.h"
#include "extract_fixtures.h"
#include "extract/features.h"
#include "extract/resources.h"
#include "extract/tokens.h"
#include "extract/verifier.h"

namespace ontomem::extract {
namespace {

// Stance of the tail `tail` (first occurrence) in `text`.
Stance StanceFor(const std::string& text, const std::string& tail) {
  const std::vector<Token> t = TokenizeWithOffsets(text);
  const int32_t b = static_cast<int32_t>(text.find(tail)), e = b + static_cast<int32_t>(tail.size());
  int tb = -1, te = -1;
  for (int i = 0; i < static_cast<int>(t.size()); ++i) {
    if (t[static_cast<size_t>(i)].end <= b || t[static_cast<size_t>(i)].begin >= e) continue;
    if (tb < 0) tb = i;
    te = i + 1;
  }
  EXPECT_GE(tb, 0) << tail;
  return AnalyseStance(t, tb, te);
}

TEST(ExtractStance, NegatedNegativeIsPositive) {
  for (const auto& [text, tail] : std::vector<std::pair<std::string, std::string>>{
           {"My old pickup has never let me down.", "old pickup"},
           {"I can't get enough of bluegrass.", "bluegrass"},
           {"I wouldn't miss the tractor pull for the world.", "tractor pull"},
           {"Honestly, I could never get tired of tulips.", "tulips"},
           {"Synthwave never gets old.", "Synthwave"}}) {
    const Stance s = StanceFor(text, tail);
    EXPECT_GT(s.positive, 0) << text;
    EXPECT_EQ(s.negative, 0) << text;
    EXPECT_GT(s.flipped, 0) << text;
    EXPECT_EQ(s.open_negation, -1) << text << ": the negation belongs to the opinion, not the fact";
  }
}

TEST(ExtractStance, NegatedPositiveIsNegative) {
  for (const auto& [text, tail] : std::vector<std::pair<std::string, std::string>>{
           {"I can't stand leaf blowers.", "leaf blowers"},
           {"I'm not a fan of synth pop.", "synth pop"},
           {"Minivans are not my thing.", "Minivans"},
           {"I don't really care about hybrid engines.", "hybrid engines"}}) {
    const Stance s = StanceFor(text, tail);
    EXPECT_GT(s.negative, 0) << text;
    EXPECT_EQ(s.positive, 0) << text;
    EXPECT_EQ(s.open_negation, -1) << text;
  }
}

// "For what it's worth" hedges a remark; "worth" there is no praise of the tail.
TEST(ExtractStance, ForWhatItsWorthIsNoStance) {
  for (const auto& [text, tail] : std::vector<std::pair<std::string, std::string>>{
           {"I really struggle with brass bands, for what it's worth.", "brass bands"},
           {"Bus tours are just not my thing, for what it is worth.", "Bus tours"},
           {"I really struggle with brass bands, for what it’s worth.", "brass bands"}}) {
    const Stance s = StanceFor(text, tail);
    EXPECT_EQ(s.positive, 0) << text;
    EXPECT_GT(s.negative, 0) << text;
  }
  EXPECT_GT(StanceFor("The night ferry is worth every penny.", "night ferry").positive, 0);
  EXPECT_GT(StanceFor("Slow cooking is so worth it.", "Slow cooking").positive, 0);
}

TEST(ExtractStance, OpenNegationComparisonsAndClauses) {
  // A negation that reverses no opinion word negates the fact.
  EXPECT_EQ(StanceFor("I don't own a lawnmower.", "lawnmower").open_negation, 2);  // "own a"
  EXPECT_GE(StanceFor("I'm not allergic to roses.", "roses").open_negation, 0);
  EXPECT_GE(StanceFor("I have never owned a convertible.", "convertible").open_negation, 0);
  // "Nothing beats" compares; it negates nothing.
  const Stance nb = StanceFor("Nothing beats fresh basil from the garden.", "fresh basil");
  EXPECT_GT(nb.positive, 0);
  EXPECT_EQ(nb.open_negation, -1);
  // "but" ends the scope: the dislike belongs to the other clause.
  const Stance tulips = StanceFor("I love tulips but I can't stand weeding.", "tulips");
  EXPECT_GT(tulips.positive, 0);
  EXPECT_EQ(tulips.negative, 0);
  const Stance weeding = StanceFor("I love tulips but I can't stand weeding.", "weeding");
  EXPECT_GT(weeding.negative, 0);
  EXPECT_EQ(weeding.positive, 0);
  // A comma ends a negation's scope ("No, I love ...").
  EXPECT_EQ(StanceFor("No, I love the cello.", "cello").open_negation, -1);
  // "I miss" alone is not a dislike; "wouldn't miss" is a liking.
  EXPECT_EQ(StanceFor("I miss my old Civic.", "old Civic").negative, 0);
}

using fixtures::Cand;
using fixtures::MakeTurn;

TEST(ExtractRuleVerifier, NegationScope) {
  RuleVerifier v;
  // Double negation is not a negated fact.
  const Turn t1 = MakeTurn("I can't get enough of bluegrass.");
  EXPECT_TRUE(v.Verify(Cand(t1.text, "bluegrass", "LIKES", Modality::kAsserted), t1).valid);
  const Turn t2 = MakeTurn("I never miss a Sunday drive in the Mustang.");
  EXPECT_TRUE(v.Verify(Cand(t2.text, "Sunday drive", "HAS_HABIT", Modality::kAsserted), t2).valid);
  // A dislike read from a negated negative becomes a liking, and the reverse.
  const Turn t3 = MakeTurn("My old Volvo has never let me down.");
  const Verdict d = v.Verify(Cand(t3.text, "old Volvo", "DISLIKES", Modality::kAsserted), t3);
  EXPECT_TRUE(d.valid);
  EXPECT_EQ(d.relation, "LIKES");
  const Turn t4 = MakeTurn("I'm not a fan of autotune.");
  EXPECT_EQ(v.Verify(Cand(t4.text, "autotune", "LIKES", Modality::kAsserted), t4).relation, "DISLIKES");
  // An open negation still rejects an asserted positive fact.
  const Turn t5 = MakeTurn("I don't own a lawnmower.");
  EXPECT_FALSE(v.Verify(Cand(t5.text, "lawnmower", "OWNS", Modality::kAsserted), t5).valid);
  EXPECT_TRUE(v.Verify(Cand(t5.text, "lawnmower", "OWNS", Modality::kNegated), t5).valid);
}

TEST(ExtractRuleVerifier, ConditionalsAreNotAsserted) {
  RuleVerifier v;
  // The antecedent and a consequent with a modal.
  const Turn t1 = MakeTurn("If I ever buy a convertible, I'll drive it to the coast.");
  EXPECT_FALSE(v.Verify(Cand(t1.text, "convertible", "OWNS", Modality::kAsserted), t1).valid);
  EXPECT_TRUE(v.Verify(Cand(t1.text, "convertible", "OWNS", Modality::kHypothetical), t1).valid);
  EXPECT_FALSE(v.Verify(Cand(t1.text, "coast", "WANTS", Modality::kAsserted), t1).valid);
  const Turn t2 = MakeTurn("I'd plant tulips if I had a garden.");
  EXPECT_FALSE(v.Verify(Cand(t2.text, "tulips", "HAS_HABIT", Modality::kAsserted), t2).valid);
  // A main clause without a modal, or another sentence, still states a current fact.
  const Turn t3 = MakeTurn("I love tulips, if you must know.");
  EXPECT_TRUE(v.Verify(Cand(t3.text, "tulips", "LIKES", Modality::kAsserted), t3).valid);
  const Turn t4 = MakeTurn("If it rains, we stay in. I play the cello.");
  EXPECT_TRUE(v.Verify(Cand(t4.text, "cello", "HAS_HABIT", Modality::kAsserted), t4).valid);
}

TEST(ExtractRuleVerifier, HabitsNeedTheirHolderOrAFrequency) {
  RuleVerifier v;
  // An event said of something else is no routine of the speaker's.
  const Turn t1 = MakeTurn("Our street is being dug up again.");
  EXPECT_FALSE(v.Verify(Cand(t1.text, "street", "HAS_HABIT", Modality::kAsserted), t1).valid);
  // The holder says it, or a word of frequency does.
  const Turn t2 = MakeTurn("I knit while I watch telly.");
  EXPECT_TRUE(v.Verify(Cand(t2.text, "knit", "HAS_HABIT", Modality::kAsserted), t2).valid);
  const Turn t3 = MakeTurn("Sunday mornings usually mean a long swim.");
  EXPECT_TRUE(v.Verify(Cand(t3.text, "long swim", "HAS_HABIT", Modality::kAsserted), t3).valid);
  const Turn t4 = MakeTurn("Lifting three times a week since January.");
  EXPECT_TRUE(v.Verify(Cand(t4.text, "Lifting", "HAS_HABIT", Modality::kAsserted), t4).valid);
}

TEST(ExtractRuleVerifier, AStanceOfSomeoneElseIsNotTheSpeakers) {
  RuleVerifier v;
  const Turn t1 = MakeTurn("Then I have no doubt they'll love the icecream!");
  EXPECT_FALSE(v.Verify(Cand(t1.text, "icecream", "LIKES", Modality::kAsserted), t1).valid);
  const Turn t2 = MakeTurn("She hates olives, so no tapenade.");
  EXPECT_FALSE(v.Verify(Cand(t2.text, "olives", "DISLIKES", Modality::kAsserted), t2).valid);
  // The speaker in the same clause, or no one named at all, keeps it.
  const Turn t3 = MakeTurn("They say it's overrated, but I love jazz.");
  EXPECT_TRUE(v.Verify(Cand(t3.text, "jazz", "LIKES", Modality::kAsserted), t3).valid);
  const Turn t4 = MakeTurn("Money's tight so it's Kinetra or nothing.");
  EXPECT_TRUE(v.Verify(Cand(t4.text, "Kinetra", "USES", Modality::kAsserted), t4).valid);
}

// The verdict on (relation, tail, modality) said in `text`.
Verdict VerifyAs(const Verifier& v, const std::string& text, const std::string& tail, const std::string& rel,
                 Modality m) {
  const Turn t = MakeTurn(text);
  return v.Verify(Cand(t.text, tail, rel, m), t);
}

TEST(ExtractRuleVerifier, AStancePlacedInThePastNoLongerHolds) {
  RuleVerifier v;
  auto past = [&](const std::string& text, const std::string& tail, const std::string& rel) {
    const Verdict d = VerifyAs(v, text, tail, rel, Modality::kAsserted);
    EXPECT_TRUE(d.valid) << text;
    return d.modality == Modality::kPast;
  };
  EXPECT_TRUE(past("Back in the day I'd queue for every Marvel premiere.", "Marvel premiere", "LIKES"));
  EXPECT_TRUE(past("Ten years ago I was mad about rally driving.", "rally driving", "LIKES"));
  EXPECT_TRUE(past("I was a vegetarian in my thirties.", "vegetarian", "FOLLOWS_DIET"));
  EXPECT_TRUE(past("We used to take the ferry to Bergen every summer.", "ferry", "HAS_HABIT"));
  EXPECT_TRUE(past("Kind of Blue had me hooked at one point, though that's behind me.", "Kind of Blue", "LIKES"));
  EXPECT_TRUE(past("In the past I was big on rally driving.", "rally driving", "LIKES"));
  EXPECT_TRUE(past("I was a huge fan of synth pop once, these days not so much.", "synth pop", "LIKES"));
  // A frequency with "once" is no past.
  EXPECT_FALSE(past("I mow the lawn once a week.", "lawn", "HAS_HABIT"));
  EXPECT_FALSE(past("I go to the allotment at least once.", "allotment", "HAS_HABIT"));
  // The clause after a contrast is current; so is the accustomed sense of "used to".
  EXPECT_FALSE(past("I used to hate olives, but now I adore capers.", "capers", "LIKES"));
  EXPECT_TRUE(past("I used to hate olives, but now I adore capers.", "olives", "DISLIKES"));
  EXPECT_FALSE(past("Still getting used to the tram, it beats driving.", "tram", "USES"));
  // The simple past alone is a stance held now; kin stay kin.
  EXPECT_FALSE(past("I loved Titanic.", "Titanic", "LIKES"));
  EXPECT_FALSE(past("My uncle used to fix clocks.", "uncle", "HAS_RELATIVE"));
}

// Rule 17: a liking negated "anymore", and what the speaker stopped doing or liking, ended; read
// as a dislike held once, the old liking stayed current in the graph.
TEST(ExtractRuleVerifier, AStanceOrHabitThatStoppedHasEnded) {
  RuleVerifier v;
  auto verdict = [&](const std::string& text, const std::string& tail, const std::string& rel, Modality m) {
    const Verdict d = VerifyAs(v, text, tail, rel, m);
    EXPECT_TRUE(d.valid) << text;
    return (d.relation.empty() ? rel : d.relation) + "/" + (d.modality ? ModalityName(*d.modality) : "unchanged");
  };
  const auto kPast = Modality::kPast, kAsserted = Modality::kAsserted;
  EXPECT_EQ(verdict("Tbh I don't really enjoy board games anymore.", "board games", "DISLIKES", kPast), "LIKES/past");
  EXPECT_EQ(verdict("Tbh I don't really enjoy board games anymore.", "board games", "DISLIKES", kAsserted),
            "LIKES/past");
  EXPECT_EQ(verdict("I'm not a fan of cruises any more.", "cruises", "DISLIKES", kPast), "LIKES/past");
  EXPECT_EQ(verdict("I stopped going to the climbing gym.", "climbing gym", "HAS_HABIT", kAsserted), "HAS_HABIT/past");
  EXPECT_EQ(verdict("We gave up the allotment last spring.", "allotment", "HAS_HABIT", kAsserted), "HAS_HABIT/past");
  EXPECT_EQ(verdict("I stopped watching reality TV.", "reality TV", "DISLIKES", kPast), "LIKES/past");
  EXPECT_EQ(verdict("I've gone off sparkling wine.", "sparkling wine", "HAS_HABIT", kAsserted), "LIKES/past");
  EXPECT_EQ(verdict("Honestly I lost interest in crosswords.", "crosswords", "LIKES", kAsserted), "LIKES/past");
  // Not stopped: negated, planned, nearly; a dislike that has ended and a longing are left alone.
  EXPECT_FALSE(VerifyAs(v, "I never quit knitting, even in hospital.", "knitting", "HAS_HABIT", kAsserted)
                   .modality.has_value());
  EXPECT_EQ(verdict("I should give up sugar.", "sugar", "LIKES", kAsserted), "LIKES/unchanged");
  EXPECT_EQ(verdict("I almost quit the choir in May.", "choir", "HAS_HABIT", kAsserted), "HAS_HABIT/unchanged");
  EXPECT_EQ(verdict("I don't hate olives anymore.", "olives", "LIKES", kPast), "LIKES/unchanged");
  EXPECT_EQ(verdict("I don't miss my old flip phone anymore.", "flip phone", "LIKES", kPast), "LIKES/unchanged");
}

TEST(ExtractRuleVerifier, WhatWasTakenUpInsteadIsCurrent) {
  RuleVerifier v;
  auto verdict = [&](const std::string& text, const std::string& tail, const std::string& rel, Modality m) {
    const Verdict d = VerifyAs(v, text, tail, rel, m);
    EXPECT_TRUE(d.valid) << text;
    return d.modality;
  };
  const auto kPast = Modality::kPast;
  EXPECT_EQ(verdict("I ditched Netflix in favour of Mubi.", "Mubi", "USES", kPast), Modality::kAsserted);
  EXPECT_EQ(verdict("Honestly I prefer Tidal to Spotify.", "Tidal", "LIKES", kPast), Modality::kAsserted);
  EXPECT_EQ(verdict("We switched from Spotify to Tidal last month.", "Tidal", "USES", kPast), Modality::kAsserted);
  // What was left, and a preference without a second term, keep the classifier's modality.
  EXPECT_FALSE(verdict("Honestly I prefer Tidal to Spotify.", "Spotify", "LIKES", kPast).has_value());
  EXPECT_FALSE(verdict("I prefer Tidal.", "Tidal", "LIKES", kPast).has_value());
  EXPECT_FALSE(verdict("I prefer to cook at home.", "cook at home", "LIKES", Modality::kAsserted).has_value());
}

// The verdict on an asserted (relation, tail) said in `text`.
Verdict VerifyAsserted(const Verifier& v, const std::string& text, const std::string& tail, const std::string& rel) {
  return VerifyAs(v, text, tail, rel, Modality::kAsserted);
}

bool ValidAsserted(const Verifier& v, const std::string& text, const std::string& tail, const std::string& rel) {
  return VerifyAsserted(v, text, tail, rel).valid;
}

TEST(ExtractRuleVerifier, ATailMustNameAThing) {
  RuleVerifier v;
  // A verb before its object, the noun of a light-verb idiom, a person addressed.
  EXPECT_FALSE(ValidAsserted(v, "Just water them twice a week and feed them in spring.", "feed", "LIKES"));
  EXPECT_FALSE(ValidAsserted(v, "Lately I hang out at the climbing gym every Friday.", "hang", "HAS_HABIT"));
  EXPECT_FALSE(ValidAsserted(v, "I'll give bouldering a go next week.", "go", "LIKES"));
  EXPECT_FALSE(
      ValidAsserted(v, "One kid was brilliant, I gave him extra credit.", "him extra credit", "HAS_CONDITION"));
  EXPECT_FALSE(ValidAsserted(v, "Gave Sonder Falls a fair try, loathed it.", "fair try", "DISLIKES"));
  EXPECT_FALSE(ValidAsserted(v, "Brilliant news, Priya!", "Priya", "LIKES"));
  EXPECT_FALSE(ValidAsserted(v, "Hi Tomas, how was the trip?", "Tomas", "LIKES"));
  // The thing itself stays, and so do nouns that only look like those.
  EXPECT_TRUE(ValidAsserted(v, "Gave Sonder Falls a fair try, loathed it.", "Sonder Falls", "DISLIKES"));
  EXPECT_TRUE(ValidAsserted(v, "I love feeding ducks at the pond.", "feeding ducks", "LIKES"));
  EXPECT_TRUE(ValidAsserted(v, "I like a shot of espresso after lunch.", "shot", "LIKES"));
  EXPECT_TRUE(ValidAsserted(v, "We love warm up games before practice.", "warm up games", "LIKES"));
  EXPECT_TRUE(ValidAsserted(v, "I adore Heat, Ronin.", "Ronin", "LIKES"));
  EXPECT_TRUE(ValidAsserted(v, "My favourite city is Lisbon!", "Lisbon", "LIKES"));
  EXPECT_TRUE(ValidAsserted(v, "I love jazz, Coltrane above all.", "Coltrane", "LIKES"));
  // "Feel like" is a wish, not a liking.
  const Verdict wish = VerifyAsserted(v, "Rainy days make me feel like baking a crumble.", "crumble", "LIKES");
  EXPECT_TRUE(wish.valid);
  EXPECT_EQ(wish.relation, "WANTS");
  EXPECT_TRUE(VerifyAsserted(v, "I feel great, and I like crumble.", "crumble", "LIKES").relation.empty());
  // A diet is a person's, not a loaf's.
  EXPECT_FALSE(ValidAsserted(v, "It's gluten-free bread, so grab a slice.", "gluten-free", "FOLLOWS_DIET"));
  EXPECT_TRUE(ValidAsserted(v, "Come to think of it, we're vegan now.", "vegan", "FOLLOWS_DIET"));
  EXPECT_TRUE(ValidAsserted(v, "I'm keto and it works.", "keto", "FOLLOWS_DIET"));
}

TEST(ExtractRuleVerifier, TheListenersThingIsNotTheSpeakers) {
  RuleVerifier v;
  // Praise of the listener's things says nothing the speaker holds.
  EXPECT_FALSE(ValidAsserted(v, "Proud of you for starting your own bakery!", "bakery", "HAS_HABIT"));
  EXPECT_FALSE(ValidAsserted(v, "I love your new garden shed, it looks great.", "garden shed", "LIKES"));
  // "your" in another clause leaves the speaker's own stance alone.
  EXPECT_TRUE(ValidAsserted(v, "Thanks for your advice, I love my new garden shed.", "garden shed", "LIKES"));
  EXPECT_TRUE(ValidAsserted(v, "Not your fault, but I can't stand cilantro.", "cilantro", "DISLIKES"));
}

// A stance put in someone else's mouth, or a question to the listener about a thing (with or
// without its question mark), is no stance of the speaker's (rule 14).
TEST(ExtractRuleVerifier, AttributedOrAskedAboutIsNoStance) {
  RuleVerifier v;
  EXPECT_FALSE(ValidAsserted(v, "According to Priya, the Bristol jazz fest is unmissable.", "Bristol jazz fest", "LIKES"));
  EXPECT_FALSE(ValidAsserted(v, "According to my brother, hybrid engines are a con.", "hybrid engines", "DISLIKES"));
  EXPECT_FALSE(ValidAsserted(v, "Honestly, dahlias are Tomas's big thing.", "dahlias", "LIKES"));
  EXPECT_FALSE(ValidAsserted(v, "So, could you fill me in on rally driving.", "rally driving", "LIKES"));
  EXPECT_FALSE(ValidAsserted(v, "What can you tell me about bonsai pruning?", "bonsai pruning", "LIKES"));
  EXPECT_FALSE(ValidAsserted(v, "Any thoughts on synth pop", "synth pop", "LIKES"));
  // The speaker's own stance or thing stays: a stance word of theirs in the sentence, "according
  // to me", a question about what they own.
  EXPECT_TRUE(ValidAsserted(v, "Can you suggest something like Kind of Blue, which I loved?", "Kind of Blue", "LIKES"));
  EXPECT_TRUE(ValidAsserted(v, "According to me, vinyl sounds best.", "vinyl", "LIKES"));
  EXPECT_TRUE(ValidAsserted(v, "Can you tell me how to clean my lawnmower?", "lawnmower", "OWNS"));
  EXPECT_TRUE(ValidAsserted(v, "Tomas says hi, and I still love dahlias.", "dahlias", "LIKES"));
}

TEST(ExtractRuleVerifier, ARelativeIsSomeoneAndAConditionAState) {
  // WordNet and the ontology are installed by scripts/setup.sh.
  const FeatureResources res = DefaultResources();
  ASSERT_TRUE(res.lexname && res.type_check) << "WordNet or the ontology is missing";
  RuleVerifier v(res);
  // Nothing WordNet knows of these is a person or a group.
  EXPECT_FALSE(ValidAsserted(v, "For me it's quiet evenings with my animals and a book.", "animals", "HAS_RELATIVE"));
  EXPECT_FALSE(ValidAsserted(v, "My writing keeps me sane these days.", "writing", "HAS_RELATIVE"));
  EXPECT_FALSE(ValidAsserted(v, "My friend the mountain, as I call it.", "mountain", "HAS_FRIEND"));
  // People, groups, and words WordNet does not know (names, ages) stay.
  EXPECT_TRUE(ValidAsserted(v, "My twins start school in September.", "twins", "HAS_RELATIVE"));
  EXPECT_TRUE(ValidAsserted(v, "My in-law is visiting.", "in-law", "HAS_RELATIVE"));
  EXPECT_TRUE(ValidAsserted(v, "My seven-year-old only watches cartoons.", "seven-year-old", "HAS_RELATIVE"));
  EXPECT_TRUE(ValidAsserted(v, "My housemate Okonkwo cooks on Fridays.", "Okonkwo", "HAS_FRIEND"));
  EXPECT_TRUE(ValidAsserted(v, "We do game night with my family.", "family", "HAS_RELATIVE"));
  // Nobody uses a group of people; a tool stays.
  EXPECT_FALSE(ValidAsserted(v, "We volunteer to help rural communities get online.", "rural communities", "USES"));
  EXPECT_TRUE(ValidAsserted(v, "I do all my sketches on a tablet.", "tablet", "USES"));
  // An allergen is a food, plant, animal, substance or product; an invented dish name stays.
  EXPECT_FALSE(ValidAsserted(v, "Gotta make time to dance and vent, that's for sure.", "dance", "ALLERGIC_TO"));
  EXPECT_FALSE(ValidAsserted(v, "We had to rely on help from our auntie.", "auntie", "ALLERGIC_TO"));
  EXPECT_TRUE(ValidAsserted(v, "I'm allergic to shellfish.", "shellfish", "ALLERGIC_TO"));
  EXPECT_TRUE(ValidAsserted(v, "Bee stings make me swell up.", "Bee stings", "ALLERGIC_TO"));
  EXPECT_TRUE(ValidAsserted(v, "Latex gloves give me a rash.", "Latex", "ALLERGIC_TO"));
  EXPECT_TRUE(ValidAsserted(v, "I react badly to zorbanut paste.", "zorbanut paste", "ALLERGIC_TO"));
  // A condition is a state: a food one struggles with is disliked, a company is no condition.
  const Verdict food = VerifyAsserted(v, "Honestly I struggle with aubergines.", "aubergines", "HAS_CONDITION");
  EXPECT_TRUE(food.valid);
  EXPECT_EQ(food.relation, "DISLIKES");
  EXPECT_FALSE(ValidAsserted(v, "I signed a deal with a big insurance company.", "insurance company", "HAS_CONDITION"));
  const Verdict asthma = VerifyAsserted(v, "I was diagnosed with asthma last spring.", "asthma", "HAS_CONDITION");
  EXPECT_TRUE(asthma.valid);
  EXPECT_TRUE(asthma.relation.empty());
}

TEST(ExtractRuleVerifier, ANamedConditionDietOrBeliefIsThatState) {
  const FeatureResources res = DefaultResources();
  ASSERT_TRUE(res.named_state && res.lexname) << "WordNet or the ontology is missing";
  RuleVerifier v(res);
  // The copula "I'm X" read as the wrong relation: the tail's name decides.
  EXPECT_EQ(VerifyAsserted(v, "I'm coeliac, so no bread.", "coeliac", "BELIEVES").relation, "HAS_CONDITION");
  EXPECT_EQ(VerifyAsserted(v, "I'm vegan btw.", "vegan", "WORKS_AS").relation, "FOLLOWS_DIET");
  EXPECT_EQ(VerifyAsserted(v, "I'm Catholic, for what it's worth.", "catholic", "WORKS_AS").relation, "BELIEVES");
  // "diabetic" is first a person in WordNet; as a condition's name it is no person (rule 12).
  const Verdict diabetic = VerifyAsserted(v, "I'm diabetic.", "diabetic", "BELIEVES");
  EXPECT_TRUE(diabetic.valid);
  EXPECT_EQ(diabetic.relation, "HAS_CONDITION");
  // A condition is no taste; a diet or a belief can be ("I love being vegan" stays a liking).
  EXPECT_EQ(VerifyAsserted(v, "I'm celiac so no bread for me.", "celiac", "DISLIKES").relation, "HAS_CONDITION");
  const Verdict liking = VerifyAsserted(v, "I love being vegan.", "vegan", "LIKES");
  EXPECT_TRUE(liking.valid);
  EXPECT_TRUE(liking.relation.empty());
  // Other tails keep their relation; the state relation's own reading is unchanged.
  EXPECT_TRUE(VerifyAsserted(v, "I'm a nurse on the night shift.", "nurse", "WORKS_AS").relation.empty());
  EXPECT_TRUE(VerifyAsserted(v, "I have asthma.", "asthma", "HAS_CONDITION").relation.empty());
}

// Rule 16: a diet's tail names a diet or reads as one; the relation model's diets from a closed
// list taught it that hyphenated words and times are diets.
TEST(ExtractRuleVerifier, ADietTailNamesADiet) {
  const FeatureResources res = DefaultResources();
  ASSERT_TRUE(res.named_state) << "the ontology is missing";
  RuleVerifier v(res);
  for (const auto& [text, tail] : std::vector<std::pair<std::string, std::string>>{
           {"Kuba has swimming on Tuesday at four-fifteen.", "four-fifteen"},
           {"I always click place-order too fast.", "place-order"},
           {"Her shifts run 19:00 to 07:00.", "00"},
           {"I had soup for lunch.", "soup"}}) {
    const Verdict d = VerifyAsserted(v, text, tail, "FOLLOWS_DIET");
    EXPECT_FALSE(d.valid) << text;
    EXPECT_EQ(d.reason, "no diet named") << text;
  }
  // Diets the ontology names, and ones it does not that read as diets, stay.
  for (const auto& [text, tail] : std::vector<std::pair<std::string, std::string>>{
           {"I've been vegetarian for years.", "vegetarian"},
           {"We keep halal at home.", "halal"},
           {"I went wheat-free last spring.", "wheat-free"},
           {"My cardiologist put me on a low-sodium diet.", "low-sodium diet"},
           {"I'm flexitarian these days.", "flexitarian"},
           {"I follow the DASH diet.", "DASH"},
           {"I'm on a strict no pork rule.", "no pork"}})
    EXPECT_TRUE(VerifyAsserted(v, text, tail, "FOLLOWS_DIET").valid) << text;
  // Without the ontology nothing is known about diets, and nothing is rejected for it.
  FeatureResources bare = res;
  bare.named_state = nullptr;
  EXPECT_TRUE(VerifyAsserted(RuleVerifier(bare), "I had soup for lunch.", "soup", "FOLLOWS_DIET").valid);
}

// The shipped models (models/extractor, or $ONTOMEM_MODELS) on sentences from other domains.
class ShippedExtractor : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto e = Extractor::Open(ExtractorOptions(), DefaultResources());
    if (e.ok()) extractor_ = std::move(e).value();
    else error_ = e.status().ToString();
  }
  static void TearDownTestSuite() { extractor_.reset(); }
  void SetUp() override { ASSERT_TRUE(extractor_) << error_; }

  struct Case {
    std::string text, tail, relation;
    Modality modality;
    std::string head;  // "" = the speaker
  };
  // The accepted assertions overlapping `c.tail`: the case holds when one has the expected
  // relation, modality and head, and none contradicts its polarity.
  static void Check(const Case& c) {
    Turn t;
    t.id = "T1";
    t.speaker = "Ana";
    t.text = c.text;
    const int32_t b = static_cast<int32_t>(c.text.find(c.tail)), e = b + static_cast<int32_t>(c.tail.size());
    ASSERT_GE(b, 0) << c.tail;
    bool found = false;
    std::string seen;
    std::string below;  // candidates under the threshold, for the failure message
    for (const auto& a : extractor_->Extract(t, 1)) {
      if (a.tail_end <= b || a.tail_begin >= e) continue;
      const std::string desc = " " + a.relation + "/" + ModalityName(a.modality) + "(head " + a.head + ", " +
                               std::to_string(a.confidence).substr(0, 4) + ")";
      if (a.confidence < extractor_->threshold()) {
        below += desc;
        continue;
      }
      seen += desc;
      const bool head_ok = c.head.empty() ? a.head_is_speaker : (!a.head_is_speaker && a.head == c.head);
      found |= a.relation == c.relation && a.modality == c.modality && head_ok;
      const bool opposite = (c.relation == "LIKES" && a.relation == "DISLIKES") ||
                            (c.relation == "DISLIKES" && a.relation == "LIKES");
      EXPECT_FALSE(opposite && a.modality == c.modality) << c.text << " -> opposite polarity:" << seen;
      if (c.modality != Modality::kAsserted && a.head_is_speaker == c.head.empty()) {
        EXPECT_NE(a.modality, Modality::kAsserted) << c.text << " -> read as a current fact:" << seen;
      }
      if (!c.head.empty() && a.head_is_speaker) {
        EXPECT_NE(a.relation, c.relation) << c.text << " -> given to the speaker:" << seen;
      }
    }
    EXPECT_TRUE(found) << c.text << " -> expected " << c.relation << "/" << ModalityName(c.modality)
                       << ", got:" << (seen.empty() ? " nothing" : seen) << "; under the threshold:" << below;
  }

  static std::unique_ptr<Extractor> extractor_;
  static std::string error_;
};
std::unique_ptr<Extractor> ShippedExtractor::extractor_;
std::string ShippedExtractor::error_;

TEST_F(ShippedExtractor, DoubleNegationIsALiking) {
  Check({"Honestly, my old Volvo has never let me down.", "Volvo", "LIKES", Modality::kAsserted, ""});
  Check({"I can't get enough of bluegrass.", "bluegrass", "LIKES", Modality::kAsserted, ""});
  Check({"Sea shanties never get old.", "Sea shanties", "LIKES", Modality::kAsserted, ""});
  Check({"I wouldn't miss the vintage car show for anything.", "vintage car show", "LIKES", Modality::kAsserted, ""});
}

TEST_F(ShippedExtractor, NegatedLikingIsADislike) {
  Check({"I'm not a big fan of electric guitars.", "electric guitars", "DISLIKES", Modality::kAsserted, ""});
  Check({"I can't stand leaf blowers.", "leaf blowers", "DISLIKES", Modality::kAsserted, ""});
  Check({"I've never been into minivans.", "minivans", "DISLIKES", Modality::kAsserted, ""});
}

// Idioms of the idiom drills (src/extract/drills.cc), over things they do not list, in which the
// main perceptrons find nothing: the shipped fallback perceptrons read them (docs/extraction.md).
// Each fails with the models of before session 32 (no extractor/fallback/). The fallback is not
// asked when the main models misread a turn: "cruise ships make my skin crawl" stays LIKES.
TEST_F(ShippedExtractor, IdiomsOfTasteThroughTheFallback) {
  Check({"Give me spaghetti westerns any day of the week.", "spaghetti westerns", "LIKES", Modality::kAsserted, ""});
  Check({"I can't be doing with horror films.", "horror films", "DISLIKES", Modality::kAsserted, ""});
  Check({"Thai curry hits the spot every time.", "Thai curry", "LIKES", Modality::kAsserted, ""});
}

TEST_F(ShippedExtractor, NegatedFact) {
  Check({"I don't own a lawnmower.", "lawnmower", "OWNS", Modality::kNegated, ""});
  Check({"I've never owned a convertible.", "convertible", "OWNS", Modality::kNegated, ""});
}

TEST_F(ShippedExtractor, Hypotheticals) {
  Check({"I might get a greenhouse someday.", "greenhouse", "OWNS", Modality::kHypothetical, ""});
}

// Known miss (run with --gtest_also_run_disabled_tests): "convertible" is an adjective in
// WordNet's first sense and the tagger leaves it out; the determiner-phrase proposal brings it
// back as a candidate, OWNS/hypothetical, but the scorer keeps it under the threshold (0.31-0.76
// across retrains with different drills: not stable enough to assert).
TEST_F(ShippedExtractor, DISABLED_HypotheticalKnownMisses) {
  Check({"If I ever buy a convertible, I'll drive it to the coast.", "convertible", "OWNS", Modality::kHypothetical, ""});
}

// "might try" is a liking to test, not a purchase; conditionals give hypotheticals.
TEST_F(ShippedExtractor, HypotheticalConditionalsAndTrials) {
  Check({"I might try the ukulele one day.", "ukulele", "LIKES", Modality::kHypothetical, ""});
  Check({"If I could afford it, I'd buy a sailboat.", "sailboat", "OWNS", Modality::kHypothetical, ""});
  Check({"If I ever adopt a parrot, I'll teach it to sing.", "parrot", "HAS_PET", Modality::kHypothetical, ""});
}

// Nothing in a conditional sentence's antecedent or modal consequent is a current fact.
TEST_F(ShippedExtractor, ConditionalStatesNothingCurrent) {
  for (const std::string text : {"If I ever buy a convertible, I'll drive it to the coast.",
                                 "If I had a bigger yard, I'd plant tomatoes.",
                                 "I'd grow my own herbs if I had a balcony."}) {
    Turn t;
    t.id = "T1";
    t.speaker = "Ana";
    t.text = text;
    for (const auto& a : extractor_->Extract(t, 1)) {
      if (a.confidence < extractor_->threshold()) continue;
      EXPECT_NE(a.modality, Modality::kAsserted) << text << " -> " << a.relation << " '" << a.tail
                                                 << "' read as a current fact";
    }
  }
}

TEST_F(ShippedExtractor, ReportedSpeech) {
  Check({"My brother can't get enough of heavy metal.", "heavy metal", "LIKES", Modality::kReported, "brother"});
  Check({"My sister loves vintage Porsches.", "vintage Porsches", "LIKES", Modality::kReported, "sister"});
  Check({"My dad has never liked hydrangeas.", "hydrangeas", "DISLIKES", Modality::kReported, "dad"});
}

// A named holder is the head, whatever the name; the speaker gets nothing from it.
TEST_F(ShippedExtractor, ReportedSpeechWithAName) {
  Check({"Sarah loves bluegrass.", "bluegrass", "LIKES", Modality::kReported, "Sarah"});
  Check({"My friend Tom can't stand synth pop.", "synth pop", "DISLIKES", Modality::kReported, "Tom"});
  Check({"Priya has never liked minivans.", "minivans", "DISLIKES", Modality::kReported, "Priya"});
  Check({"My coworker Jenny hates leaf blowers.", "leaf blowers", "DISLIKES", Modality::kReported, "Jenny"});
}

// Update turns: the old value past, the new one current, whatever the relation.
TEST_F(ShippedExtractor, UpdatesMakeTheOldValuePast) {
  struct Update {
    std::string text, old_value, new_value;
  };
  for (const Update& u : std::vector<Update>{
           {"I used to love punk rock, but these days I'm into bluegrass.", "punk rock", "bluegrass"},
           {"I've switched from roses to succulents.", "roses", "succulents"},
           {"I switched from the guitar to the piano last year.", "guitar", "piano"},
           {"I'm not into minivans anymore, I've moved on to SUVs.", "minivans", "SUVs"},
           {"Back then I drove a Jeep, now I drive a Prius.", "Jeep", "Prius"}}) {
    Turn t;
    t.id = "T1";
    t.speaker = "Ana";
    t.text = u.text;
    const auto modalities = [&](const std::string& tail) {
      const int32_t b = static_cast<int32_t>(u.text.find(tail)), e = b + static_cast<int32_t>(tail.size());
      std::vector<Modality> m;
      for (const auto& a : extractor_->Extract(t, 1))
        if (a.confidence >= extractor_->threshold() && a.head_is_speaker && a.tail_begin < e && a.tail_end > b)
          m.push_back(a.modality);
      return m;
    };
    const auto has = [](const std::vector<Modality>& v, Modality m) { return std::find(v.begin(), v.end(), m) != v.end(); };
    const auto old_m = modalities(u.old_value), new_m = modalities(u.new_value);
    EXPECT_TRUE(has(old_m, Modality::kPast)) << u.text << ": old value " << u.old_value << " not past";
    EXPECT_FALSE(has(old_m, Modality::kAsserted)) << u.text << ": old value " << u.old_value << " still current";
    EXPECT_TRUE(has(new_m, Modality::kAsserted)) << u.text << ": new value " << u.new_value << " not current";
    EXPECT_FALSE(has(new_m, Modality::kPast)) << u.text << ": new value " << u.new_value << " read as past";
  }
  Check({"I was really into roses, not anymore.", "roses", "LIKES", Modality::kPast, ""});
}

TEST_F(ShippedExtractor, WhatStoppedHasEnded) {
  Check({"Tbh we don't enjoy camping anymore since the baby.", "camping", "LIKES", Modality::kPast, ""});
  Check({"I've gone off sparkling wine.", "sparkling wine", "LIKES", Modality::kPast, ""});
  Check({"I stopped playing squash.", "playing squash", "LIKES", Modality::kPast, ""});
}

TEST_F(ShippedExtractor, PastIsNotCurrent) {
  Check({"I used to love punk rock.", "punk rock", "LIKES", Modality::kPast, ""});
  Check({"Back in high school I loved drag racing.", "drag racing", "LIKES", Modality::kPast, ""});
}

TEST_F(ShippedExtractor, GroupFirstPersonIsTheSpeaker) {
  Check({"My household went gluten-free last winter.", "gluten-free", "FOLLOWS_DIET", Modality::kAsserted, ""});
  Check({"Everybody under our roof is pescatarian.", "pescatarian", "FOLLOWS_DIET", Modality::kAsserted, ""});
  Check({"In our family nobody eats shellfish.", "shellfish", "AVOIDS", Modality::kAsserted, ""});
}

}  // namespace
}  // namespace ontomem::extract
