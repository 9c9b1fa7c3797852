// The scorer file written by `ontomem train scorer` and read by Memory::Open.
#include "retrieve/scorer_weights.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fake_embedder.h"
#include "ontomem/memory.h"
#include "test_util.h"

namespace ontomem {
namespace {

TEST(ScorerWeights, RoundTripsAndKeepsHowItWasFitted) {
  const testing::TempDir temp("ontomem-scorer");
  const std::string& dir = temp.path();
  const std::string path = dir + "/scorer.json";
  ScorerWeights w;
  w.w_graph = 0.6f, w.w_dense = 0.3f, w.w_profile = 0.1f;
  ASSERT_TRUE(SaveScorerWeights(path, w, R"({"train":"ipr_train.json","train_recall":0.5})").ok());
  auto back = LoadScorerWeights(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_FLOAT_EQ(back->w_graph, 0.6f);
  EXPECT_FLOAT_EQ(back->w_dense, 0.3f);
  EXPECT_FLOAT_EQ(back->w_profile, 0.1f);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"train_recall\""), std::string::npos);
  RetrieverConfig rc;
  ApplyScorerWeights(*back, &rc);
  EXPECT_FLOAT_EQ(rc.w_graph, 0.6f);
}

TEST(ScorerWeights, BadFilesAreRefusedWithTheReason) {
  const testing::TempDir temp("ontomem-scorer");
  const std::string& dir = temp.path();
  const std::string path = dir + "/scorer.json";
  struct Case {
    const char* text;
    const char* reason;
  };
  for (const Case& c : {Case{"not json", "not a JSON object"},
                        Case{R"({"format":"other","version":1})", "format"},
                        Case{R"({"format":"ontomem-scorer","version":2,"w_graph":0.5,"w_dense":0.4,"w_profile":0.1})",
                             "version"},
                        Case{R"({"format":"ontomem-scorer","version":1,"w_graph":0.5,"w_profile":0.1})", "w_dense"},
                        Case{R"({"format":"ontomem-scorer","version":1,"w_graph":1.5,"w_dense":0.4,"w_profile":0.1})",
                             "expected 0..1"},
                        Case{R"({"format":"ontomem-scorer","version":1,"w_graph":0,"w_dense":0,"w_profile":0})",
                             "all zero"}}) {
    std::ofstream(path, std::ios::trunc) << c.text;
    auto w = LoadScorerWeights(path);
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_NE(w.status().message().find(c.reason), std::string::npos) << w.status().ToString();
  }
  EXPECT_EQ(LoadScorerWeights(dir + "/missing.json").status().code(), StatusCode::kNotFound);

  // Memory::Open refuses to start on a bad scorer file rather than silently using defaults.
  Options o;
  o.data_dir = dir + "/data";
  o.extract_facts = false;
  o.scorer_path = path;
  o.embedder = std::make_shared<testing::FakeEmbedder>();
  o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
  auto mem = Memory::Open(o);
  ASSERT_FALSE(mem.ok());
  EXPECT_NE(mem.status().message().find("scorer.json"), std::string::npos) << mem.status().ToString();
  ASSERT_TRUE(SaveScorerWeights(path, ScorerWeights{}, "").ok());
  EXPECT_TRUE(Memory::Open(o).ok());
}

}  // namespace
}  // namespace ontomem
