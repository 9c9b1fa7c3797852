#include "text/recall_cue.h"

#include <gtest/gtest.h>

namespace ontomem::text {
namespace {

TEST(RecallCue, QuestionsAboutWhatWasSaid) {
  for (const char* q : {"You once recommended a few cooking shows to me. What were their names?",
                        "Did I ever say how I feel about halal?",
                        "I have watched \"Looking Up\", what was the specific date of that day?",
                        "Remind me, which dentist did you suggest?", "do you remember the name of that cafe",
                        "When did I mention my sister's wedding?", "Can you recall what the interviewers asked me?",
                        "I mentioned a course I signed up for, what day was it on?", "had we discussed the budget?",
                        "Which podcast did you point me to?", "that korean resource u told me about, what was it called?",
                        "whats the name of the vet u gave me", "how much did u say to put away for the car"})
    EXPECT_TRUE(AsksWhatWasSaid(q)) << q;
}

TEST(RecallCue, RequestsForSomethingNew) {
  for (const char* q : {"We're visiting the shelter on Friday to adopt. What traits should we look for?",
                        "what should I watch this weekend?", "How do I keep momentum on the budget sheet?",
                        "Any ideas for a gift that isn't more clutter?", "Could you suggest a dessert I can make for the team?",
                        "What should I listen to on the ride in?", "what editor setup would u recommend?",
                        "can u gimme a smoothie recipe for after runs", "u up for a film tonight?", ""})
    EXPECT_FALSE(AsksWhatWasSaid(q)) << q;
}

}  // namespace
}  // namespace ontomem::text
