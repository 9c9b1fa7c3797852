// The frame reader: its runs, that it learns a frame from word vectors and carries it to words it
// never saw, its checkpoint, and how the extractor uses it (only for turns without a current
// assertion; past, hypothetical, question and negated frames vetoed).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>

#include "extract/extractor.h"
#include "extract/frame_reader.h"
#include "extract_fixtures.h"

namespace ontomem::extract {
namespace {

// Word vectors with three families: stance verbs, things one can like, and everyday filler
// words; each word is its family's direction plus its own noise, other words pure noise.
bool FakeVector(std::string_view w, float* out) {
  static const std::map<std::string, int> kFamily = {
      {"adore", 0}, {"love", 0}, {"relish", 0}, {"enjoy", 0}, {"cherish", 0}, {"crave", 0},
      {"sushi", 1}, {"jazz", 1}, {"kayaking", 1}, {"tofu", 1}, {"chess", 1}, {"ramen", 1}, {"opera", 1}, {"salsa", 1},
      {"bus", 2}, {"meeting", 2}, {"weather", 2}, {"late", 2}, {"rain", 2}, {"office", 2}, {"train", 2}, {"ran", 2}};
  std::mt19937 g(static_cast<uint32_t>(std::hash<std::string_view>()(w)));
  std::normal_distribution<float> noise(0.0f, 0.3f);
  for (int d = 0; d < kWordVectorDim; ++d) out[d] = noise(g);
  if (auto it = kFamily.find(std::string(w)); it != kFamily.end())
    for (int d = 0; d < 10; ++d) out[it->second * 10 + d] += 2.0f;
  return true;
}

FeatureResources Resources() {
  FeatureResources r;
  r.word_vector = FakeVector;
  return r;
}

Prepared Prep(const std::string& text) { return Prepare(text, "Ana", ClusterTable(), Resources()); }

// Rows of "I <verb> <thing>." (the thing positive) and of filler sentences (all negative).
FrameReader Trained() {
  std::vector<FrameRow> x;
  std::vector<uint8_t> y;
  const FeatureResources res = Resources();
  auto add = [&](const std::string& text, const std::string& tail) {
    const Prepared p = Prep(text);
    const auto v = TokenVectors(p, res);
    const size_t b = tail.empty() ? std::string::npos : text.find(tail);
    for (const FrameRun& r : FrameRuns(p)) {
      const size_t rb = static_cast<size_t>(p.tokens[static_cast<size_t>(r.begin)].begin);
      const size_t re = static_cast<size_t>(p.tokens[static_cast<size_t>(r.end - 1)].end);
      x.push_back(FrameInputs(p, v, r));
      y.push_back(b != std::string::npos && rb < b + tail.size() && b < re ? 1 : 0);
    }
  };
  for (const char* verb : {"adore", "love", "relish", "enjoy"})
    for (const char* thing : {"sushi", "jazz", "kayaking", "tofu", "chess", "ramen"})
      add(std::string("I ") + verb + " " + thing + ".", thing);
  for (const char* s : {"The bus was late.", "Rain at the office.", "The weather turned.", "The meeting ran late.",
                        "Train was late again.", "The office bus ran late."})
    for (int i = 0; i < 4; ++i) add(s, "");
  FrameReader f;
  learn::MlpTrainOptions o;
  o.epochs = 60;
  o.learning_rate = 0.01f;
  f.Fit(x, y, o, 1.0f);
  return f;
}

TEST(FrameReader, RunsAreContentWordsWithinOneSentence) {
  const Prepared p = Prep("I really adore spicy ramen noodles with friends. Do you?");
  std::vector<std::string> runs;
  for (const FrameRun& r : FrameRuns(p)) {
    std::string s;
    for (int i = r.begin; i < r.end; ++i) s += (i > r.begin ? " " : "") + p.tokens[static_cast<size_t>(i)].lower;
    runs.push_back(s);
  }
  EXPECT_NE(std::find(runs.begin(), runs.end(), "spicy ramen noodles"), runs.end());
  EXPECT_NE(std::find(runs.begin(), runs.end(), "friends"), runs.end());
  for (const std::string& r : runs) {
    EXPECT_EQ(r.find("with"), std::string::npos) << r;  // a stop word ends a run
    EXPECT_EQ(r.find('.'), std::string::npos) << r;
    EXPECT_LE(std::count(r.begin(), r.end(), ' '), kFrameMaxRun - 1) << r;
  }
}

TEST(FrameReader, ReadsTheFrameWithWordsItNeverSaw) {
  const FrameReader f = Trained();
  const FeatureResources res = Resources();
  // "cherish" and "opera" were in no training row; their families were.
  const Prepared p = Prep("I cherish opera.");
  const FrameReader::Reading r = f.Read(p, res);
  EXPECT_GE(r.score, 0.5f);
  EXPECT_EQ(p.tokens[static_cast<size_t>(r.run.end - 1)].lower, "opera");
  EXPECT_LT(f.Read(Prep("The rain ran late."), res).score, 0.5f);
  // Without word vectors it reads nothing.
  EXPECT_EQ(f.Read(p, FeatureResources()).score, 0.0f);
}

TEST(FrameReader, SavesAndRejectsADamagedFile) {
  const FrameReader f = Trained();
  const std::string path = ::testing::TempDir() + "/frame_reader_test.bin";
  ASSERT_TRUE(f.Save(path).ok());
  auto back = FrameReader::Load(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const Prepared p = Prep("I cherish opera.");
  EXPECT_FLOAT_EQ(back->Read(p, Resources()).score, f.Read(p, Resources()).score);
  {
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(-3, std::ios::end);
    io.put('\x7f');
  }
  auto bad = FrameReader::Load(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(path), std::string::npos);
  EXPECT_EQ(FrameReader::Load(path + ".missing").status().code(), StatusCode::kFailedPrecondition);
  std::filesystem::remove(path);
}

// The extractor with untrained perceptrons (no accepted candidate ever) and the trained reader.
class FrameInExtractor : public ::testing::Test {
 protected:
  void SetUp() override {
    auto m = std::make_shared<ExtractorModels>();
    m->scorer = learn::Mlp({kScorerInputs, 4, 1}, learn::OutputActivation::kSigmoid, 1);
    m->frame = Trained();
    models_ = m;
  }
  std::vector<Assertion> Accepted(const std::string& text, FeatureResources res = Resources()) const {
    return fixtures::Accepted(*Extractor::FromModels(models_, ExtractorOptions(), std::move(res)), text, "D1:1", 4);
  }
  std::shared_ptr<const ExtractorModels> models_;
};

TEST_F(FrameInExtractor, GivesAnUnreadStatementACurrentEdge) {
  const auto a = Accepted("I cherish opera.");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].head, "Ana");
  EXPECT_TRUE(a[0].head_is_speaker);
  EXPECT_EQ(a[0].modality, Modality::kAsserted);
  EXPECT_EQ(a[0].relation, "LIKES");
  EXPECT_EQ(a[0].tail, "opera");
  EXPECT_EQ(a[0].source_turn, "D1:1");
  EXPECT_EQ(a[0].source_seq, 4);
  // No word vectors, no reader.
  EXPECT_TRUE(Accepted("I cherish opera.", FeatureResources()).empty());
}

TEST_F(FrameInExtractor, PastHypotheticalQuestionAndNegationVetoIt) {
  ASSERT_EQ(Accepted("I cherish opera.").size(), 1u);  // the frame itself is read
  EXPECT_TRUE(Accepted("I used to cherish opera.").empty());
  EXPECT_TRUE(Accepted("Maybe I would cherish opera.").empty());
  EXPECT_TRUE(Accepted("Do I cherish opera?").empty());
  for (const Assertion& a : Accepted("I don't cherish opera.")) EXPECT_NE(a.relation, "LIKES");
}

}  // namespace
}  // namespace ontomem::extract
