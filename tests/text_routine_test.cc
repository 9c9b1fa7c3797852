#include "text/routine.h"

#include <gtest/gtest.h>

namespace ontomem::text {
namespace {

TEST(TextRoutine, CountsTheKindsOfRoutineCueATurnSays) {
  EXPECT_EQ(RoutineCues("I drop the twins at nursery at 8:15 every weekday"), 2);
  EXPECT_EQ(RoutineCues("Choir practice is on Tuesdays."), 1);
  EXPECT_EQ(RoutineCues("I can't focus until noon."), 1);
  EXPECT_EQ(RoutineCues("my gym class starts at 6pm"), 1);
  EXPECT_EQ(RoutineCues("I'm on early shifts, done by half two"), 2);
  EXPECT_EQ(RoutineCues("Nothing gets done after lunch, every single day"), 2);
  EXPECT_EQ(RoutineCues("we meet at seven o'clock sharp on Fridays, after my commute"), 3);
  // Chit-chat with a number or a day in it is not a routine.
  EXPECT_EQ(RoutineCues("At one point I had three cats."), 0);
  EXPECT_EQ(RoutineCues("I saw a great film last Saturday."), 0);
  EXPECT_EQ(RoutineCues("I'm at work, talk later"), 0);
  EXPECT_EQ(RoutineCues(""), 0);
}

TEST(TextRoutine, TellsAQuestionThatNamesATimeSpanToPlan) {
  EXPECT_TRUE(NamesTimeSpan("how should I lay out tomorrow?"));
  EXPECT_TRUE(NamesTimeSpan("Could you sort out my Thursday"));
  EXPECT_TRUE(NamesTimeSpan("plan my day please"));
  EXPECT_TRUE(NamesTimeSpan("what should next week look like"));
  EXPECT_FALSE(NamesTimeSpan("what should I cook?"));
  EXPECT_FALSE(NamesTimeSpan("which day did I say I'd visit?"));
  EXPECT_FALSE(NamesTimeSpan(""));
}

}  // namespace
}  // namespace ontomem::text
