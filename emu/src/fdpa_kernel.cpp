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
