// Deterministic randomness for generators and tests: the same seed gives the same output on
// every standard library (std::uniform_int_distribution is not specified bit for bit).
#pragma once

#include <cstdint>
#include <random>

namespace ontomem {

// SplitMix64 (Steele, Lea, Flood 2014): a good 64-bit mix for deriving seeds.
inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Uniform in [0, n) for n > 0, unbiased: rejects the low 2^64 mod n draws. Always consumes at
// least one draw (also for n == 1), which generators' frozen outputs rely on.
inline uint64_t UniformBelow(std::mt19937_64& g, uint64_t n) {
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t x = g();
    if (x >= threshold) return x % n;
  }
}

}  // namespace ontomem
