// describe_params / parse_model / model_text: every preset written as custom:key=value,... reads
// back as the same parameters; what is written is the staged form; flat keys that mean nothing,
// bad keys and values are errors naming --model.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/unit_model.hpp"

namespace fpconform {
namespace {

TEST(FdpaSpec, EveryPresetRoundTripsThroughCustomText) {
  int n = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    std::string text = "custom:";
    for (const auto& [k, v] : describe_params(e.params)) text += k + "=" + v + ",";
    text.pop_back();
    const Format in = parse_format(e.input), out = parse_format("f32");
    const FdpaParams back = parse_model(text, in, out);
    EXPECT_EQ(describe_params(back), describe_params(e.params)) << e.preset << " " << e.input;
    ++n;
  }
  EXPECT_GT(n, 50);
}

// model_text writes the staged form, which reads back to the same unit.
TEST(FdpaSpec, ModelTextIsTheStagedForm) {
  const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32");
  EXPECT_EQ(model_text(FdpaParams{}), "fused(block=4, frac_bits=23) | out(rtz)");
  // hopper e4m3: L = 32, F = 13, e8m13 accumulator (Khattak & Mikaitis, arXiv 2512.07004).
  const FdpaParams hopper = find_matrix_unit("hopper", e4m3, f32);
  EXPECT_EQ(model_text(hopper),
            "fused(block=32, frac_bits=13, zero_exp=-133) | acc(frac_bits=13) | "
            "out(rtz, sat=infinite, underflow_positive)");
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    const FdpaParams back = parse_model(model_text(e.params), in, f32);
    EXPECT_TRUE(same_params(back, lower(raise(e.params)))) << e.preset << " " << e.input << ": "
                                                           << model_text(e.params);
    EXPECT_EQ(model_text(back), model_text(e.params));
  }
  FdpaParams other = hopper;
  other.zero_exp = 0;
  EXPECT_FALSE(same_params(other, hopper));
}

// The flat keys obey the staged form's rules: a key the unit does not read, or a combination
// its stages refuse, is an error naming the key or the stage.
TEST(FdpaSpec, FlatKeysThatMeanNothingAreRefused) {
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  struct Case {
    const char *text, *message;
  };
  const Case cases[] = {
      {"custom:structure=pairwise,frac_bits=3", "--model frac_bits: '3' means nothing"},
      {"custom:late_c=1", "--model late_c"},  // C in the block (c_in_block=1): no late C
      {"custom:structure=sequential,tree=(c (0 1))", "--model tree"},
      {"custom:flush_inputs_positive=1", "--model flush_inputs_positive"},  // needs flush_inputs
      {"custom:product_rounding=nearest_even", "--model product_rounding"},
      {"custom:interleave=2", "interleaved groups need C after the block"},
      {"custom:structure=exact,nan_b_first=1", "--model nan_b_first"},
      {"custom:structure=sequential,underflow_zero_positive=1", "--model underflow_zero_positive"},
      {"custom:structure=tree,tree=(c (0 1)),acc_frac_bits=10", "--model acc_frac_bits"},
      {"custom:c_in_block=0,late_sum_frac_bits=20", "--model late_sum_frac_bits"},
  };
  for (const Case& c : cases) {
    try {
      parse_model(c.text, bf16, f32, "--model");
      ADD_FAILURE() << c.text << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << c.text << " -> " << e.what();
    }
  }
  // Keys the unit reads, and a preset's unread fields when a key changes its structure.
  EXPECT_NO_THROW(parse_model("custom:c_in_block=0,late_c=1,late_sum_frac_bits=20", bf16, f32));
  EXPECT_NO_THROW(parse_model("custom:base=hopper,structure=sequential,out_round=rne", bf16, f32));
  EXPECT_NO_THROW(parse_model("custom:product_bits=12,product_rounding=nearest_even", bf16, f32));
}

// Flat models drawn at random (every key the search and the old profiles write): each one the
// parser accepts has a staged text that reads back to the same unit and gives the same bits.
TEST(FdpaSpec, RandomFlatModelsComputeTheSameAsTheirStagedText) {
  std::mt19937_64 rng(11);
  auto pick = [&](std::initializer_list<const char*> v) { return std::string(v.begin()[rng() % v.size()]); };
  auto num = [&](int lo, int hi) { return std::to_string(lo + static_cast<int>(rng() % (hi - lo + 1))); };
  const Format f32 = parse_format("f32");
  int accepted = 0, refused = 0;
  for (int t = 0; t < 4000; ++t) {
    const Format in = parse_format(pick({"f16", "bf16", "e4m3", "e5m2"}));
    const std::string structure = pick({"fused", "fused", "fused", "pairwise", "sequential", "exact", "tree"});
    std::string text = "custom:structure=" + structure;
    if (structure == "tree") text += ",tree=" + pick({"(c ((0 1) (2 3)))", "((c 0) 1)", "(c 0 1 2)"});
    const std::vector<std::pair<const char*, std::string>> optional = {
        {"block", num(1, 12)}, {"frac_bits", num(3, 30)}, {"align", pick({"truncate", "nearest_even", "down"})},
        {"zero_exp", rng() % 2 ? "none" : num(-140, 5)}, {"c_in_block", num(0, 1)}, {"late_c", num(0, 1)},
        {"acc_frac_bits", num(-1, 20)}, {"out_round", pick({"rne", "rtz", "up", "down"})},
        {"out_sat", pick({"none", "satfinite", "infinite"})}, {"flush_inputs", num(0, 1)},
        {"flush_inputs_positive", num(0, 1)}, {"flush_outputs", num(0, 1)},
        {"underflow_zero_positive", num(0, 1)}, {"interleave", num(1, 2)},
        {"group_align", pick({"truncate", "nearest_even", "down"})}, {"late_sum_frac_bits", num(20, 31)},
        {"late_c_frac_bits", num(20, 24)}, {"late_c_drop_below", num(-1, 25)}, {"product_overflow", num(0, 1)},
        {"product_bits", rng() % 2 ? "-1" : num(4, 24)}, {"product_rounding", pick({"truncate", "nearest_even"})},
        {"carry_bits", num(-1, 4)}, {"instr_k", pick({"0", "8", "16"})},
        {"k_order", pick({"natural", "pairs_mod4"})}, {"c_last", num(0, 1)},
        {"nan", pick({"nvidia", "ieee", "x86"})}, {"nan_b_first", num(0, 1)}};
    for (const auto& [key, value] : optional)
      if (rng() % 7 == 0) text += std::string(",") + key + "=" + value;
    FdpaParams p;
    try {
      p = parse_model(text, in, f32);
    } catch (const Error&) {
      ++refused;
      continue;
    }
    ++accepted;
    const std::string staged = model_text(p);
    SCOPED_TRACE(text + " -> " + staged);
    const FdpaParams back = parse_model(staged, in, f32);
    ASSERT_EQ(model_text(back), staged);
    for (int v = 0; v < 8; ++v) {
      const std::size_t k = 1 + rng() % 40;
      std::vector<std::uint64_t> a(k), b(k);
      for (auto& x : a) x = rng() & in.code_mask();
      for (auto& x : b) x = rng() & in.code_mask();
      const std::uint64_t c = rng() & f32.code_mask();
      std::uint64_t d = 0;
      try {
        d = fdpa(p, in, f32, a, b, c);
      } catch (const Error&) {  // a format the structure cannot take: the staged text neither
        EXPECT_THROW(fdpa(back, in, f32, a, b, c), Error);
        continue;
      }
      ASSERT_EQ(fdpa(back, in, f32, a, b, c), d);
    }
  }
  std::printf("%d random flat models accepted (each computes what its staged text does), %d refused\n",
              accepted, refused);
  EXPECT_GT(accepted, 500);
  EXPECT_GT(refused, 500);
}

TEST(FdpaSpec, BaseAndErrors) {
  const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32");
  const FdpaParams p = parse_model("custom:base=hopper,frac_bits=20", e4m3, f32);
  EXPECT_EQ(p.block, 32);
  EXPECT_EQ(p.frac_bits, 20);
  EXPECT_EQ(p.acc_frac_bits, 13);
  EXPECT_EQ(parse_model("hopper", e4m3, f32).frac_bits, 13);
  EXPECT_THROW(parse_model("custom:frac=3", e4m3, f32), Error);
  EXPECT_THROW(parse_model("custom:block=x", e4m3, f32), Error);
  EXPECT_THROW(parse_model("custom:align=up", e4m3, f32), Error);
  EXPECT_THROW(parse_model("custom:frac_bits=3,base=hopper", e4m3, f32), Error);
  EXPECT_THROW(parse_model("custom:nan=arm", e4m3, f32), Error);
  EXPECT_THROW(parse_model("nosuch", e4m3, f32), Error);
}

}  // namespace
}  // namespace fpconform
