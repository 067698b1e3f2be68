// splitmix64 (Steele, Lea, Flood 2014; the constants of Vigna's public-domain reference):
// the one generator and mixer the GPU probes use, so that the CPU side can regenerate every
// generated input and recompute every digest bit for bit. Header-only and usable from CUDA.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define FPCONFORM_GPU_HD __host__ __device__
#else
#define FPCONFORM_GPU_HD
#endif

namespace fpconform::gpu {

// The splitmix64 output function (finaliser) applied to z.
FPCONFORM_GPU_HD inline constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The sequential generator: state += golden gamma, then mix.
struct SplitMix64 {
  std::uint64_t state;
  FPCONFORM_GPU_HD constexpr explicit SplitMix64(std::uint64_t seed) : state(seed) {}
  FPCONFORM_GPU_HD constexpr std::uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    return splitmix64_mix(state);
  }
};

// One case's contribution to a chunk digest. A digest is the sum (mod 2^64) of these terms over
// the chunk's cases: order-free, so a GPU can reduce it in any order, yet position-sensitive,
// because the case index is mixed in. Case indices and output codes are below 2^32.
FPCONFORM_GPU_HD inline constexpr std::uint64_t digest_term(std::uint64_t case_index,
                                                             std::uint32_t output_code) {
  return splitmix64_mix(((static_cast<std::uint64_t>(output_code) << 32) |
                         (case_index & 0xFFFFFFFFull)) +
                        0x9E3779B97F4A7C15ull);
}

}  // namespace fpconform::gpu
