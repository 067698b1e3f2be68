// ExactAccumulator: products and addends as integers times powers of two (mpfr_get_z_2exp on
// the oracle's own decode), summed in one GMP integer whose last-bit weight only ever moves
// down, so nothing is rounded before round_exact.
#include "fpconform/reference/dot.hpp"

#include <mpfr.h>

#include "fpconform/core/error.hpp"
#include "internal.hpp"

namespace fpconform::reference {

namespace {

// x (finite, non-zero) = m * 2^e exactly.
long to_integer(mpz_t m, mpfr_srcptr x) { return static_cast<long>(mpfr_get_z_2exp(m, x)); }

}  // namespace

ExactAccumulator::ExactAccumulator() {
  mpz_init(acc_);
  mpz_init(term_);
}

ExactAccumulator::~ExactAccumulator() {
  mpz_clear(acc_);
  mpz_clear(term_);
}

void ExactAccumulator::clear() {
  mpz_set_ui(acc_, 0);
  lsb_ = 0;
  any_term_ = false;
  nan_ = invalid_ = pos_inf_ = neg_inf_ = false;
  all_zero_terms_ = true;
  any_pos_zero_ = any_neg_zero_ = false;
}

// Adds term_ * 2^e (term_ != 0) to the accumulator.
static void accumulate(mpz_t acc, long& lsb, bool& any, mpz_t term, long e) {
  if (!any) {
    mpz_set(acc, term);
    lsb = e;
    any = true;
    return;
  }
  if (e < lsb) {
    mpz_mul_2exp(acc, acc, static_cast<mp_bitcnt_t>(lsb - e));
    lsb = e;
  }
  if (e > lsb) mpz_mul_2exp(term, term, static_cast<mp_bitcnt_t>(e - lsb));
  mpz_add(acc, acc, term);
}

void ExactAccumulator::add_product(std::uint64_t a, const Format& fa, std::uint64_t b,
                                   const Format& fb) {
  detail::RangeGuard guard;
  mpfr_t x, y;
  mpfr_init2(x, 80);
  mpfr_init2(y, 80);
  bool sx = false, sy = false;
  const bool xn = !decode(x, a, fa, false, &sx), yn = !decode(y, b, fb, false, &sy);
  if (xn || yn) {
    nan_ = true;
    invalid_ = invalid_ || (xn && sx) || (yn && sy);
  } else if (mpfr_inf_p(x) || mpfr_inf_p(y)) {
    if (mpfr_zero_p(x) || mpfr_zero_p(y)) nan_ = invalid_ = true;
    else ((mpfr_signbit(x) != 0) != (mpfr_signbit(y) != 0) ? neg_inf_ : pos_inf_) = true;
  } else if (mpfr_zero_p(x) || mpfr_zero_p(y)) {
    ((mpfr_signbit(x) != 0) != (mpfr_signbit(y) != 0) ? any_neg_zero_ : any_pos_zero_) = true;
  } else {
    all_zero_terms_ = false;
    mpz_t m2;
    mpz_init(m2);
    const long e1 = to_integer(term_, x), e2 = to_integer(m2, y);
    mpz_mul(term_, term_, m2);
    mpz_clear(m2);
    accumulate(acc_, lsb_, any_term_, term_, e1 + e2);
  }
  mpfr_clear(x);
  mpfr_clear(y);
}

void ExactAccumulator::add(std::uint64_t c, const Format& fc) {
  detail::RangeGuard guard;
  mpfr_t x;
  mpfr_init2(x, 80);
  bool signaling = false;
  if (!decode(x, c, fc, false, &signaling)) {
    nan_ = true;
    invalid_ = invalid_ || signaling;
  } else if (mpfr_inf_p(x)) {
    (mpfr_signbit(x) ? neg_inf_ : pos_inf_) = true;
  } else if (mpfr_zero_p(x)) {
    (mpfr_signbit(x) ? any_neg_zero_ : any_pos_zero_) = true;
  } else {
    all_zero_terms_ = false;
    const long e = to_integer(term_, x);
    accumulate(acc_, lsb_, any_term_, term_, e);
  }
  mpfr_clear(x);
}

void ExactAccumulator::value(mpfr_t out) const {
  if (nan_ || (pos_inf_ && neg_inf_)) {
    mpfr_set_prec(out, 2);
    mpfr_set_nan(out);
    return;
  }
  if (pos_inf_ || neg_inf_) {
    mpfr_set_prec(out, 2);
    mpfr_set_inf(out, neg_inf_ ? -1 : 1);
    return;
  }
  if (!any_term_ || mpz_sgn(acc_) == 0) {
    mpfr_set_prec(out, 2);
    mpfr_set_zero(out, 1);
    return;
  }
  const auto bits = static_cast<mpfr_prec_t>(mpz_sizeinbase(acc_, 2));
  mpfr_set_prec(out, bits < 2 ? 2 : bits);
  mpfr_set_z_2exp(out, acc_, lsb_, MPFR_RNDN);  // exact: the precision holds every bit
}

OracleResult ExactAccumulator::round(const Format& out, const Rounding& r) const {
  detail::RangeGuard guard;
  mpfr_t x;
  mpfr_init2(x, 2);
  value(x);
  OracleResult res;
  if (mpfr_nan_p(x)) {
    res = round_exact(x, out, r, nullptr);
    if (invalid_ || (pos_inf_ && neg_inf_)) res.flags |= Flags::invalid;
  } else if (mpfr_zero_p(x)) {
    // IEEE's sign of an exact zero sum.
    bool negative;
    if (all_zero_terms_ && any_neg_zero_ != any_pos_zero_) negative = any_neg_zero_;
    else negative = r.mode == RoundingMode::down;
    mpfr_set_zero(x, negative ? -1 : 1);
    res = round_exact(x, out, r, nullptr);
  } else {
    res = round_exact(x, out, r, nullptr);
  }
  mpfr_clear(x);
  return res;
}

OracleResult exact_dot(std::span<const std::uint64_t> a, const Format& fa,
                       std::span<const std::uint64_t> b, const Format& fb, std::uint64_t c,
                       const Format& fc, const Format& out, const Rounding& r) {
  if (a.size() != b.size())
    throw Error("b", "a has " + std::to_string(a.size()) + " elements, b has " +
                         std::to_string(b.size()));
  ExactAccumulator acc;
  for (std::size_t i = 0; i < a.size(); ++i) acc.add_product(a[i], fa, b[i], fb);
  acc.add(c, fc);
  return acc.round(out, r);
}

DotError dot_error(const Format& in, std::span<const std::uint64_t> a,
                   std::span<const std::uint64_t> b, const Format& cf, std::uint64_t c,
                   const Format& df, std::uint64_t d) {
  ExactAccumulator acc;
  for (std::size_t i = 0; i < a.size(); ++i) acc.add_product(a[i], in, b[i], in);
  acc.add(c, cf);
  mpfr_t exact, got, diff;
  mpfr_init2(exact, 2);
  mpfr_inits2(64, got, diff, (mpfr_ptr)0);
  acc.value(exact);
  decode(got, d, df, false);
  DotError r;
  if (!mpfr_number_p(exact) || !mpfr_number_p(got) ||
      (!mpfr_zero_p(exact) && mpfr_get_exp(exact) > df.emax() + 1)) {
    r.overflow = true;
  } else {
    r.value = mpfr_get_d(exact, MPFR_RNDN);
    mpfr_set_prec(diff, mpfr_get_prec(exact) + 4096);
    mpfr_sub(diff, got, exact, MPFR_RNDN);
    mpfr_abs(diff, diff, MPFR_RNDN);
    r.err = mpfr_get_d(diff, MPFR_RNDU);
  }
  mpfr_clears(exact, got, diff, (mpfr_ptr)0);
  return r;
}

}  // namespace fpconform::reference
