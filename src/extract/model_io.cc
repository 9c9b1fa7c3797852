#include "extract/model_io.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "embed/lexicon.h"

namespace ontomem::extract {
namespace {

constexpr char kMagic[8] = {'O', 'N', 'T', 'O', 'E', 'X', 'T', '1'};
constexpr uint32_t kFormatVersion = 1;

struct Header {
  char magic[8];
  uint32_t version;
  char kind[4];
  uint32_t feature_version;
  uint32_t reserved;
  uint64_t payload_size;
  uint64_t checksum;
  uint8_t pad[64 - 40];
};
static_assert(sizeof(Header) == 64);

}  // namespace

Status WriteModelFile(const std::string& path, const char kind[4], const std::string& payload) {
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kFormatVersion;
  std::memcpy(h.kind, kind, 4);
  h.feature_version = kFeatureLayoutVersion;
  h.payload_size = payload.size();
  h.checksum = lexicon_format::XXH64(payload.data(), payload.size(), 0);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return Status::IOError("cannot open " + tmp + " for writing");
    f.write(reinterpret_cast<const char*>(&h), sizeof(h));
    f.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    f.close();
    if (!f) return Status::IOError("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Status::IOError("cannot rename " + tmp + " to " + path);
  return Status::Ok();
}

StatusOr<std::string> ReadModelFile(const std::string& path, const char kind[4]) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Status::FailedPrecondition(fmt::format("extractor model {} is a directory, not a file; {}", path, kExtractorFixHint));
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::FailedPrecondition(fmt::format("extractor model {} is missing; {}", path, kExtractorFixHint));
  std::stringstream ss;
  ss << f.rdbuf();
  std::string bytes = ss.str();
  auto bad = [&](const std::string& why) {
    return Status::Corruption(fmt::format("extractor model {} {}; {}", path, why, kExtractorFixHint));
  };
  if (bytes.size() < sizeof(Header)) return bad("is truncated");
  Header h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, 8) != 0) return bad("is not an ontomem extractor model (bad magic)");
  if (h.version != kFormatVersion) return bad(fmt::format("has format version {} (expected {})", h.version, kFormatVersion));
  if (std::memcmp(h.kind, kind, 4) != 0)
    return bad(fmt::format("holds a '{}' model, expected '{}'", std::string(h.kind, 4), std::string(kind, 4)));
  if (h.feature_version != kFeatureLayoutVersion)
    return bad(fmt::format("was trained with feature layout {} (this build uses {})", h.feature_version,
                           kFeatureLayoutVersion));
  if (h.payload_size != bytes.size() - sizeof(Header)) return bad("has the wrong size (truncated or padded)");
  if (lexicon_format::XXH64(bytes.data() + sizeof(Header), h.payload_size, 0) != h.checksum)
    return bad("fails its checksum (damaged)");
  return bytes.substr(sizeof(Header));
}

}  // namespace ontomem::extract
