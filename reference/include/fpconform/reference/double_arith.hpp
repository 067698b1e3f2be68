// The double-arithmetic reference for the scalar operations (add, sub, mul, div, sqrt, mulAdd,
// roundToInt, minimum/maximum(Number), comparisons), written from emu/SEMANTICS.md
// ("Operation semantics") with double arithmetic. It uses no emu code (no decode, exact_ops,
// round_to_format or apply_op; only default_nan_policy(), as the MPFR oracle does) and not the
// MPFR oracle; it reads only a Format's data fields (through dref::Target) and the data of Op,
// OpOptions and NanPolicy. The final rounding is
// double_convert.hpp's round_finite (itself checked against MPFR for conversions).
//
// Scope: formats whose every value, every product of two values and every quotient of two
// values is a normal double with room to spare (see `supports`): f16, bf16, tf32, f32 and all
// formats of <= 8 bits. Stochastic modes only with stochastic_bits <= 51 - p.
//
// ---- Why the result is exact (the proof) -----------------------------------------------------
// Let p <= 24 be the format's precision and emin - m >= -149, emax < 128 (f32 is the widest
// case; `supports` checks the general condition 2p <= 53 and the exponent bounds below).
// Every operand value v is k * 2^j with |k| < 2^p, j >= emin - m >= -149, |v| < 2^128.
//
// Round-to-odd (RO) at 53 bits: RO(x) = x if x is a double, otherwise the one of the two
// doubles around x whose last significand bit is 1. Boldo & Melquiond ("Emulation of FMA and
// correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008), theorem 1:
// for any precision p' <= 53 - 2, rounding RO(x) to p' bits in any of rne/rna/rtz/up/down/odd
// gives the same result as rounding x directly; the target's grid (normal or subnormal, q
// from SEMANTICS.md) is a p'-bit grid with p' <= p, so this holds for the whole range, as
// long as RO(x) itself is computed without double underflow (x >= 2^-1022 * 2^53 below).
// The stochastic modes read the dropped fraction f to n + 1 bits plus "is anything below
// non-zero": RO(x) keeps 52 - p exact bits of f and a sticky bit after them, so they are
// decided correctly iff n + 1 <= 52 - p, i.e. n <= 51 - p (`supports`). Tininess before
// rounding compares RO(x) with 2^emin: RO preserves doubles and never lands on one that x is
// not (an inexact RO(x) has an odd significand, 2^emin an even one), so RO(x) < 2^emin iff
// x < 2^emin. Tininess after rounding rounds to p bits: covered by the theorem.
//
// Computing RO(x) from s = RN(x) (the hardware rounding, ties to even) and the sign of the
// exact error x - s: if x = s, RO = s; if s's last bit is odd, RO = s (the truncation of x
// is s or its even neighbour toward zero, whose odd successor is s); else RO is s's neighbour
// toward x (std::nextafter; at a binade boundary the neighbour below a power of two is the
// all-ones significand, odd, still the truncation of x since |x - s| <= ulp_below/2).
//   add/sub: TwoSum(a, b) = (s, e) with s + e = a + b exactly; the error of a rounded-to-
//     nearest addition is always a double (Knuth, Moller; holds with gradual underflow too),
//     and |a|, |b| < 2^128 cannot overflow.
//   mul: |k_a k_b| < 2^(2p) <= 2^53 and the exponent >= 2(emin - m) >= -298 > -1074: the
//     double product is exact.
//   div: q = RN(a / b); r = fma(-q, b, a) is exactly a - q b (Bohlender, Walter, Kornerup,
//     Matula 1991: the remainder of a correctly rounded quotient is representable, given no
//     underflow: r is a multiple of 2^(e_q - 52 + (emin - m)) >= 2^-1074 since |q| >=
//     minpos / maxf >= 2^-277). a / b - q has the sign of r * b.
//   sqrt: s = RN(sqrt(a)); r = fma(-s, s, a) is exactly a - s^2 (same theorem for square
//     roots; r is a multiple of 2^(2(e_s - 52)) with e_s >= -75). sqrt(a) - s has r's sign.
//   mulAdd: the product P = a b is an exact double (mul above); TwoSum(P, c) gives s + e =
//     P + c exactly (an addition error is always a double; |P| < 2^256 does not overflow).
//     So the three-term sum is exact as a two-term sum: no TwoProduct is needed for p <= 26.
//   roundToInt, min/max, comparisons: only exact double operations on operand values.
// The exponent conditions used: 2(emin - m) >= -1022 + 53 + 2 (products, remainders and RO
// stay above double's subnormal range) and 2(emax + 1) <= 1000 (products and quotients stay
// finite). `supports` checks them from the format's data.
//
// Speed (the 2^32-pair sweeps call this ~10^11 times): codes of formats of <= 16 bits are
// decoded once into a shared table; the final rounding of a value >= 2^emin that does not
// overflow, in a deterministic mode, is done on the double's bits (round_normal: neither tiny
// nor overflowing, so FTZ, tininess and saturation cannot matter); every other case goes to
// dref::round_finite. round_normal is checked against round_finite on random and tie-shaped
// doubles (reference/tests/double_oracle_test.cpp and tools/engines/conformance arith_oracle_test),
// and the whole reference against MPFR in both.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "fpconform/reference/arith.hpp"  // Op, OpOptions, NanPolicy (data types only)
#include "fpconform/reference/double_convert.hpp"

namespace fpconform::dref {

#ifndef OPREF_TABLE
#define OPREF_TABLE 1
#endif
constexpr bool kUseTable = OPREF_TABLE;

// Whether this reference is exact for `f` (see the proof above).
inline bool supports_format(const Format& f) {
  const int p = f.man_bits + 1;
  const int emin = (f.subnormals ? 1 : 0) - f.bias;
  const int lowest = f.subnormals ? emin - f.man_bits : emin;
  const int emax_bound = (1 << f.exp_bits) - f.bias;  // >= exponent of maxf + 1
  return 2 * p <= 53 && 2 * lowest >= -1022 + 55 && 2 * (emax_bound + 1) <= 1000;
}
// ... and for this rounding (stochastic modes: n <= 51 - p).
inline bool supports(const Format& f, const Rounding& r) {
  if (!supports_format(f)) return false;
  const bool stochastic = r.mode == RoundingMode::stochastic_a || r.mode == RoundingMode::stochastic_b ||
                          r.mode == RoundingMode::stochastic_c ||
                          r.mode == RoundingMode::stochastic_exact;
  if (stochastic) return r.stochastic_bits <= 51 - (f.man_bits + 1);
  return true;
}

// An operand, decoded from the format's data fields.
struct Val {
  double mag = 0;  // finite: |value|, exact
  // NaN: the bits below the quiet bit, left-aligned in 64 bits; only the top m - 1 <= 24 can
  // be non-zero (supports_format: 2p <= 53), so the top 32 are kept.
  std::uint32_t payload_hi = 0;
  enum Kind : std::uint8_t { zero, finite, inf, nan } kind = zero;
  bool neg = false;
  bool signaling = false;
  double value() const { return neg ? -mag : mag; }
  u64 payload() const { return static_cast<u64>(payload_hi) << 32; }
};
static_assert(sizeof(Val) == 16);

// The context of one (format, options) pair: decoded once, reused for many operands.
class Context {
 public:
  Context(const Format& f, const OpOptions& o)
      : t_(make_target(f)), r_(o.rounding),
        P_(o.nan ? *o.nan : default_nan_policy()), exact_int_(o.exact_int) {
    fast_mode_ = r_.mode == RoundingMode::rne || r_.mode == RoundingMode::rna ||
                 r_.mode == RoundingMode::rtz || r_.mode == RoundingMode::up ||
                 r_.mode == RoundingMode::down || r_.mode == RoundingMode::odd;
    const int width = (f.is_signed ? 1 : 0) + f.exp_bits + f.man_bits;
    if (width <= 16 && kUseTable) {
      table_ = decode_table(f, t_, r_.daz);
      values_ = value_table(f, t_, r_.daz);
      memo_ = std::make_shared<RowMemo>();
      // Any finite value above maxf rounds to the same overflow result (round_finite).
      overflow_[0] = round_value(4 * t_.maxf);
      overflow_[1] = round_value(-4 * t_.maxf);
    }
  }

  const Target& target() const { return t_; }
  const Rounding& rounding() const { return r_; }
  void set_random(u64 random) { r_.random = random; }

  Val decode(u64 bits) const {
    if (table_) return (*table_)[bits];
    return decode_slow(t_, r_.daz, bits);
  }

  // For formats of <= 16 bits, every code decoded once per (format, daz), shared.
  static std::shared_ptr<const std::vector<Val>> decode_table(const Format& f, const Target& t,
                                                              bool daz);

  // The signed value of every code of a <= 16-bit format as a double, for the row form
  // (apply_row): finite non-zero codes exactly, every other code (zero, inf, NaN, a DAZ-flushed
  // subnormal) a quiet NaN, so that any arithmetic on it gives a NaN. Shared like decode_table.
  static std::shared_ptr<const std::vector<double>> value_table(const Format& f, const Target& t,
                                                                bool daz);
  static std::string table_key(const Format& f, bool daz);

  static Val decode_slow(const Target& t, bool daz, u64 bits) {
    Val v;
    v.neg = (bits & t.sign_bit) != 0;
    const u64 mag = bits & t.mag_all;
    const u64 E = mag >> t.m, T = mag & ((u64{1} << t.m) - 1);
    // NaN codes first (SEMANTICS.md "Formats": special codes are checked first).
    bool is_nan = false;
    switch (t.nan) {
      case NanEncoding::ieee: is_nan = E == t.exp_all && T != 0; break;
      case NanEncoding::all_ones: is_nan = mag == t.mag_all; break;
      case NanEncoding::negative_zero: is_nan = bits == t.sign_bit; break;
      case NanEncoding::max_code: is_nan = bits == t.code_all; break;
      case NanEncoding::none: break;
    }
    bool is_inf = false;
    if (!is_nan) {
      if (t.inf == InfEncoding::ieee) is_inf = E == t.exp_all && T == 0;
      else if (t.inf == InfEncoding::top_code) is_inf = mag == t.inf_mag;
      // A reserved all-ones exponent field without meaning (custom formats): a quiet NaN.
      if (!is_inf && t.reserve_top && E == t.exp_all) is_nan = true;
    }
    if (is_nan) {
      v.kind = Val::nan;
      if (t.nan == NanEncoding::ieee && t.m >= 1 && E == t.exp_all && T != 0) {
        const u64 q = u64{1} << (t.m - 1);
        v.signaling = (T & q) == 0;
        if (t.m >= 2)
          v.payload_hi = static_cast<std::uint32_t>(((T & (q - 1)) << (64 - (t.m - 1))) >> 32);
      }
      // Signed NaN encodings (ieee, all_ones) keep the sign; the single NaN of negative_zero
      // and max_code formats counts as positive.
      if (t.nan == NanEncoding::negative_zero || t.nan == NanEncoding::max_code)
        v.neg = false;
      return v;
    }
    if (is_inf) {
      v.kind = Val::inf;
      return v;
    }
    if (t.has_zero && mag == 0) {
      v.kind = Val::zero;
      return v;
    }
    if (daz && t.subnormals && E == 0 && t.has_zero) {  // subnormal read as zero
      v.kind = Val::zero;
      return v;
    }
    v.kind = Val::finite;
    // The value k * 2^j (exact: k < 2^53, j within double's normal range by supports_format).
    if (E == 0 && t.subnormals) v.mag = scale(static_cast<double>(T), 1 - t.bias - t.m);
    else
      v.mag = scale(static_cast<double>((u64{1} << t.m) + T),
                             static_cast<int>(E) - t.bias - t.m);
    return v;
  }

  // ---- results --------------------------------------------------------------------------------
  // The default NaN (SEMANTICS.md "NaN results"); +0 with invalid in a format without NaN.
  Result default_nan(std::uint8_t flags) const {
    if (t_.nan == NanEncoding::none) return {0, static_cast<std::uint8_t>(flags | kInv)};
    return {nan_code(t_, P_.default_negative, P_.default_payload_ones ? ~u64{0} : 0),
            flags};
  }
  Result invalid(std::uint8_t flags = 0) const { return default_nan(flags | kInv); }
  // NaN result when some operand is NaN: invalid for any signaling one; the first NaN
  // (propagate, quieted) or the default NaN.
  Result nan_of(const Val* const* ops, int n, std::uint8_t flags = 0) const {
    const Val* first = nullptr;
    for (int i = 0; i < n; ++i) {
      if (ops[i]->kind != Val::nan) continue;
      if (ops[i]->signaling) flags |= kInv;
      if (!first) first = ops[i];
    }
    if (!P_.propagate) return default_nan(flags);
    return {nan_code(t_, first->neg, first->payload()), flags};
  }
  // Rounding a zero (conversion rules, step 4).
  Result round_zero(bool neg, std::uint8_t flags = 0) const {
    if (!t_.has_zero) return {t_.minpos_mag, static_cast<std::uint8_t>(flags | kUf | kIx)};
    return zero_result(t_, neg, flags);
  }
  // Rounding an infinity (steps 2 and 3).
  Result round_inf(bool neg, std::uint8_t flags = 0) const {
    if (!t_.is_signed && neg) return unsigned_negative(flags);
    const u64 sgn = neg ? t_.sign_bit : 0;
    if (t_.inf != InfEncoding::none && r_.sat != Saturation::finite)
      return {t_.inf_mag | sgn, flags};
    if (r_.sat == Saturation::finite || t_.nan == NanEncoding::none)
      return {t_.max_mag | sgn, static_cast<std::uint8_t>(flags | kOf | kIx)};
    return {nan_code(t_, neg, 0), static_cast<std::uint8_t>(flags | kInv)};
  }
  Result unsigned_negative(std::uint8_t flags) const {
    if (t_.nan == NanEncoding::none) return {0, static_cast<std::uint8_t>(flags | kInv)};
    return {nan_code(t_, false, 0), static_cast<std::uint8_t>(flags | kInv)};
  }
  // Rounding a finite non-zero x given as RO(x) (or x itself when exact).
  Result round_value(double x, std::uint8_t flags = 0) const {
    const bool neg = x < 0;
    if (!t_.is_signed && neg) return unsigned_negative(flags);
    Result res;
    if (!fast_mode_ || !round_normal(neg ? -x : x, neg, res, r_.mode))
      res = round_finite(t_, neg ? -x : x, neg, r_);
    res.flags |= flags;
    return res;
  }

  // The common case on the bits of the double: |x| >= 2^emin (neither tiny before nor after
  // rounding, so FTZ and tininess do not matter), no overflow, a deterministic mode. Returns
  // false to leave every other case to round_finite. The truncated code is
  // ((e + bias) << m) + (fraction >> s); rounding away adds 1, which carries into the exponent
  // field exactly when the value reaches the next binade. "Odd"/"even" is the truncated
  // code's last bit (for m = 0 the exponent field's, as SEMANTICS.md says).
  bool round_normal(double a, bool neg, Result& out, RoundingMode mode) const {
    const u64 b = std::bit_cast<u64>(a);
    const int e = static_cast<int>(b >> 52) - 1023;
    if (e < t_.emin || e > t_.emin + 4096) return false;
    const int s = 52 - t_.m;
    const u64 frac = b & ((u64{1} << 52) - 1);
    const u64 rem = frac & ((u64{1} << s) - 1);
    const u64 half = u64{1} << (s - 1);
    const u64 trunc = (static_cast<u64>(e + t_.bias) << t_.m) + (frac >> s);
    bool away = false;
    if (rem != 0) {
      switch (mode) {
        case RoundingMode::rne: away = rem > half || (rem == half && (trunc & 1)); break;
        case RoundingMode::rna: away = rem >= half; break;
        case RoundingMode::rtz: break;
        case RoundingMode::up: away = !neg; break;
        case RoundingMode::down: away = neg; break;
        case RoundingMode::odd: away = (trunc & 1) == 0; break;
        default: return false;
      }
    }
    const u64 code = trunc + (away ? 1 : 0);
    if (code > t_.max_mag) return false;  // overflow (or a special code): the slow path
    out = {code | (neg ? t_.sign_bit : 0), static_cast<std::uint8_t>(rem ? kIx : 0)};
    return true;
  }
  // An operand returned as the result (min/max): re-encoded exactly, no flags, no FTZ.
  Result encode_exact(const Val& v) const {
    switch (v.kind) {
      case Val::zero: return zero_result(t_, v.neg, 0);
      case Val::inf: return {t_.inf_mag | (v.neg ? t_.sign_bit : 0), 0};
      case Val::nan: return {nan_code(t_, v.neg, v.payload()), 0};
      case Val::finite: break;
    }
    Result r;  // exact: no rounding happens, the mode does not matter
    if (round_normal(v.mag, v.neg, r, RoundingMode::rne)) return r;
    return round_finite(t_, v.mag, v.neg, Rounding{});
  }

  // ---- exact results rounded to odd ---------------------------------------------------------
  // RO(s + err) where s = RN(x) and err has the sign of x - s (0: exact).
  static double to_odd(double s, double err) {
    const u64 b = std::bit_cast<u64>(s);
    if (err == 0 || (b & 1) != 0) return s;
    // s != 0 here (s = 0 only for an exact zero sum). The neighbour toward x: the next code
    // up in magnitude if x is farther from zero than s, else the next down (below a power of
    // two that is the all-ones significand of the binade below, as IEEE codes are ordered).
    return std::bit_cast<double>((err > 0) == (s > 0) ? b + 1 : b - 1);
  }
  static double sum_odd(double a, double b) {
    const double s = a + b;
    const double bb = s - a;
    const double e = (a - (s - bb)) + (b - bb);  // TwoSum: s + e = a + b exactly
    return to_odd(s, e);
  }

  // A sum (add, sub, mulAdd) of two exact doubles x + y; zeros given by sign for the
  // exact-zero rule (addends' signs).
  Result finish_sum(double x, bool x_neg, double y, bool y_neg, std::uint8_t flags) const {
    if (x == 0 && y == 0) return round_zero(x_neg == y_neg ? x_neg : r_.mode == RoundingMode::down, flags);
    const double s = sum_odd(x, y);
    if (s == 0) return round_zero(r_.mode == RoundingMode::down, flags);
    return round_value(s, flags);
  }

  // ---- the operations ----------------------------------------------------------------------
  Result add(const Val& a, const Val& b) const {
    if (a.kind == Val::nan || b.kind == Val::nan) {
      const Val* ops[2] = {&a, &b};
      return nan_of(ops, 2);
    }
    if (a.kind == Val::inf || b.kind == Val::inf) {
      if (a.kind == Val::inf && b.kind == Val::inf && a.neg != b.neg) return invalid();
      return round_inf(a.kind == Val::inf ? a.neg : b.neg);
    }
    return finish_sum(a.value(), a.neg, b.value(), b.neg, 0);
  }
  Result sub(Val a, Val b) const {
    if (b.kind != Val::nan) b.neg = !b.neg;  // a NaN b keeps its sign
    return add(a, b);
  }
  Result mul(const Val& a, const Val& b) const {
    if (a.kind == Val::nan || b.kind == Val::nan) {
      const Val* ops[2] = {&a, &b};
      return nan_of(ops, 2);
    }
    const bool neg = a.neg != b.neg;
    if (a.kind == Val::inf || b.kind == Val::inf) {
      if (a.kind == Val::zero || b.kind == Val::zero) return invalid();
      return round_inf(neg);
    }
    if (a.kind == Val::zero || b.kind == Val::zero) return round_zero(neg);
    const double x = a.mag * b.mag;  // exact
    return round_value(neg ? -x : x);
  }
  Result div(const Val& a, const Val& b) const {
    if (a.kind == Val::nan || b.kind == Val::nan) {
      const Val* ops[2] = {&a, &b};
      return nan_of(ops, 2);
    }
    const bool neg = a.neg != b.neg;
    if (a.kind == Val::inf) return b.kind == Val::inf ? invalid() : round_inf(neg);
    if (b.kind == Val::inf) return round_zero(neg);
    if (b.kind == Val::zero) return a.kind == Val::zero ? invalid() : round_inf(neg, kDz);
    if (a.kind == Val::zero) return round_zero(neg);
    const double q = a.mag / b.mag;
    const double r = std::fma(-q, b.mag, a.mag);  // exact: a - q b
    const double x = to_odd(q, r);
    return round_value(neg ? -x : x);
  }
  Result sqrt(const Val& a) const {
    if (a.kind == Val::nan) {
      const Val* ops[1] = {&a};
      return nan_of(ops, 1);
    }
    if (a.neg && a.kind != Val::zero) return invalid();
    if (a.kind == Val::inf) return round_inf(false);
    if (a.kind == Val::zero) return round_zero(a.neg);
    const double s = std::sqrt(a.mag);
    const double r = std::fma(-s, s, a.mag);  // exact: a - s^2
    return round_value(to_odd(s, r));
  }
  Result mul_add(const Val& a, const Val& b, const Val& c) const {
    const Val* ops[3] = {&a, &b, &c};
    if (a.kind == Val::nan || b.kind == Val::nan) return nan_of(ops, 3);
    const bool pneg = a.neg != b.neg;
    const bool zero_inf = (a.kind == Val::zero && b.kind == Val::inf) ||
                          (a.kind == Val::inf && b.kind == Val::zero);
    if (zero_inf) {
      if (c.kind == Val::nan && !c.signaling) {
        const std::uint8_t fl = P_.invalid_for_zero_times_inf_plus_qnan ? kInv : 0;
        if (P_.propagate) return {nan_code(t_, c.neg, c.payload()), fl};
        return default_nan(fl);
      }
      if (c.kind != Val::nan) return invalid();
    }
    if (c.kind == Val::nan) return nan_of(ops, 3);
    const bool pinf = a.kind == Val::inf || b.kind == Val::inf;
    if (pinf) {
      if (c.kind == Val::inf && c.neg != pneg) return invalid();
      return round_inf(pneg);
    }
    if (c.kind == Val::inf) return round_inf(c.neg);
    const double p = (a.kind == Val::zero || b.kind == Val::zero) ? 0.0 : a.mag * b.mag;  // exact
    return finish_sum(pneg ? -p : p, pneg, c.value(), c.neg, 0);
  }
  Result round_to_int(const Val& a) const {
    if (a.kind == Val::nan) {
      const Val* ops[1] = {&a};
      return nan_of(ops, 1);
    }
    if (a.kind == Val::inf || a.kind == Val::zero) return encode_exact(a);
    // Values >= 2^m... are integers when their ulp is >= 1; floor works for < 2^63.
    double n = a.mag;
    double f = 0;
    if (a.mag < 9007199254740992.0) {  // 2^53: below it, floor is exact through u64
      n = floor_pos(a.mag);
      f = a.mag - n;
    }
    std::uint8_t flags = 0;
    if (f != 0) {
      const bool odd = std::fmod(n, 2.0) != 0;
      if (away(f, odd, a.neg, r_)) n += 1;
      if (exact_int_) flags |= kIx;
    }
    if (n == 0) return round_zero(a.neg, flags);
    return round_value(a.neg ? -n : n, flags);
  }
  // -0 < +0; NaNs excluded by the caller.
  static bool less(const Val& a, const Val& b) {
    auto ival = [](const Val& v) {
      return v.kind == Val::inf ? (v.neg ? -std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::infinity())
                                : v.value();
    };
    const double u = ival(a), w = ival(b);
    if (u != w) return u < w;
    return a.kind == Val::zero && b.kind == Val::zero && a.neg && !b.neg;
  }
  Result min_max(Op op, const Val& a, const Val& b) const {
    const bool number = op == Op::minimum_number || op == Op::maximum_number;
    const bool want_min = op == Op::minimum || op == Op::minimum_number;
    const bool an = a.kind == Val::nan, bn = b.kind == Val::nan;
    if (an || bn) {
      if (number && an != bn) {
        const Val& nan = an ? a : b;
        Result r = encode_exact(an ? b : a);
        if (nan.signaling) r.flags |= kInv;
        return r;
      }
      const Val* ops[2] = {&a, &b};
      return nan_of(ops, 2);
    }
    const bool a_less = less(a, b);
    const bool b_less = less(b, a);
    const Val& pick = want_min ? (b_less ? b : a) : (a_less ? b : a);
    return encode_exact(pick);
  }
  Result compare(Op op, const Val& a, const Val& b) const {
    const bool an = a.kind == Val::nan, bn = b.kind == Val::nan;
    if (an || bn) {
      const bool sig = (an && a.signaling) || (bn && b.signaling);
      const bool signaling_op = op == Op::le || op == Op::lt || op == Op::eq_signaling;
      return {0, static_cast<std::uint8_t>(signaling_op || sig ? kInv : 0)};
    }
    auto ival = [](const Val& v) {
      return v.kind == Val::inf ? (v.neg ? -std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::infinity())
                                : v.value();
    };
    const double x = ival(a), y = ival(b);  // -0 == +0 here
    bool res = false;
    switch (op) {
      case Op::eq: case Op::eq_signaling: res = x == y; break;
      case Op::le: case Op::le_quiet: res = x <= y; break;
      case Op::lt: case Op::lt_quiet: res = x < y; break;
      default: break;
    }
    return {res ? u64{1} : u64{0}, 0};
  }

  Result apply(Op op, const u64* operands) const {
    const Val a = decode(operands[0]);
    switch (op) {
      case Op::sqrt: return sqrt(a);
      case Op::round_to_int: return round_to_int(a);
      default: break;
    }
    const Val b = decode(operands[1]);
    switch (op) {
      case Op::add: return add(a, b);
      case Op::sub: return sub(a, b);
      case Op::mul: return mul(a, b);
      case Op::div: return div(a, b);
      case Op::mul_add: return mul_add(a, b, decode(operands[2]));
      case Op::minimum: case Op::maximum: case Op::minimum_number: case Op::maximum_number:
        return min_max(op, a, b);
      default: return compare(op, a, b);
    }
  }

 private:
  Target t_;
  Rounding r_;
  NanPolicy P_;
  bool exact_int_;
  bool fast_mode_ = false;
  std::shared_ptr<const std::vector<Val>> table_;
  std::shared_ptr<const std::vector<double>> values_;

  // ---- the row form (apply_row) ----------------------------------------------------------------
  // Per-context memo of the row form, shared by copies, filled on first use: per op and sign
  // of a finite non-zero a, the results for every special b (NaN, inf, zero: apply(op, {a, b})
  // depends on a only through its sign there, since add/mul/div/sub of a finite non-zero a and
  // a NaN, an infinity or (mul, div) a zero never looks at a's magnitude; add/sub with a zero
  // b, whose result is a, are left out); and a finite non-zero code of each sign.
  struct RowMemo {
    std::once_flag once[4];
    std::vector<std::uint32_t> special_b[4][2];  // [k][a negative], indexed by b; kRowRedo: none
    std::once_flag reps_once;
    u64 rep[2] = {0, 0};  // a finite non-zero code of each sign (kind finite)
    bool have_rep[2] = {false, false};
  };
  std::shared_ptr<RowMemo> memo_;
  Result overflow_[2];  // a finite |x| >= 2^emin that rounds above maxf, per sign

  void fill_reps() const {
    std::call_once(memo_->reps_once, [&] {
      for (u64 c = 0; c <= t_.code_all; ++c) {
        const Val& v = (*table_)[c];
        if (v.kind != Val::finite || memo_->have_rep[v.neg]) continue;
        memo_->rep[v.neg] = c;
        memo_->have_rep[v.neg] = true;
      }
    });
  }
  const std::vector<std::uint32_t>& special_column(int k, Op op, bool a_neg) const {
    std::call_once(memo_->once[k], [&] {
      fill_reps();
      for (int sg = 0; sg < 2; ++sg) {
        auto& col = memo_->special_b[k][sg];
        col.assign(t_.code_all + 1, kRowRedo);
        if (!memo_->have_rep[sg]) continue;
        for (u64 b = 0; b <= t_.code_all; ++b) {
          const Val& v = (*table_)[b];
          if (v.kind == Val::finite || (v.kind == Val::zero && k <= 1)) continue;
          const u64 ops[3] = {memo_->rep[sg], b, 0};
          col[b] = pack(apply(op, ops));
        }
      }
    });
    return memo_->special_b[k][a_neg];
  }

  // K: 0 add, 1 sub, 2 mul, 3 div. The same arithmetic as add/sub/mul/div above (TwoSum and
  // to_odd, the exact product, the quotient and its fma remainder) and the same rounding as
  // round_finite restricted to deterministic modes, signed formats, results not tiny or tiny
  // on a subnormal grid without FTZ and not at 2^(emin-1) <= |x| < 2^emin under tininess after
  // rounding, written without branches so that the loop vectorizes: the dropped bits of the
  // double x (53 bits, RO(exact)) are below the grid 2^q, q = max(e, emin) - m; a result above
  // maxf is the overflow result of its sign. Every other pair (a special or zero operand, an
  // exact zero sum, tininess in doubt, a zero result in a format without -0) gets kRowRedo.
  template <RoundingMode M, int K>
  [[gnu::always_inline]] inline void row_body(double va, const double* vb, std::size_t n,
                                              std::uint32_t* out) const {
    const int s = 52 - t_.m;
    const u64 low = (u64{1} << s) - 1, half = u64{1} << (s - 1);
    const u64 off = static_cast<u64>(1023 - t_.bias) << t_.m;  // (e + bias) << m from e + 1023
    const std::int64_t emin_E = t_.emin + 1023;  // the double exponent field of 2^emin
    const double two_emin = t_.two_emin;
    const u64 min_normal = u64{1} << t_.m;       // the code of 2^emin (subnormal formats)
    const u64 max_mag = t_.max_mag;
    const int sign_shift = std::countr_zero(t_.sign_bit);
    // Tiny results the loop rounds: on a subnormal grid (m >= 1), without FTZ; at d = -1 only
    // when tininess is before rounding (after rounding it is in doubt there).
    const std::int64_t tiny_floor =
        (t_.subnormals && t_.has_zero && t_.m >= 1 && !r_.ftz) ? -1075 : 0;
    const std::int64_t tiny_doubt =
        r_.tininess == Tininess::before_rounding ? -1000000 : -1;
    const u64 negzero_bad = t_.has_negzero ? 0 : 1;
    const u64 ov0 = pack(overflow_[0]), ov1 = pack(overflow_[1]);
    for (std::size_t i = 0; i < n; ++i) {
      const double y = vb[i];
      u64 xb;
      if constexpr (K == 0 || K == 1 || K == 3) {
        double r, e;
        if constexpr (K == 3) {
          r = va / y;
          e = std::fma(-r, y, va);  // a - q b exactly; a/b - q has the sign of e * b
          e = y < 0 ? -e : e;
        } else {
          const double yy = K == 1 ? -y : y;
          r = va + yy;
          const double bb = r - va;
          e = (va - (r - bb)) + (yy - bb);  // TwoSum
        }
        const u64 rb = std::bit_cast<u64>(r), eb = std::bit_cast<u64>(e);
        // to_odd: an even inexact r moves one code toward the exact value.
        const u64 step = (e != 0 && (rb & 1) == 0) ? u64{1} : u64{0};
        xb = ((eb ^ rb) >> 63) ? rb - step : rb + step;
      } else {
        xb = std::bit_cast<u64>(va * y);  // exact
      }
      const u64 mag0 = xb & ~(u64{1} << 63);
      const u64 neg = xb >> 63;
      const std::int64_t E = static_cast<std::int64_t>(mag0 >> 52);
      const std::int64_t d = E - emin_E;  // e - emin
      // A tiny |x| is rounded as RO(|x| + 2^emin) in the binade of 2^emin, whose grid there is
      // the subnormal grid 2^(emin - m): adding 2^emin (an even multiple of it, m >= 1) moves
      // every rounding decision along unchanged, and RO at 53 bits keeps it (the same theorem
      // as above). Fast2Sum: 2^emin > |x|.
      const double xm = std::bit_cast<double>(mag0);
      const double z = two_emin + xm;
      const double ze = xm - (z - two_emin);
      const u64 zb = std::bit_cast<u64>(z);
      const u64 z_odd = zb + ((ze != 0 && (zb & 1) == 0) ? (ze > 0 ? u64{1} : ~u64{0}) : u64{0});
      const u64 tiny = d < 0 ? 1 : 0;
      const u64 mag = tiny ? z_odd : mag0;
      const u64 rem = mag & low;
      const u64 trunc = (mag >> s) - off;
      const u64 inexact = rem != 0 ? 1 : 0;
      u64 away = 0;
      if constexpr (M == RoundingMode::rne) away = rem + (trunc & 1) > half ? 1 : 0;
      else if constexpr (M == RoundingMode::rna) away = rem >= half ? 1 : 0;
      else if constexpr (M == RoundingMode::up) away = inexact & (neg ^ 1);
      else if constexpr (M == RoundingMode::down) away = inexact & neg;
      else if constexpr (M == RoundingMode::odd) away = inexact & ((trunc & 1) ^ 1);
      const u64 code = trunc + away - (tiny ? min_normal : 0);
      const u64 redo = (E == 2047 ? 1 : 0) | (E == 0 ? 1 : 0) | (d < tiny_floor ? 1 : 0) |
                       (d == tiny_doubt ? 1 : 0) | ((code == 0 ? 1 : 0) & neg & negzero_bad);
      const u64 packed = code | (neg << sign_shift) | (inexact << 16) | ((inexact & tiny) << 17);
      const u64 res = code > max_mag ? (neg ? ov1 : ov0) : packed;
      out[i] = static_cast<std::uint32_t>(redo ? u64{kRowRedo} : res);
    }
  }
  template <int K>
  [[gnu::always_inline]] inline void row_modes(double va, const double* vb, std::size_t n,
                                               std::uint32_t* out) const {
    switch (r_.mode) {
      case RoundingMode::rne: return row_body<RoundingMode::rne, K>(va, vb, n, out);
      case RoundingMode::rna: return row_body<RoundingMode::rna, K>(va, vb, n, out);
      case RoundingMode::rtz: return row_body<RoundingMode::rtz, K>(va, vb, n, out);
      case RoundingMode::up: return row_body<RoundingMode::up, K>(va, vb, n, out);
      case RoundingMode::down: return row_body<RoundingMode::down, K>(va, vb, n, out);
      default: return row_body<RoundingMode::odd, K>(va, vb, n, out);
    }
  }
  [[gnu::always_inline]] inline void row_ops(int k, double va, const double* vb, std::size_t n,
                                             std::uint32_t* out) const {
    switch (k) {
      case 0: return row_modes<0>(va, vb, n, out);
      case 1: return row_modes<1>(va, vb, n, out);
      case 2: return row_modes<2>(va, vb, n, out);
      default: return row_modes<3>(va, vb, n, out);
    }
  }
#if defined(__x86_64__) && defined(__GNUC__)
  [[gnu::target("avx2,fma"), gnu::noinline]] void row_avx2(int k, double va, const double* vb,
                                                             std::size_t n,
                                                             std::uint32_t* out) const {
    row_ops(k, va, vb, n, out);
  }
  [[gnu::target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma"), gnu::noinline]] void row_avx512(
      int k, double va, const double* vb, std::size_t n, std::uint32_t* out) const {
    row_ops(k, va, vb, n, out);
  }
  static bool have_avx512() {
    static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
    return yes;
  }
  static bool have_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
  }
#endif
  [[gnu::noinline]] void row_plain(int k, double va, const double* vb, std::size_t n,
                                   std::uint32_t* out) const {
    row_ops(k, va, vb, n, out);
  }
  void row_kernel(int k, double va, const double* vb, std::size_t n, std::uint32_t* out) const {
#if defined(__x86_64__) && defined(__GNUC__)
    if (have_avx512()) return row_avx512(k, va, vb, n, out);
    if (have_avx2()) return row_avx2(k, va, vb, n, out);
#endif
    row_plain(k, va, vb, n, out);
  }

 public:
  // A row of a binary operation: for i < n, out[i] = pack(apply(op, {a, b0 + i})) — the same
  // results as apply, faster, for the exhaustive sweeps (a fixed, every b). Needs a format of
  // <= 16 bits (has_rows()). For add, sub, mul and div in a deterministic mode of a signed
  // format: a finite non-zero a runs the branch-free row_body over the value table (AVX-512,
  // else AVX2, where the CPU has them), a special b's result comes from the memo of its column
  // (per sign of a), and a special a's result for a finite non-zero b is that of the first such b of the same
  // sign in the row (it depends on b's sign only: NaN a, inf a, or a zero a under mul and div;
  // a zero a under add or sub gives b, which row_body computes as 0 + b). Every other pair,
  // and every pair of other ops and configurations, goes through apply.
  bool has_rows() const { return values_ != nullptr; }
  static constexpr std::uint32_t kRowRedo = 0xFFFFFFFFu;  // not a result (flags 0xFF)
  static std::uint32_t pack(const Result& r) {
    return static_cast<std::uint32_t>(r.bits) | (static_cast<std::uint32_t>(r.flags) << 16);
  }
  void apply_row(Op op, u64 a, u64 b0, std::size_t n, std::uint32_t* out) const {
    if (!values_) throw std::logic_error("dref::Context::apply_row: formats of <= 16 bits only");
    if (a > t_.code_all || b0 > t_.code_all || n > t_.code_all + 1 - b0)
      throw std::out_of_range("dref::Context::apply_row: code out of range");
    const int k = op == Op::add ? 0 : op == Op::sub ? 1 : op == Op::mul ? 2 : op == Op::div ? 3 : -1;
    auto one = [&](u64 b) {
      const u64 ops[3] = {a, b, 0};
      return pack(apply(op, ops));
    };
    if (k < 0 || !fast_mode_ || !t_.is_signed) {
      for (std::size_t i = 0; i < n; ++i) out[i] = one(b0 + i);
      return;
    }
    const double* vb = values_->data() + b0;
    const Val& A = (*table_)[a];
    if (A.kind == Val::finite || (A.kind == Val::zero && k <= 1)) {
      row_kernel(k, A.kind == Val::finite ? A.value() : 0.0, vb, n, out);
      const std::uint32_t* col =
          A.kind == Val::finite ? special_column(k, op, A.neg).data() + b0 : nullptr;
      for (std::size_t i = 0; i < n; ++i) {
        if (out[i] != kRowRedo) continue;
        if (col && std::isnan(vb[i]) && col[i] != kRowRedo) out[i] = col[i];
        else out[i] = one(b0 + i);
      }
      return;
    }
    std::uint32_t by_sign[2] = {kRowRedo, kRowRedo};
    for (std::size_t i = 0; i < n; ++i) {
      const double y = vb[i];
      if (std::isnan(y)) {
        out[i] = one(b0 + i);
        continue;
      }
      std::uint32_t& r = by_sign[std::signbit(y) ? 1 : 0];
      if (r == kRowRedo) r = one(b0 + i);
      out[i] = r;
    }
  }
};

// One-shot form with the same contract as fpconform::apply_op (for supported formats).
inline Result apply_op(Op op, const Format& f, const u64* operands, const OpOptions& o) {
  return Context(f, o).apply(op, operands);
}

}  // namespace fpconform::dref
