// FdpaKernel: the integer fast path of fdpa (see fdpa_kernel.hpp).
#include "fpconform/fdpa_kernel.hpp"

#include <algorithm>
#include <bit>
#include <climits>

#include "fpconform/error.hpp"

namespace fpconform {

namespace {

constexpr std::int32_t kZeroLead = -(1 << 20);  // a zero operand: never the block maximum

// sum over i of sign(p_i) * trunc(|p_i| * 2^(lsb_i - u)), lsb_i = ea + eb - 2m: the aligned,
// truncated products of one block. Compiled for AVX2 and the baseline; the loader picks.
__attribute__((target_clones("avx2", "default"))) std::int64_t aligned_sum(
    const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
    const std::int32_t* eb, std::size_t n, std::int32_t shift0) {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t prod = static_cast<std::int64_t>(sa[i]) * sb[i];
    const std::int64_t mag = prod < 0 ? -prod : prod;
    const std::int32_t sh = ea[i] + eb[i] - shift0;
    const std::int64_t left = mag << (sh > 0 ? (sh > 62 ? 62 : sh) : 0);
    const std::int32_t rs = sh < 0 ? -sh : 0;
    const std::int64_t right = rs > 62 ? 0 : mag >> rs;
    const std::int64_t t = sh >= 0 ? left : right;
    sum += prod < 0 ? -t : t;
  }
  return sum;
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

}  // namespace

FdpaKernel::FdpaKernel(const FdpaParams& p, const Format& in, const Format& out)
    : p_(p), in_(in), out_(out) {
  // The integer path: the plain fused block (truncating alignment, C in the block, exact
  // products, no carry limit, no groups), no input flushing, significands that multiply within
  // 32 bits, and a sum that fits 63 bits for blocks of up to 64.
  fast_ = p.structure == FdpaStructure::fused && p.align == AlignRounding::truncate &&
          p.c_in_block && !p.late_c && p.interleave == 1 && p.product_bits < 0 &&
          p.carry_bits < 0 && !p.product_overflow && !p.flush_subnormal_inputs &&
          in.width() <= 16 && in.precision() <= 12 && p.frac_bits <= 50 && p.block <= 64 &&
          out.precision() <= 53;
  pack_f32_rz_ = out.name == "f32" && p.out_rounding.mode == RoundingMode::rtz &&
                 !p.flush_subnormal_outputs && p.acc_frac_bits <= 23;
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
  const ExactValue cv = fpconform::decode(c, out_);
  if (cv.is_nan() || cv.is_inf()) return general();
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
  std::int64_t sum = aligned_sum(sa, ea, sb, eb, n, u + 2 * in_.man_bits);
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
  if (!fast_ || a.special || b.special) {
    std::vector<std::uint64_t> av(a.codes.begin() + offset_a, a.codes.begin() + offset_a + k), bv(k);
    for (std::size_t i = 0; i < k; ++i) bv[i] = b.codes[offset_b + i * stride_b];
    return fdpa(p_, in_, out_, av, bv, c);
  }
  std::uint64_t d = c;
  const auto L = static_cast<std::size_t>(p_.block);
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

std::uint64_t FdpaKernel::dot(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                              std::uint64_t c) const {
  if (a.size() != b.size())
    throw Error("b", "a has " + std::to_string(a.size()) + " elements, b has " +
                         std::to_string(b.size()));
  return dot(decode(a), 0, decode(b), 0, 1, a.size(), c);
}

}  // namespace fpconform
