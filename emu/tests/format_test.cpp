// Format descriptors against the published definitions (OCP OFP8, OCP MX v1.0, IEEE 754,
// ml_dtypes, the P3109 interim report as gfloat implements it). Expected numbers are the specs'.
#include <gtest/gtest.h>

#include <cmath>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/format.hpp"

using namespace fpconform;

namespace {

struct Limits {
  const char* name;
  int width;
  double max_finite;
  double min_normal;
  double min_positive;
  bool inf;
  bool nan;
  bool neg_zero;
};

// Values from the specs: OCP OFP8 table (e4m3 448, 2^-6, 2^-9; e5m2 57344, 2^-14, 2^-16),
// OCP MX v1.0 (e3m2 28, e2m3 7.5, e2m1 6; ue8m0 2^127..2^-127), IEEE 754 binary16/32/64,
// ml_dtypes (fnuz biases 8/16/11, e3m4, e4m3 with infinities: max 240).
const Limits kLimits[] = {
    {"f16", 16, 65504.0, 0x1p-14, 0x1p-24, true, true, true},
    {"bf16", 16, 0x1.FEp127, 0x1p-126, 0x1p-133, true, true, true},
    {"f32", 32, 0x1.FFFFFEp127, 0x1p-126, 0x1p-149, true, true, true},
    {"f64", 64, 0x1.FFFFFFFFFFFFFp1023, 0x1p-1022, 0x1p-1074, true, true, true},
    {"tf32", 19, 0x1.FFCp127, 0x1p-126, 0x1p-136, true, true, true},
    {"e4m3", 8, 448.0, 0x1p-6, 0x1p-9, false, true, true},
    {"e5m2", 8, 57344.0, 0x1p-14, 0x1p-16, true, true, true},
    {"e4m3fnuz", 8, 240.0, 0x1p-7, 0x1p-10, false, true, false},
    {"e5m2fnuz", 8, 57344.0, 0x1p-15, 0x1p-17, false, true, false},
    {"e4m3b11fnuz", 8, 30.0, 0x1p-10, 0x1p-13, false, true, false},
    {"e3m4", 8, 15.5, 0x1p-2, 0x1p-6, true, true, true},
    {"e4m3ieee", 8, 240.0, 0x1p-6, 0x1p-9, true, true, true},
    {"e3m2", 6, 28.0, 0x1p-2, 0x1p-4, false, false, true},
    {"e2m3", 6, 7.5, 1.0, 0.125, false, false, true},
    {"e2m1", 4, 6.0, 1.0, 0.5, false, false, true},
    {"ue8m0", 8, 0x1p127, 0x1p-127, 0x1p-127, false, true, false},
    // P3109 (interim report; gfloat's examples give the three 8-bit maxima).
    {"binary8p4sf", 8, 240.0, 0x1p-7, 0x1p-10, false, true, false},
    {"binary8p4se", 8, 224.0, 0x1p-7, 0x1p-10, true, true, false},
    {"binary8p3sf", 8, 57344.0, 0x1p-15, 0x1p-17, false, true, false},
};

}  // namespace

class FormatLimits : public ::testing::TestWithParam<Limits> {};

TEST_P(FormatLimits, MatchSpec) {
  const Limits& l = GetParam();
  const Format f = parse_format(l.name);
  EXPECT_EQ(f.width(), l.width);
  EXPECT_EQ(to_double(f.max_finite_code(), f), l.max_finite);
  EXPECT_EQ(to_double(f.min_normal_code(), f), l.min_normal);
  EXPECT_EQ(to_double(f.min_positive_code(), f), l.min_positive);
  EXPECT_EQ(f.has_inf(), l.inf);
  EXPECT_EQ(f.has_nan(), l.nan);
  EXPECT_EQ(f.has_negative_zero(), l.neg_zero);
  if (l.inf) EXPECT_EQ(to_double(f.inf_code(true), f), -INFINITY);
  if (l.nan) EXPECT_TRUE(std::isnan(to_double(f.nan_code(false), f)));
}

INSTANTIATE_TEST_SUITE_P(Builtins, FormatLimits, ::testing::ValuesIn(kLimits),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Format, SpecialCodesFromTheSpecs) {
  const Format e4m3 = parse_format("e4m3");
  EXPECT_TRUE(e4m3.is_nan_code(0x7F));
  EXPECT_TRUE(e4m3.is_nan_code(0xFF));
  EXPECT_FALSE(e4m3.is_nan_code(0x7E));
  EXPECT_FALSE(e4m3.is_inf_code(0x78));  // 256: an ordinary value in OCP e4m3
  EXPECT_EQ(to_double(0x78, e4m3), 256.0);
  const Format fnuz = parse_format("float8_e4m3fnuz");
  EXPECT_TRUE(fnuz.is_nan_code(0x80));
  EXPECT_EQ(to_double(0x00, fnuz), 0.0);
  const Format e5m2 = parse_format("e5m2");
  EXPECT_TRUE(e5m2.is_inf_code(0x7C));
  for (unsigned c : {0x7Du, 0x7Eu, 0x7Fu}) EXPECT_TRUE(e5m2.is_nan_code(c));
  const Format ue8m0 = parse_format("e8m0");
  EXPECT_TRUE(ue8m0.is_nan_code(0xFF));
  EXPECT_EQ(to_double(127, ue8m0), 1.0);
  const Format p = parse_format("binary8p4se");
  EXPECT_TRUE(p.is_inf_code(0x7F));
  EXPECT_TRUE(p.is_inf_code(0xFF));
  EXPECT_TRUE(p.is_nan_code(0x80));
  const Format pu = parse_format("binary8p4ue");
  EXPECT_TRUE(pu.is_nan_code(0xFF));
  EXPECT_TRUE(pu.is_inf_code(0xFE));
  EXPECT_EQ(pu.width(), 8);
  // tf32 is the 19-bit code: 1.0 is 0x1FC00 (f32 0x3F800000 >> 13).
  EXPECT_EQ(to_double(0x1FC00, parse_format("tf32")), 1.0);
}

TEST(Format, Aliases) {
  for (const char* a : {"fp16", "half", "binary16", "float16"})
    EXPECT_EQ(parse_format(a).name, "f16") << a;
  EXPECT_EQ(parse_format("float8_e4m3fn").name, "e4m3");
  EXPECT_EQ(parse_format("float8_e4m3").name, "e4m3ieee");
  EXPECT_EQ(parse_format("BF16").name, "bf16");
  EXPECT_EQ(parse_format("fp4").name, "e2m1");
}

TEST(Format, CustomSpecs) {
  const Format e6m9 = parse_format("e6m9");
  EXPECT_EQ(e6m9.width(), 16);
  EXPECT_EQ(e6m9.bias, 31);
  EXPECT_TRUE(e6m9.has_inf());
  const Format c = parse_format("custom:e=4,m=3,bias=7,inf=none,nan=ones");
  EXPECT_EQ(to_double(c.max_finite_code(), c), 448.0);
  const Format u = parse_format("custom:e=4,m=4,signed=0,inf=none,nan=none");
  EXPECT_EQ(u.width(), 8);
  EXPECT_EQ(to_double(0xFF, u), 0x1.Fp8);
}

TEST(Format, BadNamesThrowWithTheArgument) {
  for (const char* bad : {"", "e4m", "fp7", "e0m3", "e4m99", "binary8p9se", "binary2p1se",
                          "custom:e=4", "custom:e=4,m=3,nan=weird", "custom:e=4,m=3,x=1",
                          "custom:e=4,m=3,subnormals=0", "custom:e=4,m=0,nan=ieee"}) {
    try {
      parse_format(bad, "--to");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), "--to") << bad;
    }
  }
}

TEST(Format, DecodeRejectsBitsWiderThanTheFormat) {
  EXPECT_THROW(decode(0x1FF, parse_format("e4m3")), Error);
  EXPECT_THROW(decode(0x10, parse_format("e2m1")), Error);
}
