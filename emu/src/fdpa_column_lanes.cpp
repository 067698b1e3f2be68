// The fused block with one dot product per lane of fp32 vectors (sixteen with AVX-512, eight with
// AVX2): one row of A against as many consecutive columns of a row-major B
// (FdpaKernel::row_major_b). It serves the units the two-pass path serves (truncating
// alignment, C in the block, fp32 toward zero), and those of the late-C path with one group
// (fp32 to nearest even), where every product of the operands is exact in fp32's normal range
// (checked per call from the operands' exponent ranges). Per block of L
// products and per lane:
//   e   = max(E_k, lead(C)), E_k = lead(a_k) + lead(b_k): the exponents the unit aligns by, not
//         the products' own; held as the float 2^lead(a) * 2^lead(b), 0 for a zero product,
//         or, for rows sharing B where each operand's leads span at most 127 binades, as a
//         byte per product (block_bytes in fdpa_column_lanes.inc: one vector holds four rows'
//         bytes; a saturating byte subtraction per product gives E_k less the least, 0 for a
//         zero product);
//   q_k = trunc(a_k b_k 2^(F - e)), S = sum q_k + trunc(C 2^(F - e)) in int32 (truncating the
//         magnitude is the unit's alignment; each q_k < 2^(F + 2), L of them within int32);
//   the result: S converted to fp32 toward zero (embedded rounding, or MXCSR with AVX2), cut
//         to `keep` bits, times 2^(e - F) toward zero (+0 for S = 0, the largest finite value
//         past it: the model's results).
// With late C (AMD CDNA3) C is no term of the block: e = max E_k, and fdpa's late stage adds C
// to the block's sum (late_stage): with e' = max(e, lead(C)), the sum floored to
// late_sum_frac_bits fraction bits of 2^e', C to late_c_frac_bits (left out below e' -
// late_c_drop_below), their exact sum rounded once to nearest even: in int32 for most lanes
// (fdpa_column_lanes.inc), in binary64 for the rest.
// Zero terms' exponent cannot matter here: every nonzero product's E is at least zero_exp. A
// lane whose block has no nonzero product, whose C is NaN or inf, or whose sum with C wraps
// int32 takes the long way (FdpaKernel::block), and with late C, where the call does not bound
// C and the products (LateLanes::finite), one whose result is zero, subnormal or inf. The
// exponents are held as binary32 exponent fields in int32 lanes (fdpa_column_lanes.inc:
// ExponentsOf), so that each power of two is one integer subtraction.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>

#include "fpconform/core/cpu_features.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "binary32_lanes.hpp"
#include "host_fp_mode.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

constexpr int kMaxLanes = 16;  // AVX-512; AVX2 has 8

// Up to kMaxChains groups of a vector's dot products run together (independent block chains, so
// that one group's pass over its products overlaps another's wait for its C). Each group: a's
// values and powers from its first product, b's from its first row (row stride `stride`), and
// the long way for one lane's block. Groups of one b (rows of A against the same columns) load
// each vector of b once for all of them.
constexpr int kMaxChains = 4;

// fdpa's late stage (AMD CDNA3): the fraction bits the block's sum and C keep of 2^e, C left
// out below e - drop (negative: never), and 2^(sum_frac - c_frac); with int_form, the lanes
// where lead(C) - E >= fast_lo take the int32 form (fdpa_column_lanes.inc; a zero C counts its
// lead as -127 there), with c_span = 29 - F and sum_span = Fs - F.
struct LateLanes {
  float F, sum_frac, c_frac, drop;
  double ratio;
  bool int_form;
  int fast_lo, c_span, sum_span;
  bool finite;  // no result can round to inf: C and the products bounded for the whole call
  bool fast_always;  // every C's gap at least fast_lo for the whole call
};

struct LaneTile {
  const float *av[kMaxChains], *ap[kMaxChains], *bv[kMaxChains], *bp[kMaxChains];
  // With bytes: the operands' lead_bytes (b: the first row's; a's complemented when packed),
  // and the two least leads added, less one.
  const std::uint32_t *abytes[kMaxChains], *bbytes;
  std::uint32_t* apacked;  // nblocks * block words (fdpa_column_lanes.inc: pack_rows)
  bool bytes;
  int byte_base;
  std::size_t stride, nblocks;
  int F, keep;
  bool may_wrap;  // L aligned products and C can pass 2^31: L 2^(F + 2) + 2^(F + 1) > 2^31
  bool zero_products;  // a zero among a's or b's values: a block's products may all be zero
  LateLanes late;
  const void* ctx;
  std::uint32_t (*fallback)(const void* ctx, int chain, int lane, std::size_t blk,
                            std::uint32_t c);
};

using LanesFn = void (*)(const LaneTile&, std::uint32_t*);

#if defined(__x86_64__)
using detail::Avx2Lanes;
using detail::Avx512Lanes;

// Eight lanes of the late stage: x = floor(s 2^k1), y = floor(c 2^k2), (x + y ratio) 2^k3,
// exact in binary64, rounded once to nearest even.
FPC_AVX512_LANES __m256 late_half(__m512d s, __m512d c, __m256 k1, __m256 k2, __m256 k3,
                                  __m512d ratio) {
  constexpr int kFloor = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
  const __m512d x = _mm512_roundscale_pd(_mm512_scalef_pd(s, _mm512_cvtps_pd(k1)), kFloor);
  const __m512d y = _mm512_roundscale_pd(_mm512_scalef_pd(c, _mm512_cvtps_pd(k2)), kFloor);
  const __m512d t = _mm512_scalef_pd(_mm512_fmadd_pd(y, ratio, x), _mm512_cvtps_pd(k3));
  return _mm512_cvt_roundpd_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
// fdpa's late stage: with e = max(E, lead(C)), the block's sum s (units 2^(E - F)) floored to
// sum_frac fraction bits of 2^e and C to c_frac, their exact sum rounded to nearest even.
FPC_AVX512_LANES __m512 late_stage(Avx512Lanes, __m512i s, __m512 E, __m512 c,
                                   const LateLanes& p) {
  const __m512 ce = _mm512_getexp_ps(c);  // -inf for a zero C
  const __m512 e = _mm512_max_ps(E, ce);
  if (p.drop >= 0)
    c = _mm512_maskz_mov_ps(
        _mm512_cmp_ps_mask(ce, _mm512_sub_ps(e, _mm512_set1_ps(p.drop)), _CMP_GE_OQ), c);
  const __m512 k1 = _mm512_add_ps(_mm512_sub_ps(E, e), _mm512_set1_ps(p.sum_frac - p.F));
  const __m512 k2 = _mm512_sub_ps(_mm512_set1_ps(p.c_frac), e);
  const __m512 k3 = _mm512_sub_ps(e, _mm512_set1_ps(p.sum_frac));
  const __m512d ratio = _mm512_set1_pd(p.ratio);
  const __m256 lo = late_half(_mm512_cvtepi32_pd(_mm512_castsi512_si256(s)),
                              _mm512_cvtps_pd(_mm512_castps512_ps256(c)),
                              _mm512_castps512_ps256(k1), _mm512_castps512_ps256(k2),
                              _mm512_castps512_ps256(k3), ratio);
  const __m256 hi = late_half(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(s, 1)),
                              _mm512_cvtps_pd(_mm512_extractf32x8_ps(c, 1)),
                              _mm512_extractf32x8_ps(k1, 1), _mm512_extractf32x8_ps(k2, 1),
                              _mm512_extractf32x8_ps(k3, 1), ratio);
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

// 2^k as binary64 for four integral k (|k| < 1000).
FPC_AVX2_LANES __m256d pow2d(__m128 k) {
  const __m256i k64 = _mm256_cvtepi32_epi64(_mm_cvttps_epi32(k));
  return _mm256_castsi256_pd(
      _mm256_slli_epi64(_mm256_add_epi64(k64, _mm256_set1_epi64x(1023)), 52));
}
// As the AVX-512 late_half, four lanes; the rounding by MXCSR (nearest even here).
FPC_AVX2_LANES __m128 late_half(__m256d s, __m256d c, __m128 k1, __m128 k2, __m128 k3,
                                __m256d ratio) {
  const __m256d x = _mm256_floor_pd(_mm256_mul_pd(s, pow2d(k1)));
  const __m256d y = _mm256_floor_pd(_mm256_mul_pd(c, pow2d(k2)));
  return _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_fmadd_pd(y, ratio, x), pow2d(k3)));
}
// As the AVX-512 late_stage (a zero or subnormal C's exponent, -127 here, leaves e = E: the
// products' exponents are normal).
FPC_AVX2_LANES __m256 late_stage(Avx2Lanes, __m256i s, __m256 E, __m256 c, const LateLanes& p) {
  const __m256 ce = Avx2Lanes::exponent(c);
  const __m256 e = _mm256_max_ps(E, ce);
  if (p.drop >= 0)
    c = _mm256_and_ps(c, _mm256_cmp_ps(ce, _mm256_sub_ps(e, _mm256_set1_ps(p.drop)), _CMP_GE_OQ));
  const __m256 k1 = _mm256_add_ps(_mm256_sub_ps(E, e), _mm256_set1_ps(p.sum_frac - p.F));
  const __m256 k2 = _mm256_sub_ps(_mm256_set1_ps(p.c_frac), e);
  const __m256 k3 = _mm256_sub_ps(e, _mm256_set1_ps(p.sum_frac));
  const __m256d ratio = _mm256_set1_pd(p.ratio);
  const __m128 lo = late_half(_mm256_cvtepi32_pd(_mm256_castsi256_si128(s)),
                              _mm256_cvtps_pd(_mm256_castps256_ps128(c)),
                              _mm256_castps256_ps128(k1), _mm256_castps256_ps128(k2),
                              _mm256_castps256_ps128(k3), ratio);
  const __m128 hi = late_half(_mm256_cvtepi32_pd(_mm256_extracti128_si256(s, 1)),
                              _mm256_cvtps_pd(_mm256_extractf128_ps(c, 1)),
                              _mm256_extractf128_ps(k1, 1), _mm256_extractf128_ps(k2, 1),
                              _mm256_extractf128_ps(k3, 1), ratio);
  return _mm256_set_m128(hi, lo);
}

// GCC's SLP vectorizer packs the chains' lane masks into a vector each block (mask moves,
// shifts, a vector OR): slower than their scalar ORs (volta -3%).
#if defined(__GNUC__) && !defined(__clang__)
#define FPC_LANES_NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define FPC_LANES_NO_SLP
#endif

namespace avx512_lanes {
#define FPC_LANES_FN [[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]]
#include "fdpa_column_lanes.inc"
#undef FPC_LANES_FN
}  // namespace avx512_lanes
namespace avx2_lanes {
#define FPC_LANES_FN [[gnu::target("avx2,fma")]]
#include "fdpa_column_lanes.inc"
#undef FPC_LANES_FN
}  // namespace avx2_lanes

// The AVX-512 form where the CPU has it (and dispatch allows), else AVX2; none without AVX2.
int lanes_width() {
  return avx512_dispatch() ? 16 : !portable_dispatch() && cpu_features().avx2 ? 8 : 0;
}
LanesFn lanes_for(int block, int n, bool shared_b, bool bytes, bool late) {
  switch (lanes_width()) {
    case 16: return avx512_lanes::lanes_for<Avx512Lanes>(block, n, shared_b, bytes, late);
    case 8: return avx2_lanes::lanes_for<Avx2Lanes>(block, n, shared_b, bytes, late);
    default: return nullptr;
  }
}

#else
int lanes_width() { return 0; }
LanesFn lanes_for(int, int, bool, bool, bool) { return nullptr; }
#endif

// The largest |x| of binary32 codes (NaN left out, inf as inf).
double largest_magnitude(const std::uint64_t* codes, std::size_t n) {
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i)
    largest = std::max(largest, std::fabs(static_cast<double>(
                                    std::bit_cast<float>(static_cast<std::uint32_t>(codes[i])))));
  return largest;
}

// The least lead of nonzero finite binary32 codes (INT_MAX where there is none).
int least_lead(const std::uint64_t* codes, std::size_t n) {
  int least = INT_MAX;
  for (std::size_t i = 0; i < n; ++i) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(codes[i]));
    if (x != 0 && std::isfinite(x)) least = std::min(least, std::ilogb(x));
  }
  return least;
}

}  // namespace

int FdpaKernel::column_lanes_width() { return lanes_width(); }
int FdpaKernel::column_lanes_rows() { return kMaxChains; }

bool FdpaKernel::column_lanes_serve(const FdpaParams& p, const FdpaFormats& f) {
  // Every value of both inputs exact in fp32 (so are the products, where the ranges allow).
  for (const Format* in : {&f.a, &f.b})
    if (in->emax() > 127 || in->emin() - in->man_bits < -149) return false;
  const int keep = f32_kept_bits(p);
  if (p.late_c && (p.interleave != 1 || p.late_sum_frac_bits > 40 || p.late_c_frac_bits > 40))
    return false;
  return lanes_for(p.block, 1, false, false, p.late_c) != nullptr && p.frac_bits + 2 <= 31 &&
         (static_cast<std::uint64_t>(p.block) << (p.frac_bits + 2)) <= (1ull << 31) &&
         keep >= 1 && keep <= 24;
}

bool FdpaKernel::column_lanes_apply(const DecodedOperands& a, const DecodedOperands& b,
                                    std::size_t k, std::span<const std::uint64_t> c) const {
  if (!column_lanes_ || a.special || b.special || k < static_cast<std::size_t>(p_.block) ||
      a.value32.empty() || b.value32.empty() || a.min_lead == INT_MAX || b.min_lead == INT_MAX)
    return false;
  const int min_e = a.min_lead + b.min_lead;
  // Products exact and normal in fp32: the smallest above 2^-126, every one below 2^127
  // (|x| < 2^(lead + 1)); 2^(F - e) and 2^(e - F) normal for the smallest e; zero terms below
  // every product.
  if (a.min_exp + b.min_exp < -126 || a.max_lead + b.max_lead > 125 ||
      p_.frac_bits - min_e > 126 || (p_.zero_exp != INT_MIN && p_.zero_exp > min_e))
    return false;
  // A unit that saturates to infinity: the lanes' results toward zero stop at the largest
  // finite value, so none may reach 2^128 (|D| <= |C| + k 2^(lead(a) + lead(b) + 2)). Late C
  // rounds to nearest even and sends an infinite result the long way.
  if (p_.late_c || p_.out_rounding.sat != Saturation::infinite) return true;
  return largest_magnitude(c.data(), c.size()) +
             std::ldexp(static_cast<double>(k), a.max_lead + b.max_lead + 2) <
         0x1p128;
}

void FdpaKernel::dot_column_lanes(const DecodedOperands& a, const std::size_t* offset_a,
                                  const DecodedOperands& b, const std::size_t* offset_b,
                                  std::size_t stride_b, std::size_t k, int n,
                                  std::uint64_t* d) const {
  const auto L = static_cast<std::size_t>(p_.block);
  struct Ctx {
    const FdpaKernel* self;
    const DecodedOperands *a, *b;
    const std::size_t *offset_a, *offset_b;
    std::size_t stride_b, L;
  } ctx{this, &a, &b, offset_a, offset_b, stride_b, L};
  const std::size_t full = k / L;
  LaneTile g{};
  bool shared_b = true;
  for (int i = 0; i < n; ++i) {
    g.av[i] = a.value32.data() + offset_a[i];
    g.ap[i] = a.lead32.data() + offset_a[i];
    g.bv[i] = b.value32.data() + offset_b[i];
    g.bp[i] = b.lead32.data() + offset_b[i];
    if (!a.lead_bytes.empty()) g.abytes[i] = a.lead_bytes.data() + offset_a[i];
    shared_b = shared_b && offset_b[i] == offset_b[0];
  }
  g.stride = stride_b;
  g.nblocks = full;
  g.F = p_.frac_bits;
  g.keep = f32_kept_bits(p_);
  g.may_wrap = ((2 * L + 1) << (p_.frac_bits + 1)) > (std::size_t{1} << 31);
  g.zero_products = a.zeros || b.zeros;
  g.bytes = shared_b && !a.lead_bytes.empty() && !b.lead_bytes.empty();
  if (g.bytes) g.bbytes = b.lead_bytes.data() + offset_b[0];
  g.byte_base = g.bytes ? a.min_lead + b.min_lead - 1 : 0;
  // Written whole by pack_rows before it is read: no zeros first.
  const auto packed = std::make_unique_for_overwrite<std::uint32_t[]>(g.bytes ? full * L : 0);
  g.apacked = packed.get();
  g.ctx = &ctx;
  // The int32 form (fdpa_column_lanes.inc) where C's floor matches (Fc = F), the sum's own
  // floor lies at or below the unit moved up (Fs >= 29), and the block's sum stays below 2^29;
  // C times 2^(F - E) is normal from lead(C) - E >= -100 - F; C is left out below E - drop.
  const bool fast_form = p_.late_c_frac_bits == p_.frac_bits && p_.late_sum_frac_bits >= 29 &&
                         (L << (p_.frac_bits + 2)) <= (std::size_t{1} << 29);
  const int fast_lo = std::max(-100 - p_.frac_bits,
                               p_.late_c_drop_below >= 0 ? -p_.late_c_drop_below : INT_MIN / 2);
  g.late = {static_cast<float>(p_.frac_bits), static_cast<float>(p_.late_sum_frac_bits),
            static_cast<float>(p_.late_c_frac_bits), static_cast<float>(p_.late_c_drop_below),
            std::ldexp(1.0, p_.late_sum_frac_bits - p_.late_c_frac_bits),
            fast_form, fast_lo, 29 - p_.frac_bits, p_.late_sum_frac_bits - p_.frac_bits,
            false, false};
  if (p_.late_c) {
    const std::size_t lanes = static_cast<std::size_t>(n) * lanes_width();
    // Each block adds less than L 2^(lead(a) + lead(b) + 2) and rounds (at most 2^-23 of the
    // result, with the floors); over fewer than 2^22 blocks that grows C by less than twice.
    const double grown = largest_magnitude(d, lanes) +
                         std::ldexp(static_cast<double>(k), a.max_lead + b.max_lead + 3);
    g.late.finite = full < (std::size_t{1} << 22) && grown < 0x1p126;
    // A block's E lies in [min_e, top_e]; a C the lanes give is zero or at least 2^(E - F), so
    // its gap to any later E is at least min_e - F - top_e. One the long way gives is zero, inf
    // (overflow, NaN: a special C), or C itself (a block of zero products, C kept whole: no
    // drop). A zero C takes the int32 form as it is (its term is zero; on AVX2 its gap is
    // -127 - E, which moves nothing).
    const long min_e = a.min_lead + b.min_lead, top_e = a.max_lead + b.max_lead + 1;
    g.late.fast_always = fast_form && p_.late_c_drop_below < 0 &&
                         min_e - p_.frac_bits - top_e >= fast_lo &&
                         least_lead(d, lanes) - top_e >= fast_lo;
  }
  g.fallback = [](const void* cp, int chain, int lane, std::size_t blk, std::uint32_t c) {
    const detail::DefaultHostFpMode fp_mode;  // the AVX2 lanes run toward zero
    const Ctx& x = *static_cast<const Ctx*>(cp);
    return static_cast<std::uint32_t>(x.self->block_of_column(
        *x.a, x.offset_a[chain] + blk * x.L, *x.b,
        x.offset_b[chain] + static_cast<std::size_t>(lane) + blk * x.L * x.stride_b, x.stride_b,
        x.L, c));
  };
  const int width = lanes_width();
  std::uint32_t lanes[kMaxChains * kMaxLanes];
  for (int i = 0; i < n * width; ++i) lanes[i] = static_cast<std::uint32_t>(d[i]);
  {
#if defined(__x86_64__)
    std::optional<detail::TowardZeroFpMode> rz;
    if (width == 8 && !p_.late_c) rz.emplace();  // late C rounds to nearest even
#endif
    lanes_for(p_.block, n, shared_b, g.bytes, p_.late_c)(g, lanes);
  }
  // A partial last block, lane by lane.
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < width; ++l) {
      std::uint64_t r = lanes[i * width + l];
      for (std::size_t t = full * L; t < k; t += L)
        r = block_of_column(a, offset_a[i] + t, b,
                            offset_b[i] + static_cast<std::size_t>(l) + t * stride_b, stride_b,
                            std::min(L, k - t), r);
      d[i * width + l] = r;
    }
}

std::uint64_t FdpaKernel::block_of_column(const DecodedOperands& a, std::size_t offset_a,
                                          const DecodedOperands& b, std::size_t offset_b,
                                          std::size_t stride_b, std::size_t n,
                                          std::uint64_t c) const {
  if (p_.late_c)  // the model's block (late C has no block of the integer path)
    return general(n, c, a.codes.data() + offset_a, b.codes.data() + offset_b, stride_b);
  std::int32_t sb[64], eb[64];
  for (std::size_t i = 0; i < n; ++i) {
    sb[i] = b.sig[offset_b + i * stride_b];
    eb[i] = b.lead[offset_b + i * stride_b];
  }
  return block(a.sig.data() + offset_a, a.lead.data() + offset_a, sb, eb, n, c,
               a.codes.data() + offset_a, b.codes.data() + offset_b, stride_b);
}

}  // namespace fpconform
