// A small fully connected network in Eigen, for the extraction candidate scorer (2 layers, 256
// sigmoid hidden units, as in the paper) and later the router. Float32, row-major batches.
//
// On-disk format (little-endian): 64-byte header {magic "ONTOMLP1", version u32, output
// activation u32, layer count u32, reserved u32, payload size u64, XXH64(payload) u64, zero
// padding}, then the payload: layer sizes (u32 each), then per layer W (out x in, row-major
// float32) and b (out float32). Load verifies magic, version, sizes and checksum.
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ontomem/status.h"

namespace ontomem::learn {

enum class OutputActivation : uint32_t {
  kSigmoid = 0,  // independent probabilities; loss = binary cross-entropy
  kSoftmax = 1,  // one distribution over the outputs; loss = cross-entropy
  kLinear = 2,   // regression; loss = 1/2 squared error
};

struct MlpTrainOptions {
  int epochs = 30;            // passes over the data
  int batch_size = 32;
  float learning_rate = 1e-3f;  // Adam step size
  float l2 = 1e-5f;           // weight decay on W (not b)
  uint64_t seed = 1;          // shuffling
  bool verbose = false;       // print the loss per epoch to stderr
};

class Mlp {
 public:
  Mlp() = default;
  // Layer sizes {inputs, hidden..., outputs}; hidden units are sigmoid. Weights are drawn from
  // a seeded Xavier-uniform distribution, biases zero.
  Mlp(std::vector<int> sizes, OutputActivation out, uint64_t seed = 1);

  int inputs() const { return sizes_.empty() ? 0 : sizes_.front(); }
  int outputs() const { return sizes_.empty() ? 0 : sizes_.back(); }
  const std::vector<int>& sizes() const { return sizes_; }
  OutputActivation output_activation() const { return out_; }
  size_t parameter_count() const;

  // Forward pass of one example (x.size() == inputs()). Thread-safe (const, no scratch state).
  Eigen::VectorXf Forward(const Eigen::Ref<const Eigen::VectorXf>& x) const;
  // Forward pass of a batch: X is n x inputs, result n x outputs.
  Eigen::MatrixXf ForwardBatch(const Eigen::Ref<const Eigen::MatrixXf>& X) const;
  // The same with examples as columns: A is inputs x n, result outputs x n (no transposes).
  Eigen::MatrixXf ForwardColumns(Eigen::MatrixXf A) const;

  // Trains with Adam on (X, Y): X n x inputs, Y n x outputs (targets in [0,1] for sigmoid,
  // one-hot rows for softmax). Optional per-example weights (size n, empty = 1). Returns the
  // mean loss of the last epoch. Not thread-safe with concurrent Forward calls.
  float Train(const Eigen::MatrixXf& X, const Eigen::MatrixXf& Y, const MlpTrainOptions& opt,
              const std::vector<float>& example_weights = {});

  // One Adam step on a batch; returns the batch mean loss.
  float Step(const Eigen::Ref<const Eigen::MatrixXf>& X, const Eigen::Ref<const Eigen::MatrixXf>& Y,
             const Eigen::Ref<const Eigen::VectorXf>& w, float learning_rate, float l2);

  // Layer l's weights (out x in) and bias.
  const Eigen::MatrixXf& weights(size_t l) const { return W_[l]; }
  const Eigen::VectorXf& bias(size_t l) const { return b_[l]; }
  // Replaces layer l's weights (out x in) and bias; InvalidArgument on a shape mismatch. Used
  // to start a linear map at the identity.
  Status SetLayer(size_t l, const Eigen::MatrixXf& W, const Eigen::VectorXf& b);

  // Serialisation (format above). Deserialize errors: Corruption naming `origin`.
  std::string Serialize() const;
  static StatusOr<Mlp> Deserialize(std::string_view bytes, const std::string& origin);
  Status Save(const std::string& path) const;
  // Errors: FailedPrecondition if the file is missing, Corruption if damaged.
  static StatusOr<Mlp> Load(const std::string& path);

 private:
  std::vector<int> sizes_;
  OutputActivation out_ = OutputActivation::kSigmoid;
  std::vector<Eigen::MatrixXf> W_;
  std::vector<Eigen::VectorXf> b_;
  // Adam state
  std::vector<Eigen::MatrixXf> mW_, vW_;
  std::vector<Eigen::VectorXf> mb_, vb_;
  int64_t t_ = 0;
};

// One network whose output logit is the mean of the members' output logits: their hidden
// layers side by side, each member's output weights divided by their count. The members are
// networks of one hidden layer and one output of the same input size and output activation
// (e.g. one setting fitted with several seeds); a seed's luck then averages out in one file
// that Load reads as any other network.
StatusOr<Mlp> MeanLogitEnsemble(const std::vector<Mlp>& members);

}  // namespace ontomem::learn
