// The fast fp32 -> narrow-format kernel (see fast_convert.hpp), as inline functions for the
// files that compile it: fast_convert_portable.cpp (baseline ISA), fast_convert_avx2.cpp and
// fast_convert_tierm.cpp (AVX2; tier 3 and the tails). Every result must equal
// `convert(bits, f32, to, r)` from convert.cpp; the comments below say which step of the clear
// path (round_to_format) each line reproduces.
//
//
// The kernel works on the fp32 pattern u, its magnitude a = u & 0x7fffffff, the fp32 exponent
// field ef = a >> 23 and fraction M = a & 0x7fffff. With be = ef - 127 + bias (the target's
// biased exponent) and s0 = 23 - m:
//   normal result (be >= 1, or >= 0 without subnormals): X = a + ((bias - 127) << 23) holds
//     (be << 23) | M, so X >> s0 is the magnitude code (be << m) | (M >> s0), and rounding X to
//     a multiple of 2^s0 is the rounding of the value (a carry moves into the exponent field);
//   subnormal result (d = 1 - be > 0): the 24-bit significand is X + (d << 23) (also for fp32
//     subnormals, where max(ef, 1) stands in for ef); it is shifted right by d first with the
//     shifted-out bits jammed into a sticky bit 0 (the shift capped at 25: beyond that all of it
//     is sticky), and then rounded at s0 >= 8 like a normal one. Jamming keeps every rounding
//     mode exact because the sticky bit lies below the rounding position.
// Special inputs and results (NaN, inf, zero, overflow, ftz, unsigned negatives) are computed
// for every lane and selected with masks, so the loops have no branches and GCC vectorizes them
// (the variable shifts become vpsrlvd/vpsllvd with AVX2; the baseline ISA has no variable
// shifts, so there the tiers 2/3 below stay scalar, branch-free code).
//
// Blocks of 64 values go through the cheapest kernel that can serve all of them:
//   tier 1: every |x| in the target's normal range and <= max finite: one fixed-shift rounding
//           of the fp32 pattern (no specials, no tininess, no overflow in any mode);
//   tier 2: every |x| <= max finite (zeros and subnormal results too): the jammed rounding;
//   tier 3: anything (NaN, inf, overflow): the whole kernel.
// Tier 1 runs speculatively and tracks max(|x| - lo) and max |x|; a block that does not fit is
// redone in tier 2 or 3. The flags kernel (full_code) has tiers 1 and 3.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "fast_convert_params.hpp"
#include "fpconform/core/rounding.hpp"

#if FPC_X86
#include <immintrin.h>
#endif

#define FPC_INLINE inline __attribute__((always_inline))

// The body of pick_portable / pick_avx2: LEAN<M, OutT> and FULL<M, OutT> for the deterministic
// modes (the instantiations the tables dispatch to), null for the stochastic ones.
#define FPC_PICK_KERNELS(LEAN, FULL, mode, lean, full)  \
  switch (mode) {                                       \
    case RM::rne: lean = &LEAN<RM::rne, OutT>; full = &FULL<RM::rne, OutT>; return;     \
    case RM::rna: lean = &LEAN<RM::rna, OutT>; full = &FULL<RM::rna, OutT>; return;     \
    case RM::rtz: lean = &LEAN<RM::rtz, OutT>; full = &FULL<RM::rtz, OutT>; return;     \
    case RM::up: lean = &LEAN<RM::up, OutT>; full = &FULL<RM::up, OutT>; return;        \
    case RM::down: lean = &LEAN<RM::down, OutT>; full = &FULL<RM::down, OutT>; return;  \
    case RM::odd: lean = &LEAN<RM::odd, OutT>; full = &FULL<RM::odd, OutT>; return;     \
    default: lean = nullptr; full = nullptr; return;    \
  }

namespace fpconform::detail {

using RM = RoundingMode;

namespace {  // internal to each file that compiles the kernel

inline constexpr std::uint32_t kAbs = 0x7FFFFFFFu;
inline constexpr std::uint32_t kInf = 0x7F800000u;
inline constexpr std::uint32_t kFracMask = 0x007FFFFFu;
inline constexpr std::uint32_t kHidden = 0x00800000u;
inline constexpr std::uint32_t kNever = 0xFFFFFFFFu;
inline constexpr std::uint8_t kSlow = 0x80;  // lane marker: recompute with `convert`
inline constexpr std::size_t kBlock = 64;    // values per block of the tier shortcut
inline constexpr std::uint32_t kIX = Flags::inexact, kUF = Flags::underflow,
                               kOF = Flags::overflow, kNV = Flags::invalid;

FPC_INLINE std::int32_t smax(std::int32_t x, std::int32_t y) { return x > y ? x : y; }
FPC_INLINE std::uint32_t umin(std::uint32_t x, std::uint32_t y) { return x < y ? x : y; }
// All ones where c holds; and a bitwise select by such a mask.
FPC_INLINE std::uint32_t mask(bool c) { return 0u - static_cast<std::uint32_t>(c); }
FPC_INLINE std::uint32_t blend(std::uint32_t m, std::uint32_t if1, std::uint32_t if0) {
  return (if1 & m) | (if0 & ~m);
}
FPC_INLINE std::uint32_t neg_mask(std::uint32_t u) {
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(u) >> 31);
}

// Round x to a multiple of 2^s in mode M and return x / 2^s, rounded (s = s0, the same for
// every lane). negm is all ones for a negative value. "Even"/"odd" are the last bit of the
// result, which is the last bit of the magnitude code (rounds_away in convert.cpp).
template <RM M>
FPC_INLINE std::uint32_t round_shift(std::uint32_t x, std::uint32_t s, std::uint32_t negm) {
  const std::uint32_t mask = (1u << s) - 1;
  const std::uint32_t t = x >> s;
  if constexpr (M == RM::rne) return (x + (mask >> 1) + (t & 1)) >> s;
  else if constexpr (M == RM::rna) return (x + (mask >> 1) + 1) >> s;
  else if constexpr (M == RM::rtz) return t;
  else if constexpr (M == RM::up) return (x + (mask & ~negm)) >> s;
  else if constexpr (M == RM::down) return (x + (mask & negm)) >> s;
  else return t | ((x & mask) != 0 ? 1u : 0u);  // odd: truncate, then set the last bit
}

// The value of a finite |x| = a as an integer to be rounded at s0 (see the top): normal results
// as they are, subnormal ones pre-shifted with a sticky bit.
FPC_INLINE std::uint32_t jammed(std::uint32_t a, const F32Params& p) {
  const std::int32_t ef = static_cast<std::int32_t>(a >> 23);
  const std::uint32_t d = static_cast<std::uint32_t>(smax(p.sub_c - smax(ef, 1), 0));
  const std::uint32_t x = a + p.rebias + (d << 23);  // mod 2^32: the significand when d > 0
  const std::uint32_t sh = umin(d, 25);
  const std::uint32_t xs = x >> sh;
  return xs | ((xs << sh) != x ? 1u : 0u);
}

// Tier 1: |x| in the normal range, at most max finite. The code. u + rebias keeps the sign at
// bit 31 (nothing carries into it in this range); after the shift it sits at bit 31 - s0, above
// the code, where the magnitude mask drops it.
template <RM M>
FPC_INLINE std::uint32_t normal_code(std::uint32_t u, const F32Params& p) {
  const std::uint32_t n = round_shift<M>(u + p.rebias, p.s0, neg_mask(u));
  return (n & p.mag_mask) | ((u >> p.sign_shift) & p.sign_mask);
}

// Tier 2 (lean formats): |x| at most max finite.
template <RM M>
FPC_INLINE std::uint32_t finite_code(std::uint32_t u, const F32Params& p) {
  const std::uint32_t a = u & kAbs;
  const std::uint32_t negm = neg_mask(u);
  const std::uint32_t n = round_shift<M>(jammed(a, p), p.s0, negm);
  const std::uint32_t zero = negm & p.zero_code[1];  // zero_code[0] is 0 in lean formats
  return n == 0 ? zero : n | (negm & p.sign_mask);
}

// Tier 3, lean kernel: signed format with subnormals and a zero, bias <= 127, no ftz/daz, no
// flags. Every candidate is computed unconditionally, then picked.
template <RM M>
FPC_INLINE std::uint32_t lean_code(std::uint32_t u, const F32Params& p) {
  const std::uint32_t a = u & kAbs;
  const std::uint32_t negm = neg_mask(u);
  const std::uint32_t n = round_shift<M>(jammed(a, p), p.s0, negm);  // magnitude code
  const std::uint32_t zero = negm & p.zero_code[1];
  const std::uint32_t ovf = negm ? p.ovf_code[1] : p.ovf_code[0];
  const std::uint32_t inf = negm ? p.inf_code[1] : p.inf_code[0];
  const std::uint32_t nan = (negm ? p.nan_code[1] : p.nan_code[0]) | ((a >> p.s0) & p.nan_paymask);
  std::uint32_t code = n | (negm & p.sign_mask);
  code = n == 0 ? zero : code;
  code = n > p.maxf ? ovf : code;
  code = a == kInf ? inf : code;
  code = a > kInf ? nan : code;
  return code;
}

// Tier 3, full kernel: every supported format and option, with flags. Returns the code; fl gets
// the flags (plus kSlow for a lane the caller must recompute). Runtime options are masks and
// limits (never `if`), and conditions are all-ones/zero lane masks combined bitwise (never
// bools), so that the loop if-converts and vectorizes.
template <RM M>
FPC_INLINE std::uint32_t full_code(std::uint32_t u, const F32Params& p, std::uint32_t& fl) {
  const std::uint32_t negm = neg_mask(u);
  const std::uint32_t a0 = u & kAbs;
  const std::uint32_t a = a0 & ~mask(a0 < p.daz_lim);  // daz: subnormal inputs are zeros
  const std::int32_t ef = static_cast<std::int32_t>(a >> 23);
  const std::uint32_t frac = a & kFracMask;
  const std::int32_t be = ef + p.bias - 127;
  const std::uint32_t ef0 = mask(ef == 0);
  // bias 128 (emin = -127): an fp32 subnormal lies on the grid 2^-150, one bit finer.
  const std::uint32_t x = blend(ef0 & p.fine_m, a << 1, jammed(a, p));
  const std::uint32_t n = round_shift<M>(x, p.s0, negm);
  const std::uint32_t inexact = mask((x & ((1u << p.s0) - 1)) != 0);
  const std::uint32_t sign = negm & p.sign_mask;

  // Tininess (round_to_format: e < emin; tiny_after_rounding: |x| in [2^(emin-1), 2^emin) is
  // not tiny when rounding its p-bit significand carries out; the thresholds are kNever for
  // tininess before rounding and for the modes that never carry).
  const std::uint32_t sig = frac | kHidden;
  const std::uint32_t tiny_b = blend(ef0, mask(frac < p.sub_tiny_lim), mask(be < p.sub_lo));
  const std::uint32_t near = ef0 | mask(be == p.sub_lo - 1);
  const std::uint32_t sig_t = blend(ef0, frac << p.tz_shift, sig);
  const std::uint32_t thr = blend(negm, p.thresh_neg, p.thresh_pos);
  const std::uint32_t tiny = tiny_b & ~(near & mask(sig_t >= thr));

  // Candidates, computed unconditionally.
  const std::uint32_t zero_c = blend(negm, p.zero_code[1], p.zero_code[0]);
  const std::uint32_t ovf_c = blend(negm, p.ovf_code[1], p.ovf_code[0]);
  const std::uint32_t ftz_c = blend(negm, p.ftz_code[1], p.ftz_code[0]);
  const std::uint32_t inf_c = blend(negm, p.inf_code[1], p.inf_code[0]);
  const std::uint32_t nan_c =
      blend(negm, p.nan_code[1], p.nan_code[0]) | ((a >> p.s0) & p.nan_paymask);
  const std::uint32_t nan_f = blend(mask((a & 0x00400000u) == 0), kNV, p.nan_flags_quiet);

  std::uint32_t code = n | sign;
  std::uint32_t f = inexact & (kIX | (tiny & kUF));
  code = blend(mask(n == 0) & p.has_zero_m, zero_c, code);  // zero_result
  const std::uint32_t ovf = mask(n > p.maxf);
  code = blend(ovf, ovf_c, code);
  f |= ovf & (kOF | kIX);
  // No subnormals: below 2^emin the neighbours are 0 and 2^emin, both the code 0.
  const std::uint32_t below = mask(be < p.below_lim);
  code = blend(below, p.minnorm_code | sign, code);
  f = blend(below, kIX | (tiny & kUF), f);
  const std::uint32_t flush = tiny & p.ftz_m;
  code = blend(flush, ftz_c, code);
  f = blend(flush, kUF | kIX, f);
  // Specials, in reverse order of precedence (the last assignment wins).
  const std::uint32_t zero = mask(a == 0);
  code = blend(zero, zero_c, code);
  f = blend(zero, p.zero_flags, f);
  const std::uint32_t inf = mask(a == kInf);
  code = blend(inf, inf_c, code);
  f = blend(inf, p.inf_flags, f);
  const std::uint32_t uneg = negm & ~zero & p.unsigned_m;  // negative into an unsigned format
  code = blend(uneg, p.uns_neg_code, code);
  f = blend(uneg, kNV, f);
  const std::uint32_t nan = mask(a > kInf);
  code = blend(nan, nan_c, code);
  f = blend(nan, nan_f, f);
  f |= ef0 & ~zero & p.slow_m & kSlow;
  fl = f;
  return code;
}

template <class T>
FPC_INLINE std::uint32_t bits_of(T x) {
  return std::bit_cast<std::uint32_t>(x);
}

template <class OutT>
FPC_INLINE void narrow(OutT* __restrict out, const std::uint32_t* __restrict tmp) {
  for (std::size_t j = 0; j < kBlock; ++j) out[j] = static_cast<OutT>(tmp[j]);
}

template <RM M, class OutT>
FPC_INLINE void lean_impl(const float* __restrict in, void* outv, std::size_t n,
                          const F32Params& pref) {
  const F32Params p = pref;  // a local copy: stores through OutT* cannot alias it
  OutT* __restrict out = static_cast<OutT*>(outv);
  alignas(32) std::uint32_t tmp[kBlock];
  std::size_t i = 0;
  if (p.range != 0) {
    const std::uint32_t hi = p.lo + p.range;
    for (; i + kBlock <= n; i += kBlock) {
      // Tier 1 for the whole block; the largest |x| - lo and |x| say which tier fits.
      std::uint32_t top1 = 0, top2 = 0;
      for (std::size_t j = 0; j < kBlock; ++j) {
        const std::uint32_t u = bits_of(in[i + j]);
        const std::uint32_t a = u & kAbs;
        top1 = std::max(top1, a - p.lo);
        top2 = std::max(top2, a);
        out[i + j] = static_cast<OutT>(normal_code<M>(u, p));
      }
      if (top1 <= p.range) continue;
      if (top2 > hi) {
        for (std::size_t j = 0; j < kBlock; ++j) tmp[j] = lean_code<M>(bits_of(in[i + j]), p);
      } else {
        for (std::size_t j = 0; j < kBlock; ++j) tmp[j] = finite_code<M>(bits_of(in[i + j]), p);
      }
      narrow(out + i, tmp);
    }
  }
  for (; i < n; ++i) out[i] = static_cast<OutT>(lean_code<M>(bits_of(in[i]), p));
}

template <RM M, class OutT>
FPC_INLINE void full_impl(const float* __restrict in, void* outv, std::uint8_t* __restrict fl,
                          std::size_t n, const F32Params& pref) {
  const F32Params p = pref;
  OutT* __restrict out = static_cast<OutT*>(outv);
  alignas(32) std::uint32_t tmp[kBlock];
  alignas(32) std::uint32_t tfl[kBlock];
  std::size_t i = 0;
  if (p.range != 0) {
    for (; i + kBlock <= n; i += kBlock) {
      std::uint32_t top1 = 0;
      for (std::size_t j = 0; j < kBlock; ++j) {
        const std::uint32_t u = bits_of(in[i + j]);
        top1 = std::max(top1, (u & p.absmask) - p.lo);
        out[i + j] = static_cast<OutT>(normal_code<M>(u, p));
        fl[i + j] = (u & ((1u << p.s0) - 1)) != 0 ? kIX : 0u;
      }
      if (top1 <= p.range) continue;
      for (std::size_t j = 0; j < kBlock; ++j)
        tmp[j] = full_code<M>(bits_of(in[i + j]), p, tfl[j]);
      narrow(out + i, tmp);
      narrow(fl + i, tfl);
    }
  }
  for (; i < n; ++i) {
    std::uint32_t f;
    out[i] = static_cast<OutT>(full_code<M>(bits_of(in[i]), p, f));
    fl[i] = static_cast<std::uint8_t>(f);
  }
}

// AVX2 helpers of fast_convert_avx2.cpp and fast_convert_tierm.cpp.
#if FPC_X86
#define FPC_AVX2 inline __attribute__((target("avx2"), always_inline))
FPC_AVX2 bool v_all_le(__m256i top, __m256i lim) {
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_max_epu32(top, lim), lim)) == -1;
}

FPC_AVX2 __m256i v_load(const float* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
#endif  // FPC_X86

}  // namespace

}  // namespace fpconform::detail
