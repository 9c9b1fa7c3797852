// API keys: a key determines its tenant. The key file stores only SHA-256 hashes, one line per
// key: "tenant<TAB>sha256-hex"; lines starting with '#' and blank lines are ignored.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ontomem/status.h"

namespace ontomem::server {

class KeyStore {
 public:
  KeyStore() = default;
  // NotFound if the file is missing; InvalidArgument (with file:line) for a malformed line.
  static StatusOr<KeyStore> Load(const std::string& path);
  static StatusOr<KeyStore> Parse(std::string_view text, const std::string& origin);

  // The tenant of `key`, or nullopt. The presented key's hash is compared with every stored
  // hash in constant time, without an early exit, so timing tells nothing about near misses.
  std::optional<std::string> Lookup(std::string_view key) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::array<uint8_t, 32> hash;
    std::string tenant;
  };
  std::vector<Entry> entries_;
};

// The key file as a running server sees it: re-read when it changed (looked at no more than
// once a second), so a key added with `ontomem keys add` or a line removed by hand takes effect
// without a restart. A changed file that cannot be read or parsed leaves the keys as they were
// and says why on stderr.
class LiveKeys {
 public:
  // An empty `path` is never re-read.
  LiveKeys(KeyStore initial, std::string path);
  std::optional<std::string> Lookup(std::string_view key);

 private:
  struct FileId {
    int64_t mtime_ns = -1, size = -1, inode = -1;
    bool operator==(const FileId&) const = default;
  };
  static FileId Identify(const std::string& path);
  void MaybeReload();  // with mu_ held

  std::mutex mu_;
  std::shared_ptr<const KeyStore> keys_;
  const std::string path_;
  FileId loaded_;
  std::chrono::steady_clock::time_point next_check_;
};

// Creates a key for `tenant` ("om_" + 64 hex digits from 32 bytes of /dev/urandom), appends
// its hash to `path` (created if missing; rewritten atomically) and returns the key, which is
// stored nowhere else.
StatusOr<std::string> AddKey(const std::string& path, const std::string& tenant);

}  // namespace ontomem::server
