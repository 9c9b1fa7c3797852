// Query domain and intent classifier (docs/domain.md): predicts which ontology domain a request
// is about ("movies_tv", "food_diet", ...) and whether it asks for a recommendation/choice or to
// recall a fact, from features computed SEPARATELY for the query and for its recent context, so
// that the query dominates and the context only disambiguates (an elliptic "so what would you
// suggest" after "Just got home and I'm starving").
//
// Features per text: its GloVe-SIF vector and the ConceptLifter's 34 domain scores (cue words,
// GloVe, WordNet lexnames, gazetteer entities); the query block and the context block are
// standardised with the training means and deviations. Models: two softmax networks
// (src/learn/mlp.h), domains and intent, trained by `ontomem train domain`.
//
// File format (models/domain/classifier.bin, little-endian): 8-byte magic "ONTODOM1", u32
// version, u32 reserved, u64 payload size, u64 XXH64(payload), then the payload: u32 domain
// count, each domain id (u32 length + bytes), u32 embedding dim, u32 feature count, feature
// means and deviations (float32 each), u32 length + embedder id (informative only), then the
// domain network and the intent network (u64 length + Mlp::Serialize bytes each).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "embed/sif_embedder.h"
#include "learn/mlp.h"
#include "ontology/concept_lifter.h"
#include "ontomem/status.h"

namespace ontomem {

enum class QueryIntent { kRecommend = 0, kRecall = 1 };
const char* QueryIntentName(QueryIntent intent);  // "recommend", "recall"

// Computes the classifier's input from (query, context). Thread-safe (const).
class DomainFeaturizer {
 public:
  // Neither may be null.
  DomainFeaturizer(std::shared_ptr<const ConceptLifter> lifter, std::shared_ptr<const SifEmbedder> embedder);

  // The ontology's domain ids, in ontology order (the classifier's outputs).
  const std::vector<std::string>& domains() const { return domains_; }
  int embedding_dim() const { return dim_; }
  // Features per text block: dim + domains + 1 (has text); the input is query block + context block.
  int block_size() const { return dim_ + static_cast<int>(domains_.size()) + 1; }
  int feature_count() const { return 2 * block_size(); }
  std::string embedder_id() const { return embedder_->id(); }

  // Writes feature_count() raw (unstandardised) features.
  void Features(std::string_view query, const std::vector<std::string>& context, float* out) const;

  const ConceptLifter& lifter() const { return *lifter_; }

 private:
  void Block(std::string_view text, float* out) const;

  std::shared_ptr<const ConceptLifter> lifter_;
  std::shared_ptr<const SifEmbedder> embedder_;
  std::vector<std::string> domains_;
  int dim_ = 0;
};

struct DomainExample {
  std::string query;
  std::vector<std::string> context;
  std::string domain;  // an ontology domain id
  int intent = -1;     // QueryIntent, or -1 = unknown (not used for the intent network)
  float weight = 1.0f;
};

struct DomainTrainOptions {
  int hidden = 0;  // hidden sigmoid units; 0 = multinomial logistic regression
  int epochs = 40;
  int batch_size = 32;
  float learning_rate = 3e-3f;
  float l2 = 0.03f;  // chosen on IPR dev + held-out ontology examples (docs/domain.md)
  uint64_t seed = 1;
};

struct DomainPrediction {
  std::vector<std::pair<std::string, float>> domains;  // all domains, best first, probabilities
  QueryIntent intent = QueryIntent::kRecommend;
  float recall_probability = 0;  // P(intent = recall)
};

class DomainClassifier {
 public:
  // Errors: InvalidArgument for an empty set, an unknown domain id or too few intent labels.
  static StatusOr<std::shared_ptr<DomainClassifier>> Train(std::shared_ptr<const DomainFeaturizer> featurizer,
                                                           const std::vector<DomainExample>& examples,
                                                           const DomainTrainOptions& options);
  // Errors: FailedPrecondition for a missing file (naming `ontomem train domain`), Corruption
  // for a damaged one, InvalidArgument when the file's domains or embedding size differ from
  // the featurizer's (another ontology or lexicon: retrain).
  static StatusOr<std::shared_ptr<DomainClassifier>> Load(const std::string& path,
                                                          std::shared_ptr<const DomainFeaturizer> featurizer);
  static StatusOr<std::shared_ptr<DomainClassifier>> Deserialize(std::string_view bytes, const std::string& origin,
                                                                 std::shared_ptr<const DomainFeaturizer> featurizer);
  std::string Serialize() const;
  Status Save(const std::string& path) const;

  DomainPrediction Predict(std::string_view query, const std::vector<std::string>& context) const;
  // Predict on precomputed raw features (feature_count() floats).
  DomainPrediction PredictFeatures(const float* raw) const;

  const DomainFeaturizer& featurizer() const { return *featurizer_; }
  std::string trained_embedder_id() const { return embedder_id_; }

 private:
  DomainClassifier() = default;

  std::shared_ptr<const DomainFeaturizer> featurizer_;
  std::vector<float> mean_, sd_;  // feature standardisation from the training set
  std::string embedder_id_;
  learn::Mlp domain_net_, intent_net_;
};

// models/domain/classifier.bin under `models_dir` ("" = the extractor's DefaultModelsDir()).
std::string DefaultDomainModelPath(const std::string& models_dir = "");

}  // namespace ontomem
