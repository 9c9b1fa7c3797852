// Multi-class averaged perceptron over hashed sparse features (Collins 2002; the "lazy
// averaging" bookkeeping of Honnibal's tagger). Weights are a dense table buckets x labels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "extract/model_io.h"
#include "ontomem/status.h"

namespace ontomem::extract {

class AveragedPerceptron {
 public:
  AveragedPerceptron() = default;
  AveragedPerceptron(int bucket_bits, int labels);

  int labels() const { return labels_; }
  uint32_t mask() const { return mask_; }

  // scores[l] = sum over features f of w[f][l]. `scores` must hold labels() floats.
  // Thread-safe (const).
  void Score(const std::vector<uint32_t>& feats, float* scores) const;
  int Predict(const std::vector<uint32_t>& feats, float* scores) const;

  // Training: if pred != gold, w[f][gold] += 1 and w[f][pred] -= 1 for each feature.
  // Call Tick() once per training example (the averaging clock).
  void Update(const std::vector<uint32_t>& feats, int gold, int pred);
  void Tick() { ++clock_; }
  // Replaces weights by their average over all ticks; ends training.
  void Average();
  // After Average(): adds another finished model's weights and scales all weights, so K models
  // trained in K orders can be averaged (parameter mixing). A model of another shape adds nothing.
  void AddWeights(const AveragedPerceptron& other);
  void ScaleWeights(float s);

  void Write(BlobWriter* w) const;
  bool Read(BlobReader* r);
  size_t bytes() const { return w_.size() * sizeof(float); }

 private:
  void Touch(size_t i, float delta);
  int bits_ = 0;
  int labels_ = 0;
  uint32_t mask_ = 0;
  std::vector<float> w_;
  // training only
  std::vector<double> total_;
  std::vector<int64_t> stamp_;
  int64_t clock_ = 0;
};

}  // namespace ontomem::extract
