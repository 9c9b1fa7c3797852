#include "extract/perceptron.h"

#include <algorithm>

namespace ontomem::extract {

AveragedPerceptron::AveragedPerceptron(int bucket_bits, int labels)
    : bits_(bucket_bits), labels_(labels), mask_((1u << bucket_bits) - 1),
      w_(static_cast<size_t>(1u << bucket_bits) * static_cast<size_t>(labels), 0.0f) {}

void AveragedPerceptron::Score(const std::vector<uint32_t>& feats, float* scores) const {
  std::fill(scores, scores + labels_, 0.0f);
  for (uint32_t f : feats) {
    const float* row = &w_[static_cast<size_t>(f & mask_) * static_cast<size_t>(labels_)];
    for (int l = 0; l < labels_; ++l) scores[l] += row[l];
  }
}

int AveragedPerceptron::Predict(const std::vector<uint32_t>& feats, float* scores) const {
  Score(feats, scores);
  return static_cast<int>(std::max_element(scores, scores + labels_) - scores);
}

void AveragedPerceptron::Touch(size_t i, float delta) {
  if (total_.empty()) {
    total_.assign(w_.size(), 0.0);
    stamp_.assign(w_.size(), 0);
  }
  total_[i] += static_cast<double>(clock_ - stamp_[i]) * w_[i];
  stamp_[i] = clock_;
  w_[i] += delta;
}

void AveragedPerceptron::Update(const std::vector<uint32_t>& feats, int gold, int pred) {
  if (gold == pred) return;
  for (uint32_t f : feats) {
    const size_t row = static_cast<size_t>(f & mask_) * static_cast<size_t>(labels_);
    Touch(row + static_cast<size_t>(gold), 1.0f);
    Touch(row + static_cast<size_t>(pred), -1.0f);
  }
}

void AveragedPerceptron::Average() {
  if (total_.empty() || clock_ == 0) return;
  for (size_t i = 0; i < w_.size(); ++i) {
    const double t = total_[i] + static_cast<double>(clock_ - stamp_[i]) * w_[i];
    w_[i] = static_cast<float>(t / static_cast<double>(clock_));
  }
  total_.clear();
  total_.shrink_to_fit();
  stamp_.clear();
  stamp_.shrink_to_fit();
}

void AveragedPerceptron::AddWeights(const AveragedPerceptron& other) {
  if (other.w_.size() != w_.size()) return;
  for (size_t i = 0; i < w_.size(); ++i) w_[i] += other.w_[i];
}

void AveragedPerceptron::ScaleWeights(float s) {
  for (float& x : w_) x *= s;
}

void AveragedPerceptron::Write(BlobWriter* w) const {
  w->Pod<int32_t>(bits_);
  w->Pod<int32_t>(labels_);
  w->Array(w_);
}

bool AveragedPerceptron::Read(BlobReader* r) {
  int32_t bits = 0, labels = 0;
  if (!r->Pod(&bits) || !r->Pod(&labels) || bits < 4 || bits > 24 || labels < 1 || labels > 64) return false;
  bits_ = bits;
  labels_ = labels;
  mask_ = (1u << bits) - 1;
  if (!r->Array(&w_, static_cast<uint64_t>(1u << bits) * static_cast<uint64_t>(labels))) return false;
  return w_.size() == static_cast<size_t>(1u << bits) * static_cast<size_t>(labels);
}

}  // namespace ontomem::extract
