#include "fp32_gemm.hpp"

#include <cmath>

#include "fpconform/core/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform::bench {

void fp32_gemm_tile_scalar(const float* a, const float* b, std::size_t k, float* c) {
  for (std::size_t r = 0; r < kTileRows; ++r)
    for (std::size_t j = 0; j < kTileCols; ++j) {
      float s = 0;
      for (std::size_t i = 0; i < k; ++i) s = std::fma(a[i * kTileRows + r], b[i * kTileCols + j], s);
      c[r * kTileCols + j] = s;
    }
}

#if defined(__x86_64__)
namespace {
__attribute__((target("avx2,fma"))) void tile_avx2(const float* a, const float* b, std::size_t k,
                                                  float* c) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
         c30 = c00, c31 = c00;
  for (std::size_t i = 0; i < k; ++i) {
    const __m256 b0 = _mm256_loadu_ps(b + i * kTileCols), b1 = _mm256_loadu_ps(b + i * kTileCols + 8);
    const float* ai = a + i * kTileRows;
    __m256 x = _mm256_broadcast_ss(ai);
    c00 = _mm256_fmadd_ps(x, b0, c00);
    c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(ai + 1);
    c10 = _mm256_fmadd_ps(x, b0, c10);
    c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(ai + 2);
    c20 = _mm256_fmadd_ps(x, b0, c20);
    c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(ai + 3);
    c30 = _mm256_fmadd_ps(x, b0, c30);
    c31 = _mm256_fmadd_ps(x, b1, c31);
  }
  _mm256_storeu_ps(c, c00);
  _mm256_storeu_ps(c + 8, c01);
  _mm256_storeu_ps(c + 16, c10);
  _mm256_storeu_ps(c + 24, c11);
  _mm256_storeu_ps(c + 32, c20);
  _mm256_storeu_ps(c + 40, c21);
  _mm256_storeu_ps(c + 48, c30);
  _mm256_storeu_ps(c + 56, c31);
}
}  // namespace

bool fp32_gemm_vectorized() { return cpu_features().avx2 && cpu_features().fma; }

void fp32_gemm_tile(const float* a, const float* b, std::size_t k, float* c) {
  // Chosen once: the timed loop calls this and nothing else.
  static const auto tile = fp32_gemm_vectorized() ? tile_avx2 : fp32_gemm_tile_scalar;
  tile(a, b, k, c);
}
#else
bool fp32_gemm_vectorized() { return false; }
void fp32_gemm_tile(const float* a, const float* b, std::size_t k, float* c) {
  fp32_gemm_tile_scalar(a, b, k, c);
}
#endif

}  // namespace fpconform::bench
