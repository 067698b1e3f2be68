// The native anchor for the emulated matrix units: register-blocked fp32 GEMM tiles, the rate a
// vectorized fp32 matrix multiply reaches on one core. C (rows x cols) = A (rows x K) . B (K x
// cols) with A packed k-major (a[k * rows + r]) and B packed k-major (b[k * cols + j]); every C
// element is one fp32 FMA chain over k from zero, so each vector tile and the scalar chain agree
// to the bit.
#pragma once

#include <cstddef>
#include <vector>

namespace fpconform::bench {

struct Fp32Tile {
  const char* name;  // the baseline's name in the bench line: "fp32-gemm-avx2", ...
  std::size_t rows, cols;
  void (*run)(const float* a, const float* b, std::size_t k, float* c);
};

// The vector tiles this CPU runs: AVX2 + FMA, 4 x 16 in 8 ymm accumulators; AVX-512, 8 x 32 in
// 16 zmm accumulators. Which is faster depends on the CPU (AVX-512 clocks, one or two 512-bit
// FMA ports), so the bench measures every one and takes the fastest. Empty where none runs.
std::vector<Fp32Tile> fp32_gemm_tiles();

// The same product as one scalar fma() chain per element.
void fp32_gemm_tile_scalar(const float* a, const float* b, std::size_t rows, std::size_t cols,
                           std::size_t k, float* c);

}  // namespace fpconform::bench
