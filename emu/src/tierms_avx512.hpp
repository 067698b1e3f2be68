// Tier MS (fast_convert_tierm.cpp, v_tierms) with AVX-512: 16 values per step, the sign's weight
// chosen by a mask (vpmovd2m, vpblendmd) and the codes narrowed by vpmovdb, so no packing
// shuffles and no lane-crossing permute (the AVX2 loop's costliest step after the FMA).
//
// Included twice, which is why it is a header:
//   - by fast_convert_tierm.cpp, natively, with FPC_AVX512_FN = target("avx512f,avx512bw,avx512dq")
//     (the kernel ConvertKernel::avx512, chosen at run time where the CPU has those);
//   - by emu/tests/tierms_avx512_emulated_test.cpp with SIMDe's portable emulation of the same
//     intrinsics (native aliases), so the kernel's results are checked against `convert` on any
//     x86 CPU, with or without AVX-512.
// The includer defines FPC_AVX512_FN and makes the _mm512 intrinsics available first; defining
// FPC_AVX512VBMI_FN too (the same target plus avx512vbmi) adds tierms_groups_avx512_vbmi.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "fast_convert_params.hpp"

#ifndef FPC_AVX512_FN
#error "define FPC_AVX512_FN and include the AVX-512 intrinsics (or SIMDe) before this header"
#endif

// GCC 12 warns that the "undefined" source operand inside its own avx512fintrin.h intrinsics
// may be used uninitialized (a known false positive of those headers).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace fpconform::detail {

// The constants of tier MS, with the weights scaled so that each lane's code lands at bit
// `code_shift` of its dword: 7 as v_tierms computes it, 8 (the weights doubled: 2^(m+1) and
// +-2^8 still fit their 16 bits, and each dword stays below 2^16) for a code in byte 1.
struct TierMsAvx512 {
  __m512i expm, lo, nq, w_pos, w_neg, lim;
  __m512 k;
};

FPC_AVX512_FN inline TierMsAvx512 tierms_avx512_consts(const F32Params& p, int code_shift) {
  TierMsAvx512 c;
  c.expm = _mm512_set1_epi32(0x7F800000);
  c.lo = _mm512_set1_epi32(static_cast<int>(p.mg_lo));
  c.nq = _mm512_set1_epi32(static_cast<int>(p.ms_nq));
  c.w_pos = _mm512_set1_epi32(static_cast<int>(p.ms_w[0]));
  c.w_neg = _mm512_set1_epi32(static_cast<int>(p.ms_w[1]));
  if (code_shift == 8) {
    c.w_pos = _mm512_slli_epi16(c.w_pos, 1);
    c.w_neg = _mm512_slli_epi16(c.w_neg, 1);
  }
  c.lim = _mm512_set1_epi32(static_cast<int>(p.ms_lim));
  c.k = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(p.ms_k)));
  return c;
}

// 16 values: each dword holds its code at the constants' code_shift (plus less than that
// power of two below it); top keeps the largest exponent field seen.
// Per lane the arithmetic is v_tierms's: y = fma(2^E, ms_k, x) with E = max(exponent of x, emin),
// then pmaddwd(y + ms_nq, weight by x's sign) = code << 7 (plus less than 2^7).
FPC_AVX512_FN inline __m512i tierms_avx512_codes(const float* in, const TierMsAvx512& c,
                                                 __m512i& top) {
  const __m512i u = _mm512_loadu_si512(static_cast<const void*>(in));
  const __m512i ea = _mm512_and_si512(u, c.expm);
  top = _mm512_max_epu32(top, ea);
  const __m512i e = _mm512_max_epu32(ea, c.lo);  // 2^E
  const __m512 y = _mm512_fmadd_ps(_mm512_castsi512_ps(e), c.k, _mm512_castsi512_ps(u));
  const __m512i w = _mm512_mask_blend_epi32(_mm512_movepi32_mask(u), c.w_pos, c.w_neg);
  return _mm512_madd_epi16(_mm512_add_epi32(_mm512_castps_si512(y), c.nq), w);
}

// After block b: at the end of a group (or of the blocks), whether the group reached the top
// binade; top starts again for the next group.
FPC_AVX512_FN inline bool tierms_avx512_group_fails(std::size_t b, std::size_t nblocks,
                                                    std::size_t group, __m512i& top,
                                                    const TierMsAvx512& c) {
  if (b % group != group - 1 && b != nblocks - 1) return false;
  if (_mm512_cmple_epu32_mask(top, c.lim) != 0xFFFF) return true;
  top = _mm512_setzero_si512();
  return false;
}

// Blocks of 64 values through tier MS while every |x| of each group of `group` blocks is below
// 2^emax (p.ms_lim); returns the blocks done: a group that reaches the top binade is not counted
// (its bytes are wrong and the caller redoes it), exactly as tierms_groups does. Needs p.ms_ok
// and MXCSR set as run_tierm sets it (rounding = the mode, DAZ/FTZ off, exceptions masked).
// The codes are narrowed by vpmovdb, one vector at a time.
FPC_AVX512_FN inline std::size_t tierms_groups_avx512(const float* in, std::uint8_t* out,
                                                      std::size_t nblocks, std::size_t group,
                                                      const F32Params& p) {
  const TierMsAvx512 c = tierms_avx512_consts(p, 7);
  __m512i top = _mm512_setzero_si512();
  for (std::size_t b = 0; b < nblocks; ++b) {
    for (std::size_t at = b * 64; at < b * 64 + 64; at += 16)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + at),
                       _mm512_cvtepi32_epi8(_mm512_srli_epi32(tierms_avx512_codes(in + at, c, top), 7)));
    if (tierms_avx512_group_fails(b, nblocks, group, top, c)) return b - b % group;
  }
  return nblocks;
}

#ifdef FPC_AVX512VBMI_FN
// vpermt2b's indices: byte i < 16 is byte 1 of the first source's dword i, byte 16 + i that of
// the second's (the upper 32 are not stored).
inline constexpr std::array<std::uint8_t, 64> kByte1 = [] {
  std::array<std::uint8_t, 64> pick{};
  for (int i = 0; i < 16; ++i) {
    pick[i] = static_cast<std::uint8_t>(4 * i + 1);
    pick[16 + i] = static_cast<std::uint8_t>(64 + 4 * i + 1);
  }
  return pick;
}();

// The same with AVX512-VBMI: the codes in byte 1 of each dword, two vectors' bytes gathered by
// one vpermt2b: half a uop per 16 values where the shift and vpmovdb take three, which counts
// where the vector ports bound the loop (suites/bench/README.md).
FPC_AVX512VBMI_FN inline std::size_t tierms_groups_avx512_vbmi(const float* in, std::uint8_t* out,
                                                               std::size_t nblocks,
                                                               std::size_t group,
                                                               const F32Params& p) {
  const TierMsAvx512 c = tierms_avx512_consts(p, 8);
  const __m512i idx = _mm512_loadu_si512(static_cast<const void*>(kByte1.data()));
  __m512i top = _mm512_setzero_si512();
  for (std::size_t b = 0; b < nblocks; ++b) {
    for (std::size_t at = b * 64; at < b * 64 + 64; at += 32) {
      const __m512i s0 = tierms_avx512_codes(in + at, c, top);
      const __m512i s1 = tierms_avx512_codes(in + at + 16, c, top);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + at),
                          _mm512_castsi512_si256(_mm512_permutex2var_epi8(s0, idx, s1)));
    }
    if (tierms_avx512_group_fails(b, nblocks, group, top, c)) return b - b % group;
  }
  return nblocks;
}
#endif

}  // namespace fpconform::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
