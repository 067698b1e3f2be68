// Regressions found by the fuzz targets of suites/fuzz (their inputs are also kept in
// suites/fuzz/corpus/<target>/regress-*). Each parser must give a result or fpconform::Error;
// these inputs once gave undefined behaviour instead.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/core/format.hpp"

namespace fpconform {
namespace {

// e<E>m<M> with an exponent width outside 1..30 computed its bias as 1 << (E - 1) before
// validation refused it (a shift by 599999, or by -1).
TEST(FuzzRegression, EmxExponentWidthOutOfRange) {
  EXPECT_THROW(parse_format("e600000m1", "--to"), Error);
  EXPECT_THROW(parse_format("e0m3", "--to"), Error);
  EXPECT_THROW(parse_format("e-5m3", "--to"), Error);
  EXPECT_THROW(parse_format("e31m2", "--to"), Error);
  EXPECT_EQ(parse_format("e6m9").exp_bits, 6);  // in range: still read
}

// custom:e=1,m=0,inf=top,nan=ones has two magnitudes, both special: max_finite_code() wrapped
// below zero and the format was accepted with a limit code wider than itself (fuzz_format).
TEST(FuzzRegression, EverySpecialMagnitudeLeavesNoFiniteValue) {
  EXPECT_THROW(parse_format("custom:e=1,m=0,inf=top,nan=ones", "--to"), Error);
  EXPECT_THROW(parse_format("custom:e=1,m=16,m=0,nan=ieee,inf=top,nan=ones", "--to"), Error);
  // One special magnitude leaves the other one finite (1.0 with bias 0): still read.
  const Format one = parse_format("custom:e=1,m=0,bias=0,inf=none,nan=ones,zero=0,subnormals=0");
  EXPECT_EQ(one.max_finite_code(), 0u);
}

// custom: models took any int for the fields fdpa uses unchecked; zero_exp = -2^31 + 1 made
// fdpa compute G.e - F with signed overflow.
TEST(FuzzRegression, ModelFieldsBounded) {
  const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32");
  for (const char* text :
       {"custom:zero_exp=-2147483647", "custom:zero_exp=2147483647", "custom:acc_frac_bits=-2",
        "custom:acc_frac_bits=2147483647", "custom:carry_bits=2147483647",
        "custom:product_bits=100000", "custom:late_c_frac_bits=2000000000",
        "custom:late_c_drop_below=-7", "custom:interleave=0", "custom:instr_k=-1"}) {
    try {
      (void)parse_model(text, e4m3, f32, "--model");
      ADD_FAILURE() << text << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), "--model") << text;
    }
  }
  // In range, and the presets through base=, still read.
  EXPECT_EQ(parse_model("custom:zero_exp=-133", e4m3, f32).zero_exp, -133);
  EXPECT_EQ(parse_model("custom:zero_exp=none", e4m3, f32).zero_exp, INT_MIN);
  EXPECT_NO_THROW(parse_model("custom:base=hopper,carry_bits=3", e4m3, f32));
}

// fuzz_model: acc_frac_bits=120 with an f32 output made fdpa build a 130-bit accumulator format
// (1 + 8 + 120 bits) and shift by 129 for its sign. An accumulator code must fit 64 bits: f32's
// exponent field leaves 64 - 1 - 8 = 55 fraction bits, f16's 64 - 1 - 5 = 58. parse_model
// refuses more (the --model argument is named), and so does fdpa for parameters set in code.
TEST(FuzzRegression, AccumulatorWiderThan64BitsRefused) {
  const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32"), f16 = parse_format("f16");
  EXPECT_EQ(max_acc_frac_bits(f32), 55);
  EXPECT_EQ(max_acc_frac_bits(f16), 58);
  for (const auto& [bits, out] : {std::pair{56, f32}, {120, f32}, {200, f32}, {59, f16}}) {
    const std::string text = "custom:acc_frac_bits=" + std::to_string(bits);
    try {
      (void)parse_model(text, e4m3, out, "--model");
      ADD_FAILURE() << text << " was accepted for " << out.name;
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), "--model") << text;
    }
    FdpaParams p = parse_model("custom:acc_frac_bits=13", e4m3, out);
    p.acc_frac_bits = bits;
    try {
      (void)fdpa(p, e4m3, out, std::vector<std::uint64_t>{0x38}, std::vector<std::uint64_t>{0x38}, 0);
      ADD_FAILURE() << "fdpa ran with acc_frac_bits=" << bits << " for " << out.name;
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), "acc_frac_bits") << bits;
    }
  }
  // The widest that fits: 1 * 1 + 2 * 1 = 3 exactly (f32 0x40400000, f16 0x4200).
  const std::vector<std::uint64_t> a = {0x38, 0x40}, b = {0x38, 0x38};
  EXPECT_EQ(fdpa(parse_model("custom:acc_frac_bits=55", e4m3, f32), e4m3, f32, a, b, 0), 0x40400000u);
  EXPECT_EQ(fdpa(parse_model("custom:acc_frac_bits=58", e4m3, f16), e4m3, f16, a, b, 0), 0x4200u);
}

}  // namespace
}  // namespace fpconform

#include "fpconform/arith.hpp"
#include "fpconform/convert.hpp"

namespace fpconform {
namespace {

// fuzz_arith_diff: a reserved code (all-ones exponent field, neither the NaN nor the infinity
// of custom:e=3,m=2,inf=ieee,nan=ones) read as a positive quiet NaN whatever its sign, where
// the MPFR oracle (and tools/engines/conformance's op_reference) keep the sign: mulAdd(0x33, 0, 0x3e)
// gave 0x1f for the oracle's 0x3f under the ieee NaN policy (the NaN operand propagates, sign
// kept).
TEST(FuzzRegression, ReservedCodeKeepsItsSign) {
  const Format f = parse_format("custom:e=3,m=2,inf=ieee,nan=ones");
  ASSERT_TRUE(f.is_reserved_code(0x3e));
  const ExactValue x = decode(0x3e, f);
  EXPECT_TRUE(x.is_nan());
  EXPECT_TRUE(x.negative);
  EXPECT_FALSE(decode(0x1e, f).negative);
  const std::uint64_t ops[3] = {0x33, 0x00, 0x3e};
  OpOptions o;
  o.rounding.ftz = true;
  const Rounded r = apply_op(Op::mul_add, f, ops, o);
  EXPECT_EQ(r.bits, 0x3fu);
  EXPECT_EQ(r.flags.bits, 0);
}

}  // namespace
}  // namespace fpconform

namespace fpconform {
namespace {

// fuzz_arith_diff: exact_sqrt kept a 64-bit root, enough for deterministic rounding but not
// for stochastic rounding into f64 with more than about 11 random bits. sqrt(0x0000000000ffffff)
// = 4095.99999988079071... * 2^-537: the significand 0x1fffffeffffffb, and the fraction of an
// ulp dropped f = 0.99999988079...; truncated to n = 26 bits f = 2^26 - 9, and with r = 0x7ffd
// f + r >= 2^26, so sr-c rounds away: 0x1f1fffffeffffffc (the 64-bit root saw f truncated to
// 11 bits, and rounded toward zero).
TEST(FuzzRegression, SqrtHasTheBitsStochasticRoundingNeeds) {
  const Format f64 = parse_format("f64");
  const std::uint64_t ops[3] = {0xffffff, 0, 0};
  OpOptions o;
  o.rounding.mode = RoundingMode::stochastic_c;
  o.rounding.stochastic_bits = 26;
  o.rounding.random = 0x7ffd;
  const Rounded r = apply_op(Op::sqrt, f64, ops, o);
  EXPECT_EQ(r.bits, 0x1f1fffffeffffffcull);
  EXPECT_EQ(r.flags.bits, Flags::inexact);
  // 64 random bits: r = 2^64 - 1 rounds away from anything inexact; r = 0 only from f's top.
  o.rounding.stochastic_bits = 64;
  o.rounding.random = ~0ull;
  EXPECT_EQ(apply_op(Op::sqrt, f64, ops, o).bits, 0x1f1fffffeffffffcull);
  o.rounding.random = 0;
  EXPECT_EQ(apply_op(Op::sqrt, f64, ops, o).bits, 0x1f1fffffeffffffbull);
}

}  // namespace
}  // namespace fpconform
