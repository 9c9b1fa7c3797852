// Checkpoint files of the extractor (models/extractor/*.bin): a 64-byte header {magic
// "ONTOEXT1", format version u32, kind (4 ASCII bytes), feature-layout version u32, reserved u32,
// payload size u64, XXH64(payload) u64, zero padding} and a payload written with BlobWriter
// (little-endian PODs and length-prefixed strings/arrays).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ontomem/status.h"

namespace ontomem::extract {

// The fix printed with every missing or damaged extractor model.
inline constexpr const char* kExtractorFixHint =
    "run `ontomem train extractor` to rebuild the models (or set ONTOMEM_MODELS to the directory holding extractor/)";

// Bumped whenever feature extraction changes in a way that invalidates trained weights.
inline constexpr uint32_t kFeatureLayoutVersion = 3;  // 2: stance and group features; 3: clause-scoped modality, change, name cues

class BlobWriter {
 public:
  template <typename T>
  void Pod(const T& v) { out_.append(reinterpret_cast<const char*>(&v), sizeof(T)); }
  void Str(std::string_view s) { Pod<uint32_t>(static_cast<uint32_t>(s.size())); out_.append(s); }
  template <typename T>
  void Array(const std::vector<T>& v) {
    Pod<uint64_t>(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

class BlobReader {
 public:
  explicit BlobReader(std::string_view b) : b_(b) {}
  template <typename T>
  bool Pod(T* v) {
    if (pos_ + sizeof(T) > b_.size()) return false;
    std::memcpy(v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool Str(std::string* s) {
    uint32_t n = 0;
    if (!Pod(&n) || pos_ + n > b_.size()) return false;
    s->assign(b_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  template <typename T>
  bool Array(std::vector<T>* v, uint64_t max_elems) {
    uint64_t n = 0;
    if (!Pod(&n) || n > max_elems || pos_ + n * sizeof(T) > b_.size()) return false;
    v->resize(n);
    if (n) std::memcpy(v->data(), b_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return true;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  size_t pos_ = 0;
};

// Writes header + payload atomically (temp file + rename).
Status WriteModelFile(const std::string& path, const char kind[4], const std::string& payload);
// Reads and validates a model file of `kind`. Errors: FailedPrecondition for a missing file,
// Corruption for a damaged/foreign/stale one; both messages name the file and kExtractorFixHint.
StatusOr<std::string> ReadModelFile(const std::string& path, const char kind[4]);

}  // namespace ontomem::extract
