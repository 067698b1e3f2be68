// The operands of a group of eight dot products as binary64 values (DecodedOperands::host64),
// for the kernel paths that compute in binary64 vector lanes (the binary16 chain, the exact
// steps): lane c reads a[c][i] and b[c][i * stride_b]; lanes past the group's n repeat its first
// dot product.
#pragma once

#include <cstddef>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform::detail {

struct Binary64Lanes {
  static constexpr int kCount = 8;
  const double* a[kCount];
  const double* b[kCount];
  std::size_t stride_b = 1;
  bool shared_a = true;  // every lane reads the same row of a (one broadcast per product)

  // The lane a group member c < n reads from; lanes past n read the first.
  static int source(int c, int n) { return c < n ? c : 0; }

  Binary64Lanes(const double* va, const std::size_t* offset_a, const double* vb,
                const std::size_t* offset_b, std::size_t stride, int n)
      : stride_b(stride) {
    for (int c = 0; c < kCount; ++c) {
      const int s = source(c, n);
      a[c] = va + offset_a[s];
      b[c] = vb + offset_b[s];
      shared_a = shared_a && offset_a[s] == offset_a[0];
    }
  }
};

#if defined(__x86_64__)
// Four lanes' operands of product i, from lane `first` on.
template <bool SharedA>
__attribute__((target("avx2"), always_inline)) inline __m256d lanes_a(const Binary64Lanes& x,
                                                                      int first, std::size_t i) {
  if constexpr (SharedA) return _mm256_broadcast_sd(x.a[0] + i);
  return _mm256_set_pd(x.a[first + 3][i], x.a[first + 2][i], x.a[first + 1][i], x.a[first][i]);
}
__attribute__((target("avx2"), always_inline)) inline __m256d lanes_b(const Binary64Lanes& x,
                                                                      int first, std::size_t i) {
  const std::size_t t = i * x.stride_b;
  return _mm256_set_pd(x.b[first + 3][t], x.b[first + 2][t], x.b[first + 1][t], x.b[first][t]);
}
#endif

}  // namespace fpconform::detail
