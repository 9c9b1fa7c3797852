#include "embed/sif_embedder.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "text/text.h"

namespace ontomem {

StatusOr<std::shared_ptr<SifEmbedder>> SifEmbedder::Open(const std::string& lexicon_path,
                                                         const SifEmbedderOptions& options) {
  if (!(options.sif_a > 0) || !std::isfinite(options.sif_a)) {
    return Status::InvalidArgument(fmt::format("SIF a must be positive, got {}", options.sif_a));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Lexicon> lexicon, Lexicon::Open(lexicon_path));
  return std::make_shared<SifEmbedder>(std::shared_ptr<const Lexicon>(std::move(lexicon)), options);
}

SifEmbedder::SifEmbedder(std::shared_ptr<const Lexicon> lexicon, const SifEmbedderOptions& options)
    : lexicon_(std::move(lexicon)), options_(options) {
  const bool sif = options_.weighting == SifEmbedderOptions::Weighting::kSif;
  std::string weighting = sif ? fmt::format("glove-sif-{}:a={:g}", lexicon_->dim(), options_.sif_a)
                              : fmt::format("glove-mean-{}", lexicon_->dim());
  id_ = fmt::format("{}:stop={}:cc={}:{:016x}", weighting, options_.drop_stop_words ? 1 : 0,
                    options_.remove_common_component ? 1 : 0, lexicon_->checksum());
}

std::string SifEmbedder::id() const { return id_; }

Status SifEmbedder::Embed(std::string_view text, float* out) const {
  if (out == nullptr) return Status::InvalidArgument("Embed: null output");
  const int d = lexicon_->dim();
  std::vector<double> sum(static_cast<size_t>(d), 0.0);
  std::vector<float> v(static_cast<size_t>(d));
  const bool sif = options_.weighting == SifEmbedderOptions::Weighting::kSif;
  const double a = options_.sif_a;
  size_t known = 0;
  for (const std::string& token : text::Tokenize(text)) {
    if (options_.drop_stop_words && text::IsStopWord(token)) continue;
    int64_t rank = lexicon_->Find(token);
    if (rank < 0) continue;
    const double w = sif ? a / (a + lexicon_->Probability(rank)) : 1.0;
    lexicon_->Vector(rank, v.data());
    for (int i = 0; i < d; ++i) sum[static_cast<size_t>(i)] += w * v[static_cast<size_t>(i)];
    ++known;
  }
  // No division by the token count: the projection below is linear and the result normalised.
  double before2 = 0;
  for (double x : sum) before2 += x * x;
  if (known > 0 && options_.remove_common_component) {
    const float* u = lexicon_->common_component();
    double dot = 0;
    for (int i = 0; i < d; ++i) dot += sum[static_cast<size_t>(i)] * u[i];
    for (int i = 0; i < d; ++i) sum[static_cast<size_t>(i)] -= dot * u[i];
  }
  double norm2 = 0;
  for (double x : sum) norm2 += x * x;
  // A vanishing sum (no known word, or a lone word parallel to the common component) has no
  // direction: report zeros rather than amplified rounding noise.
  if (known == 0 || !(norm2 > 1e-12 * before2) || !(norm2 > 0)) {
    std::fill(out, out + d, 0.0f);
    return Status::Ok();
  }
  const double inv = 1.0 / std::sqrt(norm2);
  for (int i = 0; i < d; ++i) out[i] = static_cast<float>(sum[static_cast<size_t>(i)] * inv);
  return Status::Ok();
}

StatusOr<std::shared_ptr<Embedder>> LoadSifEmbedder(const std::string& lexicon_path) {
  ASSIGN_OR_RETURN(std::shared_ptr<SifEmbedder> e, SifEmbedder::Open(lexicon_path));
  return std::shared_ptr<Embedder>(std::move(e));
}

}  // namespace ontomem
