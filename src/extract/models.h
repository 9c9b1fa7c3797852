// The learned parts of Step I: the BIO span tagger (tails and holders) and the relation +
// modality classifier, both averaged perceptrons over the hashed features of features.h, and
// the candidate generation that joins them (over-generating: top relations per span, holder
// spans also proposed as tails) into scorer inputs.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "extract/features.h"
#include "extract/frame_reader.h"
#include "extract/perceptron.h"
#include "learn/mlp.h"

namespace ontomem::extract {

enum TagLabel : int { kTagO = 0, kTagBT, kTagIT, kTagBH, kTagIH, kNumTagLabels };

struct TaggedSpan {
  int begin = 0, end = 0;  // tokens
  bool holder = false;     // a holder mention ("my brother", "Ana") rather than a tail
  float score = 0;         // mean (label score - O score) over the span's tokens
};

class SpanTagger {
 public:
  explicit SpanTagger(int bucket_bits = 15) : model_(bucket_bits, kNumTagLabels) {}
  // Greedy left-to-right decoding. Thread-safe (const).
  std::vector<TaggedSpan> Tag(const Prepared& p) const;
  // One perceptron pass over one sentence with gold labels (size == tokens).
  void Learn(const Prepared& p, const std::vector<int>& gold);
  void Finish() { model_.Average(); }
  // Parameter mixing over training orders (extract/train.cc): sum, then scale.
  void AddWeights(const SpanTagger& o) { model_.AddWeights(o.model_); }
  void ScaleWeights(float s) { model_.ScaleWeights(s); }
  AveragedPerceptron& model() { return model_; }
  const AveragedPerceptron& model() const { return model_; }

 private:
  AveragedPerceptron model_;
};

struct RelationScores {
  std::array<float, kNumRelations + 1> rel{};
  std::array<float, kNumModalities> mod{};
};

class RelationModel {
 public:
  explicit RelationModel(int bucket_bits = 14)
      : rel_(bucket_bits, kNumRelations + 1), mod_(bucket_bits, kNumModalities) {}
  RelationScores Score(const Prepared& p, const SpanRef& c) const;
  // relation in [0, 16] (16 = NONE); modality < 0 = do not train the modality head.
  void Learn(const Prepared& p, const SpanRef& c, int relation, int modality);
  void Finish() { rel_.Average(); mod_.Average(); }
  void AddWeights(const RelationModel& o) {
    rel_.AddWeights(o.rel_);
    mod_.AddWeights(o.mod_);
  }
  void ScaleWeights(float s) {
    rel_.ScaleWeights(s);
    mod_.ScaleWeights(s);
  }
  // relation.bin's payload: the relation perceptron, then the modality one. Read is false on a
  // malformed blob or one with other label counts.
  void Write(BlobWriter* w) const {
    rel_.Write(w);
    mod_.Write(w);
  }
  bool Read(BlobReader* r) {
    return rel_.Read(r) && mod_.Read(r) && rel_.labels() == kNumRelations + 1 && mod_.labels() == kNumModalities;
  }

 private:
  AveragedPerceptron rel_, mod_;
};

// Scorer input layout (kScorerInputs floats).
inline constexpr int kScorerInputs = 16 + kNumRelations + kNumModalities;

struct Candidate {
  SpanRef span;
  int relation = 0;  // 0..15
  int modality = 0;
  int rank = 0;      // 0 = best relation of the span, 1 = runner-up
  float tag_score = 0;
  CueFlags cues;
  std::array<float, kScorerInputs> x{};
};

// Everything the extractor loads from models/extractor/.
struct ExtractorModels {
  ClusterTable clusters;
  SpanTagger tagger;
  RelationModel relation;
  learn::Mlp scorer;  // kScorerInputs -> 256 sigmoid -> 1 sigmoid
  std::optional<FrameReader> frame;  // optional: frame.bin (`train extractor --frame-reader`)
  // Optional: a second set of perceptrons under fallback/, asked only for a turn these give no
  // current assertion about its speaker (Extractor::Extract), so that what they read stays.
  std::shared_ptr<const ExtractorModels> fallback;

  // Files under `dir`: clusters.bin, tagger.bin, relation.bin, scorer.bin and, when there is
  // one, frame.bin and fallback/ (Save removes a frame.bin or fallback/ these models do not have).
  Status Save(const std::string& dir) const;
  static StatusOr<std::unique_ptr<ExtractorModels>> Load(const std::string& dir);
};

// The tagger's spans plus determiner phrases it left out ("buy a convertible,"), proposed with
// score 0 so that the relation classifier and the scorer judge them too.
std::vector<TaggedSpan> ProposeSpans(const SpanTagger& tagger, const Prepared& p);

// Tagger spans -> candidates with scorer inputs. `max_relations` per span (over-generation).
std::vector<Candidate> GenerateCandidates(const SpanTagger& tagger, const RelationModel& relation,
                                          const Prepared& p, const FeatureResources& res,
                                          int max_relations = 2);

// Lower-case tail phrase without leading articles/possessives, last word singularised
// ("The Glass Orchard" -> "glass orchard", "peanuts" -> "peanut").
std::string NormaliseTail(const Prepared& p, int begin, int end);

// A candidate's tail span as stored: trailing stop words and punctuation trimmed, and for a
// stance (`stance`: LIKES / DISLIKES) a one-word tail naming no thing ("lucky", "sunday")
// widened to its noun phrase. Span of `p.tokens`, never empty.
SpanRef TidyTail(const Prepared& p, SpanRef span, bool stance, const FeatureResources& res);

}  // namespace ontomem::extract
