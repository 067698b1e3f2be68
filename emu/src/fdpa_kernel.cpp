// FdpaKernel: the integer fast path of fdpa (see fdpa_kernel.hpp).
#include "fpconform/fdpa_kernel.hpp"
#include "avx2_reduce.hpp"

#include "fpconform/core/cpu_features.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <map>
#include <string_view>

#include "fpconform/core/error.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fdpa_host.hpp"
#include "host_fp_mode.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

constexpr std::int32_t kZeroLead = -(1 << 20);  // a zero operand: never the block maximum
constexpr int kExactMaxDigits = 48;  // 1536 bits: every pair of formats of <= 16 bits fits
constexpr int kExactRows = 4;        // independent digit rows (breaks store-to-load chains)
constexpr std::size_t kExactCarryEvery = 128;  // products per row between carry propagations

// One exact row: digit j holds bits [32 j, 32 j + 32) of the sum relative to exact_base_, in an
// int64 that takes 2^7 shifted products (< 2^55 each) between carry propagations.
__attribute__((always_inline)) inline void carry_row(std::int64_t* d, int n) {
  for (int j = 0; j + 1 < n; ++j) {
    const std::int64_t c = d[j] >> 32;  // floor: the digit stays in [0, 2^32)
    d[j] -= c * (std::int64_t{1} << 32);
    d[j + 1] += c;
  }
}

// Adds sum_i sa[i] sb[i] 2^(ea[i] + eb[i] + off0) to the rows (off0 makes the weights relative to
// digit 0); returns whether any product is non-zero. Zero operands have a lead far below every
// weight: their offset is clamped to 0 and they add 0.
__attribute__((target_clones("avx2", "default"))) bool exact_accumulate(
    std::int64_t (*rows)[kExactMaxDigits], int digits, const std::int32_t* sa,
    const std::int32_t* ea, const std::int32_t* sb, const std::int32_t* eb, std::size_t n,
    std::int32_t off0) {
  std::int64_t any = 0;
  for (std::size_t i0 = 0; i0 < n; i0 += kExactRows * kExactCarryEvery) {
    const std::size_t end = std::min(n, i0 + kExactRows * kExactCarryEvery);
    std::size_t i = i0;
    for (; i + kExactRows <= end; i += kExactRows)
      for (int r = 0; r < kExactRows; ++r) {
        const std::int64_t prod = static_cast<std::int64_t>(sa[i + r]) * sb[i + r];
        std::int32_t off = ea[i + r] + eb[i + r] + off0;
        off = off < 0 ? 0 : off;
        rows[r][off >> 5] += prod << (off & 31);
        any |= prod;
      }
    for (; i < end; ++i) {
      const std::int64_t prod = static_cast<std::int64_t>(sa[i]) * sb[i];
      std::int32_t off = ea[i] + eb[i] + off0;
      off = off < 0 ? 0 : off;
      rows[0][off >> 5] += prod << (off & 31);
      any |= prod;
    }
    for (int r = 0; r < kExactRows; ++r) carry_row(rows[r], digits);
  }
  return any != 0;
}

// sum over i of sign(p_i) * trunc(|p_i| * 2^(lsb_i - u)), lsb_i = ea + eb - 2m: the aligned,
// truncated products of one block, in T (int32 when the sum provably fits). Compiled for AVX2
// and the baseline; the loader picks.
template <class T>
__attribute__((always_inline)) inline T aligned_sum_t(const std::int32_t* sa,
                                                      const std::int32_t* ea,
                                                      const std::int32_t* sb,
                                                      const std::int32_t* eb, std::size_t n,
                                                      std::int32_t shift0, std::int32_t bias) {
  // sh = lsb - u <= bias (no product exceeds 2^E), so |p| << bias >> (bias - sh) is the
  // truncated aligned product with one variable shift in one direction.
  constexpr std::int32_t kBits = sizeof(T) * 8 - 1;
  T sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T prod = static_cast<T>(sa[i]) * static_cast<T>(sb[i]);
    const T neg = prod >> kBits;              // 0 or -1
    const T mag = (prod ^ neg) - neg;
    std::int32_t rs = bias - (ea[i] + eb[i] - shift0);
    rs = rs > kBits ? kBits : rs;
    const T t = (mag << bias) >> rs;
    sum += (t ^ neg) - neg;
  }
  return sum;
}

__attribute__((target_clones("avx2", "default"))) std::int64_t aligned_sum64(
    const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
    const std::int32_t* eb, std::size_t n, std::int32_t shift0, std::int32_t bias) {
  return aligned_sum_t<std::int64_t>(sa, ea, sb, eb, n, shift0, bias);
}

__attribute__((target_clones("avx2", "default"))) std::int32_t aligned_sum32(
    const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
    const std::int32_t* eb, std::size_t n, std::int32_t shift0, std::int32_t bias) {
  return aligned_sum_t<std::int32_t>(sa, ea, sb, eb, n, shift0, bias);
}

__attribute__((target_clones("avx2", "default"))) std::int32_t block_max(
    const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
    const std::int32_t* eb, std::size_t n, bool& any_zero) {
  std::int32_t e = INT_MIN;
  int zeros = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool nz = (sa[i] != 0) & (sb[i] != 0);
    e = std::max(e, nz ? ea[i] + eb[i] : kZeroLead);
    zeros += nz ? 0 : 1;
  }
  any_zero = zeros != 0;
  return e;
}

// Two-pass form of the fused block (int32 sums, fp32 RZ output): the work that does not depend
// on C is done for all blocks first, so that the chain from one block's result (the next one's
// C) to the next result is short. With ep the largest product lead of a block and e >= ep its
// alignment exponent (after C and zero_exp), each truncated aligned product is
//   floor(|p| 2^(lead - e + F - 2m... )) = floor(q / 2^(e - ep)),  q = floor(|p| 2^(F-2m) / 2^(ep - lead))
// (floor of a floor), and a negative one -floor(q / 2^D) = (~q >> D) + 1 (arithmetic shift).
// Pass 1 stores w = q or ~q per product, and per block ep, whether a product is zero and the
// number of negative products; pass 2 needs one uniform shift per block.
// Pass 2 is still one serial chain per dot product (each block waits for the previous result),
// so several independent dot products (a group of chains: other columns of a GEMM row) run
// their pass 2 together, block by block: interleaved (groups of 2 or 4), or with AVX2 eight at
// once, one chain per 32-bit lane (the block sums fit int32). The passes go by chunks of
// kChunk products per chain, so that the scratch of a group stays in L1.
constexpr int kMaxChains = 8;            // dot products in one group
constexpr std::size_t kChunk = 256;      // products per chain between pass 1 and pass 2

// dot_many_in_tiles' tiles: rows of A at most, and columns at most (the host's row path takes
// the most of both; the column lanes at most four rows of sixteen).
constexpr int kMaxTileRows = detail::HostIeeePath::kMaxRows;
constexpr std::size_t kMaxTileWidth = detail::HostIeeePath::kMaxRowWidth;

// The constants of both passes.
struct TwoPass {
  std::int32_t bias, F, keep, zero_exp;
  bool lanes32;  // a block's sum with C fits int32 (else only its shifted products do)
};

// One dot product of a group: its operands (full blocks), its scratch for one chunk (w: kChunk
// products; per block of the chunk, at index block * kMaxChains: ep, the largest product lead
// (kZeroLead: every product zero), nneg, the number of products with w = ~q, and zeros, the
// number of zero products: the chains of a group interleaved, so that AVX2 loads a block's
// eight with one instruction), and the long way for one block (`fallback`,
// FdpaKernel::block; blk counts from the first block of the dot product).
struct Chain {
  const std::int32_t *sa, *ea, *sb, *eb;
  std::int32_t* w;
  std::int32_t *ep, *nneg, *zeros;
  const void* ctx;
  std::uint64_t (*fallback)(const void* ctx, std::size_t blk, std::uint64_t c);
};

// Pass 1 for blocks [b0, b0 + nb) of one chain, plain C++ (a compile-time L: the per-block loops
// unroll and vectorize without loop overhead, which dominated at L = 8).
template <int L>
__attribute__((always_inline)) inline void pass1_scalar(const TwoPass& t, const Chain& ch,
                                                        std::size_t b0, std::size_t nb) {
  // Local restrict copies: through the struct the compiler must assume that the stores to w
  // alias the operands, and reloads them element by element instead of vectorizing.
  const std::int32_t* __restrict sa = ch.sa + b0 * L;
  const std::int32_t* __restrict ea = ch.ea + b0 * L;
  const std::int32_t* __restrict sb = ch.sb + b0 * L;
  const std::int32_t* __restrict eb = ch.eb + b0 * L;
  std::int32_t* __restrict wp = ch.w;
  const std::int32_t bias = t.bias;
  for (std::size_t blk = 0; blk < nb; ++blk) {
    const std::size_t i0 = blk * L;
    std::int32_t e = kZeroLead, zeros = 0, neg = 0;
    for (int j = 0; j < L; ++j) {
      const std::size_t i = i0 + j;
      const bool nz = (sa[i] != 0) & (sb[i] != 0);
      e = std::max(e, nz ? ea[i] + eb[i] : kZeroLead);
      zeros += nz ? 0 : 1;
    }
    for (int j = 0; j < L; ++j) {
      const std::size_t i = i0 + j;
      const std::int32_t prod = sa[i] * sb[i];
      const std::int32_t ng = prod >> 31;
      const std::int32_t mag = (prod ^ ng) - ng;
      std::int32_t rs = e - (ea[i] + eb[i]);
      // A zero product is left out of the block maximum e, so its exponent may exceed e: clamp
      // below too (mag is 0 then, and a negative shift would be undefined).
      rs = rs > 31 ? 31 : (rs < 0 ? 0 : rs);
      wp[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(mag << bias) >> rs) ^ ng;
      neg -= ng;
    }
    ch.ep[blk * kMaxChains] = e;
    ch.nneg[blk * kMaxChains] = neg;
    ch.zeros[blk * kMaxChains] = zeros;
  }
}

// sum over the L words at w of (w >> dd), arithmetic shifts.
template <int L>
__attribute__((always_inline)) inline std::int32_t shifted_sum_scalar(const std::int32_t* w,
                                                                      std::int32_t dd) {
  std::int32_t s = 0;
  for (int j = 0; j < L; ++j) s += w[j] >> dd;
  return s;
}

// The tail of a block in pass 2: C (cmag 2^cexp, its sign that of the fp32 code d; cmag = 0 for
// a zero C) aligned to the unit 2^u and added to the block sum, the sum normalised and packed
// into d as fp32 rounded toward zero to t.keep bits. False (d unchanged) where the block needs
// the long way: a zero sum, or a result outside the normal range.
__attribute__((always_inline)) inline bool add_c_and_pack(const TwoPass& t, std::int64_t sum,
                                                          std::int64_t cmag, std::int32_t cexp,
                                                          std::int32_t u, std::uint64_t& d) {
  if (cmag) {
    const std::int32_t sh = cexp - u;
    const std::int64_t c = sh >= 0 ? cmag << sh : (-sh > 62 ? 0 : cmag >> -sh);
    sum += (d >> 31) ? -c : c;
  }
  const bool negative = sum < 0;
  const auto mag = static_cast<std::uint64_t>(negative ? -sum : sum);
  const int bits = 64 - std::countl_zero(mag);
  const int lead = u + bits - 1;
  if (sum == 0 || lead < -126 || lead > 127) return false;
  const std::uint64_t top = bits > t.keep ? mag >> (bits - t.keep) : mag << (t.keep - bits);
  const std::uint64_t f = (top & ((1ull << (t.keep - 1)) - 1)) << (24 - t.keep);
  d = (negative ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(lead + 127) << 23) | f;
  return true;
}

// Pass 2 for block j of the chunk (block blk of the dot product) of one chain: d, the running
// fp32 code, becomes the block's result. The block sum is computed first for a guessed e (C's
// lead taken as the previous C's, prev_c_lead: it changes slowly along a long dot product),
// which does not wait for this block's C, and redone only when the real e differs.
template <int L, class P>
__attribute__((always_inline)) inline void pass2_step(const TwoPass& t, const Chain& ch,
                                                      std::size_t j, std::size_t blk,
                                                      std::uint64_t& d,
                                                      std::int32_t& prev_c_lead) {
  const std::int32_t ep = ch.ep[j * kMaxChains];
  const std::int32_t* w = ch.w + j * L;
  std::int32_t eg = std::max(ep, prev_c_lead);
  bool any_zero = ch.zeros[j * kMaxChains] != 0;
  if (any_zero && t.zero_exp != INT_MIN) eg = std::max(eg, t.zero_exp);
  const std::int32_t guess = P::template shifted_sum<L>(w, std::min(eg - ep, 31));
  // C, an fp32 code: field, fraction, sign.
  const std::uint64_t field = (d >> 23) & 0xFF, frac = d & 0x7FFFFF;
  prev_c_lead = kZeroLead;
  if (ep <= kZeroLead || field == 0xFF) {
    d = ch.fallback(ch.ctx, blk, d);
    return;
  }
  std::int32_t e = ep;
  std::int64_t cmag = 0;
  std::int32_t cexp = 0;
  if (field == 0 && frac == 0) {
    any_zero = true;
  } else {
    cmag = static_cast<std::int64_t>(field ? frac | 0x800000 : frac);
    cexp = field ? static_cast<std::int32_t>(field) - 150 : -149;
    prev_c_lead = cexp + 23;
    e = std::max(e, cexp + 23);  // C's lead (subnormals: emin, as decode gives)
  }
  if (any_zero && t.zero_exp != INT_MIN) e = std::max(e, t.zero_exp);
  const std::int32_t u = e - t.F;
  const std::int32_t ws = e == eg ? guess : P::template shifted_sum<L>(w, std::min(e - ep, 31));
  if (!add_c_and_pack(t, static_cast<std::int64_t>(ws) + ch.nneg[j * kMaxChains], cmag, cexp, u,
                      d))
    d = ch.fallback(ch.ctx, blk, d);
}

// Both passes over nblocks full blocks of L for a group of N chains (d: their C codes in, their
// results out), chunk by chunk; pass 2 interleaves the chains block by block. P supplies pass 1
// and the shifted block sum (plain C++ or AVX2).
template <int L, int N, class P>
__attribute__((always_inline)) inline void two_pass_group(const TwoPass& t, const Chain* ch,
                                                          std::size_t nblocks,
                                                          std::uint64_t* d) {
  constexpr std::size_t kBlocks = kChunk / L;
  std::uint64_t dd[N];
  std::int32_t prev[N];
  for (int n = 0; n < N; ++n) {
    dd[n] = d[n];
    prev[n] = kZeroLead;
  }
  for (std::size_t b0 = 0; b0 < nblocks; b0 += kBlocks) {
    const std::size_t nb = std::min(kBlocks, nblocks - b0);
    for (int n = 0; n < N; ++n) P::template pass1<L>(t, ch[n], b0, nb);
    for (std::size_t j = 0; j < nb; ++j) {
#pragma GCC unroll 4
      for (int n = 0; n < N; ++n) pass2_step<L, P>(t, ch[n], j, b0 + j, dd[n], prev[n]);
    }
  }
  for (int n = 0; n < N; ++n) d[n] = dd[n];
}

// A group of 1, 2, 4 or 8 chains (the caller splits others).
template <int L, class P>
__attribute__((always_inline)) inline void two_pass_run(const TwoPass& t, const Chain* ch, int n,
                                                        std::size_t nblocks, std::uint64_t* d) {
  switch (n) {
    case 8: P::template group8<L>(t, ch, nblocks, d); break;
    case 4: two_pass_group<L, 4, P>(t, ch, nblocks, d); break;
    case 2: two_pass_group<L, 2, P>(t, ch, nblocks, d); break;
    default: two_pass_group<L, 1, P>(t, ch, nblocks, d); break;
  }
}

struct PortablePasses {
  template <int L>
  static __attribute__((always_inline)) inline void pass1(const TwoPass& t, const Chain& ch,
                                                          std::size_t b0, std::size_t nb) {
    pass1_scalar<L>(t, ch, b0, nb);
  }
  template <int L>
  static __attribute__((always_inline)) inline std::int32_t shifted_sum(const std::int32_t* w,
                                                                       std::int32_t dd) {
    return shifted_sum_scalar<L>(w, dd);
  }
  template <int L>
  static __attribute__((always_inline)) inline void group8(const TwoPass& t, const Chain* ch,
                                                           std::size_t nblocks, std::uint64_t* d) {
    two_pass_group<L, 4, PortablePasses>(t, ch, nblocks, d);
    two_pass_group<L, 4, PortablePasses>(t, ch + 4, nblocks, d + 4);
  }
};

template <int L>
void two_pass_base(const TwoPass& t, const Chain* ch, int n, std::size_t nblocks,
                   std::uint64_t* d) {
  two_pass_run<L, PortablePasses>(t, ch, n, nblocks, d);
}

#if defined(__x86_64__) || defined(__i386__)
#define FPC_AVX2_INLINE __attribute__((target("avx2"), always_inline)) inline

using detail::hmax8;
using detail::hsum8;

// sum over the V vectors at w of (w >> dd), arithmetic shifts.
template <int V>
FPC_AVX2_INLINE std::int32_t shifted_hsum(const std::int32_t* w, std::int32_t dd) {
  const __m128i D = _mm_cvtsi32_si128(dd);
  __m256i acc = _mm256_sra_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)), D);
  for (int v = 1; v < V; ++v)
    acc = _mm256_add_epi32(
        acc, _mm256_sra_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 8 * v)), D));
  return hsum8(acc);
}

// Pass 1 with intrinsics for L a multiple of 8 (GCC leaves the per-block loops of pass1_scalar
// scalar): the same arithmetic, 8 products per vector. |sa|, |sb| < 2^12, so a product is zero
// exactly when an operand is.
template <int L>
FPC_AVX2_INLINE void pass1_avx2(const TwoPass& t, const Chain& ch, std::size_t b0,
                                std::size_t nb) {
  constexpr int V = L / 8;
  const __m256i zlead = _mm256_set1_epi32(kZeroLead), zero = _mm256_setzero_si256();
  const __m256i cap = _mm256_set1_epi32(31);
  const __m128i bias = _mm_cvtsi32_si128(t.bias);
  const std::int32_t* sa = ch.sa + b0 * L;
  const std::int32_t* ea = ch.ea + b0 * L;
  const std::int32_t* sb = ch.sb + b0 * L;
  const std::int32_t* eb = ch.eb + b0 * L;
  for (std::size_t blk = 0; blk < nb; ++blk) {
    const std::size_t i0 = blk * L;
    __m256i prod[V], lead[V];
    __m256i emax = zlead;
    int zeros = 0, neg = 0;
    for (int v = 0; v < V; ++v) {
      const std::size_t o = i0 + 8 * static_cast<std::size_t>(v);
      prod[v] = _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sa + o)),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb + o)));
      lead[v] = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ea + o)),
                                 _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + o)));
      const __m256i isz = _mm256_cmpeq_epi32(prod[v], zero);
      emax = _mm256_max_epi32(emax, _mm256_blendv_epi8(lead[v], zlead, isz));
      zeros |= _mm256_movemask_epi8(isz);
      neg += __builtin_popcount(static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(prod[v]))));
    }
    const std::int32_t e = hmax8(emax);
    const __m256i ev = _mm256_set1_epi32(e);
    for (int v = 0; v < V; ++v) {
      const __m256i ng = _mm256_srai_epi32(prod[v], 31);
      const __m256i mag = _mm256_abs_epi32(prod[v]);
      const __m256i rs = _mm256_min_epi32(_mm256_sub_epi32(ev, lead[v]), cap);
      const __m256i q = _mm256_srlv_epi32(_mm256_sll_epi32(mag, bias), rs);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(ch.w + i0 + 8 * v), _mm256_xor_si256(q, ng));
    }
    ch.ep[blk * kMaxChains] = e;
    ch.nneg[blk * kMaxChains] = neg;
    ch.zeros[blk * kMaxChains] = zeros;
  }
}

// Pass 1 for L = 4, two blocks per vector (the block maximum within each 128-bit half); an odd
// last block by pass1_scalar.
FPC_AVX2_INLINE void pass1_avx2_l4(const TwoPass& t, const Chain& ch, std::size_t b0,
                                   std::size_t nb) {
  const __m256i zlead = _mm256_set1_epi32(kZeroLead), zero = _mm256_setzero_si256();
  const __m256i cap = _mm256_set1_epi32(31);
  const __m128i bias = _mm_cvtsi32_si128(t.bias);
  std::size_t blk = 0;
  for (; blk + 2 <= nb; blk += 2) {
    const std::size_t o = (b0 + blk) * 4;
    const __m256i prod =
        _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ch.sa + o)),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ch.sb + o)));
    const __m256i lead =
        _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ch.ea + o)),
                         _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ch.eb + o)));
    const __m256i isz = _mm256_cmpeq_epi32(prod, zero);
    __m256i e = _mm256_blendv_epi8(lead, zlead, isz);
    e = _mm256_max_epi32(e, _mm256_shuffle_epi32(e, 0x4E));
    e = _mm256_max_epi32(e, _mm256_shuffle_epi32(e, 0xB1));
    const __m256i rs = _mm256_min_epi32(_mm256_sub_epi32(e, lead), cap);
    const __m256i q = _mm256_srlv_epi32(_mm256_sll_epi32(_mm256_abs_epi32(prod), bias), rs);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ch.w + blk * 4),
                        _mm256_xor_si256(q, _mm256_srai_epi32(prod, 31)));
    const unsigned nm = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(prod)));
    ch.ep[blk * kMaxChains] = _mm256_extract_epi32(e, 0);
    ch.ep[(blk + 1) * kMaxChains] = _mm256_extract_epi32(e, 4);
    if (t.zero_exp != INT_MIN) {  // zero terms' exponent: pass 2 reads the counts
      const unsigned zm = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(isz)));
      ch.zeros[blk * kMaxChains] = __builtin_popcount(zm & 0xF);
      ch.zeros[(blk + 1) * kMaxChains] = __builtin_popcount(zm >> 4);
    }
    ch.nneg[blk * kMaxChains] = __builtin_popcount(nm & 0xF);
    ch.nneg[(blk + 1) * kMaxChains] = __builtin_popcount(nm >> 4);
  }
  if (blk < nb) {
    Chain rest = ch;
    rest.w += blk * 4;
    rest.ep += blk * kMaxChains;
    rest.nneg += blk * kMaxChains;
    rest.zeros += blk * kMaxChains;
    pass1_scalar<4>(t, rest, b0 + blk, nb - blk);
  }
}

// Per lane n of the result: sum over the L words of chain n's block j of (w >> dd[n]).
template <int L>
FPC_AVX2_INLINE __m256i shifted_sums8(const Chain* ch, std::size_t j, __m256i dd) {
  if constexpr (L == 4) {
    // Chains in pairs per vector: [c0 | c1], [c2 | c3], ...; three hadd rounds leave
    // [c0, c2, c4, c6 | c1, c3, c5, c7], then one permutation.
    __m256i s[4];
    for (int n = 0; n < 4; ++n) {
      const __m256i w = _mm256_set_m128i(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(ch[2 * n + 1].w + j * 4)),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(ch[2 * n].w + j * 4)));
      const __m256i d = _mm256_permutevar8x32_epi32(
          dd, _mm256_setr_epi32(2 * n, 2 * n, 2 * n, 2 * n, 2 * n + 1, 2 * n + 1, 2 * n + 1, 2 * n + 1));
      s[n] = _mm256_srav_epi32(w, d);
    }
    const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
    return _mm256_permutevar8x32_epi32(h, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  }
  __m256i s[8];
  for (int n = 0; n < 8; ++n) {
    const __m256i dn = _mm256_permutevar8x32_epi32(dd, _mm256_set1_epi32(n));
    const std::int32_t* w = ch[n].w + j * L;
    __m256i acc = _mm256_srav_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)), dn);
    for (int v = 1; v < L / 8; ++v) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 8 * v));
      acc = _mm256_add_epi32(acc, _mm256_srav_epi32(x, dn));
    }
    s[n] = acc;
  }
  // hadd(hadd(s0, s1), hadd(s2, s3)) = [s0, s1, s2, s3 (low halves) | s0, s1, s2, s3 (high)].
  const __m256i u0 =
      _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
  const __m256i u1 =
      _mm256_hadd_epi32(_mm256_hadd_epi32(s[4], s[5]), _mm256_hadd_epi32(s[6], s[7]));
  return _mm256_add_epi32(_mm256_permute2x128_si256(u0, u1, 0x20),
                          _mm256_permute2x128_si256(u0, u1, 0x31));
}

// Both passes for a group of eight chains, L a multiple of 8: pass 2 is pass2_step with one
// chain per lane (the same arithmetic in int32: the block sum with C is below 2^30 wherever the
// two-pass form applies, see sum32_; floor(log2) from the float conversion, corrected where it
// rounds up; variable shifts by counts >= 32 give 0, as the scalar ranges do). The blocks that
// need the long way go, lane by lane, to the fallback.
template <int L>
FPC_AVX2_INLINE void two_pass_group8_avx2(const TwoPass& t, const Chain* ch, std::size_t nblocks,
                                          std::uint64_t* d) {
  constexpr std::size_t kBlocks = kChunk / L;
  alignas(32) std::int32_t lanes[8], old[8];
  for (int n = 0; n < 8; ++n) lanes[n] = static_cast<std::int32_t>(d[n]);
  __m256i dv = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
  __m256i prev = _mm256_set1_epi32(kZeroLead);
  const __m256i zlead = _mm256_set1_epi32(kZeroLead), zlead1 = _mm256_set1_epi32(kZeroLead + 1);
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
  const __m256i c31 = _mm256_set1_epi32(31), c30 = _mm256_set1_epi32(30);
  const __m256i ff = _mm256_set1_epi32(0xFF), fracm = _mm256_set1_epi32(0x7FFFFF);
  const __m256i absm = _mm256_set1_epi32(0x7FFFFFFF), hidden = _mm256_set1_epi32(0x800000);
  const __m256i c150 = _mm256_set1_epi32(150), m149 = _mm256_set1_epi32(-149);
  const __m256i c23 = _mm256_set1_epi32(23), c127 = _mm256_set1_epi32(127);
  const __m256i m127 = _mm256_set1_epi32(-127), signm = _mm256_set1_epi32(INT_MIN);
  const __m256i fv = _mm256_set1_epi32(t.F), keep1 = _mm256_set1_epi32(t.keep - 1);
  const __m256i zexp = _mm256_set1_epi32(t.zero_exp);
  const __m256i fmask = _mm256_set1_epi32((1 << (t.keep - 1)) - 1);
  const __m128i fshift = _mm_cvtsi32_si128(24 - t.keep);
  const bool zx = t.zero_exp != INT_MIN;
  for (std::size_t b0 = 0; b0 < nblocks; b0 += kBlocks) {
    const std::size_t nb = std::min(kBlocks, nblocks - b0);
    for (int n = 0; n < 8; ++n) {
      if constexpr (L % 8 == 0) pass1_avx2<L>(t, ch[n], b0, nb);
      else if constexpr (L == 4) pass1_avx2_l4(t, ch[n], b0, nb);
      else pass1_scalar<L>(t, ch[n], b0, nb);
    }
    for (std::size_t j = 0; j < nb; ++j) {
      const std::size_t o = j * kMaxChains;
      const __m256i ep = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ch[0].ep + o));
      const __m256i nneg = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ch[0].nneg + o));
      const __m256i pz = _mm256_cmpgt_epi32(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ch[0].zeros + o)), zero);
      // The guess, as pass2_step makes it.
      __m256i eg = _mm256_max_epi32(ep, prev);
      if (zx) eg = _mm256_max_epi32(eg, _mm256_blendv_epi8(zlead, zexp, pz));
      const __m256i guess =
          shifted_sums8<L>(ch, j, _mm256_min_epi32(_mm256_sub_epi32(eg, ep), c31));
      // C: field, fraction, sign.
      const __m256i field = _mm256_and_si256(_mm256_srli_epi32(dv, 23), ff);
      const __m256i fz = _mm256_cmpeq_epi32(field, zero);
      const __m256i cz = _mm256_cmpeq_epi32(_mm256_and_si256(dv, absm), zero);
      const __m256i cmag =
          _mm256_or_si256(_mm256_and_si256(dv, fracm), _mm256_andnot_si256(fz, hidden));
      const __m256i cexp = _mm256_blendv_epi8(_mm256_sub_epi32(field, c150), m149, fz);
      const __m256i clead = _mm256_blendv_epi8(_mm256_add_epi32(cexp, c23), zlead, cz);
      const __m256i special =
          _mm256_or_si256(_mm256_cmpeq_epi32(field, ff), _mm256_cmpgt_epi32(zlead1, ep));
      __m256i e = _mm256_max_epi32(ep, clead);
      if (zx) e = _mm256_max_epi32(e, _mm256_blendv_epi8(zlead, zexp, _mm256_or_si256(pz, cz)));
      prev = clead;
      const __m256i u = _mm256_sub_epi32(e, fv);
      __m256i ws = guess;
      if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(e, eg)) != -1)
        ws = shifted_sums8<L>(ch, j, _mm256_min_epi32(_mm256_sub_epi32(e, ep), c31));
      // add_c_and_pack, lane by lane.
      const __m256i sh = _mm256_sub_epi32(cexp, u);
      const __m256i c = _mm256_or_si256(_mm256_sllv_epi32(cmag, sh),
                                        _mm256_srlv_epi32(cmag, _mm256_sub_epi32(zero, sh)));
      const __m256i cs = _mm256_srai_epi32(dv, 31);
      const __m256i sum = _mm256_add_epi32(_mm256_add_epi32(ws, nneg),
                                           _mm256_sub_epi32(_mm256_xor_si256(c, cs), cs));
      const __m256i mag = _mm256_abs_epi32(sum);
      __m256i ex = _mm256_add_epi32(
          _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(mag)), 23), m127);
      ex = _mm256_min_epi32(ex, c30);
      ex = _mm256_add_epi32(ex, _mm256_cmpgt_epi32(_mm256_sllv_epi32(one, ex), mag));
      const __m256i lead = _mm256_add_epi32(u, ex);
      const __m256i bad = _mm256_or_si256(
          _mm256_or_si256(special, _mm256_cmpeq_epi32(sum, zero)),
          _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(-126), lead),
                          _mm256_cmpgt_epi32(lead, c127)));
      const __m256i s1 = _mm256_sub_epi32(ex, keep1);  // bits - keep
      const __m256i top = _mm256_or_si256(_mm256_srlv_epi32(mag, s1),
                                          _mm256_sllv_epi32(mag, _mm256_sub_epi32(zero, s1)));
      const __m256i f = _mm256_sll_epi32(_mm256_and_si256(top, fmask), fshift);
      const __m256i res = _mm256_or_si256(
          _mm256_or_si256(_mm256_and_si256(sum, signm),
                          _mm256_slli_epi32(_mm256_add_epi32(lead, c127), 23)),
          f);
      const int badm = _mm256_movemask_ps(_mm256_castsi256_ps(bad));
      if (badm == 0) {
        dv = res;
      } else {
        _mm256_store_si256(reinterpret_cast<__m256i*>(old), dv);
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), res);
        for (int n = 0; n < 8; ++n)
          if (badm & (1 << n))
            lanes[n] = static_cast<std::int32_t>(ch[n].fallback(
                ch[n].ctx, b0 + j, static_cast<std::uint32_t>(old[n])));
        dv = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
      }
    }
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), dv);
  for (int n = 0; n < 8; ++n) d[n] = static_cast<std::uint32_t>(lanes[n]);
}

// The AVX2 passes: not always_inline (an always_inline function of the baseline target may not
// call them), inlined into two_pass_avx2 by its `flatten`.
struct Avx2Passes {
  template <int L>
  __attribute__((target("avx2"))) static inline void pass1(const TwoPass& t, const Chain& ch,
                                                           std::size_t b0, std::size_t nb) {
    if constexpr (L % 8 == 0) pass1_avx2<L>(t, ch, b0, nb);
    else if constexpr (L == 4) pass1_avx2_l4(t, ch, b0, nb);
    else pass1_scalar<L>(t, ch, b0, nb);
  }
  template <int L>
  __attribute__((target("avx2"))) static inline std::int32_t shifted_sum(const std::int32_t* w,
                                                                        std::int32_t dd) {
    if constexpr (L % 8 == 0) return shifted_hsum<L / 8>(w, dd);
    else return shifted_sum_scalar<L>(w, dd);
  }
  template <int L>
  __attribute__((target("avx2"))) static inline void group8(const TwoPass& t, const Chain* ch,
                                                            std::size_t nblocks,
                                                            std::uint64_t* d) {
    if constexpr (L % 8 == 0 || L == 4) {
      if (t.lanes32) {
        two_pass_group8_avx2<L>(t, ch, nblocks, d);
      } else {
        two_pass_group<L, 4, Avx2Passes>(t, ch, nblocks, d);
        two_pass_group<L, 4, Avx2Passes>(t, ch + 4, nblocks, d + 4);
      }
    } else {
      two_pass_group<L, 4, Avx2Passes>(t, ch, nblocks, d);
      two_pass_group<L, 4, Avx2Passes>(t, ch + 4, nblocks, d + 4);
    }
  }
};

template <int L>
__attribute__((target("avx2"), flatten)) void two_pass_avx2(const TwoPass& t, const Chain* ch,
                                                            int n, std::size_t nblocks,
                                                            std::uint64_t* d) {
  two_pass_run<L, Avx2Passes>(t, ch, n, nblocks, d);
}

bool have_avx2() { return !portable_dispatch() && cpu_features().avx2; }
#endif

using TwoPassFn = void (*)(const TwoPass&, const Chain*, int, std::size_t, std::uint64_t*);
template <int L>
TwoPassFn pick_two_pass() {
#if defined(__x86_64__) || defined(__i386__)
  if (have_avx2()) return &two_pass_avx2<L>;
#endif
  return &two_pass_base<L>;
}

TwoPassFn two_pass_for(int block) {
  switch (block) {
    case 4: return pick_two_pass<4>();
    case 8: return pick_two_pass<8>();
    case 16: return pick_two_pass<16>();
    case 32: return pick_two_pass<32>();
    case 64: return pick_two_pass<64>();
    default: return nullptr;
  }
}

}  // namespace

FdpaKernel::FdpaKernel(const FdpaParams& p, const Format& in, const Format& out)
    : FdpaKernel(p, FdpaFormats(in, out)) {}

FdpaKernel::FdpaKernel(const FdpaParams& p, const FdpaFormats& f)
    : p_(p), formats_(f), in_(f.a), in_b_(f.b), out_(f.d),
      product_man_bits_(f.a.man_bits + f.b.man_bits) {
  const Format& in = f.a;
  const Format& out = f.d;
  // Short inputs (both operands), whose significands multiply within 32 bits (tf32 too). A C
  // in a format other than D's goes to the model: its first block reads C in that format, later
  // ones in D's.
  const bool short_inputs = f.c == f.d && in.precision() <= 12 && in_b_.precision() <= 12;
  // The integer path: the plain fused block (truncating alignment, C in the block, exact
  // products, no carry limit, no groups), no input flushing, and a sum that fits 63 bits for
  // blocks of up to 64. No sub-sums (block-scaled fp4 units); scale_block alone is fine: the
  // kernel computes fdpa(), whose scales are all 1.
  fast_ = p.structure == FdpaStructure::fused && p.align == AlignRounding::truncate &&
          p.c_in_block && !p.late_c && p.instr_k == 0 && p.k_order == KOrder::natural &&
          !p.c_last && p.interleave == 1 && p.product_bits < 0 && p.subsum == 0 &&
          p.carry_bits < 0 && !p.product_overflow && !p.flush_subnormal_inputs &&
          short_inputs && p.frac_bits <= 50 && p.block <= 64 &&
          p.frac_bits >= product_man_bits_ && out.precision() <= 53;
  ieee_out_ = out.is_signed && out.subnormals && out.has_zero && out.inf == InfEncoding::ieee &&
              out.nan == NanEncoding::ieee;
  exp_all_ = (1ull << out.exp_bits) - 1;
  sum32_ = in.precision() + in_b_.precision() <= 30 && p.frac_bits + 2 + std::bit_width(static_cast<unsigned>(p.block + 1)) <= 30;
  // Each aligned product is below 2^(F + 2) in magnitude (significands below 2^precision,
  // shifted left by F - product_man_bits_), so L of them stay within int32 while
  // L * 2^(F + 2) <= 2^31 (Hopper's and Blackwell's f16/bf16 blocks: 16 * 2^27).
  shifted_sum32_ = in.precision() + in_b_.precision() <= 30 && p.block >= 1 &&
                   p.frac_bits + 2 + std::bit_width(static_cast<unsigned>(p.block - 1)) <= 31;
  // binary32 by its data: the result is packed straight into an fp32 pattern.
  pack_f32_rz_ = ieee_out_ && out.exp_bits == 8 && out.man_bits == 23 && out.bias == 127 &&
                 p.out_rounding.mode == RoundingMode::rtz &&
                 !p.flush_subnormal_outputs && p.acc_frac_bits <= 23;

  // The sub-sum path (fp4 kinds, unit scales): fp32 toward zero with no accumulator cut.
  const bool subsums = p.structure == FdpaStructure::fused && p.align == AlignRounding::truncate &&
                 p.c_in_block && !p.late_c && p.instr_k == 0 && p.k_order == KOrder::natural &&
                 !p.c_last && p.interleave == 1 && p.product_bits < 0 && p.carry_bits < 0 &&
                 !p.product_overflow && !p.flush_subnormal_inputs && short_inputs &&
                 p.scale_block >= 0 && pack_f32_rz_ && p.acc_frac_bits < 0 &&
                 subsum_serves(p, f);


  // The late-C path (CDNA3): the fused block with C added after it, fp32 rounded to nearest
  // even; block sums within int32 (two groups of up to 2^(F + 2 + log2 L) each).
  const bool late_c = p.structure == FdpaStructure::fused && p.align == AlignRounding::truncate &&
                 !p.c_in_block && p.late_c && p.instr_k == 0 && p.k_order == KOrder::natural &&
                 !p.c_last && p.product_bits < 0 && p.subsum == 0 && p.carry_bits < 0 &&
                 !p.flush_subnormal_inputs && short_inputs && p.zero_exp == INT_MIN &&
                 p.group_align == AlignRounding::down && p.late_align == AlignRounding::down &&
                 late_c_serves(p.block, p.interleave) && in.precision() + in_b_.precision() <= 30 &&
                 p.frac_bits >= product_man_bits_ &&
                 p.frac_bits + 2 + std::bit_width(static_cast<unsigned>(p.block - 1)) <= 30 &&
                 p.late_sum_frac_bits >= 0 && p.late_sum_frac_bits <= 40 &&
                 p.late_c_frac_bits >= 0 && p.late_c_frac_bits <= 40 && ieee_out_ &&
                 out.exp_bits == 8 && out.man_bits == 23 && out.bias == 127 &&
                 p.out_rounding.mode == RoundingMode::rne && !p.flush_subnormal_outputs &&
                 p.acc_frac_bits < 0;
  variant_ = late_c ? &FdpaKernel::dot_late_c
             : subsums ? &FdpaKernel::dot_subsum
             : f16_chain_serves(p, f) ? &FdpaKernel::dot_f16_chain
                                      : nullptr;

  // The exact path: plain exact steps (no sub-sums, flushing, accumulator cut or instruction
  // split), deterministic output rounding (the sum is handed on with >= 65 significant bits and
  // a sticky bit, enough for these modes but not for stochastic ones), products of <= 24 bits.
  const RoundingMode m = p.out_rounding.mode;
  exact_fast_ = p.structure == FdpaStructure::exact && p.block >= 0 && p.subsum == 0 &&
                p.scale_block >= 0 && !p.flush_subnormal_inputs && p.acc_frac_bits < 0 &&
                p.instr_k == 0 && p.k_order == KOrder::natural && !p.c_last &&
                short_inputs && in.width() <= 16 && in_b_.width() <= 16 && out.man_bits <= 63 &&
                (m == RoundingMode::rne || m == RoundingMode::rna || m == RoundingMode::rtz ||
                 m == RoundingMode::up || m == RoundingMode::down || m == RoundingMode::odd);
  if (exact_fast_) {
    try {
      find_nan_policy(p.nan, "nan");  // fdpa throws for an unknown policy: let it
    } catch (const Error&) {
      exact_fast_ = false;
    }
  }
  // Narrow inputs whose products (and their sum, for up to 2^24 of them) fit 120 bits at one
  // unit, into binary32 to nearest even: one 128-bit integer per step instead of digit rows.
  exact_lo_ = (in.emin() - in.man_bits) + (in_b_.emin() - in_b_.man_bits);
  const bool into_f32_rne = exact_fast_ && out.exp_bits == 8 && out.man_bits == 23 &&
                            out.bias == 127 && ieee_out_ &&
                            p.out_rounding.mode == RoundingMode::rne &&
                            !p.flush_subnormal_outputs && p.acc_frac_bits < 0;
  exact_i128_ = into_f32_rne && (in.emax() + 1) + (in_b_.emax() + 1) - exact_lo_ + 24 <= 120;
  if (into_f32_rne && exact_steps_serve(p, f)) variant_ = &FdpaKernel::dot_exact_steps;
  if (exact_fast_) {
    // Every product's last bit is >= 2 (emin - m), C's >= emin_out - m_out; every product is
    // below 2^(2 emax + 2), C below 2^(emax_out + 1). Digits cover that, plus one digit for a
    // shifted product's spill, two for C's spill and the carries of any K (the top digit is a
    // signed int64).
    const int lo = std::min(in.emin() - in.man_bits + in_b_.emin() - in_b_.man_bits,
                            out.emin() - out.man_bits);
    const int hi = std::max(in.emax() + in_b_.emax() + 2, out.emax() + 1);
    exact_base_ = lo;
    exact_digits_ = (hi - lo + 31) / 32 + 3;
    if (exact_digits_ > kExactMaxDigits) exact_fast_ = false;
  }
  column_lanes_ = ((fast_ && pack_f32_rz_ && ieee_out_) || variant_ == &FdpaKernel::dot_late_c) &&
                  column_lanes_serve(p, f);
  f16_rows_ = variant_ == &FdpaKernel::dot_f16_chain && f16_rows_width() > 0;
  exact_rows_ = variant_ == &FdpaKernel::dot_exact_steps && exact_rows_width() > 0;
  subsum_rows_ = variant_ == &FdpaKernel::dot_subsum && subsum_rows_serve(p, f);
  if (f.uniform()) host_ = detail::HostIeeePath::make(p, in, out);
}

DecodedOperands FdpaKernel::decode(std::span<const std::uint64_t> codes, Operand which) const {
  return decode(codes, which, column_lanes_);
}

DecodedOperands FdpaKernel::decode(std::span<const std::uint64_t> codes, Operand which,
                                   bool lanes) const {
  const Format& in = which == Operand::a ? in_ : in_b_;
  DecodedOperands d;
  d.sig.resize(codes.size());
  d.lead.resize(codes.size());
  d.codes.assign(codes.begin(), codes.end());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const ExactValue v = fpconform::decode(codes[i], in);
    if (v.is_nan() || v.is_inf()) d.special = true;
    if (v.is_finite_nonzero()) {
      const auto s = static_cast<std::int32_t>(v.sig);
      d.sig[i] = v.negative ? -s : s;
      d.lead[i] = v.exp + in.man_bits;
      d.min_lead = std::min(d.min_lead, d.lead[i]);
      d.max_lead = std::max(d.max_lead, d.lead[i]);
      d.min_exp = std::min(d.min_exp, v.exp + static_cast<int>(std::bit_width(v.sig)) - 1);
    } else {
      d.sig[i] = 0;
      d.lead[i] = kZeroLead;
      if (v.is_zero()) d.zeros = true;
    }
  }
  if (lanes) {
    d.lead32.resize(codes.size());
    binary32_of(d, in, d.value32);
    for (std::size_t i = 0; i < codes.size(); ++i)
      d.lead32[i] = d.sig[i] != 0 ? std::ldexp(1.0f, d.lead[i]) : 0.0f;
    if (d.min_lead != INT_MAX && d.max_lead - d.min_lead <= 127) {
      d.lead_bytes.resize(codes.size());
      for (std::size_t i = 0; i < codes.size(); ++i) {
        const auto byte =
            static_cast<std::uint32_t>(d.sig[i] == 0 ? 255 : 127 - (d.lead[i] - d.min_lead));
        d.lead_bytes[i] = byte * 0x01010101u;
      }
    }
  }
  if (subsum_rows_) binary32_of(d, in, d.value32);
  if (host_) {
    host_->decode(codes, d.host32, d.host64);
    d.host_reading = host_->reading();
  }
  if (variant_ == &FdpaKernel::dot_f16_chain || variant_ == &FdpaKernel::dot_exact_steps) {
    binary64_of(d, in, d.host64);
    d.host_reading = detail::HostIeeePath::kUnflushedBinary64;
  }
  if (f16_rows_) {
    F16RowStorage own;
    f16_row_operands(d, which, own);
    d.host16 = std::move(own.codes);
    if (!own.values.empty()) d.value32 = std::move(own.values);
  }
  return d;
}

void FdpaKernel::binary32_of(const DecodedOperands& d, const Format& in,
                             LineVector<float>& out) {
  out.resize(d.codes.size());
  const std::uint64_t sign = in.sign_mask();
  for (std::size_t i = 0; i < d.codes.size(); ++i) {
    if (d.sig[i] != 0) {  // signed
      out[i] = std::ldexp(static_cast<float>(d.sig[i]), d.lead[i] - in.man_bits);
      continue;
    }
    float v = 0.0f;
    if (d.special) {  // NaN and inf as themselves
      const ExactValue x = fpconform::decode(d.codes[i], in);
      if (x.is_nan()) v = std::numeric_limits<float>::quiet_NaN();
      if (x.is_inf()) v = std::numeric_limits<float>::infinity();
    }
    out[i] = (d.codes[i] & sign) ? -v : v;
  }
}

void FdpaKernel::binary64_of(const DecodedOperands& d, const Format& in,
                             LineVector<double>& out) {
  out.resize(d.codes.size());
  const std::uint64_t sign = in.sign_mask();
  for (std::size_t i = 0; i < d.codes.size(); ++i) {
    const double v = std::ldexp(static_cast<double>(d.sig[i]), d.lead[i] - in.man_bits);
    out[i] = (d.codes[i] & sign) && v == 0 ? -0.0 : v;  // sig 0 (a zero): +0
  }
}

const double* FdpaKernel::binary64_values(const DecodedOperands& x, Operand which,
                                          LineVector<double>& again) const {
  if (x.host_reading == detail::HostIeeePath::kUnflushedBinary64) return x.host64.data();
  binary64_of(x, which == Operand::a ? in_ : in_b_, again);
  return again.data();
}

std::uint64_t FdpaKernel::model_dot(const DecodedOperands& a, std::size_t offset_a,
                                    const DecodedOperands& b, std::size_t offset_b,
                                    std::size_t stride_b, std::size_t k, std::uint64_t c) const {
  std::vector<std::uint64_t> av(a.codes.begin() + static_cast<std::ptrdiff_t>(offset_a),
                                a.codes.begin() + static_cast<std::ptrdiff_t>(offset_a + k)),
      bv(k);
  for (std::size_t i = 0; i < k; ++i) bv[i] = b.codes[offset_b + i * stride_b];
  return fdpa(p_, formats_, av, bv, c);
}

// Bounds on the nonzero products of a and b: each a multiple of 2^(the least nonzero values'
// leads less the fraction bits), each below 2^(the largest leads + 2).
detail::ProductBounds FdpaKernel::product_bounds(const DecodedOperands& a,
                                                 const DecodedOperands& b) const {
  if (a.min_lead == INT_MAX || b.min_lead == INT_MAX) return {};
  return {static_cast<long long>(a.min_lead) - in_.man_bits + b.min_lead - in_b_.man_bits,
          static_cast<long long>(a.max_lead) + b.max_lead + 2};
}

// The host's reading of decoded operands: x itself, or, where another kernel decoded them (one
// decoding shared by many models), `again`, read anew.
const DecodedOperands& FdpaKernel::host_operands(const DecodedOperands& x,
                                                 DecodedOperands& again) const {
  if (x.host_reading == host_->reading()) return x;
  host_->decode(x.codes, again.host32, again.host64);
  return again;
}

// A tile of n rows on the host's row path (ha, hb: a and b as the host reads them); runs of
// rows against the same columns share b's loads. Lanes it leaves go to the model.
void FdpaKernel::dot_host_rows(const DecodedOperands& a, const DecodedOperands& ha,
                               const std::size_t* offset_a, const DecodedOperands& b,
                               const DecodedOperands& hb, const std::size_t* offset_b,
                               std::size_t stride_b, std::size_t k, int n, std::uint64_t* d) const {
  const int w = host_->row_width();
  const detail::ProductBounds bounds = product_bounds(a, b);
  for (int i = 0; i < n;) {
    const int m = rows_on_same_columns(offset_b, i, n);
    unsigned left[kMaxTileRows];
    std::uint64_t* di = d + static_cast<std::ptrdiff_t>(i) * w;
    host_->run_rows(ha.host32.data(), ha.host64.data(), offset_a + i, hb.host32.data(),
                    hb.host64.data(), offset_b[i], stride_b, k, bounds, di, m, left);
    for (int j = 0; j < m; ++j)
      for (int l = 0; l < w; ++l)
        if (left[j] >> l & 1) {
          std::uint64_t& x = di[j * w + l];
          x = model_dot(a, offset_a[i + j], b, offset_b[i] + static_cast<std::size_t>(l), stride_b,
                        k, x);
        }
    i += m;
  }
}

// Up to eight dot products on the host path; those it leaves go to the model.
void FdpaKernel::dot_host(const DecodedOperands& a, const std::size_t* offset_a,
                          const DecodedOperands& b, const std::size_t* offset_b,
                          std::size_t stride_b, std::size_t k, std::uint64_t* d, int n) const {
  DecodedOperands ra, rb;
  const DecodedOperands& ha = host_operands(a, ra);
  const DecodedOperands& hb = host_operands(b, rb);
  const unsigned left = host_->run(ha.host32.data(), ha.host64.data(), offset_a, hb.host32.data(),
                                   hb.host64.data(), offset_b, stride_b, k, product_bounds(a, b),
                                   d, n);
  for (int j = 0; j < n; ++j)
    if (left >> j & 1) d[j] = model_dot(a, offset_a[j], b, offset_b[j], stride_b, k, d[j]);
}

std::uint64_t FdpaKernel::general(std::size_t n, std::uint64_t c, const std::uint64_t* codes_a,
                                  const std::uint64_t* codes_b, std::size_t stride_b) const {
  std::vector<std::uint64_t> av(codes_a, codes_a + n), bv(n);
  for (std::size_t i = 0; i < n; ++i) bv[i] = codes_b[i * stride_b];
  FdpaParams one = p_;
  one.block = static_cast<int>(n);
  return fdpa(one, formats_, av, bv, c);
}

// One exact step: sum_i a_i b_i + c without rounding, then fdpa's final rounding (finish():
// round_to_format under out_rounding with the output flush). Zero sums (IEEE's zero-sign rules),
// NaN/inf in C and empty steps go to fdpa.
// An exact step whose products all fit one 128-bit integer at the unit 2^exact_lo_ (narrow
// formats: f16 spans 2^-48 .. 2^33), with C, rounded to nearest even into binary32. False (r
// unset) where exact_block's digit rows must decide: NaN/inf C, a C outside the integer's
// range, a zero sum (IEEE's zero signs), a subnormal or out-of-range result.
bool FdpaKernel::exact_block_i128(const std::int32_t* sa, const std::int32_t* ea,
                                  const std::int32_t* sb, const std::int32_t* eb, std::size_t n,
                                  std::uint64_t c, std::uint64_t& r) const {
  using i128 = __int128;
  const std::uint64_t field = (c >> 23) & 0xFF, frac = c & 0x7FFFFF;
  if (field == 0xFF) return false;
  i128 t = 0;
  const std::int32_t base = -product_man_bits_ - exact_lo_;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t prod = static_cast<std::int64_t>(sa[i]) * sb[i];
    const std::int32_t sh = std::max(ea[i] + eb[i] + base, 0);  // a zero operand: far below
    t += static_cast<i128>(prod) * (static_cast<i128>(1) << std::min(sh, 100));
  }
  if (c & 0x7FFFFFFF) {
    const std::int32_t cexp = field ? static_cast<std::int32_t>(field) - 150 : -149;
    const std::int32_t sh = cexp - exact_lo_;
    if (sh < 0 || sh > 96) return false;
    const i128 cm = static_cast<i128>(field ? frac | 0x800000 : frac) << sh;
    t += (c >> 31) ? -cm : cm;
  }
  if (t == 0) return false;
  const bool negative = t < 0;
  const auto mag = static_cast<unsigned __int128>(negative ? -t : t);
  const auto hi = static_cast<std::uint64_t>(mag >> 64), lo = static_cast<std::uint64_t>(mag);
  const int len = hi ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(lo);
  int lead = exact_lo_ + len - 1;
  std::uint64_t top;
  if (len <= 24) {
    top = lo << (24 - len);
  } else {
    const int sh = len - 24;
    top = static_cast<std::uint64_t>(mag >> sh);
    const unsigned __int128 rem = mag & ((static_cast<unsigned __int128>(1) << sh) - 1);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (sh - 1);
    if (rem > half || (rem == half && (top & 1))) ++top;
    if (top >> 24) {
      top >>= 1;
      ++lead;
    }
  }
  if (lead < -126 || lead > 127) return false;
  r = (negative ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(lead + 127) << 23) |
      (top & 0x7FFFFF);
  return true;
}

std::uint64_t FdpaKernel::exact_block(const std::int32_t* sa, const std::int32_t* ea,
                                      const std::int32_t* sb, const std::int32_t* eb,
                                      std::size_t n, std::uint64_t c,
                                      const std::uint64_t* codes_a, const std::uint64_t* codes_b,
                                      std::size_t stride_b) const {
  if (exact_i128_ && n <= 64) {  // longer steps: the digit rows, whose four rows run in parallel
    std::uint64_t r;
    if (exact_block_i128(sa, ea, sb, eb, n, c, r)) return r;
  }
  const ExactValue cv = fpconform::decode(c, out_);
  if (n == 0 || cv.is_nan() || cv.is_inf()) return general(n, c, codes_a, codes_b, stride_b);
  const int nd = exact_digits_;
  std::int64_t rows[kExactRows][kExactMaxDigits];
  for (auto& r : rows) std::fill(r, r + nd, 0);
  const std::int32_t off0 = -product_man_bits_ - exact_base_;
  if (!exact_accumulate(rows, nd, sa, ea, sb, eb, n, off0))
    return general(n, c, codes_a, codes_b, stride_b);  // every product zero
  std::int64_t* d = rows[0];
  for (int r = 1; r < kExactRows; ++r)
    for (int j = 0; j < nd; ++j) d[j] += rows[r][j];  // digits < 2^32 each: no overflow
  if (cv.is_finite_nonzero()) {
    // C (up to 64 significant bits) as three digits at its offset, added or subtracted.
    const int off = cv.exp - exact_base_;
    const u128 v = cv.sig << (off & 31);
    const int j = off >> 5;
    for (int k = 0; k < 3; ++k) {
      const auto part = static_cast<std::int64_t>(static_cast<std::uint64_t>(v >> (32 * k)) & 0xFFFFFFFFu);
      d[j + k] += cv.negative ? -part : part;
    }
  }
  carry_row(d, nd);
  // The sign is the top digit's; the magnitude's digits, negated in two's complement if needed.
  const bool negative = d[nd - 1] < 0;
  if (negative) {
    std::int64_t carry = 1;
    for (int j = 0; j + 1 < nd; ++j) {
      const std::int64_t v = (~d[j] & 0xFFFFFFFF) + carry;
      d[j] = v & 0xFFFFFFFF;
      carry = v >> 32;
    }
    d[nd - 1] = ~d[nd - 1] + carry;
  }
  int t = nd - 1;
  while (t >= 0 && d[t] == 0) --t;
  if (t < 0) return general(n, c, codes_a, codes_b, stride_b);  // an exact zero sum
  // The top three digits (<= 63 + 64 bits), the rest as a sticky bit.
  const int low = std::max(t - 2, 0);
  u128 sig = 0;
  for (int j = t; j >= low; --j) sig = (sig << 32) + static_cast<u128>(static_cast<std::uint64_t>(d[j]));
  bool sticky = false;
  for (int j = 0; j < low; ++j) sticky = sticky || d[j] != 0;
  Rounding r = p_.out_rounding;
  r.ftz = p_.flush_subnormal_outputs;
  return round_to_format(ExactValue::finite(negative, sig, exact_base_ + 32 * low, sticky), out_, r)
      .bits;
}

std::uint64_t FdpaKernel::block(const std::int32_t* sa, const std::int32_t* ea,
                                const std::int32_t* sb, const std::int32_t* eb, std::size_t n,
                                std::uint64_t c, const std::uint64_t* codes_a,
                                const std::uint64_t* codes_b, std::size_t stride_b) const {
  auto general = [&] {
    std::vector<std::uint64_t> av(codes_a, codes_a + n), bv(n);
    for (std::size_t i = 0; i < n; ++i) bv[i] = codes_b[i * stride_b];
    FdpaParams one = p_;
    one.block = static_cast<int>(n);
    return fdpa(one, formats_, av, bv, c);
  };
  // C: IEEE-style outputs decode with bit operations; others through decode().
  ExactValue cv;
  if (ieee_out_) {
    const std::uint64_t field = (c >> out_.man_bits) & exp_all_;
    const std::uint64_t frac = c & ((1ull << out_.man_bits) - 1);
    const bool negative = (c & out_.sign_mask()) != 0;
    if (field == exp_all_) return general();
    if (field == 0 && frac == 0) cv = ExactValue::zero(negative);
    else if (field == 0) cv = ExactValue::finite(negative, frac, 1 - out_.bias - out_.man_bits);
    else cv = ExactValue::finite(negative, frac | (1ull << out_.man_bits),
                                 static_cast<int>(field) - out_.bias - out_.man_bits);
  } else {
    cv = fpconform::decode(c, out_);
    if (cv.is_nan() || cv.is_inf()) return general();
  }
  bool any_zero = false;
  std::int32_t e = block_max(sa, ea, sb, eb, n, any_zero);
  std::int32_t c_lead = kZeroLead;
  if (cv.is_finite_nonzero()) {
    c_lead = cv.exp + out_.man_bits;
    e = std::max(e, c_lead);
  } else {
    any_zero = true;
  }
  if (any_zero && p_.zero_exp != INT_MIN) e = std::max(e, p_.zero_exp);
  if (e <= kZeroLead) return general();  // every term zero: IEEE's zero sign rules
  const std::int32_t u = e - p_.frac_bits;
  // Each aligned product is below 2^(F + 2); int32 holds n of them plus C when that fits.
  const std::int32_t bias = p_.frac_bits - product_man_bits_;
  std::int64_t sum = sum32_ ? aligned_sum32(sa, ea, sb, eb, n, u + product_man_bits_, bias)
                            : aligned_sum64(sa, ea, sb, eb, n, u + product_man_bits_, bias);
  if (cv.is_finite_nonzero()) {
    const std::int32_t sh = cv.exp - u;  // C's last bit relative to the unit
    const auto mag = static_cast<std::int64_t>(cv.sig);
    const std::int64_t t = sh >= 0 ? mag << sh : (-sh > 62 ? 0 : mag >> -sh);
    sum += cv.negative ? -t : t;
  }
  if (sum == 0) return general();
  const bool neg = sum < 0;
  const auto mag = static_cast<std::uint64_t>(neg ? -sum : sum);
  if (pack_f32_rz_) {
    // Toward zero to p bits (24, or acc_frac_bits + 1 for the e8m13 accumulator).
    const int len = 64 - std::countl_zero(mag);
    const int lead = u + len - 1;
    if (lead >= -126 && lead <= 127) {
      const int keep = f32_kept_bits(p_);
      const std::uint64_t top = len > keep ? mag >> (len - keep) : mag << (keep - len);
      const std::uint64_t frac = (top & ((1ull << (keep - 1)) - 1)) << (24 - keep);
      return (neg ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(lead + 127) << 23) | frac;
    }
  }
  return general();
}

std::uint64_t FdpaKernel::exact_dot(const DecodedOperands& a, std::size_t offset_a,
                                    const std::int32_t* sb, const std::int32_t* eb,
                                    const DecodedOperands& b, std::size_t offset_b,
                                    std::size_t stride_b, std::size_t k, std::uint64_t c) const {
  // Steps of `block` products (0: all of them), each rounded, the next taking it as C.
  const std::size_t L =
      p_.block == 0 ? std::max<std::size_t>(k, 1) : static_cast<std::size_t>(p_.block);
  std::uint64_t d = c;
  std::size_t i = 0;
  do {
    const std::size_t len = std::min(L, k - i);
    d = exact_block(a.sig.data() + offset_a + i, a.lead.data() + offset_a + i, sb + i, eb + i,
                    len, d, a.codes.data() + offset_a + i,
                    b.codes.data() + offset_b + i * stride_b, stride_b);
    i += len;
  } while (i < k);
  return d;
}

std::uint64_t FdpaKernel::dot(const DecodedOperands& a, std::size_t offset_a,
                              const DecodedOperands& b, std::size_t offset_b,
                              std::size_t stride_b, std::size_t k, std::uint64_t c) const {
  const detail::DefaultHostFpMode fp_mode;
  if (host_) {
    std::uint64_t d = c;
    dot_host(a, &offset_a, b, &offset_b, stride_b, k, &d, 1);
    return d;
  }
  // No products: the unit's one step on C alone (a NaN C becomes the unit's NaN), the model's.
  if (k == 0) return model_dot(a, offset_a, b, offset_b, stride_b, 0, c);
  std::vector<std::int32_t> sb, eb;  // column gather when b is strided
  const std::int32_t* sbp = b.sig.data() + offset_b;
  const std::int32_t* ebp = b.lead.data() + offset_b;
  if (stride_b != 1) {
    sb.resize(k);
    eb.resize(k);
    for (std::size_t i = 0; i < k; ++i) {
      sb[i] = b.sig[offset_b + i * stride_b];
      eb[i] = b.lead[offset_b + i * stride_b];
    }
    sbp = sb.data();
    ebp = eb.data();
  }
  if (exact_fast_ && !a.special && !b.special)
    return exact_dot(a, offset_a, sbp, ebp, b, offset_b, stride_b, k, c);
  if (variant_ && !a.special && !b.special) {
    std::uint64_t d = c;
    (this->*variant_)(a, &offset_a, b, &offset_b, stride_b, &sbp, &ebp, k, &d, 1);
    return d;
  }
  if (!fast_ || a.special || b.special) return model_dot(a, offset_a, b, offset_b, stride_b, k, c);
  const auto L = static_cast<std::size_t>(p_.block);
  if (two_pass_applies(a, b, k)) {
    std::uint64_t d = c;
    dot_two_pass(a, &offset_a, b, &offset_b, stride_b, &sbp, &ebp, k, &d, 1);
    return d;
  }
  std::uint64_t d = c;
  std::size_t i = 0;
  do {
    const std::size_t len = std::min(L, k - i);
    d = block(a.sig.data() + offset_a + i, a.lead.data() + offset_a + i, sbp + i, ebp + i, len,
              d, a.codes.data() + offset_a + i, b.codes.data() + offset_b + i * stride_b,
              stride_b);
    i += len;
  } while (i < k);
  return d;
}

// A group of n <= kMaxChains dot products with contiguous b (sb[i], eb[i]: chain i's b operands;
// offset_b[i] for its codes), all of k products; d: the C codes in, the results out.
void FdpaKernel::dot_two_pass(const DecodedOperands& a, const std::size_t* offset_a,
                              const DecodedOperands& b, const std::size_t* offset_b,
                              std::size_t stride_b, const std::int32_t* const* sb,
                              const std::int32_t* const* eb, std::size_t k, std::uint64_t* d,
                              int n) const {
  const auto L = static_cast<std::size_t>(p_.block);
  const TwoPassFn fn = two_pass_for(p_.block);
  const std::size_t full = fn ? k / L : 0;
  struct Ctx {
    const FdpaKernel* self;
    const std::int32_t *sa, *ea, *sb, *eb;
    const std::uint64_t *ca, *cb;
    std::size_t L, stride_b;
  } ctx[kMaxChains];
  for (int i = 0; i < n; ++i)
    ctx[i] = {this, a.sig.data() + offset_a[i], a.lead.data() + offset_a[i], sb[i], eb[i],
              a.codes.data() + offset_a[i], b.codes.data() + offset_b[i], L, stride_b};
  if (full > 0) {
    // w per chain; ep, nneg, zeros per block (of L >= 4) and chain, the chains interleaved.
    thread_local std::vector<std::int32_t> w(kMaxChains * kChunk), pre(3 * kMaxChains * kChunk / 4);
    std::int32_t* const ep = pre.data();
    std::int32_t* const nneg = ep + kMaxChains * kChunk / 4;
    std::int32_t* const zeros = nneg + kMaxChains * kChunk / 4;
    Chain ch[kMaxChains];
    for (int i = 0; i < n; ++i)
      ch[i] = {ctx[i].sa, ctx[i].ea, ctx[i].sb, ctx[i].eb, w.data() + i * kChunk,
               ep + i, nneg + i, zeros + i, &ctx[i],
               [](const void* cp, std::size_t blk, std::uint64_t cc) {
                 const Ctx& x = *static_cast<const Ctx*>(cp);
                 const std::size_t j = blk * x.L;
                 return x.self->block(x.sa + j, x.ea + j, x.sb + j, x.eb + j, x.L, cc, x.ca + j,
                                      x.cb + j * x.stride_b, x.stride_b);
               }};
    const TwoPass t{p_.frac_bits - product_man_bits_, p_.frac_bits, f32_kept_bits(p_),
                    p_.zero_exp, sum32_};
    fn(t, ch, n, full, d);
  }
  // The rest (a partial last block, or block sizes without a compiled L) block by block.
  for (int c = 0; c < n; ++c) {
    const Ctx& x = ctx[c];
    for (std::size_t i = full * L; i < k; i += L) {
      const std::size_t len = std::min(L, k - i);
      d[c] = block(x.sa + i, x.ea + i, x.sb + i, x.eb + i, len, d[c], x.ca + i,
                   x.cb + i * stride_b, stride_b);
    }
  }
}

bool FdpaKernel::two_pass_applies(const DecodedOperands& a, const DecodedOperands& b,
                                  std::size_t k) const {
  return fast_ && !a.special && !b.special && shifted_sum32_ && pack_f32_rz_ && ieee_out_ &&
         k > 0;
}

void FdpaKernel::dot_many(const DecodedOperands& a, std::span<const std::size_t> offset_a,
                          const DecodedOperands& b, std::span<const std::size_t> offset_b,
                          std::size_t stride_b, std::size_t k, std::span<const std::uint64_t> c,
                          std::span<std::uint64_t> out) const {
  const std::size_t count = offset_a.size();
  if (offset_b.size() != count || c.size() != count || out.size() != count)
    throw Error("offset_b", "dot_many: " + std::to_string(count) + " offsets of a, " +
                                std::to_string(offset_b.size()) + " of b, " +
                                std::to_string(c.size()) + " C values, " +
                                std::to_string(out.size()) + " outputs");
  const detail::DefaultHostFpMode fp_mode;
  if (column_lanes_apply(a, b, k, c) &&
      stride_b >= static_cast<std::size_t>(column_lanes_width())) {
    const auto tile = [&](const std::size_t* oa, const std::size_t* ob, int n, std::uint64_t* d) {
      dot_column_lanes(a, oa, b, ob, stride_b, k, n, d);
    };
    dot_many_in_tiles(a, offset_a, b, offset_b, stride_b, k, c, out,
                      static_cast<std::size_t>(column_lanes_width()), column_lanes_rows(), tile);
    return;
  }
  if (f16_rows_ && k > 0 && stride_b >= static_cast<std::size_t>(f16_rows_width())) {
    F16RowStorage ra, rb;
    const F16RowOperands ha = f16_row_operands(a, Operand::a, ra);
    const F16RowOperands hb = f16_row_operands(b, Operand::b, rb);
    const auto tile = [&](const std::size_t* oa, const std::size_t* ob, int n, std::uint64_t* d) {
      dot_f16_rows(a, ha, oa, b, hb, ob, stride_b, k, n, d);
    };
    dot_many_in_tiles(a, offset_a, b, offset_b, stride_b, k, c, out,
                      static_cast<std::size_t>(f16_rows_width()), kMaxTileRows, tile);
    return;
  }
  if (exact_rows_ && !a.special && !b.special && k > 0 && k <= (std::size_t{1} << 30) &&
      stride_b >= static_cast<std::size_t>(exact_rows_width())) {
    LineVector<double> ra, rb;
    const double* va = binary64_values(a, Operand::a, ra);
    const double* vb = binary64_values(b, Operand::b, rb);
    ExactRowsNorms norms;
    const auto tile = [&](const std::size_t* oa, const std::size_t* ob, int n, std::uint64_t* d) {
      if (p_.block > 0) dot_exact_steps_rows(a, va, oa, b, vb, ob, stride_b, k, n, d);
      else dot_exact_rows(a, va, oa, b, vb, ob, stride_b, k, n, d, norms);
    };
    dot_many_in_tiles(a, offset_a, b, offset_b, stride_b, k, c, out,
                      static_cast<std::size_t>(exact_rows_width()), kMaxTileRows, tile);
    return;
  }
  if (subsum_rows_ && !a.special && !b.special && k > 0 && !a.value32.empty() &&
      !b.value32.empty() && stride_b >= static_cast<std::size_t>(subsum_rows_width())) {
    const auto tile = [&](const std::size_t* oa, const std::size_t* ob, int n, std::uint64_t* d) {
      dot_subsum_rows(a, oa, b, ob, stride_b, k, n, d);
    };
    dot_many_in_tiles(a, offset_a, b, offset_b, stride_b, k, c, out,
                      static_cast<std::size_t>(subsum_rows_width()), kMaxTileRows, tile);
    return;
  }
  if (host_ && k > 0 && stride_b >= static_cast<std::size_t>(host_->row_width())) {
    DecodedOperands ra, rb;
    const DecodedOperands& ha = host_operands(a, ra);
    const DecodedOperands& hb = host_operands(b, rb);
    const auto tile = [&](const std::size_t* oa, const std::size_t* ob, int n, std::uint64_t* d) {
      dot_host_rows(a, ha, oa, b, hb, ob, stride_b, k, n, d);
    };
    dot_many_in_tiles(a, offset_a, b, offset_b, stride_b, k, c, out,
                      static_cast<std::size_t>(host_->row_width()), kMaxTileRows, tile);
    return;
  }
  dot_groups(a, offset_a, b, offset_b, stride_b, k, c, out);
}

int FdpaKernel::rows_on_same_columns(const std::size_t* offset_b, int i, int n) {
  int m = 1;
  while (i + m < n && offset_b[i + m] == offset_b[i]) ++m;
  return m;
}

void FdpaKernel::dot_many_in_tiles(const DecodedOperands& a, std::span<const std::size_t> offset_a,
                                   const DecodedOperands& b, std::span<const std::size_t> offset_b,
                                   std::size_t stride_b, std::size_t k,
                                   std::span<const std::uint64_t> c, std::span<std::uint64_t> out,
                                   std::size_t width, int max_rows, const TileFn& run_tile) const {
  const std::size_t count = offset_a.size();
  const auto rows = static_cast<std::size_t>(max_rows);
  std::vector<std::uint64_t> results(c.begin(), c.end());  // out may be c
  // Groups: a vector's outputs, one row of a against consecutive columns. The rest go to the
  // other paths.
  std::vector<std::size_t> groups, rest;
  for (std::size_t i = 0; i < count;) {
    bool run = i + width <= count;
    for (std::size_t l = 1; run && l < width; ++l)
      run = offset_a[i + l] == offset_a[i] && offset_b[i + l] == offset_b[i] + l;
    if (run) {
      groups.push_back(i);
      i += width;
    } else {
      rest.push_back(i++);
    }
  }
  // Tiles of up to max_rows groups: rows of a against the same columns (each vector of b
  // loaded once for all), column by column, so that consecutive tiles read the same b from
  // cache; groups left alone, max_rows at a time.
  std::map<std::size_t, std::vector<std::size_t>> by_columns;  // offset_b -> groups, in order
  for (std::size_t g = 0; g < groups.size(); ++g) by_columns[offset_b[groups[g]]].push_back(g);
  std::vector<std::vector<std::size_t>> tiles;
  std::vector<std::size_t> alone;
  for (const auto& [columns, same] : by_columns) {
    std::size_t i = 0;
    for (; i + 2 <= same.size(); i += rows)
      tiles.emplace_back(same.begin() + static_cast<std::ptrdiff_t>(i),
                         same.begin() + static_cast<std::ptrdiff_t>(std::min(i + rows, same.size())));
    if (i < same.size()) alone.push_back(same[i]);
  }
  for (std::size_t i = 0; i < alone.size(); i += rows)
    tiles.emplace_back(alone.begin() + static_cast<std::ptrdiff_t>(i),
                       alone.begin() + static_cast<std::ptrdiff_t>(std::min(i + rows, alone.size())));
  for (const std::vector<std::size_t>& tile : tiles) {
    const int n = static_cast<int>(tile.size());
    std::size_t oa[kMaxTileRows], ob[kMaxTileRows];
    std::uint64_t d[kMaxTileRows * kMaxTileWidth];
    for (int i = 0; i < n; ++i) {
      const std::size_t first = groups[tile[i]];
      oa[i] = offset_a[first];
      ob[i] = offset_b[first];
      std::copy_n(results.begin() + static_cast<std::ptrdiff_t>(first), width, d + i * width);
    }
    run_tile(oa, ob, n, d);
    for (int i = 0; i < n; ++i)
      std::copy_n(d + i * width, width,
                  results.begin() + static_cast<std::ptrdiff_t>(groups[tile[i]]));
  }
  if (!rest.empty()) {
    std::vector<std::size_t> ra, rb;
    std::vector<std::uint64_t> rc, ro(rest.size());
    for (std::size_t i : rest) {
      ra.push_back(offset_a[i]);
      rb.push_back(offset_b[i]);
      rc.push_back(c[i]);
    }
    dot_groups(a, ra, b, rb, stride_b, k, rc, ro);
    for (std::size_t r = 0; r < rest.size(); ++r) results[rest[r]] = ro[r];
  }
  std::copy(results.begin(), results.end(), out.begin());
}


void FdpaKernel::dot_groups(const DecodedOperands& a, std::span<const std::size_t> offset_a,
                            const DecodedOperands& b, std::span<const std::size_t> offset_b,
                            std::size_t stride_b, std::size_t k, std::span<const std::uint64_t> c,
                            std::span<std::uint64_t> out) const {
  const std::size_t count = offset_a.size();
  if (host_) {
    for (std::size_t i = 0; i < count; i += 8) {
      const int n = static_cast<int>(std::min<std::size_t>(8, count - i));
      std::uint64_t d[8];
      std::copy_n(c.begin() + static_cast<std::ptrdiff_t>(i), n, d);  // out may be c
      dot_host(a, offset_a.data() + i, b, offset_b.data() + i, stride_b, k, d, n);
      std::copy_n(d, n, out.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return;
  }
  // A group of up to eight dot products: a variant's path, else the fused block's two passes.
  const GroupPath group = k == 0                                     ? nullptr
                          : variant_ && !a.special && !b.special ? variant_
                          : two_pass_applies(a, b, k)           ? &FdpaKernel::dot_two_pass
                                                                : nullptr;
  if (!group || (exact_fast_ && group != variant_)) {
    for (std::size_t i = 0; i < count; ++i)
      out[i] = dot(a, offset_a[i], b, offset_b[i], stride_b, k, c[i]);
    return;
  }
  std::vector<std::int32_t> gathered;  // columns of a strided b
  if (stride_b != 1) gathered.resize(2 * static_cast<std::size_t>(kMaxChains) * k);
  for (std::size_t i = 0; i < count;) {
    const std::size_t left = count - i;
    const int n = left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
    const std::int32_t* sb[kMaxChains];
    const std::int32_t* eb[kMaxChains];
    std::uint64_t d[kMaxChains];
    for (int j = 0; j < n; ++j) {
      const std::size_t ob = offset_b[i + j];
      d[j] = c[i + j];  // before any output is written: out may be c
      if (stride_b == 1) {
        sb[j] = b.sig.data() + ob;
        eb[j] = b.lead.data() + ob;
      } else {
        std::int32_t* gs = gathered.data() + 2 * static_cast<std::size_t>(j) * k;
        std::int32_t* ge = gs + k;
        for (std::size_t t = 0; t < k; ++t) {
          gs[t] = b.sig[ob + t * stride_b];
          ge[t] = b.lead[ob + t * stride_b];
        }
        sb[j] = gs;
        eb[j] = ge;
      }
    }
    (this->*group)(a, offset_a.data() + i, b, offset_b.data() + i, stride_b, sb, eb, k, d, n);
    for (int j = 0; j < n; ++j) out[i + j] = d[j];
    i += static_cast<std::size_t>(n);
  }
}

std::uint64_t FdpaKernel::dot(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                              std::uint64_t c) const {
  if (a.size() != b.size())
    throw Error("b", "a has " + std::to_string(a.size()) + " elements, b has " +
                         std::to_string(b.size()));
  // One dot product never runs in the column lanes: no values for them.
  return dot(decode(a, Operand::a, false), 0, decode(b, Operand::b, false), 0, 1, a.size(), c);
}

}  // namespace fpconform
