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
// The includer defines FPC_AVX512_FN and makes the _mm512 intrinsics available first.
#pragma once

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

// Blocks of 64 values through tier MS while every |x| of each group of `group` blocks is below
// 2^emax (p.ms_lim); returns the blocks done: a group that reaches the top binade is not counted
// (its bytes are wrong and the caller redoes it), exactly as tierms_groups does. Needs p.ms_ok
// and MXCSR set as run_tierm sets it (rounding = the mode, DAZ/FTZ off, exceptions masked).
// Per lane the arithmetic is v_tierms's: y = fma(2^E, ms_k, x) with E = max(exponent of x, emin),
// then pmaddwd(y + ms_nq, weight by x's sign) = code << 7 (plus less than 2^7).
FPC_AVX512_FN inline std::size_t tierms_groups_avx512(const float* in, std::uint8_t* out,
                                                      std::size_t nblocks, std::size_t group,
                                                      const F32Params& p) {
  const __m512i expm = _mm512_set1_epi32(0x7F800000);
  const __m512i lo = _mm512_set1_epi32(static_cast<int>(p.mg_lo));
  const __m512i nq = _mm512_set1_epi32(static_cast<int>(p.ms_nq));
  const __m512i w_pos = _mm512_set1_epi32(static_cast<int>(p.ms_w[0]));
  const __m512i w_neg = _mm512_set1_epi32(static_cast<int>(p.ms_w[1]));
  const __m512i lim = _mm512_set1_epi32(static_cast<int>(p.ms_lim));
  const __m512 k = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(p.ms_k)));
  __m512i top = _mm512_setzero_si512();
  for (std::size_t b = 0; b < nblocks; ++b) {
    for (int j = 0; j < 4; ++j) {
      const std::size_t at = b * 64 + 16 * static_cast<std::size_t>(j);
      const __m512i u = _mm512_loadu_si512(static_cast<const void*>(in + at));
      const __m512i ea = _mm512_and_si512(u, expm);
      top = _mm512_max_epu32(top, ea);
      const __m512i e = _mm512_max_epu32(ea, lo);  // 2^E
      const __m512 y = _mm512_fmadd_ps(_mm512_castsi512_ps(e), k, _mm512_castsi512_ps(u));
      const __m512i w = _mm512_mask_blend_epi32(_mm512_movepi32_mask(u), w_pos, w_neg);
      const __m512i s = _mm512_madd_epi16(_mm512_add_epi32(_mm512_castps_si512(y), nq), w);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + at),
                       _mm512_cvtepi32_epi8(_mm512_srli_epi32(s, 7)));
    }
    if (b % group == group - 1 || b == nblocks - 1) {
      if (_mm512_cmple_epu32_mask(top, lim) != 0xFFFF) return b - b % group;
      top = _mm512_setzero_si512();
    }
  }
  return nblocks;
}

}  // namespace fpconform::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
