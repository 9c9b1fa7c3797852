#include "learn/mlp.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "common/simd.h"
#include "embed/lexicon.h"

namespace ontomem::learn {
namespace {

constexpr char kMagic[8] = {'O', 'N', 'T', 'O', 'M', 'L', 'P', '1'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 64;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t out_act;
  uint32_t layers;  // number of sizes entries
  uint32_t reserved;
  uint64_t payload_size;
  uint64_t checksum;
  uint8_t pad[kHeaderSize - 40];
};
static_assert(sizeof(Header) == kHeaderSize);

Eigen::MatrixXf Sigmoid(const Eigen::MatrixXf& z) {
  return (1.0f / (1.0f + (-z.array().max(-30.0f).min(30.0f)).exp())).matrix();
}

// Inference: Eigen's vectorised rational approximation of the logistic function, within 2e-7
// of Sigmoid and three times faster (a search's combiner evaluates 32 x ~500 of them: ~40 us).
// Training keeps Sigmoid, so retraining reproduces the shipped models.
Eigen::MatrixXf FastSigmoid(const Eigen::MatrixXf& z) { return z.array().logistic().matrix(); }

// Z (o x n) = W (o x in) * A (in x n) + b, all column-major: most of a search's combiner (32 x 46
// weights over ~500 candidates). A multiple of 8 outputs goes eight at a time, each
// eight in its own accumulator (independent chains), in the AVX2 + FMA build where the CPU has
// one (src/common/simd.h).
using simd::V8;

// Rows r0 .. r0 + 8 * NB of Z.
template <int NB>
[[gnu::always_inline]] inline void AffineBlocks(const float* W, const float* b, int o, int in, const float* A, int n,
                                                float* Z, int r0) {
  for (int c = 0; c < n; ++c) {
    const float* a = A + static_cast<size_t>(c) * static_cast<size_t>(in);
    V8 acc[NB];
    for (int k = 0; k < NB; ++k) acc[k] = simd::At(b + r0 + 8 * k);
    for (int f = 0; f < in; ++f) {
      const float* w = W + static_cast<size_t>(f) * static_cast<size_t>(o) + r0;
      const float af = a[f];
      for (int k = 0; k < NB; ++k) acc[k] += af * simd::At(w + 8 * k);
    }
    std::memcpy(Z + static_cast<size_t>(c) * static_cast<size_t>(o) + r0, acc, sizeof acc);
  }
}

[[gnu::always_inline]] inline void AffineAny(const float* W, const float* b, int o, int in, const float* A, int n,
                                             float* Z) {
  // Up to 64 rows at a time (an ensemble's wide hidden layer takes several passes).
  if (o % 8 == 0) {
    for (int r0 = 0; r0 < o; r0 += 64) {
      switch (std::min(64, o - r0) / 8) {
        case 1: AffineBlocks<1>(W, b, o, in, A, n, Z, r0); break;
        case 2: AffineBlocks<2>(W, b, o, in, A, n, Z, r0); break;
        case 3: AffineBlocks<3>(W, b, o, in, A, n, Z, r0); break;
        case 4: AffineBlocks<4>(W, b, o, in, A, n, Z, r0); break;
        case 5: AffineBlocks<5>(W, b, o, in, A, n, Z, r0); break;
        case 6: AffineBlocks<6>(W, b, o, in, A, n, Z, r0); break;
        case 7: AffineBlocks<7>(W, b, o, in, A, n, Z, r0); break;
        default: AffineBlocks<8>(W, b, o, in, A, n, Z, r0); break;
      }
    }
    return;
  }
  for (int c = 0; c < n; ++c)
    for (int j = 0; j < o; ++j) {
      float acc = b[j];
      for (int f = 0; f < in; ++f)
        acc += A[static_cast<size_t>(c) * static_cast<size_t>(in) + static_cast<size_t>(f)] *
               W[static_cast<size_t>(f) * static_cast<size_t>(o) + static_cast<size_t>(j)];
      Z[static_cast<size_t>(c) * static_cast<size_t>(o) + static_cast<size_t>(j)] = acc;
    }
}

ONTOMEM_AVX2_FMA void AffineAvx2(const float* W, const float* b, int o, int in, const float* A, int n, float* Z) {
  AffineAny(W, b, o, in, A, n, Z);
}

void AffineBase(const float* W, const float* b, int o, int in, const float* A, int n, float* Z) {
  AffineAny(W, b, o, in, A, n, Z);
}

void Affine(const float* W, const float* b, int o, int in, const float* A, int n, float* Z) {
  if (simd::HasAvx2Fma()) return AffineAvx2(W, b, o, in, A, n, Z);
  AffineBase(W, b, o, in, A, n, Z);
}

}  // namespace

Mlp::Mlp(std::vector<int> sizes, OutputActivation out, uint64_t seed) : sizes_(std::move(sizes)), out_(out) {
  std::mt19937_64 g(seed);
  for (size_t l = 0; l + 1 < sizes_.size(); ++l) {
    const int in = sizes_[l], o = sizes_[l + 1];
    const float r = std::sqrt(6.0f / static_cast<float>(in + o));
    std::uniform_real_distribution<float> u(-r, r);
    Eigen::MatrixXf W(o, in);
    for (int i = 0; i < o; ++i)
      for (int j = 0; j < in; ++j) W(i, j) = u(g);
    W_.push_back(std::move(W));
    b_.push_back(Eigen::VectorXf::Zero(o));
  }
}

size_t Mlp::parameter_count() const {
  size_t n = 0;
  for (size_t l = 0; l < W_.size(); ++l) n += static_cast<size_t>(W_[l].size() + b_[l].size());
  return n;
}

Eigen::VectorXf Mlp::Forward(const Eigen::Ref<const Eigen::VectorXf>& x) const {
  Eigen::VectorXf h = x;
  for (size_t l = 0; l < W_.size(); ++l) {
    Eigen::VectorXf z = W_[l] * h + b_[l];
    const bool last = l + 1 == W_.size();
    if (!last || out_ == OutputActivation::kSigmoid) {
      h = FastSigmoid(z);
    } else if (out_ == OutputActivation::kSoftmax) {
      const float m = z.maxCoeff();
      Eigen::VectorXf e = (z.array() - m).exp().matrix();
      h = e / e.sum();
    } else {
      h = z;
    }
  }
  return h;
}

Status Mlp::SetLayer(size_t l, const Eigen::MatrixXf& W, const Eigen::VectorXf& b) {
  if (l >= W_.size() || W.rows() != W_[l].rows() || W.cols() != W_[l].cols() || b.size() != b_[l].size())
    return Status::InvalidArgument("Mlp::SetLayer: layer index or shape does not match the network");
  W_[l] = W;
  b_[l] = b;
  mW_.clear(), vW_.clear(), mb_.clear(), vb_.clear();  // Adam restarts from the new weights
  t_ = 0;
  return Status::Ok();
}

Eigen::MatrixXf Mlp::ForwardBatch(const Eigen::Ref<const Eigen::MatrixXf>& X) const {
  return ForwardColumns(X.transpose()).transpose();
}

Eigen::MatrixXf Mlp::ForwardColumns(Eigen::MatrixXf A) const {
  // Columns = examples: one matrix product per layer instead of one per example.
  for (size_t l = 0; l < W_.size(); ++l) {
    Eigen::MatrixXf Z(W_[l].rows(), A.cols());
    Affine(W_[l].data(), b_[l].data(), static_cast<int>(W_[l].rows()), static_cast<int>(W_[l].cols()), A.data(),
           static_cast<int>(A.cols()), Z.data());
    const bool last = l + 1 == W_.size();
    if (!last || out_ == OutputActivation::kSigmoid) {
      A = FastSigmoid(Z);
    } else if (out_ == OutputActivation::kSoftmax) {
      for (Eigen::Index c = 0; c < Z.cols(); ++c) {
        const float m = Z.col(c).maxCoeff();
        Z.col(c) = (Z.col(c).array() - m).exp().matrix();
        Z.col(c) /= Z.col(c).sum();
      }
      A = std::move(Z);
    } else {
      A = std::move(Z);
    }
  }
  return A;
}

float Mlp::Step(const Eigen::Ref<const Eigen::MatrixXf>& X, const Eigen::Ref<const Eigen::MatrixXf>& Y,
                const Eigen::Ref<const Eigen::VectorXf>& w, float lr, float l2) {
  const size_t L = W_.size();
  if (mW_.size() != L) {
    mW_.clear(); vW_.clear(); mb_.clear(); vb_.clear();
    for (size_t l = 0; l < L; ++l) {
      mW_.push_back(Eigen::MatrixXf::Zero(W_[l].rows(), W_[l].cols()));
      vW_.push_back(Eigen::MatrixXf::Zero(W_[l].rows(), W_[l].cols()));
      mb_.push_back(Eigen::VectorXf::Zero(b_[l].size()));
      vb_.push_back(Eigen::VectorXf::Zero(b_[l].size()));
    }
  }
  // Forward, columns = examples.
  std::vector<Eigen::MatrixXf> A(L + 1);
  A[0] = X.transpose();
  for (size_t l = 0; l < L; ++l) {
    Eigen::MatrixXf Z = (W_[l] * A[l]).colwise() + b_[l];
    const bool last = l + 1 == L;
    if (!last || out_ == OutputActivation::kSigmoid) {
      A[l + 1] = Sigmoid(Z);
    } else if (out_ == OutputActivation::kSoftmax) {
      Eigen::RowVectorXf m = Z.colwise().maxCoeff();
      Eigen::MatrixXf E = (Z.rowwise() - m).array().exp().matrix();
      Eigen::RowVectorXf s = E.colwise().sum();
      A[l + 1] = E.array().rowwise() / s.array();
    } else {
      A[l + 1] = Z;
    }
  }
  const Eigen::MatrixXf T = Y.transpose();
  const Eigen::MatrixXf& P = A[L];
  const float wsum = std::max(1e-6f, w.sum());
  // Loss and output delta (for sigmoid+BCE and softmax+CE the delta is P - T).
  float loss = 0;
  if (out_ == OutputActivation::kSigmoid) {
    Eigen::ArrayXXf p = P.array().max(1e-7f).min(1 - 1e-7f);
    Eigen::ArrayXXf ll = -(T.array() * p.log() + (1 - T.array()) * (1 - p).log());
    loss = (ll.colwise().sum().matrix() * w).value() / wsum;
  } else if (out_ == OutputActivation::kSoftmax) {
    Eigen::ArrayXXf ll = -(T.array() * P.array().max(1e-7f).log());
    loss = (ll.colwise().sum().matrix() * w).value() / wsum;
  } else {
    Eigen::ArrayXXf ll = 0.5f * (P - T).array().square();
    loss = (ll.colwise().sum().matrix() * w).value() / wsum;
  }
  Eigen::MatrixXf D = (P - T) * (w / wsum).asDiagonal();
  constexpr float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
  ++t_;
  const float c1 = 1 - std::pow(b1, static_cast<float>(t_));
  const float c2 = 1 - std::pow(b2, static_cast<float>(t_));
  for (size_t li = L; li-- > 0;) {
    Eigen::MatrixXf gW = D * A[li].transpose() + l2 * W_[li];
    Eigen::VectorXf gb = D.rowwise().sum();
    if (li > 0) {
      Eigen::MatrixXf Dn = W_[li].transpose() * D;
      D = (Dn.array() * A[li].array() * (1 - A[li].array())).matrix();
    }
    mW_[li] = b1 * mW_[li] + (1 - b1) * gW;
    vW_[li] = b2 * vW_[li] + (1 - b2) * gW.cwiseProduct(gW);
    mb_[li] = b1 * mb_[li] + (1 - b1) * gb;
    vb_[li] = b2 * vb_[li] + (1 - b2) * gb.cwiseProduct(gb);
    W_[li].array() -= lr * (mW_[li].array() / c1) / ((vW_[li].array() / c2).sqrt() + eps);
    b_[li].array() -= lr * (mb_[li].array() / c1) / ((vb_[li].array() / c2).sqrt() + eps);
  }
  return loss;
}

float Mlp::Train(const Eigen::MatrixXf& X, const Eigen::MatrixXf& Y, const MlpTrainOptions& opt,
                 const std::vector<float>& example_weights) {
  const Eigen::Index n = X.rows();
  if (n == 0) return 0;
  std::vector<Eigen::Index> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 g(opt.seed);
  float last = 0;
  const int bs = std::max(1, opt.batch_size);
  for (int e = 0; e < opt.epochs; ++e) {
    std::shuffle(order.begin(), order.end(), g);
    double total = 0;
    Eigen::Index seen = 0;
    for (Eigen::Index s = 0; s < n; s += bs) {
      const Eigen::Index m = std::min<Eigen::Index>(bs, n - s);
      Eigen::MatrixXf bx(m, X.cols()), by(m, Y.cols());
      Eigen::VectorXf bw(m);
      for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index r = order[static_cast<size_t>(s + i)];
        bx.row(i) = X.row(r);
        by.row(i) = Y.row(r);
        bw(i) = example_weights.empty() ? 1.0f : example_weights[static_cast<size_t>(r)];
      }
      total += static_cast<double>(Step(bx, by, bw, opt.learning_rate, opt.l2)) * static_cast<double>(m);
      seen += m;
    }
    last = static_cast<float>(total / static_cast<double>(seen));
    if (opt.verbose) fmt::print(stderr, "mlp epoch {} loss {:.5f}\n", e + 1, last);
  }
  return last;
}

std::string Mlp::Serialize() const {
  std::string payload;
  auto put = [&payload](const void* p, size_t n) { payload.append(static_cast<const char*>(p), n); };
  for (int s : sizes_) { uint32_t v = static_cast<uint32_t>(s); put(&v, 4); }
  for (size_t l = 0; l < W_.size(); ++l) {
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> W = W_[l];
    put(W.data(), sizeof(float) * static_cast<size_t>(W.size()));
    put(b_[l].data(), sizeof(float) * static_cast<size_t>(b_[l].size()));
  }
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.out_act = static_cast<uint32_t>(out_);
  h.layers = static_cast<uint32_t>(sizes_.size());
  h.payload_size = payload.size();
  h.checksum = lexicon_format::XXH64(payload.data(), payload.size(), 0);
  std::string out(reinterpret_cast<const char*>(&h), sizeof(h));
  out += payload;
  return out;
}

StatusOr<Mlp> Mlp::Deserialize(std::string_view bytes, const std::string& origin) {
  if (bytes.size() < kHeaderSize) return Status::Corruption(origin + ": truncated MLP checkpoint (no header)");
  Header h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, 8) != 0) return Status::Corruption(origin + ": not an MLP checkpoint (bad magic)");
  if (h.version != kVersion)
    return Status::Corruption(fmt::format("{}: MLP checkpoint version {} (this build reads {})", origin, h.version, kVersion));
  if (h.payload_size != bytes.size() - kHeaderSize)
    return Status::Corruption(fmt::format("{}: MLP checkpoint size mismatch (header says {} payload bytes, file has {})",
                                          origin, h.payload_size, bytes.size() - kHeaderSize));
  std::string_view payload = bytes.substr(kHeaderSize);
  if (lexicon_format::XXH64(payload.data(), payload.size(), 0) != h.checksum)
    return Status::Corruption(origin + ": MLP checkpoint checksum mismatch (file damaged)");
  if (h.layers < 2 || h.layers > 16 || h.out_act > 2) return Status::Corruption(origin + ": bad MLP shape");
  Mlp m;
  m.out_ = static_cast<OutputActivation>(h.out_act);
  size_t pos = 0;
  auto get = [&](void* dst, size_t n) -> bool {
    if (pos + n > payload.size()) return false;
    std::memcpy(dst, payload.data() + pos, n);
    pos += n;
    return true;
  };
  for (uint32_t i = 0; i < h.layers; ++i) {
    uint32_t v = 0;
    if (!get(&v, 4) || v == 0 || v > (1u << 20)) return Status::Corruption(origin + ": bad MLP layer size");
    m.sizes_.push_back(static_cast<int>(v));
  }
  // The shape must account for the bytes before anything is allocated: a damaged size would
  // otherwise ask for terabytes.
  uint64_t weights = 0;
  for (size_t l = 0; l + 1 < m.sizes_.size(); ++l)
    weights += (static_cast<uint64_t>(m.sizes_[l]) + 1) * static_cast<uint64_t>(m.sizes_[l + 1]);
  if (weights * sizeof(float) != payload.size() - pos)
    return Status::Corruption(fmt::format("{}: MLP shape needs {} weight bytes, the file has {}", origin,
                                          weights * sizeof(float), payload.size() - pos));
  for (size_t l = 0; l + 1 < m.sizes_.size(); ++l) {
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> W(m.sizes_[l + 1], m.sizes_[l]);
    Eigen::VectorXf b(m.sizes_[l + 1]);
    get(W.data(), sizeof(float) * static_cast<size_t>(W.size()));  // sizes checked above
    get(b.data(), sizeof(float) * static_cast<size_t>(b.size()));
    m.W_.push_back(W);
    m.b_.push_back(std::move(b));
  }
  return m;
}

Status Mlp::Save(const std::string& path) const {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::IOError("cannot open " + path + " for writing");
  const std::string bytes = Serialize();
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return Status::IOError("cannot write " + path);
  return Status::Ok();
}

StatusOr<Mlp> Mlp::Load(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Status::FailedPrecondition("MLP checkpoint " + path + " is a directory, not a file");
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::FailedPrecondition("cannot open MLP checkpoint " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return Deserialize(ss.str(), path);
}

StatusOr<Mlp> MeanLogitEnsemble(const std::vector<Mlp>& members) {
  if (members.empty()) return Status::InvalidArgument("MeanLogitEnsemble: no members");
  const Mlp& first = members.front();
  int hidden = 0;
  for (const Mlp& m : members) {
    if (m.sizes().size() != 3 || m.inputs() != first.inputs() || m.outputs() != 1 ||
        m.output_activation() != first.output_activation())
      return Status::InvalidArgument(
          "MeanLogitEnsemble: members must have one hidden layer, one output and the same inputs and activation");
    hidden += m.sizes()[1];
  }
  Mlp out({first.inputs(), hidden, 1}, first.output_activation());
  Eigen::MatrixXf W1(hidden, first.inputs()), W2(1, hidden);
  Eigen::VectorXf b1(hidden), b2 = Eigen::VectorXf::Zero(1);
  const float share = 1.0f / static_cast<float>(members.size());
  Eigen::Index row = 0;
  for (const Mlp& m : members) {
    const Eigen::Index h = m.sizes()[1];
    W1.middleRows(row, h) = m.weights(0);
    b1.segment(row, h) = m.bias(0);
    W2.middleCols(row, h) = share * m.weights(1);
    b2 += share * m.bias(1);
    row += h;
  }
  RETURN_IF_ERROR(out.SetLayer(0, W1, b1));
  RETURN_IF_ERROR(out.SetLayer(1, W2, b2));
  return out;
}

}  // namespace ontomem::learn
