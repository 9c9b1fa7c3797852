// The generated extraction drills: deterministic, spans on the text, questions without facts,
// and the idiom drills a separate stream that leaves the older drills as they were.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "extract/drills.h"
#include "test_util.h"

namespace ontomem::extract {
namespace {

TEST(IdiomDrills, AreDeterministicWithTheirOwnIds) {
  const auto a = GenerateIdiomDrills(200, 7), b = GenerateIdiomDrills(200, 7), c = GenerateIdiomDrills(200, 8);
  ASSERT_EQ(a.size(), 200u);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, "idiom/" + std::to_string(i));
    EXPECT_EQ(a[i].text, b[i].text);
    differs |= a[i].text != c[i].text;
  }
  EXPECT_TRUE(differs) << "another seed gives other drills";
  EXPECT_TRUE(GenerateIdiomDrills(0, 7).empty());
}

TEST(IdiomDrills, SpansNameTheTailAndQuestionsStateNothing) {
  size_t facts = 0, negatives = 0;
  for (const auto& d : GenerateIdiomDrills(400, 3)) {
    for (const auto& f : d.facts) {
      ASSERT_GE(f.tail_begin, 0) << d.text;
      ASSERT_LT(f.tail_begin, f.tail_end) << d.text;
      ASSERT_LE(static_cast<size_t>(f.tail_end), d.text.size()) << d.text;
      EXPECT_NE(d.text[static_cast<size_t>(f.tail_begin)], ' ') << d.text;
      EXPECT_TRUE(f.head_is_speaker) << d.text;
      ++facts;
    }
    // Only the negative templates (questions to the addressee, "a day off") state nothing.
    if (d.facts.empty()) {
      EXPECT_TRUE(d.text.find('?') != std::string::npos || d.text.find("day off") != std::string::npos) << d.text;
      ++negatives;
    }
  }
  EXPECT_GT(facts, 250u);
  EXPECT_GT(negatives, 5u);
}

// The older drills' stream, pinned (the installed extractor was trained on it, and `train
// extractor --idiom-drills 0` reproduces its files byte for byte): FNV-1a of the texts, one per line.
uint64_t TextHash(const std::vector<AnnotatedTurn>& turns) {
  std::string all;
  for (const auto& t : turns) all += t.text + "\n";
  return ontomem::testing::Fnv1a64(all);
}

TEST(IdiomDrills, LeaveTheOtherDrillsAsTheyWere) {
  const auto d = GenerateDrills(6000, 20261203);
  ASSERT_EQ(d.size(), 6000u);
  for (size_t i = 0; i < 50; ++i) EXPECT_EQ(d[i].id, "drill/" + std::to_string(i));
  EXPECT_EQ(TextHash(d), 370564552033218411ULL);
  // The idiom list is a separate template list: none of its idioms appears in the old stream.
  for (const auto& t : GenerateDrills(2000, 11)) {
    EXPECT_EQ(t.text.find("sucker for"), std::string::npos) << t.text;
    EXPECT_EQ(t.text.find("up the wall"), std::string::npos) << t.text;
  }
}

}  // namespace
}  // namespace ontomem::extract
