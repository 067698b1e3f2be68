// The double-arithmetic reference for conversions from f32 (a second oracle beside MPFR's),
// written from emu/SEMANTICS.md. It uses neither emu's code (no decode, round_to_format or
// Format helpers) nor the MPFR oracle; it reads only a Format's data fields. Every f32 value and every
// intermediate below is exact in double (at most 24 significant bits, scaled by powers of two
// inside double's range), so no rounding error enters the decisions.
//
// Used where MPFR is too slow (all 2^32 f32 inputs: tools/engines/conformance, label "exhaustive");
// checked against the MPFR oracle in reference/tests/double_oracle_test.cpp and on boundary
// inputs in tools/engines/conformance.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "fpconform/reference/oracle.hpp"  // Format, Rounding (data types only)

namespace fpconform::dref {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

constexpr std::uint8_t kIx = 0x01, kUf = 0x02, kOf = 0x04, kDz = 0x08, kInv = 0x10;

// Exact helpers on doubles (std::ldexp / ilogb / floor are library calls; these inline).
// 2^k for -1022 <= k <= 1023.
inline double pow2(int k) { return std::bit_cast<double>(static_cast<u64>(k + 1023) << 52); }
// x * 2^k, exact while the result stays a normal double (always the case below: values have
// at most 25 significant bits and exponents within -300..300).
inline double scale(double x, int k) {
  if (k > 1000 || k < -1000) return std::ldexp(x, k);
  return x * pow2(k);
}
// floor(log2 x) for a positive normal double.
inline int ilog2(double x) {
  return static_cast<int>((std::bit_cast<u64>(x) >> 52) & 0x7FF) - 1023;
}
// floor(x) for 0 <= x < 2^63.
inline double floor_pos(double x) { return static_cast<double>(static_cast<u64>(x)); }

struct Result {
  u64 bits = 0;
  std::uint8_t flags = 0;
};

// The target, from its data fields ("Formats" in SEMANTICS.md).
struct Target {
  int m = 0, bias = 0, emin = 0, exp_bits = 0;
  bool is_signed = true, subnormals = true, has_zero = true, has_negzero = true;
  InfEncoding inf = InfEncoding::none;
  NanEncoding nan = NanEncoding::none;
  u64 sign_bit = 0, mag_all = 0, code_all = 0, exp_all = 0;
  u64 inf_mag = 0, max_mag = 0, minpos_mag = 0;
  double maxf = 0, two_emin = 0;
  bool reserve_top = false;

  bool special_mag(u64 mag) const {  // NaN or inf (positive sign) or reserved
    const u64 E = mag >> m, T = mag & ((u64{1} << m) - 1);
    if (reserve_top && E == exp_all) return true;
    if ((nan == NanEncoding::all_ones || nan == NanEncoding::max_code) && mag == mag_all) return true;
    if (inf == InfEncoding::top_code && mag == inf_mag) return true;
    (void)T;
    return false;
  }
  // The value of a finite magnitude code.
  double value(u64 mag) const {
    const u64 E = mag >> m, T = mag & ((u64{1} << m) - 1);
    if (E == 0 && subnormals) return std::ldexp(static_cast<double>(T), 1 - bias - m);
    return std::ldexp(static_cast<double>((u64{1} << m) + T), static_cast<int>(E) - bias - m);
  }
};

Target make_target(const Format& f);

inline u64 nan_code(const Target& t, bool neg, u64 payload_left) {
  switch (t.nan) {
    case NanEncoding::ieee: {
      u64 T = u64{1} << (t.m - 1);  // quiet bit
      if (t.m - 1 > 0) T |= payload_left >> (64 - (t.m - 1));
      return (t.exp_all << t.m) | T | (neg ? t.sign_bit : 0);
    }
    case NanEncoding::all_ones: return t.mag_all | (neg ? t.sign_bit : 0);
    case NanEncoding::negative_zero: return t.sign_bit;
    case NanEncoding::max_code: return t.code_all;
    case NanEncoding::none: break;
  }
  return 0;
}

inline Result zero_result(const Target& t, bool neg, std::uint8_t flags) {
  if (!t.has_zero) return {t.minpos_mag, flags};
  return {neg && t.has_negzero ? t.sign_bit : u64{0}, flags};
}

// Magnitude code of y = k * 2^q (k >= 1) on the format's grid, exponent field unbounded above.
inline u64 code_of(const Target& t, u64 k, int q) {
  const double y = scale(static_cast<double>(k), q);
  const int ey = ilog2(y);
  if (t.subnormals && ey < t.emin) return static_cast<u64>(scale(y, -(t.emin - t.m)));
  const u64 E = static_cast<u64>(ey + t.bias);
  const u64 T = static_cast<u64>(scale(y, -(ey - t.m))) - (u64{1} << t.m);
  return (E << t.m) | T;
}

// Away from zero? f in [0,1) exact; odd: whether the truncated code is odd.
inline bool away(double f, bool odd, bool neg, const Rounding& r) {
  if (f == 0) return false;
  switch (r.mode) {
    case RoundingMode::rne: return f > 0.5 || (f == 0.5 && odd);
    case RoundingMode::rna: return f >= 0.5;
    case RoundingMode::rtz: return false;
    case RoundingMode::up: return !neg;
    case RoundingMode::down: return neg;
    case RoundingMode::odd: return !odd;
    default: break;
  }
  const int n = r.stochastic_bits;
  const u128 rnd = n >= 64 ? u128{r.random} : u128{r.random & ((u64{1} << n) - 1)};
  const u128 two_n = u128{1} << n;
  const double g = scale(f, n);  // f * 2^n, exact
  const u128 gi = static_cast<u128>(std::floor(g));
  const bool gfrac = g != std::floor(g);
  switch (r.mode) {
    case RoundingMode::stochastic_a: {
      const u128 rn = static_cast<u128>(std::nearbyint(g));  // ties to even (default mode)
      return rn + rnd >= two_n;
    }
    case RoundingMode::stochastic_b: {
      // f + (r + 1/2) 2^-n >= 1  <=>  f 2^(n+1) >= 2^(n+1) - 2r - 1 (an integer)
      const double g2 = scale(f, n + 1);
      const u128 g2i = static_cast<u128>(std::floor(g2));
      return g2i + 2 * rnd + 1 >= 2 * two_n;
    }
    case RoundingMode::stochastic_c: return gi + rnd >= two_n;
    case RoundingMode::stochastic_exact: return rnd < gi || (rnd == gi && gfrac);
    default: break;
  }
  return false;
}

inline bool overflow_away(const Rounding& r, bool neg) {
  switch (r.mode) {
    case RoundingMode::rtz:
    case RoundingMode::odd: return false;
    case RoundingMode::up: return !neg;
    case RoundingMode::down: return neg;
    default: return true;
  }
}

// Round a finite non-zero |x| = a (exact double) with sign neg.
inline Result round_finite(const Target& t, double a, bool neg, const Rounding& r) {
  const u64 sgn = neg ? t.sign_bit : 0;
  const int e = ilog2(a);
  int q;
  if (t.subnormals) q = (e > t.emin ? e : t.emin) - t.m;
  else q = e >= t.emin ? e - t.m : t.emin;
  const double s = scale(a, -q);  // < 2^(p+1)
  const double nf = floor_pos(s);
  const double f = s - nf;
  const u64 n = static_cast<u64>(nf);
  const bool odd = n != 0 && (code_of(t, n, q) & 1) != 0;
  const u64 yn = n + (away(f, odd, neg, r) ? 1 : 0);
  const bool inexact = f != 0;

  bool tiny = false;
  if (a < t.two_emin) {
    if (r.tininess == Tininess::before_rounding) {
      tiny = true;
    } else {
      const int q1 = e - t.m;
      const double s1 = scale(a, -q1);  // in [2^m, 2^(m+1))
      const double n1f = floor_pos(s1);
      const double f1 = s1 - n1f;
      const u64 n1 = static_cast<u64>(n1f);
      const bool odd1 = t.m == 0 ? ((e + t.bias) & 1) != 0 : (n1 & 1) != 0;
      const u64 y1 = n1 + (away(f1, odd1, neg, r) ? 1 : 0);
      tiny = scale(static_cast<double>(y1), q1) < t.two_emin;
    }
  }
  if (r.ftz && tiny) return zero_result(t, neg, kUf | kIx);
  std::uint8_t flags = 0;
  if (inexact) flags |= kIx;
  if (tiny && inexact) flags |= kUf;
  const double y = scale(static_cast<double>(yn), q);
  if (y > t.maxf) {
    flags |= kOf | kIx;
    if (r.sat == Saturation::none && overflow_away(r, neg)) {
      if (t.inf != InfEncoding::none) return {t.inf_mag | sgn, flags};
      if (t.nan != NanEncoding::none) return {nan_code(t, neg, 0), flags};
    }
    return {t.max_mag | sgn, flags};
  }
  if (yn == 0) return zero_result(t, neg, flags);
  return {code_of(t, yn, q) | sgn, flags};
}

// f32 bits -> target, per SEMANTICS.md.
inline Result convert_f32(std::uint32_t bits, const Target& t, const Rounding& r) {
  const bool neg = (bits >> 31) != 0;
  const std::uint32_t E = (bits >> 23) & 0xFF, T = bits & 0x7FFFFF;
  // 1. NaN
  if (E == 0xFF && T != 0) {
    const bool signaling = (T & 0x400000) == 0;
    const u64 payload = static_cast<u64>(T & 0x3FFFFF) << (64 - 22);
    if (t.nan == NanEncoding::none) return {0, kInv};
    return {nan_code(t, neg, payload), static_cast<std::uint8_t>(signaling ? kInv : 0)};
  }
  const bool is_zero = (E == 0 && (T == 0 || r.daz));
  // 2. Negative non-zero into unsigned
  if (!t.is_signed && neg && !is_zero) {
    if (t.nan == NanEncoding::none) return {0, kInv};
    return {nan_code(t, false, 0), kInv};
  }
  const u64 sgn = neg ? t.sign_bit : 0;
  // 3. Infinity
  if (E == 0xFF) {
    if (t.inf != InfEncoding::none && r.sat != Saturation::finite) return {t.inf_mag | sgn, 0};
    if (r.sat == Saturation::finite || t.nan == NanEncoding::none) return {t.max_mag | sgn, kOf | kIx};
    return {nan_code(t, neg, 0), kInv};
  }
  // 4. Zero
  if (is_zero) {
    if (!t.has_zero) return {t.minpos_mag, kUf | kIx};
    return zero_result(t, neg, 0);
  }
  const double a = E == 0 ? scale(static_cast<double>(T), -149)
                          : scale(static_cast<double>(T | 0x800000), static_cast<int>(E) - 150);
  return round_finite(t, a, neg, r);
}

}  // namespace fpconform::dref
