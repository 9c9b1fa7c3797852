// `ontomem bench` end to end on a small dataset: the JSON contract outside checks rely on, the
// metrics, and the plots.
#include "bench/harness.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <unistd.h>

#include "bench/plot.h"
#include "fake_embedder.h"
#include "test_util.h"

namespace ontomem {
namespace {

const char* kData = R"([{"sample_id":"s1","history_scale":2,"conversation":{"speaker_a":"Ana","speaker_b":"Ben",
  "session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"I adopted a greyhound named Pixel"},
               {"speaker":"Ben","dia_id":"D1:2","text":"Lovely, greyhounds are calm dogs"},
               {"speaker":"Ana","dia_id":"D1:3","text":"My pottery class starts on Monday"}]},
 "qa":[{"question":"What is the name of the greyhound?","evidence":["D1:1"],"category":4,"implicit":false},
       {"question":"When does the pottery class start?","evidence":["D1:3","D9:9"],"category":2,
        "pathology":["temporal_gap"],"implicit":true},
       {"question":"No evidence here","evidence":[]}]}])";

TEST(Harness, ProducesTheDocumentedJsonShape) {
  const testing::TempDir temp("ontomem-harness");
  const std::string& dir = temp.path();
  std::string path = dir + "/data.json";
  std::ofstream(path) << kData;
  BenchConfig c;
  c.datasets = {path};
  c.methods = {"dense", "bm25", "fusion", "fusion-rrf"};
  c.embedder = std::make_shared<testing::FakeEmbedder>();
  std::ostringstream table;
  nlohmann::json r;
  Status st = RunBench(c, table, &r);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(r["k"], 10);
  const auto& d = r["datasets"][0];
  EXPECT_EQ(d["path"], path);
  EXPECT_EQ(d["questions"], 2);          // the QA without evidence is not a question
  EXPECT_EQ(d["skipped_evidence"], 1);   // D9:9 matches no turn
  EXPECT_EQ(d["history_scale"], 2);
  for (const char* m : {"dense", "bm25", "fusion", "fusion-rrf"}) {
    const auto& mj = d["methods"][m];
    for (const char* key : {"recall", "ndcg", "evidence_precision", "ingest_us_per_turn", "context_tokens"})
      EXPECT_TRUE(mj[key].is_number()) << m << " " << key;
    EXPECT_TRUE(mj["latency_us"]["p50"].is_number());
    EXPECT_TRUE(mj["latency_us"]["p95"].is_number());
    for (const char* slice : {"implicit", "explicit", "category:4", "category:2", "pathology:temporal_gap"}) {
      EXPECT_EQ(mj["slices"][slice]["n"], 1) << m << " " << slice;
      EXPECT_TRUE(mj["slices"][slice]["recall"].is_number());
      EXPECT_TRUE(mj["slices"][slice]["ndcg"].is_number());
    }
  }
  // With three turns and k = 10 everything is retrieved: recall is exactly 1 for every method.
  EXPECT_DOUBLE_EQ(d["methods"]["bm25"]["recall"].get<double>(), 1.0);
  // bm25 puts the greyhound turn first for the greyhound question.
  EXPECT_DOUBLE_EQ(d["methods"]["bm25"]["slices"]["category:4"]["ndcg"].get<double>(), 1.0);
  EXPECT_NE(table.str().find("fusion-rrf"), std::string::npos);

  c.k = 1;
  ASSERT_TRUE(RunBench(c, table, &r).ok());
  EXPECT_EQ(r["k"], 1);
  EXPECT_DOUBLE_EQ(r["datasets"][0]["methods"]["bm25"]["slices"]["category:4"]["recall"].get<double>(), 1.0);

  c.methods = {"nonsense"};
  EXPECT_EQ(RunBench(c, table, &r).code(), StatusCode::kInvalidArgument);
  c.methods = {"bm25"};
  c.datasets = {dir + "/missing.json"};
  EXPECT_EQ(RunBench(c, table, &r).code(), StatusCode::kNotFound);
}

TEST(Harness, MethodVariantsCarryTheirOwnKnobs) {
  const testing::TempDir temp("ontomem-harness");
  const std::string& dir = temp.path();
  std::string path = dir + "/data.json";
  std::ofstream(path) << kData;
  BenchConfig c;
  c.datasets = {path};
  c.k = 1;
  // Fusion with all weight on one view ranks like that view (neighbour smoothing aside): the
  // lexical-only variant finds the greyhound turn first, as bm25 does.
  c.methods = {"bm25", "fusion@fusion_dense_weight=0:neighbour_weight=0", "fusion@fusion_dense_weight=1"};
  c.embedder = std::make_shared<testing::FakeEmbedder>();
  std::ostringstream table;
  nlohmann::json r;
  Status st = RunBench(c, table, &r);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto& m = r["datasets"][0]["methods"];
  ASSERT_TRUE(m.contains("fusion@fusion_dense_weight=0:neighbour_weight=0"));
  ASSERT_TRUE(m.contains("fusion@fusion_dense_weight=1"));
  EXPECT_DOUBLE_EQ(m["fusion@fusion_dense_weight=0:neighbour_weight=0"]["slices"]["category:4"]["recall"].get<double>(),
                   m["bm25"]["slices"]["category:4"]["recall"].get<double>());
  // The projection maps GloVe-SIF vectors: with another embedder `project=1` is refused, not
  // silently plain dense.
  c.methods = {"dense@project=1"};
  st = RunBench(c, table, &r);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("projection"), std::string::npos) << st.ToString();
  for (const char* bad : {"fusion@bogus=1", "fusion@fusion_dense_weight", "fusion@fusion_dense_weight=x", "nope@rrf_k=1",
                          "fusion@fusion_dense_weight=1@neighbour_weight=0", "full@combiner_variant=1",
                          "full@combiner_variant=-1", "full@combiner_variant=nan"}) {
    c.methods = {bad};
    EXPECT_EQ(RunBench(c, table, &r).code(), StatusCode::kInvalidArgument) << bad;
  }
}

// A dataset that fails after its throwaway store was made (here `dense@project=1`, refused once
// the pipeline is open) leaves no store behind in the temp dir.
TEST(Harness, RemovesItsStoreWhenADatasetFails) {
  const testing::TempDir temp("ontomem-harness");
  const std::string path = temp.path() + "/data.json";
  std::ofstream(path) << kData;
  BenchConfig c;
  c.datasets = {path};
  c.methods = {"dense@project=1"};
  c.embedder = std::make_shared<testing::FakeEmbedder>();
  std::ostringstream table;
  nlohmann::json r;
  Status st = RunBench(c, table, &r);
  ASSERT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  const std::string mine = "ontomem-bench-" + std::to_string(::getpid()) + "-";
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    EXPECT_NE(e.path().filename().string().rfind(mine, 0), 0u) << e.path() << " left behind";
}

// The latency guard is the one clock-dependent step of a search: `latency_budget_us` reaches
// every search, so `train combiner` (which never skips) collects the same rows on a busy machine.
TEST(Harness, LatencyBudgetReachesEverySearch) {
  const testing::TempDir temp("ontomem-harness");
  const std::string& dir = temp.path();
  std::string path = dir + "/data.json";
  std::ofstream(path) << R"([{"sample_id":"s1","conversation":{"speaker_a":"Ana","speaker_b":"Ben",
    "session_1_date_time":"1:56 pm on 8 May, 2023",
    "session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"I absolutely love romantic movies like Titanic and The Notebook."},
                 {"speaker":"Ben","dia_id":"D1:2","text":"Nice, those are classics."},
                 {"speaker":"Ana","dia_id":"D1:3","text":"I really enjoy spicy Thai food, especially green curry."}]},
    "qa":[{"question":"What should I watch this weekend?","evidence":["D1:1"],"speaker":"Ana","implicit":true},
          {"question":"Where should we go for dinner tonight?","evidence":["D1:3"],"speaker":"Ana","implicit":true}]}])";
  BenchConfig c;
  c.datasets = {path};
  // Every graph-first search counts as uncertain (any top two "nearly tie").
  c.methods = {"full@combiner=0:uncertainty_margin=100"};
  c.embedder = std::make_shared<testing::FakeEmbedder>();
  c.dump_path = dir + "/dump.jsonl";
  auto uncertainty = [&](int64_t budget) {
    c.latency_budget_us = budget;
    std::ostringstream table;
    nlohmann::json r;
    Status st = RunBench(c, table, &r);
    EXPECT_TRUE(st.ok()) << st.ToString();
    std::vector<std::string> out;
    std::ifstream in(c.dump_path);
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line)["uncertainty"]);
    return out;
  };
  const auto tight = uncertainty(1), never = uncertainty(std::numeric_limits<int64_t>::max());
  ASSERT_EQ(tight.size(), 2u);
  ASSERT_EQ(never.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(tight[i], "skipped-latency");
    EXPECT_NE(never[i], "skipped-latency");
    EXPECT_NE(never[i], "none");
  }
}

TEST(Harness, DatasetSpecSelectsSamplesInTheGivenOrder) {
  const testing::TempDir temp("ontomem-harness-spec");
  const std::string& dir = temp.path();
  std::string path = dir + "/data.json";
  std::string two = std::string(kData);
  two = two.substr(0, two.size() - 1) + R"(,{"sample_id":"s2","conversation":{"speaker_a":"Cy","speaker_b":"Di",
    "session_1":[{"speaker":"Cy","dia_id":"D1:1","text":"hello"}]},"qa":[]}])";
  std::ofstream(path) << two;
  auto all = LoadBenchDataset(path);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->samples.size(), 2u);
  auto picked = LoadBenchDataset(path + "#s2,s1");
  ASSERT_TRUE(picked.ok()) << picked.status().ToString();
  ASSERT_EQ(picked->samples.size(), 2u);
  EXPECT_EQ(picked->samples[0].sample_id, "s2");
  auto one = LoadBenchDataset(path + "#s1");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->samples.size(), 1u);
  EXPECT_EQ(one->samples[0].sample_id, "s1");
  auto unknown = LoadBenchDataset(path + "#s1,conv-99");
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("conv-99"), std::string::npos);
  EXPECT_EQ(LoadBenchDataset(path + "#").status().code(), StatusCode::kInvalidArgument);
}

// The `length` baseline ranks the asker's own turns by length: where it scores, a method's recall
// may be the evidence turns' length rather than their meaning.
TEST(Harness, LengthBaselineRanksTheAskersTurnsLongestFirst) {
  const testing::TempDir temp("ontomem-harness-length");
  const std::string& dir = temp.path();
  std::string path = dir + "/data.json";
  std::ofstream(path) << R"([{"sample_id":"s1","conversation":{"speaker_a":"Ana","speaker_b":"Ben",
    "session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"I went vegan in March"},
                 {"speaker":"Ben","dia_id":"D1:2","text":"Oh nice, I tried that once for a whole month and gave up after the second week of it"},
                 {"speaker":"Ana","dia_id":"D1:3","text":"The bus was late again this morning and the driver just shrugged at all of us"}]},
    "qa":[{"question":"What should I cook tonight?","evidence":["D1:1"],"speaker":"Ana"},
          {"question":"How was the commute?","evidence":["D1:3"],"speaker":"Ana"},
          {"question":"Who shrugged?","evidence":["D1:3"],"speaker":"Ana"}]}])";
  BenchConfig c;
  c.datasets = {path};
  c.methods = {"length", "bm25"};
  c.k = 1;
  c.embedder = std::make_shared<testing::FakeEmbedder>();
  std::ostringstream table;
  nlohmann::json r;
  Status st = RunBench(c, table, &r);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Ana's long turn ranks first, never Ben's longer one: the two questions about it are found,
  // the short vegan turn is not (shortest first would score 1/3, counting Ben's turn 0).
  EXPECT_NEAR(r["datasets"][0]["methods"]["length"]["recall"].get<double>(), 2.0 / 3.0, 1e-9);
}

TEST(Harness, BenchParamsAreCheckedByName) {
  BenchConfig c;
  EXPECT_TRUE(ApplyBenchParam("neighbour_weight=0.5", &c).ok());
  EXPECT_FLOAT_EQ(c.retriever.neighbour_weight, 0.5f);
  EXPECT_TRUE(ApplyBenchParam("common_component=0", &c).ok());
  EXPECT_FALSE(c.sif.remove_common_component);
  EXPECT_EQ(ApplyBenchParam("bogus=1", &c).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyBenchParam("neighbour_weight", &c).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyBenchParam("neighbour_weight=abc", &c).code(), StatusCode::kInvalidArgument);
}

TEST(Plot, WritesSvgAndPngWithGnuplot) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot not installed";
  nlohmann::json r = nlohmann::json::parse(R"({"k":10,"datasets":[
    {"path":"a_x1.json","history_scale":1,"methods":{
      "dense":{"recall":0.4,"context_tokens":100,"latency_us":{"p50":10,"p95":20},"slices":{"implicit":{"n":3,"recall":0.1}}},
      "bm25":{"recall":0.5,"context_tokens":90,"latency_us":{"p50":5,"p95":9},"slices":{"implicit":{"n":3,"recall":0.05}}}}},
    {"path":"a_x8.json","history_scale":8,"methods":{
      "dense":{"recall":0.3,"context_tokens":100,"latency_us":{"p50":30,"p95":50},"slices":{}},
      "bm25":{"recall":0.45,"context_tokens":95,"latency_us":{"p50":8,"p95":12},"slices":{}}}}]})");
  const testing::TempDir temp("ontomem-plot");
  const std::string& dir = temp.path();
  Status st = WritePlots(r, dir + "/plots");
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (const char* f : {"recall_vs_scale.svg", "recall_vs_scale.png", "pareto.svg", "pareto.png", "slices_0.svg"}) {
    auto p = std::filesystem::path(dir) / "plots" / f;
    ASSERT_TRUE(std::filesystem::exists(p)) << f;
    EXPECT_GT(std::filesystem::file_size(p), 500u) << f;
  }
  std::ifstream svg(std::filesystem::path(dir) / "plots" / "recall_vs_scale.svg");
  std::string text((std::istreambuf_iterator<char>(svg)), {});
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "plots" / "slices_1.svg"));  // no slices
}

}  // namespace
}  // namespace ontomem
