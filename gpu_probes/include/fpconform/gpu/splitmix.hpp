// The digest the GPU probes reduce results into, on core's splitmix64 (one generator for the
// runner and the CPU side, so the CPU can regenerate every input and recompute every digest).
#pragma once
#include <cstdint>

#include "fpconform/core/splitmix.hpp"

namespace fpconform::gpu {

using fpconform::splitmix64_mix;
using fpconform::SplitMix64;

// One case's contribution to a chunk digest. A digest is the sum (mod 2^64) of these terms over
// the chunk's cases: order-free, so a GPU can reduce it in any order, yet position-sensitive,
// because the case index is mixed in. Case indices and output codes are below 2^32.
FPCONFORM_HD inline constexpr std::uint64_t digest_term(std::uint64_t case_index,
                                                             std::uint32_t output_code) {
  return splitmix64_mix(((static_cast<std::uint64_t>(output_code) << 32) |
                         (case_index & 0xFFFFFFFFull)) +
                        kSplitMixGamma);
}

}  // namespace fpconform::gpu
