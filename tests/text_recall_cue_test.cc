#include "text/recall_cue.h"

#include <gtest/gtest.h>

namespace ontomem::text {
namespace {

TEST(RecallCue, QuestionsAboutWhatWasSaid) {
  EXPECT_TRUE(AsksWhatWasSaid("You once recommended a few cooking shows to me. What were their names?"));
  EXPECT_TRUE(AsksWhatWasSaid("Did I ever say how I feel about halal?"));
  EXPECT_TRUE(AsksWhatWasSaid("I have watched \"Looking Up\", what was the specific date of that day?"));
  EXPECT_TRUE(AsksWhatWasSaid("Remind me, which dentist did you suggest?"));
  EXPECT_TRUE(AsksWhatWasSaid("do you remember the name of that cafe"));
  EXPECT_TRUE(AsksWhatWasSaid("When did I mention my sister's wedding?"));
}

TEST(RecallCue, RequestsForSomethingNew) {
  EXPECT_FALSE(AsksWhatWasSaid("We're visiting the shelter on Friday to adopt. What traits should we look for?"));
  EXPECT_FALSE(AsksWhatWasSaid("what should I watch this weekend?"));
  EXPECT_FALSE(AsksWhatWasSaid("How do I keep momentum on the budget sheet?"));
  EXPECT_FALSE(AsksWhatWasSaid("Any ideas for a gift that isn't more clutter?"));
  EXPECT_FALSE(AsksWhatWasSaid(""));
}

}  // namespace
}  // namespace ontomem::text
