#include "fp32_gemm.hpp"

#include <cmath>

#include "fpconform/core/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform::bench {

void fp32_gemm_tile_scalar(const float* a, const float* b, std::size_t rows, std::size_t cols,
                           std::size_t k, float* c) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < cols; ++j) {
      float s = 0;
      for (std::size_t i = 0; i < k; ++i) s = std::fma(a[i * rows + r], b[i * cols + j], s);
      c[r * cols + j] = s;
    }
}

#if defined(__x86_64__)
namespace {

// Two vectors of B and one broadcast of A per row and k; the accumulators stay in registers
// (the loops over rows are unrolled: R is a constant).
__attribute__((target("avx2,fma"))) void tile_avx2_4x16(const float* a, const float* b,
                                                       std::size_t k, float* c) {
  constexpr int R = 4, C = 16;
  __m256 acc[R][2];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (std::size_t i = 0; i < k; ++i) {
    const __m256 b0 = _mm256_loadu_ps(b + i * C), b1 = _mm256_loadu_ps(b + i * C + 8);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_broadcast_ss(a + i * R + r);
      acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(c + r * C, acc[r][0]);
    _mm256_storeu_ps(c + r * C + 8, acc[r][1]);
  }
}

__attribute__((target("avx512f"))) void tile_avx512_8x32(const float* a, const float* b,
                                                        std::size_t k, float* c) {
  constexpr int R = 8, C = 32;
  __m512 acc[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (std::size_t i = 0; i < k; ++i) {
    const __m512 b0 = _mm512_loadu_ps(b + i * C), b1 = _mm512_loadu_ps(b + i * C + 16);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(a[i * R + r]);
      acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(c + r * C, acc[r][0]);
    _mm512_storeu_ps(c + r * C + 16, acc[r][1]);
  }
}

}  // namespace

std::vector<Fp32Tile> fp32_gemm_tiles() {
  std::vector<Fp32Tile> tiles;
  const CpuFeatures& f = cpu_features();
  if (f.avx2 && f.fma) tiles.push_back({"fp32-gemm-avx2", 4, 16, tile_avx2_4x16});
  if (f.avx512) tiles.push_back({"fp32-gemm-avx512", 8, 32, tile_avx512_8x32});
  return tiles;
}
#else
std::vector<Fp32Tile> fp32_gemm_tiles() { return {}; }
#endif

}  // namespace fpconform::bench
