#include "extract/tokens.h"

#include <gtest/gtest.h>

#include "text/text.h"

namespace ontomem::extract {
namespace {

std::vector<std::string> Texts(const std::vector<Token>& t) {
  std::vector<std::string> out;
  for (const auto& x : t) out.push_back(x.text);
  return out;
}

TEST(ExtractTokens, OffsetsSliceTheInput) {
  const std::string s = "I'm allergic to peanuts, and I don't eat sci-fi snacks!";
  const auto toks = TokenizeWithOffsets(s);
  for (const auto& t : toks) EXPECT_EQ(s.substr(static_cast<size_t>(t.begin), static_cast<size_t>(t.end - t.begin)), t.text);
  EXPECT_EQ(Texts(toks), (std::vector<std::string>{"I", "'m", "allergic", "to", "peanuts", ",", "and", "I", "do", "n't",
                                                    "eat", "sci-fi", "snacks", "!"}));
  EXPECT_TRUE(toks[5].punct);
  EXPECT_FALSE(toks[4].punct);
  EXPECT_EQ(toks[0].lower, "i");
}

TEST(ExtractTokens, CurlyApostropheAndUtf8) {
  const std::string s = "I\xE2\x80\x99m in Z\xC3\xBCrich \xE2\x80\x94 caf\xC3\xA9 time";
  const auto toks = TokenizeWithOffsets(s);
  ASSERT_EQ(Texts(toks), (std::vector<std::string>{"I", "\xE2\x80\x99m", "in", "Z\xC3\xBCrich", "\xE2\x80\x94",
                                                   "caf\xC3\xA9", "time"}));
  EXPECT_EQ(toks[1].lower, "'m");
  EXPECT_TRUE(toks[4].punct);
  for (const auto& t : toks) EXPECT_EQ(s.substr(static_cast<size_t>(t.begin), static_cast<size_t>(t.end - t.begin)), t.text);
}

TEST(ExtractTokens, WordTokensAgreeWithTextTokenize) {
  // Same words as text::Tokenize when no hyphen is involved.
  const std::string s = "My brother's dog doesn't like the 2 cats; we'll see.";
  std::vector<std::string> words;
  for (const auto& t : TokenizeWithOffsets(s))
    if (!t.punct) words.push_back(t.lower);
  EXPECT_EQ(words, text::Tokenize(s));
}

TEST(ExtractTokens, EmptyAndSpaces) {
  EXPECT_TRUE(TokenizeWithOffsets("").empty());
  EXPECT_TRUE(TokenizeWithOffsets("   \n\t").empty());
  const auto t = TokenizeWithOffsets("  hi  ");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].begin, 2);
  EXPECT_EQ(t[0].end, 4);
}

}  // namespace
}  // namespace ontomem::extract
