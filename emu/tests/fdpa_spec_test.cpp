// describe_params / parse_model: every preset written as custom:key=value,... reads back as the
// same parameters; bad keys and values are errors naming --model.
#include <gtest/gtest.h>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/matrix_presets.hpp"

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

// model_spec writes only what differs from the defaults, and reads back to the same parameters.
TEST(FdpaSpec, ShortSpecRoundTrips) {
  EXPECT_EQ(model_spec(FdpaParams{}), "custom:");
  const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32");
  const FdpaParams hopper = find_matrix_unit("hopper", e4m3, f32);
  // hopper e4m3: L = 32, F = 13, e8m13 accumulator (Khattak & Mikaitis, arXiv 2512.07004);
  // fused is the default structure.
  const std::string spec = model_spec(hopper);
  for (const char* key : {"block=32", "frac_bits=13", "acc_frac_bits=13"})
    EXPECT_NE(spec.find(key), std::string::npos) << spec;
  EXPECT_EQ(spec.find("structure="), std::string::npos) << spec;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    const FdpaParams back = parse_model(model_spec(e.params), in, f32);
    EXPECT_TRUE(same_params(back, e.params)) << e.preset << " " << e.input << ": "
                                             << model_spec(e.params);
  }
  FdpaParams other = hopper;
  other.zero_exp = 0;
  EXPECT_FALSE(same_params(other, hopper));
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
