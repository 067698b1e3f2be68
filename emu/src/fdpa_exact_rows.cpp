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
// The exact structure in steps (AMD CDNA1 after Khattak and Mikaitis: each step C = RN_24(C +
// p_1 + ... + p_L)) has a row form on AVX-512 too: each step summed twice, rounding downward
// and upward (embedded rounding), so that the exact sum lies between; where both give the same
// normal binary32, that is the step's result (exact_steps_rows_avx512). A lane where they part
// finishes from that step by FdpaKernel::dot. Before that, groups of steps are tried as one sum
// each, kept where MXCSR's inexact flag stays clear (every fma exact: most steps of short
// operands), at half the fmas (exact_steps_at_once).
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
// fpclass: NaN (quiet, signalling), +-0, +-inf, subnormal
constexpr int kNotNormal = 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20 | 0x80;
constexpr unsigned kInexactFlag = 0x20;  // MXCSR's PE

// A step's products from i on: update(x, y0, y1, j) for each, x row j's value broadcast, y0 and
// y1 b's row over the sixteen columns.
template <int R, class Update>
[[gnu::target("avx512f,avx512dq,avx512vl,avx2,fma")]] [[gnu::always_inline]] inline void
step_products(const double* const* a, const double* b, std::size_t stride, std::size_t i, int L,
              Update& update) {
  for (int t = 0; t < L; ++t) {
    const __m512d y0 = _mm512_loadu_pd(b + (i + t) * stride);
    const __m512d y1 = _mm512_loadu_pd(b + (i + t) * stride + 8);
#pragma GCC unroll 4
    for (int j = 0; j < R; ++j) update(_mm512_set1_pd(a[j][i + t]), y0, y1, j);
  }
}

// One sum per row (s0, s1: its two halves), rounded by MXCSR.
template <int R>
struct OneSum {
  __m512d s0[R], s1[R];
  [[gnu::target("avx512f,avx512dq,avx512vl,avx2,fma")]] [[gnu::always_inline]] void operator()(
      __m512d x, __m512d y0, __m512d y1, int j) {
    s0[j] = _mm512_fmadd_pd(x, y0, s0[j]);
    s1[j] = _mm512_fmadd_pd(x, y1, s1[j]);
  }
};

// Two sums per row, rounded downward (d) and upward (u).
template <int R>
struct TwoSums {
  __m512d d0[R], d1[R], u0[R], u1[R];
  [[gnu::target("avx512f,avx512dq,avx512vl,avx2,fma")]] [[gnu::always_inline]] void operator()(
      __m512d x, __m512d y0, __m512d y1, int j) {
    constexpr int kDown = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    constexpr int kUp = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
    d0[j] = _mm512_fmadd_round_pd(x, y0, d0[j], kDown);
    u0[j] = _mm512_fmadd_round_pd(x, y0, u0[j], kUp);
    d1[j] = _mm512_fmadd_round_pd(x, y1, d1[j], kDown);
    u1[j] = _mm512_fmadd_round_pd(x, y1, u1[j], kUp);
  }
};

// `steps` steps from i on, each summed once (fmas rounded by MXCSR, which is IEEE's default
// here: fdpa_host.hpp's DefaultHostFpMode), taken only where no fma was inexact (MXCSR's flag)
// and every live lane's step result is a normal binary32: then each sum is the exact sum, and
// one conversion its rounding, as where exact_steps_rows_avx512's two sums agree. Most steps of
// short operands sum exactly in binary64 (a step of four f16 products and a binary32 C spans
// far fewer than 53 bits unless the operands' magnitudes do), at half the fmas of two sums.
template <int R, int FixedL>
[[gnu::target("avx512f,avx512dq,avx512vl,avx2,fma")]] [[gnu::always_inline]] inline bool
exact_steps_at_once(const double* const* a, const double* b, std::size_t stride, std::size_t i,
                    std::size_t steps, int L, __m512d* c0, __m512d* c1, const __mmask16* live) {
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  OneSum<R> sum;
  __m512d* s0 = sum.s0;
  __m512d* s1 = sum.s1;
  for (int j = 0; j < R; ++j) s0[j] = c0[j], s1[j] = c1[j];
  _mm_setcsr(0x1F80u);  // the default mode, its flags cleared
  // The fmas after the flags' clearing and before their reading (GCC does not order
  // floating-point operations against MXCSR's builtins).
  for (int j = 0; j < R; ++j) asm volatile("" : "+v"(s0[j]), "+v"(s1[j]));
  unsigned bad = 0;
  for (std::size_t step = 0; step < steps; ++step, i += static_cast<std::size_t>(L)) {
    step_products<R>(a, b, stride, i, L, sum);
#pragma GCC unroll 4
    for (int j = 0; j < R; ++j) {  // conversions with exceptions suppressed: no flag of theirs
      const __m256 f0 = _mm512_cvt_roundpd_ps(s0[j], kNearest);
      const __m256 f1 = _mm512_cvt_roundpd_ps(s1[j], kNearest);
      bad |= static_cast<unsigned>(_mm256_fpclass_ps_mask(f0, kNotNormal) |
                                   _mm256_fpclass_ps_mask(f1, kNotNormal) << 8) &
             live[j];
      s0[j] = _mm512_cvtps_pd(f0);
      s1[j] = _mm512_cvtps_pd(f1);
    }
  }
  for (int j = 0; j < R; ++j) asm volatile("" : "+v"(s0[j]), "+v"(s1[j]));
  const unsigned flags = _mm_getcsr();
  if (bad != 0 || (flags & kInexactFlag) != 0) return false;
  for (int j = 0; j < R; ++j) c0[j] = s0[j], c1[j] = s1[j];
  return true;
}

// Steps of L products (the exact structure's blocks) for R rows against 16 columns: from
// product i0 on, `steps` steps; c (16 R lanes, binary32 values): C in, results out. Each step
// sums C and its products in binary64 twice, every fma rounded downward in one sum and upward
// in the other, so that the exact sum lies between them; where both round to the same normal
// binary32 (nearest even), that is the step's result (where the two sums are one value, that
// is the exact sum: one conversion decides). A lane where they differ (or where that
// binary32 is zero, subnormal, inf or NaN) stops: stop[lane] is the product its failing step
// begins at and c[lane] the C it began from; the caller finishes it. stop: in, k for a lane
// still running. Groups of steps are first tried as one sum each (exact_steps_at_once).
// FixedL: L known when compiled (0: the argument).
template <int R, int FixedL>
[[gnu::target("avx512f,avx512dq,avx512vl,avx2,fma")]] void exact_steps_rows_avx512(
    const double* const* a, const double* b, std::size_t stride, std::size_t i0,
    std::size_t steps, int step_length, double* c, std::size_t* stop) {
  const int L = FixedL > 0 ? FixedL : step_length;
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  __m512d c0[R], c1[R];
  __mmask16 live[R];
  for (int j = 0; j < R; ++j) {
    c0[j] = _mm512_loadu_pd(c + 16 * j);
    c1[j] = _mm512_loadu_pd(c + 16 * j + 8);
    live[j] = 0;
    for (int l = 0; l < 16; ++l)
      live[j] |= static_cast<__mmask16>(stop[16 * j + l] == SIZE_MAX) << l;
  }
  // Trials of the single sum, kAtOnce steps each; after a failed one the two sums take its
  // steps and, where trials keep failing, up to 64 times as many before the next.
  constexpr std::size_t kAtOnce = 8;
  std::size_t two_sums_to = 0, backoff = 1;
  for (std::size_t step = 0; step < steps; ++step) {
    const std::size_t i = i0 + step * static_cast<std::size_t>(L);
    if (step >= two_sums_to) {
      const std::size_t n = std::min(kAtOnce, steps - step);
      if (exact_steps_at_once<R, FixedL>(a, b, stride, i, n, L, c0, c1, live)) {
        step += n - 1;
        backoff = 1;
        continue;
      }
      two_sums_to = step + n * backoff;
      backoff = std::min<std::size_t>(backoff * 2, 64);
    }
    TwoSums<R> sums;
    __m512d *d0 = sums.d0, *d1 = sums.d1, *u0 = sums.u0, *u1 = sums.u1;
    for (int j = 0; j < R; ++j) d0[j] = u0[j] = c0[j], d1[j] = u1[j] = c1[j];
    step_products<R>(a, b, stride, i, L, sums);
#pragma GCC unroll 4
    for (int j = 0; j < R; ++j) {
      const __m256 fd0 = _mm512_cvt_roundpd_ps(d0[j], kNearest);
      const __m256 fd1 = _mm512_cvt_roundpd_ps(d1[j], kNearest);
      __mmask16 bad = static_cast<__mmask16>(_mm256_fpclass_ps_mask(fd0, kNotNormal) |
                                             _mm256_fpclass_ps_mask(fd1, kNotNormal) << 8);
      // Where the two sums are one value, no step rounded: that is the exact sum. Elsewhere
      // both must round alike.
      if (_mm512_cmp_pd_mask(d0[j], u0[j], _CMP_NEQ_UQ) |
          _mm512_cmp_pd_mask(d1[j], u1[j], _CMP_NEQ_UQ)) {
        const __m256 fu0 = _mm512_cvt_roundpd_ps(u0[j], kNearest);
        const __m256 fu1 = _mm512_cvt_roundpd_ps(u1[j], kNearest);
        bad |= static_cast<__mmask16>(_mm256_cmp_ps_mask(fd0, fu0, _CMP_NEQ_UQ) |
                                      _mm256_cmp_ps_mask(fd1, fu1, _CMP_NEQ_UQ) << 8);
      }
      if (bad & live[j]) [[unlikely]] {
        alignas(64) double before[16];
        _mm512_store_pd(before, c0[j]);
        _mm512_store_pd(before + 8, c1[j]);
        for (int l = 0; l < 16; ++l)
          if ((bad & live[j]) >> l & 1) {
            stop[16 * j + l] = i;
            c[16 * j + l] = before[l];
          }
        live[j] &= static_cast<__mmask16>(~bad);
      }
      c0[j] = _mm512_cvtps_pd(fd0);
      c1[j] = _mm512_cvtps_pd(fd1);
    }
  }
  for (int j = 0; j < R; ++j) {
    alignas(64) double after[16];
    _mm512_store_pd(after, c0[j]);
    _mm512_store_pd(after + 8, c1[j]);
    for (int l = 0; l < 16; ++l)
      if (live[j] >> l & 1) c[16 * j + l] = after[l];
  }
}

using StepsFn = void (*)(const double* const*, const double*, std::size_t, std::size_t,
                         std::size_t, int, double*, std::size_t*);
constexpr int kMaxStepRows = 4;  // four accumulators per row
template <int FixedL>
StepsFn steps_fn_of(int r) {
  constexpr StepsFn fns[] = {
      exact_steps_rows_avx512<1, FixedL>, exact_steps_rows_avx512<2, FixedL>,
      exact_steps_rows_avx512<3, FixedL>, exact_steps_rows_avx512<4, FixedL>};
  return fns[r - 1];
}
// Steps of two and four products (bf16 and f16 on CDNA1) with their loop unrolled.
StepsFn steps_fn(int r, std::size_t L) {
  return L == 4 ? steps_fn_of<4>(r) : L == 2 ? steps_fn_of<2>(r) : steps_fn_of<0>(r);
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

void FdpaKernel::dot_exact_steps_rows(const DecodedOperands& a, const double* va,
                                      const std::size_t* offset_a, const DecodedOperands& b,
                                      const double* vb, const std::size_t* offset_b,
                                      std::size_t stride_b, std::size_t k, int n,
                                      std::uint64_t* d) const {
#if defined(__x86_64__)
  constexpr int w = 16;
  const auto L = static_cast<std::size_t>(p_.block);
  for (int i = 0; i < n;) {
    const int m = rows_on_same_columns(offset_b, i, n);
    const double* bb = vb + offset_b[i];
    for (int done = 0; done < m;) {
      const int r = std::min(m - done, kMaxStepRows);
      const int first = i + done;
      std::uint64_t* dr = d + static_cast<std::ptrdiff_t>(first) * w;
      double c[kMaxStepRows * w];
      std::size_t stop[kMaxStepRows * w];
      for (int l = 0; l < r * w; ++l) {
        c[l] = std::bit_cast<float>(static_cast<std::uint32_t>(dr[l]));
        stop[l] = SIZE_MAX;
      }
      const double* rows[kMaxStepRows];
      for (int j = 0; j < r; ++j) rows[j] = va + offset_a[first + j];
      const std::size_t whole = k / L, rest = k % L;
      steps_fn(r, L)(rows, bb, stride_b, 0, whole, static_cast<int>(L), c, stop);
      if (rest) steps_fn(r, rest)(rows, bb, stride_b, whole * L, 1, static_cast<int>(rest), c, stop);
      for (int j = 0; j < r; ++j)
        for (int l = 0; l < w; ++l) {
          std::uint64_t& x = dr[j * w + l];
          const auto f = static_cast<float>(c[j * w + l]);  // a binary32 value: exact
          const std::size_t s = stop[j * w + l];
          // A lane that stopped: from the step it stopped at, by the model's integers.
          x = s == SIZE_MAX ? std::bit_cast<std::uint32_t>(f)
                            : dot(a, offset_a[first + j] + s, b,
                                  offset_b[first] + static_cast<std::size_t>(l) + s * stride_b,
                                  stride_b, k - s, std::bit_cast<std::uint32_t>(f));
        }
      done += r;
    }
    i += m;
  }
#else
  (void)a, (void)va, (void)offset_a, (void)b, (void)vb, (void)offset_b, (void)stride_b, (void)k,
      (void)n, (void)d;
#endif
}

}  // namespace fpconform
