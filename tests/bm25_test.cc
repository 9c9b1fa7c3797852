#include "index/bm25.h"

#include <gtest/gtest.h>

namespace ontomem {
namespace {

WeightedTerms T(std::initializer_list<const char*> words) {
  WeightedTerms t;
  for (const char* w : words) t.emplace_back(w, 1.0f);
  return t;
}

TEST(Bm25, RanksByRarityAndFrequency) {
  Bm25Index idx;
  idx.Add(T({"cat", "sat", "mat"}));
  idx.Add(T({"dog", "sat", "log"}));
  idx.Add(T({"cat", "cat", "purr"}));
  auto hits = idx.Search(T({"cat"}), 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].first, 2);  // tf 2 beats tf 1
  EXPECT_EQ(hits[1].first, 0);
  // "log" is rarer than "sat": the doc with both wins over the one with "sat" only.
  hits = idx.Search(T({"sat", "log"}), 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].first, 1);
}

TEST(Bm25, NoMatchAndEmptyIndex) {
  Bm25Index empty;
  EXPECT_TRUE(empty.Search(T({"x"}), 5).empty());
  Bm25Index idx;
  idx.Add(T({"a"}));
  EXPECT_TRUE(idx.Search(T({"zzz"}), 5).empty());
  EXPECT_TRUE(idx.Search({}, 5).empty());
}

TEST(Bm25, WeightsActAsFractionalFrequency) {
  Bm25Index idx;
  idx.Add({{"tea", 0.5f}, {"x", 1.0f}});
  idx.Add({{"tea", 1.0f}, {"y", 1.0f}});
  auto hits = idx.Search(T({"tea"}), 2);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].first, 1);
  EXPECT_GT(hits[0].second, hits[1].second);
}

TEST(Bm25, TopKCutsAndOrdersTiesByOrdinal) {
  Bm25Index idx;
  for (int i = 0; i < 5; ++i) idx.Add(T({"same"}));
  auto hits = idx.Search(T({"same"}), 3);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].first, 0);
  EXPECT_EQ(hits[2].first, 2);
}

}  // namespace
}  // namespace ontomem
