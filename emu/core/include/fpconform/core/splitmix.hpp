// splitmix64 (Steele, Lea, Flood 2014; the constants of Vigna's public-domain reference): the one
// generator and mixer behind every seeded input in fpconform, so that any layer, and the GPU
// runner, can regenerate an input bit for bit. Header-only and usable from CUDA.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define FPCONFORM_HD __host__ __device__
#else
#define FPCONFORM_HD
#endif

namespace fpconform {

inline constexpr std::uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio

// The splitmix64 output function (finaliser) applied to z.
FPCONFORM_HD inline constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One step from state x: the generator's output after x (a counter-based hash of x).
FPCONFORM_HD inline constexpr std::uint64_t splitmix64(std::uint64_t x) {
  return splitmix64_mix(x + kSplitMixGamma);
}

// The sequential generator: state += gamma, then mix.
struct SplitMix64 {
  std::uint64_t state;
  FPCONFORM_HD constexpr explicit SplitMix64(std::uint64_t seed) : state(seed) {}
  FPCONFORM_HD constexpr std::uint64_t next() {
    state += kSplitMixGamma;
    return splitmix64_mix(state);
  }
  // A value below n (0 for n = 0); the modulo's bias is below n / 2^64.
  FPCONFORM_HD constexpr std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
};

}  // namespace fpconform
