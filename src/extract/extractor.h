// Step I facade: turn -> candidate assertions with confidence.
//   tokens -> BIO span tagger (tails, holders) -> relation + modality classifier (top-2
//   relations per span: over-generation) -> candidate scorer (2-layer MLP, 256 sigmoid units)
//   -> verifier (rules by default, optional LLM) -> Assertion{confidence}; then, for a turn with
//   no current assertion about its speaker, the fallback perceptrons' current LIKES / DISLIKES
//   of the speaker (when the models have them) and the frame reader over word vectors
//   (frame_reader.h).
// Callers put assertions with confidence >= options.threshold into the graph; the rest stay
// vector-only (docs/extraction.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extract/assertion.h"
#include "extract/features.h"
#include "extract/models.h"
#include "extract/verifier.h"
#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem::extract {

struct ExtractorOptions {
  // Directory holding extractor/{clusters,tagger,relation,scorer}.bin; empty = DefaultModelsDir().
  std::string models_dir;
  // Confidence from which a candidate counts as accepted (graph-worthy). Default 0.5.
  float threshold = 0.5f;
  // Relations tried per tail span (over-generation). Default 2.
  int max_relations_per_span = 2;
  // Candidates under this scorer probability are dropped entirely (not returned). Default 0.05.
  float min_confidence = 0.05f;
  // A rejected candidate's confidence is multiplied by this. Default 0.4.
  float rejected_factor = 0.4f;
  // The frame reader (frame.bin, when the models have one and the resources a word_vector) is
  // asked only for a turn the perceptrons give no current assertion about its speaker; its best
  // run becomes one when it scores at least this. Default 0.5.
  float frame_threshold = 0.5f;
};

// $ONTOMEM_MODELS if set; else the first of <exe dir>/../../models and ./models holding
// extractor/tagger.bin; else "./models" (so errors name a sensible path).
std::string DefaultModelsDir();

class Extractor {
 public:
  // Loads the four model files from <models_dir>/extractor/. Errors (FailedPrecondition for a
  // missing file, Corruption for a damaged one) name the file and `ontomem train extractor`.
  // `verifier` null = RuleVerifier(resources).
  static StatusOr<std::unique_ptr<Extractor>> Open(const ExtractorOptions& options,
                                                   FeatureResources resources = {},
                                                   std::shared_ptr<const Verifier> verifier = nullptr);
  // From models already in memory (training, tests).
  static std::unique_ptr<Extractor> FromModels(std::shared_ptr<const ExtractorModels> models,
                                               const ExtractorOptions& options,
                                               FeatureResources resources = {},
                                               std::shared_ptr<const Verifier> verifier = nullptr);

  // All candidates of the turn with confidence >= options.min_confidence, best first; each
  // carries head, relation, tail (normalised), tail span, modality, time, source and confidence.
  // Only those with confidence >= threshold() should become graph edges. Thread-safe; no I/O
  // unless the verifier does some (LlmVerifier).
  std::vector<Assertion> Extract(const Turn& turn, int64_t seq) const;

  float threshold() const { return options_.threshold; }
  const ExtractorOptions& options() const { return options_; }
  const Verifier& verifier() const { return *verifier_; }

 private:
  Extractor() = default;
  // The perceptrons' candidates of `models` (one per tail span and relation, best first).
  std::vector<Assertion> Perceive(const ExtractorModels& models, const Turn& turn, int64_t seq, const Prepared& p) const;
  // The frame reader's assertion for a turn `found` holds no current one about the speaker.
  void ReadFrame(const Turn& turn, int64_t seq, const Prepared& p, std::vector<Assertion>* found) const;
  ExtractorOptions options_;
  FeatureResources res_;
  std::shared_ptr<const ExtractorModels> models_;
  std::shared_ptr<const Verifier> verifier_;
};

}  // namespace ontomem::extract
