#include "learn/mlp.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "embed/lexicon.h"
#include "test_util.h"

namespace ontomem::learn {
namespace {

Mlp TrainXor(float* final_loss) {
  Eigen::MatrixXf X(4, 2), Y(4, 1);
  X << 0, 0, 0, 1, 1, 0, 1, 1;
  Y << 0, 1, 1, 0;
  Mlp m({2, 16, 1}, OutputActivation::kSigmoid, 3);
  MlpTrainOptions o;
  o.epochs = 3000;
  o.batch_size = 4;
  o.learning_rate = 0.02f;
  o.l2 = 0;
  *final_loss = m.Train(X, Y, o);
  return m;
}

TEST(Mlp, LearnsXor) {
  float loss = 0;
  Mlp m = TrainXor(&loss);
  EXPECT_LT(loss, 0.05f);
  Eigen::VectorXf x(2);
  x << 0, 0; EXPECT_LT(m.Forward(x)(0), 0.2f);
  x << 0, 1; EXPECT_GT(m.Forward(x)(0), 0.8f);
  x << 1, 0; EXPECT_GT(m.Forward(x)(0), 0.8f);
  x << 1, 1; EXPECT_LT(m.Forward(x)(0), 0.2f);
}

TEST(Mlp, SoftmaxLearnsThreeClasses) {
  Eigen::MatrixXf X(3, 3), Y(3, 3);
  X.setIdentity();
  Y.setIdentity();
  Mlp m({3, 8, 3}, OutputActivation::kSoftmax, 5);
  MlpTrainOptions o;
  o.epochs = 500;
  o.learning_rate = 0.02f;
  m.Train(X, Y, o);
  for (int i = 0; i < 3; ++i) {
    Eigen::VectorXf p = m.Forward(X.row(i).transpose());
    EXPECT_NEAR(p.sum(), 1.0f, 1e-4);
    Eigen::Index best;
    p.maxCoeff(&best);
    EXPECT_EQ(best, i);
  }
}

TEST(Mlp, SaveLoadRoundTrip) {
  float loss = 0;
  Mlp m = TrainXor(&loss);
  const ontomem::testing::TempDir temp("mlp");
  const std::string& dir = temp.path();
  const std::string path = dir + "/xor.bin";
  ASSERT_TRUE(m.Save(path).ok());
  auto back = Mlp::Load(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->sizes(), m.sizes());
  EXPECT_EQ(back->output_activation(), m.output_activation());
  Eigen::MatrixXf X(4, 2);
  X << 0, 0, 0, 1, 1, 0, 1, 1;
  EXPECT_TRUE(back->ForwardBatch(X).isApprox(m.ForwardBatch(X)));
}

TEST(Mlp, CorruptCheckpointIsRejected) {
  Mlp m({4, 8, 2}, OutputActivation::kSoftmax, 1);
  std::string bytes = m.Serialize();
  std::string flipped = bytes;
  flipped[flipped.size() - 3] ^= 0x40;
  auto r = Mlp::Deserialize(flipped, "scorer.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("checksum"), std::string::npos);
  EXPECT_FALSE(Mlp::Deserialize(bytes.substr(0, bytes.size() - 4), "x").ok());
  EXPECT_FALSE(Mlp::Deserialize("garbage", "x").ok());
  std::string magic = bytes;
  magic[0] = 'X';
  EXPECT_NE(Mlp::Deserialize(magic, "x").status().message().find("magic"), std::string::npos);
  EXPECT_EQ(Mlp::Load("/nonexistent/mlp.bin").status().code(), StatusCode::kFailedPrecondition);
}

// A checkpoint whose checksum matches but whose layer sizes do not fit its bytes (a damaged or
// hostile file) is an error, not a terabyte allocation.
TEST(Mlp, ALayerShapeTheBytesCannotHoldIsRejected) {
  std::string bytes = Mlp({4, 8, 2}, OutputActivation::kSoftmax, 1).Serialize();
  constexpr size_t kHeader = 64;
  const uint32_t huge = 1u << 20;
  std::memcpy(&bytes[kHeader], &huge, 4);  // the first layer size
  std::memcpy(&bytes[kHeader + 4], &huge, 4);
  const uint64_t checksum = lexicon_format::XXH64(bytes.data() + kHeader, bytes.size() - kHeader, 0);
  std::memcpy(&bytes[32], &checksum, 8);  // Header::checksum
  auto r = Mlp::Deserialize(bytes, "combiner.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("weight bytes"), std::string::npos) << r.status().ToString();
  const testing::TempDir temp("ontomem-mlp-dir");
  const std::string& dir = temp.path();
  EXPECT_NE(Mlp::Load(dir).status().message().find("is a directory"), std::string::npos);
}

TEST(Mlp, SetLayerStartsALinearMapAtTheIdentity) {
  Mlp m({4, 4}, OutputActivation::kLinear, 5);
  ASSERT_TRUE(m.SetLayer(0, Eigen::MatrixXf::Identity(4, 4), Eigen::VectorXf::Zero(4)).ok());
  const Eigen::VectorXf x = Eigen::VectorXf::Random(4);
  EXPECT_TRUE(m.Forward(x).isApprox(x));
  EXPECT_EQ(m.SetLayer(0, Eigen::MatrixXf::Identity(3, 4), Eigen::VectorXf::Zero(3)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(m.SetLayer(1, Eigen::MatrixXf::Identity(4, 4), Eigen::VectorXf::Zero(4)).code(), StatusCode::kInvalidArgument);
  // Training moves it from there: one step towards a target of 2x.
  Eigen::MatrixXf X = x.transpose(), Y = 2 * x.transpose();
  m.Step(X, Y, Eigen::VectorXf::Ones(1), 1e-2f, 0.0f);
  EXPECT_GT(m.Forward(x).dot(x), x.dot(x));
}

// Layers of a multiple of 8 outputs take the eight-wide kernel (over 64 in several passes);
// others the scalar loop.
TEST(Mlp, BatchForwardMatchesOneByOneOnEveryKernelPath) {
  for (const auto& sizes : std::vector<std::vector<int>>{
           {46, 32, 1}, {13, 16, 8, 3}, {9, 24, 5}, {3, 64, 2}, {50, 96, 1}, {7, 160, 40, 1}, {5, 120, 2}}) {
    Mlp m(sizes, OutputActivation::kSigmoid, 5);
    Eigen::MatrixXf X = Eigen::MatrixXf::Random(37, sizes.front());
    const Eigen::MatrixXf B = m.ForwardBatch(X);
    const Eigen::MatrixXf C = m.ForwardColumns(X.transpose());
    ASSERT_EQ(B.rows(), 37);
    ASSERT_EQ(B.cols(), sizes.back());
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const Eigen::VectorXf one = m.Forward(X.row(i).transpose());
      EXPECT_TRUE(B.row(i).transpose().isApprox(one, 1e-5f)) << "sizes[1] " << sizes[1] << " row " << i;
      EXPECT_TRUE(C.col(i).isApprox(one, 1e-5f)) << "sizes[1] " << sizes[1] << " row " << i;
    }
  }
}

TEST(Mlp, BatchForwardMatchesOneByOne) {
  for (auto act : {OutputActivation::kSigmoid, OutputActivation::kSoftmax, OutputActivation::kLinear}) {
    Mlp m({5, 7, 3}, act, 3);
    Eigen::MatrixXf X = Eigen::MatrixXf::Random(6, 5);
    const Eigen::MatrixXf B = m.ForwardBatch(X);
    ASSERT_EQ(B.rows(), 6);
    ASSERT_EQ(B.cols(), 3);
    for (Eigen::Index i = 0; i < X.rows(); ++i)
      EXPECT_TRUE(B.row(i).transpose().isApprox(m.Forward(X.row(i).transpose()), 1e-5f)) << "row " << i;
  }
}

// An ensemble is one network: its output logit is the members' mean logit, it survives a
// save and load as any network, and members it cannot stack are refused.
TEST(Mlp, MeanLogitEnsembleAveragesTheMembersLogits) {
  const std::vector<Mlp> members = {Mlp({6, 8, 1}, OutputActivation::kSigmoid, 1),
                                    Mlp({6, 4, 1}, OutputActivation::kSigmoid, 2),
                                    Mlp({6, 8, 1}, OutputActivation::kSigmoid, 3)};
  auto e = MeanLogitEnsemble(members);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->sizes(), (std::vector<int>{6, 20, 1}));
  const testing::TempDir temp("ontomem-mlp-ensemble");
  const std::string& dir = temp.path();
  ASSERT_TRUE(e->Save(dir + "/e.bin").ok());
  auto loaded = Mlp::Load(dir + "/e.bin");
  ASSERT_TRUE(loaded.ok());
  auto logit = [](float p) { return std::log(p / (1 - p)); };
  for (int i = 0; i < 20; ++i) {
    const Eigen::VectorXf x = 2 * Eigen::VectorXf::Random(6);
    float mean = 0;
    for (const Mlp& m : members) mean += logit(m.Forward(x)(0)) / 3;
    EXPECT_NEAR(logit(e->Forward(x)(0)), mean, 2e-3f);
    EXPECT_NEAR(loaded->Forward(x)(0), e->Forward(x)(0), 1e-6f);
  }
  // The members' own outputs differ, so the test would notice a copy of one of them.
  const Eigen::VectorXf x = Eigen::VectorXf::Ones(6);
  EXPECT_GT(std::abs(members[0].Forward(x)(0) - members[2].Forward(x)(0)), 1e-3f);

  EXPECT_EQ(MeanLogitEnsemble({}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MeanLogitEnsemble({members[0], Mlp({5, 8, 1}, OutputActivation::kSigmoid, 4)}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(MeanLogitEnsemble({members[0], Mlp({6, 8, 4, 1}, OutputActivation::kSigmoid, 4)}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(MeanLogitEnsemble({members[0], Mlp({6, 8, 1}, OutputActivation::kLinear, 4)}).status().code(),
            StatusCode::kInvalidArgument);
}

// Distillation (`train combiner --distill`): one network trained on an ensemble's outputs as
// soft targets follows the ensemble, not the hard labels its members were fitted to.
TEST(Mlp, OneNetworkLearnsAnEnsemblesSoftOutputs) {
  const int n = 3000;
  const Eigen::MatrixXf X = Eigen::MatrixXf::Random(n, 4);
  Eigen::MatrixXf Y(n, 1);
  for (int i = 0; i < n; ++i) Y(i, 0) = X(i, 0) * X(i, 1) + 0.5f * X(i, 2) > 0 ? 1.0f : 0.0f;
  MlpTrainOptions opt;
  opt.epochs = 40;
  std::vector<Mlp> members;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    members.emplace_back(std::vector<int>{4, 8, 1}, OutputActivation::kSigmoid, seed);
    opt.seed = seed;
    members.back().Train(X, Y, opt);
  }
  auto teacher = MeanLogitEnsemble(members);
  ASSERT_TRUE(teacher.ok()) << teacher.status().ToString();
  const Eigen::MatrixXf soft = teacher->ForwardBatch(X);
  Mlp student({4, 8, 1}, OutputActivation::kSigmoid, 9);
  opt.seed = 9;
  student.Train(X, soft, opt);
  const Eigen::MatrixXf s = student.ForwardBatch(X);
  const float to_teacher = (s - soft).cwiseAbs().mean(), teacher_to_labels = (soft - Y).cwiseAbs().mean();
  EXPECT_LT(to_teacher, 0.05f);
  // The soft targets are not the labels, so following them is not learning the labels again.
  EXPECT_GT(teacher_to_labels, 2 * to_teacher);
}

}  // namespace
}  // namespace ontomem::learn
