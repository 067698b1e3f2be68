// The MPFR oracle: decode, the one rounding, and conversions, written from emu/SEMANTICS.md.
//
// Independence: this file reads only the data fields of a Format (exp_bits, man_bits, bias,
// is_signed, subnormals, has_zero, inf, nan). Every limit (maxf, minpos, emin, the infinity
// and NaN codes) is worked out here from the encoding rules; rounding decisions are taken on
// the exact fraction as an MPFR number, not on bit patterns.
#include "fpconform/reference/oracle.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "fpconform/core/error.hpp"
#include "internal.hpp"

namespace fpconform::reference {

namespace detail {

namespace {

constexpr int kCacheSize = 4;

struct GeometryCache {
  Geometry entries[kCacheSize];
  bool used[kCacheSize] = {};
  int next = 0;
  GeometryCache() {
    for (auto& g : entries) mpfr_init2(g.maxf, 64);
  }
  ~GeometryCache() {
    for (auto& g : entries) mpfr_clear(g.maxf);
  }
};

bool same_fields(const Geometry& g, const Format& f) {
  return g.exp_bits == f.exp_bits && g.man_bits == f.man_bits && g.bias == f.bias &&
         g.is_signed == f.is_signed && g.subnormals == f.subnormals && g.has_zero == f.has_zero &&
         g.inf == f.inf && g.nan == f.nan;
}

// Is the positive-signed magnitude code `mag` a NaN code? (Only for the limit search.)
bool positive_is_nan(const Geometry& g, u64 mag) {
  const u64 ef = mag >> g.man_bits;
  const u64 t = mag & low_mask(g.man_bits);
  switch (g.nan) {
    case NanEncoding::none: return false;
    case NanEncoding::ieee: return ef == g.exp_all && t != 0;
    case NanEncoding::all_ones: return mag == g.mag_all;
    case NanEncoding::negative_zero: return false;  // only the code with the sign bit alone
    case NanEncoding::max_code: return (mag | g.sign_bit) == g.code_all && !g.is_signed;
  }
  return false;
}

void build(Geometry& g, const Format& f) {
  g.exp_bits = f.exp_bits;
  g.man_bits = f.man_bits;
  g.bias = f.bias;
  g.is_signed = f.is_signed;
  g.subnormals = f.subnormals;
  g.has_zero = f.has_zero;
  g.inf = f.inf;
  g.nan = f.nan;
  // Limits of the oracle (wider than validate_format's): keeps every exponent below 2^18,
  // which parse_value relies on.
  if (f.exp_bits < 1 || f.exp_bits > 16 || f.man_bits < 0 || f.man_bits > 62 ||
      f.bias < -(1 << 17) || f.bias > (1 << 17))
    throw Error("format", "reference oracle: unsupported field sizes in '" + f.name + "'");
  g.width = (f.is_signed ? 1 : 0) + f.exp_bits + f.man_bits;
  if (g.width > 64) throw Error("format", "reference oracle: '" + f.name + "' is wider than 64");
  g.code_all = low_mask(g.width);
  g.mag_all = low_mask(f.exp_bits + f.man_bits);
  g.sign_bit = f.is_signed ? (u64{1} << (g.width - 1)) : 0;
  g.exp_all = low_mask(f.exp_bits);
  g.reserve_top_binade = f.nan == NanEncoding::ieee || f.inf == InfEncoding::ieee;

  // Infinity code. ieee: exponent field all ones, fraction zero. top_code: the largest
  // magnitude whose positive code is not a NaN.
  if (f.inf == InfEncoding::ieee) {
    g.inf_mag = g.exp_all << f.man_bits;
  } else if (f.inf == InfEncoding::top_code) {
    u64 c = g.mag_all;
    if (f.nan == NanEncoding::ieee) c = g.exp_all << f.man_bits;  // skip the NaN block at once
    while (c > 0 && positive_is_nan(g, c)) --c;
    g.inf_mag = c;
  } else {
    g.inf_mag = 0;
  }

  // maxf: walk down from the top of the finite range past any NaN/inf code. The whole top
  // binade is reserved by an IEEE-style NaN or infinity.
  u64 c = g.reserve_top_binade ? (g.exp_all << f.man_bits) - 1 : g.mag_all;
  for (;;) {
    const CodeClass k = classify_code(g, c);
    if (k == CodeClass::finite || k == CodeClass::zero) break;
    if (c == 0) throw Error("format", "reference oracle: '" + f.name + "' has no finite codes");
    --c;
  }
  g.max_mag = c;
  g.min_pos_mag = f.has_zero ? 1 : 0;
  if (g.max_mag < g.min_pos_mag)
    throw Error("format", "reference oracle: '" + f.name + "' has no finite non-zero codes");

  mpfr_set_prec(g.maxf, std::max(2, f.man_bits + 1));
  set_magnitude_value(g.maxf, g, g.max_mag);
  g.emax = mpfr_get_exp(g.maxf) - 1;
  {
    // maxf's significand, left-aligned in 64 bits (it has at most 63 significant bits).
    Scratch& S0 = scratch();
    mpfr_set_prec(S0.tmp, 64);
    mpfr_mul_2si(S0.tmp, g.maxf, 63 - g.emax, MPFR_RNDN);  // in [2^63, 2^64): exact integer
    g.maxf_aligned = mpfr_get_ui(S0.tmp, MPFR_RNDN);
  }

  // emin: exponent of the smallest normal value. Find it as the value of the first code whose
  // exponent field is the first normal one (field 1 with subnormals, field 0 without).
  Scratch& S = scratch();
  mpfr_set_prec(S.tmp, std::max(2, f.man_bits + 1));
  set_magnitude_value(S.tmp, g, (f.subnormals ? u64{1} : u64{0}) << f.man_bits);
  g.emin = mpfr_get_exp(S.tmp) - 1;
}

}  // namespace

Scratch::Scratch() {
  for (mpfr_ptr p : {s, fr, g, t, c, yv, tmp, dec, num}) mpfr_init2(p, 192);
  mpfr_init2(k, 64);
}
Scratch::~Scratch() {
  for (mpfr_ptr p : {s, fr, g, t, c, yv, tmp, dec, num, k}) mpfr_clear(p);
}

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

const Geometry& geometry(const Format& f) {
  thread_local GeometryCache cache;
  for (int i = 0; i < kCacheSize; ++i)
    if (cache.used[i] && same_fields(cache.entries[i], f)) return cache.entries[i];
  const int slot = cache.next;
  cache.next = (cache.next + 1) % kCacheSize;
  cache.used[slot] = false;
  build(cache.entries[slot], f);
  cache.used[slot] = true;
  return cache.entries[slot];
}

CodeClass classify_code(const Geometry& g, u64 code) {
  const bool neg = g.is_signed && (code & g.sign_bit) != 0;
  const u64 mag = code & g.mag_all;
  const u64 ef = mag >> g.man_bits;
  const u64 t = mag & low_mask(g.man_bits);
  switch (g.nan) {
    case NanEncoding::none: break;
    case NanEncoding::ieee:
      if (ef == g.exp_all && t != 0) return CodeClass::nan;
      break;
    case NanEncoding::all_ones:
      if (mag == g.mag_all) return CodeClass::nan;
      break;
    case NanEncoding::negative_zero:
      if (neg && mag == 0) return CodeClass::nan;
      break;
    case NanEncoding::max_code:
      if (code == g.code_all) return CodeClass::nan;
      break;
  }
  switch (g.inf) {
    case InfEncoding::none: break;
    case InfEncoding::ieee:
      if (ef == g.exp_all && t == 0) return CodeClass::inf;
      break;
    case InfEncoding::top_code:
      if (mag == g.inf_mag) return CodeClass::inf;
      break;
  }
  if (g.reserve_top_binade && ef == g.exp_all) return CodeClass::nan;  // reserved, no meaning
  if (g.has_zero && mag == 0) return CodeClass::zero;
  return CodeClass::finite;
}

void set_magnitude_value(mpfr_ptr out, const Geometry& g, u64 mag) {
  const u64 ef = mag >> g.man_bits;
  const u64 t = mag & low_mask(g.man_bits);
  if (g.has_zero && mag == 0) {
    mpfr_set_zero(out, 1);
    return;
  }
  // value = sig * 2^scale, exactly (sig < 2^63 fits an unsigned long).
  unsigned long sig;
  long scale;
  if (ef == 0 && g.subnormals) {
    sig = t;
    scale = 1L - g.bias - g.man_bits;
  } else {
    sig = (1UL << g.man_bits) + t;
    scale = static_cast<long>(ef) - g.bias - g.man_bits;
  }
  mpfr_set_ui_2exp(out, sig, scale, MPFR_RNDN);  // exact: out has >= man_bits + 1 bits
}

RangeGuard::RangeGuard() {
  const mpfr_exp_t lo = mpfr_get_emin(), hi = mpfr_get_emax();
  if (lo > -(mpfr_exp_t{1} << 26) || hi < (mpfr_exp_t{1} << 26)) {
    saved_ = true;
    emin_ = lo;
    emax_ = hi;
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
  }
}
RangeGuard::~RangeGuard() {
  if (saved_) {
    mpfr_set_emin(emin_);
    mpfr_set_emax(emax_);
  }
}

}  // namespace detail

using namespace detail;

namespace {

constexpr std::uint8_t kInexact = 0x01, kUnderflow = 0x02, kOverflow = 0x04, kInvalid = 0x10;

u64 signed_code(const Geometry& g, u64 mag, bool neg) {
  return mag | (neg ? g.sign_bit : 0);
}

// The quiet NaN of g with the given sign (where the encoding has one) and payload.
u64 nan_code(const Geometry& g, bool neg, u64 payload_left) {
  switch (g.nan) {
    case NanEncoding::ieee: {
      const int pbits = g.man_bits - 1;  // payload bits below the quiet bit
      u64 t = u64{1} << pbits;           // quiet bit
      if (pbits > 0) t |= payload_left >> (64 - pbits);
      return signed_code(g, (g.exp_all << g.man_bits) | t, neg);
    }
    case NanEncoding::all_ones: return signed_code(g, g.mag_all, neg);
    case NanEncoding::negative_zero: return g.sign_bit;
    case NanEncoding::max_code: return g.code_all;
    case NanEncoding::none: break;
  }
  return 0;
}

// A zero of the requested sign where the format has one; minpos where it has no zero.
u64 zero_or_minpos(const Geometry& g, bool neg) {
  if (g.has_zero) {
    const bool has_negative_zero = g.is_signed && g.nan != NanEncoding::negative_zero;
    return neg && has_negative_zero ? g.sign_bit : 0;
  }
  return signed_code(g, g.min_pos_mag, neg);
}

OracleResult invalid_nan_or_zero(const Geometry& g, bool neg) {
  if (g.nan == NanEncoding::none) return {0, kInvalid};
  return {nan_code(g, neg, 0), kInvalid};
}

OracleResult nan_result(const Geometry& g, const NanInfo& n) {
  if (g.nan == NanEncoding::none) return {0, kInvalid};
  return {nan_code(g, n.negative, n.payload), static_cast<std::uint8_t>(n.signaling ? kInvalid : 0)};
}

inline void ensure_prec(mpfr_ptr v, mpfr_prec_t p) {
  if (mpfr_get_prec(v) != p) mpfr_set_prec(v, p);
}

// Splits |x| / 2^q (known to be < 2^63) into its integer part (returned) and fraction (left
// in S.fr, exact).
unsigned long split_at(Scratch& S, mpfr_srcptr x, long q) {
  const mpfr_prec_t px = std::max<mpfr_prec_t>(mpfr_get_prec(x), 2);
  ensure_prec(S.s, px);
  mpfr_mul_2si(S.s, x, -q, MPFR_RNDN);  // exact: a power-of-two scaling
  mpfr_abs(S.s, S.s, MPFR_RNDN);
  // Integer part into the 64-bit S.k (exact: < 2^63), read through MPFR's documented custom
  // interface (one limb: value = limb * 2^(exp - 64)); mpfr_get_ui would allocate.
  mpfr_trunc(S.k, S.s);
  unsigned long k = 0;
  if (!mpfr_zero_p(S.k)) {
    const mpfr_exp_t ex = mpfr_custom_get_exp(S.k);  // 1..63
    const mp_limb_t limb = *static_cast<const mp_limb_t*>(mpfr_custom_get_significand(S.k));
    k = static_cast<unsigned long>(limb >> (64 - ex));
  }
  ensure_prec(S.fr, px);
  mpfr_sub(S.fr, S.s, S.k, MPFR_RNDN);  // exact: s - floor(s) needs no more bits than s
  return k;
}

// S.c = hi * 2^64 + lo, exactly (S.c has 192 bits).
void set_u128(mpfr_ptr c, unsigned __int128 v) {
  mpfr_set_ui(c, static_cast<unsigned long>(v >> 64), MPFR_RNDN);
  mpfr_mul_2ui(c, c, 64, MPFR_RNDN);
  mpfr_add_ui(c, c, static_cast<unsigned long>(v), MPFR_RNDN);
}

// Whether to move away from zero (to the next multiple of the quantum), given the exact
// dropped fraction f in S.fr, the sign, and whether the truncated code is odd.
bool away_from_zero(Scratch& S, const Rounding& r, bool neg, bool trunc_odd) {
  const bool nonzero = mpfr_zero_p(S.fr) == 0;
  if (!nonzero) return false;  // exact: every mode keeps it
  using M = RoundingMode;
  switch (r.mode) {
    case M::rne: {
      const int c = mpfr_cmp_ui_2exp(S.fr, 1, -1);
      return c > 0 || (c == 0 && trunc_odd);
    }
    case M::rna: return mpfr_cmp_ui_2exp(S.fr, 1, -1) >= 0;
    case M::rtz: return false;
    case M::up: return !neg;
    case M::down: return neg;
    case M::odd: return !trunc_odd;
    case M::stochastic_a:
    case M::stochastic_b:
    case M::stochastic_c:
    case M::stochastic_exact: break;
  }
  const int n = r.stochastic_bits;  // 0..64, checked in round_value
  using U = unsigned __int128;
  const U rnd = n == 64 ? U{r.random} : U{r.random & ((u64{1} << n) - 1)};
  const U two_n = U{1} << n;
  // g = f * 2^n, exact.
  mpfr_set_prec(S.g, mpfr_get_prec(S.fr));
  mpfr_mul_2si(S.g, S.fr, n, MPFR_RNDN);
  switch (r.mode) {
    case M::stochastic_a: {
      // RNE(f 2^n) + r >= 2^n
      mpfr_rint(S.t, S.g, MPFR_RNDN);  // nearest integer, ties to even; exact in 192 bits
      set_u128(S.c, two_n - rnd);
      return mpfr_cmp(S.t, S.c) >= 0;
    }
    case M::stochastic_b: {
      // f + (r + 1/2) 2^-n >= 1  <=>  f 2^(n+1) >= 2^(n+1) - 2r - 1
      mpfr_mul_2ui(S.g, S.g, 1, MPFR_RNDN);
      set_u128(S.c, 2 * two_n - 2 * rnd - 1);
      return mpfr_cmp(S.g, S.c) >= 0;
    }
    case M::stochastic_c: {
      // floor(f 2^n) + r >= 2^n  <=>  f 2^n >= 2^n - r  (the right side is an integer)
      set_u128(S.c, two_n - rnd);
      return mpfr_cmp(S.g, S.c) >= 0;
    }
    case M::stochastic_exact: {
      // r < f 2^n
      set_u128(S.c, rnd);
      return mpfr_cmp(S.g, S.c) > 0;
    }
    default: break;
  }
  return false;
}

// Low bit of the magnitude code of k * 2^q (k >= 1) on the format's grid, the exponent field
// extended without bound (so it is meaningful past maxf too). For m = 0 it is the exponent
// field's low bit.
bool grid_code_odd(const Geometry& g, unsigned long k, long q) {
  const int len = 64 - std::countl_zero(k);
  const long ey = q + len - 1;
  if (g.subnormals && ey < g.emin) {
    // Subnormal: T = k * 2^(q - (emin - m)); with m = 0 the value would be >= 2^emin.
    const long sh = q - (g.emin - g.man_bits);
    return sh == 0 && (k & 1) != 0;
  }
  if (g.man_bits == 0) return ((ey + g.bias) & 1) != 0;
  // Significand bits: k shifted to m+1 bits; its low bit is T's low bit.
  const int sh = g.man_bits + 1 - len;
  if (sh > 0) return false;  // shifted left: low bit zero
  if (sh == 0) return (k & 1) != 0;
  return ((k >> -sh) & 1) != 0;
}

// Magnitude code of the value k * 2^q (k >= 1) that is known to be finite in g.
u64 encode_grid(const Geometry& g, unsigned long k, long q) {
  const int len = 64 - std::countl_zero(k);
  const long ey = q + len - 1;
  if (g.subnormals && ey < g.emin) {
    const long sh = q - (g.emin - g.man_bits);  // >= 0 on the subnormal grid
    return static_cast<u64>(k) << sh;           // E = 0, T = value / 2^(emin - m)
  }
  const u64 efield = static_cast<u64>(ey + g.bias);
  const int sh = g.man_bits + 1 - len;
  const u64 sig = sh >= 0 ? static_cast<u64>(k) << sh : static_cast<u64>(k) >> -sh;
  const u64 t = sig - (u64{1} << g.man_bits);
  return (efield << g.man_bits) | t;
}

bool overflow_goes_away(RoundingMode m, bool neg) {
  using M = RoundingMode;
  switch (m) {
    case M::rne:
    case M::rna:
    case M::stochastic_a:
    case M::stochastic_b:
    case M::stochastic_c:
    case M::stochastic_exact: return true;
    case M::up: return !neg;
    case M::down: return neg;
    case M::rtz:
    case M::odd: return false;
  }
  return false;
}

OracleResult round_finite(mpfr_srcptr x, const Geometry& g, const Rounding& r) {
  Scratch& S = scratch();
  const bool neg = mpfr_signbit(x) != 0;
  const long m = g.man_bits;
  const long e = static_cast<long>(mpfr_get_exp(x)) - 1;  // floor(log2 |x|)

  // 1. The grid.
  long q;
  if (g.subnormals) q = std::max(e, g.emin) - m;
  else q = e >= g.emin ? e - m : g.emin;

  // 2. Round.
  const unsigned long k = split_at(S, x, q);
  const bool inexact = mpfr_zero_p(S.fr) == 0;
  const bool trunc_odd = k != 0 && grid_code_odd(g, k, q);
  const bool away = away_from_zero(S, r, neg, trunc_odd);
  const unsigned long yk = k + (away ? 1 : 0);

  // 3. Tininess.
  bool tiny = false;
  if (e < g.emin) {
    if (r.tininess == Tininess::before_rounding) {
      tiny = true;
    } else {
      // |x| rounded to p bits with an unbounded exponent range.
      const long q1 = e - m;
      const unsigned long k1 = split_at(S, x, q1);  // k1 in [2^m, 2^(m+1))
      const bool odd1 = m == 0 ? ((e + g.bias) & 1) != 0 : (k1 & 1) != 0;
      const bool away1 = away_from_zero(S, r, neg, odd1);
      const bool carried = away1 && k1 + 1 == (1UL << (m + 1));
      tiny = !(carried && e + 1 >= g.emin);
    }
  }

  // 4. Flush to zero.
  if (r.ftz && tiny) return {zero_or_minpos(g, neg), static_cast<std::uint8_t>(kUnderflow | kInexact)};

  // 5. Flags.
  std::uint8_t flags = 0;
  if (inexact) flags |= kInexact;
  if (tiny && inexact) flags |= kUnderflow;

  // 6. Overflow, decided on the rounded value.
  if (yk != 0) {
    // y = yk * 2^q against maxf, both as (exponent of the leading bit, significand
    // left-aligned in 64 bits), compared lexicographically.
    const int ylen = 64 - std::countl_zero(yk);
    const long ytop = q + ylen - 1;
    const u64 yaligned = static_cast<u64>(yk) << (64 - ylen);
    if (ytop > g.emax || (ytop == g.emax && yaligned > g.maxf_aligned)) {
      flags |= kOverflow | kInexact;
      u64 code = signed_code(g, g.max_mag, neg);
      if (r.sat == Saturation::none && overflow_goes_away(r.mode, neg)) {
        if (g.inf != InfEncoding::none) code = signed_code(g, g.inf_mag, neg);
        else if (g.nan != NanEncoding::none) code = nan_code(g, neg, 0);
      }
      return {code, flags};
    }
  }

  // 7. Zero result.
  if (yk == 0) return {zero_or_minpos(g, neg), flags};

  // 8. Encode.
  return {signed_code(g, encode_grid(g, yk, q), neg), flags};
}

OracleResult round_value(mpfr_srcptr x, const Geometry& g, const Rounding& r,
                         const NanInfo* nan) {
  if (r.mode >= RoundingMode::stochastic_a && (r.stochastic_bits < 0 || r.stochastic_bits > 64))
    throw Error("rounding", "stochastic_bits must be 0..64, got " + std::to_string(r.stochastic_bits));
  // 1. NaN.
  if (mpfr_nan_p(x)) {
    NanInfo def;
    return nan_result(g, nan ? *nan : def);
  }
  const bool neg = mpfr_signbit(x) != 0;
  // 2. Negative non-zero into an unsigned format.
  if (neg && !g.is_signed && !mpfr_zero_p(x)) return invalid_nan_or_zero(g, false);
  // 3. Infinity.
  if (mpfr_inf_p(x)) {
    const bool has_inf = g.inf != InfEncoding::none;
    if (has_inf && r.sat != Saturation::finite) return {signed_code(g, g.inf_mag, neg), 0};
    if (r.sat == Saturation::finite || g.nan == NanEncoding::none)
      return {signed_code(g, g.max_mag, neg), static_cast<std::uint8_t>(kOverflow | kInexact)};
    return {nan_code(g, neg, 0), kInvalid};
  }
  // 4. Zero.
  if (mpfr_zero_p(x)) {
    // "+0 where F has no negative zero": a format without any zero has none either, so a -0
    // becomes +minpos. (A finite negative x that rounds to zero keeps its sign: -minpos.)
    if (g.has_zero) return {zero_or_minpos(g, neg && g.is_signed), 0};
    return {zero_or_minpos(g, false), static_cast<std::uint8_t>(kUnderflow | kInexact)};
  }
  return round_finite(x, g, r);
}

void check_width(const Geometry& g, u64 bits) {
  if ((bits & ~g.code_all) != 0)
    throw Error("bits", "code has bits above the format's width " + std::to_string(g.width));
}

}  // namespace

// ---------------------------------------------------------------------------------------------

CodeClass classify(std::uint64_t bits, const Format& f) {
  const Geometry& g = geometry(f);
  check_width(g, bits);
  return classify_code(g, bits);
}

Limits limits(const Format& f) {
  const Geometry& g = geometry(f);
  Limits l;
  l.max_finite_magnitude = g.max_mag;
  l.min_positive_magnitude = g.min_pos_mag;
  l.inf_magnitude = g.inf_mag;
  l.emin = g.emin;
  l.emax = g.emax;
  return l;
}

void max_finite(mpfr_t out, const Format& f) {
  const Geometry& g = geometry(f);
  mpfr_set_prec(out, std::max(2, g.man_bits + 1));
  mpfr_set(out, g.maxf, MPFR_RNDN);
}

void min_positive(mpfr_t out, const Format& f) {
  const Geometry& g = geometry(f);
  mpfr_set_prec(out, std::max(2, g.man_bits + 1));
  set_magnitude_value(out, g, g.min_pos_mag);
}

bool decode(mpfr_t out, std::uint64_t bits, const Format& f, bool daz, bool* signaling) {
  const Geometry& g = geometry(f);
  check_width(g, bits);
  if (signaling) *signaling = false;
  if (mpfr_get_prec(out) != std::max(2, g.man_bits + 1)) mpfr_set_prec(out, std::max(2, g.man_bits + 1));
  const bool neg = g.is_signed && (bits & g.sign_bit) != 0;
  const u64 mag = bits & g.mag_all;
  switch (classify_code(g, bits)) {
    case CodeClass::nan:
      mpfr_set_nan(out);
      mpfr_setsign(out, out, neg, MPFR_RNDN);
      if (signaling) *signaling = nan_info(bits, f).signaling;
      return false;
    case CodeClass::inf: mpfr_set_inf(out, neg ? -1 : 1); return true;
    case CodeClass::zero: mpfr_set_zero(out, neg ? -1 : 1); return true;
    case CodeClass::finite: break;
  }
  const bool subnormal = g.subnormals && (mag >> g.man_bits) == 0;
  if (daz && subnormal) {
    mpfr_set_zero(out, neg ? -1 : 1);
    return true;
  }
  set_magnitude_value(out, g, mag);
  if (neg) mpfr_neg(out, out, MPFR_RNDN);
  return true;
}

NanInfo nan_info(std::uint64_t bits, const Format& f) {
  const Geometry& g = geometry(f);
  NanInfo n;
  // Only the signed NaN encodings (ieee, all_ones) carry a sign; the single NaN of fnuz/P3109
  // (the code 1000...0) and max_code have none, so they read as positive.
  n.negative = g.is_signed && (bits & g.sign_bit) != 0 &&
               (f.nan == NanEncoding::ieee || f.nan == NanEncoding::all_ones);
  if (f.nan == NanEncoding::ieee && f.man_bits >= 1) {
    const u64 mag = bits & g.mag_all;
    const u64 t = mag & low_mask(f.man_bits);
    if ((mag >> f.man_bits) == g.exp_all && t != 0) {
      const int pbits = f.man_bits - 1;
      n.signaling = ((t >> pbits) & 1) == 0;
      const u64 payload = t & low_mask(pbits);
      n.payload = pbits > 0 ? payload << (64 - pbits) : 0;
    }
  }
  return n;
}

OracleResult round_nan(const NanInfo& nan, const Format& f) {
  return nan_result(geometry(f), nan);
}

OracleResult round_exact(mpfr_srcptr x, const Format& f, const Rounding& r,
                         const NanSource* nan_source) {
  RangeGuard guard;
  // The NaN description first: looking up another format may evict a cached geometry.
  if (mpfr_nan_p(x) && nan_source && nan_source->format) {
    const NanInfo n = nan_info(nan_source->bits, *nan_source->format);
    return round_value(x, geometry(f), r, &n);
  }
  return round_value(x, geometry(f), r, nullptr);
}

OracleResult convert(std::uint64_t bits, const Format& from, const Format& to, const Rounding& r) {
  RangeGuard guard;
  Scratch& S = scratch();
  bool signaling = false;
  if (!decode(S.dec, bits, from, r.daz, &signaling)) {
    const NanInfo n = nan_info(bits, from);
    return nan_result(geometry(to), n);
  }
  return round_value(S.dec, geometry(to), r, nullptr);
}

namespace detail {
OracleResult round_with_nan(mpfr_srcptr x, const Format& f, const Rounding& r, const NanInfo* n) {
  RangeGuard guard;
  return round_value(x, geometry(f), r, n);
}
}  // namespace detail

}  // namespace fpconform::reference
