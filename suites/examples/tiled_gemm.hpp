// An example custom kernel, written the way a user writes one: a tiled GEMM on bf16 operands
// with fp32 accumulation (one FMA per product, in K order inside a slice) and split-K (K cut
// into `split_k` equal slices, each accumulated from zero, then added to C one slice after the
// other in fp32). `fpconform validate` checks its output; see README.md here.
#pragma once

#include <cstdint>
#include <vector>

namespace fpconform::examples {

struct TiledGemmConfig {
  int tile_m = 16, tile_n = 16, tile_k = 32;
  int split_k = 1;
};

// D (M x N, fp32 bits) = A (M x K, bf16 bits) . B (K x N, bf16 bits) + C (M x N, fp32 bits).
std::vector<std::uint32_t> tiled_gemm_bf16(const TiledGemmConfig& cfg, int m, int n, int k,
                                           const std::vector<std::uint16_t>& a,
                                           const std::vector<std::uint16_t>& b,
                                           const std::vector<std::uint32_t>& c);

}  // namespace fpconform::examples
