// The WordNet 3.0 reader over Debian's wordnet-base (skipped when /usr/share/wordnet is absent;
// `make setup` installs it).
#include "ontology/wordnet.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace ontomem {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class WordNetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(DefaultWordNetDir() + "/index.noun")) {
      GTEST_SKIP() << "WordNet not installed at " << DefaultWordNetDir() << " (make setup)";
    }
    auto t0 = std::chrono::steady_clock::now();
    auto wn = WordNet::Open();
    open_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(wn.ok()) << wn.status().ToString();
    wn_ = *wn;
  }
  std::shared_ptr<const WordNet> wn_;
  double open_ms_ = 0;
};

TEST_F(WordNetTest, OpensFast) { EXPECT_LT(open_ms_, 200.0); }

TEST_F(WordNetTest, Morphy) {
  EXPECT_TRUE(Contains(wn_->Morphy("ran", WordNetPos::kVerb), "run"));
  EXPECT_TRUE(Contains(wn_->Morphy("mice", WordNetPos::kNoun), "mouse"));
  EXPECT_TRUE(Contains(wn_->Morphy("better", WordNetPos::kAdj), "good"));
  EXPECT_TRUE(Contains(wn_->Morphy("dogs", WordNetPos::kNoun), "dog"));
  EXPECT_TRUE(Contains(wn_->Morphy("churches", WordNetPos::kNoun), "church"));
  EXPECT_TRUE(Contains(wn_->Morphy("cooking", WordNetPos::kVerb), "cook"));
  EXPECT_TRUE(Contains(wn_->Morphy("Ice Creams", WordNetPos::kNoun), "ice_cream"));
  EXPECT_EQ(wn_->Morphy("glass", WordNetPos::kNoun), std::vector<std::string>{"glass"});
  EXPECT_TRUE(wn_->Morphy("zyzzyvax", WordNetPos::kNoun).empty());
  EXPECT_TRUE(wn_->Morphy("", WordNetPos::kNoun).empty());
}

TEST_F(WordNetTest, SynsetsLexnamesLemmas) {
  auto dog = wn_->Synsets("dog", WordNetPos::kNoun);
  ASSERT_GE(dog.size(), 5u);
  EXPECT_EQ(wn_->Lexname(dog[0]), "noun.animal");  // sense 1 is the animal
  EXPECT_TRUE(Contains(wn_->Lemmas(dog[0]), "domestic_dog"));
  EXPECT_NE(wn_->Gloss(dog[0]).find("domesticated"), std::string::npos);
  EXPECT_EQ(dog[0].ToString(), "n:02084071");
  EXPECT_EQ(wn_->Lexname(wn_->Synsets("run", WordNetPos::kVerb).at(0)), "verb.motion");
  EXPECT_FALSE(wn_->Synsets("ice cream", WordNetPos::kNoun).empty());  // spaces -> '_'
  EXPECT_TRUE(wn_->Synsets("zyzzyvax", WordNetPos::kNoun).empty());
  EXPECT_TRUE(wn_->Synsets("titanic", WordNetPos::kNoun).empty());  // only an adjective
  EXPECT_EQ(wn_->Synsets("titanic", WordNetPos::kAdj).size(), 1u);
  // A bad offset is rejected, not misread.
  EXPECT_EQ(wn_->Lexname(SynsetId{WordNetPos::kNoun, 12345}), "");
  EXPECT_TRUE(wn_->Hypernyms(SynsetId{WordNetPos::kNoun, 99999999}).empty());
}

TEST_F(WordNetTest, HypernymChains) {
  // lasagna (sense 1, the dish) -> pasta -> dish -> nutriment -> food.
  EXPECT_TRUE(wn_->IsA("lasagna", "pasta", 1));
  EXPECT_TRUE(wn_->IsA("lasagna", "dish", 2));
  EXPECT_TRUE(wn_->IsA("lasagna", "food", 4));
  EXPECT_FALSE(wn_->IsA("lasagna", "food", 1));
  EXPECT_FALSE(wn_->IsA("lasagna", "animal"));
  EXPECT_TRUE(wn_->IsA("dogs", "animal"));
  EXPECT_TRUE(wn_->IsA("peanut", "edible_nut", 1, 4));  // food sense is sense 4
  EXPECT_FALSE(wn_->IsA("peanut", "edible_nut", 1, 3));
  auto chain = wn_->HypernymClosure(wn_->Synsets("lasagna", WordNetPos::kNoun)[0], 2);
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[0].depth, 0);
  EXPECT_TRUE(Contains(wn_->Lemmas(chain[1].synset), "pasta"));
  EXPECT_EQ(chain[2].depth, 2);
}

TEST_F(WordNetTest, DomainPointers) {
  auto sushi = wn_->Synsets("sushi", WordNetPos::kNoun);
  ASSERT_EQ(sushi.size(), 1u);
  auto regions = wn_->Domains(sushi[0], WordNetDomain::kRegion);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_TRUE(Contains(wn_->Lemmas(regions[0]), "japan"));
  auto taco = wn_->Synsets("taco", WordNetPos::kNoun);
  bool mexico = false;
  for (SynsetId s : taco) {
    for (SynsetId r : wn_->Domains(s, WordNetDomain::kRegion)) mexico = mexico || Contains(wn_->Lemmas(r), "mexico");
  }
  EXPECT_TRUE(mexico);
  auto curry = wn_->Synsets("curry", WordNetPos::kNoun).at(0);
  auto topics = wn_->Domains(curry, WordNetDomain::kTopic);
  ASSERT_FALSE(topics.empty());
  EXPECT_TRUE(Contains(wn_->Lemmas(topics[0]), "cooking"));
}

TEST(WordNetOpenTest, MissingDirectoryNamesThePackage) {
  auto wn = WordNet::Open("/nonexistent/wordnet-dir");
  ASSERT_FALSE(wn.ok());
  EXPECT_EQ(wn.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(wn.status().message().find("/nonexistent/wordnet-dir"), std::string::npos);
  EXPECT_NE(wn.status().message().find("wordnet-base"), std::string::npos);
  EXPECT_NE(wn.status().message().find("make setup"), std::string::npos);
  // A directory without the files names the missing file.
  auto empty = WordNet::Open("/tmp");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("index.noun"), std::string::npos);
}

}  // namespace
}  // namespace ontomem
