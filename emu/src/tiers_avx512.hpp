// Tier S (fast_convert_avx2.cpp, v_tiers) with AVX-512 and VBMI for formats whose code is the
// top half of the fp32 pattern (fp32's exponent range and s0 = 16: bf16): 16 values per vector,
// the pattern rounded at bit 16 in place, and two vectors' top halves gathered by one vpermt2b,
// where AVX2 shifts, packs and permutes.
//
// Included twice, which is why it is a header: natively by fast_convert_avx2.cpp (FPC_TIERS_FN
// = target("avx512f,avx512bw,avx512dq,avx512vbmi")), and by emu/tests/tierms_avx512_emulated_test.cpp
// under SIMDe's emulation, so its results are checked against `convert` on any x86 CPU. The
// includer defines FPC_TIERS_FN and makes the _mm512 intrinsics available first.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "fast_convert_params.hpp"

#ifndef FPC_TIERS_FN
#error "define FPC_TIERS_FN and include the AVX-512 intrinsics (or SIMDe) before this header"
#endif

namespace fpconform::detail {

// vpermt2b's indices: word i < 16 is the top half of the first source's dword i, word 16 + i
// that of the second's.
inline constexpr std::array<std::uint8_t, 64> kTopHalves = [] {
  std::array<std::uint8_t, 64> pick{};
  for (int i = 0; i < 16; ++i) {
    pick[2 * i] = static_cast<std::uint8_t>(4 * i + 2);
    pick[2 * i + 1] = static_cast<std::uint8_t>(4 * i + 3);
    pick[32 + 2 * i] = static_cast<std::uint8_t>(64 + 4 * i + 2);
    pick[32 + 2 * i + 1] = static_cast<std::uint8_t>(64 + 4 * i + 3);
  }
  return pick;
}();

// The pattern u plus what mode M adds below bit 16 (v_round's k2 and increments), so that its
// top half is the code; top keeps the largest |u|.
template <RoundingMode M>
FPC_TIERS_FN inline __m512i tiers_rounded_avx512(__m512i u, __m512i& top) {
  const __m512i low16 = _mm512_set1_epi32(0xFFFF);
  top = _mm512_max_epu32(top, _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)));
  if constexpr (M == RoundingMode::rne) {
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    return _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb);
  } else if constexpr (M == RoundingMode::rna) {
    return _mm512_add_epi32(u, _mm512_set1_epi32(0x8000));
  } else if constexpr (M == RoundingMode::rtz) {
    return u;
  } else if constexpr (M == RoundingMode::up || M == RoundingMode::down) {
    const auto neg = _mm512_movepi32_mask(u);  // a mask type SIMDe names otherwise
    return _mm512_mask_add_epi32(u, M == RoundingMode::up ? static_cast<decltype(neg)>(~neg) : neg,
                                 u, low16);
  } else {  // odd: the jam bit where any of the low 16 bits is set
    return _mm512_mask_or_epi32(u, _mm512_test_epi32_mask(u, low16), u,
                                _mm512_set1_epi32(0x10000));
  }
}

// One block of 64 values (needs p.sign_aligned, p.s0 == 16): writes the 64 codes and returns
// whether every |x| is at most max finite; where not, the block's codes are wrong and the caller
// redoes it (tier 3), as lean_blocks_s does.
template <RoundingMode M>
FPC_TIERS_FN inline bool tiers_block_avx512(const float* in, std::uint16_t* out,
                                            const F32Params& p) {
  const __m512i idx = _mm512_loadu_si512(static_cast<const void*>(kTopHalves.data()));
  __m512i top = _mm512_setzero_si512();
  for (int at = 0; at < 64; at += 32) {
    const __m512i r0 = tiers_rounded_avx512<M>(_mm512_loadu_si512(static_cast<const void*>(in + at)), top);
    const __m512i r1 = tiers_rounded_avx512<M>(_mm512_loadu_si512(static_cast<const void*>(in + at + 16)), top);
    _mm512_storeu_si512(static_cast<void*>(out + at), _mm512_permutex2var_epi8(r0, idx, r1));
  }
  return _mm512_cmple_epu32_mask(top, _mm512_set1_epi32(static_cast<int>(p.lo + p.range))) == 0xFFFF;
}

}  // namespace fpconform::detail
