// Word tokens with byte offsets into the original text, for span tagging. Same word boundaries
// as text::Tokenize (runs of letters and digits, any non-ASCII code point counts as a letter;
// clitics split off: "don't" -> "do" "n't", "I'm" -> "I" "'m"), except that a hyphen or
// apostrophe-free hyphenated word ("sci-fi", "gluten-free") stays one token and punctuation
// marks are kept as one-byte tokens (flagged `punct`) so sentence and clause boundaries are
// visible to the tagger.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ontomem::extract {

struct Token {
  std::string text;   // the bytes text[begin, end) as written
  std::string lower;  // ASCII lower-cased; the curly apostrophe is mapped to '
  int32_t begin = 0;  // byte offsets into the input
  int32_t end = 0;
  bool punct = false;  // a punctuation mark (one code point)
};

// Splits `s` into tokens; whitespace is dropped. Never fails; invalid UTF-8 bytes are treated
// as letters. Thread-safe.
std::vector<Token> TokenizeWithOffsets(std::string_view s);

}  // namespace ontomem::extract
