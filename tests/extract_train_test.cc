// Training smoke test: a small IPR-synth train split + drills must give a model that reaches a
// minimum F1 on held-out IPR-synth dev dialogues, and gets the hard modalities right on
// hand-picked sentences.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <thread>

#include "bench/dataset.h"
#include "bench/ipr_synth.h"
#include "extract/drills.h"
#include "extract_fixtures.h"
#include "extract/model_io.h"
#include "extract/train.h"

namespace ontomem::extract {
namespace {

std::string Filler() {
  const std::string p = std::string(ONTOMEM_SOURCE_DIR) + "/../shared/data/locomo/locomo_dev5.json";
  return std::filesystem::exists(p) ? p : "";
}

std::string IprJson(const std::string& split, int dialogues) {
  IprConfig c;
  c.split = split;
  c.dialogues = dialogues;
  c.filler_path = Filler();
  std::string json;
  EXPECT_TRUE(GenerateIpr(c, &json).ok());
  return json;
}

std::vector<AnnotatedTurn> Ipr(const std::string& split, int dialogues) {
  auto t = ParseIprFacts(IprJson(split, dialogues), split);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : std::vector<AnnotatedTurn>{};
}

class ExtractTrain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::vector<AnnotatedTurn> train = Ipr("train", 80);
    for (auto& d : GenerateDrills(1500, 11)) train.push_back(std::move(d));
    TrainOptions o;
    o.scorer_epochs = 15;
    models_ = TrainModels(train, ClusterTable(), FeatureResources(), o, &stats_);
    extractor_ = Extractor::FromModels(models_, ExtractorOptions());
  }
  static void TearDownTestSuite() {
    extractor_.reset();
    models_.reset();
  }

  // The accepted assertion whose tail span covers `tail`, or nullptr.
  static std::vector<Assertion> Accepted(const std::string& text) { return fixtures::Accepted(*extractor_, text); }
  static const Assertion* Find(const std::vector<Assertion>& v, const std::string& text, const std::string& tail) {
    const int32_t b = static_cast<int32_t>(text.find(tail)), e = b + static_cast<int32_t>(tail.size());
    for (const auto& a : v)
      if (a.tail_begin < e && b < a.tail_end) return &a;
    return nullptr;
  }

  static std::shared_ptr<ExtractorModels> models_;
  static std::unique_ptr<Extractor> extractor_;
  static TrainStats stats_;
};
std::shared_ptr<ExtractorModels> ExtractTrain::models_;
std::unique_ptr<Extractor> ExtractTrain::extractor_;
TrainStats ExtractTrain::stats_;

TEST_F(ExtractTrain, ReachesMinimumF1OnHeldOutIprDev) {
  ASSERT_GT(stats_.facts, 1000u);
  const auto dev = Ipr("dev", 40);
  const EvalReport r = Evaluate(*extractor_, dev, "ipr dev", 0.5f);
  std::cout << FormatReport(r);
  EXPECT_GT(r.gold, 200u);
  // Templates and entities of the dev split are disjoint from train: these need learning.
  EXPECT_GE(r.span_only.f1(), 0.60);
  EXPECT_GE(r.relation_only.f1(), 0.40);
  EXPECT_GE(r.strict.f1(), 0.30);
  EXPECT_LT(r.us_per_turn, 1000.0);
  // Statement turns get an edge far more often than the filler around them.
  ASSERT_GT(r.statement_turns, 50u);
  ASSERT_GT(r.other_turns, 50u);
  EXPECT_GT(static_cast<double>(r.statement_turns_read) / static_cast<double>(r.statement_turns),
            0.2 + static_cast<double>(r.other_turns_read) / static_cast<double>(r.other_turns));
}

// `eval extractor --dataset`: only the askers' turns count, evidence of their own questions apart.
TEST_F(ExtractTrain, EvidenceShareCountsTheAskersTurns) {
  const char* doc = R"([{"sample_id":"s","conversation":{"speaker_a":"Ana","speaker_b":"Bob",
    "session_1_date_time":"9:05 am on 3 March, 2023",
    "session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"I love jazz."},
                 {"speaker":"Ana","dia_id":"D1:2","text":"What time is it?"},
                 {"speaker":"Bob","dia_id":"D1:3","text":"I love hiking."}]},
    "qa":[{"question":"Any music for tonight?","evidence":["D1:1","D1:3"],"implicit":true,"speaker":"Ana"}]}])";
  auto ds = ParseLocomo(doc, "mem");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  const EvidenceShare r = MeasureEvidenceShare(*extractor_, *ds, 0.5f);
  EXPECT_EQ(r.evidence, 1u);  // Bob's turn is evidence, but Bob asks nothing
  EXPECT_EQ(r.implicit, 1u);
  EXPECT_EQ(r.other, 1u);
  EXPECT_EQ(r.evidence_read, 1u);
  EXPECT_EQ(r.implicit_read, 1u);
  EXPECT_EQ(r.other_read, 0u);
  const EvidenceShare none = MeasureEvidenceShare(*extractor_, *ds, 1.01f);
  EXPECT_EQ(none.evidence, 1u);
  EXPECT_EQ(none.evidence_read + none.other_read, 0u);

  auto ipr = ParseLocomo(IprJson("dev", 10), "ipr dev");
  ASSERT_TRUE(ipr.ok()) << ipr.status().ToString();
  const EvidenceShare d = MeasureEvidenceShare(*extractor_, *ipr, 0.5f);
  ASSERT_GT(d.evidence, 20u);
  ASSERT_GT(d.other, 20u);
  EXPECT_GT(static_cast<double>(d.evidence_read) / static_cast<double>(d.evidence),
            0.2 + static_cast<double>(d.other_read) / static_cast<double>(d.other));
  EXPECT_NE(FormatEvidenceShare(d).find("evidence"), std::string::npos);
}

TEST_F(ExtractTrain, UntrainedModelScoresZero) {
  auto empty = std::make_shared<ExtractorModels>();
  empty->scorer = learn::Mlp({kScorerInputs, 4, 1}, learn::OutputActivation::kSigmoid, 1);
  auto ex = Extractor::FromModels(empty, ExtractorOptions());
  const EvalReport r = Evaluate(*ex, Ipr("dev", 5), "untrained", 0.5f);
  EXPECT_EQ(r.strict.tp, 0);
  EXPECT_GT(r.statement_turns, 0u);
  EXPECT_EQ(r.statement_turns_read + r.other_turns_read, 0u);
}

TEST_F(ExtractTrain, HandPickedModalities) {
  struct Case {
    std::string text, tail, relation;
    Modality modality;
    bool speaker_head;
  };
  const std::vector<Case> cases = {
      {"I'm allergic to peanuts.", "peanuts", "ALLERGIC_TO", Modality::kAsserted, true},
      {"Honestly, I hate traffic.", "traffic", "DISLIKES", Modality::kAsserted, true},
      {"I used to love horror movies.", "horror movies", "LIKES", Modality::kPast, true},
      {"My brother loves jazz.", "jazz", "LIKES", Modality::kReported, false},
      {"I might get a cat.", "cat", "HAS_PET", Modality::kHypothetical, true},
      {"I don't have a car.", "car", "OWNS", Modality::kNegated, true},
      {"I work as a nurse.", "nurse", "WORKS_AS", Modality::kAsserted, true},
  };
  int ok = 0;
  for (const auto& c : cases) {
    const auto acc = Accepted(c.text);
    const Assertion* a = Find(acc, c.text, c.tail);
    const bool good = a && a->relation == c.relation && a->modality == c.modality && a->head_is_speaker == c.speaker_head;
    EXPECT_TRUE(good) << c.text << " -> "
                      << (a ? a->relation + "/" + ModalityName(a->modality) + " head=" + a->head : std::string("nothing"));
    ok += good;
  }
  // Reported speech names the holder.
  const auto rep = Accepted("My brother loves jazz.");
  const Assertion* a = Find(rep, "My brother loves jazz.", "jazz");
  if (a) {
    EXPECT_EQ(a->head, "brother");
  }
  // Questions to the other speaker state nothing.
  EXPECT_EQ(Find(Accepted("Do you like jazz?"), "Do you like jazz?", "jazz"), nullptr);
}

TEST_F(ExtractTrain, ExtractFillsProvenanceAndIsThreadSafe) {
  Turn t;
  t.id = "D1:3";
  t.speaker = "Ana";
  t.text = "I'm allergic to peanuts.";
  t.time_ms = 1234;
  const auto v = extractor_->Extract(t, 42);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].source_turn, "D1:3");
  EXPECT_EQ(v[0].source_seq, 42);
  EXPECT_EQ(v[0].time_ms, 1234);
  EXPECT_EQ(v[0].head, "Ana");
  EXPECT_EQ(v[0].tail, "peanut");
  for (size_t i = 1; i < v.size(); ++i) EXPECT_GE(v[i - 1].confidence, v[i].confidence);
  std::vector<std::thread> th;
  std::atomic<int> same{0};
  for (int k = 0; k < 4; ++k)
    th.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        auto w = extractor_->Extract(t, 42);
        if (w.size() == v.size() && w[0].relation == v[0].relation) same++;
      }
    });
  for (auto& x : th) x.join();
  EXPECT_EQ(same.load(), 200);
}

TEST_F(ExtractTrain, SavedModelsReloadIdentically) {
  const std::string dir = std::filesystem::temp_directory_path() / ("extract_train_" + std::to_string(::getpid()));
  ASSERT_TRUE(models_->Save(dir + "/extractor").ok());
  ExtractorOptions o;
  o.models_dir = dir;
  auto ex = Extractor::Open(o);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  Turn t;
  t.speaker = "Ana";
  t.text = "My sister is vegan and I used to love sushi.";
  const auto a = extractor_->Extract(t, 1), b = (*ex)->Extract(t, 1);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].relation, b[i].relation);
    EXPECT_FLOAT_EQ(a[i].confidence, b[i].confidence);
  }
  for (const char* f : {"clusters.bin", "tagger.bin", "relation.bin", "scorer.bin"})
    EXPECT_LT(std::filesystem::file_size(dir + "/extractor/" + f), 2u << 20) << f;
  std::filesystem::remove_all(dir);
}

// The perceptrons' weights as bytes.
std::string PerceptronBytes(const ExtractorModels& m) {
  BlobWriter w;
  m.tagger.model().Write(&w);
  m.relation.Write(&w);
  return w.bytes();
}

// Each example's place in a training order is keyed by its own id and text, not by its index, so
// the same turns listed in another order train the same perceptrons (with a shuffle, one changed
// turn reordered every example); another order seed or another number of averaged orders gives
// other weights.
TEST(ExtractTrainOrder, PerceptronsDependOnTheTurnsNotOnTheirListOrder) {
  std::vector<AnnotatedTurn> train = Ipr("train", 12);
  for (auto& d : GenerateDrills(300, 5)) train.push_back(std::move(d));
  ASSERT_GT(train.size(), 300u);
  TrainOptions o;
  o.tagger_epochs = 2;
  o.relation_epochs = 2;
  o.scorer_epochs = 1;
  o.orders = 2;
  const std::string a = PerceptronBytes(*TrainModels(train, ClusterTable(), FeatureResources(), o));
  std::vector<AnnotatedTurn> reversed(train.rbegin(), train.rend());
  EXPECT_TRUE(a == PerceptronBytes(*TrainModels(reversed, ClusterTable(), FeatureResources(), o)));
  TrainOptions other_seed = o;
  other_seed.seed = o.seed + 1;
  EXPECT_FALSE(a == PerceptronBytes(*TrainModels(train, ClusterTable(), FeatureResources(), other_seed)));
  TrainOptions one_order = o;
  one_order.orders = 1;
  EXPECT_FALSE(a == PerceptronBytes(*TrainModels(train, ClusterTable(), FeatureResources(), one_order)));
}

}  // namespace
}  // namespace ontomem::extract
