#include "retrieve/domain_classifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "common/file_util.h"
#include "embed/lexicon.h"
#include "extract/extractor.h"
#include "text/text.h"

namespace ontomem {
namespace {

constexpr char kMagic[8] = {'O', 'N', 'T', 'O', 'D', 'O', 'M', '1'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 32;
constexpr const char* kRetrain = "run `ontomem train domain` to rebuild it";

void PutU32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }
void PutU64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }
void PutStr(std::string* s, const std::string& v) {
  PutU32(s, static_cast<uint32_t>(v.size()));
  s->append(v);
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool U32(uint32_t* v) { return Raw(v, 4); }
  bool U64(uint64_t* v) { return Raw(v, 8); }
  bool Raw(void* dst, size_t n) {
    if (n > b_.size() - pos_) return false;
    std::memcpy(dst, b_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool Str(std::string* v, size_t max = 1 << 20) {
    uint32_t n = 0;
    if (!U32(&n) || n > max || n > b_.size() - pos_) return false;
    v->assign(b_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool Bytes(std::string_view* v) {
    uint64_t n = 0;
    if (!U64(&n) || n > b_.size() - pos_) return false;
    *v = b_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  size_t pos_ = 0;
};

std::string JoinContext(const std::vector<std::string>& context) {
  std::string joined;
  for (const auto& c : context) joined.append(c).push_back('\n');
  return joined;
}

}  // namespace

const char* QueryIntentName(QueryIntent intent) {
  return intent == QueryIntent::kRecall ? "recall" : "recommend";
}

DomainFeaturizer::DomainFeaturizer(std::shared_ptr<const ConceptLifter> lifter,
                                   std::shared_ptr<const SifEmbedder> embedder)
    : lifter_(std::move(lifter)), embedder_(std::move(embedder)) {
  for (const Domain& d : lifter_->ontology().domains()) domains_.push_back(d.id);
  dim_ = embedder_->dim();
}

void DomainFeaturizer::Block(std::string_view text, float* out) const {
  const size_t nd = domains_.size();
  std::fill(out, out + block_size(), 0.0f);
  if (text::Tokenize(text).empty()) return;
  (void)embedder_->Embed(text, out);  // zeros when no word is known
  // domains_ is the ontology's order, as DomainScores'; the lifter reuses the embedding when
  // it embeds with the same model.
  const std::vector<float> scores = lifter_->DomainScores(text, lifter_->embedder() == embedder_.get() ? out : nullptr);
  std::copy(scores.begin(), scores.end(), out + dim_);
  out[dim_ + static_cast<int>(nd)] = 1.0f;
}

void DomainFeaturizer::Features(std::string_view query, const std::vector<std::string>& context, float* out) const {
  Block(query, out);
  Block(JoinContext(context), out + block_size());
}

StatusOr<std::shared_ptr<DomainClassifier>> DomainClassifier::Train(std::shared_ptr<const DomainFeaturizer> featurizer,
                                                                    const std::vector<DomainExample>& examples,
                                                                    const DomainTrainOptions& options) {
  if (!featurizer) return Status::InvalidArgument("DomainClassifier::Train: no featurizer");
  if (examples.empty()) return Status::InvalidArgument("DomainClassifier::Train: no examples");
  const auto& domains = featurizer->domains();
  std::map<std::string, int> index;
  for (size_t d = 0; d < domains.size(); ++d) index[domains[d]] = static_cast<int>(d);
  const int F = featurizer->feature_count();
  const Eigen::Index n = static_cast<Eigen::Index>(examples.size());
  Eigen::MatrixXf X(n, F), Y = Eigen::MatrixXf::Zero(n, static_cast<Eigen::Index>(domains.size()));
  std::vector<float> w(examples.size());
  std::vector<float> row(static_cast<size_t>(F));
  size_t intent_n = 0, intent_recall = 0;
  for (size_t i = 0; i < examples.size(); ++i) {
    const DomainExample& e = examples[i];
    auto it = index.find(e.domain);
    if (it == index.end())
      return Status::InvalidArgument(fmt::format("DomainClassifier::Train: example {} has unknown domain '{}'", i, e.domain));
    featurizer->Features(e.query, e.context, row.data());
    X.row(static_cast<Eigen::Index>(i)) = Eigen::Map<const Eigen::RowVectorXf>(row.data(), F);
    Y(static_cast<Eigen::Index>(i), it->second) = 1.0f;
    w[i] = e.weight;
    if (e.intent >= 0) ++intent_n, intent_recall += e.intent == 1 ? 1 : 0;
  }
  std::shared_ptr<DomainClassifier> c(new DomainClassifier());
  c->featurizer_ = featurizer;
  c->embedder_id_ = featurizer->embedder_id();
  c->mean_.assign(static_cast<size_t>(F), 0.0f);
  c->sd_.assign(static_cast<size_t>(F), 1.0f);
  for (int j = 0; j < F; ++j) {
    const double mean = X.col(j).cast<double>().mean();
    const double var = (X.col(j).cast<double>().array() - mean).square().mean();
    c->mean_[static_cast<size_t>(j)] = static_cast<float>(mean);
    // A floor keeps near-constant features (a domain no example mentions) from exploding.
    c->sd_[static_cast<size_t>(j)] = static_cast<float>(std::max(std::sqrt(var), 0.05));
  }
  for (Eigen::Index i = 0; i < n; ++i)
    for (int j = 0; j < F; ++j) X(i, j) = (X(i, j) - c->mean_[static_cast<size_t>(j)]) / c->sd_[static_cast<size_t>(j)];

  learn::MlpTrainOptions mo;
  mo.epochs = options.epochs;
  mo.batch_size = options.batch_size;
  mo.learning_rate = options.learning_rate;
  mo.l2 = options.l2;
  mo.seed = options.seed;
  auto sizes = [&](int out) {
    std::vector<int> s = {F};
    if (options.hidden > 0) s.push_back(options.hidden);
    s.push_back(out);
    return s;
  };
  c->domain_net_ = learn::Mlp(sizes(static_cast<int>(domains.size())), learn::OutputActivation::kSoftmax, options.seed);
  c->domain_net_.Train(X, Y, mo, w);

  // Intent: only examples that carry a label; both classes must be present.
  if (intent_recall == 0 || intent_recall == intent_n)
    return Status::InvalidArgument("DomainClassifier::Train: the intent network needs examples of both intents");
  Eigen::MatrixXf XI(static_cast<Eigen::Index>(intent_n), F), YI = Eigen::MatrixXf::Zero(static_cast<Eigen::Index>(intent_n), 2);
  std::vector<float> wi;
  Eigen::Index r = 0;
  for (size_t i = 0; i < examples.size(); ++i) {
    if (examples[i].intent < 0) continue;
    XI.row(r) = X.row(static_cast<Eigen::Index>(i));
    YI(r, examples[i].intent == 1 ? 1 : 0) = 1.0f;
    wi.push_back(examples[i].weight);
    ++r;
  }
  c->intent_net_ = learn::Mlp(sizes(2), learn::OutputActivation::kSoftmax, options.seed + 1);
  c->intent_net_.Train(XI, YI, mo, wi);
  return c;
}

DomainPrediction DomainClassifier::PredictFeatures(const float* raw) const {
  const int F = featurizer_->feature_count();
  Eigen::VectorXf x(F);
  for (int j = 0; j < F; ++j) x(j) = (raw[j] - mean_[static_cast<size_t>(j)]) / sd_[static_cast<size_t>(j)];
  const Eigen::VectorXf p = domain_net_.Forward(x);
  DomainPrediction out;
  const auto& domains = featurizer_->domains();
  for (size_t d = 0; d < domains.size(); ++d) out.domains.emplace_back(domains[d], p(static_cast<Eigen::Index>(d)));
  std::stable_sort(out.domains.begin(), out.domains.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const Eigen::VectorXf pi = intent_net_.Forward(x);
  out.recall_probability = pi(1);
  out.intent = pi(1) > 0.5f ? QueryIntent::kRecall : QueryIntent::kRecommend;
  return out;
}

DomainPrediction DomainClassifier::Predict(std::string_view query, const std::vector<std::string>& context) const {
  std::vector<float> raw(static_cast<size_t>(featurizer_->feature_count()));
  featurizer_->Features(query, context, raw.data());
  return PredictFeatures(raw.data());
}

std::string DomainClassifier::Serialize() const {
  std::string p;
  const auto& domains = featurizer_->domains();
  PutU32(&p, static_cast<uint32_t>(domains.size()));
  for (const auto& d : domains) PutStr(&p, d);
  PutU32(&p, static_cast<uint32_t>(featurizer_->embedding_dim()));
  PutU32(&p, static_cast<uint32_t>(mean_.size()));
  for (float v : mean_) p.append(reinterpret_cast<const char*>(&v), 4);
  for (float v : sd_) p.append(reinterpret_cast<const char*>(&v), 4);
  PutStr(&p, embedder_id_);
  for (const learn::Mlp* m : {&domain_net_, &intent_net_}) {
    const std::string b = m->Serialize();
    PutU64(&p, b.size());
    p.append(b);
  }
  std::string out(kMagic, 8);
  PutU32(&out, kVersion);
  PutU32(&out, 0);
  PutU64(&out, p.size());
  PutU64(&out, lexicon_format::XXH64(p.data(), p.size(), 0));
  return out + p;
}

Status DomainClassifier::Save(const std::string& path) const {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  return WriteFileAtomic(path, Serialize());
}

StatusOr<std::shared_ptr<DomainClassifier>> DomainClassifier::Deserialize(
    std::string_view bytes, const std::string& origin, std::shared_ptr<const DomainFeaturizer> featurizer) {
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(fmt::format("{}: {} (domain classifier damaged; {})", origin, what, kRetrain));
  };
  if (!featurizer) return Status::InvalidArgument("DomainClassifier::Load: no featurizer");
  if (bytes.size() < kHeaderSize) return corrupt("truncated header");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) return corrupt("not a domain classifier (bad magic)");
  Reader h(bytes.substr(8, kHeaderSize - 8));
  uint32_t version = 0, reserved = 0;
  uint64_t size = 0, sum = 0;
  h.U32(&version), h.U32(&reserved), h.U64(&size), h.U64(&sum);
  if (version != kVersion) return corrupt(fmt::format("version {} (this build reads {})", version, kVersion));
  const std::string_view payload = bytes.substr(kHeaderSize);
  if (size != payload.size()) return corrupt("size mismatch");
  if (lexicon_format::XXH64(payload.data(), payload.size(), 0) != sum) return corrupt("checksum mismatch");
  Reader r(payload);
  uint32_t nd = 0, dim = 0, nf = 0;
  if (!r.U32(&nd) || nd > 10000) return corrupt("bad domain count");
  std::vector<std::string> domains(nd);
  for (auto& d : domains)
    if (!r.Str(&d, 256)) return corrupt("bad domain id");
  if (!r.U32(&dim) || !r.U32(&nf) || nf > (1u << 20)) return corrupt("bad feature layout");
  if (domains != featurizer->domains())
    return Status::InvalidArgument(fmt::format(
        "{}: trained for {} ontology domains that differ from the loaded ontology's {}; {}", origin, nd,
        featurizer->domains().size(), kRetrain));
  if (static_cast<int>(dim) != featurizer->embedding_dim() || static_cast<int>(nf) != featurizer->feature_count())
    return Status::InvalidArgument(fmt::format("{}: trained with {}-d word vectors, the lexicon has {}; {}", origin, dim,
                                               featurizer->embedding_dim(), kRetrain));
  std::shared_ptr<DomainClassifier> c(new DomainClassifier());
  c->featurizer_ = std::move(featurizer);
  c->mean_.resize(nf);
  c->sd_.resize(nf);
  if (!r.Raw(c->mean_.data(), 4ull * nf) || !r.Raw(c->sd_.data(), 4ull * nf)) return corrupt("truncated statistics");
  for (float v : c->sd_)
    if (!(v > 0) || !std::isfinite(v)) return corrupt("bad feature deviation");
  if (!r.Str(&c->embedder_id_, 4096)) return corrupt("bad embedder id");
  std::string_view dn, in;
  if (!r.Bytes(&dn) || !r.Bytes(&in) || !r.done()) return corrupt("bad network sections");
  auto d = learn::Mlp::Deserialize(dn, origin + " (domain network)");
  if (!d.ok()) return d.status();
  auto i = learn::Mlp::Deserialize(in, origin + " (intent network)");
  if (!i.ok()) return i.status();
  if (d->inputs() != static_cast<int>(nf) || d->outputs() != static_cast<int>(nd) || i->inputs() != static_cast<int>(nf) ||
      i->outputs() != 2)
    return corrupt("network shapes do not match the feature layout");
  c->domain_net_ = std::move(*d);
  c->intent_net_ = std::move(*i);
  return c;
}

StatusOr<std::shared_ptr<DomainClassifier>> DomainClassifier::Load(const std::string& path,
                                                                   std::shared_ptr<const DomainFeaturizer> featurizer) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Status::FailedPrecondition(fmt::format("domain classifier {} not found; {}", path, kRetrain));
  auto bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  return Deserialize(*bytes, path, std::move(featurizer));
}

std::string DefaultDomainModelPath(const std::string& models_dir) {
  return (models_dir.empty() ? extract::DefaultModelsDir() : models_dir) + "/domain/classifier.bin";
}

}  // namespace ontomem
