// The fallback perceptrons (ExtractorModels::fallback): asked only for a turn the main models
// give no current fact about its speaker, and only such facts of theirs are kept; saved and
// loaded with the main models, never left stale.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "extract/drills.h"
#include "extract/extractor.h"
#include "extract/models.h"
#include "extract/train.h"
#include "extract_fixtures.h"
#include "test_util.h"

namespace ontomem::extract {
namespace {

namespace fs = std::filesystem;

bool CurrentOfSpeaker(const Assertion& a) { return AboutSpeaker(a.modality, a.head_is_speaker); }

bool SameAssertion(const Assertion& a, const Assertion& b) {
  return a.relation == b.relation && a.tail_begin == b.tail_begin && a.tail_end == b.tail_end &&
         a.modality == b.modality && a.head_is_speaker == b.head_is_speaker && a.confidence == b.confidence;
}

class ExtractFallback : public ::testing::Test {
 protected:
  // Main models that never saw an idiom drill; the fallback saw 1,000.
  static void SetUpTestSuite() {
    std::vector<AnnotatedTurn> plain = GenerateDrills(1500, 11);
    std::vector<AnnotatedTurn> idioms = plain;
    for (auto& d : GenerateIdiomDrills(1000, 12)) idioms.push_back(std::move(d));
    TrainOptions o;
    o.scorer_epochs = 15;
    TrainStats stats;
    auto main_models = TrainModels(plain, ClusterTable(), FeatureResources(), o, &stats);
    main_ = Extractor::FromModels(main_models, ExtractorOptions());
    // Models that read nothing (trained on turns without facts), with the drills' models as
    // their fallback: every reading then comes from the fallback.
    std::vector<AnnotatedTurn> nothing = GenerateDrills(300, 13);
    for (auto& t : nothing) t.facts.clear();
    auto blank = TrainModels(nothing, ClusterTable(), FeatureResources(), o, &stats);
    blank->fallback = main_models;
    blank_ = Extractor::FromModels(blank, ExtractorOptions());
    auto with = std::make_shared<ExtractorModels>(*main_models);
    with->fallback = TrainModels(idioms, ClusterTable(), FeatureResources(), o, &stats);
    with_ = Extractor::FromModels(with, ExtractorOptions());
  }
  static void TearDownTestSuite() {
    main_.reset();
    with_.reset();
    blank_.reset();
  }
  static std::vector<Assertion> Main(const std::string& text) { return fixtures::Accepted(*main_, text); }
  static std::vector<Assertion> With(const std::string& text) { return fixtures::Accepted(*with_, text); }

  static std::unique_ptr<Extractor> main_, with_, blank_;
};
std::unique_ptr<Extractor> ExtractFallback::main_, ExtractFallback::with_, ExtractFallback::blank_;

TEST_F(ExtractFallback, ReadsIdiomsTheMainModelsMiss) {
  // Stance idioms of the fallback's drills over words the drills' vocabulary does not have.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Honestly, I'm a sucker for jigsaw puzzles.", "LIKES"},
      {"Opera drives me up the wall!", "DISLIKES"},
      {"Ballet leaves me cold.", "DISLIKES"},
      {"Give me goulash any day of the week.", "LIKES"},
      {"You won't catch me anywhere near karaoke.", "DISLIKES"},
      {"Mosaics make my skin crawl.", "DISLIKES"},
      {"Sea shanties are my guilty pleasure.", "LIKES"},
      {"Croquet is my happy place.", "LIKES"}};
  size_t missed = 0, read = 0;
  for (const auto& [text, relation] : cases) {
    bool main_read = false;
    for (const auto& a : Main(text)) main_read |= CurrentOfSpeaker(a);
    if (main_read) continue;
    ++missed;
    for (const auto& a : With(text))
      if (CurrentOfSpeaker(a) && a.relation == relation) {
        ++read;
        EXPECT_EQ(a.source_turn, "T1");
        break;
      }
  }
  // Small models without a word table: the claim is that the fallback reads idioms the main
  // models miss, with the right relation, and adds nothing else (next tests).
  ASSERT_GE(missed, 3u) << "the main models read these idioms already: pick others";
  EXPECT_GE(read, 2u) << read << " of " << missed;
}

TEST_F(ExtractFallback, KeepsTheMainReadingWhenThereIsOne) {
  for (const std::string text : {"I love jazz.", "I'm allergic to peanuts.", "I use Notion for everything."}) {
    const auto main = Main(text), with = With(text);
    bool current = false;
    for (const auto& a : main) current |= CurrentOfSpeaker(a);
    ASSERT_TRUE(current) << text;
    ASSERT_EQ(main.size(), with.size()) << text;
    for (size_t i = 0; i < main.size(); ++i) EXPECT_TRUE(SameAssertion(main[i], with[i])) << text;
  }
}

TEST_F(ExtractFallback, KeepsOnlyCurrentStancesOfTheSpeaker) {
  size_t current = 0;
  for (const std::string text : {"My sister loves jazz.", "I used to love jazz.", "I might give pottery a try.",
                                 "Tom can't stand crowds.", "I'm allergic to peanuts.", "I love jazz.",
                                 "I can't stand crowds."}) {
    ASSERT_TRUE(Main(text).size() > 0) << text << ": the drills' models read something here";
    for (const auto& a : fixtures::Accepted(*blank_, text)) {
      EXPECT_TRUE(CurrentOfSpeaker(a)) << text << ": " << a.relation << " " << a.tail;
      EXPECT_TRUE(a.relation == "LIKES" || a.relation == "DISLIKES") << text << ": " << a.relation;
      ++current;
    }
  }
  EXPECT_GE(current, 2u) << "\"I love jazz\" and \"I can't stand crowds\" are the speaker's current stances";
}

TEST(ExtractModels, FallbackIsSavedLoadedAndNeverStale) {
  TrainOptions o;
  o.scorer_epochs = 2;
  o.tagger_epochs = 2;
  o.relation_epochs = 2;
  TrainStats stats;
  auto m = TrainModels(GenerateDrills(200, 3), ClusterTable(), FeatureResources(), o, &stats);
  m->fallback = TrainModels(GenerateIdiomDrills(200, 4), ClusterTable(), FeatureResources(), o, &stats);
  const ontomem::testing::TempDir root("extract_fallback");
  const std::string dir = root.path() + "/extractor";
  ASSERT_TRUE(m->Save(dir).ok());
  ASSERT_TRUE(fs::exists(dir + "/fallback/scorer.bin"));
  auto loaded = ExtractorModels::Load(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_TRUE((*loaded)->fallback);
  EXPECT_EQ((*loaded)->fallback->scorer.Serialize(), m->fallback->scorer.Serialize());
  EXPECT_FALSE((*loaded)->fallback->fallback);
  // A damaged fallback file fails the load, naming it.
  ontomem::testing::DamageByte(dir + "/fallback/relation.bin", 200);
  auto bad = ExtractorModels::Load(dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fallback/relation.bin"), std::string::npos) << bad.status().message();
  // Models trained without a fallback do not keep an earlier one.
  m->fallback.reset();
  ASSERT_TRUE(m->Save(dir).ok());
  EXPECT_FALSE(fs::exists(dir + "/fallback"));
  auto plain = ExtractorModels::Load(dir);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_FALSE((*plain)->fallback);
}

}  // namespace
}  // namespace ontomem::extract
