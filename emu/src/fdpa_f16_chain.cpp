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
// Where the CPU has AVX512-FP16, whose fma is this operation (IEEE binary16, in MXCSR's mode,
// which dot_many holds at nearest even without FTZ or DAZ), a row form runs it as it is:
// up to eight rows of A against the sixteen consecutive columns of a row-major B in one
// vector, one lane per column, A's value broadcast. On AVX-512 CPUs without AVX512-FP16 the
// same row form runs each step in binary32, rounded to odd (two fmas with embedded rounding),
// then to binary16 by vcvtps2ph (f16_odd_rows_run); with AVX2 alone, against eight columns,
// MXCSR held downward and the upward rounding -RD(-x y - c) (f16_odd_rows_run_avx2). A result that is not finite (an overflow
// on the way, or NaN or inf met) goes to the model, as above: neither becomes finite again.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/core/cpu_features.hpp"
#include "fpconform/core/error.hpp"
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

constexpr int kRowWidth = 16;     // binary16 lanes of a 256-bit vector
constexpr int kRowWidthAvx2 = 8;  // binary32 lanes of a 256-bit vector

#if defined(__x86_64__)
// GCC 12 warns that the "undefined" source operand inside its own avx512fintrin.h intrinsics
// may be used uninitialized (a known false positive of those headers).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// The row form without AVX512-FP16: R rows of A (binary32 values, a + offset_a[j]) against 16
// consecutive columns of B (b, row-major with stride_b), k products; acc[16 j + l]: row j's C
// codes in, results out. Each step rounds x y + c (exact operands: binary16 values, so x y is
// exact in binary32) downward and upward by embedded rounding; of the two, the one with an
// odd last bit is x y + c rounded to odd at 24 bits where it is inexact, and either is the
// value where it is exact (then the upward one: its zero has the sign nearest even gives).
// Rounded to odd at 24 bits, the value rounds to nearest even at binary16's 11 (subnormals
// included: two bits to spare at least) as x y + c itself would (vcvtps2ph). Products of
// binary16 values lie at 2^-48 and above, so no binary32 step underflows.
template <int R>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c"))) void
f16_odd_rows_run(const float* a, const std::size_t* offset_a, const float* b,
                 std::size_t stride_b, std::size_t k, std::uint16_t* acc) {
  __m256i c[R];
  const float* row[R];
  for (int j = 0; j < R; ++j) {
    c[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + kRowWidth * j));
    row[j] = a + offset_a[j];
  }
  const __m512i one = _mm512_set1_epi32(1);
  for (std::size_t i = 0; i < k; ++i) {
    const __m512 y = _mm512_loadu_ps(b + i * stride_b);
#pragma GCC unroll 8
    for (int j = 0; j < R; ++j) {
      const __m512 x = _mm512_set1_ps(row[j][i]);
      const __m512 z = _mm512_cvtph_ps(c[j]);
      const __m512 down = _mm512_fmadd_round_ps(x, y, z, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
      const __m512 up = _mm512_fmadd_round_ps(x, y, z, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
      const __mmask16 odd = _mm512_test_epi32_mask(_mm512_castps_si512(down), one);
      c[j] = _mm512_cvtps_ph(_mm512_mask_blend_ps(odd, up, down),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
  }
  for (int j = 0; j < R; ++j)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + kRowWidth * j), c[j]);
}

// The same on AVX2 against 8 columns (acc[8 j + l]), whose fma rounds only by MXCSR: held
// downward here, the upward rounding is -RD(-x y - c); of the two, the one with an odd last bit
// (where the sum is exact, the upward one).
template <int R>
__attribute__((target("avx2,fma,f16c"))) void f16_odd_rows_run_avx2(
    const float* a, const std::size_t* offset_a, const float* b, std::size_t stride_b,
    std::size_t k, std::uint16_t* acc) {
  constexpr int W = kRowWidthAvx2;
  __m128i c[R];
  const float* row[R];
  for (int j = 0; j < R; ++j) {
    c[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(acc + W * j));
    row[j] = a + offset_a[j];
  }
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const unsigned csr = _mm_getcsr();
  _mm_setcsr((csr & ~0x6000u) | 0x2000u);  // downward
  // The fmas after the mode's setting and before its restoring (GCC does not order
  // floating-point operations against MXCSR's builtins).
  for (int j = 0; j < R; ++j) asm volatile("" : "+x"(c[j]));
  for (std::size_t i = 0; i < k; ++i) {
    const __m256 y = _mm256_loadu_ps(b + i * stride_b);
#pragma GCC unroll 8
    for (int j = 0; j < R; ++j) {
      const __m256 x = _mm256_set1_ps(row[j][i]);
      const __m256 z = _mm256_cvtph_ps(c[j]);
      const __m256 down = _mm256_fmadd_ps(x, y, z);
      const __m256 up = _mm256_xor_ps(_mm256_fnmsub_ps(x, y, z), sign);
      const __m256 odd = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(down), 31));
      c[j] = _mm256_cvtps_ph(_mm256_blendv_ps(up, down, odd), _MM_FROUND_TO_NEAREST_INT);
    }
  }
  for (int j = 0; j < R; ++j) asm volatile("" : "+x"(c[j]));
  _mm_setcsr(csr);
  for (int j = 0; j < R; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(acc + W * j), c[j]);
}
#endif

// The row form on AVX512-FP16's own fma needs its intrinsics in a function of that target:
// GCC 12 on, clang only where the whole file is built for it (clang 14 declares them for
// -mavx512fp16 alone).
#if defined(__x86_64__) && (defined(__AVX512FP16__) || (!defined(__clang__) && __GNUC__ >= 12))
#define FPC_F16_ROWS 1

// R rows of A (a + offset_a[j]) against 16 consecutive columns of B (b, row-major with
// stride_b), k products; acc[16 j + l]: row j's C codes in, results out.
template <int R>
__attribute__((target("avx512fp16,avx512vl,avx512bw,avx512dq,avx512f,avx2,fma"))) void
f16_rows_run(const std::uint16_t* a, const std::size_t* offset_a, const std::uint16_t* b,
             std::size_t stride_b, std::size_t k, std::uint16_t* acc) {
  __m256h c[R];
  const std::uint16_t* row[R];
  for (int j = 0; j < R; ++j) {
    c[j] = _mm256_castsi256_ph(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + kRowWidth * j)));
    row[j] = a + offset_a[j];
  }
  for (std::size_t i = 0; i < k; ++i) {
    const __m256h y = _mm256_castsi256_ph(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i * stride_b)));
#pragma GCC unroll 8
    for (int j = 0; j < R; ++j) {
      _Float16 x;
      std::memcpy(&x, row[j] + i, sizeof x);  // folds into the fma's broadcast
      c[j] = _mm256_fmadd_ph(_mm256_set1_ph(x), y, c[j]);
    }
  }
  for (int j = 0; j < R; ++j)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + kRowWidth * j),
                        _mm256_castph_si256(c[j]));
}
#endif

bool is_binary16(const Format& f) {
  return f.exp_bits == 5 && f.man_bits == 10 && f.bias == 15 && f.is_signed && f.subnormals &&
         f.has_zero && f.inf == InfEncoding::ieee && f.nan == NanEncoding::ieee;
}

}  // namespace

bool FdpaKernel::f16_chain_serves(const FdpaParams& p, const FdpaFormats& f) {
  return p.structure == FdpaStructure::sequential && is_binary16(f.d) && f.c == f.d &&
         p.out_rounding.mode == RoundingMode::rne && !p.flush_subnormal_inputs &&
         !p.flush_subnormal_outputs && holds_exactly(f.a, f.d) && holds_exactly(f.b, f.d);
}

bool FdpaKernel::f16_rows_native() {
#if defined(FPC_F16_ROWS)
  return avx512_dispatch() && cpu_features().avx512_fp16 && cpu_features().avx512vl;
#else
  return false;
#endif
}

int FdpaKernel::f16_rows_width() {
#if defined(__x86_64__)
  if (f16_rows_native() || (avx512_dispatch() && cpu_features().avx512vl)) return kRowWidth;
  if (!portable_dispatch() && cpu_features().avx2 && cpu_features().fma && cpu_features().f16c)
    return kRowWidthAvx2;
#endif
  return 0;
}

FdpaKernel::F16RowOperands FdpaKernel::f16_row_operands(const DecodedOperands& x, Operand which,
                                                        F16RowStorage& again) const {
  const Format& in = which == Operand::a ? in_ : in_b_;
  if (!f16_rows_native()) {
    if (x.value32.size() == x.codes.size()) return {nullptr, x.value32.data()};
    binary32_of(x, in, again.values);  // exact: binary16 holds every value (f16_chain_serves)
    return {nullptr, again.values.data()};
  }
  if (x.host16.size() == x.codes.size()) return {x.host16.data(), nullptr};
  again.codes.resize(x.codes.size());
  if (is_binary16(in)) {
    for (std::size_t i = 0; i < x.codes.size(); ++i)
      again.codes[i] = static_cast<std::uint16_t>(x.codes[i]);  // the codes themselves
  } else {  // held exactly (f16_chain_serves): converted without rounding, NaN to a NaN
    for (std::size_t i = 0; i < x.codes.size(); ++i)
      again.codes[i] = static_cast<std::uint16_t>(convert(x.codes[i], in, out_, Rounding{}).bits);
  }
  return {again.codes.data(), nullptr};
}

void FdpaKernel::dot_f16_rows(const DecodedOperands& a, F16RowOperands ha,
                              const std::size_t* offset_a, const DecodedOperands& b,
                              F16RowOperands hb, const std::size_t* offset_b,
                              std::size_t stride_b, std::size_t k, int n, std::uint64_t* d) const {
#if defined(__x86_64__)
  const int w = f16_rows_width();
  for (int i = 0; i < n;) {
    const int m = rows_on_same_columns(offset_b, i, n);
    for (int done = 0; done < m;) {
      const int r = m - done >= 8 ? 8 : m - done >= 4 ? 4 : m - done >= 2 ? 2 : 1;
      const int first = i + done;
      std::uint64_t* dr = d + static_cast<std::ptrdiff_t>(first) * w;
      alignas(32) std::uint16_t acc[8 * kRowWidth];
      for (int l = 0; l < r * w; ++l) acc[l] = static_cast<std::uint16_t>(dr[l] & 0xFFFF);
      const std::size_t* oa = offset_a + first;
      if (ha.values && w == kRowWidthAvx2) {
        const float* bb = hb.values + offset_b[first];
        switch (r) {
          case 8: f16_odd_rows_run_avx2<8>(ha.values, oa, bb, stride_b, k, acc); break;
          case 4: f16_odd_rows_run_avx2<4>(ha.values, oa, bb, stride_b, k, acc); break;
          case 2: f16_odd_rows_run_avx2<2>(ha.values, oa, bb, stride_b, k, acc); break;
          default: f16_odd_rows_run_avx2<1>(ha.values, oa, bb, stride_b, k, acc); break;
        }
      } else if (ha.values) {
        const float* bb = hb.values + offset_b[first];
        switch (r) {
          case 8: f16_odd_rows_run<8>(ha.values, oa, bb, stride_b, k, acc); break;
          case 4: f16_odd_rows_run<4>(ha.values, oa, bb, stride_b, k, acc); break;
          case 2: f16_odd_rows_run<2>(ha.values, oa, bb, stride_b, k, acc); break;
          default: f16_odd_rows_run<1>(ha.values, oa, bb, stride_b, k, acc); break;
        }
      } else {
#if defined(FPC_F16_ROWS)
        const std::uint16_t* bb = hb.codes + offset_b[first];
        switch (r) {
          case 8: f16_rows_run<8>(ha.codes, oa, bb, stride_b, k, acc); break;
          case 4: f16_rows_run<4>(ha.codes, oa, bb, stride_b, k, acc); break;
          case 2: f16_rows_run<2>(ha.codes, oa, bb, stride_b, k, acc); break;
          default: f16_rows_run<1>(ha.codes, oa, bb, stride_b, k, acc); break;
        }
#endif
      }
      for (int j = 0; j < r; ++j)
        for (int l = 0; l < w; ++l) {
          std::uint64_t& x = dr[j * w + l];
          const std::uint16_t code = acc[j * w + l];
          x = (code & 0x7C00) == 0x7C00
                  ? model_dot(a, oa[j], b, offset_b[first] + static_cast<std::size_t>(l),
                              stride_b, k, x)
                  : code;
        }
      done += r;
    }
    i += m;
  }
#else
  (void)a, (void)ha, (void)offset_a, (void)b, (void)hb, (void)offset_b, (void)stride_b, (void)k,
      (void)n, (void)d;
  throw Error("dot_f16_rows", "the binary16 row form needs x86-64");
#endif
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
