// Tiers M and MS of the fast conversion (AVX2 + FMA, 1-byte codes, rne/rtz/up/down), and tier
// MS on AVX-512 (tierms_avx512.hpp).
//
// AVX2, 1-byte codes, rne/rtz/up/down (where make_tierm_params allows): every block goes through
// tier M (see v_tierm), one fp32 addition per value in MXCSR's rounding mode, which the
// call sets and restores; it serves subnormal results, overflow and (mostly) specials alike, so
// normally distributed data and data with large values stay in one branch-free loop. In
// rne/up/down, runs of blocks whose |x| stay below the top binade (2^emax) take tier MS first
// (see v_tierms), which rounds x itself and needs one operation less per value.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fast_convert_kernel.hpp"
#include "fast_convert_params.hpp"

#if FPC_X86
#include <immintrin.h>
// Tier MS on AVX-512; not inlined into its AVX2 callers (a wider target than theirs).
#define FPC_AVX512_FN __attribute__((target("avx512f,avx512bw,avx512dq,fma")))
#define FPC_AVX512VBMI_FN __attribute__((target("avx512f,avx512bw,avx512dq,fma,avx512vbmi")))
#include "tierms_avx512.hpp"

namespace fpconform::detail {

using RM = RoundingMode;

namespace {

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
// the top bit of x's top byte, its sign; cheaper here than vblendvps). For
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
  // A whole block per iteration: 8 independent chains, enough to cover the load latency when
  // the caches are cold.
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
// keeps them in registers; 32 values per step with two running maxima, because at 64 per step
// they do not all fit and GCC reloads some from memory every step. One loop over the blocks
// checks every kMsGroup blocks (no loop per group).
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
      const std::size_t done =
          p.ms_vbmi     ? detail::tierms_groups_avx512_vbmi(in, out, nblocks, kMsGroup, p)
          : p.ms_avx512 ? detail::tierms_groups_avx512(in, out, nblocks, kMsGroup, p)
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

}  // namespace

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

template void run_tierm<RM::rne>(const float*, std::uint8_t*, std::size_t, const F32Params&);
template void run_tierm<RM::rtz>(const float*, std::uint8_t*, std::size_t, const F32Params&);
template void run_tierm<RM::up>(const float*, std::uint8_t*, std::size_t, const F32Params&);
template void run_tierm<RM::down>(const float*, std::uint8_t*, std::size_t, const F32Params&);

}  // namespace fpconform::detail

#endif  // FPC_X86
