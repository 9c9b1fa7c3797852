// The frame reader: which run of content words, if any, is the object of a first-person
// statement about the speaker, read from word vectors rather than from the hashed words the
// perceptrons learned. It exists for phrasing no training template had ("there's a special
// place in my heart for X", "give me X and I'm a happy camper"): the perceptrons read frames
// they were shown, while the word vectors of the frame's words carry over to unseen ones.
// Inputs (kFrameInputs): the mean unit word vector of the 8 tokens before the run, of the 5
// after it (same sentence) and of the run, plus first person in the sentence, question,
// negation, a non-initial capital and the run's length; the model is a logistic regression or a
// small network (`train extractor --frame-hidden`). It knows no modality: the extractor lets
// the perceptrons' reading of the same span and the sentence's cues veto it (extractor.cc).
// Measured in docs/RESULTS.md (session 30); not in the installed models.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "extract/features.h"
#include "learn/mlp.h"
#include "ontomem/status.h"

namespace ontomem::extract {

inline constexpr int kFrameBefore = 8;
inline constexpr int kFrameAfter = 5;
inline constexpr int kFrameMaxRun = 4;
inline constexpr int kFrameInputs = 3 * kWordVectorDim + 5;

using FrameRow = std::array<float, kFrameInputs>;

struct FrameRun {
  int begin = 0, end = 0;  // tokens [begin, end)
};

// Every run of 1..kFrameMaxRun consecutive content tokens (not punctuation, not a stop word)
// inside one sentence of `p`.
std::vector<FrameRun> FrameRuns(const Prepared& p);

// Unit word vectors of p's tokens (empty where the word has none); all empty without
// res.word_vector.
std::vector<std::vector<float>> TokenVectors(const Prepared& p, const FeatureResources& res);

// The inputs of run `r`.
FrameRow FrameInputs(const Prepared& p, const std::vector<std::vector<float>>& vectors, const FrameRun& r);

class FrameReader {
 public:
  // `hidden` sigmoid units (0 = a logistic regression), weights drawn from `seed`.
  explicit FrameReader(int hidden = 0, uint64_t seed = 1);
  float Score(const FrameRow& x) const;

  struct Reading {
    FrameRun run;
    float score = 0;  // 0 when the turn has no run or no word vectors
  };
  // The best-scoring run of the turn.
  Reading Read(const Prepared& p, const FeatureResources& res) const;

  // Adam on the logistic loss (learn::Mlp::Train); positives weighted by `positive_weight`.
  void Fit(const std::vector<FrameRow>& x, const std::vector<uint8_t>& y, const learn::MlpTrainOptions& options,
           float positive_weight);

  // models/extractor/frame.bin (the extractor checkpoint format, kind "FRAM").
  Status Save(const std::string& path) const;
  // FailedPrecondition for a missing file, Corruption for a damaged one (messages name the file).
  static StatusOr<FrameReader> Load(const std::string& path);

 private:
  learn::Mlp mlp_;
};

}  // namespace ontomem::extract
