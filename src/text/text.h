// Text primitives shared by every stage: UTF-8 validation, tokenization, stop words, stemming.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ontomem::text {

// True when `s` is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF).
// On failure, *error_offset (if given) is the byte offset of the first bad sequence.
bool IsValidUtf8(std::string_view s, size_t* error_offset = nullptr);

// Lower-cased word tokens: runs of letters and digits (ASCII and any non-ASCII UTF-8 code
// point); an apostrophe inside a word splits off clitics the way GloVe's tokenizer does
// ("don't" -> "do", "n't"; "I'm" -> "i", "'m"; "Ana's" -> "ana", "'s"). Punctuation is dropped.
std::vector<std::string> Tokenize(std::string_view s);

// English stop words (function words, pronouns, auxiliaries, clitics such as "'s").
bool IsStopWord(std::string_view lower_word);

// Porter stemmer (1980) on a lower-cased ASCII word; other words are returned unchanged.
std::string Stem(std::string_view lower_word);

// Tokens for lexical matching: Tokenize, drop stop words, Stem.
std::vector<std::string> ContentTerms(std::string_view s);
// The distinct ContentTerms of `s`.
std::set<std::string> ContentTermSet(std::string_view s);

// ASCII lower case (other bytes unchanged): ids and keys, not linguistics.
std::string AsciiLower(std::string_view s);

// Whitespace-separated token count (the context-token cost unit).
size_t CountWhitespaceTokens(std::string_view s);

}  // namespace ontomem::text
