// The fma chain in binary16 (the sequential structure with f16 output: x86's VFMADD231SH chain)
// evaluated in binary64: FdpaKernel::dot_f16_chain. One binary16 fma is
//   RNE_16(x * y + c) = RNE_16(p + c) = RNE_16(RN_53(p + c)),  p = x * y (exact in binary64).
// The second equality: RN_53(p + c) is inexact only when the two terms' bits span more than 53
// positions. p has 22 significant bits and its last at 2^-48 or above; c has 11 and its last at
// 2^-24 or above. If c is the larger, p lies below 2^-41 |c|, far inside c's binary16 rounding
// interval, so both sums round to c; if p is, its leading bit is at 2^29 or above and the result
// overflows binary16 (and goes to the model). The rounding to binary16 adds and subtracts
// M = 1.5 * 2^(u + 52), u the exponent of the result's last bit (the exponent of the sum less
// 10, at least binary16's -24): s + M lies in M's binade, whose spacing is 2^u, so the binary64
// addition rounds s to nearest even at 2^u and the subtraction is exact. The sign of a zero
// result is the sum's. The chain's values stay binary64 holding binary16 values; eight dot
// products run interleaved. A dot product that overflows binary16, or meets NaN or inf in its
// operands or C, is left to the model (fdpa), whose NaN and overflow rules decide.
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/core/cpu_features.hpp"
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

inline double pow2(int k) {
  return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
}

constexpr std::uint64_t kSign = 0x8000000000000000ull;
constexpr std::uint64_t kExponent = 0x7FF0000000000000ull;
constexpr std::uint64_t kLeastExponent = static_cast<std::uint64_t>(1023 - 14) << 52;  // 2^-14
constexpr std::uint64_t kToMagic = (static_cast<std::uint64_t>(42) << 52) | (1ull << 51);

// c = fma16(x, y, c); overflow set when the result is not finite in binary16.
inline void fma16(double x, double y, double& c, bool& overflow) {
  const double s = x * y + c;  // x * y is exact: fused or not, one rounding
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(s);
  const double m = std::bit_cast<double>(std::max(bits & kExponent, kLeastExponent) + kToMagic);
  const double r = (s + m) - m;
  overflow = overflow || !(std::abs(r) < 65536.0);  // RNE past 65504 gives inf
  c = std::bit_cast<double>(std::bit_cast<std::uint64_t>(r) | (bits & kSign));
}

// A binary16 code's value, and back (exact: v holds a binary16 value).
inline double f16_value(std::uint64_t code) {
  const int field = static_cast<int>((code >> 10) & 0x1F);
  const double frac = static_cast<double>(code & 0x3FF);
  const double v = field ? (1024.0 + frac) * pow2(field - 25) : frac * pow2(-24);
  return (code & 0x8000) ? -v : v;
}
inline std::uint64_t f16_code(double v) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
  const std::uint64_t sign = (bits >> 48) & 0x8000, mag = bits & 0x7FFFFFFFFFFFFFFFull;
  if (mag == 0) return sign;
  const int e = static_cast<int>(mag >> 52) - 1023;
  const std::uint64_t m = (mag & ((1ull << 52) - 1)) | (1ull << 52);
  if (e >= -14) return sign | (static_cast<std::uint64_t>(e + 15) << 10) | ((m >> 42) & 0x3FF);
  return sign | (m >> (42 - 14 - e));
}

// The eight chains, product by product (a fixed count of lanes: their values stay in registers).
void chain_lanes(const Binary64Lanes& x, std::size_t k, double* acc_out, bool* overflow_out) {
  double acc[kLanes];
  bool overflow[kLanes];
  for (int c = 0; c < kLanes; ++c) {
    acc[c] = acc_out[c];
    overflow[c] = overflow_out[c];
  }
  for (std::size_t i = 0; i < k; ++i) {
#pragma GCC unroll 8
    for (int c = 0; c < kLanes; ++c) fma16(x.a[c][i], x.b[c][i * x.stride_b], acc[c], overflow[c]);
  }
  for (int c = 0; c < kLanes; ++c) {
    acc_out[c] = acc[c];
    overflow_out[c] = overflow[c];
  }
}

#if defined(__x86_64__)
#define FPC_F16_AVX2 __attribute__((target("avx2"), always_inline)) inline
// fma16 on four lanes; overflow lanes all ones.
FPC_F16_AVX2 __m256d fma16_x4(__m256d x, __m256d y, __m256d c, __m256d& overflow) {
  const __m256d s = _mm256_add_pd(_mm256_mul_pd(x, y), c);
  const __m256i bits = _mm256_castpd_si256(s);
  // Exponent fields are positive 32-bit highs over zero lows: max_epi32 is their 64-bit max.
  const __m256i e = _mm256_max_epi32(
      _mm256_and_si256(bits, _mm256_set1_epi64x(static_cast<long long>(kExponent))),
      _mm256_set1_epi64x(static_cast<long long>(kLeastExponent)));
  const __m256d m = _mm256_castsi256_pd(_mm256_add_epi64(e, _mm256_set1_epi64x(kToMagic)));
  const __m256d r = _mm256_sub_pd(_mm256_add_pd(s, m), m);
  const __m256d sign = _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<long long>(kSign)));
  const __m256d beyond =
      _mm256_cmp_pd(_mm256_andnot_pd(sign, r), _mm256_set1_pd(65536.0), _CMP_NLT_UQ);
  overflow = _mm256_or_pd(overflow, beyond);
  return _mm256_or_pd(r, _mm256_and_pd(s, sign));
}

template <bool SharedA>
__attribute__((target("avx2"))) void chain_lanes_avx2(const Binary64Lanes& x, std::size_t k,
                                                      double* acc_out, bool* overflow_out) {
  __m256d c0 = _mm256_loadu_pd(acc_out), c1 = _mm256_loadu_pd(acc_out + 4);
  __m256d o0 = _mm256_setzero_pd(), o1 = _mm256_setzero_pd();
  for (std::size_t i = 0; i < k; ++i) {
    c0 = fma16_x4(lanes_a<SharedA>(x, 0, i), lanes_b(x, 0, i), c0, o0);
    c1 = fma16_x4(lanes_a<SharedA>(x, 4, i), lanes_b(x, 4, i), c1, o1);
  }
  _mm256_storeu_pd(acc_out, c0);
  _mm256_storeu_pd(acc_out + 4, c1);
  const int m = _mm256_movemask_pd(o0) | (_mm256_movemask_pd(o1) << 4);
  for (int c = 0; c < kLanes; ++c) overflow_out[c] = overflow_out[c] || ((m >> c) & 1);
}
#endif

}  // namespace

bool FdpaKernel::f16_chain_serves(const FdpaParams& p, const FdpaFormats& f) {
  const Format& o = f.d;
  return p.structure == FdpaStructure::sequential && o.exp_bits == 5 && o.man_bits == 10 &&
         o.bias == 15 && o.is_signed && o.subnormals && o.has_zero &&
         o.inf == InfEncoding::ieee && o.nan == NanEncoding::ieee && f.c == f.d &&
         p.out_rounding.mode == RoundingMode::rne && !p.flush_subnormal_inputs &&
         !p.flush_subnormal_outputs && holds_exactly(f.a, o) && holds_exactly(f.b, o);
}

void FdpaKernel::dot_f16_chain(const DecodedOperands& a, const std::size_t* offset_a,
                               const DecodedOperands& b, const std::size_t* offset_b,
                               std::size_t stride_b, const std::int32_t* const*,
                               const std::int32_t* const*, std::size_t k, std::uint64_t* d,
                               int n) const {
  LineVector<double> ra, rb;  // operands decoded without these values
  const double* va = binary64_values(a, Operand::a, ra);
  const double* vb = binary64_values(b, Operand::b, rb);
  const Binary64Lanes x(va, offset_a, vb, offset_b, stride_b, n);
  double acc[kLanes] = {};
  bool overflow[kLanes] = {};
  for (int c = 0; c < kLanes; ++c) {
    const std::uint64_t code = d[Binary64Lanes::source(c, n)] & 0xFFFF;
    overflow[c] = ((code >> 10) & 0x1F) == 0x1F;  // NaN or inf C: the model
    acc[c] = f16_value(code);
  }
#if defined(__x86_64__)
  if (!portable_dispatch() && cpu_features().avx2) {
    if (x.shared_a) chain_lanes_avx2<true>(x, k, acc, overflow);
    else chain_lanes_avx2<false>(x, k, acc, overflow);
  } else
#endif
    chain_lanes(x, k, acc, overflow);
  for (int c = 0; c < n; ++c)
    d[c] = overflow[c] ? model_dot(a, offset_a[c], b, offset_b[c], stride_b, k, d[c])
                       : f16_code(acc[c]);
}

}  // namespace fpconform
