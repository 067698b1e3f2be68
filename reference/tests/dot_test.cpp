// The exact accumulator against MPFR's own exact summation (mpfr_mul at full precision, then
// mpfr_sum at a precision covering the whole exponent span, so both sides are exact and only
// the final round_exact is shared), on random and adversarial vectors; and by hand.
#include <random>
#include <span>
#include <vector>

#include "fpconform/reference/dot.hpp"
#include "test_util.hpp"

namespace reftest {
namespace {

using fpconform::reference::exact_dot;
using fpconform::reference::ExactAccumulator;

// Exact a . b + c by MPFR alone; false if any term is NaN or inf (not compared here).
bool mpfr_exact_dot(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                    const Format& fin, std::uint64_t c, const Format& fc, mpfr_t sum) {
  const std::size_t n = a.size();
  std::vector<mpfr_t> terms(n + 1);
  std::vector<mpfr_ptr> ptrs;
  bool finite = true;
  for (std::size_t i = 0; i <= n; ++i) {
    mpfr_init2(terms[i], 2 * 64 + 2);
    if (i < n) {
      Mp x(64), y(64);
      finite = fpconform::reference::decode(x, a[i], fin, false) &&
               fpconform::reference::decode(y, b[i], fin, false) && !mpfr_inf_p(x) &&
               !mpfr_inf_p(y) && finite;
      mpfr_mul(terms[i], x, y, MPFR_RNDN);  // exact: 128 bits hold any product of <= 64-bit sigs
    } else {
      Mp z(64);
      finite = fpconform::reference::decode(z, c, fc, false) && !mpfr_inf_p(z) && finite;
      mpfr_set(terms[i], z, MPFR_RNDN);
    }
    ptrs.push_back(terms[i]);
  }
  // Every term lies within [2^-2300, 2^2100): 5000 bits plus log2(n) cover any sum exactly.
  mpfr_set_prec(sum, 5000 + 64);
  if (finite) mpfr_sum(sum, ptrs.data(), n + 1, MPFR_RNDN);
  for (auto& t : terms) mpfr_clear(t);
  return finite;
}

std::uint64_t random_finite(std::mt19937_64& rng, const Format& f) {
  for (;;) {
    const std::uint64_t v = rng() & f.code_mask();
    if (fpconform::reference::classify(v, f) == fpconform::reference::CodeClass::finite ||
        fpconform::reference::classify(v, f) == fpconform::reference::CodeClass::zero)
      return v;
  }
}

TEST(ExactDot, AgreesWithMpfrSumOnRandomAndAdversarialVectors) {
  std::mt19937_64 rng(2026);
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {{"f16", "f32"}, {"bf16", "f32"}, {"e4m3", "f32"}, {"e5m2", "f16"},
               {"e2m1", "bf16"}, {"f32", "f32"}, {"f64", "f64"}, {"tf32", "f16"}};
  const RoundingMode modes[] = {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up,
                                RoundingMode::down, RoundingMode::odd};
  int checked = 0;
  for (const Case& cs : cases) {
    const Format fin = fmt(cs.in), fout = fmt(cs.out);
    for (int t = 0; t < 300; ++t) {
      const std::size_t n = 1 + rng() % (t % 3 == 0 ? 300 : 40);
      std::vector<std::uint64_t> a(n), b(n);
      for (std::size_t i = 0; i < n; ++i) {
        a[i] = random_finite(rng, fin);
        b[i] = random_finite(rng, fin);
      }
      if (t % 4 == 1) {
        // Cancellation: the second half negates the first half's products, one element
        // slightly changed, so the exact sum is tiny next to the terms.
        for (std::size_t i = n / 2; i < n; ++i) {
          a[i] = a[i - n / 2] ^ fin.sign_mask();
          b[i] = b[i - n / 2];
        }
        if (n > 1) b[n - 1] ^= 1;
      }
      std::uint64_t c = random_finite(rng, fout);
      if (t % 5 == 2) c = 0;
      Mp want_sum(2);
      if (!mpfr_exact_dot(a, b, fin, c, fout, want_sum)) continue;
      ExactAccumulator acc;
      for (std::size_t i = 0; i < n; ++i) acc.add_product(a[i], fin, b[i], fin);
      acc.add(c, fout);
      Mp got_sum(2);
      acc.value(got_sum);
      ASSERT_EQ(mpfr_cmp(got_sum, want_sum), 0) << cs.in << " case " << t;
      for (RoundingMode m : modes) {
        Rounding r;
        r.mode = m;
        const OracleResult got = acc.round(fout, r);
        if (mpfr_zero_p(want_sum)) continue;  // zero signs are checked by hand below
        const OracleResult want = fpconform::reference::round_exact(want_sum, fout, r);
        ASSERT_EQ(got, want) << cs.in << " case " << t;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// add_products (narrow formats through decode tables and per-exponent int64 sums) against
// mpfr_sum and against add_product term by term, on every kind of code: finite, both zeros,
// infinities, quiet and signaling NaNs, codes above the format's width; b strided, a and b in
// different formats, long vectors whose buckets are merged more than once (value() between
// additions), and formats too wide for the tables.
TEST(ExactDot, TableLaneMatchesTheMpfrLane) {
  std::mt19937_64 rng(77);
  const char* pairs[][3] = {{"f16", "f16", "f32"}, {"bf16", "bf16", "f32"}, {"e4m3", "e5m2", "f32"},
                            {"e2m1", "e3m2", "bf16"}, {"e2m3", "e2m1", "f16"},
                            {"e5m2", "e5m2", "f16"}, {"bf16", "f16", "f32"}, {"f32", "bf16", "f32"}};
  const RoundingMode modes[] = {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up,
                                RoundingMode::down, RoundingMode::odd};
  int compared = 0;
  for (const auto& pr : pairs) {
    const Format fa = fmt(pr[0]), fb = fmt(pr[1]), fout = fmt(pr[2]);
    for (int t = 0; t < 200; ++t) {
      const std::size_t n = 1 + rng() % (t % 10 == 0 ? 3000 : 60), stride = 1 + rng() % 3;
      std::vector<std::uint64_t> a(n), b(n * stride);
      const bool specials = t % 4 == 3;
      for (std::size_t i = 0; i < n; ++i) {
        a[i] = specials ? rng() & fa.code_mask() : random_finite(rng, fa);
        b[i * stride] = specials ? rng() & fb.code_mask() : random_finite(rng, fb);
        if (t % 6 == 5) a[i] &= fa.sign_mask();  // zeros of both signs only
      }
      if (t % 5 == 1)  // cancellation
        for (std::size_t i = n / 2; i < n; ++i) {
          a[i] = a[i - n / 2] ^ fa.sign_mask();
          b[i * stride] = b[(i - n / 2) * stride];
        }
      const std::uint64_t c = t % 3 == 0 || t % 6 == 5 ? (rng() % 2 ? fout.sign_mask() : 0)
                                                       : random_finite(rng, fout);
      ExactAccumulator table, plain;
      const std::size_t half = n / 2;
      table.add_products(std::span(a).first(half), fa, b.data(), stride, fb);
      Mp mid(2);
      table.value(mid);  // merges the buckets; the rest starts new ones
      table.add_products(std::span(a).subspan(half), fa, b.data() + half * stride, stride, fb);
      for (std::size_t i = 0; i < n; ++i) plain.add_product(a[i], fa, b[i * stride], fb);
      table.add(c, fout);
      plain.add(c, fout);
      Mp got(2), want(2);
      table.value(got);
      plain.value(want);
      ASSERT_TRUE((mpfr_nan_p(got) && mpfr_nan_p(want)) || mpfr_equal_p(got, want))
          << pr[0] << " x " << pr[1] << " case " << t;
      if (!specials) {
        std::vector<std::uint64_t> bc(n);
        for (std::size_t i = 0; i < n; ++i) bc[i] = b[i * stride];
        Mp sum(2);
        if (fa == fb && mpfr_exact_dot(a, bc, fa, c, fout, sum))
          ASSERT_EQ(mpfr_cmp(got, sum), 0) << pr[0] << " case " << t;
      }
      for (RoundingMode m : modes) {
        Rounding r;
        r.mode = m;
        ASSERT_EQ(table.round(fout, r), plain.round(fout, r)) << pr[0] << " x " << pr[1] << " case " << t;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 7000);
  // A code wider than the format goes the general way (which reads its low bits or refuses):
  // both lanes alike.
  const Format f16 = fmt("f16");
  const std::vector<std::uint64_t> wide = {0x13C00}, one = {0x3C00};
  ExactAccumulator x, y;
  bool x_threw = false, y_threw = false;
  try { x.add_products(wide, f16, one.data(), 1, f16); } catch (const fpconform::Error&) { x_threw = true; }
  try { y.add_product(wide[0], f16, one[0], f16); } catch (const fpconform::Error&) { y_threw = true; }
  EXPECT_EQ(x_threw, y_threw);
  if (!x_threw) EXPECT_EQ(x.round(fmt("f32"), Rounding{}), y.round(fmt("f32"), Rounding{}));
}

TEST(ExactDot, ByHand) {
  const Format f16 = fmt("f16"), f32 = fmt("f32");
  // f16: [1, 2^-24] . [1, 1] + 0 = 1 + 2^-24 exactly: f32 holds it? No (needs 25 bits):
  // RNE gives 1, up gives 1 + 2^-23.
  const std::vector<std::uint64_t> a = {0x3C00, 0x0001}, b = {0x3C00, 0x3C00};
  Rounding rne, up;
  up.mode = RoundingMode::up;
  EXPECT_EQ(exact_dot(a, f16, b, f16, 0, f32, f32, rne).bits, 0x3F800000u);
  EXPECT_EQ(exact_dot(a, f16, b, f16, 0, f32, f32, up).bits, 0x3F800001u);
  EXPECT_EQ(exact_dot(a, f16, b, f16, 0, f32, f32, rne).flags, IX);
  // Exact cancellation: 1*1 + (-1)*1 + (+0) = +0; with -0 as C and rounding down: -0.
  const std::vector<std::uint64_t> x = {0x3C00, 0xBC00}, y = {0x3C00, 0x3C00};
  Rounding down;
  down.mode = RoundingMode::down;
  EXPECT_EQ(exact_dot(x, f16, y, f16, 0, f32, f32, rne).bits, 0x00000000u);
  EXPECT_EQ(exact_dot(x, f16, y, f16, 0x80000000, f32, f32, down).bits, 0x80000000u);
  // All terms -0: the sum is -0 in every mode.
  const std::vector<std::uint64_t> nz = {0x8000}, one = {0x3C00};
  EXPECT_EQ(exact_dot(nz, f16, one, f16, 0x80000000, f32, f32, rne).bits, 0x80000000u);
  // inf * 0 is invalid; inf + (-inf) too; a quiet NaN input is not.
  const std::vector<std::uint64_t> inf = {0x7C00}, zero = {0x0000};
  EXPECT_EQ(exact_dot(inf, f16, zero, f16, 0, f32, f32, rne).flags, INV);
  EXPECT_EQ(exact_dot(inf, f16, one, f16, 0xFF800000, f32, f32, rne).flags, INV);
  const std::vector<std::uint64_t> qnan = {0x7E00};
  EXPECT_EQ(exact_dot(qnan, f16, one, f16, 0, f32, f32, rne).flags, 0);
  EXPECT_EQ(exact_dot(inf, f16, one, f16, 0, f32, f32, rne).bits, 0x7F800000u);
  // f32 extremes: max*max - max*max + min_sub*min_sub = 2^-298 exactly, far below f32: RNE 0,
  // up gives the smallest subnormal with underflow|inexact.
  const std::vector<std::uint64_t> p = {0x7F7FFFFF, 0xFF7FFFFF, 0x00000001},
                                   q = {0x7F7FFFFF, 0x7F7FFFFF, 0x00000001};
  EXPECT_EQ(exact_dot(p, f32, q, f32, 0, f32, f32, rne).bits, 0x00000000u);
  EXPECT_EQ(exact_dot(p, f32, q, f32, 0, f32, f32, up).bits, 0x00000001u);
  EXPECT_EQ(exact_dot(p, f32, q, f32, 0, f32, f32, up).flags, UF | IX);
  EXPECT_THROW(exact_dot(a, f16, nz, f16, 0, f32, f32, rne), fpconform::Error);
}

}  // namespace
}  // namespace reftest
