// The word-vector lexicon: a read-only binary file of word vectors in frequency-rank order,
// memory-mapped so that opening it costs one checksum pass and no per-word allocation.
//
// On-disk format (version 1, little-endian, every section 64-byte aligned):
//   [0, 256)        LexiconHeader (below)
//   word_offsets    uint32[count + 1]: word r is pool[word_offsets[r], word_offsets[r + 1])
//   word_pool       the words' UTF-8 bytes, concatenated, no separators
//   hash_slots      uint32[hash_slot_count] open-addressing table (linear probing) keyed by
//                   LexiconWordHash(word) & (hash_slot_count - 1); a slot holds rank + 1, 0 = empty
//   vectors         count rows of dims elements: float32, or int8 (value = q * scales[r])
//   scales          float32[count] (int8 only; absent for float32)
//   common          float32[dims]: unit-length SIF common component (zeros if none)
// checksum = XXH64(seed 0) over the whole file with the header's checksum field read as zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ontomem/status.h"

namespace ontomem {

enum class LexiconElementType : uint32_t {
  kFloat32 = 0,
  kInt8 = 1,  // symmetric per-row quantisation: scale = max|x| / 127
};

const char* LexiconElementTypeName(LexiconElementType type);

namespace lexicon_format {

inline constexpr char kMagic[8] = {'O', 'N', 'T', 'O', 'L', 'E', 'X', '1'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kHeaderSize = 256;
inline constexpr uint64_t kAlign = 64;

struct LexiconHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint32_t dims;
  uint32_t element_type;  // LexiconElementType
  uint64_t count;
  uint64_t file_size;
  uint64_t checksum;
  // Unigram probability estimate p(r) = zipf_norm / (r + zipf_shift) (see lexicon_build.cc).
  double zipf_shift;
  double zipf_norm;
  // The SIF `a` and number of top words the common component was computed with.
  double common_sif_a;
  uint64_t common_words;
  uint64_t hash_slot_count;  // a power of two
  uint64_t word_offsets_offset;
  uint64_t word_pool_offset;
  uint64_t word_pool_size;
  uint64_t hash_slots_offset;
  uint64_t vectors_offset;
  uint64_t scales_offset;  // 0 for float32
  uint64_t common_offset;
  uint8_t reserved[kHeaderSize - 144];
};
static_assert(sizeof(LexiconHeader) == kHeaderSize);
inline constexpr size_t kChecksumFieldOffset = offsetof(LexiconHeader, checksum);

// XXH64 (the xxHash 64-bit algorithm) over `n` bytes.
uint64_t XXH64(const void* data, size_t n, uint64_t seed);
// Streaming XXH64, so the builder can checksum what it writes without re-reading the file.
class XXH64Stream {
 public:
  explicit XXH64Stream(uint64_t seed = 0);
  void Update(const void* data, size_t n);
  uint64_t Digest() const;

 private:
  uint64_t v_[4];
  uint64_t seed_;
  uint64_t total_ = 0;
  unsigned char buf_[32];
  size_t buf_len_ = 0;
};

// The key hash of the on-disk word table.
inline uint64_t LexiconWordHash(std::string_view word) {
  return XXH64(word.data(), word.size(), 0x6f6e746f);
}

inline uint64_t AlignUp(uint64_t x) { return (x + kAlign - 1) & ~(kAlign - 1); }

}  // namespace lexicon_format

// The fix printed with every missing/corrupt lexicon error.
inline constexpr const char* kLexiconFixHint =
    "run `make lexicon` (or `ontomem lexicon build --from <wink json> --out <path>`)";

class Lexicon {
 public:
  // Maps and validates the file (magic, version, section bounds against the file size, word
  // table, checksum). Errors: FailedPrecondition for a missing, unreadable, truncated, corrupt or
  // foreign file; the message names the file and the command that rebuilds it.
  static StatusOr<std::unique_ptr<Lexicon>> Open(const std::string& path);
  ~Lexicon();
  Lexicon(const Lexicon&) = delete;
  Lexicon& operator=(const Lexicon&) = delete;

  // All accessors are const and thread-safe (the mapping is read-only).
  int dim() const { return static_cast<int>(header_.dims); }
  size_t size() const { return static_cast<size_t>(header_.count); }
  LexiconElementType element_type() const {
    return static_cast<LexiconElementType>(header_.element_type);
  }
  uint64_t checksum() const { return header_.checksum; }
  size_t file_size() const { return static_cast<size_t>(header_.file_size); }
  const std::string& path() const { return path_; }

  // Frequency rank (0 = most frequent) of an exact (byte-equal) word, or -1 if absent.
  int64_t Find(std::string_view word) const;
  // The word at `rank` (0 <= rank < size()); the view lives as long as the Lexicon.
  std::string_view Word(int64_t rank) const;
  // Writes dim() floats (dequantised for int8). 0 <= rank < size().
  void Vector(int64_t rank, float* out) const;
  // Estimated unigram probability of the word at `rank` (Zipf over the frequency rank).
  double Probability(int64_t rank) const {
    return header_.zipf_norm / (static_cast<double>(rank) + header_.zipf_shift);
  }
  // dim() floats: the unit-length SIF common component stored at build time (zeros if none).
  const float* common_component() const { return common_; }
  // The SIF `a` and the number of top-ranked words the common component was estimated from.
  double common_component_sif_a() const { return header_.common_sif_a; }
  uint64_t common_component_words() const { return header_.common_words; }

 private:
  Lexicon() = default;

  std::string path_;
  lexicon_format::LexiconHeader header_{};
  const unsigned char* base_ = nullptr;
  size_t mapped_size_ = 0;
  const uint32_t* word_offsets_ = nullptr;
  const char* word_pool_ = nullptr;
  const uint32_t* hash_slots_ = nullptr;
  const unsigned char* vectors_ = nullptr;
  const float* scales_ = nullptr;
  const float* common_ = nullptr;
};

}  // namespace ontomem
