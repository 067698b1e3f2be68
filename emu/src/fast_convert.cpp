// The fast fp32 -> narrow-format path (see fast_convert.hpp). Every result must equal
// `convert(bits, f32, to, r)` from convert.cpp; the comments below say which step of the clear
// path (round_to_format) each line reproduces.
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
//
// AVX2 (lean kernel): tiers 1 and 2 are written with intrinsics (GCC's code for them spilled and
// packed twice), and for rne/rtz/up/down tier 2 is "tier F": the rounding of subnormal and
// normal results alike by vroundps with the mode in the immediate (see v_tierf). After a block
// needed tier 2, the next blocks skip the tier 1 attempt until 4 in a row are all normal.
// AVX2, 1-byte codes, rne/rtz/up/down (where make_tierm_params allows): every block goes through
// tier M instead (see v_tierm), one fp32 addition per value in MXCSR's rounding mode, which the
// call sets and restores; it serves subnormal results, overflow and (mostly) specials alike, so
// normally distributed data and data with large values stay in one branch-free loop. In
// rne/up/down, runs of blocks whose |x| stay below the top binade (2^emax) take tier MS first
// (see v_tierms), which rounds x itself and needs one operation less per value.
#include "fpconform/fast_convert.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "fpconform/convert.hpp"
#include "fpconform/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define FPC_X86 1
#include <cpuid.h>
#include <immintrin.h>
// Tier MS on AVX-512; not inlined into its AVX2 callers (a wider target than theirs).
#define FPC_AVX512_FN __attribute__((target("avx512f,avx512bw,avx512dq,fma")))
#include "tierms_avx512.hpp"
#else
#define FPC_X86 0
#endif

#define FPC_INLINE inline __attribute__((always_inline))

namespace fpconform {

using detail::F32Params;
using RM = RoundingMode;

namespace {

constexpr std::uint32_t kAbs = 0x7FFFFFFFu;
constexpr std::uint32_t kInf = 0x7F800000u;
constexpr std::uint32_t kFracMask = 0x007FFFFFu;
constexpr std::uint32_t kHidden = 0x00800000u;
constexpr std::uint32_t kNever = 0xFFFFFFFFu;
constexpr std::uint8_t kSlow = 0x80;  // lane marker: recompute with `convert`
constexpr std::size_t kBlock = 64;    // values per block of the tier shortcut
constexpr std::uint32_t kIX = Flags::inexact, kUF = Flags::underflow, kOF = Flags::overflow,
                        kNV = Flags::invalid;

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

using LeanFn = void (*)(const float*, void*, std::size_t, const F32Params&);
using FullFn = void (*)(const float*, void*, std::uint8_t*, std::size_t, const F32Params&);

// ---- the two ISAs: identical source, different code generation ----
template <RM M, class OutT>
void lean_portable(const float* in, void* out, std::size_t n, const F32Params& p) {
  lean_impl<M, OutT>(in, out, n, p);
}
template <RM M, class OutT>
void full_portable(const float* in, void* out, std::uint8_t* fl, std::size_t n,
                   const F32Params& p) {
  full_impl<M, OutT>(in, out, fl, n, p);
}
#if FPC_X86
// ---- AVX2: tiers 1 and 2 written with intrinsics, tier 3 is the auto-vectorized lean_code
// above. Tier 1 and the integer tier 2 do the arithmetic of normal_code/finite_code.
#define FPC_AVX2 inline __attribute__((target("avx2"), always_inline))

// The AVX2 tiers: tier 1, the integer tier 2, tier F (tier 2 by floating point) and tier S
// (tier 2 for formats with fp32's exponent range: see sign_aligned).
enum VTier { kT1 = 1, kT2 = 2, kTF = 4, kTS = 8 };

struct VConst {
  __m256i abs, lo, range, hi, rebias, one, zero, smask, sign, sub_c, cap, k1, k2, kz, f32sign,
      expmask, scale_c, hidden;
  __m128i s0;
};

FPC_AVX2 VConst make_vconst(const F32Params& p, RM mode) {
  VConst c;
  c.abs = _mm256_set1_epi32(static_cast<int>(kAbs));
  c.lo = _mm256_set1_epi32(static_cast<int>(p.lo));
  c.range = _mm256_set1_epi32(static_cast<int>(p.range));
  c.hi = _mm256_set1_epi32(static_cast<int>(p.lo + p.range));
  c.rebias = _mm256_set1_epi32(static_cast<int>(p.rebias));
  c.one = _mm256_set1_epi32(1);
  c.zero = _mm256_setzero_si256();
  const std::uint32_t m = (1u << p.s0) - 1;
  c.smask = _mm256_set1_epi32(static_cast<int>(m));
  c.sign = _mm256_set1_epi32(static_cast<int>(p.sign_mask));
  c.sub_c = _mm256_set1_epi32(p.sub_c);
  c.cap = _mm256_set1_epi32(25);
  // Added before the shift: k1 with the rebias folded in (tier 1), k2 without (tier 2).
  const std::uint32_t near = mode == RM::rne ? m >> 1 : mode == RM::rna ? (m >> 1) + 1 : 0;
  c.k1 = _mm256_set1_epi32(static_cast<int>(p.rebias + near));
  c.k2 = _mm256_set1_epi32(static_cast<int>(near));
  c.kz = _mm256_set1_epi32(p.zero_code[1] == 0 ? -1 : 0);  // no negative zero: drop the sign
  c.s0 = _mm_cvtsi32_si128(static_cast<int>(p.s0));
  c.f32sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  c.expmask = _mm256_set1_epi32(kInf);
  c.hidden = _mm256_set1_epi32(static_cast<int>(kHidden));
  c.scale_c = _mm256_set1_epi32(static_cast<int>((254u + (23u - p.s0)) << 23));
  return c;
}

// round(x + k) at s0, k = (rebias or 0) + the mode's half-ulp constant; x >> s0 has the parity
// of (x + k) >> s0 because the rebias is a multiple of 2^24 when s0 <= 22 (m >= 1).
template <RM M>
FPC_AVX2 __m256i v_round(__m256i x, __m256i k, __m256i u, const VConst& c) {
  const __m256i xk = _mm256_add_epi32(x, k);
  if constexpr (M == RM::rne) {
    const __m256i lsb = _mm256_and_si256(_mm256_srl_epi32(x, c.s0), c.one);
    return _mm256_srl_epi32(_mm256_add_epi32(xk, lsb), c.s0);
  } else if constexpr (M == RM::rna || M == RM::rtz) {
    return _mm256_srl_epi32(xk, c.s0);
  } else if constexpr (M == RM::up || M == RM::down) {
    const __m256i negm = _mm256_srai_epi32(u, 31);
    const __m256i inc = M == RM::up ? _mm256_andnot_si256(negm, c.smask)
                                    : _mm256_and_si256(negm, c.smask);
    return _mm256_srl_epi32(_mm256_add_epi32(xk, inc), c.s0);
  } else {  // odd
    const __m256i exact = _mm256_cmpeq_epi32(_mm256_and_si256(xk, c.smask), c.zero);
    return _mm256_or_si256(_mm256_srl_epi32(xk, c.s0), _mm256_andnot_si256(exact, c.one));
  }
}

// n | sign where the sign bit of s is set.
FPC_AVX2 __m256i v_sign(__m256i n, __m256i s, const VConst& c) {
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(n),
                                              _mm256_castsi256_ps(_mm256_or_si256(n, c.sign)),
                                              _mm256_castsi256_ps(s)));
}

template <RM M>
FPC_AVX2 __m256i v_tier1(__m256i u, __m256i& top, const VConst& c) {
  const __m256i a = _mm256_and_si256(u, c.abs);
  top = _mm256_max_epu32(top, _mm256_sub_epi32(a, c.lo));
  return v_sign(v_round<M>(a, c.k1, u, c), u, c);
}

struct Tops {
  __m256i t1, t2;
};

// Tier 2 (integer); also tracks the maxima that say whether the block fitted tier 1 (t1) and
// tier 2 (t2). max(ef, 1) makes x exactly M for fp32 subnormals and zeros.
template <RM M, bool DropZeroSign>
FPC_AVX2 __m256i v_tier2(__m256i u, Tops& t, const VConst& c) {
  const __m256i a = _mm256_and_si256(u, c.abs);
  t.t1 = _mm256_max_epu32(t.t1, _mm256_sub_epi32(a, c.lo));
  t.t2 = _mm256_max_epu32(t.t2, a);
  const __m256i ef = _mm256_max_epi32(_mm256_srli_epi32(a, 23), c.one);
  const __m256i d = _mm256_max_epi32(_mm256_sub_epi32(c.sub_c, ef), c.zero);
  const __m256i x = _mm256_add_epi32(_mm256_add_epi32(a, c.rebias), _mm256_slli_epi32(d, 23));
  const __m256i sh = _mm256_min_epu32(d, c.cap);
  const __m256i xs = _mm256_srlv_epi32(x, sh);
  const __m256i exact = _mm256_cmpeq_epi32(_mm256_sllv_epi32(xs, sh), x);
  const __m256i jam = _mm256_or_si256(xs, _mm256_andnot_si256(exact, c.one));
  const __m256i n = v_round<M>(jam, c.k2, u, c);
  __m256i s = u;
  if constexpr (DropZeroSign)
    s = _mm256_andnot_si256(_mm256_and_si256(_mm256_cmpeq_epi32(n, c.zero), c.kz), u);
  return v_sign(n, s, c);
}

// Tier F (floating point; rne, rtz, up, down), for every |x| <= max finite: with
// E = max(ef, fp32 field of 2^emin) the grid is 2^q, q = E - 127 - m, and
//   y = |x| * 2^-q
// is exact (a power-of-two scaling; y < 2^(m+1)). vroundps rounds y to an integer n with the
// mode in its immediate (MXCSR's rounding mode is not used, NO_EXC leaves its flags alone), and
// the code is n + ((E - field(2^emin)) << m): a carry of n into 2^(m+1) moves to the next
// binade by itself. Needs m >= 1, emin - m >= -124 (so that 2^-q is a normal fp32, and for the
// stand-in below) and emin <= m (y never subnormal). Every operation is exact on normal fp32
// values, so MXCSR (rounding mode, DAZ, FTZ, exception masks) plays no part.
template <RM M, bool DropZeroSign>
FPC_AVX2 __m256i v_tierf(__m256i u, Tops& t, const VConst& c) {
  const __m256i a = _mm256_and_si256(u, c.abs);
  t.t1 = _mm256_max_epu32(t.t1, _mm256_sub_epi32(a, c.lo));
  t.t2 = _mm256_max_epu32(t.t2, a);
  // No lane may raise an FP exception or set an MXCSR flag: lanes above max finite (NaN, inf,
  // overflow; the block goes to tier 3 anyway) are clamped to it, and a nonzero fp32 subnormal
  // (a denormal operand) is replaced by 2^-126: both lie in (0, 2^(emin-m-1)), below half the
  // smallest subnormal of the format, where every mode rounds them alike (see float_tier). For
  // rne and rtz, where such values and zero all give 0, zero may take the stand-in too.
  __m256i lo_fill = c.hidden;
  if constexpr (M == RM::up || M == RM::down)
    lo_fill = _mm256_andnot_si256(_mm256_cmpeq_epi32(a, c.zero), c.hidden);
  const __m256i ac = _mm256_max_epu32(_mm256_min_epu32(a, c.hi), lo_fill);
  const __m256i me = _mm256_and_si256(_mm256_max_epi32(ac, c.lo), c.expmask);
  const __m256 scale = _mm256_castsi256_ps(_mm256_sub_epi32(c.scale_c, me));
  __m256 y = _mm256_mul_ps(_mm256_castsi256_ps(ac), scale);
  constexpr int kNoExc = _MM_FROUND_NO_EXC;
  if constexpr (M == RM::rne) {
    y = _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | kNoExc);
  } else if constexpr (M == RM::rtz) {
    y = _mm256_round_ps(y, _MM_FROUND_TO_ZERO | kNoExc);
  } else {  // up, down: round the signed value, then take the magnitude
    const __m256 sy = _mm256_or_ps(y, _mm256_castsi256_ps(_mm256_and_si256(u, c.f32sign)));
    y = _mm256_round_ps(sy, (M == RM::up ? _MM_FROUND_TO_POS_INF : _MM_FROUND_TO_NEG_INF) | kNoExc);
    y = _mm256_andnot_ps(_mm256_castsi256_ps(c.f32sign), y);
  }
  const __m256i n = _mm256_add_epi32(_mm256_cvttps_epi32(y),
                                     _mm256_srl_epi32(_mm256_sub_epi32(me, c.lo), c.s0));
  __m256i s = u;
  if constexpr (DropZeroSign)
    s = _mm256_andnot_si256(_mm256_and_si256(_mm256_cmpeq_epi32(n, c.zero), c.kz), u);
  return v_sign(n, s, c);
}

FPC_AVX2 bool v_all_le(__m256i top, __m256i lim) {
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_max_epu32(top, lim), lim)) == -1;
}

FPC_AVX2 __m256i v_load(const float* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// Codes of 8 lanes each (< 2^16, resp. < 2^8) to 16-bit / 8-bit stores.
FPC_AVX2 void v_store16(std::uint16_t* out, __m256i c0, __m256i c1) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm256_permute4x64_epi64(_mm256_packus_epi32(c0, c1), 0xD8));
}
FPC_AVX2 void v_store8(std::uint8_t* out, __m256i c0, __m256i c1, __m256i c2, __m256i c3) {
  const __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(c0, c1), _mm256_packus_epi32(c2, c3));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

// Tier S: the fp32 pattern rounded at s0 as it is (no abs, no sign re-insertion); nothing
// carries into the sign for |x| <= max finite, which t2 checks.
template <RM M>
FPC_AVX2 __m256i v_tiers(__m256i u, Tops& t, const VConst& c) {
  t.t2 = _mm256_max_epu32(t.t2, _mm256_and_si256(u, c.abs));
  return v_round<M>(u, c.k2, u, c);
}

template <int T, RM M, bool Z>
FPC_AVX2 __m256i v_code(const float* in, Tops& t, const VConst& c) {
  const __m256i u = v_load(in);
  if constexpr (T == kT1) return v_tier1<M>(u, t.t1, c);
  else if constexpr (T == kT2) return v_tier2<M, Z>(u, t, c);
  else if constexpr (T == kTS) return v_tiers<M>(u, t, c);
  else return v_tierf<M, Z>(u, t, c);
}

// Formats with fp32's exponent range: every block in tier S, or tier 3 when it holds NaN, inf
// or |x| > max finite.
template <RM M, class OutT>
FPC_AVX2 void lean_blocks_s(const float* in, OutT* out, std::size_t nblocks, const F32Params& p,
                            const VConst& c) {
  alignas(32) std::uint32_t tmp[kBlock];
  for (std::size_t b = 0; b < nblocks; ++b, in += kBlock, out += kBlock) {
    Tops t{c.zero, c.zero};
    v_block<kTS, M, false>(in, out, t, c);
    if (v_all_le(t.t2, c.hi)) continue;
    for (std::size_t j = 0; j < kBlock; ++j) tmp[j] = lean_code<M>(bits_of(in[j]), p);
    narrow(out, tmp);
  }
}

// One block of kBlock values through one tier, storing the codes and updating the maxima.
template <int T, RM M, bool Z, class OutT>
FPC_AVX2 void v_block(const float* in, OutT* out, Tops& t, const VConst& c) {
  if constexpr (sizeof(OutT) == 2) {
    for (std::size_t k = 0; k < kBlock; k += 16)
      v_store16(reinterpret_cast<std::uint16_t*>(out) + k, v_code<T, M, Z>(in + k, t, c),
                v_code<T, M, Z>(in + k + 8, t, c));
  } else {
    for (std::size_t k = 0; k < kBlock; k += 32)
      v_store8(reinterpret_cast<std::uint8_t*>(out) + k, v_code<T, M, Z>(in + k, t, c),
               v_code<T, M, Z>(in + k + 8, t, c), v_code<T, M, Z>(in + k + 16, t, c),
               v_code<T, M, Z>(in + k + 24, t, c));
  }
}

// Blocks start in tier 1; a block that needs more is redone in T2 (kT2 or kTF), and the next
// blocks go straight to T2 until 4 in a row turn out to be all normal; a block with NaN, inf or
// |x| > max finite ends in tier 3 (lean_code, auto-vectorized).
template <int T2, RM M, bool Z, class OutT>
FPC_AVX2 void lean_blocks(const float* in, OutT* out, std::size_t nblocks, const F32Params& p,
                          const VConst& c) {
  alignas(32) std::uint32_t tmp[kBlock];
  int streak = 4;  // consecutive all-normal blocks; < 4: skip the tier 1 attempt
  for (std::size_t b = 0; b < nblocks; ++b, in += kBlock, out += kBlock) {
    Tops t{c.zero, c.zero};
    if (streak >= 4) {
      v_block<kT1, M, Z>(in, out, t, c);
      if (v_all_le(t.t1, c.range)) continue;
      t = Tops{c.zero, c.zero};
    }
    v_block<T2, M, Z>(in, out, t, c);
    streak = v_all_le(t.t1, c.range) ? streak + 1 : 0;
    if (v_all_le(t.t2, c.hi)) continue;  // all |x| <= max finite
    for (std::size_t j = 0; j < kBlock; ++j) tmp[j] = lean_code<M>(bits_of(in[j]), p);
    narrow(out, tmp);
  }
}

// Tier M (1-byte codes; rne, rtz, up, down with MXCSR's rounding set to the mode, DAZ/FTZ off):
// every |x| whose code is a finite value or the clamp's overflow code, in one pass without
// per-lane branches or variable shifts. With ac = min(|x|, mg_hi) (the clamp makes every
// overflow the clamp's code), E = max(exponent of ac, 2^emin) and C = 2^(E + 23 - m), the sum
//   y = ac + C = fma(2^E, 2^(23 - m), ac)   (fp32, one rounding in MXCSR's mode)
// rounds ac to a multiple of ulp(C) = 2^(E - m), the target's grid at ac (its subnormal grid
// below 2^emin), and the fraction field of y is k = ac / 2^(E - m) rounded, in [0, 2^(m+1)] (a
// carry to 2^(m+1) is the next binade). The code is k + (E - emin) * 2^m: subtracting the bits
// of Cmin = 2^(emin + 23 - m) from y leaves (E - emin) << 23 | k, and one pmaddwd adds the two
// halves as k * 2^7 + ((E - emin) << 7) * 2^m = code << 7 (shifted back after the pack).
// The code's sign bit goes into the high half with the subtraction (sign_mask << (23 - m), a
// multiple of 2^24: the two constants differ only in their top byte, which vpblendvb picks by
// the top bit of x's top byte, its sign; vblendvps is a quarter slower here on Zen 3). For
// up/down the sum is signed (the mode rounds the signed value), and the sign bit then cancels in
// the subtraction. NaN (and inf where its code is not the clamp's) are out of reach of the
// clamp: where they have other codes (mg_track), max |x| is tracked and such a block is redone
// in tier 3.
// The loop is bound by the vector pipes (8 operations per 8 values, 1.5 more to pack), so every
// operation counts: the fma does C's exponent arithmetic and the addition at once, the shift after the
// pack is an immediate, and blocks are checked four at a time.
#define FPC_AVX2_FMA inline __attribute__((target("avx2,fma"), always_inline))
struct MConst {
  __m256i abs, sign, hi_pos, hi_neg, expm, lo, nq_pos, nq_neg, w, lim, safe, perm, ms_nq, ms_lim,
      ms_w_pos, ms_w_neg;
  __m256 k, ms_k;
};

FPC_AVX2_FMA MConst make_mconst(const F32Params& p, bool signed_sum) {
  MConst c;
  c.abs = _mm256_set1_epi32(static_cast<int>(kAbs));
  c.sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  c.hi_pos = _mm256_set1_epi32(static_cast<int>(p.mg_hi[0]));
  c.hi_neg = _mm256_set1_epi32(static_cast<int>(p.mg_hi[1]));
  c.expm = _mm256_set1_epi32(static_cast<int>(kInf));
  c.lo = _mm256_set1_epi32(static_cast<int>(p.mg_lo));
  c.k = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(p.mg_k + (127u << 23))));
  c.nq_pos = _mm256_set1_epi32(static_cast<int>(0u - p.mg_cmin));
  // negative lanes: + the code's sign bit (in the high half, see above), and for a signed sum
  // - 2^31 (y's sign bit)
  c.nq_neg = _mm256_set1_epi32(static_cast<int>(0u - p.mg_cmin + (p.sign_mask << p.s0) +
                                                (signed_sum ? 0x80000000u : 0u)));
  c.w = _mm256_set1_epi32(static_cast<int>(p.mg_w));
  c.lim = _mm256_set1_epi32(static_cast<int>(p.mg_lim));
  c.safe = _mm256_set1_epi32(static_cast<int>(std::min(p.mg_hi[0], p.mg_hi[1])));
  c.perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  c.ms_k = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(p.ms_k)));
  c.ms_nq = _mm256_set1_epi32(static_cast<int>(p.ms_nq));
  c.ms_lim = _mm256_set1_epi32(static_cast<int>(p.ms_lim));
  c.ms_w_pos = _mm256_set1_epi32(static_cast<int>(p.ms_w[0]));
  c.ms_w_neg = _mm256_set1_epi32(static_cast<int>(p.ms_w[1]));
  return c;
}

FPC_AVX2 __m256i v_sel(__m256i if0, __m256i if1, __m256i by_sign) {
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(if0), _mm256_castsi256_ps(if1),
                                              _mm256_castsi256_ps(by_sign)));
}

// code << 7 of 8 values (see above); Signed: up/down; Clamp: apply the clamp (without it,
// only lanes with |x| <= min(mg_hi) are right, which the caller checks by `top`); TwoHi: the
// clamp depends on the sign; Track: keep max |x| in top.
template <bool Signed, bool Clamp, bool TwoHi, bool Track>
FPC_AVX2_FMA __m256i v_tierm(const float* in, __m256i& top, const MConst& c) {
  const __m256i u = v_load(in);
  const __m256i a = _mm256_and_si256(u, c.abs);
  if constexpr (Track) top = _mm256_max_epu32(top, a);
  __m256i ac = a;
  if constexpr (Clamp) ac = _mm256_min_epu32(a, TwoHi ? v_sel(c.hi_pos, c.hi_neg, u) : c.hi_pos);
  const __m256i e = _mm256_max_epu32(_mm256_and_si256(ac, c.expm), c.lo);  // 2^E
  __m256 y;
  if constexpr (Signed) {
    const __m256i s = _mm256_and_si256(u, c.sign);
    y = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_or_si256(e, s)), c.k,
                        _mm256_castsi256_ps(_mm256_or_si256(ac, s)));
  } else {
    y = _mm256_fmadd_ps(_mm256_castsi256_ps(e), c.k, _mm256_castsi256_ps(ac));
  }
  const __m256i d =
      _mm256_add_epi32(_mm256_castps_si256(y), _mm256_blendv_epi8(c.nq_pos, c.nq_neg, u));
  return _mm256_madd_epi16(d, c.w);
}

// Tier MS ("signed sum"; rne, up, down): code << 7 of 8 values, right for every |x| < 2^emax
// (the caller checks the largest exponent field in `top`); one operation fewer than tier M,
// because it rounds x itself rather than |x|. With E = max(exponent of x, emin) and
// M = 2^(E + 23 - m) * (1.5 - h * 2^-23), h = half the code's sign bit (ms_k),
//   y = M + x = fma(2^E, ms_k, x)   (fp32, one rounding in MXCSR's mode)
// stays in M's binade, so it rounds x to a multiple of 2^(E - m) (the target's grid) as a signed
// value: what rne, up and down ask of x (not rtz: that would round M + x down). y's fraction field
// is 2^22 - h + r, r = x / 2^(E - m) rounded, |r| <= 2^(m+1): its low half, read as signed, is
// r - h, its high half (F << 7) | 0x3f with F = E + 150 - m. After y + ms_nq (the high half less
// a constant) pmaddwd weighs the halves by 2^m and +-2^7 by x's sign (vblendvps): the low half
// gives 2^7 (|r| - h) for x >= 0 and 2^7 (|r| + h) for x < 0, which differ by 2^7 times the
// code's sign bit, so the sum is (code with its sign) << 7, as in tier M. Where r >= h the
// fraction field reaches 2^22 and the high half reads 1 more (the low half is r - h either
// way): the sum is 2^m < 2^7 more, which the shift after the pack drops.
FPC_AVX2_FMA __m256i v_tierms(const float* in, __m256i& top, const MConst& c) {
  const __m256i u = v_load(in);
  const __m256i ea = _mm256_and_si256(u, c.expm);
  top = _mm256_max_epu32(top, ea);
  const __m256i e = _mm256_max_epu32(ea, c.lo);  // 2^E
  const __m256 y = _mm256_fmadd_ps(_mm256_castsi256_ps(e), c.ms_k, _mm256_castsi256_ps(u));
  return _mm256_madd_epi16(_mm256_add_epi32(_mm256_castps_si256(y), c.ms_nq),
                           v_sel(c.ms_w_pos, c.ms_w_neg, u));
}

// 32 codes << 7 (< 2^15) to bytes: to words, shift back, to bytes, undo the lane interleave.
FPC_AVX2 __m256i v_pack_m(__m256i c0, __m256i c1, __m256i c2, __m256i c3, __m256i perm) {
  const __m256i w01 = _mm256_srli_epi16(_mm256_packus_epi32(c0, c1), 7);
  const __m256i w23 = _mm256_srli_epi16(_mm256_packus_epi32(c2, c3), 7);
  return _mm256_permutevar8x32_epi32(_mm256_packus_epi16(w01, w23), perm);
}

// nblocks blocks of 64 through tier M: the bytes to out, and the largest |x| when Track.
template <bool Signed, bool Clamp, bool TwoHi, bool Track>
FPC_AVX2_FMA __m256i v_blocks_m(const float* in, std::uint8_t* out, std::size_t nblocks,
                                const MConst& cref) {
  // A whole block per iteration: 8 independent chains (faster than 4 when the caches are cold;
  // the same in steady state on Zen 3).
  const MConst c = cref;
  __m256i top = _mm256_setzero_si256();
  for (std::size_t k = 0; k < nblocks * kBlock; k += kBlock) {
    __m256i r[8];
    for (int j = 0; j < 8; ++j) r[j] = v_tierm<Signed, Clamp, TwoHi, Track>(in + k + 8 * j, top, c);
    for (int h = 0; h < 2; ++h)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k + 32 * h),
                          v_pack_m(r[4 * h], r[4 * h + 1], r[4 * h + 2], r[4 * h + 3], c.perm));
  }
  return top;
}

// One group of blocks through tier M. Where the clamp gives every input its code (!mg_track),
// one clamped pass without checks. Else the group first goes without the clamp (one operation
// less per value), which is exact while every |x| <= min(mg_hi) (no overflow, no NaN or inf); a
// group that is not is redone block by block with the clamp, and the next kClampRun groups start
// there (large values come in runs); a block with a lane beyond mg_lim (NaN, or inf where the
// clamp does not give its code) is redone by lean_code.
template <bool Signed, bool TwoHi, RM M>
FPC_AVX2_FMA void tierm_group(const float* in, std::uint8_t* out, std::size_t g, const MConst& c,
                              const F32Params& p, int& clamp_run) {
  constexpr int kClampRun = 8;
  if (!p.mg_track) {
    v_blocks_m<Signed, true, TwoHi, false>(in, out, g, c);
    return;
  }
  if (clamp_run == 0 && v_all_le(v_blocks_m<Signed, false, TwoHi, true>(in, out, g, c), c.safe))
    return;
  clamp_run = clamp_run == 0 ? kClampRun : clamp_run - 1;
  for (std::size_t b = 0; b < g; ++b) {
    const float* bin = in + b * kBlock;
    std::uint8_t* bout = out + b * kBlock;
    if (v_all_le(v_blocks_m<Signed, true, TwoHi, true>(bin, bout, 1, c), c.lim)) continue;
    for (std::size_t j = 0; j < kBlock; ++j)
      bout[j] = static_cast<std::uint8_t>(lean_code<M>(bits_of(bin[j]), p));
  }
}

constexpr std::size_t kGroup = 4;    // blocks per check in tier M
constexpr std::size_t kMsGroup = 8;  // blocks per check in tier MS

// Tier MS over the blocks while every |x| of each group of kMsGroup blocks is below 2^emax;
// returns the blocks done (a group that reaches the top binade is not counted: its bytes are
// wrong). Its own function: with only tier MS's constants live (copied to locals), the loop
// keeps them in registers; 32 values per step with two running maxima (6% faster on Zen 3 than
// 64 per step, where GCC reloaded six constants from memory every step). One loop over the
// blocks with the check every kMsGroup (rather than a loop per group) is a little faster.
__attribute__((target("avx2,fma"), noinline)) std::size_t tierms_groups(const float* in,
                                                                         std::uint8_t* out,
                                                                         std::size_t nblocks,
                                                                         const MConst& cref) {
  const MConst c = cref;
  __m256i top0 = _mm256_setzero_si256(), top1 = top0;
  for (std::size_t b = 0; b < nblocks; ++b) {
    const float* bin = in + b * kBlock;
    std::uint8_t* bout = out + b * kBlock;
    for (int h = 0; h < 2; ++h) {
      const float* hin = bin + 32 * h;
      const __m256i r0 = v_tierms(hin, top0, c), r1 = v_tierms(hin + 8, top1, c),
                    r2 = v_tierms(hin + 16, top0, c), r3 = v_tierms(hin + 24, top1, c);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(bout + 32 * h),
                          v_pack_m(r0, r1, r2, r3, c.perm));
    }
    if (b % kMsGroup == kMsGroup - 1 || b == nblocks - 1) {
      if (!v_all_le(_mm256_max_epu32(top0, top1), c.ms_lim)) return b - b % kMsGroup;
      top0 = top1 = _mm256_setzero_si256();
    }
  }
  return nblocks;
}

// Whether every |x| of a block is below tier MS's limit (2^emax, NaN and inf excluded).
FPC_AVX2 bool v_block_below_top(const float* in, const MConst& c) {
  __m256i top = _mm256_setzero_si256();
  for (int j = 0; j < 8; ++j)
    top = _mm256_max_epu32(top, _mm256_and_si256(v_load(in + 8 * j), c.expm));
  return v_all_le(top, c.ms_lim);
}

// Blocks of 64. In rne/up/down they go through tier MS first, which is exact while every
// |x| < 2^emax (below the top binade, where overflow starts). In a group that reaches the top
// binade, the blocks that do are redone in tier M. A lone such block after a run of good groups
// (a rare large value) costs only that; otherwise the next groups go to tier M, as many as
// failed in a row (1, 2, 4, ... up to kMsWaitMax), before tier MS is tried again: data scaled
// to fill the format's range (MX blocks, amax scaling) costs tier M plus a rare failed attempt.
// noinline: the caller sets MXCSR around it, and no floating-point operation may move across
// that.
template <bool Signed, bool TwoHi, RM M>
__attribute__((target("avx2,fma"), noinline)) void lean_blocks_m(const float* in,
                                                                 std::uint8_t* out,
                                                                 std::size_t nblocks,
                                                                 const F32Params& p) {
  constexpr std::size_t kMsWaitMax = 64;
  const MConst c = make_mconst(p, Signed);
  const bool ms = M != RM::rtz && p.ms_ok;
  int clamp_run = 0;        // tier M groups left to start with the clamp
  std::size_t ms_wait = 1;  // tier MS groups to do in tier M after the next failure
  while (nblocks > 0) {
    std::size_t mblocks = nblocks;  // blocks for tier M now
    if (ms) {
      const std::size_t done = p.ms_avx512
                                   ? detail::tierms_groups_avx512(in, out, nblocks, kMsGroup, p)
                                   : tierms_groups(in, out, nblocks, c);
      in += done * kBlock;
      out += done * kBlock;
      nblocks -= done;
      if (nblocks == 0) break;
      const std::size_t g = std::min(kMsGroup, nblocks);  // the group that failed
      std::size_t bad = 0;
      for (std::size_t b = 0; b < g; ++b, in += kBlock, out += kBlock) {
        if (v_block_below_top(in, c)) continue;
        ++bad;
        tierm_group<Signed, TwoHi, M>(in, out, 1, c, p, clamp_run);
      }
      nblocks -= g;
      if (done > 0) {
        ms_wait = 1;
        if (bad == 1) continue;
      }
      mblocks = std::min(nblocks, ms_wait * kMsGroup);
      ms_wait = std::min(2 * ms_wait, kMsWaitMax);
    }
    for (std::size_t g = 0; mblocks > 0; mblocks -= g, nblocks -= g) {
      g = std::min(kGroup, mblocks);
      tierm_group<Signed, TwoHi, M>(in, out, g, c, p, clamp_run);
      in += g * kBlock;
      out += g * kBlock;
    }
  }
}
#undef FPC_AVX2_FMA

// Runs tier M over the whole blocks with MXCSR = all exceptions masked, DAZ/FTZ off, rounding
// as mode M; the caller's MXCSR (mode, flags and all) is put back afterwards.
template <RM M>
__attribute__((target("avx2,fma"))) void run_tierm(const float* in, std::uint8_t* out,
                                                   std::size_t nblocks, const F32Params& p) {
  constexpr bool kSigned = M == RM::up || M == RM::down;
  constexpr unsigned kRc = M == RM::rne ? 0x0000u : M == RM::down ? 0x2000u
                           : M == RM::up ? 0x4000u : 0x6000u;
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(0x1F80u | kRc);
  if (p.mg_hi[0] != p.mg_hi[1]) lean_blocks_m<kSigned, true, M>(in, out, nblocks, p);
  else lean_blocks_m<kSigned, false, M>(in, out, nblocks, p);
  _mm_setcsr(csr);
}

template <RM M, class OutT>
__attribute__((target("avx2"))) void lean_avx2(const float* in, void* outv, std::size_t n,
                                               const F32Params& pref) {
  const F32Params p = pref;
  if constexpr ((M == RM::rne || M == RM::rtz || M == RM::up || M == RM::down) &&
                sizeof(OutT) == 1) {
    const std::size_t nb = n / kBlock;
    if (p.mg_ok && nb > 0) {
      run_tierm<M>(in, reinterpret_cast<std::uint8_t*>(outv), nb, p);
      OutT* out = static_cast<OutT*>(outv);
      for (std::size_t i = nb * kBlock; i < n; ++i)
        out[i] = static_cast<OutT>(lean_code<M>(bits_of(in[i]), p));
      return;
    }
  }
  // Tier 1 takes the rne parity from |x| >> s0, which equals that of (|x| + rebias) >> s0 only
  // when m >= 1 (the rebias is a multiple of 2^24); m = 0 formats use the generic loop.
  if (p.range == 0 || p.s0 == 23) return lean_impl<M, OutT>(in, outv, n, p);
  OutT* __restrict out = static_cast<OutT*>(outv);
  const VConst c = make_vconst(p, M);
  const bool drop_zero_sign = p.zero_code[1] == 0;
  const std::size_t nb = n / kBlock;
  constexpr bool kFloatMode = M == RM::rne || M == RM::rtz || M == RM::up || M == RM::down;
  if (p.sign_aligned && sizeof(OutT) == 2) {
    lean_blocks_s<M>(in, out, nb, p, c);
  } else if (kFloatMode && p.float_tier) {
    if (drop_zero_sign) lean_blocks<kTF, M, true>(in, out, nb, p, c);
    else lean_blocks<kTF, M, false>(in, out, nb, p, c);
  } else if (drop_zero_sign) {
    lean_blocks<kT2, M, true>(in, out, nb, p, c);
  } else {
    lean_blocks<kT2, M, false>(in, out, nb, p, c);
  }
  for (std::size_t i = nb * kBlock; i < n; ++i)
    out[i] = static_cast<OutT>(lean_code<M>(bits_of(in[i]), p));
}

template <RM M, class OutT>
__attribute__((target("avx2"))) void full_avx2(const float* in, void* out, std::uint8_t* fl,
                                               std::size_t n, const F32Params& p) {
  full_impl<M, OutT>(in, out, fl, n, p);
}
#undef FPC_AVX2
#endif

template <class OutT>
void pick(RM mode, bool avx2, LeanFn& lean, FullFn& full) {
#define FPC_PICK(MODE)                                      \
  case RM::MODE:                                            \
    lean = &lean_portable<RM::MODE, OutT>;                  \
    full = &full_portable<RM::MODE, OutT>;                  \
    if (FPC_X86 && avx2) FPC_PICK_AVX2(MODE)                \
    return;
#if FPC_X86
#define FPC_PICK_AVX2(MODE) lean = &lean_avx2<RM::MODE, OutT>, full = &full_avx2<RM::MODE, OutT>;
#else
#define FPC_PICK_AVX2(MODE) (void)0;
#endif
  switch (mode) {
    FPC_PICK(rne)
    FPC_PICK(rna)
    FPC_PICK(rtz)
    FPC_PICK(up)
    FPC_PICK(down)
    FPC_PICK(odd)
    default: lean = nullptr; full = nullptr; return;
  }
#undef FPC_PICK
#undef FPC_PICK_AVX2
}

bool cpu_has_f16c() {
#if FPC_X86
  static const bool has = [] {
    __builtin_cpu_init();
    // F16C is CPUID.1:ECX bit 29, read directly: clang's __builtin_cpu_supports lacks "f16c".
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
    return __builtin_cpu_supports("avx2") != 0 && f16c;
  }();
  return has;
#else
  return false;
#endif
}

#if FPC_X86
// fp32 -> IEEE binary16 by the instruction, 8 values per step, the rounding in the immediate.
template <int Imm>
__attribute__((target("avx2,f16c"))) void vcvtps2ph_n(const float* in, std::uint16_t* out,
                                                      std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i lo = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), Imm);
    const __m128i hi = _mm256_cvtps_ph(_mm256_loadu_ps(in + i + 8), Imm);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_set_m128i(hi, lo));
  }
  if (i + 8 <= n) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), Imm));
    i += 8;
  }
  if (i < n) {  // the tail through a zero-padded buffer (no reads past the input)
    alignas(32) float t[8] = {};
    alignas(16) std::uint16_t o[8];
    std::memcpy(t, in + i, (n - i) * sizeof(float));
    _mm_store_si128(reinterpret_cast<__m128i*>(o), _mm256_cvtps_ph(_mm256_load_ps(t), Imm));
    std::memcpy(out + i, o, (n - i) * sizeof(std::uint16_t));
  }
}

void vcvtps2ph_imm(int imm, const float* in, std::uint16_t* out, std::size_t n) {
  switch (imm) {
    case 0: return vcvtps2ph_n<0>(in, out, n);
    case 1: return vcvtps2ph_n<1>(in, out, n);
    case 2: return vcvtps2ph_n<2>(in, out, n);
    default: return vcvtps2ph_n<3>(in, out, n);
  }
}
#endif

// Whether `to` is IEEE binary16 by its data (any name) and r is a rounding vcvtps2ph performs
// exactly as the clear path does: its immediate (0 rne, 1 down, 2 up, 3 rtz) or -1.
int native_f16_immediate(const Format& to, const Rounding& r) {
  const bool binary16 = to.exp_bits == 5 && to.man_bits == 10 && to.bias == 15 && to.is_signed &&
                        to.subnormals && to.has_zero && to.inf == InfEncoding::ieee &&
                        to.nan == NanEncoding::ieee && to.width() == 16;
  if (!binary16 || r.sat != Saturation::none || r.ftz || r.daz) return -1;
  switch (r.mode) {
    case RM::rne: return 0;
    case RM::down: return 1;
    case RM::up: return 2;
    case RM::rtz: return 3;
    default: return -1;
  }
}

// The x86 features this file dispatches on, read once. Tier M needs FMA besides AVX2 (every
// AVX2 CPU so far has it; checked all the same).
struct CpuFeatures {
  bool avx2 = false, fma = false, avx512 = false;  // avx512: F, BW and DQ
};

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    CpuFeatures c;
#if FPC_X86
    __builtin_cpu_init();
    c.avx2 = __builtin_cpu_supports("avx2") != 0;
    c.fma = __builtin_cpu_supports("fma") != 0;
    // (libgcc sets these only where the OS saves the zmm state, as it does for AVX)
    c.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq");
#endif
    return c;
  }();
  return f;
}

bool cpu_has_avx2() { return cpu_features().avx2; }
bool cpu_has_fma() { return cpu_features().fma; }
bool cpu_has_avx512() { return cpu_features().avx2 && cpu_features().fma && cpu_features().avx512; }

bool overflow_to_infinity(RM m, bool negative) {
  switch (m) {
    case RM::rtz:
    case RM::odd: return false;
    case RM::up: return !negative;
    case RM::down: return negative;
    default: return true;
  }
}

// Whether the vectorized kernels model (to, r); otherwise every element goes to `convert`.
bool kernel_supports(const Format& to, const Rounding& r) {
  if (is_stochastic(r.mode)) return false;
  if (to.width() > 16 || to.man_bits > 22 || to.exp_bits < 1) return false;
  if (to.bias < -128 || to.bias > 128) return false;
  return true;
}

// Tier MS (see v_tierms), on top of tier M: rne/up/down, |x| below 2^emax.
void make_tierms_params(F32Params& p, const Format& f, const Rounding& r) {
  p.ms_ok = false;
  const int m = f.man_bits, emin = f.emin(), emax = f.emax();
  // m >= 1: the formats its test covers (tier M serves the rest)
  if (r.mode == RM::rtz || emax - 1 < emin || m < 1) return;
  const std::uint32_t h = p.sign_mask >> 1;  // half the code's sign bit: 1 << (width - 2)
  // The high half of y + ms_nq is (E - emin) << 7 plus h << (7 - m) (plus 1 where r >= h), a
  // positive int16 for every E < emax.
  const std::uint32_t sign_term = (h << 7) >> m;  // exact: h << 7 = 2^(width + 5), m < width
  if (h == 0 || (static_cast<std::uint32_t>(emax - 1 - emin) << 7) + sign_term + 1 > 0x7FFFu)
    return;
  p.ms_k = static_cast<std::uint32_t>(150 - m) << 23 | (0x400000u - h);
  const std::uint32_t q_hi = (static_cast<std::uint32_t>(emin + 150 - m) << 7) + 0x3Fu - sign_term;
  p.ms_nq = 0u - (q_hi << 16);
  p.ms_w[0] = 1u << (16 + m) | 0x0080u;  // x >= 0: the low half times 2^7
  p.ms_w[1] = 1u << (16 + m) | 0xFF80u;  // x < 0: the low half times -2^7
  p.ms_lim = static_cast<std::uint32_t>(emax - 1 + 127) << 23;
  p.ms_ok = true;
}

// Tier M (see v_tierm): signed 1-byte formats with subnormals, zero and -0, 2^emin a normal
// fp32, rne/rtz/up/down, and an overflow result that is the code reached by clamping |x| to
// mg_hi: the value of max finite (saturating results) or of the code after it (inf or NaN next to
// max finite, as in e5m2 and e4m3). The clamp also keeps every C = 2^(E+23-m) a normal fp32.
void make_tierm_params(F32Params& p, const Format& f, const Rounding& r) {
  p.mg_ok = false;
  const int m = f.man_bits, emin = f.emin();
  const bool mode_ok = r.mode == RM::rne || r.mode == RM::rtz || r.mode == RM::up ||
                       r.mode == RM::down;
  if (!cpu_has_fma()) return;
  if (!mode_ok || f.width() > 8 || !f.is_signed || !f.subnormals || !f.has_zero ||
      !f.has_negative_zero() || f.bias > 127 || emin < -126 || m > 6)
    return;
  // fp32 bits of the value of magnitude code c (>= the first normal code), 0 if not a normal fp32.
  auto value_bits = [&](std::uint32_t c) -> std::uint32_t {
    const int e = static_cast<int>(c >> m) - f.bias + 127;
    if ((c >> m) == 0 || e < 1 || e > 254) return 0;
    return static_cast<std::uint32_t>(e) << 23 | (c & ((1u << m) - 1)) << (23 - m);
  };
  std::uint32_t clamp_code[2];
  for (int neg = 0; neg < 2; ++neg) {
    const std::uint32_t sign = neg ? p.sign_mask : 0;
    const std::uint32_t ovf = p.ovf_code[neg];
    if (ovf == (p.maxf | sign)) clamp_code[neg] = p.maxf;
    else if (p.maxf + 1 <= p.mag_mask && ovf == ((p.maxf + 1) | sign)) clamp_code[neg] = p.maxf + 1;
    else return;
    p.mg_hi[neg] = value_bits(clamp_code[neg]);
    // C = 2^(E + 23 - m) for E up to the clamp's exponent must stay below 2^128.
    if (p.mg_hi[neg] == 0 || (p.mg_hi[neg] >> 23) + 23 - m > 254) return;
  }
  p.mg_lo = static_cast<std::uint32_t>(emin + 127) << 23;
  p.mg_k = static_cast<std::uint32_t>(23 - m) << 23;
  p.mg_cmin = p.mg_lo + p.mg_k;
  // pmaddwd weights: low half (k) times 2^7, high half (dE << 7 and the code's sign bit) times 2^m.
  p.mg_w = 1u << (16 + m) | 1u << 7;
  // The code's sign bit goes into the high half as sign_mask << (23 - m), which must lie in
  // bits 24..30 (true for widths m + 2 .. m + 8: every format that gets here).
  const std::uint64_t sign_hi = static_cast<std::uint64_t>(p.sign_mask) << (23 - m);
  if (sign_hi % (1u << 24) != 0 || sign_hi >= (1u << 31)) return;
  // Inputs the clamp gets right by itself: inf, and NaN too where its code carries no payload.
  bool inf_ok = true, nan_ok = p.nan_paymask == 0;
  for (int neg = 0; neg < 2; ++neg) {
    const std::uint32_t c = clamp_code[neg] | (neg ? p.sign_mask : 0);
    inf_ok = inf_ok && p.inf_code[neg] == c;
    nan_ok = nan_ok && p.nan_code[neg] == c;
  }
  p.mg_track = !(inf_ok && nan_ok);
  p.mg_lim = inf_ok ? kInf : kInf - 1;  // the largest |x| pattern tier M serves
  p.mg_ok = true;
  make_tierms_params(p, f, r);
}

F32Params make_params(const Format& f, const Rounding& r) {
  F32Params p{};
  const int m = f.man_bits;
  const int w = f.width();
  const std::uint32_t sm = static_cast<std::uint32_t>(f.sign_mask());
  p.tiny_after = r.tininess == Tininess::after_rounding;
  p.daz_lim = r.daz ? kHidden : 0;
  p.ftz_m = r.ftz ? ~0u : 0u;
  p.has_zero_m = f.has_zero ? ~0u : 0u;
  p.unsigned_m = f.is_signed ? 0u : ~0u;
  p.below_lim = f.subnormals ? -(1 << 30) : 0;
  p.absmask = f.is_signed ? kAbs : 0xFFFFFFFFu;
  p.bias = f.bias;
  p.rebias = static_cast<std::uint32_t>(f.bias - 127) << 23;
  p.s0 = static_cast<std::uint32_t>(23 - m);
  p.maxf = static_cast<std::uint32_t>(f.max_finite_code());
  p.sign_mask = sm;
  p.mag_mask = static_cast<std::uint32_t>(f.magnitude_mask());
  p.sign_shift = static_cast<std::uint32_t>(32 - w);
  p.sub_lo = f.min_normal_field();
  p.sub_c = p.sub_lo + 127 - f.bias;

  const int emin = f.emin();
  // fp32 subnormal M * 2^-149 is tiny iff M < 2^(emin + 149).
  p.sub_tiny_lim = emin + 149 >= 31 ? kNever : 1u << (emin + 149);
  // ... and has exponent emin - 1 iff M << (-125 - emin) has its top bit at 2^23.
  p.tz_shift = static_cast<std::uint32_t>(-125 - emin > 0 ? -125 - emin : 0);
  const std::uint32_t top = 1u << 24;
  const std::uint32_t near_half = top - (1u << (p.s0 - 1));      // rne, rna: carry at >= half
  const std::uint32_t near_any = top - (1u << p.s0) + 1;          // directed: carry if inexact
  // A tie rounds away under rne when the all-ones p-bit significand's code, in the unbounded
  // encoding (tiny_after_rounding), is odd: always for m >= 1; for m = 0 the exponent field's
  // parity, even (0) with subnormals and odd (-1) without.
  const bool tie_odd = !(f.subnormals && m == 0);
  switch (r.mode) {
    case RM::rne: p.thresh_pos = p.thresh_neg = near_half + (tie_odd ? 0 : 1); break;
    case RM::rna: p.thresh_pos = p.thresh_neg = near_half; break;
    case RM::up: p.thresh_pos = near_any, p.thresh_neg = kNever; break;
    case RM::down: p.thresh_pos = kNever, p.thresh_neg = near_any; break;
    // Round to odd moves the all-ones significand up only from an even code (m = 0 with
    // subnormals), and then whenever it is inexact.
    case RM::odd: p.thresh_pos = p.thresh_neg = tie_odd ? kNever : near_any; break;
    default: p.thresh_pos = p.thresh_neg = kNever; break;
  }
  if (!p.tiny_after) p.thresh_pos = p.thresh_neg = kNever;
  // An fp32 subnormal into a format without subnormals whose emin is below -126: its exponent
  // is not fixed by the fp32 exponent field, so `convert` does those lanes.
  p.may_slow = !f.subnormals && emin <= -127;
  p.fine_m = f.subnormals && f.bias == 128 ? ~0u : 0u;
  // Tier F (AVX2) needs every 2^-q, q in [emin - m, emax - m], to be a normal fp32, and
  // 2^-125 <= half the smallest subnormal (for its stand-in for fp32 subnormal inputs).
  // With emin <= m, |x| * 2^-q >= min(|x|, 2^-126) stays a normal fp32: no FP operation in the
  // tier sees or makes a subnormal, so MXCSR's DAZ/FTZ cannot change it.
  p.float_tier = f.subnormals && m >= 1 && emin - m >= -124 && emin <= m;
  p.slow_m = p.may_slow ? ~0u : 0u;
  // fp32's own exponent range (e = 8, bias 127: bf16 and the like): the code of every |x| <= max
  // finite is the fp32 pattern, sign and all, rounded at s0 (the sign lands on the format's sign
  // bit, subnormals on subnormals, a carry moves into the exponent), with -0 kept (AVX2 tier S).
  p.sign_aligned = f.is_signed && f.exp_bits == 8 && f.bias == 127 && f.subnormals &&
                   f.has_zero && f.has_negative_zero() && f.inf == InfEncoding::ieee && m >= 1;

  for (int neg = 0; neg < 2; ++neg) {
    const bool ng = neg != 0;
    const std::uint32_t sign = ng ? sm : 0;
    const std::uint32_t maxf_code = p.maxf | sign;
    // overflow_result
    std::uint32_t ovf = maxf_code;
    if (r.sat == Saturation::infinite || (r.sat == Saturation::none && overflow_to_infinity(r.mode, ng))) {
      if (f.has_inf()) ovf = static_cast<std::uint32_t>(f.inf_code(false)) | sign;
      else if (f.has_nan()) ovf = static_cast<std::uint32_t>(f.nan_code(ng) & f.code_mask());
    }
    p.ovf_code[neg] = ovf;
    // infinite input
    if (f.has_inf() && r.sat != Saturation::finite) {
      p.inf_code[neg] = static_cast<std::uint32_t>(f.inf_code(false)) | sign;
      p.inf_flags = 0;
    } else if (r.sat != Saturation::finite && f.has_nan()) {
      p.inf_code[neg] = static_cast<std::uint32_t>(f.nan_code(ng) & f.code_mask());
      p.inf_flags = Flags::invalid;
    } else {
      p.inf_code[neg] = maxf_code;
      p.inf_flags = Flags::overflow | Flags::inexact;
    }
    // zero inputs, and rounded results of magnitude 0 where the format has a zero: zero_result
    // with the sign where it has a zero, zero_result(false) where it has none.
    const std::uint32_t minpos = static_cast<std::uint32_t>(f.min_positive_code());
    p.zero_code[neg] = f.has_zero ? (ng && f.has_negative_zero() ? sm : 0) : minpos;
    // ftz: zero_result(negative).
    p.ftz_code[neg] = f.has_zero ? p.zero_code[neg] : minpos | sign;
    p.nan_code[neg] = f.has_nan() ? static_cast<std::uint32_t>(f.nan_code(ng) & f.code_mask()) : 0;
  }
  p.zero_flags = f.has_zero ? 0 : Flags::underflow | Flags::inexact;
  p.nan_paymask = f.nan == NanEncoding::ieee && m > 1
                      ? static_cast<std::uint32_t>(f.quiet_bit() - 1)
                      : 0;
  p.nan_flags_quiet = f.has_nan() ? 0 : Flags::invalid;
  p.uns_neg_code = f.has_nan() ? static_cast<std::uint32_t>(f.nan_code(false) & f.code_mask()) : 0;
  p.minnorm_code = static_cast<std::uint32_t>(f.min_normal_code());

  // The normal-range shortcut: [2^emin, maxf] as fp32 patterns (only fp32 normals).
  const std::uint64_t mf = f.max_finite_code();
  const int field = static_cast<int>(mf >> m);
  const std::uint32_t tfrac = static_cast<std::uint32_t>(mf & ((1ull << m) - 1));
  const int fe = field - f.bias + 127;  // fp32 exponent field of maxf
  std::uint32_t hi = 0;
  if (field >= p.sub_lo && fe >= 1) hi = fe >= 255 ? 0x7F7FFFFFu : (static_cast<std::uint32_t>(fe) << 23) | (tfrac << p.s0);
  std::uint32_t lo = emin + 127 <= 1 ? kHidden : static_cast<std::uint32_t>(emin + 127) << 23;
  // Tier 1 adds up to 2^s0 - 1 to |x| + rebias; that must stay below bit 31 (the sign).
  const bool tier1_fits = hi != 0 && static_cast<std::int64_t>(hi) + static_cast<std::int32_t>(p.rebias) +
                                             (std::int64_t{1} << p.s0) <= (std::int64_t{1} << 31);
  if (hi != 0 && lo <= hi && tier1_fits) {
    p.lo = lo;
    p.range = hi - lo;
  } else {
    p.lo = 0;
    p.range = 0;  // no shortcut
  }
  make_tierm_params(p, f, r);
  return p;
}

}  // namespace

namespace detail {
F32Params make_f32_params(const Format& to, const Rounding& r) { return make_params(to, r); }
}  // namespace detail

std::string_view to_string(ConvertKernel k) {
  switch (k) {
    case ConvertKernel::best: return "best";
    case ConvertKernel::portable: return "portable";
    case ConvertKernel::avx2: return "avx2";
    case ConvertKernel::reference: return "reference";
    case ConvertKernel::f16c: return "f16c";
    case ConvertKernel::avx512: return "avx512";
  }
  return "?";
}

bool kernel_available(ConvertKernel k) {
  if (k == ConvertKernel::f16c) return cpu_has_f16c();
  if (k == ConvertKernel::avx512) return cpu_has_f16c() && cpu_has_avx512();
  return k != ConvertKernel::avx2 || cpu_has_avx2();
}

F32Converter::F32Converter(const Format& to, const Rounding& r, ConvertKernel k)
    : to_(to), f32_(*find_builtin("f32")), r_(r) {
  if (to.width() > 16 || to.width() < 1)
    throw Error("format", "fast conversion writes codes of at most 16 bits; '" + to.name +
                              "' is " + std::to_string(to.width()) + " bits wide");
  code_bytes_ = to.width() <= 8 ? 1 : 2;
  if (k == ConvertKernel::avx2 && !cpu_has_avx2())
    throw Error("kernel", "avx2 requested but this CPU (or build) has no AVX2");
  if (k == ConvertKernel::f16c && !cpu_has_f16c())
    throw Error("kernel", "f16c requested but this CPU (or build) has no AVX2 and F16C");
  if (k == ConvertKernel::avx512 && !kernel_available(k))
    throw Error("kernel",
                "avx512 requested but this CPU (or build) lacks AVX2, F16C or AVX-512 F/BW/DQ");
  if (k == ConvertKernel::best)
    k = kernel_available(ConvertKernel::avx512) ? ConvertKernel::avx512
        : cpu_has_f16c()                         ? ConvertKernel::f16c
        : cpu_has_avx2()                         ? ConvertKernel::avx2
                                                 : ConvertKernel::portable;
  if (k != ConvertKernel::reference && !kernel_supports(to, r)) k = ConvertKernel::reference;
  kernel_ = k;
  if (k == ConvertKernel::reference) return;
  p_ = make_params(to, r);
  const bool avx2 = k != ConvertKernel::portable;
  if (k == ConvertKernel::f16c || k == ConvertKernel::avx512)
    native_f16_imm_ = native_f16_immediate(to, r);
  p_.ms_avx512 = k == ConvertKernel::avx512 && p_.ms_ok;
  if (code_bytes_ == 1) pick<std::uint8_t>(r.mode, avx2, lean_, full_);
  else pick<std::uint16_t>(r.mode, avx2, lean_, full_);
  use_lean_ = to.is_signed && to.subnormals && to.has_zero && to.bias <= 127 && !r.ftz && !r.daz;
}

void F32Converter::run_reference(const float* in, void* out, std::uint8_t* flags_out,
                                 std::size_t n, std::uint8_t* acc) const {
  std::uint8_t all = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Rounded res = fpconform::convert(std::bit_cast<std::uint32_t>(in[i]), f32_, to_, r_);
    if (code_bytes_ == 1) static_cast<std::uint8_t*>(out)[i] = static_cast<std::uint8_t>(res.bits);
    else static_cast<std::uint16_t*>(out)[i] = static_cast<std::uint16_t>(res.bits);
    if (flags_out) flags_out[i] = res.flags.bits;
    all |= res.flags.bits;
  }
  if (acc) *acc |= all;
}

void F32Converter::run(const float* in, void* out, std::uint8_t* flags_out, std::size_t n,
                       std::uint8_t* acc) const {
  if (kernel_ == ConvertKernel::reference) return run_reference(in, out, flags_out, n, acc);
#if FPC_X86
  if (native_f16_imm_ >= 0 && !flags_out && !acc) {
    // vcvtps2ph reads DAZ/FTZ and sets MXCSR's exception flags: only with DAZ and FTZ off, and
    // the flags put back as they were (the clear path touches no floating-point state).
    const unsigned csr = _mm_getcsr();
    if ((csr & 0x8040u) == 0) {
      vcvtps2ph_imm(native_f16_imm_, in, static_cast<std::uint16_t*>(out), n);
      _mm_setcsr(csr);
      return;
    }
  }
#endif
  if (use_lean_ && !flags_out && !acc) return lean_(in, out, n, p_);
  constexpr std::size_t kChunk = 2048;
  alignas(64) std::uint8_t buf[kChunk];
  std::uint8_t all = 0;
  for (std::size_t off = 0; off < n; off += kChunk) {
    const std::size_t len = n - off < kChunk ? n - off : kChunk;
    std::uint8_t* fl = flags_out ? flags_out + off : buf;
    void* o = static_cast<char*>(out) + off * code_bytes_;
    full_(in + off, o, fl, len, p_);
    if (p_.may_slow) {
      for (std::size_t j = 0; j < len; ++j)
        if (fl[j] & kSlow) run_reference(in + off + j, static_cast<char*>(o) + j * code_bytes_,
                                         fl + j, 1, nullptr);
    }
    if (acc) {
      std::uint8_t a = 0;
      for (std::size_t j = 0; j < len; ++j) a |= fl[j];
      all |= a;
    }
  }
  if (acc) *acc |= all;
}

void F32Converter::convert(const float* in, void* out, std::size_t n) const {
  run(in, out, nullptr, n, nullptr);
}

Flags F32Converter::convert_flags(const float* in, void* out, std::size_t n) const {
  Flags f;
  run(in, out, nullptr, n, &f.bits);
  return f;
}

Flags F32Converter::convert_flags(const float* in, void* out, std::uint8_t* flags_out,
                                  std::size_t n) const {
  Flags f;
  run(in, out, flags_out, n, &f.bits);
  return f;
}

namespace {
void check_spans(std::size_t in, std::size_t out, std::size_t want_bytes, std::size_t have_bytes,
                 const Format& f) {
  if (in != out)
    throw Error("out", "output has " + std::to_string(out) + " elements, input " +
                           std::to_string(in));
  if (want_bytes != have_bytes)
    throw Error("out", "format '" + f.name + "' needs " + std::to_string(want_bytes) +
                           "-byte codes, the output has " + std::to_string(have_bytes));
}
}  // namespace

void F32Converter::convert(std::span<const float> in, std::span<std::uint8_t> out) const {
  check_spans(in.size(), out.size(), code_bytes_, 1, to_);
  convert(in.data(), out.data(), in.size());
}
void F32Converter::convert(std::span<const float> in, std::span<std::uint16_t> out) const {
  check_spans(in.size(), out.size(), code_bytes_, 2, to_);
  convert(in.data(), out.data(), in.size());
}
Flags F32Converter::convert_flags(std::span<const float> in, std::span<std::uint8_t> out) const {
  check_spans(in.size(), out.size(), code_bytes_, 1, to_);
  return convert_flags(in.data(), out.data(), in.size());
}
Flags F32Converter::convert_flags(std::span<const float> in,
                                  std::span<std::uint16_t> out) const {
  check_spans(in.size(), out.size(), code_bytes_, 2, to_);
  return convert_flags(in.data(), out.data(), in.size());
}

std::uint32_t F32Converter::convert_one(float x, Flags* flags) const {
  std::uint16_t code16 = 0;
  std::uint8_t code8 = 0;
  std::uint8_t fl = 0;
  void* o = code_bytes_ == 1 ? static_cast<void*>(&code8) : static_cast<void*>(&code16);
  run(&x, o, &fl, 1, nullptr);
  if (flags) flags->bits = fl;
  return code_bytes_ == 1 ? code8 : code16;
}

void convert_f32_batch(std::span<const float> in, std::span<std::uint8_t> out, const Format& to,
                       const Rounding& r) {
  F32Converter(to, r).convert(in, out);
}
void convert_f32_batch(std::span<const float> in, std::span<std::uint16_t> out, const Format& to,
                       const Rounding& r) {
  F32Converter(to, r).convert(in, out);
}

}  // namespace fpconform
