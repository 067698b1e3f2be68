// The fast conversion kernel with AVX2 (see fast_convert_kernel.hpp for the tiers).
//
// AVX2 (lean kernel): tiers 1 and 2 are written with intrinsics (GCC's code for them spilled and
// packed twice), and for rne/rtz/up/down tier 2 is "tier F": the rounding of subnormal and
// normal results alike by vroundps with the mode in the immediate (see v_tierf). After a block
// needed tier 2, the next blocks skip the tier 1 attempt until 4 in a row are all normal.
// For 1-byte codes in rne/rtz/up/down the lean kernel hands the whole blocks to tier M
// (fast_convert_tierm.cpp).
#include <cstddef>
#include <cstdint>

#include "fast_convert_kernel.hpp"
#include "fast_convert_params.hpp"

#if FPC_X86
#include <immintrin.h>

#define FPC_TIERS_FN __attribute__((target("avx512f,avx512bw,avx512dq,avx512vbmi")))
#include "tiers_avx512.hpp"

namespace fpconform::detail {

using RM = RoundingMode;

namespace {

// Tiers 1 and 2 written with intrinsics, tier 3 is the auto-vectorized lean_code. Tier 1 and the
// integer tier 2 do the arithmetic of normal_code/finite_code.
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

// The same with AVX-512 and VBMI, 64 values per call (tiers_avx512.hpp; p.s_avx512).
template <RM M>
FPC_TIERS_FN void lean_blocks_s_avx512(const float* in, std::uint16_t* out, std::size_t nblocks,
                                       const F32Params& p) {
  for (std::size_t b = 0; b < nblocks; ++b, in += kBlock, out += kBlock) {
    if (tiers_block_avx512<M>(in, out, p)) continue;
    for (std::size_t j = 0; j < kBlock; ++j)
      out[j] = static_cast<std::uint16_t>(lean_code<M>(bits_of(in[j]), p));
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
    if constexpr (sizeof(OutT) == 2) {
      if (p.s_avx512) lean_blocks_s_avx512<M>(in, out, nb, p);
      else lean_blocks_s<M>(in, out, nb, p, c);
    }
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

}  // namespace

template <class OutT>
void pick_avx2(RM mode, LeanFn& lean, FullFn& full) {
  FPC_PICK_KERNELS(lean_avx2, full_avx2, mode, lean, full)
}

template void pick_avx2<std::uint8_t>(RM, LeanFn&, FullFn&);
template void pick_avx2<std::uint16_t>(RM, LeanFn&, FullFn&);

}  // namespace fpconform::detail

#endif  // FPC_X86
