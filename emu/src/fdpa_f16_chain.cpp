// The fma chain in binary16 (the sequential structure with f16 output: x86's VFMADD231SH chain)
// evaluated in binary64: FdpaKernel::dot_f16_chain. One binary16 fma is
//   RNE_16(x * y + c) = RNE_16(RO_53(p + c)),  p = x * y (exact in binary64: 22 bits),
// where RO_53 is rounding to odd at 53 bits: the binary64 sum rounded to nearest with its exact
// error (TwoSum), moved one ulp toward the error when its last bit is even. Rounding to odd
// keeps a sticky bit, so with 53 >= 11 + 2 the second rounding is the correct one (Boldo and
// Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
// odd", IEEE TC 57(4), 2008). (For binary16 operands the binary64 sum is already exact
// wherever the second rounding could tell; rounding to odd makes that no assumption.) The
// rounding to binary16 (normal or subnormal) is done on the
// binary64 pattern in integers; the chain's values stay binary64 holding binary16 values. Eight
// dot products run interleaved. A dot product that overflows binary16, or meets NaN or inf in
// its operands or C, is left to the model (fdpa), whose NaN and overflow rules decide.
#include <algorithm>
#include <bit>
#include <vector>

#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/core/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

constexpr int kLanes = 8;

inline double pow2(int k) { return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52); }

// c = fma16(x, y, c); overflow set when the result is not finite in binary16.
inline void fma16(double x, double y, double& c, bool& overflow) {
  const double p = x * y;
  const double s = p + c;
  const double bb = s - p;
  const double err = (p - (s - bb)) + (c - bb);
  std::uint64_t bits = std::bit_cast<std::uint64_t>(s);
  // To odd without a branch (taken half the time): +-1 ulp toward err where inexact and even.
  const std::uint64_t move = static_cast<std::uint64_t>((err != 0) & !(bits & 1));
  const std::uint64_t away = static_cast<std::uint64_t>((err > 0) == (s > 0));
  bits += move & away;
  bits -= move & (away ^ 1);
  const std::uint64_t mag = bits & 0x7FFFFFFFFFFFFFFFull;
  if (mag == 0) {  // an exact zero: IEEE's sign, as binary64 gives it
    c = s;
    return;
  }
  const int e = static_cast<int>(mag >> 52) - 1023;  // a normal binary64: f16 values are
  const std::uint64_t m = (mag & ((1ull << 52) - 1)) | (1ull << 52);
  const int sh = 42 + std::max(0, -14 - e);  // 11 bits kept; fewer below binary16's emin
  std::uint64_t q = 0;
  if (sh <= 63) {
    q = m >> sh;
    const std::uint64_t rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    q += static_cast<std::uint64_t>((rem > half) | ((rem == half) & (q & 1)));
  }
  const double v = static_cast<double>(q) * pow2(std::min(e, 1000) - 52 + sh);
  overflow = overflow || e >= 16 || v >= 65536.0;  // RNE past 65504 gives inf
  c = (bits >> 63) ? -v : v;
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
void chain_lanes(const double* a, const double* b, std::size_t k, double* acc_out,
                 bool* overflow_out) {
  double acc[kLanes];
  bool overflow[kLanes];
  for (int c = 0; c < kLanes; ++c) {
    acc[c] = acc_out[c];
    overflow[c] = overflow_out[c];
  }
  for (std::size_t i = 0; i < k; ++i) {
#pragma GCC unroll 8
    for (int c = 0; c < kLanes; ++c) fma16(a[i * kLanes + c], b[i * kLanes + c], acc[c], overflow[c]);
  }
  for (int c = 0; c < kLanes; ++c) {
    acc_out[c] = acc[c];
    overflow_out[c] = overflow[c];
  }
}

#if defined(__x86_64__)
#define FPC_F16_AVX2 __attribute__((target("avx2"), always_inline)) inline
// fma16 on four lanes (64-bit integer lanes for the bit work); overflow lanes all ones.
FPC_F16_AVX2 __m256d fma16_x4(__m256d x, __m256d y, __m256d c, __m256i& overflow) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi64x(1);
  const __m256d p = _mm256_mul_pd(x, y);
  const __m256d s = _mm256_add_pd(p, c);
  const __m256d bb = _mm256_sub_pd(s, p);
  const __m256d err = _mm256_add_pd(_mm256_sub_pd(p, _mm256_sub_pd(s, bb)), _mm256_sub_pd(c, bb));
  __m256i bits = _mm256_castpd_si256(s);
  const __m256i inexact = _mm256_castpd_si256(_mm256_cmp_pd(err, _mm256_setzero_pd(), _CMP_NEQ_UQ));
  const __m256i even = _mm256_cmpeq_epi64(_mm256_and_si256(bits, one), zero);
  const __m256i move = _mm256_and_si256(inexact, even);
  const __m256i differ = _mm256_cmpgt_epi64(zero, _mm256_xor_si256(_mm256_castpd_si256(err), bits));
  // +1 where the signs agree (away from zero), -1 where they differ.
  bits = _mm256_add_epi64(bits, _mm256_and_si256(move, _mm256_or_si256(differ, one)));
  const __m256i absm = _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF);
  const __m256i mag = _mm256_and_si256(bits, absm);
  const __m256i is_zero = _mm256_cmpeq_epi64(mag, zero);
  const __m256i e = _mm256_sub_epi64(_mm256_srli_epi64(mag, 52), _mm256_set1_epi64x(1023));
  const __m256i m = _mm256_or_si256(_mm256_and_si256(mag, _mm256_set1_epi64x((1ll << 52) - 1)),
                                    _mm256_set1_epi64x(1ll << 52));
  const __m256i below = _mm256_sub_epi64(_mm256_set1_epi64x(-14), e);
  const __m256i sh = _mm256_add_epi64(_mm256_set1_epi64x(42),
                                      _mm256_andnot_si256(_mm256_cmpgt_epi64(zero, below), below));
  const __m256i in_range = _mm256_cmpgt_epi64(_mm256_set1_epi64x(64), sh);
  __m256i q = _mm256_srlv_epi64(m, sh);
  const __m256i rem = _mm256_and_si256(m, _mm256_sub_epi64(_mm256_sllv_epi64(one, sh), one));
  const __m256i half = _mm256_sllv_epi64(one, _mm256_sub_epi64(sh, one));
  const __m256i up = _mm256_or_si256(
      _mm256_cmpgt_epi64(rem, half),
      _mm256_and_si256(_mm256_cmpeq_epi64(rem, half), _mm256_cmpeq_epi64(_mm256_and_si256(q, one), one)));
  q = _mm256_and_si256(in_range, _mm256_add_epi64(q, _mm256_and_si256(up, one)));
  // q < 2^12 as a double (2^52 + q - 2^52), times 2^(e - 52 + sh), exactly.
  const __m256d magic = _mm256_set1_pd(0x1p52);
  const __m256d qd = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(q, _mm256_castpd_si256(magic))), magic);
  const __m256i k = _mm256_add_epi64(_mm256_sub_epi64(e, _mm256_set1_epi64x(52)), sh);
  const __m256d scale = _mm256_castsi256_pd(_mm256_slli_epi64(
      _mm256_add_epi64(_mm256_blendv_epi8(k, zero, is_zero), _mm256_set1_epi64x(1023)), 52));
  const __m256d v = _mm256_mul_pd(qd, scale);
  overflow = _mm256_or_si256(overflow, _mm256_andnot_si256(is_zero,
      _mm256_or_si256(_mm256_cmpgt_epi64(e, _mm256_set1_epi64x(15)),
                      _mm256_castpd_si256(_mm256_cmp_pd(v, _mm256_set1_pd(65536.0), _CMP_GE_OQ)))));
  const __m256d signed_v = _mm256_or_pd(v, _mm256_castsi256_pd(_mm256_andnot_si256(absm, bits)));
  return _mm256_blendv_pd(signed_v, s, _mm256_castsi256_pd(is_zero));  // exact zeros: s's sign
}

__attribute__((target("avx2"))) void chain_lanes_avx2(const double* a, const double* b,
                                                      std::size_t k, double* acc_out,
                                                      bool* overflow_out) {
  __m256d c0 = _mm256_loadu_pd(acc_out), c1 = _mm256_loadu_pd(acc_out + 4);
  __m256i o0 = _mm256_setzero_si256(), o1 = _mm256_setzero_si256();
  for (std::size_t i = 0; i < k; ++i) {
    c0 = fma16_x4(_mm256_loadu_pd(a + i * kLanes), _mm256_loadu_pd(b + i * kLanes), c0, o0);
    c1 = fma16_x4(_mm256_loadu_pd(a + i * kLanes + 4), _mm256_loadu_pd(b + i * kLanes + 4), c1, o1);
  }
  _mm256_storeu_pd(acc_out, c0);
  _mm256_storeu_pd(acc_out + 4, c1);
  const int m = _mm256_movemask_pd(_mm256_castsi256_pd(o0)) | (_mm256_movemask_pd(_mm256_castsi256_pd(o1)) << 4);
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
                               std::size_t stride_b, const std::int32_t* const* sb,
                               const std::int32_t* const* eb, std::size_t k, std::uint64_t* d,
                               int n) const {
  // Operand values in binary64 (exact: they are binary16 values), lane by lane per product
  // (unused lanes: zeros). A zero keeps its sign (from the code): fma's zero results follow it.
  thread_local std::vector<double> av, bv;
  av.resize(kLanes * k);
  bv.resize(kLanes * k);
  const std::uint64_t sign_a = in_.sign_mask(), sign_b = in_b_.sign_mask();
  const int ma = in_.man_bits, mb = in_b_.man_bits;
  for (std::size_t i = 0; i < k; ++i) {
    double* ai = av.data() + i * kLanes;
    double* bi = bv.data() + i * kLanes;
    for (int c = 0; c < kLanes; ++c) {
      if (c >= n) {
        ai[c] = bi[c] = 0.0;
        continue;
      }
      const std::size_t ia = offset_a[c] + i;
      const std::int32_t sa = a.sig[ia], sbv = sb[c][i];
      ai[c] = sa ? sa * pow2(a.lead[ia] - ma) : ((a.codes[ia] & sign_a) ? -0.0 : 0.0);
      bi[c] = sbv ? sbv * pow2(eb[c][i] - mb)
                  : ((b.codes[offset_b[c] + i * stride_b] & sign_b) ? -0.0 : 0.0);
    }
  }
  double acc[kLanes] = {};
  bool overflow[kLanes] = {};
  for (int c = 0; c < n; ++c) {
    const std::uint64_t code = d[c] & 0xFFFF;
    overflow[c] = ((code >> 10) & 0x1F) == 0x1F;  // NaN or inf C: the model
    acc[c] = f16_value(code);
  }
#if defined(__x86_64__)
  if (!portable_dispatch() && cpu_features().avx2)
    chain_lanes_avx2(av.data(), bv.data(), k, acc, overflow);
  else
#endif
    chain_lanes(av.data(), bv.data(), k, acc, overflow);
  for (int c = 0; c < n; ++c)
    d[c] = overflow[c] ? model_dot(a, offset_a[c], b, offset_b[c], stride_b, k, d[c])
                       : f16_code(acc[c]);
}

}  // namespace fpconform
