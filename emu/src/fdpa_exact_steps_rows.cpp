// The exact structure in steps (AMD CDNA1 after Khattak and Mikaitis: each step C = RN_24(C +
// p_1 + ... + p_L), the sum exact) as a row form: up to four rows of A (three with AVX2) against
// the consecutive columns of a row-major B (sixteen columns in two AVX-512 vectors of binary64,
// eight in two AVX2 vectors), one dot product per lane, A's value broadcast:
// FdpaKernel::dot_exact_steps_rows. Every product is exact in binary64 (exact_steps_serve).
// Groups of eight steps are first summed once each, one fma per product, and kept where MXCSR's
// inexact flag stays clear: every sum was exact, so its rounding to nearest even is the step's
// result. Elsewhere each step is summed twice, rounding downward and upward, so that the exact
// sum lies between; where both give the same normal binary32, that is the step's result. AVX-512
// rounds each fma by its own embedded rounding; AVX2 only by MXCSR, so there both sums run
// downward, the upward one negated (RU(x) = -RD(-x)). The rounding of a step's sum to binary32
// raises no flag: AVX-512 suppresses it (SAE); AVX2 rounds the binary64 bit pattern as an
// integer. A lane whose two sums part (or whose result is zero, subnormal or not finite)
// finishes from that step by FdpaKernel::dot, the model's integers.
#include <algorithm>
#include <bit>
#include <cstdint>

#include "fpconform/fdpa_kernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

#if defined(__x86_64__)
// GCC 12 warns that the "undefined" source operand inside its own avx512fintrin.h intrinsics
// may be used uninitialized (a known false positive of those headers).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define FPC_STEPS512 [[gnu::target("avx512f,avx512dq,avx512vl,avx2,fma")]] [[gnu::always_inline]]
#define FPC_STEPS256 [[gnu::target("avx2,fma")]] [[gnu::always_inline]]

constexpr unsigned kInexactFlag = 0x20;     // MXCSR's PE
constexpr unsigned kDefaultCsr = 0x1F80u;   // nearest even, exceptions masked, flags clear
constexpr unsigned kDownwardCsr = 0x3F80u;  // the same rounding downward

// Sixteen columns in two vectors of eight.
struct StepLanes512 {
  using V = __m512d;
  static constexpr int kColumns = 16, kHalf = 8, kMaxRows = 4;  // two sums: 16 accumulators
  static constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  // fpclass: NaN (quiet, signalling), +-0, +-inf, subnormal
  static constexpr int kNotNormal = 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20 | 0x80;
  FPC_STEPS512 static V load(const double* p) { return _mm512_loadu_pd(p); }
  FPC_STEPS512 static void store(double* p, V x) { _mm512_storeu_pd(p, x); }
  FPC_STEPS512 static V set1(double x) { return _mm512_set1_pd(x); }
  FPC_STEPS512 static V fma(V x, V y, V s) { return _mm512_fmadd_pd(x, y, s); }
  FPC_STEPS512 static V fma_down(V x, V y, V s) {
    return _mm512_fmadd_round_pd(x, y, s, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  }
  FPC_STEPS512 static V fma_up(V x, V y, V s) {
    return _mm512_fmadd_round_pd(x, y, s, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  }
  FPC_STEPS512 static V held_up(V x) { return x; }
  static void begin_two_sums() {}
  static void end_two_sums() {}
  // RN_24(s) as binary64; the lanes where it is not a normal binary32 set in bad from bit `at`.
  FPC_STEPS512 static V nearest(V s, unsigned& bad, int at) {
    const __m256 f = _mm512_cvt_roundpd_ps(s, kNearest);
    bad |= static_cast<unsigned>(_mm256_fpclass_ps_mask(f, kNotNormal)) << at;
    return _mm512_cvtps_pd(f);
  }
  FPC_STEPS512 static unsigned differ(V x, V y) { return _mm512_cmp_pd_mask(x, y, _CMP_NEQ_UQ); }
  // The single sum's roundings, and whether every live lane's was a normal binary32.
  struct Trial {
    unsigned bad = 0;
    // live: a vector's lanes still running, from bit 0.
    FPC_STEPS512 V nearest(V s, unsigned live) {
      unsigned lanes = 0;
      const V r = StepLanes512::nearest(s, lanes, 0);
      bad |= lanes & live;
      return r;
    }
    bool all_normal() const { return bad == 0; }
  };
};

// Eight columns in two vectors of four. The upward sum is held negated and summed downward.
struct StepLanes256 {
  using V = __m256d;
  static constexpr int kColumns = 8, kHalf = 4, kMaxRows = 3;  // two sums: 12 accumulators
  FPC_STEPS256 static V load(const double* p) { return _mm256_loadu_pd(p); }
  FPC_STEPS256 static void store(double* p, V x) { _mm256_storeu_pd(p, x); }
  FPC_STEPS256 static V set1(double x) { return _mm256_set1_pd(x); }
  FPC_STEPS256 static V fma(V x, V y, V s) { return _mm256_fmadd_pd(x, y, s); }
  FPC_STEPS256 static V fma_down(V x, V y, V s) { return _mm256_fmadd_pd(x, y, s); }
  // -RU(x y + u) = RD(-(x y) - u): the negated sum, downward.
  FPC_STEPS256 static V fma_up(V x, V y, V s) { return _mm256_fnmadd_pd(x, y, s); }
  FPC_STEPS256 static V held_up(V x) { return _mm256_xor_pd(x, _mm256_set1_pd(-0.0)); }
  [[gnu::always_inline]] static void begin_two_sums() { _mm_setcsr(kDownwardCsr); }
  [[gnu::always_inline]] static void end_two_sums() { _mm_setcsr(kDefaultCsr); }
  // RN_24(s) by the bit pattern (no flag, whatever MXCSR's mode): the 29 bits below binary32's
  // last rounded to nearest even, a carry into the exponent a binade up.
  FPC_STEPS256 static V nearest(V s, unsigned& bad, int at) {
    const V r = _mm256_castsi256_pd(rounded(_mm256_castpd_si256(s)));
    const V mag = magnitude(r);
    bad |= static_cast<unsigned>(_mm256_movemask_pd(not_normal(mag, mag))) << at;
    return r;
  }
  FPC_STEPS256 static V magnitude(V x) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x); }
  // The lanes where a magnitude lies below binary32's normal range (least) or above its largest
  // finite value (most), or is NaN.
  FPC_STEPS256 static V not_normal(V least, V most) {
    return _mm256_or_pd(_mm256_cmp_pd(least, _mm256_set1_pd(0x1p-126), _CMP_NGE_UQ),
                        _mm256_cmp_pd(most, _mm256_set1_pd(0x1.fffffep127), _CMP_NLE_UQ));
  }
  FPC_STEPS256 static unsigned differ(V x, V y) {
    return static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(x, y, _CMP_NEQ_UQ)));
  }
  // As nearest, less its check: the bit pattern rounded.
  FPC_STEPS256 static __m256i rounded(__m256i x) {
    const __m256i last = _mm256_and_si256(_mm256_srli_epi64(x, 29), _mm256_set1_epi64x(1));
    return _mm256_andnot_si256(
        _mm256_set1_epi64x(0x1FFFFFFF),
        _mm256_add_epi64(_mm256_add_epi64(x, _mm256_set1_epi64x(0x0FFFFFFF)), last));
  }
  // The single sum's roundings: their live lanes' least and greatest magnitudes, checked once
  // at the end (fewer operations per step than nearest's check).
  struct Trial {
    V least, most;
    FPC_STEPS256 Trial() : least(_mm256_set1_pd(0x1p-126)), most(least) {}
    // live: a vector's lanes still running, from bit 0.
    FPC_STEPS256 V nearest(V s, unsigned live) {
      const V r = _mm256_castsi256_pd(rounded(_mm256_castpd_si256(s)));
      V mag = magnitude(r);
      if ((live & 0xF) != 0xF) [[unlikely]] {  // a stopped lane's value: whatever it is
        const __m256i bit = _mm256_set_epi64x(8, 4, 2, 1);
        const __m256i on = _mm256_cmpeq_epi64(
            _mm256_and_si256(_mm256_set1_epi64x(live), bit), bit);
        mag = _mm256_blendv_pd(_mm256_set1_pd(0x1p-126), mag, _mm256_castsi256_pd(on));
      }
      least = _mm256_min_pd(least, mag);
      most = _mm256_max_pd(most, mag);
      return r;
    }
    FPC_STEPS256 bool all_normal() const {
      return _mm256_movemask_pd(not_normal(least, most)) == 0;
    }
  };
};

using StepsFn = void (*)(const double* const*, const double*, std::size_t, std::size_t,
                         std::size_t, int, double*, std::size_t*);

namespace avx512_steps {
#define FPC_STEPS_FN [[gnu::target("avx512f,avx512dq,avx512vl,avx2,fma")]]
#include "fdpa_exact_steps_rows.inc"
#undef FPC_STEPS_FN
}  // namespace avx512_steps
namespace avx2_steps {
#define FPC_STEPS_FN [[gnu::target("avx2,fma")]]
#include "fdpa_exact_steps_rows.inc"
#undef FPC_STEPS_FN
}  // namespace avx2_steps

constexpr int kMostRows = StepLanes512::kMaxRows;
constexpr int kMostColumns = StepLanes512::kColumns;

int max_step_rows(int width) {
  return width == 16 ? StepLanes512::kMaxRows : StepLanes256::kMaxRows;
}
StepsFn steps_fn(int width, int r, std::size_t L) {
  return width == 16 ? avx512_steps::steps_fn<StepLanes512>(r, L)
                     : avx2_steps::steps_fn<StepLanes256>(r, L);
}
#endif

}  // namespace

void FdpaKernel::dot_exact_steps_rows(const DecodedOperands& a, const double* va,
                                      const std::size_t* offset_a, const DecodedOperands& b,
                                      const double* vb, const std::size_t* offset_b,
                                      std::size_t stride_b, std::size_t k, int n,
                                      std::uint64_t* d) const {
#if defined(__x86_64__)
  const int w = exact_rows_width();
  const auto L = static_cast<std::size_t>(p_.block);
  for (int i = 0; i < n;) {
    const int m = rows_on_same_columns(offset_b, i, n);
    const double* bb = vb + offset_b[i];
    for (int done = 0; done < m;) {
      const int r = std::min(m - done, max_step_rows(w));
      const int first = i + done;
      std::uint64_t* dr = d + static_cast<std::ptrdiff_t>(first) * w;
      alignas(64) double c[kMostRows * kMostColumns];
      std::size_t stop[kMostRows * kMostColumns];
      for (int l = 0; l < r * w; ++l) {
        c[l] = std::bit_cast<float>(static_cast<std::uint32_t>(dr[l]));
        stop[l] = SIZE_MAX;
      }
      const double* rows[kMostRows];
      for (int j = 0; j < r; ++j) rows[j] = va + offset_a[first + j];
      const std::size_t whole = k / L, rest = k % L;
      steps_fn(w, r, L)(rows, bb, stride_b, 0, whole, static_cast<int>(L), c, stop);
      if (rest) steps_fn(w, r, rest)(rows, bb, stride_b, whole * L, 1, static_cast<int>(rest), c, stop);
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
