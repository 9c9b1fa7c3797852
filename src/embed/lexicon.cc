#include "embed/lexicon.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace ontomem {

static_assert(std::endian::native == std::endian::little, "the lexicon format is little-endian");

const char* LexiconElementTypeName(LexiconElementType type) {
  switch (type) {
    case LexiconElementType::kFloat32:
      return "float32";
    case LexiconElementType::kInt8:
      return "int8";
  }
  return "unknown";
}

namespace lexicon_format {
namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;

inline uint64_t Read64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t Read32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t Round(uint64_t acc, uint64_t input) {
  acc += input * kP2;
  acc = std::rotl(acc, 31);
  return acc * kP1;
}
inline uint64_t MergeRound(uint64_t acc, uint64_t val) {
  acc ^= Round(0, val);
  return acc * kP1 + kP4;
}

}  // namespace

XXH64Stream::XXH64Stream(uint64_t seed) : seed_(seed) {
  v_[0] = seed + kP1 + kP2;
  v_[1] = seed + kP2;
  v_[2] = seed;
  v_[3] = seed - kP1;
}

void XXH64Stream::Update(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += n;
  if (buf_len_ + n < 32) {
    if (n > 0) std::memcpy(buf_ + buf_len_, p, n);
    buf_len_ += n;
    return;
  }
  if (buf_len_ > 0) {
    size_t fill = 32 - buf_len_;
    std::memcpy(buf_ + buf_len_, p, fill);
    for (int i = 0; i < 4; ++i) v_[i] = Round(v_[i], Read64(buf_ + 8 * i));
    p += fill;
    n -= fill;
    buf_len_ = 0;
  }
  uint64_t v0 = v_[0], v1 = v_[1], v2 = v_[2], v3 = v_[3];
  while (n >= 32) {
    v0 = Round(v0, Read64(p));
    v1 = Round(v1, Read64(p + 8));
    v2 = Round(v2, Read64(p + 16));
    v3 = Round(v3, Read64(p + 24));
    p += 32;
    n -= 32;
  }
  v_[0] = v0;
  v_[1] = v1;
  v_[2] = v2;
  v_[3] = v3;
  if (n > 0) std::memcpy(buf_, p, n);
  buf_len_ = n;
}

uint64_t XXH64Stream::Digest() const {
  uint64_t h;
  if (total_ >= 32) {
    h = std::rotl(v_[0], 1) + std::rotl(v_[1], 7) + std::rotl(v_[2], 12) + std::rotl(v_[3], 18);
    for (int i = 0; i < 4; ++i) h = MergeRound(h, v_[i]);
  } else {
    h = seed_ + kP5;
  }
  h += total_;
  const unsigned char* p = buf_;
  size_t n = buf_len_;
  while (n >= 8) {
    h ^= Round(0, Read64(p));
    h = std::rotl(h, 27) * kP1 + kP4;
    p += 8;
    n -= 8;
  }
  if (n >= 4) {
    h ^= static_cast<uint64_t>(Read32(p)) * kP1;
    h = std::rotl(h, 23) * kP2 + kP3;
    p += 4;
    n -= 4;
  }
  while (n > 0) {
    h ^= (*p) * kP5;
    h = std::rotl(h, 11) * kP1;
    ++p;
    --n;
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

uint64_t XXH64(const void* data, size_t n, uint64_t seed) {
  XXH64Stream s(seed);
  s.Update(data, n);
  return s.Digest();
}

}  // namespace lexicon_format

namespace {

using lexicon_format::LexiconHeader;

Status Bad(const std::string& path, std::string_view what) {
  return Status::FailedPrecondition(
      fmt::format("lexicon {} is unusable ({}); rebuild it: {}", path, what, kLexiconFixHint));
}

// True when [offset, offset + len) lies inside a file of `size` bytes, without overflow.
bool InFile(uint64_t offset, uint64_t len, uint64_t size) {
  return offset <= size && len <= size - offset;
}

}  // namespace

Lexicon::~Lexicon() {
  if (base_ != nullptr) munmap(const_cast<unsigned char*>(base_), mapped_size_);
}

StatusOr<std::unique_ptr<Lexicon>> Lexicon::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) {
      return Status::FailedPrecondition(
          fmt::format("lexicon {} not found; {}", path, kLexiconFixHint));
    }
    return Status::FailedPrecondition(
        fmt::format("cannot open lexicon {}: {}; {}", path, std::strerror(err), kLexiconFixHint));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Bad(path, fmt::format("fstat: {}", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Bad(path, "not a regular file");
  }
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < lexicon_format::kHeaderSize) {
    ::close(fd);
    return Bad(path, fmt::format("{} bytes is too short for a lexicon", size));
  }
  // MAP_POPULATE: the checksum pass touches every page anyway; prefault them in bulk.
  void* addr = mmap(nullptr, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  int map_err = errno;
  ::close(fd);
  if (addr == MAP_FAILED) return Bad(path, fmt::format("mmap: {}", std::strerror(map_err)));

  std::unique_ptr<Lexicon> lex(new Lexicon());
  lex->path_ = path;
  lex->base_ = static_cast<const unsigned char*>(addr);
  lex->mapped_size_ = size;
  LexiconHeader& h = lex->header_;
  std::memcpy(&h, lex->base_, sizeof(h));

  if (std::memcmp(h.magic, lexicon_format::kMagic, sizeof(h.magic)) != 0) {
    return Bad(path, "not an ontomem lexicon: wrong magic");
  }
  if (h.version != lexicon_format::kVersion) {
    return Bad(path, fmt::format("format version {}, this build reads version {}", h.version,
                                 lexicon_format::kVersion));
  }
  if (h.header_size != lexicon_format::kHeaderSize) return Bad(path, "bad header size");
  if (h.file_size != size) {
    return Bad(path, fmt::format("truncated or extended: header says {} bytes, file has {}",
                                 h.file_size, size));
  }
  // Checksum before trusting any other field: a flipped bit anywhere is reported as such.
  {
    lexicon_format::XXH64Stream xs(0);
    const uint64_t zero = 0;
    xs.Update(lex->base_, lexicon_format::kChecksumFieldOffset);
    xs.Update(&zero, sizeof(zero));
    size_t rest = lexicon_format::kChecksumFieldOffset + sizeof(zero);
    xs.Update(lex->base_ + rest, size - rest);
    uint64_t got = xs.Digest();
    if (got != h.checksum) {
      return Bad(path, fmt::format("checksum mismatch: stored {:016x}, computed {:016x}",
                                   h.checksum, got));
    }
  }
  // The checksum matched, so remaining failures are files written by a buggy or hostile tool.
  auto type = static_cast<LexiconElementType>(h.element_type);
  if (type != LexiconElementType::kFloat32 && type != LexiconElementType::kInt8) {
    return Bad(path, fmt::format("unknown element type {}", h.element_type));
  }
  if (h.dims == 0 || h.dims > 65536) return Bad(path, fmt::format("bad dimension {}", h.dims));
  if (h.count == 0 || h.count >= (uint64_t{1} << 32) - 1) return Bad(path, "bad word count");
  if (h.hash_slot_count < h.count + 1 || h.hash_slot_count > size / 4 ||
      !std::has_single_bit(h.hash_slot_count)) {
    return Bad(path, "bad word table size");
  }
  if (!(h.zipf_shift > 0) || !(h.zipf_norm > 0) || !std::isfinite(h.zipf_norm)) {
    return Bad(path, "bad probability model");
  }
  const uint64_t elem = type == LexiconElementType::kFloat32 ? 4 : 1;
  const uint64_t n = h.count, d = h.dims;
  struct Section {
    uint64_t off, len;
  };
  Section sections[] = {
      {h.word_offsets_offset, (n + 1) * 4},
      {h.word_pool_offset, h.word_pool_size},
      {h.hash_slots_offset, h.hash_slot_count * 4},
      {h.vectors_offset, n * d * elem},
      {h.scales_offset, type == LexiconElementType::kInt8 ? n * 4 : 0},  // len > 0 for int8
      {h.common_offset, d * 4},
  };
  for (const Section& s : sections) {
    if (s.off == 0 && s.len == 0) continue;  // float32 has no scales
    if (s.off % lexicon_format::kAlign != 0 || s.off < lexicon_format::kHeaderSize ||
        !InFile(s.off, s.len, size)) {
      return Bad(path, "section out of bounds");
    }
  }
  lex->word_offsets_ = reinterpret_cast<const uint32_t*>(lex->base_ + h.word_offsets_offset);
  lex->word_pool_ = reinterpret_cast<const char*>(lex->base_ + h.word_pool_offset);
  lex->hash_slots_ = reinterpret_cast<const uint32_t*>(lex->base_ + h.hash_slots_offset);
  lex->vectors_ = lex->base_ + h.vectors_offset;
  lex->scales_ = type == LexiconElementType::kInt8
                     ? reinterpret_cast<const float*>(lex->base_ + h.scales_offset)
                     : nullptr;
  lex->common_ = reinterpret_cast<const float*>(lex->base_ + h.common_offset);
  // Monotone offsets ending at the pool size: Word() can then never read outside the pool.
  // (One pass over 341k integers: ~0.3 ms.)
  if (lex->word_offsets_[0] != 0 || lex->word_offsets_[n] != h.word_pool_size) {
    return Bad(path, "bad word offsets");
  }
  for (uint64_t r = 0; r < n; ++r) {
    if (lex->word_offsets_[r + 1] < lex->word_offsets_[r]) return Bad(path, "bad word offsets");
  }
  return lex;
}

std::string_view Lexicon::Word(int64_t rank) const {
  return std::string_view(word_pool_ + word_offsets_[rank],
                          word_offsets_[rank + 1] - word_offsets_[rank]);
}

int64_t Lexicon::Find(std::string_view word) const {
  const uint64_t mask = header_.hash_slot_count - 1;
  uint64_t i = lexicon_format::LexiconWordHash(word) & mask;
  // The builder keeps the load factor <= 1/2, so probes end at an empty slot quickly; the
  // bound guards a (checksummed, so only hostile) completely full table.
  for (uint64_t probes = 0; probes <= mask; ++probes, i = (i + 1) & mask) {
    uint32_t slot = hash_slots_[i];
    if (slot == 0) return -1;
    uint64_t rank = slot - 1;
    if (rank >= header_.count) return -1;
    if (Word(static_cast<int64_t>(rank)) == word) return static_cast<int64_t>(rank);
  }
  return -1;
}

void Lexicon::Vector(int64_t rank, float* out) const {
  const size_t d = header_.dims;
  if (scales_ == nullptr) {
    std::memcpy(out, vectors_ + static_cast<size_t>(rank) * d * sizeof(float), d * sizeof(float));
    return;
  }
  const auto* q = reinterpret_cast<const int8_t*>(vectors_) + static_cast<size_t>(rank) * d;
  const float scale = scales_[rank];
  for (size_t i = 0; i < d; ++i) out[i] = static_cast<float>(q[i]) * scale;
}

}  // namespace ontomem
