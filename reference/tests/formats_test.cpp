// Decoding and limits of the built-in formats, against the numbers the specs publish.
#include <cmath>

#include "test_util.hpp"

using namespace reftest;
namespace ref = fpconform::reference;
using ref::CodeClass;

namespace {

void expect_value(const char* f, std::uint64_t code, double v) {
  const Format F = fmt(f);
  Mp m;
  ASSERT_TRUE(ref::decode(m, code, F, false)) << f << " code " << code;
  EXPECT_EQ(mpfr_get_d(m, MPFR_RNDN), v) << f << " code 0x" << std::hex << code;
  // exactness: the double holds it, so converting back must give the same MPFR value
  EXPECT_EQ(mpfr_cmp_d(m, v), 0);
}

void expect_class(const char* f, std::uint64_t code, CodeClass c) {
  EXPECT_EQ(static_cast<int>(ref::classify(code, fmt(f))), static_cast<int>(c))
      << f << " code 0x" << std::hex << code;
}

}  // namespace

TEST(Formats, OcpE4M3) {
  // OCP OFP8: bias 7, no infinities, NaN S.1111.111, max 448 = S.1111.110, min normal 2^-6,
  // min subnormal 2^-9.
  expect_value("e4m3", 0x7E, 448);
  expect_value("e4m3", 0xFE, -448);
  expect_value("e4m3", 0x7D, 416);
  expect_value("e4m3", 0x08, 0x1p-6);
  expect_value("e4m3", 0x01, 0x1p-9);
  expect_value("e4m3", 0x07, 7 * 0x1p-9);
  expect_value("e4m3", 0x38, 1.0);
  expect_value("e4m3", 0x78, 256);  // exponent field all ones is finite here
  expect_class("e4m3", 0x7F, CodeClass::nan);
  expect_class("e4m3", 0xFF, CodeClass::nan);
  expect_class("e4m3", 0x80, CodeClass::zero);
  expect_class("e4m3", 0x00, CodeClass::zero);
  const auto l = ref::limits(fmt("e4m3"));
  EXPECT_EQ(l.max_finite_magnitude, 0x7Eu);
  EXPECT_EQ(l.emin, -6);
  EXPECT_EQ(l.emax, 8);
  EXPECT_EQ(l.min_positive_magnitude, 1u);
  Mp m;
  ref::decode(m, 0x80, fmt("e4m3"), false);
  EXPECT_TRUE(mpfr_zero_p(m) && mpfr_signbit(m));
}

TEST(Formats, OcpE5M2) {
  // IEEE-like: inf S.11111.00, NaN S.11111.{01,10,11}, max 57344, min subnormal 2^-16.
  expect_value("e5m2", 0x7B, 57344);
  expect_value("e5m2", 0x01, 0x1p-16);
  expect_value("e5m2", 0x04, 0x1p-14);
  expect_value("e5m2", 0x3C, 1.0);
  expect_class("e5m2", 0x7C, CodeClass::inf);
  expect_class("e5m2", 0xFC, CodeClass::inf);
  for (std::uint64_t c : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) expect_class("e5m2", c, CodeClass::nan);
  bool sig = false;
  Mp m;
  EXPECT_FALSE(ref::decode(m, 0x7D, fmt("e5m2"), false, &sig));
  EXPECT_TRUE(sig);  // quiet bit (top fraction bit) clear
  EXPECT_FALSE(ref::decode(m, 0x7E, fmt("e5m2"), false, &sig));
  EXPECT_FALSE(sig);
  const auto l = ref::limits(fmt("e5m2"));
  EXPECT_EQ(l.max_finite_magnitude, 0x7Bu);
  EXPECT_EQ(l.inf_magnitude, 0x7Cu);
  EXPECT_EQ(l.emin, -14);
  EXPECT_EQ(l.emax, 15);
}

TEST(Formats, Ieee) {
  expect_value("f16", 0x7BFF, 65504);
  expect_value("f16", 0x0001, 0x1p-24);
  expect_value("f16", 0x0400, 0x1p-14);
  expect_value("f16", 0x3C00, 1.0);
  expect_value("f16", 0xC000, -2.0);
  expect_value("bf16", 0x3F80, 1.0);
  expect_value("bf16", 0x7F7F, 0x1.fep127);
  expect_value("bf16", 0x0001, 0x1p-133);
  expect_value("tf32", 0x1FC00, 1.0);  // f32 0x3F800000 is tf32 0x1FC00
  expect_value("tf32", 0x3FBFF, 0x1.ffcp127);
  expect_class("tf32", 0x3FC00, CodeClass::inf);
  expect_class("tf32", 0x7FC00, CodeClass::inf);
  expect_class("tf32", 0x3FC01, CodeClass::nan);
  Mp m;
  EXPECT_THROW(ref::decode(m, 0x80000, fmt("tf32"), false), fpconform::Error);
  EXPECT_THROW(ref::decode(m, 0x100, fmt("e4m3"), false), fpconform::Error);
  EXPECT_EQ(ref::limits(fmt("f32")).emin, -126);
  EXPECT_EQ(ref::limits(fmt("f32")).emax, 127);
  EXPECT_EQ(ref::limits(fmt("f64")).emin, -1022);
  EXPECT_EQ(ref::limits(fmt("f64")).emax, 1023);
  EXPECT_EQ(ref::limits(fmt("f16")).max_finite_magnitude, 0x7BFFu);
  // e3m4 (bias 3, IEEE-like): max 1.1111b * 2^3 = 15.5; e4m3ieee max 240 (ml_dtypes float8_e4m3).
  expect_value("e3m4", 0x6F, 15.5);
  expect_class("e3m4", 0x70, CodeClass::inf);
  expect_value("e4m3ieee", 0x77, 240);
  expect_class("e4m3ieee", 0x78, CodeClass::inf);
  expect_class("e4m3ieee", 0x79, CodeClass::nan);
}

TEST(Formats, Fnuz) {
  // One zero, NaN = 0x80, no infinities. e4m3fnuz bias 8 (max 240), e5m2fnuz bias 16
  // (max 57344), e4m3b11fnuz bias 11 (max 1.875 * 2^4 = 30).
  expect_value("e4m3fnuz", 0x7F, 240);
  expect_value("e4m3fnuz", 0x01, 0x1p-10);
  expect_value("e4m3fnuz", 0x40, 1.0);
  expect_value("e4m3fnuz", 0xFF, -240);
  expect_class("e4m3fnuz", 0x80, CodeClass::nan);
  expect_class("e4m3fnuz", 0x00, CodeClass::zero);
  expect_value("e5m2fnuz", 0x7F, 57344);
  expect_value("e5m2fnuz", 0x01, 0x1p-17);
  expect_class("e5m2fnuz", 0x80, CodeClass::nan);
  expect_value("e4m3b11fnuz", 0x7F, 30);
  expect_class("e4m3b11fnuz", 0x80, CodeClass::nan);
  EXPECT_EQ(ref::limits(fmt("e4m3fnuz")).max_finite_magnitude, 0x7Fu);
}

TEST(Formats, MxElements) {
  // OCP MX: FP4 E2M1 {0, 0.5, 1, 1.5, 2, 3, 4, 6}; FP6 E2M3 max 7.5; FP6 E3M2 max 28.
  const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (int c = 0; c < 8; ++c) {
    expect_value("e2m1", c, e2m1[c]);
    expect_value("e2m1", c | 8, -e2m1[c]);
  }
  expect_value("e2m3", 0x1F, 7.5);
  expect_value("e2m3", 0x01, 0.125);
  expect_value("e3m2", 0x1F, 28);
  expect_value("e3m2", 0x01, 0.0625);
  for (const char* f : {"e2m1", "e2m3", "e3m2"}) {
    const Format F = fmt(f);
    const std::uint64_t n = std::uint64_t{1} << F.width();
    for (std::uint64_t c = 0; c < n; ++c) {
      const CodeClass k = ref::classify(c, F);
      EXPECT_TRUE(k == CodeClass::finite || k == CodeClass::zero) << f << " " << c;
    }
  }
}

TEST(Formats, Ue8m0) {
  // OCP MX E8M0 scale: unsigned, no zero, 2^-127 .. 2^127, NaN 0xFF.
  for (int c = 0; c < 255; ++c) expect_value("ue8m0", c, std::ldexp(1.0, c - 127));
  expect_class("ue8m0", 0xFF, CodeClass::nan);
  expect_class("ue8m0", 0x00, CodeClass::finite);
  const auto l = ref::limits(fmt("ue8m0"));
  EXPECT_EQ(l.max_finite_magnitude, 0xFEu);
  EXPECT_EQ(l.min_positive_magnitude, 0u);
  EXPECT_EQ(l.emin, -127);
  EXPECT_EQ(l.emax, 127);
}

TEST(Formats, P3109) {
  // gfloat's examples: binary8p4sf max 240, binary8p4se max 224, binary8p3sf max 57344.
  expect_value("binary8p4sf", 0x7F, 240);
  expect_class("binary8p4sf", 0x80, CodeClass::nan);
  expect_class("binary8p4sf", 0x00, CodeClass::zero);
  expect_value("binary8p4se", 0x7E, 224);
  expect_class("binary8p4se", 0x7F, CodeClass::inf);
  expect_class("binary8p4se", 0xFF, CodeClass::inf);
  expect_class("binary8p4se", 0x80, CodeClass::nan);
  expect_value("binary8p3sf", 0x7F, 57344);
  // Unsigned binary8p4: 5 exponent bits, bias 2^(8-4) = 16; NaN 0xFF, extended inf 0xFE,
  // max (finite domain) 0xFE = 2^15 * 1.75, (extended) 0xFD = 2^15 * 1.625.
  expect_value("binary8p4uf", 0xFE, 57344);
  expect_class("binary8p4uf", 0xFF, CodeClass::nan);
  expect_value("binary8p4ue", 0xFD, 53248);
  expect_class("binary8p4ue", 0xFE, CodeClass::inf);
  expect_class("binary8p4ue", 0xFF, CodeClass::nan);
  expect_value("binary8p4ue", 0x01, 0x1p-18);  // 2^(1-16) / 8
  // binary8p1se: m = 0, bias 64: codes 1..0x7E are 2^(c-64).
  expect_value("binary8p1se", 0x01, 0x1p-63);
  expect_value("binary8p1se", 0x7E, 0x1p62);
  expect_class("binary8p1se", 0x7F, CodeClass::inf);
  EXPECT_EQ(ref::limits(fmt("binary8p4se")).emin, -7);
  EXPECT_EQ(ref::limits(fmt("binary8p4se")).emax, 7);
}

TEST(Formats, CustomEncodings) {
  // e5m2 layout with an OCP-e4m3-style single NaN and no inf: the top binade is finite.
  const char* f = "custom:e=5,m=2,inf=none,nan=ones";
  expect_value(f, 0x7E, 98304);  // 2^16 * 1.5
  expect_class(f, 0x7F, CodeClass::nan);
  expect_class(f, 0x7C, CodeClass::finite);
  // An IEEE infinity without NaN: the rest of the top binade means nothing (reads as NaN).
  const char* g = "custom:e=4,m=3,inf=ieee,nan=none";
  expect_class(g, 0x78, CodeClass::inf);
  expect_class(g, 0x79, CodeClass::nan);
  expect_value(g, 0x77, 240);
}

TEST(Formats, DazAndSigns) {
  Mp m;
  ASSERT_TRUE(ref::decode(m, 0x8001, fmt("f16"), true));
  EXPECT_TRUE(mpfr_zero_p(m) && mpfr_signbit(m));
  ASSERT_TRUE(ref::decode(m, 0x0001, fmt("f16"), true));
  EXPECT_TRUE(mpfr_zero_p(m) && !mpfr_signbit(m));
  ASSERT_TRUE(ref::decode(m, 0x0400, fmt("f16"), true));  // the min normal is not flushed
  EXPECT_EQ(mpfr_get_d(m, MPFR_RNDN), 0x1p-14);
  ASSERT_TRUE(ref::decode(m, 0x00, fmt("ue8m0"), true));  // no subnormals: nothing to flush
  EXPECT_EQ(mpfr_get_d(m, MPFR_RNDN), 0x1p-127);
  ASSERT_TRUE(ref::decode(m, 0xFC, fmt("e5m2"), false));
  EXPECT_TRUE(mpfr_inf_p(m) && mpfr_signbit(m));
}

TEST(Formats, MinMaxHelpers) {
  Mp m;
  ref::max_finite(m, fmt("e4m3"));
  EXPECT_EQ(mpfr_get_d(m, MPFR_RNDN), 448);
  ref::min_positive(m, fmt("e4m3"));
  EXPECT_EQ(mpfr_get_d(m, MPFR_RNDN), 0x1p-9);
  ref::min_positive(m, fmt("ue8m0"));
  EXPECT_EQ(mpfr_get_d(m, MPFR_RNDN), 0x1p-127);
  ref::max_finite(m, fmt("binary8p4ue"));
  EXPECT_EQ(mpfr_get_d(m, MPFR_RNDN), 53248);
}
