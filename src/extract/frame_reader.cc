#include "extract/frame_reader.h"

#include <algorithm>
#include <cmath>

#include "extract/model_io.h"
#include "text/text.h"

namespace ontomem::extract {
namespace {

bool Content(const Token& t) { return !t.punct && !text::IsStopWord(t.lower); }

// Adds the mean of the vectors of tokens [from, to) of sentence `sentence` into x[0, dim).
void MeanInto(const Prepared& p, const std::vector<std::vector<float>>& v, int from, int to, int sentence, float* x) {
  int n = 0;
  for (int i = std::max(0, from); i < std::min<int>(to, static_cast<int>(p.tokens.size())); ++i) {
    const auto k = static_cast<size_t>(i);
    if (p.info[k].sentence != sentence || v[k].empty()) continue;
    for (int d = 0; d < kWordVectorDim; ++d) x[d] += v[k][static_cast<size_t>(d)];
    ++n;
  }
  if (n > 1)
    for (int d = 0; d < kWordVectorDim; ++d) x[d] /= static_cast<float>(n);
}

}  // namespace

std::vector<FrameRun> FrameRuns(const Prepared& p) {
  std::vector<FrameRun> out;
  const int n = static_cast<int>(p.tokens.size());
  for (int i = 0; i < n; ++i) {
    if (!Content(p.tokens[static_cast<size_t>(i)])) continue;
    for (int j = i; j < std::min(n, i + kFrameMaxRun); ++j) {
      const auto k = static_cast<size_t>(j);
      if (!Content(p.tokens[k]) || p.info[k].sentence != p.info[static_cast<size_t>(i)].sentence) break;
      out.push_back({i, j + 1});
    }
  }
  return out;
}

std::vector<std::vector<float>> TokenVectors(const Prepared& p, const FeatureResources& res) {
  std::vector<std::vector<float>> v(p.tokens.size());
  if (!res.word_vector) return v;
  for (size_t i = 0; i < p.tokens.size(); ++i) {
    if (p.tokens[i].punct) continue;
    std::vector<float> w(kWordVectorDim);
    if (!res.word_vector(p.tokens[i].lower, w.data())) continue;
    float norm = 0;
    for (float f : w) norm += f * f;
    if (norm <= 0) continue;
    norm = std::sqrt(norm);
    for (float& f : w) f /= norm;
    v[i] = std::move(w);
  }
  return v;
}

FrameRow FrameInputs(const Prepared& p, const std::vector<std::vector<float>>& vectors, const FrameRun& r) {
  FrameRow x{};
  const int s = p.info[static_cast<size_t>(r.begin)].sentence;
  MeanInto(p, vectors, r.begin - kFrameBefore, r.begin, s, x.data());
  MeanInto(p, vectors, r.end, r.end + kFrameAfter, s, x.data() + kWordVectorDim);
  MeanInto(p, vectors, r.begin, r.end, s, x.data() + 2 * kWordVectorDim);
  bool first_person = false, negation = false;
  for (size_t i = 0; i < p.tokens.size(); ++i) {
    if (p.info[i].sentence != s) continue;
    first_person |= p.info[i].first_person;
    negation |= p.info[i].negation;
  }
  float* f = x.data() + 3 * kWordVectorDim;
  f[0] = first_person ? 1 : 0;
  f[1] = static_cast<size_t>(s) < p.question_sentence.size() && p.question_sentence[static_cast<size_t>(s)] ? 1 : 0;
  f[2] = negation ? 1 : 0;
  // A capital that does not merely start the sentence (names, titles).
  const bool sentence_start = r.begin == 0 || p.info[static_cast<size_t>(r.begin - 1)].sentence != s;
  f[3] = p.info[static_cast<size_t>(r.begin)].cap && !sentence_start ? 1 : 0;
  f[4] = static_cast<float>(r.end - r.begin) / kFrameMaxRun;
  return x;
}

FrameReader::FrameReader(int hidden, uint64_t seed)
    : mlp_(hidden > 0 ? std::vector<int>{kFrameInputs, hidden, 1} : std::vector<int>{kFrameInputs, 1},
           learn::OutputActivation::kSigmoid, seed) {}

float FrameReader::Score(const FrameRow& x) const {
  return mlp_.Forward(Eigen::Map<const Eigen::VectorXf>(x.data(), kFrameInputs))(0);
}

FrameReader::Reading FrameReader::Read(const Prepared& p, const FeatureResources& res) const {
  Reading best;
  if (!res.word_vector) return best;
  const auto vectors = TokenVectors(p, res);
  for (const FrameRun& r : FrameRuns(p)) {
    const float s = Score(FrameInputs(p, vectors, r));
    if (s > best.score) best = {r, s};
  }
  return best;
}

void FrameReader::Fit(const std::vector<FrameRow>& x, const std::vector<uint8_t>& y,
                      const learn::MlpTrainOptions& options, float positive_weight) {
  Eigen::MatrixXf X(static_cast<Eigen::Index>(x.size()), kFrameInputs), Y(static_cast<Eigen::Index>(x.size()), 1);
  std::vector<float> w(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    X.row(r) = Eigen::Map<const Eigen::RowVectorXf>(x[i].data(), kFrameInputs);
    Y(r, 0) = y[i];
    w[i] = y[i] ? positive_weight : 1.0f;
  }
  mlp_.Train(X, Y, options, w);
}

Status FrameReader::Save(const std::string& path) const { return WriteModelFile(path, "FRAM", mlp_.Serialize()); }

StatusOr<FrameReader> FrameReader::Load(const std::string& path) {
  ASSIGN_OR_RETURN(std::string b, ReadModelFile(path, "FRAM"));
  auto mlp = learn::Mlp::Deserialize(b, path);
  if (!mlp.ok())
    return Status::Corruption("extractor model " + path + " holds a damaged network (" + mlp.status().message() +
                              "); " + kExtractorFixHint);
  if (mlp->inputs() != kFrameInputs || mlp->outputs() != 1)
    return Status::Corruption("extractor model " + path + " has the wrong frame reader shape; " + kExtractorFixHint);
  FrameReader f;
  f.mlp_ = std::move(mlp).value();
  return f;
}

}  // namespace ontomem::extract
