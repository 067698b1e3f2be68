// The function registry, options, and emu's results on hand-written cases whose expected
// values follow from the formats' specifications (OCP MX / OCP FP8, IEEE 754, P3109) and
// emu/SEMANTICS.md, each worked out in the comment beside it.
#include <gtest/gtest.h>

#include "fpconform/core/error.hpp"
#include "fpconform/testfloat/function.hpp"
#include "fpconform/testfloat/run.hpp"

namespace fpconform::testfloat {
namespace {

struct Case {
  const char* function;
  std::uint64_t operand;
  std::uint64_t result;
  std::uint8_t flags;
  const char* round = "rne";
  const char* sat = "none";
  const char* tininess = "after";
  const char* why = "";
};

// flags: invalid 10, infinite 08, overflow 04, underflow 02, inexact 01
const Case kCases[] = {
    {"f32_to_e4m3", 0x43E00000, 0x7E, 0x00, "rne", "none", "after", "448 = max finite"},
    {"f32_to_e4m3", 0x43E80000, 0x7E, 0x01, "rne", "none", "after", "464: tie 448|480, to even 448"},
    {"f32_to_e4m3", 0x43E88000, 0x7F, 0x05, "rne", "none", "after", "465 rounds past max: NaN"},
    {"f32_to_e4m3", 0x43E88000, 0x7E, 0x05, "rne", "finite", "after", "465 saturates"},
    {"f32_to_e4m3", 0x43E88000, 0x7E, 0x01, "rtz", "none", "after", "465 truncates to 448"},
    {"f32_to_e4m3", 0x43FA0000, 0x7E, 0x05, "rtz", "none", "after", "500 truncates to 480 > max"},
    {"f32_to_e4m3", 0x7F800000, 0x7F, 0x10, "rne", "none", "after", "+inf: no inf, NaN"},
    {"f32_to_e4m3", 0xFF800000, 0xFF, 0x10, "rne", "none", "after", "-inf: NaN keeps sign"},
    {"f32_to_e4m3", 0x7F800000, 0x7E, 0x05, "rne", "finite", "after", "+inf saturates"},
    {"f32_to_e4m3", 0x7FC00000, 0x7F, 0x00, "rne", "none", "after", "qNaN"},
    {"f32_to_e4m3", 0x7F800001, 0x7F, 0x10, "rne", "none", "after", "sNaN raises invalid"},
    {"f32_to_e4m3", 0x3A800000, 0x00, 0x03, "rne", "none", "after", "2^-10 = half min sub: tie to 0"},
    {"f32_to_e4m3", 0x3A800001, 0x01, 0x03, "rne", "none", "after", "just above the tie"},
    {"f32_to_e4m3", 0xBA800000, 0x80, 0x03, "rne", "none", "after", "-2^-10 to -0"},
    {"f32_to_e4m3", 0x3B400000, 0x02, 0x03, "rne", "none", "after", "1.5 min sub: tie to even 2"},
    {"f32_to_e4m3", 0x3C7FFFFF, 0x08, 0x01, "rne", "none", "after", "rounds to min normal: not tiny after"},
    {"f32_to_e4m3", 0x3C7FFFFF, 0x08, 0x03, "rne", "none", "before", "tiny before rounding"},
    {"f32_to_e5m2", 0x7F800000, 0x7C, 0x00, "rne", "none", "after", "inf stays inf"},
    {"f32_to_e5m2", 0xFF800000, 0xFC, 0x00, "rne", "none", "after", "-inf"},
    {"f32_to_e5m2", 0x47700000, 0x7C, 0x05, "rne", "none", "after", "61440: tie 57344|65536 to even: inf"},
    {"f32_to_e5m2", 0x47700000, 0x7B, 0x05, "rne", "finite", "after", "saturated"},
    {"e4m3_to_f32", 0x7F, 0x7FC00000, 0x00, "rne", "none", "after", "NaN"},
    {"e4m3_to_f32", 0xFF, 0xFFC00000, 0x00, "rne", "none", "after", "-NaN"},
    {"e4m3_to_f32", 0x7E, 0x43E00000, 0x00, "rne", "none", "after", "448"},
    {"e4m3_to_f32", 0x01, 0x3B000000, 0x00, "rne", "none", "after", "2^-9"},
    {"e4m3_to_f32", 0x80, 0x80000000, 0x00, "rne", "none", "after", "-0"},
    {"f32_to_bf16", 0x3F808000, 0x3F80, 0x01, "rne", "none", "after", "1+2^-8: tie to even"},
    {"f32_to_bf16", 0x3F808001, 0x3F81, 0x01, "rne", "none", "after", "above the tie"},
    {"f32_to_bf16", 0x3F818000, 0x3F82, 0x01, "rne", "none", "after", "odd tie goes up"},
    {"f32_to_bf16", 0x7F7FFFFF, 0x7F80, 0x05, "rne", "none", "after", "f32 max overflows bf16"},
    {"f64_to_bf16", 0x3FF0100000001000, 0x3F81, 0x01, "rne", "none", "after", "1+2^-8+2^-40"},
    {"f32_to_e2m1", 0x40E00000, 0x07, 0x05, "rne", "none", "after", "7: tie 6|8 to even 8 > max: 6"},
    {"f32_to_e2m1", 0x40D00000, 0x07, 0x01, "rne", "none", "after", "6.5 to 6"},
    {"f32_to_e2m1", 0x3E800000, 0x00, 0x03, "rne", "none", "after", "0.25: tie 0|0.5 to 0"},
    {"f32_to_e2m1", 0x3F400000, 0x02, 0x03, "rne", "none", "after", "0.75: tie to 1, tiny after"},
    {"f32_to_e2m1", 0x7FC00000, 0x00, 0x10, "rne", "none", "after", "NaN: no NaN, +0 invalid"},
    {"f32_to_e2m1", 0xFF800000, 0x0F, 0x05, "rne", "none", "after", "-inf: no inf/NaN: -max"},
    {"f32_to_ue8m0", 0x3F800000, 0x7F, 0x00, "rne", "none", "after", "1.0"},
    {"f32_to_ue8m0", 0xBF800000, 0xFF, 0x10, "rne", "none", "after", "negative: NaN"},
    {"f32_to_ue8m0", 0x00000000, 0x00, 0x03, "rne", "none", "after", "zero: no zero, min pos"},
    {"f32_to_ue8m0", 0x3FC00000, 0x80, 0x01, "rne", "none", "after", "1.5: tie 1|2, 2 is even"},
    {"f32_to_ue8m0", 0x7F800000, 0xFF, 0x10, "rne", "none", "after", "inf: NaN"},
    {"f32_to_e4m3fnuz", 0x80000000, 0x00, 0x00, "rne", "none", "after", "-0: no negative zero"},
    {"f32_to_e4m3fnuz", 0x7FC00000, 0x80, 0x00, "rne", "none", "after", "NaN is 0x80"},
    {"f32_to_e4m3fnuz", 0x43700000, 0x7F, 0x00, "rne", "none", "after", "240 = max"},
    {"f32_to_tf32", 0x3F800000, 0x1FC00, 0x00, "rne", "none", "after", "19-bit code"},
    {"f32_to_tf32", 0x3F801000, 0x1FC00, 0x01, "rne", "none", "after", "tie to even"},
    {"f32_to_tf32", 0x3F803000, 0x1FC02, 0x01, "rne", "none", "after", "odd tie goes up"},
    {"e5m2_to_e4m3", 0x7C, 0x7F, 0x10, "rne", "none", "after", "inf: NaN"},
    {"e5m2_to_e4m3", 0x7B, 0x7F, 0x05, "rne", "none", "after", "57344 overflows"},
    {"binary8p3se_to_f16", 0x7F, 0x7C00, 0x00, "rne", "none", "after", "P3109 +inf"},
    {"binary8p3se_to_f16", 0x80, 0x7E00, 0x00, "rne", "none", "after", "P3109 NaN"},
    {"binary8p3se_to_f16", 0x01, 0x0080, 0x00, "rne", "none", "after", "2^-17"},
};

class EmuCases : public ::testing::TestWithParam<Case> {};

TEST_P(EmuCases, MatchesSpec) {
  const Case& c = GetParam();
  const auto f = parse_function(c.function);
  OptionText t;
  t.round = c.round;
  t.sat = c.sat;
  t.tininess = c.tininess;
  const Options o = make_options(t);
  const Result r = f->emu(&c.operand, o);
  EXPECT_EQ(r.bits, c.result) << c.function << " " << std::hex << c.operand << ": " << c.why;
  EXPECT_EQ(r.flags, c.flags) << c.function << " " << std::hex << c.operand << ": " << c.why;
  // The oracle agrees (it computes the same SEMANTICS.md independently).
  const Result q = f->oracle(&c.operand, o);
  EXPECT_TRUE(f->matches(Result{c.result, c.flags}, q, false))
      << "oracle " << std::hex << q.bits << " " << int(q.flags) << ": " << c.why;
}

INSTANTIATE_TEST_SUITE_P(Spec, EmuCases, ::testing::ValuesIn(kCases));

TEST(Registry, ParsesConversions) {
  auto f = parse_function("f32_to_e4m3");
  EXPECT_EQ(f->name(), "f32_to_e4m3");
  EXPECT_EQ(f->arity(), 1);
  EXPECT_EQ(f->signature().operands[0].name, "f32");
  EXPECT_EQ(f->signature().result.name, "e4m3");
  // Names with underscores of their own, and families of parse_format.
  EXPECT_EQ(parse_function("float8_e4m3fn_to_float32")->signature().result.name, "f32");
  EXPECT_EQ(parse_function("binary8p3se_to_f16")->signature().operands[0].width(), 8);
  EXPECT_EQ(parse_function("bf16_to_e2m1")->signature().result.width(), 4);
  EXPECT_EQ(parse_function("e6m9_to_f32")->signature().operands[0].width(), 16);
}

TEST(Registry, RejectsUnknownNames) {
  try {
    parse_function("f32_to_zz");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("FUNCTION 'f32_to_zz'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown format 'zz'"), std::string::npos) << e.what();
  }
  try {
    parse_function("f32e4m3");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "FUNCTION");
  }
}

TEST(Registry, FamiliesCarryArity) {
  ASSERT_FALSE(families().empty());
  EXPECT_EQ(families()[0].syntax, "<fmt>_to_<fmt>");
  EXPECT_EQ(families()[0].arity, 1);
}

TEST(Matching, AnyNanMatchesUnlessExact) {
  const auto f = parse_function("e4m3_to_f32");
  EXPECT_TRUE(f->matches({0x7FC00000, 0}, {0x7FFFFFFF, 0}, false));
  EXPECT_TRUE(f->matches({0x7FC00000, 0}, {0xFFC00000, 0}, false));
  EXPECT_FALSE(f->matches({0x7FC00000, 0}, {0x7FFFFFFF, 0}, true));
  EXPECT_FALSE(f->matches({0x7FC00000, 0}, {0x7FC00000, 0x10}, false));  // flags always count
  EXPECT_FALSE(f->matches({0x7FC00000, 0}, {0x7F800000, 0}, false));     // inf is not NaN
}

TEST(Options, ExplicitOptionsAreRecorded) {
  OptionText t;
  t.round = "rtz";
  t.ftz = true;
  const Options o = make_options(t);
  EXPECT_EQ(o.rounding.mode, RoundingMode::rtz);
  EXPECT_TRUE(o.rounding.ftz);
  ASSERT_TRUE(o.user.mode.has_value());
  EXPECT_TRUE(o.user.ftz.value_or(false));
  EXPECT_FALSE(o.user.sat.has_value());
  EXPECT_FALSE(o.user.daz.has_value());
}

TEST(Options, Errors) {
  auto where = [](OptionText t) {
    try {
      make_options(t);
    } catch (const Error& e) {
      return e.where();
    }
    return std::string("no error");
  };
  OptionText t;
  t.round = "bogus";
  EXPECT_EQ(where(t), "--round");
  t = {};
  t.sat = "bogus";
  EXPECT_EQ(where(t), "--sat");
  t = {};
  t.tininess = "sometimes";
  EXPECT_EQ(where(t), "--tininess");
  t = {};
  t.round = "sr-a";  // needs --sr-bits
  EXPECT_EQ(where(t), "--round");
  t.sr_bits = 65;
  EXPECT_EQ(where(t), "--sr-bits");
  t.sr_bits = 4;
  t.random = "0x1f";  // 5 bits
  EXPECT_EQ(where(t), "--random");
  t.random = "15";
  EXPECT_EQ(where(t), "no error");
  t = {};
  t.random = "3";  // not a stochastic mode
  EXPECT_EQ(where(t), "--random");
}

TEST(Args, TestFloatSpellings) {
  const std::vector<std::string> in = {"f32_to_e4m3", "-rnear_even", "-rminMag", "-rnear_maxMag",
                                       "-rmin", "-rmax", "-rodd", "-level", "2", "-seed", "9",
                                       "-n", "10", "-tininessbefore", "-tininessafter",
                                       "-checkNaNs", "--", "-rmin"};
  const std::vector<std::string> want = {
      "f32_to_e4m3", "--round", "rne", "--round", "rtz", "--round", "rna", "--round", "down",
      "--round", "up", "--round", "odd", "--level", "2", "--seed", "9", "-n", "10",
      "--tininess", "before", "--tininess", "after", "--exact-nan", "--", "-rmin"};
  EXPECT_EQ(rewrite_testfloat_args(in), want);
}

}  // namespace
}  // namespace fpconform::testfloat
