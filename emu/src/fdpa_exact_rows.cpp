// The exact structure in one step into binary32 to nearest even (the `exact` unit: the exact sum
// of C and every product, rounded once) as a row form: up to eight rows of A (four with AVX2)
// against the consecutive columns of a row-major B, one dot product per binary64 lane (sixteen
// columns in two AVX-512 vectors, eight in two AVX2 vectors), A's value broadcast, one fused
// multiply-add per product and lane: s = a b + s from s = C. FdpaKernel::dot_exact_rows.
// Every product is exact in binary64 (exact_steps_serve: the operands' precisions add to at
// most 53 bits, their exponents well inside binary64's range), so each step rounds once, by at
// most 2^-53 |s_i|, and |s_i| <= M (1 + k 2^-52) for M = |C| + sum |p|: for k <= 2^30 the exact
// sum S is within B = (k + 1) 2^-52 M of s. M is bounded by Cauchy-Schwarz, |C| + sqrt(sum a^2
// sum b^2) (the rows' and columns' sums of squares, once per dot_many), so the loop carries no
// magnitudes. f = RN_24(s) is the result when |s - f| + B is below half f's spacing (a quarter
// where f is a power of two, whose spacing below is half), for S then lies strictly inside f's
// rounding interval; or when no step rounded at all: every term is a multiple of 2^q (q: the
// least last bit of any product, and C's), so while every partial sum is below 2^(q + 53) each
// step is exact, and all are below 2 M: M <= 2^(q + 52) suffices (short operands, e4m3 say,
// often sum exactly to a halfway point). f must be a normal binary32. A lane that fails both
// with that bound tries again with M itself (one pass over its products); what still fails
// (near a rounding boundary, a zero, subnormal or overflowing result) is done by
// FdpaKernel::dot, the model's integers. Operands with NaN or inf do not come here.
// The exact structure in steps has its own row form: fdpa_exact_steps_rows.cpp.
#include <algorithm>
#include <array>
#include <climits>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "fpconform/core/cpu_features.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fdpa_host.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

// R rows of a (a[j]: row j's values) against 2 W consecutive columns of b (row-major with
// `stride`), k products; s[2 W j ..]: row j's sums, in and out. With Squares, sq[0 .. 2 W): the
// columns' sums of squares, in and out. V: W doubles.
template <class V, int R, bool Squares>
[[gnu::always_inline]] inline void exact_rows_body(const double* const* a, const double* b,
                                                   std::size_t stride, std::size_t k, double* s,
                                                   double* sq) {
  constexpr int W = sizeof(V) / sizeof(double);
  constexpr std::size_t kBytes = sizeof(V);
  // (Loads and stores by memcpy, written out: a lambda would not inherit the target.)
  V s0[R > 0 ? R : 1], s1[R > 0 ? R : 1], q0{}, q1{};
  for (int j = 0; j < R; ++j) {
    std::memcpy(&s0[j], s + 2 * W * j, kBytes);
    std::memcpy(&s1[j], s + 2 * W * j + W, kBytes);
  }
  if constexpr (Squares) {
    std::memcpy(&q0, sq, kBytes);
    std::memcpy(&q1, sq + W, kBytes);
  }
  for (std::size_t i = 0; i < k; ++i) {
    const double* bi = b + i * stride;
    V b0, b1;
    std::memcpy(&b0, bi, kBytes);
    std::memcpy(&b1, bi + W, kBytes);
    if constexpr (Squares) {
      q0 = b0 * b0 + q0;
      q1 = b1 * b1 + q1;
    }
#pragma GCC unroll 8
    for (int j = 0; j < R; ++j) {
      const V x = a[j][i] - V{};  // a broadcast (x - 0 is x, -0 too)
      s0[j] = x * b0 + s0[j];     // one rounding: the product is exact
      s1[j] = x * b1 + s1[j];
    }
  }
  for (int j = 0; j < R; ++j) {
    std::memcpy(s + 2 * W * j, &s0[j], kBytes);
    std::memcpy(s + 2 * W * j + W, &s1[j], kBytes);
  }
  if constexpr (Squares) {
    std::memcpy(sq, &q0, kBytes);
    std::memcpy(sq + W, &q1, kBytes);
  }
}

// The sum of squares of x[0 .. k), in W lanes.
template <class V>
[[gnu::always_inline]] inline double sum_squares_body(const double* x, std::size_t k) {
  constexpr int W = sizeof(V) / sizeof(double);
  V acc{};
  std::size_t i = 0;
  for (; i + W <= k; i += W) {
    V v;
    std::memcpy(&v, x + i, sizeof v);
    acc = v * v + acc;
  }
  double t = 0;
  for (int l = 0; l < W; ++l) t += acc[l];
  for (; i < k; ++i) t += x[i] * x[i];
  return t;
}

#if defined(__x86_64__)
// GCC 12 warns that the "undefined" source operand inside its own avx512fintrin.h intrinsics
// may be used uninitialized (a known false positive of those headers).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
using V8 = double __attribute__((vector_size(64)));
using V4 = double __attribute__((vector_size(32)));

template <int R, bool Squares>
[[gnu::target("avx512f,avx2,fma")]] void exact_rows_avx512(const double* const* a,
                                                           const double* b, std::size_t stride,
                                                           std::size_t k, double* s, double* sq) {
  exact_rows_body<V8, R, Squares>(a, b, stride, k, s, sq);
}
template <int R, bool Squares>
[[gnu::target("avx2,fma")]] void exact_rows_avx2(const double* const* a, const double* b,
                                                 std::size_t stride, std::size_t k, double* s,
                                                 double* sq) {
  exact_rows_body<V4, R, Squares>(a, b, stride, k, s, sq);
}
[[gnu::target("avx512f,avx2,fma")]] double sum_squares_avx512(const double* x, std::size_t k) {
  return sum_squares_body<V8>(x, k);
}
[[gnu::target("avx2,fma")]] double sum_squares_avx2(const double* x, std::size_t k) {
  return sum_squares_body<V4>(x, k);
}

using RowsFn = void (*)(const double* const*, const double*, std::size_t, std::size_t, double*,
                        double*);

// The most rows at once: two accumulators per row, of AVX-512's 32 registers or AVX2's 16.
int max_rows(int width) { return width == 16 ? 8 : 4; }

RowsFn rows_fn(int width, int r) {
  if (width == 16) {
    constexpr RowsFn fns[] = {exact_rows_avx512<0, true>, exact_rows_avx512<1, false>,
                              exact_rows_avx512<2, false>, exact_rows_avx512<3, false>,
                              exact_rows_avx512<4, false>, exact_rows_avx512<5, false>,
                              exact_rows_avx512<6, false>, exact_rows_avx512<7, false>,
                              exact_rows_avx512<8, false>};
    return fns[r];
  }
  constexpr RowsFn fns[] = {exact_rows_avx2<0, true>, exact_rows_avx2<1, false>,
                            exact_rows_avx2<2, false>, exact_rows_avx2<3, false>,
                            exact_rows_avx2<4, false>};
  return fns[r];
}
double sum_squares(int width, const double* x, std::size_t k) {
  return width == 16 ? sum_squares_avx512(x, k) : sum_squares_avx2(x, k);
}
#else
int max_rows(int) { return 1; }
#endif

// f = RN_24(s) is a normal binary32 and the rounding of the exact sum: s is that sum
// (`exact`), or f is the rounding of every value within `bound` of s.
bool decided(double s, double bound, bool exact, float f) {
  const double fd = f;
  const double mag = std::fabs(fd);
  if (!(mag >= 0x1p-126 && mag <= 0x1.fffffep127)) return false;
  if (exact) return true;
  int e;
  const double frac = std::frexp(mag, &e);  // mag = frac 2^e, frac in [1/2, 1)
  const double half = std::ldexp(1.0, frac == 0.5 ? e - 26 : e - 25);
  return std::fabs(s - fd) + bound < half;
}

}  // namespace

int FdpaKernel::exact_rows_width() {
#if defined(__x86_64__)
  if (avx512_dispatch()) return 16;
  if (!portable_dispatch() && cpu_features().avx2 && cpu_features().fma) return 8;
#endif
  return 0;
}

void FdpaKernel::dot_exact_rows(const DecodedOperands& a, const double* va,
                                const std::size_t* offset_a, const DecodedOperands& b,
                                const double* vb, const std::size_t* offset_b,
                                std::size_t stride_b, std::size_t k, int n, std::uint64_t* d,
                                ExactRowsNorms& norms) const {
#if defined(__x86_64__)
  const int w = exact_rows_width();
  const double scale = static_cast<double>(k + 1) * 0x1p-52;
  // The least last bit of any nonzero product (LLONG_MAX: every product is zero).
  const long long least = product_bounds(a, b).least;
  const auto row_squares = [&](std::size_t oa) {
    const auto [it, added] = norms.rows.try_emplace(oa, 0.0);
    if (added) it->second = sum_squares(w, va + oa, k);
    return it->second;
  };
  for (int i = 0; i < n;) {
    const int m = rows_on_same_columns(offset_b, i, n);
    const double* bb = vb + offset_b[i];
    auto [col, added] = norms.columns.try_emplace(offset_b[i]);
    if (added) {
      col->second.fill(0.0);
      rows_fn(w, 0)(nullptr, bb, stride_b, k, nullptr, col->second.data());
    }
    const std::array<double, 16>& col_squares = col->second;
    for (int done = 0; done < m;) {
      const int r = std::min(m - done, max_rows(w));
      const int first = i + done;
      std::uint64_t* dr = d + static_cast<std::ptrdiff_t>(first) * w;
      alignas(64) double s[8 * 16];
      for (int l = 0; l < r * w; ++l)
        s[l] = std::bit_cast<float>(static_cast<std::uint32_t>(dr[l]));
      const double* rows[8];
      for (int j = 0; j < r; ++j) rows[j] = va + offset_a[first + j];
      rows_fn(w, r)(rows, bb, stride_b, k, s, nullptr);
      for (int j = 0; j < r; ++j) {
        const std::size_t oa = offset_a[first + j];
        const double a_squares = row_squares(oa);
        for (int l = 0; l < w; ++l) {
          std::uint64_t& x = dr[j * w + l];
          const auto c = static_cast<std::uint32_t>(x);
          const double c_mag = std::fabs(static_cast<double>(std::bit_cast<float>(c)));
          const double sum = s[j * w + l];
          const auto f = static_cast<float>(sum);  // nearest even: dot_many holds MXCSR so
          // |C| + sum |p| by Cauchy-Schwarz, with room for the sums' own roundings.
          const double mag = c_mag + std::sqrt(a_squares * col_squares[l]) * (1 + 0x1p-20);
          const int c_field = static_cast<int>(c >> 23 & 0xFF);
          const long long q = (c & 0x7FFFFFFF) == 0
                                  ? least
                                  : std::min<long long>(least, std::max(c_field, 1) - 150);
          const double exact_below =
              q == LLONG_MAX || q + 52 >= 1024 || q + 52 <= -1022
                  ? 0.0
                  : std::ldexp(1.0, static_cast<int>(q + 52));
          if (decided(sum, mag * scale, mag <= exact_below, f)) {
            x = std::bit_cast<std::uint32_t>(f);
            continue;
          }
          // Near a boundary by that bound: |C| + sum |p| itself, then the model's integers.
          const double* row = va + oa;
          const double* column = bb + l;
          double t[4] = {c_mag, 0, 0, 0};
          std::size_t t_i = 0;
          for (; t_i + 4 <= k; t_i += 4)
            for (int u = 0; u < 4; ++u)
              t[u] += std::fabs(row[t_i + u] * column[(t_i + u) * stride_b]);
          for (; t_i < k; ++t_i) t[0] += std::fabs(row[t_i] * column[t_i * stride_b]);
          const double tight = (t[0] + t[1]) + (t[2] + t[3]);
          x = decided(sum, tight * scale, tight <= exact_below, f)
                  ? std::bit_cast<std::uint32_t>(f)
                  : dot(a, oa, b, offset_b[first] + static_cast<std::size_t>(l), stride_b, k, x);
        }
      }
      done += r;
    }
    i += m;
  }
#else
  (void)a, (void)va, (void)offset_a, (void)b, (void)vb, (void)offset_b, (void)stride_b, (void)k,
      (void)n, (void)d, (void)norms;
#endif
}

}  // namespace fpconform
