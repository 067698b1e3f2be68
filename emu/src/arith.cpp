// Scalar operations: special cases by IEEE 754-2019 and the NaN policy, then the exact result
// (exact_ops) and the single round_to_format. Semantics: emu/SEMANTICS.md, "Operation semantics".
#include "fpconform/arith.hpp"

#include "fpconform/exact_ops.hpp"

namespace fpconform {

namespace {

// Everything one operation needs: the format, the options, and the flags raised so far by
// the special-case rules (OR-ed into the rounding's flags at the end).
struct Context {
  const Format& f;
  const OpOptions& o;
  const NanPolicy& policy;
  std::uint8_t flags = 0;

  Rounded finish(const ExactValue& exact) {
    Rounded r = round_to_format(exact, f, o.rounding);
    r.flags.raise(flags);
    return r;
  }
  // An operand returned as the result (min/max, roundToInt of inf or zero): re-encoded as
  // decoded, with no rounding, saturation or FTZ and no flag of its own.
  Rounded operand(const ExactValue& v) {
    Rounded r = round_to_format(v, f, Rounding{});
    r.flags.bits = flags;
    return r;
  }
  Rounded default_nan() {
    return finish(ExactValue::quiet_nan(policy.default_negative,
                                        policy.default_payload_ones ? ~0ull : 0));
  }
  Rounded invalid() {
    flags |= Flags::invalid;
    return default_nan();
  }
  // The NaN result when at least one of the operands is NaN: invalid for any signaling one,
  // then the first NaN quieted (propagate) or the default NaN.
  Rounded nan_of(std::initializer_list<const ExactValue*> operands) {
    const ExactValue* first = nullptr;
    for (const ExactValue* v : operands) {
      if (!v->is_nan()) continue;
      if (v->signaling) flags |= Flags::invalid;
      if (!first) first = v;
    }
    if (!policy.propagate) return default_nan();
    ExactValue q = *first;
    q.signaling = false;
    return finish(q);
  }
};

bool any_signaling(std::initializer_list<const ExactValue*> operands) {
  for (const ExactValue* v : operands)
    if (v->is_nan() && v->signaling) return true;
  return false;
}

// The sign of an exact zero sum of two addends (IEEE 754-2019 6.3).
ExactValue zero_sum(bool neg_a, bool neg_b, const Rounding& r) {
  if (neg_a == neg_b) return ExactValue::zero(neg_a);
  return ExactValue::zero(r.mode == RoundingMode::down);
}

Rounded add(Context& c, ExactValue a, ExactValue b) {
  if (a.is_nan() || b.is_nan()) return c.nan_of({&a, &b});
  if (a.is_inf() || b.is_inf()) {
    if (a.is_inf() && b.is_inf() && a.negative != b.negative) return c.invalid();
    return c.finish(a.is_inf() ? a : b);
  }
  if (a.is_zero() && b.is_zero()) return c.finish(zero_sum(a.negative, b.negative, c.o.rounding));
  const ExactValue s = exact_add(a, b);
  if (s.is_zero()) return c.finish(zero_sum(false, true, c.o.rounding));
  return c.finish(s);
}

Rounded mul(Context& c, const ExactValue& a, const ExactValue& b) {
  if (a.is_nan() || b.is_nan()) return c.nan_of({&a, &b});
  const bool neg = a.negative != b.negative;
  if (a.is_inf() || b.is_inf()) {
    if (a.is_zero() || b.is_zero()) return c.invalid();
    return c.finish(ExactValue::infinity(neg));
  }
  if (a.is_zero() || b.is_zero()) return c.finish(ExactValue::zero(neg));
  return c.finish(exact_mul(a, b));
}

Rounded div(Context& c, const ExactValue& a, const ExactValue& b) {
  if (a.is_nan() || b.is_nan()) return c.nan_of({&a, &b});
  const bool neg = a.negative != b.negative;
  if (a.is_inf()) return b.is_inf() ? c.invalid() : c.finish(ExactValue::infinity(neg));
  if (b.is_inf()) return c.finish(ExactValue::zero(neg));
  if (b.is_zero()) {
    if (a.is_zero()) return c.invalid();
    c.flags |= Flags::infinite;
    return c.finish(ExactValue::infinity(neg));
  }
  if (a.is_zero()) return c.finish(ExactValue::zero(neg));
  return c.finish(exact_div(a, b));
}

Rounded sqrt(Context& c, const ExactValue& a) {
  if (a.is_nan()) return c.nan_of({&a});
  if (a.is_zero()) return c.finish(a);
  if (a.negative) return c.invalid();
  if (a.is_inf()) return c.finish(a);
  return c.finish(exact_sqrt(a));
}

Rounded mul_add(Context& c, const ExactValue& a, const ExactValue& b, const ExactValue& z) {
  const bool zero_times_inf =
      (a.is_zero() && b.is_inf()) || (a.is_inf() && b.is_zero());
  if (a.is_nan() || b.is_nan() || z.is_nan()) {
    if (zero_times_inf && c.policy.invalid_for_zero_times_inf_plus_qnan) c.flags |= Flags::invalid;
    return c.nan_of({&a, &b, &z});
  }
  if (zero_times_inf) return c.invalid();
  const bool neg = a.negative != b.negative;
  if (a.is_inf() || b.is_inf()) {
    if (z.is_inf() && z.negative != neg) return c.invalid();
    return c.finish(ExactValue::infinity(neg));
  }
  if (z.is_inf()) return c.finish(z);
  if (a.is_zero() || b.is_zero()) {
    if (z.is_zero()) return c.finish(zero_sum(neg, z.negative, c.o.rounding));
    return c.finish(z);
  }
  const ExactValue r = exact_fma(a, b, z);
  if (r.is_zero()) return c.finish(zero_sum(false, true, c.o.rounding));
  return c.finish(r);
}

Rounded round_to_int(Context& c, const ExactValue& a) {
  if (a.is_nan()) return c.nan_of({&a});
  if (!a.is_finite_nonzero()) return c.operand(a);
  bool inexact = false;
  const ExactValue n = round_to_integral(a, c.o.rounding, inexact);
  if (inexact && c.o.exact_int) c.flags |= Flags::inexact;
  return c.finish(n);
}

// -1, 0, 1 for a < b, a == b, a > b (non-NaN operands; -0 == +0).
int compare(const ExactValue& a, const ExactValue& b) {
  auto sign = [](const ExactValue& v) { return v.is_zero() ? 0 : (v.negative ? -1 : 1); };
  const int sa = sign(a), sb = sign(b);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  int mag;  // compare magnitudes
  if (a.is_inf() || b.is_inf()) {
    mag = a.is_inf() == b.is_inf() ? 0 : (a.is_inf() ? 1 : -1);
  } else {
    const int ea = a.exp + bit_length(a.sig), eb = b.exp + bit_length(b.sig);
    if (ea != eb) {
      mag = ea < eb ? -1 : 1;
    } else {
      // Same leading-bit position: align to the smaller exponent (shifts < 128 bits here).
      const int e = a.exp < b.exp ? a.exp : b.exp;
      const u128 ma = a.sig << (a.exp - e), mb = b.sig << (b.exp - e);
      mag = ma == mb ? 0 : (ma < mb ? -1 : 1);
    }
  }
  return sa * mag;
}

// minimum/maximum(Number): `want_min`, and whether a single NaN yields the number.
Rounded min_max(Context& c, const ExactValue& a, const ExactValue& b, bool want_min,
                bool number) {
  if (a.is_nan() || b.is_nan()) {
    if (number && !(a.is_nan() && b.is_nan())) {
      const ExactValue& nan = a.is_nan() ? a : b;
      if (nan.signaling) c.flags |= Flags::invalid;
      return c.operand(a.is_nan() ? b : a);
    }
    return c.nan_of({&a, &b});
  }
  int order = compare(a, b);
  if (order == 0 && a.is_zero() && b.is_zero() && a.negative != b.negative)
    order = a.negative ? -1 : 1;  // -0 < +0
  const bool pick_a = want_min ? order <= 0 : order >= 0;
  return c.operand(pick_a ? a : b);
}

Rounded comparison(Op op, const ExactValue& a, const ExactValue& b) {
  Rounded r;
  const bool unordered = a.is_nan() || b.is_nan();
  const bool signaling_op = op == Op::le || op == Op::lt || op == Op::eq_signaling;
  if (unordered && (signaling_op || any_signaling({&a, &b}))) r.flags.raise(Flags::invalid);
  if (unordered) return r;
  const int order = compare(a, b);
  bool result = false;
  switch (op) {
    case Op::eq:
    case Op::eq_signaling: result = order == 0; break;
    case Op::le:
    case Op::le_quiet: result = order <= 0; break;
    case Op::lt:
    case Op::lt_quiet: result = order < 0; break;
    default: break;
  }
  r.bits = result ? 1 : 0;
  return r;
}

}  // namespace

Rounded apply_op(Op op, const Format& f, const std::uint64_t* operands, const OpOptions& o) {
  const int arity = op_info(op).arity;
  const bool daz = o.rounding.daz;
  const ExactValue a = decode(operands[0], f, daz);
  const ExactValue b = arity >= 2 ? decode(operands[1], f, daz) : ExactValue{};
  const ExactValue z = arity >= 3 ? decode(operands[2], f, daz) : ExactValue{};
  Context c{f, o, o.nan ? *o.nan : default_nan_policy()};
  switch (op) {
    case Op::add: return add(c, a, b);
    case Op::sub: {
      ExactValue nb = b;
      if (!nb.is_nan()) nb.negative = !nb.negative;
      return add(c, a, nb);
    }
    case Op::mul: return mul(c, a, b);
    case Op::div: return div(c, a, b);
    case Op::sqrt: return sqrt(c, a);
    case Op::mul_add: return mul_add(c, a, b, z);
    case Op::round_to_int: return round_to_int(c, a);
    case Op::minimum: return min_max(c, a, b, true, false);
    case Op::maximum: return min_max(c, a, b, false, false);
    case Op::minimum_number: return min_max(c, a, b, true, true);
    case Op::maximum_number: return min_max(c, a, b, false, true);
    default: return comparison(op, a, b);
  }
}

}  // namespace fpconform
