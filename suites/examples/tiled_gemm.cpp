#include "tiled_gemm.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace fpconform::examples {
namespace {
float bf16_value(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }
}  // namespace

std::vector<std::uint32_t> tiled_gemm_bf16(const TiledGemmConfig& cfg, int m, int n, int k,
                                           const std::vector<std::uint16_t>& a,
                                           const std::vector<std::uint16_t>& b,
                                           const std::vector<std::uint32_t>& c) {
  // The slices' partial results, as a GPU kernel would keep them in a workspace.
  std::vector<float> partial(static_cast<std::size_t>(cfg.split_k) * m * n, 0.0f);
  for (int s = 0; s < cfg.split_k; ++s) {
    const int k0 = static_cast<int>(static_cast<long long>(k) * s / cfg.split_k);
    const int k1 = static_cast<int>(static_cast<long long>(k) * (s + 1) / cfg.split_k);
    float* acc = partial.data() + static_cast<std::size_t>(s) * m * n;
    for (int i0 = 0; i0 < m; i0 += cfg.tile_m)
      for (int j0 = 0; j0 < n; j0 += cfg.tile_n)
        for (int kt = k0; kt < k1; kt += cfg.tile_k)  // K tiles in order: one fma chain per element
          for (int i = i0; i < std::min(m, i0 + cfg.tile_m); ++i)
            for (int j = j0; j < std::min(n, j0 + cfg.tile_n); ++j) {
              float x = acc[static_cast<std::size_t>(i) * n + j];
              for (int kk = kt; kk < std::min(k1, kt + cfg.tile_k); ++kk)
                x = std::fma(bf16_value(a[static_cast<std::size_t>(i) * k + kk]),
                             bf16_value(b[static_cast<std::size_t>(kk) * n + j]), x);
              acc[static_cast<std::size_t>(i) * n + j] = x;
            }
  }
  std::vector<std::uint32_t> d(static_cast<std::size_t>(m) * n);
  for (std::size_t e = 0; e < d.size(); ++e) {
    float x = std::bit_cast<float>(c[e]);
    for (int s = 0; s < cfg.split_k; ++s) x += partial[static_cast<std::size_t>(s) * m * n + e];
    d[e] = std::bit_cast<std::uint32_t>(x);
  }
  return d;
}

}  // namespace fpconform::examples
