// from_string: grammar, exactness, correct rounding of non-dyadic decimals (against glibc's
// strtof/strtod, which round correctly in the current rounding mode), stochastic decisions
// right next to a threshold.
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "test_util.hpp"

using namespace reftest;
namespace ref = fpconform::reference;
using M = RoundingMode;

namespace {
OracleResult fs(const char* s, const char* f, const Rounding& r = {}) {
  return ref::from_string(s, fmt(f), r);
}
Rounding sr(M m, int n, std::uint64_t r) {
  Rounding x = mode(m);
  x.stochastic_bits = n;
  x.random = r;
  return x;
}
}  // namespace

TEST(Text, Basics) {
  EXPECT_EQ(fs("1", "f32"), R(0x3F800000, 0));
  EXPECT_EQ(fs("-2.5", "f32"), R(0xC0200000, 0));
  EXPECT_EQ(fs("0.1", "f32"), R(0x3DCCCCCD, IX));
  EXPECT_EQ(fs("0.1", "f32", mode(M::rtz)), R(0x3DCCCCCC, IX));
  EXPECT_EQ(fs("0.1", "f32", mode(M::up)), R(0x3DCCCCCD, IX));
  EXPECT_EQ(fs("-0.1", "f32", mode(M::up)), R(0xBDCCCCCC, IX));
  EXPECT_EQ(fs("0.1", "f32", mode(M::odd)), R(0x3DCCCCCD, IX));  // trunc ...CC is even
  EXPECT_EQ(fs("0x1.8p-3", "f32"), R(0x3E400000, 0));
  EXPECT_EQ(fs("-0X1P+0", "f16"), R(0xBC00, 0));
  EXPECT_EQ(fs("0x.8", "f16"), R(0x3800, 0));
  EXPECT_EQ(fs("0x1.ffcp15", "f16"), R(0x7BFF, 0));
  EXPECT_EQ(fs("0x1.ffep15", "f16"), R(0x7C00, OF | IX));  // 65520
  EXPECT_EQ(fs("1.", "f16"), R(0x3C00, 0));
  EXPECT_EQ(fs(".5", "f16"), R(0x3800, 0));
  EXPECT_EQ(fs("+.5e1", "f16"), R(0x4500, 0));
  EXPECT_EQ(fs("448", "e4m3"), R(0x7E, 0));
  EXPECT_EQ(fs("464", "e4m3"), R(0x7E, IX));
  EXPECT_EQ(fs("465", "e4m3"), R(0x7F, OF | IX));
  EXPECT_EQ(fs("-431.99999999999994", "e4m3"), R(0xFD, IX));
  EXPECT_EQ(fs("0", "f16"), R(0x0000, 0));
  EXPECT_EQ(fs("-0.000e5", "f16"), R(0x8000, 0));
  EXPECT_EQ(fs("0e999999999999999999", "f16"), R(0x0000, 0));
  // 2^-24, written out exactly: f16's smallest subnormal, exact.
  EXPECT_EQ(fs("0.000000059604644775390625", "f16"), R(0x0001, 0));
  EXPECT_EQ(fs("5.9604644775390625e-8", "f16"), R(0x0001, 0));
  EXPECT_EQ(fs("2.98023223876953125e-8", "f16"), R(0x0000, UF | IX));  // 2^-25: tie -> 0
  EXPECT_EQ(fs("2.98023223876953126e-8", "f16"), R(0x0001, UF | IX));
}

TEST(Text, Specials) {
  EXPECT_EQ(fs("inf", "f32"), R(0x7F800000, 0));
  EXPECT_EQ(fs("-Infinity", "f32"), R(0xFF800000, 0));
  EXPECT_EQ(fs("+INF", "f16"), R(0x7C00, 0));
  EXPECT_EQ(fs("nan", "f32"), R(0x7FC00000, 0));
  EXPECT_EQ(fs("-nan", "f32"), R(0xFFC00000, 0));
  EXPECT_EQ(fs("NaN", "e4m3"), R(0x7F, 0));
  EXPECT_EQ(fs("snan", "f32"), R(0x7FC00000, INV));
  EXPECT_EQ(fs("-sNaN", "f16"), R(0xFE00, INV));
  EXPECT_EQ(fs("snan", "e2m1"), R(0x0, INV));
  EXPECT_EQ(fs("inf", "e4m3"), R(0x7F, INV));
  EXPECT_EQ(fs("-inf", "ue8m0"), R(0xFF, INV));
}

TEST(Text, Malformed) {
  for (const char* s : {"", "+", "-", ".", "1.2.3", "abc", "1e", "1e+", "0x", "0x1p", "0xp3", " 1",
                        "1 ", "--1", "1f", "e5", "0x1g", "1p3", "nanx", "infin", "0x1.0p1.5",
                        "1e5.0", "0b101", "1_000"}) {
    EXPECT_THROW(fs(s, "f32"), fpconform::Error) << "'" << s << "'";
  }
  try {
    fs("1.2.3", "f32");
  } catch (const fpconform::Error& e) {
    EXPECT_EQ(e.where(), "value");
  }
}

TEST(Text, FarOutOfRange) {
  EXPECT_EQ(fs("1e400", "f64"), R(0x7FF0000000000000, OF | IX));
  EXPECT_EQ(fs("-1e400", "f64", mode(M::rtz)), R(0xFFEFFFFFFFFFFFFF, OF | IX));
  EXPECT_EQ(fs("1e99999999999999999999", "f32"), R(0x7F800000, OF | IX));
  EXPECT_EQ(fs("0x1p99999999999", "bf16"), R(0x7F80, OF | IX));
  EXPECT_EQ(fs("1e-99999999", "f32"), R(0x00000000, UF | IX));
  EXPECT_EQ(fs("1e-99999999", "f32", mode(M::up)), R(0x00000001, UF | IX));
  EXPECT_EQ(fs("-1e-99999999", "f32", mode(M::down)), R(0x80000001, UF | IX));
  EXPECT_EQ(fs("0x1p-99999999", "f32", sr(M::stochastic_exact, 8, 0)), R(0x00000001, UF | IX));
  EXPECT_EQ(fs("1e-99999999", "ue8m0"), R(0x00, UF | IX));
  // f64 limits written in decimal (glibc/IEEE facts)
  EXPECT_EQ(fs("4.9406564584124654e-324", "f64"), R(0x1, UF | IX));
  EXPECT_EQ(fs("2.4703282292062327e-324", "f64"), R(0x0, UF | IX));  // just below 2^-1075
  EXPECT_EQ(fs("2.4703282292062328e-324", "f64"), R(0x1, UF | IX));  // just above
  EXPECT_EQ(fs("1.7976931348623157e308", "f64"), R(0x7FEFFFFFFFFFFFFF, IX));
}

TEST(Text, MatchesStrtodAndStrtof) {
  std::mt19937_64 rng(1234);
  const int fe[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  const M modes[4] = {M::rne, M::down, M::up, M::rtz};
  const int saved = std::fegetround();
  long bad = 0;
  char buf[128];
  for (int i = 0; i < 6000; ++i) {
    // random decimal: 1..30 digits, optional point, exponent
    std::string s;
    if (rng() & 1) s += '-';
    const int nd = 1 + static_cast<int>(rng() % 30);
    const int point = static_cast<int>(rng() % (nd + 1));
    for (int d = 0; d < nd; ++d) {
      if (d == point && d > 0) s += '.';
      s += static_cast<char>('0' + rng() % 10);
    }
    const bool f64 = i % 2 == 0;
    const int span = f64 ? 330 : 50;
    std::snprintf(buf, sizeof buf, "e%d", static_cast<int>(rng() % (2 * span)) - span);
    s += buf;
    for (int mi = 0; mi < 4; ++mi) {
      std::fesetround(fe[mi]);
      std::uint64_t native;
      if (f64) native = d2u(std::strtod(s.c_str(), nullptr));
      else native = f2u(std::strtof(s.c_str(), nullptr));
      std::fesetround(saved);
      const OracleResult o = ref::from_string(s, fmt(f64 ? "f64" : "f32"), mode(modes[mi]));
      if (o.bits != native && ++bad <= 10)
        ADD_FAILURE() << s << " mode " << mi << ": oracle 0x" << std::hex << o.bits
                      << " strto 0x" << native;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(Text, ExactDecimalOfDoublesMatchesConvert) {
  // glibc prints a double's exact decimal expansion with enough digits; parsing it back must
  // give the exact value, so every mode (stochastic included) agrees with converting the code.
  std::mt19937_64 rng(99);
  const Format F64 = fmt("f64");
  std::string buf(1200, '\0');
  long bad = 0;
  for (int i = 0; i < 1500; ++i) {
    const std::uint64_t e = 1023 - 40 + rng() % 80;
    const std::uint64_t c = (e << 52) | (rng() & 0xFFFFFFFFFFFFFull) | (rng() & 1 ? 1ull << 63 : 0);
    const int n = std::snprintf(buf.data(), buf.size(), "%.780e", u2d(c));
    ASSERT_GT(n, 0);
    const char* targets[3] = {"f16", "e4m3", "bf16"};
    for (const char* t : targets) {
      Rounding r = sr(static_cast<M>(i % 10), 1 + static_cast<int>(rng() % 64), rng());
      r.sat = static_cast<Saturation>(rng() % 3);
      const OracleResult a = ref::from_string(buf.c_str(), fmt(t), r);
      const OracleResult b = ref::convert(c, F64, fmt(t), r);
      if (!(a == b) && ++bad <= 10) ADD_FAILURE() << buf.c_str() << " -> " << t;
    }
    std::snprintf(buf.data(), buf.size(), "%a", u2d(c));
    const OracleResult a = ref::from_string(buf.c_str(), fmt("f32"), {});
    EXPECT_EQ(a, ref::convert(c, F64, fmt("f32"), {})) << buf.c_str();
  }
  EXPECT_EQ(bad, 0);
}

TEST(Text, StochasticNextToThreshold) {
  // 0.099609375 = 12.75 * 2^-7 exactly; in e4m3 (binade 2^-4, quantum 2^-7) f = 0.75, and with
  // n = 4, f * 16 = 12 sits exactly on the thresholds. One part in 10^37 above or below moves
  // them (the decimal is then not dyadic, so only a correct sticky bit gets these right).
  const char* exact = "0.099609375";
  const char* above = "0.0996093750000000000000000000000000001";
  const char* below = "0.0996093749999999999999999999999999999";
  // code of 12 * 2^-7 = 0.09375: E = -4 + 7 = 3, T = 4 -> 0x1C; away -> 0x1D
  EXPECT_EQ(fs(exact, "e4m3", sr(M::stochastic_exact, 4, 12)), R(0x1C, IX));  // 12 < 12 no
  EXPECT_EQ(fs(above, "e4m3", sr(M::stochastic_exact, 4, 12)), R(0x1D, IX));
  EXPECT_EQ(fs(below, "e4m3", sr(M::stochastic_exact, 4, 11)), R(0x1D, IX));
  EXPECT_EQ(fs(below, "e4m3", sr(M::stochastic_exact, 4, 12)), R(0x1C, IX));
  EXPECT_EQ(fs(exact, "e4m3", sr(M::stochastic_c, 4, 4)), R(0x1D, IX));       // 12 + 4 >= 16
  EXPECT_EQ(fs(below, "e4m3", sr(M::stochastic_c, 4, 4)), R(0x1C, IX));       // 11 + 4
  EXPECT_EQ(fs(below, "e4m3", sr(M::stochastic_c, 4, 5)), R(0x1D, IX));
  EXPECT_EQ(fs(below, "e4m3", sr(M::stochastic_a, 4, 4)), R(0x1D, IX));       // RNE -> 12
  EXPECT_EQ(fs(below, "e4m3", sr(M::stochastic_a, 4, 3)), R(0x1C, IX));
  // n = 64: C away iff f >= 1 - r 2^-64; f = 0.75 exactly -> r >= 2^62.
  const std::uint64_t r62 = std::uint64_t{1} << 62;
  EXPECT_EQ(fs(exact, "e4m3", sr(M::stochastic_c, 64, r62)), R(0x1D, IX));
  EXPECT_EQ(fs(below, "e4m3", sr(M::stochastic_c, 64, r62)), R(0x1C, IX));
  EXPECT_EQ(fs(below, "e4m3", sr(M::stochastic_c, 64, r62 + 1)), R(0x1D, IX));
  EXPECT_EQ(fs(exact, "e4m3", sr(M::stochastic_exact, 64, 3 * r62 - 1)), R(0x1D, IX));
  EXPECT_EQ(fs(exact, "e4m3", sr(M::stochastic_exact, 64, 3 * r62)), R(0x1C, IX));
  EXPECT_EQ(fs(above, "e4m3", sr(M::stochastic_exact, 64, 3 * r62)), R(0x1D, IX));
  // rne ties
  EXPECT_EQ(fs("0.1015625", "e4m3"), R(0x1D, 0));              // 13 * 2^-7 exact
  EXPECT_EQ(fs("0.09765625", "e4m3"), R(0x1C, IX));             // 12.5 * 2^-7 tie -> 12
  EXPECT_EQ(fs("0.09765625000000000000000000001", "e4m3"), R(0x1D, IX));
  // 0.1 in e4m3: s = 12.8, f = 0.8; n = 4: f*16 = 12.8.
  EXPECT_EQ(fs("0.1", "e4m3", sr(M::stochastic_exact, 4, 12)), R(0x1D, IX));
  EXPECT_EQ(fs("0.1", "e4m3", sr(M::stochastic_exact, 4, 13)), R(0x1C, IX));
  EXPECT_EQ(fs("0.1", "e4m3", sr(M::stochastic_a, 4, 3)), R(0x1D, IX));   // RNE(12.8) = 13
  EXPECT_EQ(fs("0.1", "e4m3", sr(M::stochastic_a, 4, 2)), R(0x1C, IX));
  EXPECT_EQ(fs("0.1", "e4m3", sr(M::stochastic_b, 4, 3)), R(0x1D, IX));   // 12.8 + 3.5 >= 16
  EXPECT_EQ(fs("0.1", "e4m3", sr(M::stochastic_b, 4, 2)), R(0x1C, IX));
  EXPECT_EQ(fs("0.1", "e4m3", sr(M::stochastic_c, 4, 4)), R(0x1D, IX));
  EXPECT_EQ(fs("0.1", "e4m3", sr(M::stochastic_c, 4, 3)), R(0x1C, IX));
}

TEST(Text, ParseValue) {
  Mp m;
  EXPECT_EQ(ref::parse_value("0x1.8p-3", m), ref::TextKind::number);
  EXPECT_EQ(mpfr_get_d(m, MPFR_RNDN), 0.1875);
  EXPECT_EQ(ref::parse_value("123456789012345678901234567890", m), ref::TextKind::number);
  Mp big(200);
  mpfr_set_str(big, "123456789012345678901234567890", 10, MPFR_RNDN);
  EXPECT_EQ(mpfr_cmp(m, big), 0);
  EXPECT_EQ(fs("0x1e", "f16"), R(0x4F80, 0));  // 30: 'e' is a hex digit
  EXPECT_EQ(ref::parse_value("-snan", m), ref::TextKind::snan);
  EXPECT_TRUE(mpfr_nan_p(m) && mpfr_signbit(m));
  EXPECT_EQ(ref::parse_value("infinity", m), ref::TextKind::inf);
  // 0.1 is not dyadic: the stored value is strictly between its 320-bit truncation and the next.
  ref::parse_value("0.1", m);
  Mp lo(320), hi(320);
  mpfr_set_str(lo, "0.1", 10, MPFR_RNDD);
  mpfr_set_str(hi, "0.1", 10, MPFR_RNDU);
  EXPECT_GT(mpfr_cmp(m, lo), 0);
  EXPECT_LT(mpfr_cmp(m, hi), 0);
}
