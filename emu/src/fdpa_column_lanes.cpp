// The fused block with sixteen dot products in the lanes of AVX-512 fp32 vectors: one row of A
// against sixteen consecutive columns of a row-major B (FdpaKernel::row_major_b). It serves the
// units the two-pass path serves (truncating alignment, C in the block, fp32 toward zero) where
// every product of the operands is exact in fp32's normal range (checked per call from the
// operands' exponent ranges). Per block of L products and per lane:
//   e   = max(E_k, lead(C)), E_k = lead(a_k) + lead(b_k): the exponents the unit aligns by, not
//         the products' own; held as the float 2^lead(a) * 2^lead(b), 0 for a zero product;
//   q_k = trunc(a_k b_k 2^(F - e)), S = sum q_k + trunc(C 2^(F - e)) in int32 (truncating the
//         magnitude is the unit's alignment; each q_k < 2^(F + 2), L of them within int32);
//   the result: S converted to fp32 toward zero (embedded rounding), cut to `keep` bits, times
//         2^(e - F).
// Zero terms' exponent cannot matter here: every nonzero product's E is at least zero_exp. A
// lane whose block has no nonzero product, whose C is NaN or inf, whose sum with C wraps int32,
// or whose result is zero, subnormal or out of range takes the long way (FdpaKernel::block).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <vector>

#include "fpconform/core/cpu_features.hpp"
#include "fpconform/fdpa_kernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

constexpr int kLanes = 16;

// Up to kMaxChains groups of sixteen dot products run together (independent block chains, so
// that one group's pass over its products overlaps another's wait for its C). Each group: a's
// values and powers from its first product, b's from its first row (row stride `stride`), and
// the long way for one lane's block. Groups of one b (rows of A against the same columns) load
// each vector of b once for all of them.
constexpr int kMaxChains = 4;

struct LaneTile {
  const float *av[kMaxChains], *ap[kMaxChains], *bv[kMaxChains], *bp[kMaxChains];
  std::size_t stride, nblocks;
  int F, keep;
  const void* ctx;
  std::uint32_t (*fallback)(const void* ctx, int chain, int lane, std::size_t blk,
                            std::uint32_t c);
};

#if defined(__x86_64__)
// GCC 12 warns that the "undefined" source operand inside its own avx512fintrin.h intrinsics
// may be used uninitialized (a known false positive of those headers).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define FPC_LANES_FN [[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]]

// The products are formed twice (for the block maximum, then scaled), which costs no more
// operations than keeping them and leaves the registers to the other chains.
template <int L, int N, bool SharedB>
FPC_LANES_FN void lanes_run(const LaneTile& g, std::uint32_t* d) {
  __m512 c[N];
  for (int n = 0; n < N; ++n) c[n] = _mm512_castsi512_ps(_mm512_loadu_si512(d + kLanes * n));
  const __m512 fv = _mm512_set1_ps(static_cast<float>(g.F));
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512i cut = _mm512_set1_epi32(static_cast<std::int32_t>(~((1u << (24 - g.keep)) - 1)));
  const std::size_t stride = g.stride;
  for (std::size_t blk = 0; blk < g.nblocks; ++blk) {
    const std::size_t k0 = blk * L;
    const float* av[N];
    const float* ap[N];
    const float* bv[N];
    const float* bp[N];
    for (int n = 0; n < N; ++n) {
      av[n] = g.av[n] + k0;
      ap[n] = g.ap[n] + k0;
      bv[n] = g.bv[SharedB ? 0 : n] + k0 * stride;
      bp[n] = g.bp[SharedB ? 0 : n] + k0 * stride;
    }
    __m512 top[N];
    for (int n = 0; n < N; ++n) top[n] = _mm512_setzero_ps();
#pragma GCC unroll 32
    for (int j = 0; j < L; ++j) {
      const __m512 shared = _mm512_loadu_ps(bp[0] + j * stride);
      for (int n = 0; n < N; ++n)
        top[n] = _mm512_max_ps(top[n], _mm512_mul_ps(_mm512_set1_ps(ap[n][j]),
                                                     SharedB ? shared : _mm512_loadu_ps(bp[n] + j * stride)));
    }
    __m512 e[N], scale[N];
    __mmask16 bad[N];
    __m512i s[N][2];
    for (int n = 0; n < N; ++n) {
      // Lanes for the long way: every product zero, C NaN or inf (QNaN, +-inf, SNaN).
      bad[n] = _mm512_cmp_ps_mask(top[n], _mm512_setzero_ps(), _CMP_EQ_OQ) |
               _mm512_fpclass_ps_mask(c[n], 0x99);
      e[n] = _mm512_max_ps(_mm512_getexp_ps(top[n]), _mm512_getexp_ps(c[n]));
      scale[n] = _mm512_scalef_ps(one, _mm512_sub_ps(fv, e[n]));
      s[n][0] = s[n][1] = _mm512_setzero_si512();
    }
#pragma GCC unroll 32
    for (int j = 0; j < L; ++j) {
      const __m512 shared = _mm512_loadu_ps(bv[0] + j * stride);
      for (int n = 0; n < N; ++n) {
        const __m512 prod = _mm512_mul_ps(_mm512_set1_ps(av[n][j]),
                                          SharedB ? shared : _mm512_loadu_ps(bv[n] + j * stride));
        s[n][j % 2] =
            _mm512_add_epi32(s[n][j % 2], _mm512_cvttps_epi32(_mm512_mul_ps(prod, scale[n])));
      }
    }
    for (int n = 0; n < N; ++n) {
      const __m512i cq = _mm512_cvttps_epi32(_mm512_mul_ps(c[n], scale[n]));
      const __m512i prods = _mm512_add_epi32(s[n][0], s[n][1]);
      const __m512i sum = _mm512_add_epi32(prods, cq);
      // Wrapped: both addends of one sign, the sum of the other.
      bad[n] |= _mm512_movepi32_mask(
          _mm512_and_si512(_mm512_xor_si512(sum, prods), _mm512_xor_si512(sum, cq)));
      const __m512 r = _mm512_castsi512_ps(_mm512_and_si512(
          _mm512_castps_si512(
              _mm512_cvt_roundepi32_ps(sum, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)),
          cut));
      const __m512 res = _mm512_scalef_ps(r, _mm512_sub_ps(e[n], fv));
      // Anything but a normal: zero (the model's zero signs), inf (overflow), subnormal (within
      // the ranges checked per call only 2^-127, exact; the long way all the same).
      bad[n] |= _mm512_fpclass_ps_mask(res, 0xBF);
      if (bad[n] == 0) {
        c[n] = res;
        continue;
      }
      alignas(64) std::uint32_t old[kLanes], now[kLanes];
      _mm512_store_si512(old, _mm512_castps_si512(c[n]));
      _mm512_store_si512(now, _mm512_castps_si512(res));
      for (int l = 0; l < kLanes; ++l)
        if (bad[n] & (1u << l)) now[l] = g.fallback(g.ctx, n, l, blk, old[l]);
      c[n] = _mm512_castsi512_ps(_mm512_load_si512(now));
    }
  }
  for (int n = 0; n < N; ++n) _mm512_storeu_si512(d + kLanes * n, _mm512_castps_si512(c[n]));
}

using LanesFn = void (*)(const LaneTile&, std::uint32_t*);

template <int L>
LanesFn lanes_of(int n, bool shared_b) {
  switch (n) {
    case 1: return &lanes_run<L, 1, false>;
    case 2: return shared_b ? &lanes_run<L, 2, true> : &lanes_run<L, 2, false>;
    case 3: return shared_b ? &lanes_run<L, 3, true> : &lanes_run<L, 3, false>;
    default: return shared_b ? &lanes_run<L, 4, true> : &lanes_run<L, 4, false>;
  }
}

LanesFn lanes_for(int block, int n, bool shared_b) {
  switch (block) {
    case 4: return lanes_of<4>(n, shared_b);
    case 8: return lanes_of<8>(n, shared_b);
    case 16: return lanes_of<16>(n, shared_b);
    case 32: return lanes_of<32>(n, shared_b);
    default: return nullptr;
  }
}
#else
using LanesFn = void (*)(const LaneTile&, std::uint32_t*);
LanesFn lanes_for(int, int, bool) { return nullptr; }
#endif

}  // namespace

bool FdpaKernel::column_lanes_serve(const FdpaParams& p, const FdpaFormats& f) {
  // Every value of both inputs exact in fp32 (so are the products, where the ranges allow).
  for (const Format* in : {&f.a, &f.b})
    if (in->emax() > 127 || in->emin() - in->man_bits < -149) return false;
  const int keep = p.acc_frac_bits >= 0 ? p.acc_frac_bits + 1 : 24;
  return lanes_for(p.block, 1, false) != nullptr && p.frac_bits + 2 <= 31 &&
         (static_cast<std::uint64_t>(p.block) << (p.frac_bits + 2)) <= (1ull << 31) &&
         keep >= 1 && keep <= 24 && !portable_dispatch() && cpu_features().avx512;
}

bool FdpaKernel::column_lanes_apply(const DecodedOperands& a, const DecodedOperands& b,
                                    std::size_t k) const {
  if (!column_lanes_ || a.special || b.special || k < static_cast<std::size_t>(p_.block) ||
      a.value32.empty() || b.value32.empty() || a.min_lead == INT_MAX || b.min_lead == INT_MAX)
    return false;
  const int min_e = a.min_lead + b.min_lead;
  // Products exact and normal in fp32: the smallest above 2^-126, every one below 2^127
  // (|x| < 2^(lead + 1)); 2^(F - e) normal for the smallest e; zero terms below every product.
  return a.min_exp + b.min_exp >= -126 && a.max_lead + b.max_lead <= 125 &&
         p_.frac_bits - min_e <= 127 && (p_.zero_exp == INT_MIN || p_.zero_exp <= min_e);
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
    shared_b = shared_b && offset_b[i] == offset_b[0];
  }
  g.stride = stride_b;
  g.nblocks = full;
  g.F = p_.frac_bits;
  g.keep = p_.acc_frac_bits >= 0 ? p_.acc_frac_bits + 1 : 24;
  g.ctx = &ctx;
  g.fallback = [](const void* cp, int chain, int lane, std::size_t blk, std::uint32_t c) {
    const Ctx& x = *static_cast<const Ctx*>(cp);
    return static_cast<std::uint32_t>(x.self->block_of_column(
        *x.a, x.offset_a[chain] + blk * x.L, *x.b,
        x.offset_b[chain] + static_cast<std::size_t>(lane) + blk * x.L * x.stride_b, x.stride_b,
        x.L, c));
  };
  std::uint32_t lanes[kMaxChains * kLanes];
  for (int i = 0; i < n * kLanes; ++i) lanes[i] = static_cast<std::uint32_t>(d[i]);
  lanes_for(p_.block, n, shared_b)(g, lanes);
  // A partial last block, lane by lane.
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < kLanes; ++l) {
      std::uint64_t r = lanes[i * kLanes + l];
      for (std::size_t t = full * L; t < k; t += L)
        r = block_of_column(a, offset_a[i] + t, b,
                            offset_b[i] + static_cast<std::size_t>(l) + t * stride_b, stride_b,
                            std::min(L, k - t), r);
      d[i * kLanes + l] = r;
    }
}

void FdpaKernel::dot_many_in_lanes(const DecodedOperands& a, std::span<const std::size_t> offset_a,
                                   const DecodedOperands& b, std::span<const std::size_t> offset_b,
                                   std::size_t stride_b, std::size_t k,
                                   std::span<const std::uint64_t> c,
                                   std::span<std::uint64_t> out) const {
  const std::size_t count = offset_a.size();
  std::vector<std::uint64_t> results(c.begin(), c.end());  // out may be c
  // Groups: sixteen outputs of one row of a against consecutive columns. The rest go to the
  // other paths.
  std::vector<std::size_t> groups, rest;
  for (std::size_t i = 0; i < count;) {
    bool run = i + kLanes <= count;
    for (std::size_t l = 1; run && l < kLanes; ++l)
      run = offset_a[i + l] == offset_a[i] && offset_b[i + l] == offset_b[i] + l;
    if (run) {
      groups.push_back(i);
      i += kLanes;
    } else {
      rest.push_back(i++);
    }
  }
  // Tiles of up to four groups: rows of a against the same columns where there are such (each
  // vector of b loaded once for all), else the next groups in order.
  std::map<std::size_t, std::vector<std::size_t>> by_columns;  // offset_b -> groups, in order
  for (std::size_t g = 0; g < groups.size(); ++g) by_columns[offset_b[groups[g]]].push_back(g);
  std::vector<bool> done(groups.size(), false);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (done[g]) continue;
    std::size_t tile[kMaxChains];
    int n = 0;
    for (std::size_t h : by_columns[offset_b[groups[g]]])
      if (!done[h] && n < kMaxChains) tile[n++] = h;
    for (std::size_t h = g + 1; n == 1 && h < groups.size(); ++h)
      if (!done[h] && offset_b[groups[h]] != offset_b[groups[g]])
        for (std::size_t i = h; i < groups.size() && n < kMaxChains; ++i)
          if (!done[i]) tile[n++] = i;
    std::size_t oa[kMaxChains], ob[kMaxChains];
    std::uint64_t d[kMaxChains * kLanes];
    for (int i = 0; i < n; ++i) {
      done[tile[i]] = true;
      const std::size_t first = groups[tile[i]];
      oa[i] = offset_a[first];
      ob[i] = offset_b[first];
      std::copy_n(results.begin() + static_cast<std::ptrdiff_t>(first), kLanes, d + i * kLanes);
    }
    dot_column_lanes(a, oa, b, ob, stride_b, k, n, d);
    for (int i = 0; i < n; ++i)
      std::copy_n(d + i * kLanes, kLanes,
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

std::uint64_t FdpaKernel::block_of_column(const DecodedOperands& a, std::size_t offset_a,
                                          const DecodedOperands& b, std::size_t offset_b,
                                          std::size_t stride_b, std::size_t n,
                                          std::uint64_t c) const {
  std::int32_t sb[64], eb[64];
  for (std::size_t i = 0; i < n; ++i) {
    sb[i] = b.sig[offset_b + i * stride_b];
    eb[i] = b.lead[offset_b + i * stride_b];
  }
  return block(a.sig.data() + offset_a, a.lead.data() + offset_a, sb, eb, n, c,
               a.codes.data() + offset_a, b.codes.data() + offset_b, stride_b);
}

}  // namespace fpconform
