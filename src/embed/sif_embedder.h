// GloVe-SIF sentence embedder: a weighted sum of the lexicon's word vectors with the common
// component removed (Arora, Liang, Ma 2017, "A simple but tough-to-beat baseline for sentence
// embeddings"), L2-normalised.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "embed/lexicon.h"
#include "ontomem/embedder.h"

namespace ontomem {

struct SifEmbedderOptions {
  enum class Weighting {
    kSif,      // a / (a + p(w)), p from the lexicon's Zipf estimate (default)
    kUniform,  // plain mean of the word vectors
  };
  Weighting weighting = Weighting::kSif;
  // SIF smoothing `a` (default 1e-3): smaller values discount frequent words more.
  double sif_a = 1e-3;
  // Skip text::IsStopWord tokens (default true).
  bool drop_stop_words = true;
  // Project out the lexicon's stored common component (default true).
  bool remove_common_component = true;
};

class SifEmbedder : public Embedder {
 public:
  // Opens the lexicon at `lexicon_path` (errors as Lexicon::Open: FailedPrecondition naming
  // `make lexicon`) and checks the options (InvalidArgument for sif_a <= 0).
  static StatusOr<std::shared_ptr<SifEmbedder>> Open(const std::string& lexicon_path,
                                                     const SifEmbedderOptions& options = {});
  // Shares an open lexicon (several option sets over one mapping). `lexicon` must not be null
  // and options.sif_a must be > 0 (use Open for checked construction).
  SifEmbedder(std::shared_ptr<const Lexicon> lexicon, const SifEmbedderOptions& options);

  // "glove-sif-<dim>:a=<a>:stop=<0|1>:cc=<0|1>:<lexicon checksum, 16 hex digits>", or
  // "glove-mean-<dim>:stop=..:cc=..:<checksum>" for uniform weighting.
  std::string id() const override;
  int dim() const override { return lexicon_->dim(); }
  // Writes dim() floats with unit L2 norm, or all zeros when no token is in the lexicon (after
  // stop-word removal) or the sum vanishes. Never fails for non-null `out`. Thread-safe.
  Status Embed(std::string_view text, float* out) const override;

  const Lexicon& lexicon() const { return *lexicon_; }
  std::shared_ptr<const Lexicon> shared_lexicon() const { return lexicon_; }
  const SifEmbedderOptions& options() const { return options_; }

 private:
  std::shared_ptr<const Lexicon> lexicon_;
  SifEmbedderOptions options_;
  std::string id_;
};

}  // namespace ontomem
