// The turn-level "facts" that IPR-synth writes for extractor training.
#include <gtest/gtest.h>

#include "test_util.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "bench/dataset.h"
#include "bench/ipr_synth.h"
#include "extract/annotations.h"

namespace ontomem::extract {
namespace {

std::string Filler() {
  const std::string p = std::string(ONTOMEM_SOURCE_DIR) + "/../shared/data/locomo/locomo_dev5.json";
  return std::filesystem::exists(p) ? p : "";
}

TEST(IprFacts, SpansAreValidAndCoverTheHardCases) {
  IprConfig c;
  c.split = "train";
  c.dialogues = 60;
  c.filler_path = Filler();
  std::string json;
  ASSERT_TRUE(GenerateIpr(c, &json).ok());
  auto turns = ParseIprFacts(json, "train");
  ASSERT_TRUE(turns.ok()) << turns.status().ToString();
  std::set<std::string> rels, mods;
  size_t facts = 0, empty = 0;
  for (const auto& t : *turns) {
    empty += t.facts.empty();
    for (const auto& f : t.facts) {
      ++facts;
      rels.insert(f.relation);
      mods.insert(ModalityName(f.modality));
      const std::string tail = t.text.substr(static_cast<size_t>(f.tail_begin), static_cast<size_t>(f.tail_end - f.tail_begin));
      EXPECT_FALSE(tail.empty());
      EXPECT_NE(tail.front(), ' ') << t.text;
      EXPECT_NE(tail.back(), ' ') << t.text;
      if (f.modality == Modality::kReported) {
        EXPECT_FALSE(f.head_is_speaker) << t.text;
        EXPECT_GE(f.head_begin, 0);
      } else {
        EXPECT_TRUE(f.head_is_speaker) << t.text;
      }
    }
  }
  EXPECT_GT(facts, 500u);
  EXPECT_GT(empty, 100u);  // acknowledgements and questions: read, nothing stated
  for (const char* r : {"LIKES", "DISLIKES", "ALLERGIC_TO", "FOLLOWS_DIET", "HAS_HABIT", "USES", "HAS_RELATIVE"})
    EXPECT_TRUE(rels.count(r)) << r;
  for (const char* m : {"asserted", "reported", "past", "hypothetical"}) EXPECT_TRUE(mods.count(m)) << m;
  // The LoCoMo loader ignores the extra field.
  auto ds = ParseLocomo(json, "train");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ(ds->samples.size(), 60u);
}

// Adding "facts" changed nothing else: stripped, the frozen test split hashes as before.
TEST(IprFacts, StrippedTestSplitMatchesThePreviousFrozenHash) {
  if (Filler().empty()) GTEST_SKIP() << "no LoCoMo filler";
  IprConfig c;
  c.split = "test";
  c.dialogues = 500;
  c.filler_path = Filler();
  std::string json;
  ASSERT_TRUE(GenerateIpr(c, &json).ok());
  auto doc = nlohmann::ordered_json::parse(json);
  for (auto& s : doc)
    for (auto& [k, v] : s["conversation"].items())
      if (v.is_array())
        for (auto& t : v) t.erase("facts");
  std::string out = doc.dump(2);
  out.push_back('\n');
  EXPECT_EQ(testing::Fnv1a64(out), 0xe12036466d81c268ULL);
}

}  // namespace
}  // namespace ontomem::extract
