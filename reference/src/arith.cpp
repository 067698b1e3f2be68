// The oracle for scalar operations, written from emu/SEMANTICS.md ("Operation semantics").
//
// Independence: operands are decoded by the oracle's own decode (oracle.cpp), NaN results are
// built with nan_info/round_nan, and every number result goes through round_exact. MPFR
// computes the value: sums, products and a*b + c exactly (the precision is chosen from the
// operands' exponents so that nothing is lost), quotients and square roots truncated to
// p + 70 bits with a sticky bit appended when inexact. Nothing here calls emu/ beyond reading
// the data of Format, Rounding, Op, OpOptions and NanPolicy (and default_nan_policy(), a
// table lookup).
//
// Why p + 70 bits and a sticky bit are enough for quotients and square roots: let e be the
// exponent of the exact result x and q >= e - m the grid of its rounding (SEMANTICS.md step 1;
// the unbounded rounding used for tininess has q = e - m). Every decision round_exact takes
// compares the dropped fraction of 2^q with multiples of 2^-65 (stochastic modes with n <= 64
// random bits; RNE(f 2^n) has its ties at half integers), so it depends only on which interval
// between consecutive multiples of 2^(q - 65) holds x, or whether x sits on one of them.
// Truncating to P = m + 71 bits gives t, a multiple of 2^(e - m - 70), with t <= |x| < t +
// 2^(e - m - 70); inexact means t < |x|, and then t + 2^(e - m - 71) (the sticky bit) lies in
// the same open interval (t, t + 2^(e - m - 70)) as |x|, which no multiple of the coarser
// 2^(q - 65) can cut. So the value handed to round_exact rounds as x would, in every mode.
#include "fpconform/reference/arith.hpp"

#include <algorithm>
#include <string>

#include "fpconform/core/error.hpp"
#include "internal.hpp"

namespace fpconform::reference {

namespace {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

constexpr std::uint8_t kInexact = 0x01, kInfinite = 0x08, kInvalid = 0x10;

// Extra bits for quotients and square roots beyond the format's precision (see above).
constexpr mpfr_prec_t kGuardBits = 70;

// Per-thread MPFR scratch for this file (oracle.cpp's scratch is used by round_exact, so
// nothing here may live in it across a round_exact call).
struct ArithScratch {
  mpfr_t v[3];  // decoded operands
  mpfr_t prod;  // a * b for mulAdd
  mpfr_t res;   // the exact (or truncated-with-sticky) result
  mpfr_t frac, g, t, c;  // roundToInt's dropped fraction and the stochastic comparisons
  ArithScratch() {
    for (mpfr_ptr p : {v[0], v[1], v[2], prod, res, frac, g, t, c}) mpfr_init2(p, 64);
  }
  ~ArithScratch() {
    for (mpfr_ptr p : {v[0], v[1], v[2], prod, res, frac, g, t, c}) mpfr_clear(p);
  }
  ArithScratch(const ArithScratch&) = delete;
  ArithScratch& operator=(const ArithScratch&) = delete;
};

ArithScratch& arith_scratch() {
  thread_local ArithScratch s;
  return s;
}

int arity(Op op) {
  switch (op) {
    case Op::sqrt:
    case Op::round_to_int: return 1;
    case Op::mul_add: return 3;
    default: return 2;
  }
}

bool is_comparison(Op op) {
  switch (op) {
    case Op::eq:
    case Op::le:
    case Op::lt:
    case Op::eq_signaling:
    case Op::le_quiet:
    case Op::lt_quiet: return true;
    default: return false;
  }
}

bool is_stochastic_mode(RoundingMode m) {
  switch (m) {
    case RoundingMode::stochastic_a:
    case RoundingMode::stochastic_b:
    case RoundingMode::stochastic_c:
    case RoundingMode::stochastic_exact: return true;
    default: return false;
  }
}

OracleResult with_flags(OracleResult r, std::uint8_t flags) {
  r.flags = static_cast<std::uint8_t>(r.flags | flags);
  return r;
}

// The policy's default NaN in f: quiet, sign default_negative, payload all ones or zero. In a
// format without NaN, round_nan applies conversion step 1 (+0 with invalid).
OracleResult default_nan(const NanPolicy& p, const Format& f) {
  NanInfo n;
  n.negative = p.default_negative;
  n.signaling = false;
  n.payload = p.default_payload_ones ? ~u64{0} : 0;
  return round_nan(n, f);
}

// The NaN result when the NaN operand `bits` decides it: under propagate that operand, quiet,
// with its sign and payload; otherwise the default NaN. The invalid flag of a signaling
// operand is the caller's business (any signaling operand raises it, chosen or not).
OracleResult nan_from_operand(u64 bits, const Format& f, const NanPolicy& p) {
  if (!p.propagate) return default_nan(p, f);
  NanInfo n = nan_info(bits, f);
  n.signaling = false;
  return round_nan(n, f);
}

void set_prec_if(mpfr_ptr v, mpfr_prec_t p) {
  if (mpfr_get_prec(v) != p) mpfr_set_prec(v, p);
}

// r = a + b exactly (a, b finite; a zero operand gives the other one).
void exact_add(mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b) {
  if (mpfr_zero_p(a) || mpfr_zero_p(b)) {
    mpfr_srcptr x = mpfr_zero_p(a) ? b : a;
    set_prec_if(r, std::max<mpfr_prec_t>(mpfr_get_prec(x), 2));
    mpfr_set(r, x, MPFR_RNDN);
    return;
  }
  // The sum's bits lie between the larger leading position (plus a carry) and the smaller
  // last position of the two significands.
  const mpfr_exp_t ea = mpfr_get_exp(a), eb = mpfr_get_exp(b);
  const mpfr_exp_t hi = std::max(ea, eb) + 1;
  const mpfr_exp_t lo = std::min<mpfr_exp_t>(ea - mpfr_get_prec(a), eb - mpfr_get_prec(b));
  set_prec_if(r, std::max<mpfr_prec_t>(hi - lo, 2));
  mpfr_add(r, a, b, MPFR_RNDN);  // exact by construction
}

// r = a * b exactly (both finite).
void exact_mul(mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b) {
  set_prec_if(r, mpfr_get_prec(a) + mpfr_get_prec(b));
  mpfr_mul(r, a, b, MPFR_RNDN);
}

// After a truncated (RNDZ) computation with ternary value `ternary`: if inexact, append one
// bit set below the truncated significand (a sticky bit), moving r strictly inside the
// truncation interval that holds the exact value.
void append_sticky(mpfr_ptr r, int ternary) {
  if (ternary == 0) return;
  mpfr_prec_round(r, mpfr_get_prec(r) + 1, MPFR_RNDN);  // widening: exact, new bit zero
  if (mpfr_signbit(r)) mpfr_nextbelow(r);
  else mpfr_nextabove(r);
}

// c = v exactly (c has >= 130 bits).
void set_u128(mpfr_ptr c, u128 v) {
  mpfr_set_ui_2exp(c, static_cast<unsigned long>(v >> 64), 64, MPFR_RNDN);
  mpfr_add_ui(c, c, static_cast<unsigned long>(v), MPFR_RNDN);
}

// roundToInt's decision: move |x| from floor(|x|) = k up to k + 1? `frac` is the exact
// dropped fraction f in (0, 1); k_odd is k's parity. The definitions are the conversion
// rules' step 2 on the grid of integers.
bool int_away(ArithScratch& S, const Rounding& r, bool neg, bool k_odd) {
  using M = RoundingMode;
  switch (r.mode) {
    case M::rne: {
      const int c = mpfr_cmp_ui_2exp(S.frac, 1, -1);
      return c > 0 || (c == 0 && k_odd);
    }
    case M::rna: return mpfr_cmp_ui_2exp(S.frac, 1, -1) >= 0;
    case M::rtz: return false;
    case M::up: return !neg;
    case M::down: return neg;
    case M::odd: return !k_odd;
    default: break;
  }
  const int n = r.stochastic_bits;  // checked to be 0..64
  const u128 rnd = n == 64 ? u128{r.random} : u128{r.random & ((u64{1} << n) - 1)};
  const u128 two_n = u128{1} << n;
  set_prec_if(S.g, mpfr_get_prec(S.frac) + 1);
  mpfr_mul_2si(S.g, S.frac, n, MPFR_RNDN);  // g = f * 2^n, exact
  set_prec_if(S.c, 136);
  switch (r.mode) {
    case M::stochastic_a: {  // RNE(f 2^n) + r >= 2^n
      set_prec_if(S.t, std::max<mpfr_prec_t>(mpfr_get_prec(S.g), 72));
      mpfr_rint(S.t, S.g, MPFR_RNDN);  // an integer <= 2^64: exact in >= 72 bits
      set_u128(S.c, two_n - rnd);
      return mpfr_cmp(S.t, S.c) >= 0;
    }
    case M::stochastic_b: {  // f + (r + 1/2) 2^-n >= 1  <=>  2g >= 2^(n+1) - 2r - 1
      mpfr_mul_2ui(S.g, S.g, 1, MPFR_RNDN);
      set_u128(S.c, 2 * two_n - 2 * rnd - 1);
      return mpfr_cmp(S.g, S.c) >= 0;
    }
    case M::stochastic_c: {  // floor(g) + r >= 2^n  <=>  g >= 2^n - r (an integer)
      set_u128(S.c, two_n - rnd);
      return mpfr_cmp(S.g, S.c) >= 0;
    }
    case M::stochastic_exact: {  // r < g
      set_u128(S.c, rnd);
      return mpfr_cmp(S.g, S.c) > 0;
    }
    default: break;
  }
  return false;
}

// A signed zero (an exact zero result), rounded like any zero.
OracleResult round_zero(ArithScratch& S, bool neg, const Format& f, const Rounding& r) {
  set_prec_if(S.res, 2);
  mpfr_set_zero(S.res, neg ? -1 : 1);
  return round_exact(S.res, f, r);
}

OracleResult round_inf(ArithScratch& S, bool neg, const Format& f, const Rounding& r) {
  set_prec_if(S.res, 2);
  mpfr_set_inf(S.res, neg ? -1 : 1);
  return round_exact(S.res, f, r);
}

// The sign of an exact zero sum whose addends had signs sa, sb (when both addends are zeros)
// or that cancelled (both_zero = false): SEMANTICS.md step 5.
bool zero_sum_sign(bool both_zero, bool sa, bool sb, const Rounding& r) {
  if (both_zero && sa == sb) return sa;
  return r.mode == RoundingMode::down;
}

}  // namespace

OracleResult apply_op(Op op, const Format& f, const std::uint64_t* operands, const OpOptions& o) {
  detail::RangeGuard guard;
  const NanPolicy& pol = o.nan ? *o.nan : default_nan_policy();
  const Rounding& R = o.rounding;
  ArithScratch& S = arith_scratch();
  const int n = arity(op);
  const bool cmp = is_comparison(op);
  const bool minmax = op == Op::minimum || op == Op::maximum || op == Op::minimum_number ||
                      op == Op::maximum_number;
  if (!cmp && !minmax && is_stochastic_mode(R.mode) &&
      (R.stochastic_bits < 0 || R.stochastic_bits > 64))
    throw Error("rounding", "stochastic_bits must be 0..64, got " + std::to_string(R.stochastic_bits));

  bool isnan[3] = {false, false, false}, snan[3] = {false, false, false};
  int first_nan = -1;
  bool any_snan = false;
  for (int i = 0; i < n; ++i) {
    isnan[i] = !decode(S.v[i], operands[i], f, R.daz, &snan[i]);
    if (isnan[i] && first_nan < 0) first_nan = i;
    any_snan = any_snan || snan[i];
  }
  const bool any_nan = first_nan >= 0;
  const std::uint8_t snan_flag = any_snan ? kInvalid : 0;
  mpfr_ptr a = S.v[0];
  mpfr_ptr b = S.v[1];
  mpfr_ptr c = S.v[2];

  // ---- comparisons ----
  if (cmp) {
    if (any_nan) {
      const bool signaling_pred = op == Op::le || op == Op::lt || op == Op::eq_signaling;
      return {0, static_cast<std::uint8_t>(signaling_pred ? kInvalid : snan_flag)};
    }
    bool res = false;
    switch (op) {
      case Op::eq:
      case Op::eq_signaling: res = mpfr_equal_p(a, b) != 0; break;
      case Op::le:
      case Op::le_quiet: res = mpfr_lessequal_p(a, b) != 0; break;
      case Op::lt:
      case Op::lt_quiet: res = mpfr_less_p(a, b) != 0; break;
      default: break;
    }
    return {res ? u64{1} : u64{0}, 0};
  }

  // ---- minimum, maximum, minimumNumber, maximumNumber ----
  if (minmax) {
    // The chosen operand as decoded: its code, or (a DAZ-flushed subnormal) the zero of its
    // sign, re-encoded without flags.
    auto chosen = [&](int i) -> OracleResult {
      if (mpfr_zero_p(S.v[i]) && classify(operands[i], f) != CodeClass::zero) {
        const OracleResult z = round_exact(S.v[i], f, R);
        return {z.bits, snan_flag};
      }
      return {operands[i], snan_flag};
    };
    const bool number = op == Op::minimum_number || op == Op::maximum_number;
    if (any_nan) {
      if (number && !(isnan[0] && isnan[1])) return chosen(isnan[0] ? 1 : 0);
      return with_flags(nan_from_operand(operands[first_nan], f, pol), snan_flag);
    }
    int order = mpfr_cmp(a, b);
    if (order == 0 && mpfr_zero_p(a)) {  // -0 below +0
      const bool na = mpfr_signbit(a) != 0, nb = mpfr_signbit(b) != 0;
      order = na == nb ? 0 : (na ? -1 : 1);
    }
    const bool want_min = op == Op::minimum || op == Op::minimum_number;
    const bool pick_a = want_min ? order <= 0 : order >= 0;
    return chosen(pick_a ? 0 : 1);
  }

  // ---- NaN operands of the arithmetic operations (mulAdd's 0 * inf + qNaN aside) ----
  if (op == Op::mul_add) {
    if (isnan[0] || isnan[1])
      return with_flags(nan_from_operand(operands[first_nan], f, pol), snan_flag);
    const bool zero_times_inf =
        (mpfr_zero_p(a) && mpfr_inf_p(b)) || (mpfr_inf_p(a) && mpfr_zero_p(b));
    if (zero_times_inf) {
      if (isnan[2] && !snan[2]) {
        const std::uint8_t fl = pol.invalid_for_zero_times_inf_plus_qnan ? kInvalid : 0;
        return with_flags(nan_from_operand(operands[2], f, pol), fl);
      }
      if (!isnan[2]) return with_flags(default_nan(pol, f), kInvalid);
    }
    if (isnan[2]) return with_flags(nan_from_operand(operands[2], f, pol), snan_flag);
  } else if (any_nan) {
    return with_flags(nan_from_operand(operands[first_nan], f, pol), snan_flag);
  }

  switch (op) {
    // ---- add, sub ----
    case Op::add:
    case Op::sub: {
      if (op == Op::sub) mpfr_neg(b, b, MPFR_RNDN);
      const bool sa = mpfr_signbit(a) != 0, sb = mpfr_signbit(b) != 0;
      if (mpfr_inf_p(a) && mpfr_inf_p(b) && sa != sb) return with_flags(default_nan(pol, f), kInvalid);
      if (mpfr_inf_p(a)) return round_exact(a, f, R);
      if (mpfr_inf_p(b)) return round_exact(b, f, R);
      if (mpfr_zero_p(a) && mpfr_zero_p(b)) return round_zero(S, zero_sum_sign(true, sa, sb, R), f, R);
      exact_add(S.res, a, b);
      if (mpfr_zero_p(S.res)) return round_zero(S, zero_sum_sign(false, sa, sb, R), f, R);
      return round_exact(S.res, f, R);
    }

    // ---- mul ----
    case Op::mul: {
      const bool neg = (mpfr_signbit(a) != 0) != (mpfr_signbit(b) != 0);
      const bool za = mpfr_zero_p(a), zb = mpfr_zero_p(b), ia = mpfr_inf_p(a), ib = mpfr_inf_p(b);
      if ((za && ib) || (ia && zb)) return with_flags(default_nan(pol, f), kInvalid);
      if (ia || ib) return round_inf(S, neg, f, R);
      if (za || zb) return round_zero(S, neg, f, R);
      exact_mul(S.res, a, b);
      return round_exact(S.res, f, R);
    }

    // ---- div ----
    case Op::div: {
      const bool neg = (mpfr_signbit(a) != 0) != (mpfr_signbit(b) != 0);
      const bool za = mpfr_zero_p(a), zb = mpfr_zero_p(b), ia = mpfr_inf_p(a), ib = mpfr_inf_p(b);
      if ((za && zb) || (ia && ib)) return with_flags(default_nan(pol, f), kInvalid);
      if (ia) return round_inf(S, neg, f, R);  // inf / finite (zero included): no flag
      if (ib) return round_zero(S, neg, f, R);
      if (zb) return with_flags(round_inf(S, neg, f, R), kInfinite);
      if (za) return round_zero(S, neg, f, R);
      set_prec_if(S.res, f.man_bits + 1 + kGuardBits);
      append_sticky(S.res, mpfr_div(S.res, a, b, MPFR_RNDZ));
      return round_exact(S.res, f, R);
    }

    // ---- sqrt ----
    case Op::sqrt: {
      if (mpfr_signbit(a) && !mpfr_zero_p(a)) return with_flags(default_nan(pol, f), kInvalid);
      if (mpfr_inf_p(a) || mpfr_zero_p(a)) return round_exact(a, f, R);  // +inf, +-0
      set_prec_if(S.res, f.man_bits + 1 + kGuardBits);
      append_sticky(S.res, mpfr_sqrt(S.res, a, MPFR_RNDZ));
      return round_exact(S.res, f, R);
    }

    // ---- mulAdd (NaN operands and 0 * inf handled above) ----
    case Op::mul_add: {
      const bool sp = (mpfr_signbit(a) != 0) != (mpfr_signbit(b) != 0);  // the product's sign
      const bool sc = mpfr_signbit(c) != 0;
      const bool pinf = mpfr_inf_p(a) || mpfr_inf_p(b);
      if (pinf && mpfr_inf_p(c) && sp != sc) return with_flags(default_nan(pol, f), kInvalid);
      if (pinf) return round_inf(S, sp, f, R);
      if (mpfr_inf_p(c)) return round_exact(c, f, R);
      const bool pzero = mpfr_zero_p(a) || mpfr_zero_p(b);
      if (pzero && mpfr_zero_p(c)) return round_zero(S, zero_sum_sign(true, sp, sc, R), f, R);
      if (pzero) return round_exact(c, f, R);
      exact_mul(S.prod, a, b);
      exact_add(S.res, S.prod, c);
      if (mpfr_zero_p(S.res)) return round_zero(S, zero_sum_sign(false, sp, sc, R), f, R);
      return round_exact(S.res, f, R);
    }

    // ---- roundToInt ----
    case Op::round_to_int: {
      if (mpfr_inf_p(a)) return {operands[0], 0};            // unchanged, no flag
      if (mpfr_zero_p(a)) return {round_exact(a, f, R).bits, 0};  // the zero (of its sign)
      const bool neg = mpfr_signbit(a) != 0;
      bool exact = true;
      if (mpfr_integer_p(a)) {
        set_prec_if(S.res, mpfr_get_prec(a));
        mpfr_set(S.res, a, MPFR_RNDN);
      } else {
        // Not an integer: |x| < 2^62 (at most 63 significant bits), so k = floor(|x|) fits.
        set_prec_if(S.res, std::max<mpfr_prec_t>(mpfr_get_prec(a), 64));
        mpfr_abs(S.res, a, MPFR_RNDN);
        set_prec_if(S.frac, mpfr_get_prec(S.res));
        mpfr_frac(S.frac, S.res, MPFR_RNDN);  // exact: no more bits than |x|
        const unsigned long k = mpfr_get_ui(S.res, MPFR_RNDZ);
        const bool away = int_away(S, R, neg, (k & 1) != 0);
        exact = false;
        mpfr_set_ui(S.res, k + (away ? 1 : 0), MPFR_RNDN);  // exact in >= 64 bits
        if (neg) mpfr_neg(S.res, S.res, MPFR_RNDN);         // a zero n keeps x's sign
      }
      const OracleResult r = round_exact(S.res, f, R);
      return with_flags(r, !exact && o.exact_int ? kInexact : 0);
    }

    default: break;
  }
  throw Error("op", "reference::apply_op: unknown operation");
}

}  // namespace fpconform::reference
