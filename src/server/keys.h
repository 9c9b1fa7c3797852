// API keys: a key determines its tenant. The key file stores only SHA-256 hashes, one line per
// key: "tenant<TAB>sha256-hex"; lines starting with '#' and blank lines are ignored.
#pragma once

#include <array>
#include <cstdint>
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

// Creates a key for `tenant` ("om_" + 64 hex digits from 32 bytes of /dev/urandom), appends
// its hash to `path` (created if missing; rewritten atomically) and returns the key, which is
// stored nowhere else.
StatusOr<std::string> AddKey(const std::string& path, const std::string& tenant);

}  // namespace ontomem::server
