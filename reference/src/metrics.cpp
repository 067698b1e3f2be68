// Error metrics between a computed code and an exact value, and the distance in codes.
#include <cmath>
#include <limits>
#include <string>

#include "fpconform/core/error.hpp"
#include "internal.hpp"

namespace fpconform::reference {

using namespace detail;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// 0 or +inf when a special is involved; -1 when both are finite (go on measuring).
double special_case(CodeClass cc, bool cneg, mpfr_srcptr exact) {
  if (mpfr_nan_p(exact)) return cc == CodeClass::nan ? 0.0 : kInf;
  if (mpfr_inf_p(exact))
    return cc == CodeClass::inf && cneg == (mpfr_signbit(exact) != 0) ? 0.0 : kInf;
  if (cc == CodeClass::nan || cc == CodeClass::inf) return kInf;
  return -1.0;
}

// The shared prologue of the error metrics: -1 (and S.g = computed - exact, signed, at 128
// bits) when both are finite; else the metric's value for the special case (0 or +inf).
// `classified` gets the computed code's class.
double signed_difference(std::uint64_t computed, mpfr_srcptr exact, const Geometry& g,
                         CodeClass& classified) {
  if ((computed & ~g.code_all) != 0) throw Error("bits", "code wider than the format");
  classified = classify_code(g, computed);
  const bool cneg = g.is_signed && (computed & g.sign_bit);
  const double sp = special_case(classified, cneg, exact);
  if (sp >= 0) return sp;
  Scratch& S = scratch();
  mpfr_set_prec(S.tmp, std::max(2, g.man_bits + 1));
  set_magnitude_value(S.tmp, g, computed & g.mag_all);
  if (cneg) mpfr_neg(S.tmp, S.tmp, MPFR_RNDN);
  mpfr_set_prec(S.g, 128);
  mpfr_sub(S.g, S.tmp, exact, MPFR_RNDN);
  return -1.0;
}

}  // namespace

double ulp_error(std::uint64_t computed, mpfr_srcptr exact, const Format& f) {
  RangeGuard guard;
  const Geometry& g = geometry(f);
  CodeClass cc;
  const double sp = signed_difference(computed, exact, g, cc);
  if (sp >= 0) return sp;
  Scratch& S = scratch();
  mpfr_abs(S.g, S.g, MPFR_RNDN);
  long e = g.emin;
  if (!mpfr_zero_p(exact)) e = std::max<long>(static_cast<long>(mpfr_get_exp(exact)) - 1, g.emin);
  mpfr_mul_2si(S.g, S.g, -(e - g.man_bits), MPFR_RNDN);
  return mpfr_get_d(S.g, MPFR_RNDN);
}

double relative_error(std::uint64_t computed, mpfr_srcptr exact, const Format& f) {
  RangeGuard guard;
  const Geometry& g = geometry(f);
  CodeClass cc;
  const double sp = signed_difference(computed, exact, g, cc);
  if (sp >= 0) return sp;
  if (mpfr_zero_p(exact)) return cc == CodeClass::zero ? 0.0 : kInf;
  Scratch& S = scratch();
  mpfr_div(S.g, S.g, exact, MPFR_RNDN);
  mpfr_abs(S.g, S.g, MPFR_RNDN);
  return mpfr_get_d(S.g, MPFR_RNDN);
}

std::int64_t code_distance(std::uint64_t a, std::uint64_t b, const Format& f) {
  const Geometry& g = geometry(f);
  auto index = [&](u64 code) -> std::int64_t {
    if ((code & ~g.code_all) != 0) throw Error("bits", "code wider than the format");
    const CodeClass cc = classify_code(g, code);
    if (cc == CodeClass::nan || cc == CodeClass::inf)
      throw Error("bits", "code_distance needs finite codes");
    const bool neg = g.is_signed && (code & g.sign_bit);
    const u64 mag = code & g.mag_all;
    // Finite magnitudes are the contiguous codes 0..max_mag, increasing in value. With a zero,
    // +0 and -0 share index 0; without one, -minpos sits just below +minpos.
    const std::int64_t i = static_cast<std::int64_t>(mag);
    if (!neg) return i;
    return g.has_zero ? -i : -i - 1;
  };
  return index(a) - index(b);
}

}  // namespace fpconform::reference
