#include "server/keys.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/file_util.h"
#include "engine/validate.h"
#include "server/sha256.h"

namespace ontomem::server {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

StatusOr<KeyStore> KeyStore::Load(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return Parse(text, path);
}

StatusOr<KeyStore> KeyStore::Parse(std::string_view text, const std::string& origin) {
  KeyStore ks;
  size_t lineno = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    const std::string where = fmt::format("{}:{}", origin, lineno);
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      return Status::InvalidArgument(where + ": expected \"tenant<TAB>sha256-hex\"");
    Entry e;
    e.tenant = std::string(line.substr(0, tab));
    Status st = ValidateName("tenant", e.tenant, false);
    if (!st.ok()) return st.WithContext(where);
    const std::string_view hex = line.substr(tab + 1);
    if (hex.size() != 64) return Status::InvalidArgument(where + ": the hash is not 64 hex digits");
    for (size_t i = 0; i < 32; ++i) {
      const int hi = HexValue(hex[2 * i]), lo = HexValue(hex[2 * i + 1]);
      if (hi < 0 || lo < 0) return Status::InvalidArgument(where + ": the hash is not 64 hex digits");
      e.hash[i] = static_cast<uint8_t>(hi * 16 + lo);
    }
    ks.entries_.push_back(std::move(e));
  }
  return ks;
}

std::optional<std::string> KeyStore::Lookup(std::string_view key) const {
  const std::array<uint8_t, 32> h = Sha256(key);
  size_t match = entries_.size();
  for (size_t i = 0; i < entries_.size(); ++i) {
    uint8_t diff = 0;
    for (size_t j = 0; j < 32; ++j) diff |= static_cast<uint8_t>(h[j] ^ entries_[i].hash[j]);
    // Branch-free select: every entry costs the same whether or not it matches.
    const size_t is_match = static_cast<size_t>(diff == 0);
    match = is_match * i + (1 - is_match) * match;
  }
  if (match == entries_.size()) return std::nullopt;
  return entries_[match].tenant;
}

LiveKeys::LiveKeys(KeyStore initial, std::string path)
    : keys_(std::make_shared<const KeyStore>(std::move(initial))),
      path_(std::move(path)),
      loaded_(path_.empty() ? FileId() : Identify(path_)),
      next_check_(std::chrono::steady_clock::now() + std::chrono::seconds(1)) {}

LiveKeys::FileId LiveKeys::Identify(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_ino)};
}

void LiveKeys::MaybeReload() {
  const auto now = std::chrono::steady_clock::now();
  if (path_.empty() || now < next_check_) return;
  next_check_ = now + std::chrono::seconds(1);
  const FileId id = Identify(path_);
  if (id == loaded_) return;
  loaded_ = id;  // a bad file is reported once, not every second
  StatusOr<KeyStore> fresh = KeyStore::Load(path_);
  if (!fresh.ok()) {
    std::fprintf(stderr, "ontomem serve: keeping the previous %zu key(s): %s\n", keys_->size(),
                 fresh.status().ToString().c_str());
    return;
  }
  std::fprintf(stderr, "ontomem serve: %s changed, now %zu key(s)\n", path_.c_str(), fresh->size());
  keys_ = std::make_shared<const KeyStore>(std::move(*fresh));
}

std::optional<std::string> LiveKeys::Lookup(std::string_view key) {
  std::shared_ptr<const KeyStore> keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    MaybeReload();
    keys = keys_;
  }
  return keys->Lookup(key);
}

StatusOr<std::string> AddKey(const std::string& path, const std::string& tenant) {
  RETURN_IF_ERROR(ValidateName("tenant", tenant, false));
  if (tenant[0] == '#')
    return Status::InvalidArgument("tenant: " + tenant + " starts with '#', which the keys file reads as a comment");
  // Read, append, rename under an exclusive lock: concurrent `keys add` would otherwise each
  // rename their own copy and all but the last key would be lost.
  const std::string lock_path = path + ".lock";
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0) return Status::IOError(fmt::format("cannot open {}: {}", lock_path, std::strerror(errno)));
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }  // closing releases the flock
  } unlock{lock_fd};
  if (::flock(lock_fd, LOCK_EX) != 0) return Status::IOError(fmt::format("cannot lock {}: {}", lock_path, std::strerror(errno)));
  std::string existing;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    ASSIGN_OR_RETURN(existing, ReadWholeFile(path));
    RETURN_IF_ERROR(KeyStore::Parse(existing, path).status());
    if (!existing.empty() && existing.back() != '\n') existing += '\n';
  } else {
    existing = "# ontomem API keys: tenant<TAB>sha256(key). Add one with `ontomem keys add`.\n";
  }
  uint8_t raw[32];
  {
    std::ifstream rnd("/dev/urandom", std::ios::binary);
    if (!rnd.read(reinterpret_cast<char*>(raw), sizeof(raw)))
      return Status::IOError("cannot read 32 bytes from /dev/urandom");
  }
  const std::string key = "om_" + ToHex(raw, sizeof(raw));
  RETURN_IF_ERROR(WriteFileAtomic(path, existing + tenant + "\t" + Sha256Hex(key) + "\n"));
  return key;
}

}  // namespace ontomem::server
