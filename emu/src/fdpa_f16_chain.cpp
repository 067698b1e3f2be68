// The fma chain in binary16 (the sequential structure with f16 output: x86's VFMADD231SH chain)
// evaluated in binary64: FdpaKernel::dot_f16_chain. One binary16 fma is
//   RNE_16(x * y + c) = RNE_16(RO_53(p + c)),  p = x * y (exact in binary64: 22 bits),
// where RO_53 is rounding to odd at 53 bits: the binary64 sum rounded to nearest with its exact
// error (TwoSum), moved one ulp toward the error when its last bit is even. Rounding to odd
// keeps a sticky bit, so with 53 >= 11 + 2 the second rounding is the correct one (Boldo and
// Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
// odd", IEEE TC 57(4), 2008). The rounding to binary16 (normal or subnormal) is done on the
// binary64 pattern in integers; the chain's values stay binary64 holding binary16 values. Eight
// dot products run interleaved. A dot product that overflows binary16, or meets NaN or inf in
// its operands or C, is left to the model (fdpa), whose NaN and overflow rules decide.
#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "fpconform/fdpa_kernel.hpp"

namespace fpconform {

namespace {

constexpr int kLanes = 8;

inline double pow2(int k) { return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52); }

// c = fma16(x, y, c); overflow set when the result is not finite in binary16.
inline void fma16(double x, double y, double& c, bool& overflow) {
  const double p = x * y;
  const double s = p + c;
  const double bb = s - p;
  const double err = (p - (s - bb)) + (c - bb);
  std::uint64_t bits = std::bit_cast<std::uint64_t>(s);
  // To odd without a branch (taken half the time): +-1 ulp toward err where inexact and even.
  const std::uint64_t move = static_cast<std::uint64_t>((err != 0) & !(bits & 1));
  const std::uint64_t away = static_cast<std::uint64_t>((err > 0) == (s > 0));
  bits += move & away;
  bits -= move & (away ^ 1);
  const std::uint64_t mag = bits & 0x7FFFFFFFFFFFFFFFull;
  if (mag == 0) {  // an exact zero: IEEE's sign, as binary64 gives it
    c = s;
    return;
  }
  const int e = static_cast<int>(mag >> 52) - 1023;  // a normal binary64: f16 values are
  const std::uint64_t m = (mag & ((1ull << 52) - 1)) | (1ull << 52);
  const int sh = 42 + std::max(0, -14 - e);  // 11 bits kept; fewer below binary16's emin
  std::uint64_t q = 0;
  if (sh <= 63) {
    q = m >> sh;
    const std::uint64_t rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    q += static_cast<std::uint64_t>((rem > half) | ((rem == half) & (q & 1)));
  }
  const double v = static_cast<double>(q) * pow2(std::min(e, 1000) - 52 + sh);
  overflow = overflow || e >= 16 || v >= 65536.0;  // RNE past 65504 gives inf
  c = (bits >> 63) ? -v : v;
}

// A binary16 code's value, and back (exact: v holds a binary16 value).
inline double f16_value(std::uint64_t code) {
  const int field = static_cast<int>((code >> 10) & 0x1F);
  const double frac = static_cast<double>(code & 0x3FF);
  const double v = field ? (1024.0 + frac) * pow2(field - 25) : frac * pow2(-24);
  return (code & 0x8000) ? -v : v;
}
inline std::uint64_t f16_code(double v) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
  const std::uint64_t sign = (bits >> 48) & 0x8000, mag = bits & 0x7FFFFFFFFFFFFFFFull;
  if (mag == 0) return sign;
  const int e = static_cast<int>(mag >> 52) - 1023;
  const std::uint64_t m = (mag & ((1ull << 52) - 1)) | (1ull << 52);
  if (e >= -14) return sign | (static_cast<std::uint64_t>(e + 15) << 10) | ((m >> 42) & 0x3FF);
  return sign | (m >> (42 - 14 - e));
}

// The eight chains, product by product (a fixed count of lanes: their values stay in registers).
void chain_lanes(const double* a, const double* b, std::size_t k, double* acc_out,
                 bool* overflow_out) {
  double acc[kLanes];
  bool overflow[kLanes];
  for (int c = 0; c < kLanes; ++c) {
    acc[c] = acc_out[c];
    overflow[c] = overflow_out[c];
  }
  for (std::size_t i = 0; i < k; ++i) {
#pragma GCC unroll 8
    for (int c = 0; c < kLanes; ++c) fma16(a[i * kLanes + c], b[i * kLanes + c], acc[c], overflow[c]);
  }
  for (int c = 0; c < kLanes; ++c) {
    acc_out[c] = acc[c];
    overflow_out[c] = overflow[c];
  }
}

}  // namespace

bool FdpaKernel::f16_chain_serves(const FdpaParams& p, const FdpaFormats& f) {
  const Format& o = f.d;
  return p.structure == FdpaStructure::sequential && o.exp_bits == 5 && o.man_bits == 10 &&
         o.bias == 15 && o.is_signed && o.subnormals && o.has_zero &&
         o.inf == InfEncoding::ieee && o.nan == NanEncoding::ieee && f.c == f.d &&
         p.out_rounding.mode == RoundingMode::rne && !p.flush_subnormal_inputs &&
         !p.flush_subnormal_outputs && holds_exactly(f.a, o) && holds_exactly(f.b, o);
}

void FdpaKernel::dot_f16_chain(const DecodedOperands& a, const std::size_t* offset_a,
                               const DecodedOperands& b, const std::size_t* offset_b,
                               std::size_t stride_b, const std::int32_t* const* sb,
                               const std::int32_t* const* eb, std::size_t k, std::uint64_t* d,
                               int n) const {
  // Operand values in binary64 (exact: they are binary16 values), lane by lane per product
  // (unused lanes: zeros). A zero keeps its sign (from the code): fma's zero results follow it.
  thread_local std::vector<double> av, bv;
  av.assign(kLanes * k, 0.0);
  bv.assign(kLanes * k, 0.0);
  const std::uint64_t sign_a = in_.sign_mask(), sign_b = in_b_.sign_mask();
  for (int c = 0; c < n; ++c)
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t ia = offset_a[c] + i;
      av[i * kLanes + c] = a.sig[ia] ? a.sig[ia] * pow2(a.lead[ia] - in_.man_bits)
                                     : ((a.codes[ia] & sign_a) ? -0.0 : 0.0);
      bv[i * kLanes + c] = sb[c][i] ? sb[c][i] * pow2(eb[c][i] - in_b_.man_bits)
                                    : ((b.codes[offset_b[c] + i * stride_b] & sign_b) ? -0.0 : 0.0);
    }
  double acc[kLanes] = {};
  bool overflow[kLanes] = {};
  for (int c = 0; c < n; ++c) {
    const std::uint64_t code = d[c] & 0xFFFF;
    overflow[c] = ((code >> 10) & 0x1F) == 0x1F;  // NaN or inf C: the model
    acc[c] = f16_value(code);
  }
  chain_lanes(av.data(), bv.data(), k, acc, overflow);
  for (int c = 0; c < n; ++c)
    d[c] = overflow[c] ? model_dot(a, offset_a[c], b, offset_b[c], stride_b, k, d[c])
                       : f16_code(acc[c]);
}

}  // namespace fpconform
