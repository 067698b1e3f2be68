// The exact structure into binary32 rounded to nearest even, in steps of a few products (AMD
// CDNA1 after Khattak and Mikaitis: each step D = RN_24(C + p_1 + ... + p_L), the sum exact) or
// in one (the `exact` unit): FdpaKernel::dot_exact_steps, eight dot products in AVX2 lanes.
// Products are exact in binary64 (their significands fit 53 bits, their exponents its normal
// range). A step sums them by a pairwise tree and adds C last, in binary64; each addition's
// error is at most 2^-53 of its exact value, so the sum s is within E = 2^-52 * (the sum of
// |every addition's result|) of the exact sum. f = RN_24(s) (vcvtpd2ps; the kernel holds MXCSR
// at its default) is the step's result when |s - f| + E < ulp(f) / 2 (ulp(f) / 4 where f is a
// power of two: the spacing below it is half), for the exact sum then lies strictly inside f's
// rounding interval; or, where that fails, when no addition rounded (their TwoSum errors are
// zero: s is the exact sum). A step outside both, or whose result is zero, subnormal or not
// finite, is done for that lane by exact_block (the exact sum in integers, the model's
// rounding); a lane whose result is NaN or inf finishes there. The single step
// (exact_sum_lanes) keeps a running sum and its errors instead of a tree; a lane it cannot
// decide is summed again in integers.
#include <algorithm>
#include <bit>
#include <vector>

#include "fpconform/core/cpu_features.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "binary64_lanes.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

using detail::Binary64Lanes;
#if defined(__x86_64__)
using detail::lanes_a;
using detail::lanes_b;
#endif
constexpr int kLanes = Binary64Lanes::kCount;

#if defined(__x86_64__)
#define FPC_STEPS_AVX2 __attribute__((target("avx2"), always_inline)) inline

FPC_STEPS_AVX2 __m256d magnitude(__m256d x) {
  return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
}

// The rounding error of s = x + y, exactly (TwoSum, Knuth): x + y = s + error.
FPC_STEPS_AVX2 __m256d two_sum_error(__m256d x, __m256d y, __m256d s) {
  const __m256d yy = _mm256_sub_pd(s, x);
  return _mm256_add_pd(_mm256_sub_pd(x, _mm256_sub_pd(s, yy)), _mm256_sub_pd(y, yy));
}
FPC_STEPS_AVX2 __m256d rounded(__m256d x, __m256d y, __m256d s) {  // lanes where it is not 0
  return _mm256_cmp_pd(two_sum_error(x, y, s), _mm256_setzero_pd(), _CMP_NEQ_UQ);
}

// The sum of L terms by a pairwise tree; adds |each addition's result| to bound.
template <int L>
FPC_STEPS_AVX2 __m256d pairwise(const __m256d* t, __m256d& bound) {
  if constexpr (L == 1) {
    return t[0];
  } else {
    const __m256d s = _mm256_add_pd(pairwise<L / 2>(t, bound), pairwise<L / 2>(t + L / 2, bound));
    bound = _mm256_add_pd(bound, magnitude(s));
    return s;
  }
}

// The same tree, setting in inexact the lanes where an addition rounded.
template <int L>
FPC_STEPS_AVX2 __m256d pairwise_exactly(const __m256d* t, __m256d& inexact) {
  if constexpr (L == 1) {
    return t[0];
  } else {
    const __m256d x = pairwise_exactly<L / 2>(t, inexact);
    const __m256d y = pairwise_exactly<L / 2>(t + L / 2, inexact);
    const __m256d s = _mm256_add_pd(x, y);
    inexact = _mm256_or_pd(inexact, rounded(x, y, s));
    return s;
  }
}

// Lanes where f = RN_24(s) is also the rounding of every value within `bound` of s: |s - f| +
// bound is below half f's spacing (a quarter where f is a power of two: the spacing below it
// halves).
FPC_STEPS_AVX2 __m256d rounds_alike(__m256d s, __m256d f, __m256d bound) {
  const __m256d mag = magnitude(f);
  const __m256d pow2 = _mm256_castsi256_pd(_mm256_cmpeq_epi64(
      _mm256_and_si256(_mm256_castpd_si256(mag), _mm256_set1_epi64x(0x000FFFFFFFFFFFFF)),
      _mm256_setzero_si256()));
  const __m256d half = _mm256_mul_pd(
      _mm256_and_pd(mag, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FF0000000000000))),
      _mm256_blendv_pd(_mm256_set1_pd(0x1p-24), _mm256_set1_pd(0x1p-25), pow2));
  return _mm256_cmp_pd(_mm256_add_pd(magnitude(_mm256_sub_pd(s, f)), bound), half, _CMP_LT_OQ);
}

// Lanes where f is a normal binary32 value (not zero, subnormal or infinite).
FPC_STEPS_AVX2 __m256d normal_f32(__m256d f) {
  const __m256d mag = magnitude(f);
  return _mm256_and_pd(_mm256_cmp_pd(mag, _mm256_set1_pd(0x1p-126), _CMP_GE_OQ),
                       _mm256_cmp_pd(mag, _mm256_set1_pd(0x1p128), _CMP_LT_OQ));
}

// One step of four lanes from product i on: c becomes RN_24 of the exact sum where the bound
// allows; returns the lanes it could not decide (bits 0..3).
template <int L, bool SharedA>
FPC_STEPS_AVX2 int step4(const Binary64Lanes& x, int first, std::size_t i, __m256d& c) {
  __m256d p[L];
  for (int j = 0; j < L; ++j)
    p[j] = _mm256_mul_pd(lanes_a<SharedA>(x, first, i + j), lanes_b(x, first, i + j));
  __m256d bound = _mm256_setzero_pd();
  const __m256d s = _mm256_add_pd(pairwise<L>(p, bound), c);
  bound = _mm256_mul_pd(_mm256_add_pd(bound, magnitude(s)), _mm256_set1_pd(0x1p-52));
  const __m256d f = _mm256_cvtps_pd(_mm256_cvtpd_ps(s));
  const __m256d normal = normal_f32(f);
  const __m256d inside = rounds_alike(s, f, bound);
  const __m256d c_in = c;
  c = f;
  const int undecided = _mm256_movemask_pd(_mm256_and_pd(inside, normal)) ^ 0xF;
  if (!undecided) return 0;
  // Near a rounding boundary (often exactly on one: short products leave exact ties): where no
  // addition rounded, s is the exact sum and f its rounding.
  __m256d inexact = _mm256_setzero_pd();
  const __m256d ps = pairwise_exactly<L>(p, inexact);
  inexact = _mm256_or_pd(inexact, rounded(ps, c_in, s));
  return undecided & (_mm256_movemask_pd(_mm256_andnot_pd(inexact, normal)) ^ 0xF);
}

inline double f32_value(std::uint64_t code) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(code)));
}
inline std::uint64_t f32_code(double v) {
  return std::bit_cast<std::uint32_t>(static_cast<float>(v));  // exact: v holds a binary32 value
}

// `steps` steps of the eight lanes; d: the C codes in, the results out; stop[c]: the steps lane
// c did (fewer where it met NaN or inf: d[c] is then the code it met). exact(c, j, code) is step
// j of lane c from C = code, by the model's integers.
template <int L, bool SharedA, class Exact>
__attribute__((target("avx2"))) void exact_steps_lanes(const Binary64Lanes& x, std::size_t steps,
                                                       std::uint64_t* d, std::size_t* stop,
                                                       Exact&& exact) {
  alignas(32) double v[kLanes];
  unsigned live = 0;
  for (int c = 0; c < kLanes; ++c) {
    const bool finite = ((d[c] >> 23) & 0xFF) != 0xFF;
    v[c] = finite ? f32_value(d[c]) : 0.0;
    stop[c] = finite ? steps : 0;
    live |= static_cast<unsigned>(finite) << c;
  }
  __m256d c0 = _mm256_load_pd(v), c1 = _mm256_load_pd(v + 4);
  for (std::size_t j = 0; j < steps; ++j) {
    const std::size_t i = j * L;
    const __m256d old0 = c0, old1 = c1;
    const unsigned bad = (static_cast<unsigned>(step4<L, SharedA>(x, 0, i, c0)) |
                          static_cast<unsigned>(step4<L, SharedA>(x, 4, i, c1)) << 4) &
                         live;
    if (!bad) continue;
    // The lanes the bound could not decide: this step exactly, from the step's C.
    alignas(32) double o[kLanes], r[kLanes];
    _mm256_store_pd(o, old0);
    _mm256_store_pd(o + 4, old1);
    _mm256_store_pd(r, c0);
    _mm256_store_pd(r + 4, c1);
    for (int c = 0; c < kLanes; ++c) {
      if (!(bad >> c & 1)) continue;
      const std::uint64_t e = exact(c, j, f32_code(o[c]));
      if (((e >> 23) & 0xFF) == 0xFF) {  // NaN or inf: the rest of this lane from here
        d[c] = e;
        stop[c] = j + 1;
        live &= ~(1u << c);
        r[c] = 0.0;
      } else {
        r[c] = f32_value(e);
      }
    }
    c0 = _mm256_load_pd(r);
    c1 = _mm256_load_pd(r + 4);
  }
  _mm256_store_pd(v, c0);
  _mm256_store_pd(v + 4, c1);
  for (int c = 0; c < kLanes; ++c)
    if (live >> c & 1) d[c] = f32_code(v[c]);
}

// The exact sum of all k products and C, rounded once (the exact structure without steps): a
// running binary64 sum s whose every rounding error is kept (TwoSum), so that the exact sum is
// s plus the errors; e is their sum in binary64 and m the sum of their magnitudes. With
// k + 1 <= 2^40 additions, e is within (k + 1) 2^-52 m of the errors' exact sum (twice the
// usual bound: m may itself fall short), and the result r = s + e within 2^-52 |r| more. Returns
// the lanes decided (d[c] their result): r's rounding holds over that bound, or no error at all
// (m = 0: s is the exact sum), with a normal binary32 result. The other d are unchanged.
template <bool SharedA>
__attribute__((target("avx2"))) unsigned exact_sum_lanes(const Binary64Lanes& x, std::size_t k,
                                                         std::uint64_t* d) {
  alignas(32) double v[kLanes];
  unsigned finite = 0;
  for (int c = 0; c < kLanes; ++c) {
    const bool ok = ((d[c] >> 23) & 0xFF) != 0xFF;
    v[c] = ok ? f32_value(d[c]) : 0.0;
    finite |= static_cast<unsigned>(ok) << c;
  }
  __m256d s[2] = {_mm256_load_pd(v), _mm256_load_pd(v + 4)};
  __m256d e[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  __m256d m[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  for (std::size_t i = 0; i < k; ++i)
    for (int h = 0; h < 2; ++h) {
      const __m256d p = _mm256_mul_pd(lanes_a<SharedA>(x, 4 * h, i), lanes_b(x, 4 * h, i));
      const __m256d t = _mm256_add_pd(s[h], p);
      const __m256d err = two_sum_error(s[h], p, t);
      s[h] = t;
      e[h] = _mm256_add_pd(e[h], err);
      m[h] = _mm256_add_pd(m[h], magnitude(err));
    }
  unsigned decided = 0;
  const __m256d spread = _mm256_set1_pd(static_cast<double>(k + 1) * 0x1p-51);
  for (int h = 0; h < 2; ++h) {
    const __m256d r = _mm256_add_pd(s[h], e[h]);
    const __m256d bound = _mm256_add_pd(_mm256_mul_pd(magnitude(r), _mm256_set1_pd(0x1p-52)),
                                        _mm256_mul_pd(m[h], spread));
    const __m256d f = _mm256_cvtps_pd(_mm256_cvtpd_ps(r));
    const __m256d exact = _mm256_cmp_pd(m[h], _mm256_setzero_pd(), _CMP_EQ_OQ);
    const __m256d ok = _mm256_and_pd(_mm256_or_pd(rounds_alike(r, f, bound), exact), normal_f32(f));
    _mm256_store_pd(v + 4 * h, f);
    decided |= static_cast<unsigned>(_mm256_movemask_pd(ok)) << (4 * h);
  }
  decided &= finite;
  for (int c = 0; c < kLanes; ++c)
    if (decided >> c & 1) d[c] = f32_code(v[c]);
  return decided;
}
#endif

}  // namespace

bool FdpaKernel::exact_steps_serve(const FdpaParams& p, const FdpaFormats& f) {
  const auto in_binary64 = [](const Format& x) {
    return x.emin() - x.man_bits >= -500 && x.emax() <= 500;
  };
  return p.structure == FdpaStructure::exact &&
         (p.block == 0 || p.block == 1 || p.block == 2 || p.block == 4 || p.block == 8) &&
         f.a.precision() + f.b.precision() <= 53 && in_binary64(f.a) && in_binary64(f.b);
}

void FdpaKernel::dot_exact_steps(const DecodedOperands& a, const std::size_t* offset_a,
                                 const DecodedOperands& b, const std::size_t* offset_b,
                                 std::size_t stride_b, const std::int32_t* const* sb,
                                 const std::int32_t* const* eb, std::size_t k, std::uint64_t* d,
                                 int n) const {
  const auto L = static_cast<std::size_t>(p_.block);
  std::size_t done[kLanes] = {};  // products done per lane
#if defined(__x86_64__)
  if (!portable_dispatch() && cpu_features().avx2) {
    LineVector<double> ra, rb;  // operands decoded without these values
    const double* va = binary64_values(a, Operand::a, ra);
    const double* vb = binary64_values(b, Operand::b, rb);
    const Binary64Lanes x(va, offset_a, vb, offset_b, stride_b, n);
    std::uint64_t lane_d[kLanes];
    const std::int32_t* lane_sb[kLanes];
    const std::int32_t* lane_eb[kLanes];
    std::size_t lane_oa[kLanes], lane_ob[kLanes];
    for (int c = 0; c < kLanes; ++c) {
      const int src = Binary64Lanes::source(c, n);
      lane_oa[c] = offset_a[src];
      lane_ob[c] = offset_b[src];
      lane_sb[c] = sb[src];
      lane_eb[c] = eb[src];
      lane_d[c] = d[src];
    }
    if (L == 0) {
      const unsigned decided = x.shared_a ? exact_sum_lanes<true>(x, k, lane_d)
                                          : exact_sum_lanes<false>(x, k, lane_d);
      for (int c = 0; c < kLanes; ++c) done[c] = (decided >> c & 1) ? k : 0;
    } else {
      const std::size_t steps = k / L;
      const auto exact = [&](int c, std::size_t j, std::uint64_t code) {
        const std::size_t i = j * L, ia = lane_oa[c] + i;
        return exact_block(a.sig.data() + ia, a.lead.data() + ia, lane_sb[c] + i,
                           lane_eb[c] + i, L, code, a.codes.data() + ia,
                           b.codes.data() + lane_ob[c] + i * stride_b, stride_b);
      };
      std::size_t stop[kLanes];
      switch (L * 2 + (x.shared_a ? 1 : 0)) {
        case 2: exact_steps_lanes<1, false>(x, steps, lane_d, stop, exact); break;
        case 3: exact_steps_lanes<1, true>(x, steps, lane_d, stop, exact); break;
        case 4: exact_steps_lanes<2, false>(x, steps, lane_d, stop, exact); break;
        case 5: exact_steps_lanes<2, true>(x, steps, lane_d, stop, exact); break;
        case 8: exact_steps_lanes<4, false>(x, steps, lane_d, stop, exact); break;
        case 9: exact_steps_lanes<4, true>(x, steps, lane_d, stop, exact); break;
        case 16: exact_steps_lanes<8, false>(x, steps, lane_d, stop, exact); break;
        default: exact_steps_lanes<8, true>(x, steps, lane_d, stop, exact); break;
      }
      for (int c = 0; c < kLanes; ++c) done[c] = stop[c] * L;
    }
    std::copy_n(lane_d, n, d);
  }
#endif
  // What the lanes left (all of it without them): the exact steps, one dot product at a time.
  for (int c = 0; c < n; ++c) {
    if (done[c] >= k && k > 0) continue;
    d[c] = exact_dot(a, offset_a[c] + done[c], sb[c] + done[c], eb[c] + done[c], b,
                     offset_b[c] + done[c] * stride_b, stride_b, k - done[c], d[c]);
  }
}

}  // namespace fpconform
