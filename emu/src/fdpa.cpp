// The fused dot-product-add model (emu/include/fpconform/fdpa.hpp): exact products, alignment
// to the block's largest exponent, truncation to F fraction bits, one exact integer sum, one
// rounding through round_to_format.
#include "fpconform/fdpa.hpp"

#include <algorithm>

#include "fpconform/error.hpp"
#include "fpconform/exact_ops.hpp"

namespace fpconform {

namespace {

using i128 = __int128;

struct Term {
  bool negative = false;
  std::uint64_t sig = 0;  // 0: a zero term
  int lsb = 0;            // weight of sig's last bit
  int lead = 0;           // the exponent the alignment sees (product: ea + eb)
};

// Aligns |t| to the unit 2^u: the integer k with k * 2^u = |t| cut as `mode` says (for `down`,
// toward -inf on the signed value), returned signed.
i128 align(const Term& t, int u, AlignRounding mode) {
  if (t.sig == 0) return 0;
  const int shift = t.lsb - u;
  i128 k;
  bool dropped = false, half = false, above_half = false;
  if (shift >= 0) {
    k = static_cast<i128>(t.sig) << shift;
  } else if (-shift >= 64) {
    k = 0;
    dropped = true;
    half = false;
  } else {
    const int s = -shift;
    k = static_cast<i128>(t.sig >> s);
    const std::uint64_t rem = t.sig & ((1ull << s) - 1), h = 1ull << (s - 1);
    dropped = rem != 0;
    half = rem == h;
    above_half = rem > h;
  }
  switch (mode) {
    case AlignRounding::truncate: break;
    case AlignRounding::nearest_even:
      if (above_half || (half && (k & 1))) k += 1;
      break;
    case AlignRounding::down:
      if (dropped && t.negative) k += 1;
      break;
  }
  return t.negative ? -k : k;
}

// A decoded code as a term whose alignment exponent is that of its leading bit position in the
// format (emin for subnormals).
Term term_of(const ExactValue& v, const Format& f) {
  Term t;
  if (!v.is_finite_nonzero()) return t;
  t.negative = v.negative;
  t.sig = static_cast<std::uint64_t>(v.sig);
  t.lsb = v.exp;
  t.lead = v.exp + f.man_bits;
  return t;
}

std::uint64_t canonical_nan(const Format& out) {
  return round_to_format(ExactValue::quiet_nan(false, ~0ull), out, Rounding{}).bits;
}

// One block: products of a[i] * b[i] and C (a code of `out`).
std::uint64_t block(const FdpaParams& p, const Format& in, const Format& out,
                    std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                    std::uint64_t c_code) {
  const std::size_t n = a.size();
  Term terms[64];
  bool any_nan = false, pos_inf = false, neg_inf = false, any_zero = false;
  for (std::size_t i = 0; i < n; ++i) {
    const ExactValue x = decode(a[i], in, p.flush_subnormal_inputs);
    const ExactValue y = decode(b[i], in, p.flush_subnormal_inputs);
    if (x.is_nan() || y.is_nan()) {
      any_nan = true;
      continue;
    }
    if (x.is_inf() || y.is_inf()) {
      if (x.is_zero() || y.is_zero()) any_nan = true;
      else (x.negative != y.negative ? neg_inf : pos_inf) = true;
      continue;
    }
    if (x.is_zero() || y.is_zero()) {
      any_zero = true;
      continue;
    }
    Term t;
    t.negative = x.negative != y.negative;
    t.sig = static_cast<std::uint64_t>(x.sig * y.sig);
    t.lsb = x.exp + y.exp;
    t.lead = (x.exp + in.man_bits) + (y.exp + in.man_bits);
    terms[i] = t;
  }
  const ExactValue cv = decode(c_code, out, p.flush_subnormal_inputs);
  if (cv.is_nan()) any_nan = true;
  if (cv.is_inf()) (cv.negative ? neg_inf : pos_inf) = true;
  if (any_nan || (pos_inf && neg_inf)) return canonical_nan(out);
  if (pos_inf || neg_inf) return out.inf_code(false) | (neg_inf ? out.sign_mask() : 0);

  const Term ct = term_of(cv, out);
  if (cv.is_zero()) any_zero = any_zero || p.c_in_block;
  int e = INT_MIN;
  for (std::size_t i = 0; i < n; ++i)
    if (terms[i].sig) e = std::max(e, terms[i].lead);
  if (p.c_in_block && ct.sig) e = std::max(e, ct.lead);
  if (any_zero) e = std::max(e, p.zero_exp);

  Rounding r = p.out_rounding;
  r.ftz = p.flush_subnormal_outputs;
  if (e == INT_MIN) {
    // Every term is zero: the IEEE sign of an exact zero sum.
    bool all_negative = cv.is_zero() && cv.negative;
    for (std::size_t i = 0; i < n && all_negative; ++i) {
      const ExactValue x = decode(a[i], in, p.flush_subnormal_inputs);
      const ExactValue y = decode(b[i], in, p.flush_subnormal_inputs);
      all_negative = x.negative != y.negative;
    }
    return round_to_format(ExactValue::zero(all_negative), out, r).bits;
  }
  const int u = e - p.frac_bits;
  i128 sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += align(terms[i], u, p.align);
  ExactValue total;
  if (p.c_in_block) {
    sum += align(ct, u, p.align);
    total = ExactValue::finite(sum < 0, static_cast<u128>(sum < 0 ? -sum : sum), u);
  } else {
    const ExactValue products = ExactValue::finite(sum < 0, static_cast<u128>(sum < 0 ? -sum : sum), u);
    total = exact_add(products, cv);
  }
  if (total.is_zero()) return round_to_format(ExactValue::zero(false), out, r).bits;
  if (p.acc_frac_bits >= 0) {
    // The accumulator: the output's exponent range with acc_frac_bits fraction bits, RZ.
    Format acc = out;
    acc.man_bits = p.acc_frac_bits;
    acc.name = out.name + "-acc";
    Rounding rz = r;
    rz.mode = RoundingMode::rtz;
    const Rounded cut = round_to_format(total, acc, rz);
    total = decode(cut.bits, acc);
  }
  return round_to_format(total, out, r).bits;
}

}  // namespace

std::uint64_t fdpa(const FdpaParams& p, const Format& in, const Format& out,
                   std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                   std::uint64_t c) {
  if (a.size() != b.size())
    throw Error("b", "a has " + std::to_string(a.size()) + " elements, b has " +
                         std::to_string(b.size()));
  if (p.block < 1 || p.block > 64) throw Error("block", "block size must be 1..64");
  std::uint64_t d = c;
  std::size_t k = 0;
  do {
    const std::size_t len = std::min<std::size_t>(p.block, a.size() - k);
    d = block(p, in, out, a.subspan(k, len), b.subspan(k, len), d);
    k += len;
  } while (k < a.size());
  return d;
}

}  // namespace fpconform
