#include "oracle_util.hpp"

#include <cmath>

#include <mpfr.h>

#include "fpconform/convert.hpp"
#include "fpconform/exact.hpp"
#include "fpconform/reference/dot.hpp"
#include "fpconform/reference/oracle.hpp"

namespace fpconform::tolerance::test {

OracleError oracle_error(const Format& in, std::span<const std::uint64_t> a,
                         std::span<const std::uint64_t> b, const Format& cf, std::uint64_t c,
                         const Format& df, std::uint64_t d) {
  reference::ExactAccumulator acc;
  for (std::size_t i = 0; i < a.size(); ++i) acc.add_product(a[i], in, b[i], in);
  acc.add(c, cf);
  mpfr_t exact, got, diff;
  mpfr_init2(exact, 2);
  mpfr_inits2(64, got, diff, (mpfr_ptr)0);
  acc.value(exact);
  reference::decode(got, d, df, false);
  OracleError r;
  if (!mpfr_number_p(exact) || !mpfr_number_p(got) ||
      (!mpfr_zero_p(exact) && mpfr_get_exp(exact) > df.emax() + 1)) {
    r.overflow = true;
  } else {
    mpfr_set_prec(diff, mpfr_get_prec(exact) + 4096);
    mpfr_sub(diff, got, exact, MPFR_RNDN);
    mpfr_abs(diff, diff, MPFR_RNDN);
    r.err = mpfr_get_d(diff, MPFR_RNDU);
  }
  mpfr_clears(exact, got, diff, (mpfr_ptr)0);
  return r;
}

std::uint64_t code_of(double v, const Format& f, RoundingMode m) {
  if (v == 0) return 0;
  int e = 0;
  const double fr = std::frexp(std::fabs(v), &e);
  const auto sig = static_cast<u128>(std::ldexp(fr, 53));
  Rounding r;
  r.mode = m;
  r.sat = Saturation::finite;
  return round_to_format(ExactValue::finite(v < 0, sig, e - 53), f, r).bits;
}

}  // namespace fpconform::tolerance::test
