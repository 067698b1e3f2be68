// The oracle for block-scaled quantization, written from the rules' comments
// (emu/core/include/fpconform/core/scale_rule.hpp), not from emu/src/block_scale.cpp.
//
// Independence: values are decoded by the oracle's decode, limits come from the oracle's
// limits/max_finite/min_positive, and every scale and element is rounded once by round_exact.
// It uses only the core: parse_format (the rule's format names) and the data of ScaleRule,
// Format and Rounding.
//
// Exactness: amax, the products X * g and maxf_elem * g are exact in MPFR. Quotients (A / maxf,
// x / (X * g)) are truncated to kQuotientBits bits with a sticky bit appended when inexact; as
// argued in arith.cpp, the sticky value lies strictly inside the same interval between
// consecutive multiples of 2^(q - 65) as the true quotient for every format of <= 64 bits, so
// round_exact rounds it as it would round the true value (flags included).
#include "fpconform/reference/block_scale.hpp"

#include <string>

#include "fpconform/core/error.hpp"
#include "internal.hpp"

namespace fpconform::reference {

namespace {

using u64 = std::uint64_t;

constexpr std::uint8_t kUnderflow = 0x02, kOverflow = 0x04, kInvalid = 0x10;
constexpr mpfr_prec_t kQuotientBits = 160;

struct Vars {
  mpfr_t x, a, tmp, d, q, t, one;
  Vars() {
    mpfr_inits2(kQuotientBits + 1, x, a, tmp, d, q, t, one, static_cast<mpfr_ptr>(nullptr));
  }
  ~Vars() { mpfr_clears(x, a, tmp, d, q, t, one, static_cast<mpfr_ptr>(nullptr)); }
  Vars(const Vars&) = delete;
  Vars& operator=(const Vars&) = delete;
};
Vars& vars() {
  thread_local Vars v;
  return v;
}

// out = a / b (b finite, non-zero), truncated to kQuotientBits bits plus a sticky bit.
// out must have kQuotientBits + 1 bits; t is scratch with kQuotientBits bits.
void div_sticky(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b, mpfr_ptr t) {
  mpfr_set_prec(t, kQuotientBits);
  int tern = mpfr_div(t, a, b, MPFR_RNDZ);
  mpfr_set(out, t, MPFR_RNDN);  // exact: more bits
  if (tern != 0) {
    if (mpfr_sgn(out) > 0) mpfr_nextabove(out);
    else mpfr_nextbelow(out);
  }
}

// Exponent of a positive value's leading bit.
long lead_exp(mpfr_srcptr v) { return static_cast<long>(mpfr_get_exp(v)) - 1; }

QuantizedBlockResult special(const Format& sf, std::size_t n) {
  QuantizedBlockResult r;
  r.scale = round_nan(NanInfo{}, sf).bits;
  r.elements.assign(n, 0);
  r.flags = kInvalid;
  return r;
}

}  // namespace

QuantizedBlockResult quantize_block(std::span<const std::uint64_t> values, const Format& in_format,
                                    const Format& element_format, const ScaleRule& rule,
                                    std::optional<std::uint64_t> tensor_scale) {
  const Format sf = parse_format(rule.scale_format, "scale_format");
  std::optional<Format> tf;
  if (!rule.tensor_scale_format.empty())
    tf = parse_format(rule.tensor_scale_format, "tensor_scale_format");
  if (tf.has_value() != tensor_scale.has_value())
    throw Error("tensor_scale", tf ? "the rule " + rule.name + " needs a tensor scale"
                                   : "the rule " + rule.name + " has no tensor scale");
  detail::RangeGuard guard;
  Vars& V = vars();
  const std::size_t n = values.size();

  // amax, and the special blocks (NaN or infinity anywhere).
  bool is_special = false;
  mpfr_set_zero(V.a, 1);
  for (u64 b : values) {
    if (!decode(V.x, b, in_format, false) || mpfr_inf_p(V.x)) {
      is_special = true;
      break;
    }
    if (mpfr_cmpabs(V.x, V.a) > 0) mpfr_abs(V.a, V.x, MPFR_RNDN);  // exact: a has more bits
  }
  // The tensor scale g (1 when there is none). A NaN or infinite g counts as a special block
  // (the header leaves it open; "a NaN scale makes the whole block NaN").
  mpfr_set_ui(V.one, 1, MPFR_RNDN);
  mpfr_set_prec(V.tmp, 64);
  mpfr_set_ui(V.tmp, 1, MPFR_RNDN);  // g
  if (tf) {
    if (!decode(V.x, *tensor_scale, *tf, false) || mpfr_inf_p(V.x)) is_special = true;
    else mpfr_set_prec(V.tmp, mpfr_get_prec(V.x)), mpfr_set(V.tmp, V.x, MPFR_RNDN);
  }
  if (is_special) return special(sf, n);

  QuantizedBlockResult out;
  out.elements.assign(n, 0);
  const Limits el = limits(element_format);

  // The scale X, as a value in V.d (precision kQuotientBits + 1 holds every scale here).
  bool zero_scale = false;
  switch (rule.choice) {
    case ScaleChoice::floor_log2_minus_emax:
    case ScaleChoice::ceil_pow2_of_ratio: {
      // Range of the powers of two in the scale format: [2^kmin, 2^kmax].
      mpfr_set_prec(V.q, 128);
      min_positive(V.q, sf);
      const long kmin = lead_exp(V.q);
      // (minpos is a power of two in every format)
      max_finite(V.q, sf);
      const long kmax = lead_exp(V.q);
      long k = kmin;
      bool clamped_low = false, too_high = false;
      if (!mpfr_zero_p(V.a)) {
        if (rule.choice == ScaleChoice::floor_log2_minus_emax) {
          k = lead_exp(V.a) - el.emax;
        } else {
          // A / maxf_elem (/ g) rounded up to a power of two: k = ceil(log2 q).
          max_finite(V.q, element_format);
          mpfr_set_prec(V.t, kQuotientBits);
          mpfr_mul(V.d, V.q, V.tmp, MPFR_RNDN);  // maxf * g, exact
          mpfr_set_prec(V.q, kQuotientBits + 1);
          div_sticky(V.q, V.a, V.d, V.t);
          k = lead_exp(V.q);
          if (mpfr_cmp_ui_2exp(V.q, 1, k) != 0) ++k;
        }
        if (k < kmin) k = kmin, clamped_low = true;
        if (k > kmax) too_high = true;
      }
      if (too_high && rule.choice == ScaleChoice::floor_log2_minus_emax) return special(sf, n);
      if (too_high) {  // ceil: saturates at the largest
        k = kmax;
        out.flags |= kOverflow;
      }
      if (clamped_low) out.flags |= kUnderflow;
      mpfr_set_ui_2exp(V.d, 1, k, MPFR_RNDN);
      const OracleResult s = round_exact(V.d, sf, Rounding{});
      out.scale = s.bits;
      out.flags |= static_cast<std::uint8_t>(s.flags & kInvalid);
      break;
    }
    case ScaleChoice::ratio: {
      mpfr_set_prec(V.q, 128);
      max_finite(V.q, element_format);
      mpfr_mul(V.d, V.q, V.tmp, MPFR_RNDN);  // maxf * g, exact
      mpfr_set_prec(V.q, kQuotientBits + 1);
      if (mpfr_zero_p(V.a)) mpfr_set_zero(V.q, 1);
      else div_sticky(V.q, V.a, V.d, V.t);
      Rounding r;
      r.mode = rule.scale_mode;
      r.sat = Saturation::finite;
      const OracleResult s = round_exact(V.q, sf, r);
      out.scale = s.bits;
      out.flags |= s.flags;
      const CodeClass c = classify(s.bits, sf);
      if (c == CodeClass::nan || c == CodeClass::inf) {
        // Not reachable with a saturating rounding of a finite value; a NaN scale makes the
        // block NaN.
        for (auto& e : out.elements) e = 0;
        return out;
      }
      if (c == CodeClass::zero) zero_scale = true;
      else decode(V.d, s.bits, sf, false);
      mpfr_set_prec(V.q, 128);
      mpfr_set(V.q, V.d, MPFR_RNDN);
      mpfr_set_prec(V.d, kQuotientBits + 1);
      mpfr_set(V.d, V.q, MPFR_RNDN);
      break;
    }
  }
  if (zero_scale) return out;  // element codes +0

  // Divisor X * g, exact (X and g have <= 64 bits each).
  mpfr_set_prec(V.q, kQuotientBits + 1);
  mpfr_mul(V.q, V.d, V.tmp, MPFR_RNDN);
  mpfr_set_prec(V.a, kQuotientBits + 1);
  mpfr_set(V.a, V.q, MPFR_RNDN);
  Rounding er;
  er.mode = rule.element_mode;
  er.sat = rule.element_sat;
  mpfr_set_prec(V.q, kQuotientBits + 1);
  for (std::size_t i = 0; i < n; ++i) {
    decode(V.x, values[i], in_format, false);
    div_sticky(V.q, V.x, V.a, V.t);
    const OracleResult e = round_exact(V.q, element_format, er);
    out.elements[i] = e.bits;
    out.flags |= e.flags;
  }
  return out;
}

}  // namespace fpconform::reference
