// ExactAccumulator: products and addends as integers times powers of two (mpfr_get_z_2exp on
// the oracle's own decode), summed in one GMP integer whose last-bit weight only ever moves
// down, so nothing is rounded before round_exact. Products of narrow formats are first summed
// per exponent in int64 (exact), then joined to the GMP integer.
#include "fpconform/reference/dot.hpp"

#include <mpfr.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "fpconform/core/error.hpp"
#include "internal.hpp"

namespace fpconform::reference {

namespace {

// MPFR and GMP variables cleared on every way out (decode throws for a code outside its format).
struct MpfrVar {
  mpfr_t v;
  explicit MpfrVar(mpfr_prec_t prec) { mpfr_init2(v, prec); }
  ~MpfrVar() { mpfr_clear(v); }
  MpfrVar(const MpfrVar&) = delete;
  MpfrVar& operator=(const MpfrVar&) = delete;
};
struct MpzVar {
  mpz_t v;
  MpzVar() { mpz_init(v); }
  ~MpzVar() { mpz_clear(v); }
  MpzVar(const MpzVar&) = delete;
  MpzVar& operator=(const MpzVar&) = delete;
};

// x (finite, non-zero) = m * 2^e exactly.
long to_integer(mpz_t m, mpfr_srcptr x) { return static_cast<long>(mpfr_get_z_2exp(m, x)); }

// One code of a table format, read by the oracle's decode: a finite value m * 2^e (m odd, its
// sign the value's; m = 0 for a zero), or a special.
enum class Kind : std::uint8_t { finite, special };
struct CodeEntry {
  std::int32_t m = 0;
  std::int32_t e = 0;
  Kind kind = Kind::special;
  bool negative = false;  // of a zero
};

bool table_format(const Format& f) { return f.width() <= 16 && f.precision() <= 12; }

// The table of f: every code 0 .. 2^width - 1, built once per process and format.
const std::vector<CodeEntry>& table_of(const Format& f) {
  static std::mutex mu;
  static std::vector<std::pair<Format, std::unique_ptr<std::vector<CodeEntry>>>> cache;
  const std::lock_guard lock(mu);
  for (const auto& [g, t] : cache)
    if (g == f) return *t;
  auto t = std::make_unique<std::vector<CodeEntry>>(std::size_t{1} << f.width());
  detail::RangeGuard guard;
  MpfrVar xv(80);
  MpzVar mv;
  mpfr_ptr x = xv.v;
  mpz_ptr m = mv.v;
  for (std::size_t code = 0; code < t->size(); ++code) {
    CodeEntry& c = (*t)[code];
    if (!decode(x, code, f, false) || mpfr_inf_p(x)) continue;  // NaN, inf: special
    c.kind = Kind::finite;
    if (mpfr_zero_p(x)) {
      c.negative = mpfr_signbit(x) != 0;
      continue;
    }
    long e = to_integer(m, x);
    const mp_bitcnt_t tz = mpz_scan1(m, 0);
    mpz_fdiv_q_2exp(m, m, tz);  // exact: tz trailing zeros
    e += static_cast<long>(tz);
    c.m = static_cast<std::int32_t>(mpz_get_si(m));
    c.e = static_cast<std::int32_t>(e);
  }
  cache.emplace_back(f, std::move(t));
  return *cache.back().second;
}

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
  for (int i = lo_; i <= hi_; ++i) bucket_[static_cast<std::size_t>(i)] = 0;
  lo_ = kBuckets;
  hi_ = -1;
  fast_terms_ = 0;
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
  MpfrVar xv(80), yv(80);
  mpfr_ptr x = xv.v, y = yv.v;
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
    MpzVar m2;
    const long e1 = to_integer(term_, x), e2 = to_integer(m2.v, y);
    mpz_mul(term_, term_, m2.v);
    accumulate(acc_, lsb_, any_term_, term_, e1 + e2);
  }
}

void ExactAccumulator::add_products(std::span<const std::uint64_t> a, const Format& fa,
                                    const std::uint64_t* b, std::size_t stride_b,
                                    const Format& fb) {
  if (!table_format(fa) || !table_format(fb)) {
    for (std::size_t i = 0; i < a.size(); ++i) add_product(a[i], fa, b[i * stride_b], fb);
    return;
  }
  const std::vector<CodeEntry>& ta = table_of(fa);
  const std::vector<CodeEntry>& tb = table_of(fb);
  if (bucket_.empty()) bucket_.assign(kBuckets, 0);
  const std::uint64_t wa = ta.size(), wb = tb.size();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::uint64_t ca = a[i], cb = b[i * stride_b];
    if (ca >= wa || cb >= wb) {
      add_product(ca, fa, cb, fb);
      continue;
    }
    const CodeEntry& x = ta[ca];
    const CodeEntry& y = tb[cb];
    if (x.kind != Kind::finite || y.kind != Kind::finite) {
      add_product(ca, fa, cb, fb);  // NaN or inf: the general path's flags
      continue;
    }
    if (x.m == 0 || y.m == 0) {
      const bool negative = (x.m == 0 ? x.negative : x.m < 0) != (y.m == 0 ? y.negative : y.m < 0);
      (negative ? any_neg_zero_ : any_pos_zero_) = true;
      continue;
    }
    const int idx = x.e + y.e - kBucketBase;
    if (idx < 0 || idx >= kBuckets) {
      add_product(ca, fa, cb, fb);
      continue;
    }
    all_zero_terms_ = false;
    bucket_[static_cast<std::size_t>(idx)] += static_cast<std::int64_t>(x.m) * y.m;
    lo_ = std::min(lo_, idx);
    hi_ = std::max(hi_, idx);
    if (++fast_terms_ >> 38) merge_buckets();
  }
}

// Adjacent exponents are gathered in an __int128 (at most 41 buckets below 2^63 each, shifted
// by at most 40) before each GMP addition.
void ExactAccumulator::merge_buckets() const {
  if (hi_ < lo_) return;
  __int128 v = 0;
  int base = lo_;
  auto flush = [&] {
    if (v == 0) return;
    const bool negative = v < 0;
    const unsigned __int128 mag = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
    const std::uint64_t limbs[2] = {static_cast<std::uint64_t>(mag), static_cast<std::uint64_t>(mag >> 64)};
    mpz_import(term_, 2, -1, sizeof(std::uint64_t), 0, 0, limbs);
    if (negative) mpz_neg(term_, term_);
    accumulate(acc_, lsb_, any_term_, term_, base + kBucketBase);
  };
  for (int i = lo_; i <= hi_; ++i) {
    std::int64_t& x = bucket_[static_cast<std::size_t>(i)];
    if (x == 0) continue;
    if (i - base > 40) {
      flush();
      v = 0;
      base = i;
    }
    v += static_cast<__int128>(x) * (static_cast<__int128>(1) << (i - base));
    x = 0;
  }
  flush();
  lo_ = kBuckets;
  hi_ = -1;
  fast_terms_ = 0;
}

void ExactAccumulator::add(std::uint64_t c, const Format& fc) {
  detail::RangeGuard guard;
  MpfrVar xv(80);
  mpfr_ptr x = xv.v;
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
}

void ExactAccumulator::value(mpfr_t out) const {
  merge_buckets();
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
  acc.add_products(a, fa, b.data(), 1, fb);
  acc.add(c, fc);
  return acc.round(out, r);
}

DotError dot_error(const Format& in, std::span<const std::uint64_t> a,
                   std::span<const std::uint64_t> b, const Format& cf, std::uint64_t c,
                   const Format& df, std::uint64_t d) {
  if (a.size() != b.size())
    throw Error("b", "a has " + std::to_string(a.size()) + " elements, b has " +
                         std::to_string(b.size()));
  ExactAccumulator acc;
  acc.add_products(a, in, b.data(), 1, in);
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
