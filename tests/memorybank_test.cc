// `ontomem bench convert-memorybank`: MemoryBank's layout becomes a LoCoMo-format dataset the
// bench loader reads, with our evidence labels checked against the turns.
#include "bench/memorybank.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/dataset.h"
#include "test_util.h"

namespace ontomem {
namespace {

class MemoryBankTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Stray spaces in a key, days out of order, as in the real file.
    std::ofstream(dir_ + "/memory_bank_en.json") << R"({" Mia ": {"name": "Mia", "history": {
      "2023-05-02": [{"query": "I read Dune in the library.", "response": "A classic!"}],
      "2023-04-27": [{"query": "I only drink decaf.", "response": "Noted."},
                     {"query": "Any film tips?", "response": "Try Arrival."}]}}})";
    std::ofstream(dir_ + "/probing_questions_en.jsonl")
        << R"({"Mia": ["What book did I read in the library?", "What film did you recommend?"]})" << "\n";
  }
  Status Convert(const std::string& labels, std::string* out) {
    MemoryBankConfig c;
    c.dir = dir_;
    if (!labels.empty()) {
      c.labels_path = dir_ + "/labels.json";
      std::ofstream(c.labels_path) << labels;
    }
    return ConvertMemoryBank(c, out);
  }
  const testing::TempDir temp_{"ontomem-memorybank"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
};

TEST_F(MemoryBankTest, DaysBecomeSessionsAndLabelsBecomeEvidence) {
  std::string doc;
  ASSERT_TRUE(Convert(R"({"Mia": [["D2:1"], ["D1:4"]]})", &doc).ok());
  auto ds = ParseLocomo(doc, "converted");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_EQ(ds->samples.size(), 1u);
  const Sample& s = ds->samples[0];
  EXPECT_EQ(s.sample_id, "mb-Mia");
  ASSERT_EQ(s.turns.size(), 6u);
  EXPECT_EQ(s.turns[0].id, "D1:1");  // 27 April comes first
  EXPECT_EQ(s.turns[0].text, "I only drink decaf.");
  EXPECT_EQ(s.turns[0].speaker, "Mia");
  EXPECT_EQ(s.turns[3].speaker, "AI");
  EXPECT_EQ(s.turns[3].text, "Try Arrival.");
  EXPECT_EQ(s.turns[4].id, "D2:1");
  EXPECT_LT(s.turns[0].time_ms, s.turns[4].time_ms);
  ASSERT_EQ(s.qa.size(), 2u);
  EXPECT_EQ(s.qa[0].speaker, "Mia");
  EXPECT_EQ(s.qa[0].evidence, std::vector<std::string>{"D2:1"});
  EXPECT_EQ(s.qa[1].evidence, std::vector<std::string>{"D1:4"});
}

TEST_F(MemoryBankTest, WithoutLabelsEvidenceIsEmpty) {
  std::string doc;
  ASSERT_TRUE(Convert("", &doc).ok());
  auto ds = ParseLocomo(doc, "converted");
  ASSERT_TRUE(ds.ok());
  for (const auto& q : ds->samples[0].qa) EXPECT_TRUE(q.evidence.empty());
}

TEST_F(MemoryBankTest, BadLabelsAreErrorsNamingTheUserAndQuestion) {
  std::string doc;
  Status unknown = Convert(R"({"Mia": [["D2:1"], ["D9:1"]]})", &doc);
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("Mia question 2"), std::string::npos) << unknown.ToString();
  Status count = Convert(R"({"Mia": [["D2:1"]]})", &doc);
  EXPECT_EQ(count.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(count.message().find("2 questions"), std::string::npos) << count.ToString();
  EXPECT_EQ(Convert("{not json", &doc).code(), StatusCode::kInvalidArgument);
  MemoryBankConfig missing;
  missing.dir = dir_ + "/nowhere";
  EXPECT_FALSE(ConvertMemoryBank(missing, &doc).ok());
}

// The shipped labels fit the real MemoryBank: every id names a turn of its user, one list per
// question, and all but the question about an empty day have evidence.
TEST(MemoryBankLabels, FitTheRealData) {
  MemoryBankConfig c;
  c.dir = std::string(ONTOMEM_SOURCE_DIR) + "/../shared/data/memorybank";
  c.labels_path = std::string(ONTOMEM_SOURCE_DIR) + "/data/memorybank/labels.json";
  if (!std::filesystem::exists(c.dir + "/memory_bank_en.json")) GTEST_SKIP() << "no " << c.dir;
  std::string doc;
  Status st = ConvertMemoryBank(c, &doc);
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto ds = ParseLocomo(doc, "memorybank");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ(ds->samples.size(), 15u);
  size_t questions = 0, labelled = 0;
  for (const Sample& s : ds->samples)
    for (const QaItem& q : s.qa) {
      ++questions;
      labelled += !q.evidence.empty();
      EXPECT_FALSE(q.speaker.empty());
    }
  EXPECT_EQ(questions, 100u);
  EXPECT_EQ(labelled, 99u);
}

}  // namespace
}  // namespace ontomem
