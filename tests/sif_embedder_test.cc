// The GloVe-SIF embedder over the tiny fixture lexicon (and the real one when present).
#include "embed/sif_embedder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "embed/lexicon.h"
#include "lexicon_fixture.h"
#include "test_util.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double{a[i]} * b[i];
  return s;
}

class SifEmbedderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::WriteTinyLexicon(dir_);
    auto e = SifEmbedder::Open(path_);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    embedder_ = *e;
  }

  std::vector<float> Embed(std::string_view text, const Embedder* e = nullptr) {
    if (e == nullptr) e = embedder_.get();
    std::vector<float> v(static_cast<size_t>(e->dim()), 123.0f);
    Status s = e->Embed(text, v.data());
    EXPECT_TRUE(s.ok()) << s.ToString();
    return v;
  }
  std::shared_ptr<SifEmbedder> With(SifEmbedderOptions o) {
    return std::make_shared<SifEmbedder>(embedder_->shared_lexicon(), o);
  }

  const testing::TempDir temp_{"sif_test"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::string path_;
  std::shared_ptr<SifEmbedder> embedder_;
};

TEST_F(SifEmbedderTest, OutputIsUnitLength) {
  EXPECT_EQ(embedder_->dim(), testing::kTinyLexiconDim);
  for (const char* text : {"film", "I watched a great film with my sister yesterday",
                           "Pizza! Pasta? LASAGNA...", "the dog and the zyzzyva"}) {
    auto v = Embed(text);
    EXPECT_NEAR(Dot(v, v), 1.0, 1e-5) << text;
  }
}

TEST_F(SifEmbedderTest, NoKnownWordGivesZeros) {
  for (const char* text : {"", "   ", "zyzzyva qwertyuiop", "the of and", "!!! ???"}) {
    auto v = Embed(text);
    EXPECT_EQ(Dot(v, v), 0.0) << text;
  }
}

TEST_F(SifEmbedderTest, StopWordsAreIgnoredByDefault) {
  auto plain = Embed("movie pizza");
  auto padded = Embed("The movie, and the pizza, were really what I'd have");
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_NEAR(plain[i], padded[i], 1e-6);
  // With stop words kept, the padding changes the vector.
  SifEmbedderOptions keep;
  keep.drop_stop_words = false;
  auto e = With(keep);
  EXPECT_LT(Dot(Embed("movie pizza", e.get()), Embed("the movie and the pizza", e.get())), 0.9999);
}

TEST_F(SifEmbedderTest, CaseAndPunctuationDoNotMatter) {
  auto a = Embed("film cinema");
  auto b = Embed("FILM, Cinema!");
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6);
}

TEST_F(SifEmbedderTest, SimilarSentencesAreCloserThanUnrelatedOnes) {
  struct Triple {
    const char* anchor;
    const char* similar;
    const char* unrelated;
  };
  const Triple triples[] = {
      {"I watched a great film yesterday", "We saw a movie at the cinema",
       "Pizza and pasta for dinner"},
      {"My sister cooked lasagna", "She made spaghetti in the kitchen", "The dog chased a cat"},
      {"He plays guitar in a band", "The concert had a great singer", "My boss called a meeting"},
      {"We flew to Paris for vacation", "The hotel near the beach was nice",
       "I study psychology at college"},
      {"The puppy is a good dog", "Our cat and kitten are pets", "It will rain tomorrow"},
  };
  for (const Triple& t : triples) {
    auto a = Embed(t.anchor);
    double sim = Dot(a, Embed(t.similar)), far = Dot(a, Embed(t.unrelated));
    EXPECT_GT(sim, far + 0.2) << t.anchor << " | sim " << sim << " far " << far;
  }
  EXPECT_GT(Dot(Embed("film"), Embed("movie")), 0.8);
}

TEST_F(SifEmbedderTest, CommonComponentIsRemoved) {
  const float* u = embedder_->lexicon().common_component();
  std::vector<float> uv(u, u + embedder_->dim());
  for (const char* text : {"film", "pizza pasta", "my dog likes the park on sunday"}) {
    EXPECT_NEAR(Dot(Embed(text), uv), 0.0, 1e-5) << text;
  }
  SifEmbedderOptions keep;
  keep.remove_common_component = false;
  EXPECT_GT(std::fabs(Dot(Embed("film pizza", With(keep).get()), uv)), 0.05);
}

TEST_F(SifEmbedderTest, SifWeightingDownweightsFrequentWords) {
  // With stop words kept, SIF lets the rare content word dominate more than a plain mean does.
  SifEmbedderOptions sif, mean;
  sif.drop_stop_words = mean.drop_stop_words = false;
  mean.weighting = SifEmbedderOptions::Weighting::kUniform;
  auto film = Embed("film");
  const char* text = "the film was what it was";
  EXPECT_GT(Dot(Embed(text, With(sif).get()), film), Dot(Embed(text, With(mean).get()), film));
}

TEST_F(SifEmbedderTest, IdNamesOptionsAndLexicon) {
  const std::string id = embedder_->id();
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(embedder_->lexicon().checksum()));
  EXPECT_EQ(id, std::string("glove-sif-100:a=0.001:stop=1:cc=1:") + hex);

  SifEmbedderOptions o;
  o.sif_a = 1e-4;
  EXPECT_EQ(With(o)->id(), std::string("glove-sif-100:a=0.0001:stop=1:cc=1:") + hex);
  o = {};
  o.drop_stop_words = false;
  EXPECT_NE(With(o)->id(), id);
  o = {};
  o.remove_common_component = false;
  EXPECT_NE(With(o)->id(), id);
  o = {};
  o.weighting = SifEmbedderOptions::Weighting::kUniform;
  EXPECT_EQ(With(o)->id().rfind("glove-mean-100:", 0), 0u) << With(o)->id();

  // Another lexicon (int8 of the same words) gives another id.
  auto other = SifEmbedder::Open(testing::WriteTinyLexicon(dir_, LexiconElementType::kInt8));
  ASSERT_TRUE(other.ok());
  EXPECT_NE((*other)->id(), id);
}

TEST_F(SifEmbedderTest, Int8LexiconAgreesWithFloat32) {
  auto q = SifEmbedder::Open(testing::WriteTinyLexicon(dir_, LexiconElementType::kInt8));
  ASSERT_TRUE(q.ok());
  for (const char* text :
       {"film", "I watched a great film with my sister", "pizza and the beach"}) {
    EXPECT_GT(Dot(Embed(text), Embed(text, q->get())), 0.999) << text;
  }
}

TEST_F(SifEmbedderTest, ConcurrentEmbedsMatchSerialOnes) {
  const std::vector<std::string> texts = {"film night",    "pizza with pasta",
                                          "my dog",        "guitar concert",
                                          "trip to japan", "doctor at the hospital"};
  std::vector<std::vector<float>> serial;
  for (const auto& t : texts) serial.push_back(Embed(t));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> v(static_cast<size_t>(embedder_->dim()));
      for (int iter = 0; iter < 200; ++iter) {
        size_t i = static_cast<size_t>(iter + t) % texts.size();
        if (!embedder_->Embed(texts[i], v.data()).ok() || v != serial[i])
          ++mismatches[static_cast<size_t>(t)];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST_F(SifEmbedderTest, NullOutputAndBadOptionsAreErrors) {
  EXPECT_EQ(embedder_->Embed("film", nullptr).code(), StatusCode::kInvalidArgument);
  SifEmbedderOptions bad;
  bad.sif_a = 0;
  EXPECT_EQ(SifEmbedder::Open(path_, bad).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SifEmbedderTest, LoadSifEmbedderUsesDefaultsAndNamesTheFix) {
  auto e = LoadSifEmbedder(path_);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->id(), embedder_->id());
  auto missing = LoadSifEmbedder(dir_ + "/missing.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("make lexicon"), std::string::npos);
}

// --- The real lexicon (skipped until `make lexicon` has run) ------------------------------

TEST(SifEmbedderReal, RanksParaphrasesAboveUnrelatedSentences) {
  std::string path;
  if (const char* env = std::getenv("ONTOMEM_LEXICON"); env != nullptr && *env != '\0')
    path = env;
  else if (const char* home = std::getenv("HOME"))
    path = std::string(home) + "/.cache/ontomem/lexicon.bin";
  if (path.empty() || !fs::exists(path)) GTEST_SKIP() << "no real lexicon; run `make lexicon`";
  auto e = LoadSifEmbedder(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  auto embed = [&](const char* t) {
    std::vector<float> v(100);
    EXPECT_TRUE((*e)->Embed(t, v.data()).ok());
    return v;
  };
  auto q = embed("What movie did Caroline watch last weekend?");
  double near = Dot(q, embed("Caroline saw a film at the cinema on Saturday."));
  double far = Dot(q, embed("Melanie baked lasagna for her kids."));
  EXPECT_GT(near, far + 0.1) << near << " vs " << far;
  auto v = embed("I adopted a puppy from the shelter");
  EXPECT_NEAR(Dot(v, v), 1.0, 1e-5);
}

}  // namespace
}  // namespace ontomem
