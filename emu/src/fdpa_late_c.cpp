// The integer path of the two-stage fused block with a late C (AMD CDNA3, fdpa.hpp step 5):
// FdpaKernel::dot_late_c. The block sum does not depend on C, so it is computed for every
// block of a chunk first (pass 1: per group, products truncated to F fraction bits of the
// group's largest product lead; the groups cut by floor to the block's lead); only the late
// addition of C waits for the previous block (pass 2), and several dot products run their
// pass 2 together. Pass 2 is fdpa's late stage: with e = max(block lead, C's lead), the sum
// floored to late_sum_frac_bits and C to late_c_frac_bits fraction bits of 2^e (C left out
// below e - late_c_drop_below), their exact sum rounded to nearest even into fp32; in int64
// per dot product, or for eight at once in AVX2 lanes (late_c_step8).
// A block whose result is zero, subnormal or out of range, whose C is NaN or inf, or whose
// products might overflow goes to the model (FdpaKernel::general), as does a partial last block.
#include <algorithm>
#include <bit>
#include <climits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "fpconform/fdpa_kernel.hpp"
#include "avx2_reduce.hpp"
#include "fpconform/core/cpu_features.hpp"

namespace fpconform {

namespace {

constexpr std::int32_t kNoLead = INT_MIN / 2;  // a group or block with every product zero
constexpr int kChains = 8;                     // dot products interleaved in pass 2
constexpr std::size_t kChunkBlocks = 32;       // blocks per chain between pass 1 and pass 2

struct BlockSum {
  std::int32_t sum;   // the block's products, in units of 2^(lead - F)
  std::int32_t lead;  // kNoLead: every product zero
};

// Pass 1 for one block of L products in I interleaved groups (group g: products g, g + I, ...).
template <int L, int I>
__attribute__((always_inline)) inline BlockSum block_sum(const std::int32_t* __restrict sa, const std::int32_t* __restrict ea,
                          const std::int32_t* __restrict sb, const std::int32_t* __restrict eb,
                          std::int32_t bias) {
  std::int32_t gsum[I], glead[I];
  for (int g = 0; g < I; ++g) {
    std::int32_t e = kNoLead;
    for (int j = g; j < L; j += I)
      if (sa[j] != 0 && sb[j] != 0) e = std::max(e, ea[j] + eb[j]);
    std::int32_t s = 0;
    for (int j = g; j < L; j += I) {
      const std::int32_t prod = sa[j] * sb[j];
      const std::int32_t ng = prod >> 31;
      const auto mag = static_cast<std::uint32_t>((prod ^ ng) - ng);
      std::int32_t rs = e - (ea[j] + eb[j]);
      rs = rs > 31 ? 31 : (rs < 0 ? 0 : rs);  // a zero product (mag 0) may sit above e
      const auto q = static_cast<std::int32_t>((mag << bias) >> rs);
      s += (q ^ ng) - ng;  // truncation toward zero, then the sign
    }
    gsum[g] = s;
    glead[g] = e;
  }
  if constexpr (I == 1) {
    return {gsum[0], glead[0]};
  } else {
    std::int32_t e = kNoLead;
    for (int g = 0; g < I; ++g) e = std::max(e, glead[g]);
    std::int32_t s = 0;
    for (int g = 0; g < I; ++g)
      if (glead[g] != kNoLead) s += gsum[g] >> std::min(e - glead[g], 31);  // floor
    return {s, e};
  }
}

// Pass 1 over nb consecutive blocks (out[j * kChains]: the chains of a block side by side);
// the same code compiled for AVX2 (GCC vectorizes the
// fixed-length loops of block_sum there) and for the baseline.
template <int L, int I>
void pass1_base(const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
                const std::int32_t* eb, std::int32_t bias, std::size_t nb, BlockSum* out) {
  for (std::size_t j = 0; j < nb; ++j)
    out[j * kChains] = block_sum<L, I>(sa + j * L, ea + j * L, sb + j * L, eb + j * L, bias);
}
#if defined(__x86_64__)
#define FPC_LATE_AVX2 __attribute__((target("avx2"), always_inline)) inline
using detail::hmax8;
using detail::hsum8;
// block_sum<L, 1> with intrinsics, 8 products per vector (GCC leaves the loops scalar).
template <int L>
FPC_LATE_AVX2 BlockSum block_sum_avx2(const std::int32_t* sa, const std::int32_t* ea,
                                      const std::int32_t* sb, const std::int32_t* eb,
                                      __m128i bias) {
  constexpr int V = L / 8;
  const __m256i none = _mm256_set1_epi32(kNoLead), zero = _mm256_setzero_si256();
  const __m256i cap = _mm256_set1_epi32(31);
  __m256i prod[V], lead[V];
  __m256i emax = none;
  for (int v = 0; v < V; ++v) {
    prod[v] = _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sa + 8 * v)),
                                 _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb + 8 * v)));
    lead[v] = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ea + 8 * v)),
                               _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + 8 * v)));
    emax = _mm256_max_epi32(emax, _mm256_blendv_epi8(lead[v], none, _mm256_cmpeq_epi32(prod[v], zero)));
  }
  const std::int32_t e = hmax8(emax);
  const __m256i ev = _mm256_set1_epi32(e);
  __m256i acc = zero;
  for (int v = 0; v < V; ++v) {
    // |p| < 2^30: a product is zero exactly when an operand is; its lead may exceed e (rs 0).
    const __m256i rs = _mm256_max_epi32(_mm256_min_epi32(_mm256_sub_epi32(ev, lead[v]), cap), zero);
    const __m256i q = _mm256_srlv_epi32(_mm256_sll_epi32(_mm256_abs_epi32(prod[v]), bias), rs);
    acc = _mm256_add_epi32(acc, _mm256_sign_epi32(q, prod[v]));
  }
  return {hsum8(acc), e};
}
// block_sum<16, 2> with intrinsics: group 0 in the even lanes, group 1 in the odd ones.
FPC_LATE_AVX2 BlockSum block_sum_avx2_pairs16(const std::int32_t* sa, const std::int32_t* ea,
                                              const std::int32_t* sb, const std::int32_t* eb,
                                              __m128i bias) {
  const __m256i none = _mm256_set1_epi32(kNoLead), zero = _mm256_setzero_si256();
  const __m256i cap = _mm256_set1_epi32(31);
  __m256i prod[2], lead[2];
  __m256i emax = none;
  for (int v = 0; v < 2; ++v) {
    prod[v] = _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sa + 8 * v)),
                                 _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb + 8 * v)));
    lead[v] = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ea + 8 * v)),
                               _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + 8 * v)));
    emax = _mm256_max_epi32(emax, _mm256_blendv_epi8(lead[v], none, _mm256_cmpeq_epi32(prod[v], zero)));
  }
  emax = _mm256_max_epi32(emax, _mm256_shuffle_epi32(emax, 0x4E));  // keeps each lane's parity
  const __m128i e2 = _mm_max_epi32(_mm256_castsi256_si128(emax), _mm256_extracti128_si256(emax, 1));
  const __m256i ev = _mm256_broadcastq_epi64(e2);  // [e0, e1, e0, e1, ...]
  __m256i acc = zero;
  for (int v = 0; v < 2; ++v) {
    const __m256i rs = _mm256_max_epi32(_mm256_min_epi32(_mm256_sub_epi32(ev, lead[v]), cap), zero);
    const __m256i q = _mm256_srlv_epi32(_mm256_sll_epi32(_mm256_abs_epi32(prod[v]), bias), rs);
    acc = _mm256_add_epi32(acc, _mm256_sign_epi32(q, prod[v]));
  }
  acc = _mm256_add_epi32(acc, _mm256_shuffle_epi32(acc, 0x4E));
  const __m128i g = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  const std::int32_t e0 = _mm_cvtsi128_si32(e2), e1 = _mm_extract_epi32(e2, 1);
  const std::int32_t g0 = _mm_cvtsi128_si32(g), g1 = _mm_extract_epi32(g, 1);
  const std::int32_t e = std::max(e0, e1);
  std::int32_t sum = 0;
  if (e0 != kNoLead) sum += g0 >> std::min(e - e0, 31);  // floor
  if (e1 != kNoLead) sum += g1 >> std::min(e - e1, 31);
  return {sum, e};
}
template <int L, int I>
__attribute__((target("avx2"), flatten)) void pass1_avx2(
    const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
    const std::int32_t* eb, std::int32_t bias, std::size_t nb, BlockSum* out) {
  if constexpr (I == 1 && L % 8 == 0) {
    const __m128i b = _mm_cvtsi32_si128(bias);
    for (std::size_t j = 0; j < nb; ++j)
      out[j * kChains] = block_sum_avx2<L>(sa + j * L, ea + j * L, sb + j * L, eb + j * L, b);
  } else if constexpr (I == 2 && L == 16) {
    const __m128i b = _mm_cvtsi32_si128(bias);
    for (std::size_t j = 0; j < nb; ++j)
      out[j * kChains] = block_sum_avx2_pairs16(sa + j * L, ea + j * L, sb + j * L, eb + j * L, b);
  } else {
    for (std::size_t j = 0; j < nb; ++j)
      out[j * kChains] = block_sum<L, I>(sa + j * L, ea + j * L, sb + j * L, eb + j * L, bias);
  }
}
#endif
template <int L, int I>
using Pass1Fn = void (*)(const std::int32_t*, const std::int32_t*, const std::int32_t*,
                         const std::int32_t*, std::int32_t, std::size_t, BlockSum*);
template <int L, int I>
Pass1Fn<L, I> pick_pass1() {
#if defined(__x86_64__)
  if (!portable_dispatch() && cpu_features().avx2) return &pass1_avx2<L, I>;
#endif
  return &pass1_base<L, I>;
}


// The late stage's parameters.
struct LateC {
  std::int32_t F, sum_frac_bits, c_frac_bits, c_drop_below;
};

// fdpa's late stage for one block: C an fp32 code; false where the model must decide.
inline bool late_c_step(const LateC& p, std::int32_t sum, std::int32_t lead, std::uint64_t& d) {
  const std::uint64_t field = (d >> 23) & 0xFF, frac = d & 0x7FFFFF;
  if (field == 0xFF || lead >= 126) return false;  // NaN/inf C; products that might overflow
  const bool has_c = (d & 0x7FFFFFFF) != 0, has_s = lead != kNoLead;
  if (!has_c && !has_s) return false;  // zero signs
  const auto cmag = static_cast<std::int64_t>(field ? frac | 0x800000 : frac);
  const std::int32_t cexp = field ? static_cast<std::int32_t>(field) - 150 : -149;
  const std::int32_t clead = cexp + 23;
  const std::int32_t e = std::max(has_s ? lead : INT_MIN, has_c ? clead : INT_MIN);
  const std::int32_t us = e - p.sum_frac_bits, uc = e - p.c_frac_bits;
  const std::int32_t u = std::min(us, uc);
  // Both terms are moved by a left and a right shift, one of them 0 (no branch on which).
  auto scaled = [](std::int64_t v, std::int32_t sh) {
    const std::int32_t left = std::max(sh, 0), right = std::min(std::max(-sh, 0), 63);
    return (v * (std::int64_t{1} << left)) >> right;  // floor when right > 0
  };
  std::int64_t t = has_s ? scaled(sum, lead - p.F - us) * (std::int64_t{1} << (us - u)) : 0;
  const bool dropped = p.c_drop_below >= 0 && has_c && clead < e - p.c_drop_below;
  if (has_c && !dropped) {
    const std::int64_t c = (d >> 31) ? -cmag : cmag;
    t += scaled(c, cexp - uc) * (std::int64_t{1} << (uc - u));
  }
  if (t == 0) return false;
  const bool negative = t < 0;
  const std::uint64_t mag = negative ? -static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(t);
  const int len = 64 - std::countl_zero(mag);
  int out_lead = u + len - 1;
  // To nearest even at 24 bits (an exact t of <= 24 bits only moves up).
  const int sh = std::max(len - 24, 0);
  std::uint64_t top = mag >> sh;
  const std::uint64_t rem = mag & ((1ull << sh) - 1), half = (1ull << sh) >> 1;
  top += (sh > 0) & ((rem > half) | ((rem == half) & top));
  top <<= std::max(24 - len, 0);
  const int carry = static_cast<int>(top >> 24);
  top >>= carry;
  out_lead += carry;
  if (out_lead < -126 || out_lead > 127) return false;  // subnormal or overflowing result
  d = (negative ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(out_lead + 127) << 23) |
      (top & 0x7FFFFF);
  return true;
}

#if defined(__x86_64__)
// 2^k as doubles, k in int64 lanes (|k| < 1000).
FPC_LATE_AVX2 __m256d pow2(__m256i k64) {
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(k64, _mm256_set1_epi64x(1023)), 52));
}
// v (int32 lanes, |v| < 2^31) times 2^k, as exact doubles: lanes 0-3 and 4-7.
FPC_LATE_AVX2 void scaled_pd(__m256i v, __m256i k, __m256d& lo, __m256d& hi) {
  lo = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(v)),
                     pow2(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(k))));
  hi = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)),
                     pow2(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(k, 1))));
}

// late_c_step for eight chains at once (lane c: chain c; d: their fp32 codes, updated where the
// lane's bit of the returned mask is clear). The terms are cut by arithmetic shifts in int32,
// scaled into doubles (exact: integers below 2^40), summed exactly in double and rounded to
// fp32 by vcvtpd2ps, whose rounding (MXCSR, held at nearest even by the kernel) is the one
// rounding of the exact value. Lanes the model must decide (NaN/inf C, overflowing products,
// zero, subnormal or infinite results) are returned in the mask.
__attribute__((target("avx2"))) inline int late_c_step8(const LateC& p, const BlockSum* pre,
                                                        __m256i& d) {
  const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pre));
  const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pre + 4));
  // [s0 l0 s1 l1 | s2 l2 s3 l3], [s4 l4 ...]: even words are the sums, odd ones the leads.
  const __m256i sum = _mm256_permute4x64_epi64(
      _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(x0), _mm256_castsi256_ps(x1), 0x88)), 0xD8);
  const __m256i lead = _mm256_permute4x64_epi64(
      _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(x0), _mm256_castsi256_ps(x1), 0xDD)), 0xD8);
  const __m256i zero = _mm256_setzero_si256(), ff = _mm256_set1_epi32(0xFF);
  const __m256i field = _mm256_and_si256(_mm256_srli_epi32(d, 23), ff);
  const __m256i frac = _mm256_and_si256(d, _mm256_set1_epi32(0x7FFFFF));
  const __m256i fz = _mm256_cmpeq_epi32(field, zero);
  const __m256i no_c = _mm256_cmpeq_epi32(_mm256_and_si256(d, _mm256_set1_epi32(0x7FFFFFFF)), zero);
  const __m256i no_s = _mm256_cmpeq_epi32(lead, _mm256_set1_epi32(kNoLead));
  const __m256i cmag = _mm256_or_si256(frac, _mm256_andnot_si256(fz, _mm256_set1_epi32(0x800000)));
  const __m256i cexp = _mm256_blendv_epi8(_mm256_sub_epi32(field, _mm256_set1_epi32(150)),
                                          _mm256_set1_epi32(-149), fz);
  const __m256i clead = _mm256_add_epi32(cexp, _mm256_set1_epi32(23));
  const __m256i lowest = _mm256_set1_epi32(INT_MIN / 4);
  const __m256i e = _mm256_max_epi32(_mm256_blendv_epi8(lead, lowest, no_s),
                                     _mm256_blendv_epi8(clead, lowest, no_c));
  const __m256i us = _mm256_sub_epi32(e, _mm256_set1_epi32(p.sum_frac_bits));
  const __m256i uc = _mm256_sub_epi32(e, _mm256_set1_epi32(p.c_frac_bits));
  const __m256i u = _mm256_min_epi32(us, uc);
  // The sum: floor(S * 2^sh) for sh < 0, else S * 2^sh, then * 2^(us - u).
  const __m256i c31 = _mm256_set1_epi32(31);
  const __m256i shs = _mm256_sub_epi32(_mm256_sub_epi32(lead, _mm256_set1_epi32(p.F)), us);
  // (vpsravd reads a count as unsigned: a negative one would fill with the sign.)
  const __m256i s_int = _mm256_srav_epi32(
      sum, _mm256_max_epi32(_mm256_min_epi32(_mm256_sub_epi32(zero, shs), c31), zero));
  const __m256i s_up = _mm256_add_epi32(_mm256_max_epi32(shs, zero), _mm256_sub_epi32(us, u));
  // C, signed, the same way; left out where it is zero or below e - c_drop_below.
  const __m256i csigned = _mm256_sign_epi32(cmag, _mm256_or_si256(d, _mm256_set1_epi32(1)));
  const __m256i shc = _mm256_sub_epi32(cexp, uc);
  const __m256i c_int = _mm256_srav_epi32(
      csigned, _mm256_max_epi32(_mm256_min_epi32(_mm256_sub_epi32(zero, shc), c31), zero));
  const __m256i c_up = _mm256_add_epi32(_mm256_max_epi32(shc, zero), _mm256_sub_epi32(uc, u));
  __m256i c_off = no_c;
  if (p.c_drop_below >= 0)
    c_off = _mm256_or_si256(c_off, _mm256_cmpgt_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(p.c_drop_below)), clead));
  const __m256i s_use = _mm256_andnot_si256(no_s, s_int);
  const __m256i c_use = _mm256_andnot_si256(c_off, c_int);
  __m256d s_lo, s_hi, c_lo, c_hi, u_lo, u_hi;
  scaled_pd(s_use, s_up, s_lo, s_hi);
  scaled_pd(c_use, c_up, c_lo, c_hi);
  const __m256d one_lo = pow2(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(u)));
  const __m256d one_hi = pow2(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(u, 1)));
  u_lo = _mm256_mul_pd(_mm256_add_pd(s_lo, c_lo), one_lo);  // exact: a power of two
  u_hi = _mm256_mul_pd(_mm256_add_pd(s_hi, c_hi), one_hi);
  const __m256i r = _mm256_castps_si256(_mm256_set_m128(_mm256_cvtpd_ps(u_hi), _mm256_cvtpd_ps(u_lo)));
  // Lanes for the model: NaN/inf C; products that might overflow; no term; a zero, subnormal
  // (below 2^-126 before rounding) or infinite result.
  const __m256d tiny = _mm256_set1_pd(0x1p-126), absm = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
  const __m256i small = _mm256_set_m128i(
      _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(_mm256_cmp_pd(_mm256_and_pd(u_hi, absm), tiny, _CMP_LT_OQ)), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7))),
      _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(_mm256_cmp_pd(_mm256_and_pd(u_lo, absm), tiny, _CMP_LT_OQ)), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7))));
  const __m256i rfield = _mm256_and_si256(_mm256_srli_epi32(r, 23), ff);
  const __m256i bad = _mm256_or_si256(
      _mm256_or_si256(_mm256_cmpeq_epi32(field, ff), _mm256_cmpgt_epi32(lead, _mm256_set1_epi32(125))),
      _mm256_or_si256(_mm256_and_si256(no_s, no_c),
                      _mm256_or_si256(small, _mm256_cmpeq_epi32(rfield, ff))));
  const int mask = _mm256_movemask_ps(_mm256_castsi256_ps(bad));
  d = _mm256_blendv_epi8(r, d, bad);
  return mask;
}
#endif

}  // namespace

#if defined(__x86_64__)
// Pass 2 of a chunk with the eight chains in vector lanes.
template <class Model>
__attribute__((target("avx2"))) void late_c_pass2_lanes(const LateC& lp,
                                                        const BlockSum (*pre)[kChains],
                                                        std::size_t nb, std::size_t b0,
                                                        std::uint64_t* d, Model&& model_block) {
  alignas(32) std::int32_t v[kChains];
  for (int c = 0; c < kChains; ++c) v[c] = static_cast<std::int32_t>(d[c]);
  __m256i dv = _mm256_load_si256(reinterpret_cast<const __m256i*>(v));
  for (std::size_t j = 0; j < nb; ++j) {
    const __m256i old = dv;
    const int bad = late_c_step8(lp, pre[j], dv);
    if (bad) {
      alignas(32) std::int32_t o[kChains], r[kChains];
      _mm256_store_si256(reinterpret_cast<__m256i*>(o), old);
      _mm256_store_si256(reinterpret_cast<__m256i*>(r), dv);
      for (int c = 0; c < kChains; ++c)
        if (bad & (1 << c))
          r[c] = static_cast<std::int32_t>(model_block(c, b0 + j, static_cast<std::uint32_t>(o[c])));
      dv = _mm256_load_si256(reinterpret_cast<const __m256i*>(r));
    }
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(v), dv);
  for (int c = 0; c < kChains; ++c) d[c] = static_cast<std::uint32_t>(v[c]);
}
#endif

template <int L, int I>
void FdpaKernel::late_c_run(const DecodedOperands& a, const std::size_t* offset_a,
                            const DecodedOperands& b, const std::size_t* offset_b,
                            std::size_t stride_b, const std::int32_t* const* sb,
                            const std::int32_t* const* eb, std::size_t k, std::uint64_t* d,
                            int n) const {
  const std::size_t nblocks = k / L;
  const std::int32_t bias = p_.frac_bits - product_man_bits_;
  const LateC lp{p_.frac_bits, p_.late_sum_frac_bits, p_.late_c_frac_bits, p_.late_c_drop_below};
  const Pass1Fn<L, I> pass1 = pick_pass1<L, I>();
  BlockSum pre[kChunkBlocks][kChains];  // a block's chains side by side
  auto model_block = [&](int c, std::size_t blk, std::uint64_t dc) {
    const std::size_t i = blk * L;
    return general(L, dc, a.codes.data() + offset_a[c] + i,
                   b.codes.data() + offset_b[c] + i * stride_b, stride_b);
  };
#if defined(__x86_64__)
  // Eight chains in the lanes of pass 2 where AVX2 is here.
  const bool lanes = n == kChains && !portable_dispatch() && cpu_features().avx2;
#endif
  for (std::size_t b0 = 0; b0 < nblocks; b0 += kChunkBlocks) {
    const std::size_t nb = std::min(kChunkBlocks, nblocks - b0);
    for (int c = 0; c < n; ++c) {
      const std::size_t i = b0 * L;
      pass1(a.sig.data() + offset_a[c] + i, a.lead.data() + offset_a[c] + i, sb[c] + i,
            eb[c] + i, bias, nb, &pre[0][c]);
    }
#if defined(__x86_64__)
    if (lanes) {
      late_c_pass2_lanes(lp, pre, nb, b0, d, model_block);
      continue;
    }
#endif
    for (std::size_t j = 0; j < nb; ++j)
      for (int c = 0; c < n; ++c)
        if (!late_c_step(lp, pre[j][c].sum, pre[j][c].lead, d[c])) d[c] = model_block(c, b0 + j, d[c]);
  }
  if (nblocks * L < k)  // the partial last block, as fdpa takes it
    for (int c = 0; c < n; ++c)
      d[c] = model_dot(a, offset_a[c] + nblocks * L, b, offset_b[c] + nblocks * L * stride_b,
                       stride_b, k - nblocks * L, d[c]);
}

void FdpaKernel::dot_late_c(const DecodedOperands& a, const std::size_t* offset_a,
                            const DecodedOperands& b, const std::size_t* offset_b,
                            std::size_t stride_b, const std::int32_t* const* sb,
                            const std::int32_t* const* eb, std::size_t k, std::uint64_t* d,
                            int n) const {
  const int key = p_.block * 4 + p_.interleave;
  switch (key) {
    case 4 * 4 + 1: late_c_run<4, 1>(a, offset_a, b, offset_b, stride_b, sb, eb, k, d, n); break;
    case 8 * 4 + 1: late_c_run<8, 1>(a, offset_a, b, offset_b, stride_b, sb, eb, k, d, n); break;
    case 16 * 4 + 1: late_c_run<16, 1>(a, offset_a, b, offset_b, stride_b, sb, eb, k, d, n); break;
    case 16 * 4 + 2: late_c_run<16, 2>(a, offset_a, b, offset_b, stride_b, sb, eb, k, d, n); break;
    default:  // not served (late_c_serves): the model
      for (int c = 0; c < n; ++c) d[c] = model_dot(a, offset_a[c], b, offset_b[c], stride_b, k, d[c]);
      break;
  }
}

bool FdpaKernel::late_c_serves(int block, int interleave) {
  return (interleave == 1 && (block == 4 || block == 8 || block == 16)) ||
         (interleave == 2 && block == 16);
}

}  // namespace fpconform
