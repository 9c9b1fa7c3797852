// Handlers of `ontomem lexicon build|check`, kept free of CLI11 so the app only wires them.
#pragma once

#include <string>

namespace ontomem {

// `ontomem lexicon build --from <wink json> --out <path> [--int8]`: converts the npm
// wink-embeddings JSON, then re-opens the result to verify it. Prints a one-line summary to
// stdout; errors to stderr. Returns 0 on success, 1 on failure.
int RunLexiconBuild(const std::string& from_json, const std::string& out_path, bool int8);

// `ontomem lexicon check --path <path>`: opens and validates a lexicon (checksum included).
// Prints a one-line summary to stdout, or the error (naming the fix) to stderr. Returns 0 if it
// opens, 1 otherwise.
int RunLexiconCheck(const std::string& path);

}  // namespace ontomem
