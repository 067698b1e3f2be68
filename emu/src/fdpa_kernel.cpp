// FdpaKernel: the integer fast path of fdpa (see fdpa_kernel.hpp).
#include "fpconform/fdpa_kernel.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdlib>
#include <string_view>

#include "fpconform/error.hpp"
#include "fpconform/nan_policy.hpp"

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
struct BlockPre {
  std::int32_t ep;     // kZeroLead: every product zero
  std::int32_t nneg;   // products with w = ~q
  std::int32_t any_zero;
};

// What the two passes need; `fallback` computes one block the long way (FdpaKernel::block).
struct TwoPass {
  const std::int32_t *sa, *ea, *sb, *eb;
  std::size_t nblocks;
  std::int32_t bias, F, keep, zero_exp;
  std::int32_t* w;
  BlockPre* pre;
  const void* ctx;
  std::uint64_t (*fallback)(const void* ctx, std::size_t blk, std::uint64_t c);
};

// Both passes over nblocks full blocks of L (a compile-time L: the per-block loops unroll and
// vectorize without loop overhead, which dominated at L = 8).
template <int L>
__attribute__((always_inline)) inline std::uint64_t two_pass_body(const TwoPass& t,
                                                                  std::uint64_t d) {
  // Local restrict copies: through the struct the compiler must assume that the stores to w
  // alias the operands, and reloads them element by element instead of vectorizing.
  const std::int32_t* __restrict sa = t.sa;
  const std::int32_t* __restrict ea = t.ea;
  const std::int32_t* __restrict sb = t.sb;
  const std::int32_t* __restrict eb = t.eb;
  std::int32_t* __restrict wp = t.w;
  const std::int32_t bias = t.bias;
  for (std::size_t blk = 0; blk < t.nblocks; ++blk) {
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
    t.pre[blk] = {e, neg, zeros};
  }
  for (std::size_t blk = 0; blk < t.nblocks; ++blk) {
    const BlockPre& bp = t.pre[blk];
    // C, an fp32 code: field, fraction, sign.
    const std::uint64_t field = (d >> 23) & 0xFF, frac = d & 0x7FFFFF;
    if (bp.ep <= kZeroLead || field == 0xFF) {
      d = t.fallback(t.ctx, blk, d);
      continue;
    }
    std::int32_t e = bp.ep;
    bool any_zero = bp.any_zero != 0;
    std::int64_t cmag = 0;
    std::int32_t cexp = 0;
    if (field == 0 && frac == 0) {
      any_zero = true;
    } else {
      cmag = static_cast<std::int64_t>(field ? frac | 0x800000 : frac);
      cexp = field ? static_cast<std::int32_t>(field) - 150 : -149;
      e = std::max(e, cexp + 23);  // C's lead (subnormals: emin, as decode gives)
    }
    if (any_zero && t.zero_exp != INT_MIN) e = std::max(e, t.zero_exp);
    const std::int32_t u = e - t.F;
    const std::int32_t D = std::min(e - bp.ep, 31);
    const std::int32_t* __restrict w = wp + blk * L;
    std::int32_t ws = 0;
    for (int j = 0; j < L; ++j) ws += w[j] >> D;
    std::int64_t sum = static_cast<std::int64_t>(ws) + bp.nneg;
    if (cmag) {
      const std::int32_t sh = cexp - u;
      const std::int64_t c = sh >= 0 ? cmag << sh : (-sh > 62 ? 0 : cmag >> -sh);
      sum += (d >> 31) ? -c : c;
    }
    const bool negative = sum < 0;
    const auto mag = static_cast<std::uint64_t>(negative ? -sum : sum);
    const int bits = 64 - std::countl_zero(mag);
    const int lead = u + bits - 1;
    if (sum == 0 || lead < -126 || lead > 127) {
      d = t.fallback(t.ctx, blk, d);
      continue;
    }
    const std::uint64_t top = bits > t.keep ? mag >> (bits - t.keep) : mag << (t.keep - bits);
    const std::uint64_t f = (top & ((1ull << (t.keep - 1)) - 1)) << (24 - t.keep);
    d = (negative ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(lead + 127) << 23) | f;
  }
  return d;
}

template <int L>
std::uint64_t two_pass_base(const TwoPass& t, std::uint64_t d) {
  return two_pass_body<L>(t, d);
}
#if defined(__x86_64__) || defined(__i386__)
#define FPC_AVX2_INLINE __attribute__((target("avx2"), always_inline)) inline

FPC_AVX2_INLINE std::int32_t hmax8(__m256i v) {
  __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
  return _mm_cvtsi128_si32(m);
}
FPC_AVX2_INLINE std::int32_t hsum8(__m256i v) {
  __m128i m = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_add_epi32(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_add_epi32(m, _mm_shuffle_epi32(m, 0xB1));
  return _mm_cvtsi128_si32(m);
}

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

// The two passes with intrinsics for L a multiple of 8 (GCC leaves the per-block loops of
// two_pass_body scalar): the same arithmetic, 8 products per vector. |sa|, |sb| < 2^12, so a
// product is zero exactly when an operand is.
template <int L>
__attribute__((target("avx2"))) std::uint64_t two_pass_avx2(const TwoPass& t, std::uint64_t d) {
  if constexpr (L % 8 != 0) {
    return two_pass_body<L>(t, d);
  } else {
    constexpr int V = L / 8;
    const __m256i zlead = _mm256_set1_epi32(kZeroLead), zero = _mm256_setzero_si256();
    const __m256i cap = _mm256_set1_epi32(31);
    const __m128i bias = _mm_cvtsi32_si128(t.bias);
    for (std::size_t blk = 0; blk < t.nblocks; ++blk) {
      const std::size_t i0 = blk * L;
      __m256i prod[V], lead[V];
      __m256i emax = zlead;
      int zeros = 0, neg = 0;
      for (int v = 0; v < V; ++v) {
        const std::size_t o = i0 + 8 * static_cast<std::size_t>(v);
        prod[v] = _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.sa + o)),
                                     _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.sb + o)));
        lead[v] = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.ea + o)),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.eb + o)));
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
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.w + i0 + 8 * v), _mm256_xor_si256(q, ng));
      }
      t.pre[blk] = {e, neg, zeros != 0};
    }
    // The block sum is computed first for a guessed e (C's lead taken as the previous C's: it
    // changes slowly along a long dot product), which does not wait for this block's C, and
    // redone only when the real e differs.
    std::int32_t prev_c_lead = kZeroLead;
    for (std::size_t blk = 0; blk < t.nblocks; ++blk) {
      const BlockPre& bp = t.pre[blk];
      const std::int32_t* w = t.w + blk * L;
      std::int32_t eg = std::max(bp.ep, prev_c_lead);
      if (bp.any_zero && t.zero_exp != INT_MIN) eg = std::max(eg, t.zero_exp);
      const std::int32_t guess = shifted_hsum<V>(w, std::min(eg - bp.ep, 31));
      const std::uint64_t field = (d >> 23) & 0xFF, frac = d & 0x7FFFFF;
      if (bp.ep <= kZeroLead || field == 0xFF) {
        d = t.fallback(t.ctx, blk, d);
        prev_c_lead = kZeroLead;
        continue;
      }
      std::int32_t e = bp.ep;
      bool any_zero = bp.any_zero != 0;
      std::int64_t cmag = 0;
      std::int32_t cexp = 0;
      prev_c_lead = kZeroLead;
      if (field == 0 && frac == 0) {
        any_zero = true;
      } else {
        cmag = static_cast<std::int64_t>(field ? frac | 0x800000 : frac);
        cexp = field ? static_cast<std::int32_t>(field) - 150 : -149;
        prev_c_lead = cexp + 23;
        e = std::max(e, cexp + 23);
      }
      if (any_zero && t.zero_exp != INT_MIN) e = std::max(e, t.zero_exp);
      const std::int32_t u = e - t.F;
      const std::int32_t ws = e == eg ? guess : shifted_hsum<V>(w, std::min(e - bp.ep, 31));
      std::int64_t sum = static_cast<std::int64_t>(ws) + bp.nneg;
      if (cmag) {
        const std::int32_t sh = cexp - u;
        const std::int64_t c = sh >= 0 ? cmag << sh : (-sh > 62 ? 0 : cmag >> -sh);
        sum += (d >> 31) ? -c : c;
      }
      const bool negative = sum < 0;
      const auto mag = static_cast<std::uint64_t>(negative ? -sum : sum);
      const int bits = 64 - std::countl_zero(mag);
      const int lead = u + bits - 1;
      if (sum == 0 || lead < -126 || lead > 127) {
        d = t.fallback(t.ctx, blk, d);
        continue;
      }
      const std::uint64_t top = bits > t.keep ? mag >> (bits - t.keep) : mag << (t.keep - bits);
      const std::uint64_t f = (top & ((1ull << (t.keep - 1)) - 1)) << (24 - t.keep);
      d = (negative ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(lead + 127) << 23) | f;
    }
    return d;
  }
}
// FPCONFORM_DISPATCH=portable forces the portable path, so that an AVX2 machine tests it too
// (fdpa_kernel_portable in CTest).
bool have_avx2() {
  static const bool has = [] {
    const char* e = std::getenv("FPCONFORM_DISPATCH");
    if (e && std::string_view(e) == "portable") return false;
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}
#endif

using TwoPassFn = std::uint64_t (*)(const TwoPass&, std::uint64_t);
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
    : p_(p), in_(in), out_(out) {
  // The integer path: the plain fused block (truncating alignment, C in the block, exact
  // products, no carry limit, no groups), no input flushing, significands that multiply within
  // 32 bits, and a sum that fits 63 bits for blocks of up to 64. No sub-sums (block-scaled fp4
  // units); scale_block alone is fine: the kernel computes fdpa(), whose scales are all 1.
  fast_ = p.structure == FdpaStructure::fused && p.align == AlignRounding::truncate &&
          p.c_in_block && !p.late_c && p.instr_k == 0 && p.k_order == KOrder::natural &&
          !p.c_last && p.interleave == 1 && p.product_bits < 0 && p.subsum == 0 &&
          p.carry_bits < 0 && !p.product_overflow && !p.flush_subnormal_inputs &&
          in.width() <= 16 && in.precision() <= 12 && p.frac_bits <= 50 && p.block <= 64 &&
          p.frac_bits >= 2 * in.man_bits &&
          out.precision() <= 53;
  ieee_out_ = out.is_signed && out.subnormals && out.has_zero && out.inf == InfEncoding::ieee &&
              out.nan == NanEncoding::ieee;
  exp_all_ = (1ull << out.exp_bits) - 1;
  sum32_ = 2 * in.precision() <= 30 && p.frac_bits + 2 + std::bit_width(static_cast<unsigned>(p.block + 1)) <= 30;
  pack_f32_rz_ = out.name == "f32" && p.out_rounding.mode == RoundingMode::rtz &&
                 !p.flush_subnormal_outputs && p.acc_frac_bits <= 23;

  // The exact path: plain exact steps (no sub-sums, flushing, accumulator cut or instruction
  // split), deterministic output rounding (the sum is handed on with >= 65 significant bits and
  // a sticky bit, enough for these modes but not for stochastic ones), products of <= 24 bits.
  const RoundingMode m = p.out_rounding.mode;
  exact_fast_ = p.structure == FdpaStructure::exact && p.block >= 0 && p.subsum == 0 &&
                p.scale_block >= 0 && !p.flush_subnormal_inputs && p.acc_frac_bits < 0 &&
                p.instr_k == 0 && p.k_order == KOrder::natural && !p.c_last &&
                in.width() <= 16 && in.precision() <= 12 && out.man_bits <= 63 &&
                (m == RoundingMode::rne || m == RoundingMode::rna || m == RoundingMode::rtz ||
                 m == RoundingMode::up || m == RoundingMode::down || m == RoundingMode::odd);
  if (exact_fast_) {
    try {
      find_nan_policy(p.nan, "nan");  // fdpa throws for an unknown policy: let it
    } catch (const Error&) {
      exact_fast_ = false;
    }
  }
  if (exact_fast_) {
    // Every product's last bit is >= 2 (emin - m), C's >= emin_out - m_out; every product is
    // below 2^(2 emax + 2), C below 2^(emax_out + 1). Digits cover that, plus one digit for a
    // shifted product's spill, two for C's spill and the carries of any K (the top digit is a
    // signed int64).
    const int lo = std::min(2 * (in.emin() - in.man_bits), out.emin() - out.man_bits);
    const int hi = std::max(2 * in.emax() + 2, out.emax() + 1);
    exact_base_ = lo;
    exact_digits_ = (hi - lo + 31) / 32 + 3;
    if (exact_digits_ > kExactMaxDigits) exact_fast_ = false;
  }
}

DecodedOperands FdpaKernel::decode(std::span<const std::uint64_t> codes) const {
  DecodedOperands d;
  d.sig.resize(codes.size());
  d.lead.resize(codes.size());
  d.codes.assign(codes.begin(), codes.end());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const ExactValue v = fpconform::decode(codes[i], in_);
    if (v.is_nan() || v.is_inf()) d.special = true;
    if (v.is_finite_nonzero()) {
      const auto s = static_cast<std::int32_t>(v.sig);
      d.sig[i] = v.negative ? -s : s;
      d.lead[i] = v.exp + in_.man_bits;
    } else {
      d.sig[i] = 0;
      d.lead[i] = kZeroLead;
    }
  }
  return d;
}

std::uint64_t FdpaKernel::general(std::size_t n, std::uint64_t c, const std::uint64_t* codes_a,
                                  const std::uint64_t* codes_b, std::size_t stride_b) const {
  std::vector<std::uint64_t> av(codes_a, codes_a + n), bv(n);
  for (std::size_t i = 0; i < n; ++i) bv[i] = codes_b[i * stride_b];
  FdpaParams one = p_;
  one.block = static_cast<int>(n);
  return fdpa(one, in_, out_, av, bv, c);
}

// One exact step: sum_i a_i b_i + c without rounding, then fdpa's final rounding (finish():
// round_to_format under out_rounding with the output flush). Zero sums (IEEE's zero-sign rules),
// NaN/inf in C and empty steps go to fdpa.
std::uint64_t FdpaKernel::exact_block(const std::int32_t* sa, const std::int32_t* ea,
                                      const std::int32_t* sb, const std::int32_t* eb,
                                      std::size_t n, std::uint64_t c,
                                      const std::uint64_t* codes_a, const std::uint64_t* codes_b,
                                      std::size_t stride_b) const {
  const ExactValue cv = fpconform::decode(c, out_);
  if (n == 0 || cv.is_nan() || cv.is_inf()) return general(n, c, codes_a, codes_b, stride_b);
  const int nd = exact_digits_;
  std::int64_t rows[kExactRows][kExactMaxDigits];
  for (auto& r : rows) std::fill(r, r + nd, 0);
  const std::int32_t off0 = -2 * in_.man_bits - exact_base_;
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
    return fdpa(one, in_, out_, av, bv, c);
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
  const std::int32_t bias = p_.frac_bits - 2 * in_.man_bits;
  std::int64_t sum = sum32_ ? aligned_sum32(sa, ea, sb, eb, n, u + 2 * in_.man_bits, bias)
                            : aligned_sum64(sa, ea, sb, eb, n, u + 2 * in_.man_bits, bias);
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
      const int keep = p_.acc_frac_bits >= 0 ? p_.acc_frac_bits + 1 : 24;
      const std::uint64_t top = len > keep ? mag >> (len - keep) : mag << (keep - len);
      const std::uint64_t frac = (top & ((1ull << (keep - 1)) - 1)) << (24 - keep);
      return (neg ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(lead + 127) << 23) | frac;
    }
  }
  return general();
}

std::uint64_t FdpaKernel::dot(const DecodedOperands& a, std::size_t offset_a,
                              const DecodedOperands& b, std::size_t offset_b,
                              std::size_t stride_b, std::size_t k, std::uint64_t c) const {
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
  if (exact_fast_ && !a.special && !b.special) {
    // Steps of `block` products (0: all of them), each rounded, the next taking it as C.
    const std::size_t L = p_.block == 0 ? std::max<std::size_t>(k, 1) : static_cast<std::size_t>(p_.block);
    std::uint64_t d = c;
    std::size_t i = 0;
    do {
      const std::size_t len = std::min(L, k - i);
      d = exact_block(a.sig.data() + offset_a + i, a.lead.data() + offset_a + i, sbp + i, ebp + i,
                      len, d, a.codes.data() + offset_a + i,
                      b.codes.data() + offset_b + i * stride_b, stride_b);
      i += len;
    } while (i < k);
    return d;
  }
  if (!fast_ || a.special || b.special) {
    std::vector<std::uint64_t> av(a.codes.begin() + offset_a, a.codes.begin() + offset_a + k), bv(k);
    for (std::size_t i = 0; i < k; ++i) bv[i] = b.codes[offset_b + i * stride_b];
    return fdpa(p_, in_, out_, av, bv, c);
  }
  const auto L = static_cast<std::size_t>(p_.block);
  if (sum32_ && pack_f32_rz_ && ieee_out_ && k > 0) return dot_two_pass(a, offset_a, b, offset_b, stride_b, sbp, ebp, k, c);
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

std::uint64_t FdpaKernel::dot_two_pass(const DecodedOperands& a, std::size_t offset_a,
                                       const DecodedOperands& b, std::size_t offset_b,
                                       std::size_t stride_b, const std::int32_t* sbp,
                                       const std::int32_t* ebp, std::size_t k,
                                       std::uint64_t c) const {
  const auto L = static_cast<std::size_t>(p_.block);
  const TwoPassFn fn = two_pass_for(p_.block);
  const std::int32_t* sa = a.sig.data() + offset_a;
  const std::int32_t* ea = a.lead.data() + offset_a;
  const std::uint64_t* ca = a.codes.data() + offset_a;
  const std::uint64_t* cb = b.codes.data() + offset_b;
  const std::size_t full = fn ? k / L : 0;
  std::uint64_t d = c;
  if (full > 0) {
    thread_local std::vector<std::int32_t> w;
    thread_local std::vector<BlockPre> pre;
    w.resize(full * L);
    pre.resize(full);
    struct Ctx {
      const FdpaKernel* self;
      const std::int32_t *sa, *ea, *sb, *eb;
      const std::uint64_t *ca, *cb;
      std::size_t L, stride_b;
    } ctx{this, sa, ea, sbp, ebp, ca, cb, L, stride_b};
    TwoPass t{sa, ea, sbp, ebp, full, p_.frac_bits - 2 * in_.man_bits, p_.frac_bits,
              p_.acc_frac_bits >= 0 ? p_.acc_frac_bits + 1 : 24, p_.zero_exp, w.data(),
              pre.data(), &ctx,
              [](const void* cp, std::size_t blk, std::uint64_t cc) {
                const Ctx& x = *static_cast<const Ctx*>(cp);
                const std::size_t i = blk * x.L;
                return x.self->block(x.sa + i, x.ea + i, x.sb + i, x.eb + i, x.L, cc, x.ca + i,
                                     x.cb + i * x.stride_b, x.stride_b);
              }};
    d = fn(t, d);
  }
  // The rest (a partial last block, or block sizes without a compiled L) block by block.
  for (std::size_t i = full * L; i < k; i += L) {
    const std::size_t len = std::min(L, k - i);
    d = block(sa + i, ea + i, sbp + i, ebp + i, len, d, ca + i, cb + i * stride_b, stride_b);
  }
  return d;
}

std::uint64_t FdpaKernel::dot(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                              std::uint64_t c) const {
  if (a.size() != b.size())
    throw Error("b", "a has " + std::to_string(a.size()) + " elements, b has " +
                         std::to_string(b.size()));
  return dot(decode(a), 0, decode(b), 0, 1, a.size(), c);
}

}  // namespace fpconform
