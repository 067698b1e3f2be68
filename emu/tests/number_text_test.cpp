// parse_number / exact_decimal / hex_float against independent facts: glibc's strtod
// (correctly rounded) and printf (exact digits for doubles and long doubles), hand-checked
// binary expansions, and round trips.

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/exact.hpp"

namespace {

using fpconform::Error;
using fpconform::ExactValue;
using fpconform::exact_decimal;
using fpconform::hex_float;
using fpconform::parse_number;
using fpconform::u128;

int bitlen(u128 v) {
  int n = 0;
  for (; v != 0; v >>= 1) ++n;
  return n;
}

std::uint64_t bits_of(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

double from_bits(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

// Test-side RNE rounding of an ExactValue to binary64 (subnormals, overflow to inf). Written
// from the definition, independently of emu's round_to_format.
double round_to_double(const ExactValue& v) {
  const double sgn = v.negative ? -1.0 : 1.0;
  if (v.is_nan()) return std::numeric_limits<double>::quiet_NaN();
  if (v.is_inf()) return sgn * HUGE_VAL;
  if (v.is_zero()) return sgn * 0.0;
  const int len = bitlen(v.sig);
  const std::int64_t e = static_cast<std::int64_t>(v.exp) + len - 1;  // leading bit
  if (e > 1023) return sgn * HUGE_VAL;
  const std::int64_t q = std::max<std::int64_t>(e, -1022) - 52;  // weight of the last bit
  const std::int64_t shift = q - v.exp;
  u128 m;
  if (shift <= 0) {
    if (v.sticky) ADD_FAILURE() << "sticky value with fewer than 54 bits";
    m = v.sig << -shift;
  } else if (shift > 128) {
    m = 0;  // below half an ulp
  } else {
    m = shift == 128 ? 0 : v.sig >> shift;
    const u128 rem = shift == 128 ? v.sig : v.sig & ((u128{1} << shift) - 1);
    const u128 half = u128{1} << (shift - 1);
    const bool up = rem > half || (rem == half && (v.sticky || (m & 1) != 0));
    if (up) ++m;
  }
  return sgn * std::ldexp(static_cast<double>(static_cast<std::uint64_t>(m)), static_cast<int>(q));
}

// Exact values compare by value: strip trailing zero bits of exact significands.
ExactValue canonical(ExactValue v) {
  if (v.is_finite_nonzero() && !v.sticky) {
    while ((v.sig & 1) == 0) {
      v.sig >>= 1;
      ++v.exp;
    }
  }
  return v;
}

::testing::AssertionResult same(const ExactValue& a0, const ExactValue& b0) {
  const ExactValue a = canonical(a0), b = canonical(b0);
  bool eq = a.kind == b.kind && a.negative == b.negative;
  if (eq && a.is_finite_nonzero()) eq = a.sig == b.sig && a.exp == b.exp && a.sticky == b.sticky;
  if (eq && a.is_nan()) eq = a.signaling == b.signaling && a.nan_payload == b.nan_payload;
  if (eq) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << hex_float(a0) << " vs " << hex_float(b0);
}

std::string fmt(const char* f, double d) {
  std::vector<char> buf(2000);
  int n = std::snprintf(buf.data(), buf.size(), f, d);
  return std::string(buf.data(), static_cast<std::size_t>(n));
}
std::string fmt_prec(const char* f, int prec, double d) {
  std::vector<char> buf(2000);
  int n = std::snprintf(buf.data(), buf.size(), f, prec, d);
  return std::string(buf.data(), static_cast<std::size_t>(n));
}
std::string fmt_ld(const char* f, long double d) {
  std::vector<char> buf(20000);
  int n = std::snprintf(buf.data(), buf.size(), f, d);
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

// Checks that text parses to exactly the double d.
void expect_exact_double(const std::string& text, double d) {
  SCOPED_TRACE(text);
  const ExactValue v = parse_number(text);
  if (d == 0) {
    EXPECT_TRUE(v.is_zero());
    EXPECT_EQ(v.negative, std::signbit(d));
    return;
  }
  ASSERT_TRUE(v.is_finite_nonzero());
  EXPECT_FALSE(v.sticky);
  EXPECT_EQ(v.sig & 1, 1u) << "exact values have an odd significand";
  ASSERT_LE(bitlen(v.sig), 53);
  EXPECT_EQ(v.negative, d < 0);
  const double got = (v.negative ? -1.0 : 1.0) * std::ldexp(static_cast<double>(static_cast<std::uint64_t>(v.sig)), v.exp);
  EXPECT_EQ(bits_of(got), bits_of(d));
}

// Checks that one RNE rounding of parse(text) to binary64 equals strtod (correctly rounded).
void expect_rounds_like_strtod(const std::string& text) {
  SCOPED_TRACE(text);
  const ExactValue v = parse_number(text);
  if (v.sticky) {
    EXPECT_EQ(bitlen(v.sig), 128) << "inexact values carry 128 significant bits";
  }
  const double want = std::strtod(text.c_str(), nullptr);
  EXPECT_EQ(bits_of(round_to_double(v)), bits_of(want)) << round_to_double(v) << " vs " << want;
}

// ---------------------------------------------------------------------------------------------

TEST(ParseNumber, ExactDecimalAndHexBasics) {
  struct Case {
    const char* text;
    bool neg;
    u128 sig;
    int exp;
  };
  const Case cases[] = {
      {"123", false, 123, 0},
      {"0.5", false, 1, -1},
      {".5", false, 1, -1},
      {"5.", false, 5, 0},
      {"1E+3", false, 125, 3},
      {"1e3", false, 125, 3},
      {"-416", true, 13, 5},
      {"+0.0009765625", false, 1, -10},
      {"000123.4500e2", false, 12345, 0},
      {"1.50000", false, 3, -1},
      {"0x1.8p-3", false, 3, -4},
      {"-0x1p+0", true, 1, 0},
      {"0x.8p1", false, 1, 0},
      {"0X1P-1074", false, 1, -1074},
      {"0x1.8", false, 3, -1},
      {"0xA", false, 5, 1},
      {"0x1.fffffffffffffp+1023", false, (u128{1} << 53) - 1, 1023 - 52},
      {"1.40129846432481707092372958328991613128026194187651577175706828388979108268586060148663818836212158203125e-45",
       false, 1, -149},
      {"0x000.0001p0", false, 1, -16},
      {"0xffffffffffffffffffffffffffffffff", false, ~u128{0}, 0},
      {"0xffffffffffffffffffffffffffffffff0000p-16", false, ~u128{0}, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const ExactValue v = parse_number(c.text);
    ASSERT_TRUE(v.is_finite_nonzero());
    EXPECT_EQ(v.negative, c.neg);
    EXPECT_FALSE(v.sticky);
    EXPECT_TRUE(v.sig == c.sig) << hex_float(v);
    EXPECT_EQ(v.exp, c.exp);
  }
}

TEST(ParseNumber, Zeros) {
  for (const char* t : {"0", "0.0", "0x0p0", ".0", "0.", "0e999999999999", "0x0p-99999999999", "000"}) {
    SCOPED_TRACE(t);
    const ExactValue v = parse_number(t);
    EXPECT_TRUE(v.is_zero());
    EXPECT_FALSE(v.negative);
  }
  for (const char* t : {"-0", "-0.0", "-0x0p0", "-0e5", "-0x0.000"}) {
    SCOPED_TRACE(t);
    const ExactValue v = parse_number(t);
    EXPECT_TRUE(v.is_zero());
    EXPECT_TRUE(v.negative);
  }
}

TEST(ParseNumber, Specials) {
  for (const char* t : {"inf", "INF", "Infinity", "+inf", "iNfInItY"}) {
    const ExactValue v = parse_number(t);
    EXPECT_TRUE(v.is_inf()) << t;
    EXPECT_FALSE(v.negative) << t;
  }
  for (const char* t : {"-inf", "-Infinity"}) {
    const ExactValue v = parse_number(t);
    EXPECT_TRUE(v.is_inf()) << t;
    EXPECT_TRUE(v.negative) << t;
  }
  for (const char* t : {"nan", "NaN", "qnan", "QNAN", "+nan", "nan()"}) {
    const ExactValue v = parse_number(t);
    EXPECT_TRUE(v.is_nan()) << t;
    EXPECT_FALSE(v.signaling) << t;
    EXPECT_FALSE(v.negative) << t;
    EXPECT_EQ(v.nan_payload, 0u) << t;
  }
  {
    const ExactValue v = parse_number("-sNaN");
    EXPECT_TRUE(v.is_nan());
    EXPECT_TRUE(v.signaling);
    EXPECT_TRUE(v.negative);
  }
  EXPECT_EQ(parse_number("nan(0x123)").nan_payload, 0x123u);
  EXPECT_EQ(parse_number("snan(291)").nan_payload, 291u);
  EXPECT_TRUE(parse_number("snan(0x8000000000000000)").signaling);
  EXPECT_EQ(parse_number("nan(0xffffffffffffffff)").nan_payload, ~std::uint64_t{0});
}

TEST(ParseNumber, MalformedTextThrowsNamingWhatAndQuotingText) {
  const char* bad[] = {"",     "1.2.3", "0x",    "1e",    "abc",   "1.5x",  "1 2",  " 1",   "1 ",
                       "--1",  "+-1",   "-",     ".",     "e5",    ".e5",   "0x.p1", "0x1p",  "0x1p+",
                       "1e+",  "1e5.0", "0xg",   "1p5",   "0x1e5p", "infinit", "nanx", "nan(", "nan(0x)",
                       "nan(12a)", "nan(0x10000000000000000)", "1,5", "1_000", "0x1.8q3", "in", "+", "1e-"};
  for (const char* t : bad) {
    SCOPED_TRACE(t);
    try {
      parse_number(t, "--value");
      ADD_FAILURE() << "no exception";
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), "--value");
      std::string quoted(1, '\'');
      quoted += t;
      quoted += '\'';
      EXPECT_NE(std::string(e.what()).find(quoted), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("malformed number"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseNumber, OneTenthIsTheTruncatedBinaryExpansion) {
  // 1/10 = 0.000110011001100..._2: 128 bits from the leading one are 0xCCCC...CC (truncated),
  // and the rest is non-zero.
  u128 c = 0;
  for (int i = 0; i < 32; ++i) c = (c << 4) | 0xC;
  const ExactValue v = parse_number("0.1");
  ASSERT_TRUE(v.is_finite_nonzero());
  EXPECT_TRUE(v.sticky);
  EXPECT_TRUE(v.sig == c);
  EXPECT_EQ(v.exp, -131);
  const ExactValue w = parse_number("-1e-1");
  EXPECT_TRUE(w.negative);
  EXPECT_TRUE(w.sig == c);
  EXPECT_EQ(w.exp, -131);
  // 0.2 and 0.4 are the same bits one and two exponents up.
  EXPECT_TRUE(same(parse_number("0.2"), ExactValue::finite(false, c, -130, true)));
  EXPECT_TRUE(same(parse_number("0.4"), ExactValue::finite(false, c, -129, true)));
  // 1/5 * 2^k stays inexact for every k; 5e-1 is exact.
  EXPECT_FALSE(parse_number("5e-1").sticky);
}

TEST(ParseNumber, DoublesWrittenExactlyParseExactly) {
  std::mt19937_64 rng(1);
  int n = 0;
  for (int i = 0; i < 3000; ++i) {
    double d = from_bits(rng());
    if (!std::isfinite(d)) continue;
    if (i % 3 == 0) d = std::ldexp(static_cast<double>(rng() % 100000), static_cast<int>(rng() % 60) - 30);
    expect_exact_double(fmt("%a", d), d);                // glibc hex float (subnormals 0x0.xxx)
    std::string dec = fmt("%.1100e", d);                  // exact: a double has <= 767 digits
    expect_exact_double(dec, d);
    expect_exact_double(fmt("%.1100f", d), d);
    ++n;
  }
  EXPECT_GT(n, 2500);
  for (double d : {DBL_MIN, DBL_MAX, DBL_TRUE_MIN, -DBL_TRUE_MIN, 1.0, -2.5, 9007199254740993.0}) {
    expect_exact_double(fmt("%a", d), d);
    expect_exact_double(fmt("%.1100e", d), d);
  }
}

TEST(ParseNumber, RoundsLikeStrtodOnKnownHardCases) {
  const char* cases[] = {
      "0.1", "0.2", "0.3", "1e23", "8.674e-311", "9007199254740993", "9007199254740992.5",
      "9007199254740993.0000000000000000000000000000000000001", "4.9e-324", "5e-324",
      "2.4703282292062328e-324", "2.4703282292062327e-324", "2.47032822920623272e-324",
      "1.7976931348623157e308", "1.7976931348623158e308", "1.797693134862315807e308",
      "1.7976931348623159e308", "2.2250738585072011e-308", "2.2250738585072012e-308",
      "2.2250738585072014e-308", "4.4501477170144023e-308", "1e-400", "1e400", "-1e400",
      "123456789012345678901234567890", "3.14159265358979323846264338327950288419716939937510",
      "1.00000000000000011102230246251565404236316680908203125",  // 1 + 2^-53: tie -> 1
      "1.00000000000000011102230246251565404236316680908203126",  // just above -> 1 + 2^-52
      "1.00000000000000011102230246251565404236316680908203124",  // just below -> 1
      "7.2057594037927933e16", "6.9294956446009195e15", "3.7252902984e-09", "0.000001",
      "1e-5", "-1e-5", "1e22", "1e-22", "5e-310", "9.8813129168249309e-324",
      "1.4821969375237396e-323", "2.9643938750474793e-323",
  };
  for (const char* t : cases) expect_rounds_like_strtod(t);
}

TEST(ParseNumber, RandomDecimalsRoundLikeStrtod) {
  std::mt19937_64 rng(12345);
  int sticky = 0;
  const int kCount = 20000;
  for (int i = 0; i < kCount; ++i) {
    const int ndig = 1 + static_cast<int>(rng() % (i % 10 == 0 ? 80 : 25));
    std::string m;
    for (int j = 0; j < ndig; ++j) m += static_cast<char>('0' + rng() % 10);
    const int point = static_cast<int>(rng() % (ndig + 1));
    std::string text = (rng() & 1) ? "-" : "";
    text += m.substr(0, point) + "." + m.substr(point);
    const int e = static_cast<int>(rng() % 700) - 360;
    text += 'e';
    text += std::to_string(e);
    const ExactValue v = parse_number(text);
    sticky += v.sticky;
    expect_rounds_like_strtod(text);
  }
  EXPECT_GT(sticky, kCount / 2);
}

TEST(ParseNumber, RandomHexRoundsLikeStrtod) {
  std::mt19937_64 rng(777);
  for (int i = 0; i < 5000; ++i) {
    const int ndig = 1 + static_cast<int>(rng() % 50);
    std::string text = (rng() & 1) ? "-0x" : "0x";
    const int point = static_cast<int>(rng() % (ndig + 1));
    for (int j = 0; j < ndig; ++j) {
      if (j == point) text += '.';
      text += "0123456789abcdef"[rng() % 16];
    }
    text += 'p';
    text += std::to_string(static_cast<int>(rng() % 2300) - 1200);
    const ExactValue v = parse_number(text);
    if (v.sticky) {
      EXPECT_GT(ndig, 31) << text;  // only > 128 bits can be inexact
    }
    expect_rounds_like_strtod(text);
  }
}

// Midpoints between adjacent doubles, written exactly (long double printf), and strings just
// above and below them: the hardest cases for a 128-bit + sticky intermediate.
TEST(ParseNumber, MidpointsAndNeighboursRoundLikeStrtod) {
  static_assert(std::numeric_limits<long double>::digits >= 54, "needs an extended long double");
  std::mt19937_64 rng(99);
  std::vector<double> ds = {0.0, DBL_TRUE_MIN, DBL_MIN, DBL_MAX / 2, 1.0, 9007199254740992.0,
                            std::nextafter(DBL_MIN, 0.0), std::nextafter(DBL_MAX, 0.0)};
  for (int i = 0; i < 1500; ++i) {
    double d = std::fabs(from_bits(rng()));
    if (!std::isfinite(d) || d == DBL_MAX) continue;
    ds.push_back(d);
  }
  for (int i = 0; i < 200; ++i) ds.push_back(from_bits(rng() % (std::uint64_t{1} << 52)));  // subnormal
  for (double d : ds) {
    const double up = std::nextafter(d, HUGE_VAL);
    const long double mid = (static_cast<long double>(d) + static_cast<long double>(up)) / 2;
    std::string s = fmt_ld("%.1200Le", mid);  // exact, then trailing zeros
    const auto epos = s.find('e');
    std::string mant = s.substr(0, epos), ex = s.substr(epos);
    while (mant.back() == '0') mant.pop_back();
    if (mant.back() == '.') mant.pop_back();
    const std::string exact = mant + ex;
    {
      const ExactValue v = parse_number(exact);
      EXPECT_FALSE(v.sticky) << exact;  // a midpoint is dyadic
    }
    expect_rounds_like_strtod(exact);
    const std::string above = mant + (mant.find('.') == std::string::npos ? ".0000001" : "0000001") + ex;
    expect_rounds_like_strtod(above);
    if (mant.size() > 2) {
      const std::string below = mant.substr(0, mant.size() - 1);
      expect_rounds_like_strtod((below.back() == '.' ? below.substr(0, below.size() - 1) : below) + ex);
      // Just below the midpoint: its last digit replaced by (digit - 1) followed by 40 nines.
      std::string close = mant;
      --close.back();
      expect_rounds_like_strtod(close + std::string(40, '9') + ex);
    }
  }
}

TEST(ParseNumber, HugeAndTinyExponents) {
  for (const char* t : {"1e999999", "1e100001", "12345e99999999999999999", "0x1p400000", "0x1p99999999999"}) {
    SCOPED_TRACE(t);
    const ExactValue v = parse_number(t);
    ASSERT_TRUE(v.is_finite_nonzero());
    EXPECT_GT(v.exp + bitlen(v.sig), 332000);
    EXPECT_EQ(round_to_double(v), HUGE_VAL);
  }
  for (const char* t : {"-1e-999999", "-1e-100001", "-0x1p-400000", "-0.00001e-99999999999"}) {
    SCOPED_TRACE(t);
    const ExactValue v = parse_number(t);
    ASSERT_TRUE(v.is_finite_nonzero());
    EXPECT_TRUE(v.negative);
    EXPECT_LT(v.exp + bitlen(v.sig), -332000);
    EXPECT_EQ(bits_of(round_to_double(v)), bits_of(-0.0));
  }
  // Huge values are ordered: the clamp is beyond everything converted exactly.
  const ExactValue big = parse_number("1e100000");  // exact path: 10^100000 ~ 2^332192.8
  EXPECT_TRUE(big.sticky);
  EXPECT_EQ(big.exp + 127, 332192);
  const ExactValue small = parse_number("1e-100000");
  EXPECT_TRUE(small.sticky);
  EXPECT_EQ(small.exp + 127, -332193);
  const ExactValue clamp = parse_number("1e100001");
  EXPECT_GT(clamp.exp, big.exp);
  const ExactValue exact_hex = parse_number("0x1p-340000");
  EXPECT_FALSE(exact_hex.sticky);
  EXPECT_EQ(exact_hex.exp, -340000);
  // 1e400 = 5^400 * 2^400 exactly: 5^400 has 929 bits, so 128 of them plus sticky.
  const ExactValue v = parse_number("1e400");
  EXPECT_TRUE(v.sticky);
  EXPECT_EQ(bitlen(v.sig), 128);
  EXPECT_EQ(v.exp + 127, 1328);  // floor(400 * log2(10)) = 1328
}

TEST(ParseNumber, VeryLongSignificands) {
  // 1 + 10^-50000: just above one (more digits than parse keeps exactly: the cut tail is sticky).
  std::string t = "1." + std::string(49999, '0') + "1";
  ExactValue v = parse_number(t);
  EXPECT_TRUE(v.sticky);
  EXPECT_TRUE(v.sig == u128{1} << 127);
  EXPECT_EQ(v.exp, -127);
  // 1 - 10^-50000 and 1 - 10^-40000: just below one.
  v = parse_number("0." + std::string(40000, '9'));
  EXPECT_TRUE(v.sticky);
  EXPECT_TRUE(v.sig == ~u128{0});
  EXPECT_EQ(v.exp, -128);
  v = parse_number("0." + std::string(50000, '9'));
  EXPECT_TRUE(v.sticky);
  EXPECT_TRUE(v.sig == ~u128{0});
  EXPECT_EQ(v.exp, -128);
  // Exactly one, with 40000 digits of zeros: exact.
  v = parse_number("1." + std::string(40000, '0'));
  EXPECT_FALSE(v.sticky);
  EXPECT_TRUE(v.sig == 1);
  EXPECT_EQ(v.exp, 0);
  // Hex: more than 128 significant bits keep the top 128 and sticky.
  v = parse_number("0x1" + std::string(31, '0') + "1p0");  // 2^128 + 1: 129 bits
  EXPECT_TRUE(v.sticky);
  EXPECT_TRUE(v.sig == u128{1} << 127);
  EXPECT_EQ(v.exp, 1);
  v = parse_number("0x1" + std::string(200, '0') + "p0");  // exact power of two
  EXPECT_FALSE(v.sticky);
  EXPECT_TRUE(v.sig == 1);
  EXPECT_EQ(v.exp, 800);
}

// ---------------------------------------------------------------------------------------------

TEST(ExactDecimal, KnownStrings) {
  EXPECT_EQ(exact_decimal(parse_number("-416")), "-416");
  EXPECT_EQ(exact_decimal(ExactValue::finite(false, 1, -10)), "0.0009765625");
  EXPECT_EQ(exact_decimal(ExactValue::finite(false, 3, -1)), "1.5");
  EXPECT_EQ(exact_decimal(ExactValue::finite(false, 12, -3)), "1.5");
  EXPECT_EQ(exact_decimal(ExactValue::finite(true, 5, 1)), "-10");
  EXPECT_EQ(exact_decimal(ExactValue::zero(false)), "0");
  EXPECT_EQ(exact_decimal(ExactValue::zero(true)), "-0");
  EXPECT_EQ(exact_decimal(ExactValue::infinity(false)), "inf");
  EXPECT_EQ(exact_decimal(ExactValue::infinity(true)), "-inf");
  EXPECT_EQ(exact_decimal(ExactValue::quiet_nan()), "nan");
  EXPECT_EQ(exact_decimal(ExactValue::quiet_nan(true)), "-nan");
  EXPECT_EQ(exact_decimal(parse_number("snan")), "snan");
  EXPECT_EQ(exact_decimal(ExactValue::finite(false, 1, -149)),
            "1.40129846432481707092372958328991613128026194187651577175706828388979108268586060148663818836212158203125e-45");
  EXPECT_EQ(exact_decimal(ExactValue::finite(false, 1, 200)),
            "1.606938044258990275541962092341162602522202993782792835301376e+60");
  EXPECT_EQ(exact_decimal(ExactValue::finite(false, 1, 100)), "1267650600228229401496703205376");
  // Sticky values: the digits of the truncated value and "...".
  // 0.1 truncated to 128 bits lies below 0.1 by less than 2^-131 (~3.7e-40).
  const std::string tenth = exact_decimal(parse_number("0.1"));
  EXPECT_EQ(tenth.substr(0, 38), "9.999999999999999999999999999999999999");
  EXPECT_EQ(tenth.substr(tenth.size() - 7), "...e-02");
  EXPECT_EQ(exact_decimal(ExactValue::finite(false, 3, -1, true)), "1.5...");
}

// Against glibc printf, which prints the exact digits of a double when given enough precision.
TEST(ExactDecimal, MatchesPrintfForDoubles) {
  std::mt19937_64 rng(2024);
  for (int i = 0; i < 4000; ++i) {
    double d = from_bits(rng());
    if (i % 4 == 1) d = std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 80) - 40);
    if (i % 4 == 2) d = from_bits(rng() % (std::uint64_t{1} << 52));  // subnormal
    if (!std::isfinite(d)) continue;
    std::string plain = fmt("%.1100f", d);
    while (plain.back() == '0') plain.pop_back();
    if (plain.back() == '.') plain.pop_back();
    std::string want = plain;
    if (plain.size() > 60) {
      // All significant digits, as %.*e spells them.
      std::string digits;
      for (char c : plain)
        if (c >= '0' && c <= '9') digits += c;
      digits.erase(0, digits.find_first_not_of('0'));
      while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
      want = fmt_prec("%.*e", static_cast<int>(digits.size()) - 1, d);
    }
    const ExactValue v = parse_number(fmt("%a", d));
    EXPECT_EQ(exact_decimal(v), want) << fmt("%a", d);
  }
}

TEST(ExactDecimal, RoundTripsThroughParse) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 3000; ++i) {
    u128 sig = (static_cast<u128>(rng()) << 64) | rng();
    sig >>= rng() % 128;
    if (sig == 0) sig = 1;
    const int exp = static_cast<int>(rng() % 3001) - 1500;
    const ExactValue x = ExactValue::finite(rng() & 1, sig, exp);
    const std::string s = exact_decimal(x);
    EXPECT_TRUE(same(parse_number(s), x)) << s;
  }
  // Up to 40000 significant digits parse back exactly (2^-50000 has about 35000).
  for (int exp : {-16494, -16445, 16383, -50000, 50000, 100000}) {
    const ExactValue x = ExactValue::finite(false, 0xABCDEF, exp);
    const std::string s = exact_decimal(x);
    EXPECT_TRUE(same(parse_number(s), x)) << exp;
  }
  // Beyond 40000 significant digits (0xABCDEF * 2^-100000 has about 70000) parse cuts the
  // digits: the value comes back just below x, truncated to 128 bits, with sticky.
  {
    const ExactValue x = ExactValue::finite(false, 0xABCDEF, -100000);
    const ExactValue y = parse_number(exact_decimal(x));
    EXPECT_TRUE(y.sticky);
    EXPECT_TRUE(y.sig == (u128{0xABCDEF} << 104) - 1);
    EXPECT_EQ(y.exp, -100000 - 104);
  }
  // Past |exp| = 2^17 the decimal expansion would be enormous: hex-float form instead.
  EXPECT_EQ(exact_decimal(ExactValue::finite(true, 3, 300000)), "-0x1.8p+300001");
  EXPECT_EQ(exact_decimal(parse_number("1e-999999")), "0x1...p-350000");
  for (const char* t : {"0", "-0", "inf", "-inf", "nan", "-nan", "snan", "nan(0x123)", "-snan(0x8)"})
    EXPECT_EQ(exact_decimal(parse_number(t)), t);
}

TEST(HexFloat, KnownStrings) {
  EXPECT_EQ(hex_float(ExactValue::finite(false, 3, -4)), "0x1.8p-3");
  EXPECT_EQ(hex_float(ExactValue::finite(true, 1, 0)), "-0x1p+0");
  EXPECT_EQ(hex_float(ExactValue::finite(true, 16, -4)), "-0x1p+0");
  EXPECT_EQ(hex_float(ExactValue::zero(false)), "0x0p+0");
  EXPECT_EQ(hex_float(ExactValue::zero(true)), "-0x0p+0");
  EXPECT_EQ(hex_float(ExactValue::infinity(false)), "inf");
  EXPECT_EQ(hex_float(ExactValue::infinity(true)), "-inf");
  EXPECT_EQ(hex_float(ExactValue::quiet_nan()), "nan");
  EXPECT_EQ(hex_float(ExactValue::finite(false, 1, -1074)), "0x1p-1074");
  EXPECT_EQ(hex_float(ExactValue::finite(false, 0x1F, 0)), "0x1.fp+4");
  EXPECT_EQ(hex_float(ExactValue::finite(false, ~u128{0}, 0)), "0x1." + std::string(31, 'f') + "ep+127");
  EXPECT_EQ(hex_float(parse_number("0.1")), "0x1." + std::string(31, '9') + "8...p-4");
}

TEST(HexFloat, MatchesPrintfForNormalDoublesAndRoundTrips) {
  std::mt19937_64 rng(31337);
  for (int i = 0; i < 4000; ++i) {
    const double d = from_bits(rng());
    if (!std::isfinite(d) || (d != 0 && std::fabs(d) < DBL_MIN)) continue;
    const ExactValue v = parse_number(fmt("%.1100e", d));
    EXPECT_EQ(hex_float(v), fmt("%a", d));
  }
  for (int i = 0; i < 3000; ++i) {
    u128 sig = (static_cast<u128>(rng()) << 64) | rng();
    sig >>= rng() % 128;
    if (sig == 0) sig = 1;
    const ExactValue x = ExactValue::finite(rng() & 1, sig, static_cast<int>(rng() % 200001) - 100000);
    EXPECT_TRUE(same(parse_number(hex_float(x)), x)) << hex_float(x);
  }
}

}  // namespace
