// Operations on binary32 vector lanes for the kernel's lane forms (the column lanes, the sub-sum
// rows): one struct per instruction set with the same names, so that one body serves both.
// Where the instruction set rounds only by MXCSR (AVX2), the caller holds the mode its form needs.
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>

// GCC 12 warns that the "undefined" source operand inside its own avx512fintrin.h intrinsics
// may be used uninitialized (a known false positive of those headers): off for the includer too,
// where these are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define FPC_AVX512_LANES [[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]] inline
#define FPC_AVX2_LANES [[gnu::target("avx2,fma")]] inline

namespace fpconform::detail {

// Sixteen lanes: the exponent by getexp, the conversions and products toward zero by embedded
// rounding, the lane classes by fpclass.
struct Avx512Lanes {
  static constexpr int kWidth = 16;
  using F = __m512;
  using Z = __m512i;
  FPC_AVX512_LANES static F load(const float* p) { return _mm512_loadu_ps(p); }
  FPC_AVX512_LANES static F load_codes(const std::uint32_t* p) {
    return _mm512_castsi512_ps(_mm512_loadu_si512(p));
  }
  FPC_AVX512_LANES static void store_codes(std::uint32_t* p, F x) {
    _mm512_storeu_si512(p, _mm512_castps_si512(x));
  }
  FPC_AVX512_LANES static F set1(float x) { return _mm512_set1_ps(x); }
  FPC_AVX512_LANES static Z set1i(std::int32_t x) { return _mm512_set1_epi32(x); }
  FPC_AVX512_LANES static F zero() { return _mm512_setzero_ps(); }
  FPC_AVX512_LANES static Z zeroi() { return _mm512_setzero_si512(); }
  FPC_AVX512_LANES static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  FPC_AVX512_LANES static F fma(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  FPC_AVX512_LANES static F max(F a, F b) { return _mm512_max_ps(a, b); }
  FPC_AVX512_LANES static Z addi(Z a, Z b) { return _mm512_add_epi32(a, b); }
  FPC_AVX512_LANES static Z truncate(F x) { return _mm512_cvttps_epi32(x); }
  FPC_AVX512_LANES static Z load_words(const std::uint32_t* p) { return _mm512_loadu_si512(p); }
  FPC_AVX512_LANES static Z broadcast_word(const std::uint32_t* p) {
    return _mm512_set1_epi32(static_cast<int>(*p));
  }
  // Per byte: a - b saturated at 0, the larger of a and b (unsigned).
  FPC_AVX512_LANES static Z sub_sat_u8(Z a, Z b) { return _mm512_subs_epu8(a, b); }
  FPC_AVX512_LANES static Z max_u8(Z a, Z b) { return _mm512_max_epu8(a, b); }
  // Lanes whose byte n is zero.
  FPC_AVX512_LANES static unsigned zero_byte_lanes(Z x, int n) {
    return _mm512_testn_epi32_mask(x, _mm512_set1_epi32(0xFF << (8 * n)));
  }
  // floor(log2 |x|) of a nonzero x, subnormals too; -inf for zero.
  FPC_AVX512_LANES static F exponent(F x) { return _mm512_getexp_ps(x); }
  // a + b rounded toward zero.
  FPC_AVX512_LANES static F add_rz(F a, F b) {
    return _mm512_add_round_ps(a, b, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  }
  FPC_AVX512_LANES static Z subi(Z a, Z b) { return _mm512_sub_epi32(a, b); }
  FPC_AVX512_LANES static Z andi(Z a, Z b) { return _mm512_and_si512(a, b); }
  FPC_AVX512_LANES static Z maxi(Z a, Z b) { return _mm512_max_epi32(a, b); }
  FPC_AVX512_LANES static Z srli(Z x, int n) {
    return _mm512_srli_epi32(x, static_cast<unsigned>(n));
  }
  FPC_AVX512_LANES static Z slli(Z x, int n) {
    return _mm512_slli_epi32(x, static_cast<unsigned>(n));
  }
  FPC_AVX512_LANES static Z bits(F x) { return _mm512_castps_si512(x); }
  FPC_AVX512_LANES static F from_bits(Z x) { return _mm512_castsi512_ps(x); }
  // Lanes with a > b (signed).
  FPC_AVX512_LANES static unsigned greater_lanes(Z a, Z b) {
    return _mm512_cmpgt_epi32_mask(a, b);
  }
  // a b toward zero (past the largest finite value: that value).
  FPC_AVX512_LANES static F mul_rz(F a, F b) {
    return _mm512_mul_round_ps(a, b, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  }
  // An arithmetic right shift by per-lane counts (sign fill past 31).
  FPC_AVX512_LANES static Z srav(Z x, Z n) { return _mm512_srav_epi32(x, n); }
  // x / 2^n rounded to odd: floored, its last bit set where bits were dropped.
  FPC_AVX512_LANES static Z round_odd(Z x, Z n) {
    const Z t = _mm512_srav_epi32(x, n);
    const __mmask16 dropped = _mm512_cmpneq_epi32_mask(_mm512_sllv_epi32(t, n), x);
    return _mm512_mask_or_epi32(t, dropped, t, _mm512_set1_epi32(1));
  }
  FPC_AVX512_LANES static Z floor_int(F x) {
    return _mm512_cvt_roundps_epi32(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  }
  FPC_AVX512_LANES static F to_float_rn(Z x) {
    return _mm512_cvt_roundepi32_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  // b in the lanes of `mask`, a elsewhere.
  FPC_AVX512_LANES static F blend_lanes(unsigned mask, F a, F b) {
    return _mm512_mask_blend_ps(static_cast<__mmask16>(mask), a, b);
  }
  FPC_AVX512_LANES static F to_float_rz(Z x) {
    return _mm512_cvt_roundepi32_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  }
  FPC_AVX512_LANES static F cut(F x, Z mask) {
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), mask));
  }
  FPC_AVX512_LANES static unsigned zero_lanes(F x) {
    return _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ);
  }
  // Lanes with lo <= x <= hi (none where x is NaN).
  FPC_AVX512_LANES static unsigned lanes_in(F x, float lo, float hi) {
    return _mm512_cmp_ps_mask(x, _mm512_set1_ps(lo), _CMP_GE_OQ) &
           _mm512_cmp_ps_mask(x, _mm512_set1_ps(hi), _CMP_LE_OQ);
  }
  FPC_AVX512_LANES static unsigned nan_inf_lanes(F x) { return _mm512_fpclass_ps_mask(x, 0x99); }
  FPC_AVX512_LANES static unsigned not_normal_lanes(F x) {
    return _mm512_fpclass_ps_mask(x, 0xBF);
  }
  // Both addends of one sign, the sum of the other.
  FPC_AVX512_LANES static unsigned wrapped_lanes(Z sum, Z x, Z y) {
    return _mm512_movepi32_mask(
        _mm512_and_si512(_mm512_xor_si512(sum, x), _mm512_xor_si512(sum, y)));
  }
};

// Eight lanes: exponents and powers of two by their fields (exponent() gives -127 for zero and
// subnormals, which never exceed a block's products here), the conversion toward zero by the
// caller's MXCSR (RZ while the lanes run; every other operation here is exact).
struct Avx2Lanes {
  static constexpr int kWidth = 8;
  using F = __m256;
  using Z = __m256i;
  FPC_AVX2_LANES static F load(const float* p) { return _mm256_loadu_ps(p); }
  FPC_AVX2_LANES static F load_codes(const std::uint32_t* p) {
    return _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  FPC_AVX2_LANES static void store_codes(std::uint32_t* p, F x) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_castps_si256(x));
  }
  FPC_AVX2_LANES static F set1(float x) { return _mm256_set1_ps(x); }
  FPC_AVX2_LANES static Z set1i(std::int32_t x) { return _mm256_set1_epi32(x); }
  FPC_AVX2_LANES static F zero() { return _mm256_setzero_ps(); }
  FPC_AVX2_LANES static Z zeroi() { return _mm256_setzero_si256(); }
  FPC_AVX2_LANES static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  FPC_AVX2_LANES static F fma(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  FPC_AVX2_LANES static F max(F a, F b) { return _mm256_max_ps(a, b); }
  FPC_AVX2_LANES static Z addi(Z a, Z b) { return _mm256_add_epi32(a, b); }
  FPC_AVX2_LANES static Z truncate(F x) { return _mm256_cvttps_epi32(x); }
  FPC_AVX2_LANES static Z load_words(const std::uint32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  FPC_AVX2_LANES static Z broadcast_word(const std::uint32_t* p) {
    return _mm256_set1_epi32(static_cast<int>(*p));
  }
  FPC_AVX2_LANES static Z sub_sat_u8(Z a, Z b) { return _mm256_subs_epu8(a, b); }
  FPC_AVX2_LANES static Z max_u8(Z a, Z b) { return _mm256_max_epu8(a, b); }
  FPC_AVX2_LANES static Z field(F x) {
    return _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(x), 23), _mm256_set1_epi32(0xFF));
  }
  FPC_AVX2_LANES static F exponent(F x) {
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(field(x), _mm256_set1_epi32(127)));
  }
  FPC_AVX2_LANES static F to_float_rz(Z x) { return _mm256_cvtepi32_ps(x); }
  FPC_AVX2_LANES static Z subi(Z a, Z b) { return _mm256_sub_epi32(a, b); }
  FPC_AVX2_LANES static Z andi(Z a, Z b) { return _mm256_and_si256(a, b); }
  FPC_AVX2_LANES static Z maxi(Z a, Z b) { return _mm256_max_epi32(a, b); }
  FPC_AVX2_LANES static Z srli(Z x, int n) { return _mm256_srli_epi32(x, n); }
  FPC_AVX2_LANES static Z slli(Z x, int n) { return _mm256_slli_epi32(x, n); }
  FPC_AVX2_LANES static Z bits(F x) { return _mm256_castps_si256(x); }
  FPC_AVX2_LANES static F from_bits(Z x) { return _mm256_castsi256_ps(x); }
  FPC_AVX2_LANES static unsigned greater_lanes(Z a, Z b) {
    return lanes(_mm256_cmpgt_epi32(a, b));
  }
  FPC_AVX2_LANES static F mul_rz(F a, F b) { return _mm256_mul_ps(a, b); }  // MXCSR: RZ
  FPC_AVX2_LANES static Z srav(Z x, Z n) { return _mm256_srav_epi32(x, n); }
  FPC_AVX2_LANES static Z round_odd(Z x, Z n) {
    const Z t = _mm256_srav_epi32(x, n);
    const Z kept = _mm256_cmpeq_epi32(_mm256_sllv_epi32(t, n), x);
    return _mm256_or_si256(t, _mm256_andnot_si256(kept, _mm256_set1_epi32(1)));
  }
  FPC_AVX2_LANES static Z floor_int(F x) { return _mm256_cvttps_epi32(_mm256_floor_ps(x)); }
  FPC_AVX2_LANES static F to_float_rn(Z x) { return _mm256_cvtepi32_ps(x); }  // MXCSR: RNE
  FPC_AVX2_LANES static F blend_lanes(unsigned mask, F a, F b) {
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i in = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(mask)), bit), bit);
    return _mm256_blendv_ps(a, b, _mm256_castsi256_ps(in));
  }
  FPC_AVX2_LANES static F add_rz(F a, F b) { return _mm256_add_ps(a, b); }
  FPC_AVX2_LANES static F cut(F x, Z mask) {
    return _mm256_castsi256_ps(_mm256_and_si256(_mm256_castps_si256(x), mask));
  }
  FPC_AVX2_LANES static unsigned lanes(Z m) {
    return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(m)));
  }
  FPC_AVX2_LANES static unsigned zero_byte_lanes(Z x, int n) {
    return lanes(_mm256_cmpeq_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0xFF << (8 * n))),
                                    _mm256_setzero_si256()));
  }
  FPC_AVX2_LANES static unsigned zero_lanes(F x) {
    return static_cast<unsigned>(
        _mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ)));
  }
  FPC_AVX2_LANES static unsigned lanes_in(F x, float lo, float hi) {
    return static_cast<unsigned>(_mm256_movemask_ps(
        _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(lo), _CMP_GE_OQ),
                      _mm256_cmp_ps(x, _mm256_set1_ps(hi), _CMP_LE_OQ))));
  }
  FPC_AVX2_LANES static unsigned nan_inf_lanes(F x) {
    return lanes(_mm256_cmpeq_epi32(field(x), _mm256_set1_epi32(0xFF)));
  }
  // The field plus one, in its place, below 2 (inf and NaN carry into the sign).
  FPC_AVX2_LANES static unsigned not_normal_lanes(F x) {
    const Z field_up = _mm256_add_epi32(
        _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7F800000)),
        _mm256_set1_epi32(0x00800000));
    return lanes(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x01000000), field_up));
  }
  FPC_AVX2_LANES static unsigned wrapped_lanes(Z sum, Z x, Z y) {
    return lanes(_mm256_and_si256(_mm256_xor_si256(sum, x), _mm256_xor_si256(sum, y)));
  }
};

// Words whose four bytes each repeat one value, from four rows: out[k] takes byte n from
// rows[n][k], complemented, so that one word holds the four rows' values at k (4, 8 or 16
// words).
FPC_AVX2_LANES void pack_row_bytes4(const std::uint32_t* const rows[4], std::uint32_t* out) {
  __m128i r[4];  // a lambda would not carry the target
  for (int n = 0; n < 4; ++n) r[n] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[n]));
  const __m128i low = _mm_blendv_epi8(r[1], r[0], _mm_set1_epi32(0x000000FF));
  const __m128i high = _mm_blendv_epi8(r[3], r[2], _mm_set1_epi32(0x00FF0000));
  const __m128i all = _mm_set1_epi32(-1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                   _mm_xor_si128(_mm_blend_epi16(low, high, 0xAA), all));
}
FPC_AVX2_LANES void pack_row_bytes8(const std::uint32_t* const rows[4], std::uint32_t* out) {
  __m256i r[4];
  for (int n = 0; n < 4; ++n) r[n] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[n]));
  const __m256i low = _mm256_blendv_epi8(r[1], r[0], _mm256_set1_epi32(0x000000FF));
  const __m256i high = _mm256_blendv_epi8(r[3], r[2], _mm256_set1_epi32(0x00FF0000));
  const __m256i all = _mm256_set1_epi32(-1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm256_xor_si256(_mm256_blend_epi16(low, high, 0xAA), all));
}
FPC_AVX512_LANES void pack_row_bytes16(const std::uint32_t* const rows[4], std::uint32_t* out) {
  constexpr int kNotSelect = 0x35;  // ~(a ? b : c), bit by bit
  const __m512i low = _mm512_ternarylogic_epi32(_mm512_set1_epi32(0x000000FF),
                                                _mm512_loadu_si512(rows[0]),
                                                _mm512_loadu_si512(rows[1]), kNotSelect);
  const __m512i high = _mm512_ternarylogic_epi32(_mm512_set1_epi32(0x00FF0000),
                                                 _mm512_loadu_si512(rows[2]),
                                                 _mm512_loadu_si512(rows[3]), kNotSelect);
  _mm512_storeu_si512(out, _mm512_mask_blend_epi16(0xAAAAAAAA, low, high));
}

}  // namespace fpconform::detail

#endif
