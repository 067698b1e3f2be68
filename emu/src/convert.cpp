// decode, round_to_format (the single round-and-pack) and convert. Semantics: emu/SEMANTICS.md.
#include "fpconform/convert.hpp"

#include <bit>
#include <cmath>
#include <cstdio>

#include "fpconform/core/error.hpp"

namespace fpconform {

namespace {

// |x| = (n + f) * 2^q with n an integer and f in [0,1) held as a 128-bit binary fraction
// plus a sticky bit for anything below it.
struct Split {
  u128 n = 0;
  u128 frac = 0;
  bool frac_sticky = false;
  bool inexact() const { return frac != 0 || frac_sticky; }
};

Split split_at(const ExactValue& x, int q) {
  Split s;
  const int shift = q - x.exp;
  if (shift <= 0) {
    s.n = x.sig << -shift;  // callers guarantee no overflow (shift >= -63 with sig < 2^64)
    s.frac_sticky = x.sticky;
  } else if (shift < 128) {
    s.n = x.sig >> shift;
    s.frac = x.sig << (128 - shift);
    s.frac_sticky = x.sticky;
  } else if (shift < 256) {
    s.frac = shift == 128 ? x.sig : x.sig >> (shift - 128);
    s.frac_sticky = x.sticky || (shift > 128 && (x.sig << (256 - shift)) != 0);
  } else {
    s.frac_sticky = true;
  }
  return s;
}

constexpr u128 kHalf = u128(1) << 127;

// Whether rounding moves |x| from n*2^q to (n+1)*2^q. `odd_n` is the parity of the code that
// n maps to (ties to even, round to odd act on the code's last bit).
bool rounds_away(const Split& s, bool odd_code, bool negative, const Rounding& r) {
  if (!s.inexact()) return false;
  if (is_stochastic(r.mode) && r.stochastic_bits <= 0) {
    // No random bits (n = 0): the definitions reduce to fixed rules (as the oracle reads them).
    switch (r.mode) {
      case RoundingMode::stochastic_a: return s.frac > kHalf || (s.frac == kHalf && s.frac_sticky);
      case RoundingMode::stochastic_b: return s.frac >= kHalf;
      case RoundingMode::stochastic_c: return false;
      default: return true;  // stochastic_exact: away iff f > 0
    }
  }
  const int nb = r.stochastic_bits > 64 ? 64 : r.stochastic_bits;
  const u128 one_n = u128(1) << nb;
  const u128 rnd = static_cast<u128>(nb == 64 ? r.random : r.random & ((1ull << nb) - 1));
  switch (r.mode) {
    case RoundingMode::rne:
      return s.frac > kHalf || (s.frac == kHalf && (s.frac_sticky || odd_code));
    case RoundingMode::rna: return s.frac >= kHalf;
    case RoundingMode::rtz: return false;
    case RoundingMode::up: return !negative;
    case RoundingMode::down: return negative;
    case RoundingMode::odd: return false;  // handled by the caller (sets the last bit)
    case RoundingMode::stochastic_a: {
      const u128 t = s.frac >> (128 - nb);
      const bool round_bit = nb < 128 && ((s.frac >> (127 - nb)) & 1);
      const bool below = (s.frac & ((u128(1) << (127 - nb)) - 1)) != 0 || s.frac_sticky;
      const u128 tr = t + (round_bit && (below || (t & 1)) ? 1 : 0);
      return tr + rnd >= one_n;
    }
    case RoundingMode::stochastic_b: {
      const u128 f2 = s.frac >> (127 - nb);
      return f2 + 2 * rnd + 1 >= (one_n << 1);
    }
    case RoundingMode::stochastic_c: return (s.frac >> (128 - nb)) + rnd >= one_n;
    case RoundingMode::stochastic_exact: {
      const u128 t = s.frac >> (128 - nb);
      const bool below = (s.frac << nb) != 0 || s.frac_sticky;
      return rnd < t || (rnd == t && below);
    }
  }
  return false;
}

bool overflow_goes_to_infinity(const Rounding& r, bool negative) {
  switch (r.mode) {
    case RoundingMode::rtz:
    case RoundingMode::odd: return false;
    case RoundingMode::up: return !negative;
    case RoundingMode::down: return negative;
    default: return true;  // nearest and stochastic modes
  }
}

Rounded pack(std::uint64_t magnitude, bool negative, const Format& f, std::uint8_t flags) {
  Rounded out;
  out.bits = magnitude | (negative ? f.sign_mask() : 0);
  out.flags.bits = flags;
  return out;
}

Rounded nan_result(const ExactValue& x, const Format& f, std::uint8_t flags) {
  if (!f.has_nan()) return pack(0, false, f, flags | Flags::invalid);
  std::uint64_t code = f.nan_code(x.negative);
  if (f.nan == NanEncoding::ieee && f.man_bits > 1)
    code |= x.nan_payload >> (64 - (f.man_bits - 1));
  return pack(code & f.code_mask(), false, f, flags);
}

Rounded zero_result(bool negative, const Format& f, std::uint8_t flags) {
  if (!f.has_zero) return pack(f.min_positive_code(), negative, f, flags);
  return pack(0, negative && f.has_negative_zero(), f, flags);
}

Rounded overflow_result(bool negative, const Format& f, const Rounding& r, std::uint8_t flags) {
  flags |= Flags::overflow | Flags::inexact;
  if (r.sat == Saturation::infinite || (r.sat == Saturation::none && overflow_goes_to_infinity(r, negative))) {
    if (f.has_inf()) return pack(f.inf_code(false), negative, f, flags);
    if (f.has_nan()) return pack(f.nan_code(negative), false, f, flags);
  }
  return pack(f.max_finite_code(), negative, f, flags);
}

// Magnitude code of n * 2^q, q being the grid of the binade whose biased exponent is `be`
// (for subnormal formats be >= 1 and the subnormal grid uses be = 1).
std::uint64_t code_of(u128 n, int be, const Format& f) {
  const auto nn = static_cast<std::uint64_t>(n);
  if (f.subnormals) return (static_cast<std::uint64_t>(be - 1) << f.man_bits) + nn;
  return (static_cast<std::uint64_t>(be) << f.man_bits) + nn - (1ull << f.man_bits);
}

// Tininess after rounding: |x| (with exponent e = emin - 1) rounded to p bits, unbounded range.
bool tiny_after_rounding(const ExactValue& x, int e, const Format& f, const Rounding& r) {
  if (e < f.emin() - 1) return true;
  const Split s = split_at(x, e - f.man_bits);
  // n is all ones (2^p - 1) exactly when one step up reaches 2^emin. The tie rule looks at the
  // last bit of the code n would have in an unbounded encoding: odd for m >= 1; for m = 0 the
  // exponent field's parity, which code_of's wrap-around arithmetic gives as well.
  const u128 all_ones = (u128(1) << f.precision()) - 1;
  const bool odd = code_of(s.n, e + f.bias, f) & 1;
  if (s.n != all_ones) return true;
  // Round to odd moves up only from an even code (m = 0 with subnormals: field 0 is even).
  if (r.mode == RoundingMode::odd) return !(s.inexact() && !odd);
  return !rounds_away(s, odd, x.negative, r);
}

}  // namespace

ExactValue decode(std::uint64_t bits, const Format& f, bool daz) {
  if (bits & ~f.code_mask())
    throw Error("bits", "0x" + [&] {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(bits));
      return std::string(buf);
    }() + " does not fit in " + std::to_string(f.width()) + "-bit format " + f.name);
  const bool neg = (bits & f.sign_mask()) != 0;
  const std::uint64_t mag = bits & f.magnitude_mask();
  if (f.is_nan_code(bits)) {
    ExactValue v = ExactValue::quiet_nan(f.nan == NanEncoding::ieee || f.nan == NanEncoding::all_ones
                                             ? neg
                                             : false);
    if (f.nan == NanEncoding::ieee) {
      v.signaling = (mag & f.quiet_bit()) == 0;
      if (f.man_bits > 1) v.nan_payload = (mag & (f.quiet_bit() - 1)) << (64 - (f.man_bits - 1));
    }
    return v;
  }
  if (f.is_inf_code(bits)) return ExactValue::infinity(neg);
  // A reserved code (custom formats) reads as a quiet NaN of its sign, as the NaN codes of the
  // IEEE and all-ones encodings do.
  if (f.is_reserved_code(bits)) return ExactValue::quiet_nan(neg);
  if (f.has_zero && mag == 0) return ExactValue::zero(neg);
  const std::uint64_t field = mag >> f.man_bits;
  const std::uint64_t frac = mag & ((1ull << f.man_bits) - 1);
  if (f.subnormals && field == 0) {
    if (daz) return ExactValue::zero(neg);
    return ExactValue::finite(neg, frac, 1 - f.bias - f.man_bits);
  }
  return ExactValue::finite(neg, frac | (1ull << f.man_bits),
                            static_cast<int>(field) - f.bias - f.man_bits);
}

Rounded round_to_format(const ExactValue& x, const Format& f, const Rounding& r) {
  // ---- specials first ----
  if (x.is_nan()) return nan_result(x, f, x.signaling ? Flags::invalid : 0);
  if (!f.is_signed && x.negative && !x.is_zero()) {
    ExactValue n = ExactValue::quiet_nan();
    return nan_result(n, f, Flags::invalid);
  }
  if (x.is_inf()) {
    if (f.has_inf() && r.sat != Saturation::finite) return pack(f.inf_code(false), x.negative, f, 0);
    if (r.sat != Saturation::finite && f.has_nan())
      return pack(f.nan_code(x.negative), false, f, Flags::invalid);
    return pack(f.max_finite_code(), x.negative, f, Flags::overflow | Flags::inexact);
  }
  if (x.is_zero()) {
    if (!f.has_zero) return zero_result(false, f, Flags::underflow | Flags::inexact);
    return zero_result(x.negative, f, 0);
  }

  // ---- finite, non-zero ----
  const int e = x.exp + bit_length(x.sig) - 1;  // exponent of the leading bit
  const int emin = f.emin();
  if (e > f.emax()) return overflow_result(x.negative, f, r, 0);

  const bool tiny = e < emin && (r.tininess == Tininess::before_rounding ||
                                 tiny_after_rounding(x, e, f, r));
  if (tiny && r.ftz) return zero_result(x.negative, f, Flags::underflow | Flags::inexact);

  int q, be;
  if (e >= emin) {
    q = e - f.man_bits;
    be = e + f.bias;
  } else if (f.subnormals) {
    q = emin - f.man_bits;
    be = 1;
  } else {
    // No subnormals (and no zero): the neighbours are 0 and 2^emin; both give code 0.
    return pack(f.min_normal_code(), x.negative, f,
                Flags::inexact | (tiny ? Flags::underflow : 0));
  }
  const Split s = split_at(x, q);
  std::uint64_t code = code_of(s.n, be, f);
  std::uint8_t flags = 0;
  if (s.inexact()) {
    flags |= Flags::inexact;
    if (tiny) flags |= Flags::underflow;
    if (r.mode == RoundingMode::odd) code |= 1;
    else if (rounds_away(s, code & 1, x.negative, r)) ++code;
  }
  if (code > f.max_finite_code()) return overflow_result(x.negative, f, r, flags);
  if (f.has_zero && code == 0) return zero_result(x.negative, f, flags);
  return pack(code, x.negative, f, flags);
}

ExactValue round_to_integral(const ExactValue& x, const Rounding& r, bool& inexact) {
  inexact = false;
  if (!x.is_finite_nonzero() || (x.exp >= 0 && !x.sticky)) return x;
  // Values with exp >= 0 are integers; with a sticky bit they are not, but then sig has at
  // least p + 2 bits and exp < 0 for every value this is called with (decoded codes).
  const Split s = split_at(x, 0);
  inexact = s.inexact();
  u128 n = s.n;
  if (inexact) {
    if (r.mode == RoundingMode::odd) n |= 1;
    else if (rounds_away(s, n & 1, x.negative, r)) ++n;
  }
  return n == 0 ? ExactValue::zero(x.negative) : ExactValue::finite(x.negative, n, 0);
}

Rounded convert(std::uint64_t bits, const Format& from, const Format& to, const Rounding& r) {
  return round_to_format(decode(bits, from, r.daz), to, r);
}

double to_double(std::uint64_t bits, const Format& f) {
  const ExactValue v = decode(bits, f);
  switch (v.kind) {
    case ExactValue::Kind::nan: return v.negative ? -NAN : NAN;
    case ExactValue::Kind::inf: return v.negative ? -INFINITY : INFINITY;
    case ExactValue::Kind::zero: return v.negative ? -0.0 : 0.0;
    case ExactValue::Kind::finite: break;
  }
  const double m = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(v.sig)), v.exp);
  return v.negative ? -m : m;
}

}  // namespace fpconform
