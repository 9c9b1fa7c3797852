#include "retrieve/time_expr.h"

#include <gtest/gtest.h>

namespace ontomem {
namespace {

constexpr int64_t kDay = 86400000;
// 2023-08-15 12:00 UTC
constexpr int64_t kRef = 1692100800000;

TEST(TimeExpr, RelativeSpansGetSlack) {
  auto w = ResolveTimeExpression("what did I say two weeks ago?", kRef);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->phrase, "two weeks ago");
  EXPECT_EQ(w->from_ms, kRef - 21 * kDay);
  EXPECT_EQ(w->to_ms, kRef - 7 * kDay + kDay);
  auto c = ResolveTimeExpression("a couple of days ago we talked", kRef);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->phrase, "couple of days ago");
  EXPECT_LT(c->from_ms, kRef - 2 * kDay);
  EXPECT_GT(c->to_ms, kRef - 2 * kDay);
  auto y = ResolveTimeExpression("Yesterday I cooked", kRef);
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(y->to_ms - y->from_ms, kDay);
  EXPECT_LE(y->to_ms, kRef);
}

TEST(TimeExpr, CalendarNames) {
  // 2023-06-01 .. 2023-09-01 is this year's summer; on 15 August it has not ended, so "last
  // summer" is 2022's.
  const int64_t jun2023 = 1685577600000, sep2023 = 1693526400000, jun2022 = 1654041600000,
                sep2022 = 1661990400000;
  auto s = ResolveTimeExpression("this summer", kRef);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->from_ms, jun2023);
  EXPECT_EQ(s->to_ms, sep2023);
  auto ls = ResolveTimeExpression("the trip last summer", kRef);
  ASSERT_TRUE(ls.has_value());
  EXPECT_EQ(ls->from_ms, jun2022);
  EXPECT_EQ(ls->to_ms, sep2022);
  // "in March" = March 2023 (already begun); "in September" = September 2022.
  const int64_t mar2023 = 1677628800000, apr2023 = 1680307200000, sep2022b = 1661990400000;
  auto m = ResolveTimeExpression("what happened in March", kRef);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->from_ms, mar2023);
  EXPECT_EQ(m->to_ms, apr2023);
  auto sep = ResolveTimeExpression("in September", kRef);
  ASSERT_TRUE(sep.has_value());
  EXPECT_EQ(sep->from_ms, sep2022b);
  auto named = ResolveTimeExpression("back in march 2021", kRef);
  ASSERT_TRUE(named.has_value());
  EXPECT_EQ(named->phrase, "in march 2021");
  EXPECT_EQ(named->from_ms, 1614556800000);
  auto lm = ResolveTimeExpression("last month", kRef);
  ASSERT_TRUE(lm.has_value());
  EXPECT_EQ(lm->from_ms, 1688169600000);  // 2023-07-01
  EXPECT_EQ(lm->to_ms, 1690848000000);    // 2023-08-01
  auto ly = ResolveTimeExpression("in 2022", kRef);
  ASSERT_TRUE(ly.has_value());
  EXPECT_EQ(ly->from_ms, 1640995200000);
  EXPECT_EQ(ly->to_ms, 1672531200000);
}

TEST(TimeExpr, NothingToResolve) {
  EXPECT_FALSE(ResolveTimeExpression("what should I watch?", kRef).has_value());
  EXPECT_FALSE(ResolveTimeExpression("I may go", kRef).has_value());
  EXPECT_FALSE(ResolveTimeExpression("", kRef).has_value());
  EXPECT_FALSE(ResolveTimeExpression("two apples ago", kRef).has_value());
}

}  // namespace
}  // namespace ontomem
