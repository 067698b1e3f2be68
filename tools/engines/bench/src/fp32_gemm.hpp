// The native anchor for the emulated matrix units: a register-blocked fp32 GEMM tile, the rate a
// vectorized fp32 matrix multiply reaches on one core. C (4 x 16) = A (4 x K) . B (K x 16) with A
// packed k-major (a[k * 4 + r]) and B packed k-major (b[k * 16 + j]); every C element is one fp32
// FMA chain over k from zero, so the vector and the scalar versions agree to the bit.
#pragma once

#include <cstddef>

namespace fpconform::bench {

inline constexpr std::size_t kTileRows = 4, kTileCols = 16;

// AVX2 + FMA: 8 ymm accumulators, two loads of B and four broadcasts of A per k. Elsewhere the
// scalar chain (fp32_gemm_vectorized() says which).
void fp32_gemm_tile(const float* a, const float* b, std::size_t k, float* c);
void fp32_gemm_tile_scalar(const float* a, const float* b, std::size_t k, float* c);
bool fp32_gemm_vectorized();

}  // namespace fpconform::bench
