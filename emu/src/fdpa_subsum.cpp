// The integer path of the fused block with exact sub-sums (Blackwell's fp4 kinds, fdpa.hpp
// step 1 with `subsum` = G): FdpaKernel::dot_subsum. With unit scales (what dot computes) a
// sub-sum of G products is an exact integer in units of the smallest product's last bit, and
// its alignment exponent is the scales' (0); a sub-sum with no nonzero product is a zero term.
// Pass 1 forms every sub-sum of a chunk; pass 2 is the fused block per instruction (the
// sub-sums and C truncated to F fraction bits of the largest exponent, zero terms at zero_exp)
// in int64, packed into fp32 toward zero, several dot products interleaved. A block whose
// result is zero, subnormal or out of range, or whose C is NaN or inf, goes to the model
// (FdpaKernel::general), as does a partial last block.
#include <algorithm>
#include <bit>
#include <climits>

#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/core/cpu_features.hpp"

namespace fpconform {

namespace {

constexpr int kChains = 8;                // dot products interleaved in pass 2
constexpr std::size_t kChunkGroups = 64;  // sub-sums per chain between pass 1 and pass 2

struct SubSum {
  std::int32_t sum;  // in units of 2^lsb0 (the smallest product's last bit)
  std::int32_t any;  // some product is nonzero (a cancelled sub-sum still counts)
};

template <int G>
__attribute__((always_inline)) inline void subsums(const std::int32_t* __restrict sa,
                                                   const std::int32_t* __restrict ea,
                                                   const std::int32_t* __restrict sb,
                                                   const std::int32_t* __restrict eb,
                                                   std::int32_t emin_sum, std::size_t ng,
                                                   SubSum* __restrict out) {
  for (std::size_t g = 0; g < ng; ++g) {
    std::int32_t s = 0, any = 0;
    for (int j = 0; j < G; ++j) {
      const std::size_t i = g * G + static_cast<std::size_t>(j);
      const std::int32_t prod = sa[i] * sb[i];
      std::int32_t sh = ea[i] + eb[i] - emin_sum;
      sh = sh < 0 ? 0 : (sh > 30 ? 30 : sh);  // a zero operand's lead is far below emin
      s += prod * (1 << sh);
      any |= prod;
    }
    out[g] = {s, any != 0};
  }
}

template <int G>
void subsums_base(const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
                  const std::int32_t* eb, std::int32_t emin_sum, std::size_t ng, SubSum* out) {
  subsums<G>(sa, ea, sb, eb, emin_sum, ng, out);
}
#if defined(__x86_64__)
template <int G>
__attribute__((target("avx2"), flatten)) void subsums_avx2(
    const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
    const std::int32_t* eb, std::int32_t emin_sum, std::size_t ng, SubSum* out) {
  subsums<G>(sa, ea, sb, eb, emin_sum, ng, out);
}
#endif

// sign * floor(|v| * 2^sh): truncation toward zero (sh < 0) or an exact left shift.
inline std::int64_t truncated(std::int64_t v, std::int32_t sh) {
  const std::int32_t left = std::max(sh, 0), right = std::min(std::max(-sh, 0), 63);
  const std::int64_t m = v < 0 ? -v : v;
  const std::int64_t r = (m << left) >> right;
  return v < 0 ? -r : r;
}

struct SubSumBlock {
  std::int32_t F, zero_exp, lsb0, groups;
};

// The fused block over `groups` sub-sums and C (an fp32 code); false where the model decides.
inline bool subsum_step(const SubSumBlock& p, const SubSum* s, std::uint64_t& d) {
  const std::uint64_t field = (d >> 23) & 0xFF, frac = d & 0x7FFFFF;
  if (field == 0xFF) return false;
  const bool has_c = (d & 0x7FFFFFFF) != 0;
  bool any_zero = !has_c, any_term = false;
  for (int g = 0; g < p.groups; ++g) {
    any_term = any_term || s[g].any;
    any_zero = any_zero || !s[g].any;
  }
  const auto cmag = static_cast<std::int64_t>(field ? frac | 0x800000 : frac);
  const std::int32_t cexp = field ? static_cast<std::int32_t>(field) - 150 : -149;
  std::int32_t e = INT_MIN;
  if (any_term) e = 0;  // the unit scales' exponent
  if (has_c) e = std::max(e, cexp + 23);
  if (any_zero && p.zero_exp != INT_MIN) e = std::max(e, p.zero_exp);
  if (e == INT_MIN) return false;
  const std::int32_t u = e - p.F;
  std::int64_t t = 0;
  for (int g = 0; g < p.groups; ++g)
    if (s[g].any) t += truncated(s[g].sum, p.lsb0 - u);
  if (has_c) t += truncated((d >> 31) ? -cmag : cmag, cexp - u);
  if (t == 0) return false;
  const bool negative = t < 0;
  const auto mag = static_cast<std::uint64_t>(negative ? -t : t);
  const int len = 64 - std::countl_zero(mag);
  const int lead = u + len - 1;
  if (lead < -126 || lead > 127) return false;
  const std::uint64_t top = len > 24 ? mag >> (len - 24) : mag << (24 - len);
  d = (negative ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(lead + 127) << 23) |
      (top & 0x7FFFFF);
  return true;
}

}  // namespace

bool FdpaKernel::subsum_serves(const FdpaParams& p, const FdpaFormats& f) {
  if (p.subsum != 16 || p.block < 16 || p.block % 16 != 0 || p.block > 64)
    return false;
  // Every product, in units of the smallest product's last bit, and a sub-sum of 16 of them
  // within int32; up to four sub-sums aligned to F fraction bits of 2^0 within int64 (C, at
  // most F - 23 bits above its last, fits as F <= 40 does).
  const int span = (f.a.emax() - f.a.emin()) + (f.b.emax() - f.b.emin());
  const int lsb0 = f.a.emin() - f.a.man_bits + f.b.emin() - f.b.man_bits;
  const int sum_bits = f.a.precision() + f.b.precision() + span + 4;
  return sum_bits <= 30 && lsb0 + p.frac_bits + sum_bits + 2 <= 62 && p.frac_bits <= 40;
}

void FdpaKernel::dot_subsum(const DecodedOperands& a, const std::size_t* offset_a,
                            const DecodedOperands& b, const std::size_t* offset_b,
                            std::size_t stride_b, const std::int32_t* const* sb,
                            const std::int32_t* const* eb, std::size_t k, std::uint64_t* d,
                            int n) const {
  constexpr int G = 16;
  const auto L = static_cast<std::size_t>(p_.block);
  const std::size_t groups = L / G, nblocks = k / L;
  const std::int32_t emin_sum = in_.emin() + in_b_.emin();
  const SubSumBlock bp{p_.frac_bits, p_.zero_exp,
                       in_.emin() - in_.man_bits + in_b_.emin() - in_b_.man_bits,
                       static_cast<std::int32_t>(groups)};
  auto pass1 = &subsums_base<G>;
#if defined(__x86_64__)
  if (!portable_dispatch() && cpu_features().avx2) pass1 = &subsums_avx2<G>;
#endif
  const std::size_t chunk_blocks = std::max<std::size_t>(kChunkGroups / groups, 1);
  SubSum pre[kChains][kChunkGroups];  // chunk_blocks * groups <= kChunkGroups (groups <= 4)
  for (std::size_t b0 = 0; b0 < nblocks; b0 += chunk_blocks) {
    const std::size_t nb = std::min(chunk_blocks, nblocks - b0);
    for (int c = 0; c < n; ++c) {
      const std::size_t i = b0 * L;
      pass1(a.sig.data() + offset_a[c] + i, a.lead.data() + offset_a[c] + i, sb[c] + i,
            eb[c] + i, emin_sum, nb * groups, pre[c]);
    }
    for (std::size_t j = 0; j < nb; ++j)
      for (int c = 0; c < n; ++c)
        if (!subsum_step(bp, pre[c] + j * groups, d[c])) {
          const std::size_t i = (b0 + j) * L;
          d[c] = general(L, d[c], a.codes.data() + offset_a[c] + i,
                         b.codes.data() + offset_b[c] + i * stride_b, stride_b);
        }
  }
  if (nblocks * L < k)  // the partial last block, as fdpa takes it
    for (int c = 0; c < n; ++c)
      d[c] = model_dot(a, offset_a[c] + nblocks * L, b, offset_b[c] + nblocks * L * stride_b,
                       stride_b, k - nblocks * L, d[c]);
}

}  // namespace fpconform
