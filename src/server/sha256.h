// SHA-256 (FIPS 180-4), self-contained: API keys are stored as their hash.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ontomem::server {

std::array<uint8_t, 32> Sha256(std::string_view data);
// Lower-case hex of Sha256(data).
std::string Sha256Hex(std::string_view data);
// Lower-case hex of any bytes.
std::string ToHex(const uint8_t* data, size_t n);

}  // namespace ontomem::server
