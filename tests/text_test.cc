#include "text/text.h"

#include <gtest/gtest.h>

namespace ontomem::text {
namespace {

using V = std::vector<std::string>;

TEST(Utf8, AcceptsValidRejectsInvalid) {
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  size_t off = 99;
  EXPECT_FALSE(IsValidUtf8("ab\xC3", &off));  // truncated
  EXPECT_EQ(off, 2u);
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));           // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));       // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));   // > U+10FFFF
  EXPECT_FALSE(IsValidUtf8("x\xFFy", &off));
  EXPECT_EQ(off, 1u);
}

TEST(Tokenize, LowercasesAndSplitsClitics) {
  EXPECT_EQ(Tokenize("I'm sure Ana's dog doesn't bite!"),
            (V{"i", "'m", "sure", "ana", "'s", "dog", "does", "n't", "bite"}));
  EXPECT_EQ(Tokenize("I can't, won't"), (V{"i", "can", "n't", "will", "n't"}));
  EXPECT_EQ(Tokenize("Caf\xC3\xA9 at 9:30\xE2\x80\x94great"), (V{"caf\xC3\xA9", "at", "9", "30", "great"}));
  EXPECT_EQ(Tokenize("It\xE2\x80\x99s fine"), (V{"it", "'s", "fine"}));
  EXPECT_TRUE(Tokenize("  ...  ").empty());
}

TEST(Tokenize, InvalidBytesDoNotCrash) {
  EXPECT_EQ(Tokenize("ab\xFF" "cd"), (V{"ab", "cd"}));
}

TEST(Stem, PorterReferenceExamples) {
  // From Porter's paper and the reference vocabulary.
  EXPECT_EQ(Stem("caresses"), "caress");
  EXPECT_EQ(Stem("ponies"), "poni");
  EXPECT_EQ(Stem("cats"), "cat");
  EXPECT_EQ(Stem("feed"), "feed");
  EXPECT_EQ(Stem("agreed"), "agre");
  EXPECT_EQ(Stem("plastered"), "plaster");
  EXPECT_EQ(Stem("motoring"), "motor");
  EXPECT_EQ(Stem("hopping"), "hop");
  EXPECT_EQ(Stem("filing"), "file");
  EXPECT_EQ(Stem("happy"), "happi");
  EXPECT_EQ(Stem("relational"), "relat");
  EXPECT_EQ(Stem("generalization"), "gener");
  EXPECT_EQ(Stem("running"), "run");
  EXPECT_EQ(Stem("adoption"), "adopt");
  EXPECT_EQ(Stem("painting"), Stem("paintings"));
  EXPECT_EQ(Stem("caf\xC3\xA9"), "caf\xC3\xA9");  // non-ASCII untouched
}

TEST(ContentTerms, DropsStopWordsAndStems) {
  EXPECT_EQ(ContentTerms("When did Caroline go to the support groups?"),
            (V{"carolin", "go", "support", "group"}));
}

TEST(CountWhitespaceTokens, Counts) {
  EXPECT_EQ(CountWhitespaceTokens("  a bb\tc\n"), 3u);
  EXPECT_EQ(CountWhitespaceTokens(""), 0u);
}

}  // namespace
}  // namespace ontomem::text
