// gemm_options: each option lands in GemmOptions, and each refusal names the option as the
// caller's users spell it (the CLI's --split-k, Python's split_k).
#include <gtest/gtest.h>

#include "fpconform/core/error.hpp"
#include "fpconform/gemm_setup.hpp"

namespace fpconform {
namespace {

constexpr const GemmSetupNames& kSnake = kKeywordGemmNames;

std::string refusal(const GemmSetup& s, const GemmSetupNames& n) {
  try {
    (void)gemm_options(s, parse_format("e4m3"), parse_format("f32"), n);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(GemmSetup, OptionsLandWhereGemmReadsThem) {
  GemmSetup s;
  s.model = "hopper";
  s.promote_every = 32;
  s.reduction = "pairwise";
  s.reverse_k = true;
  s.c_in_epilogue = true;
  s.scale_a = {0x3f800000u};
  s.scale_b = {0x40000000u};
  s.scale_b_block_cols = 128;
  const GemmOptions g = gemm_options(s, parse_format("e4m3"), parse_format("bf16"));
  EXPECT_EQ(g.acc.name, "f32");
  EXPECT_EQ(g.out.name, "bf16");
  EXPECT_EQ(g.promote_every, 32);
  EXPECT_EQ(g.reduction, SplitReduction::pairwise);
  EXPECT_TRUE(g.reverse_k && g.c_in_epilogue);
  EXPECT_EQ(g.scale_a, s.scale_a);
  EXPECT_EQ(g.scale_b, s.scale_b);
  EXPECT_EQ(g.scale_b_block_cols, 128);
  EXPECT_EQ(g.block_scale_format.name, "ue8m0");
}

TEST(GemmSetup, RefusalsNameTheOptionInTheCallersSpelling) {
  GemmSetup s;
  s.model = "hopper";
  auto starts = [](const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; };
  GemmSetup t = s;
  t.split_k = 0;
  EXPECT_TRUE(starts(refusal(t, kCliGemmNames), "--split-k:")) << refusal(t, kCliGemmNames);
  EXPECT_TRUE(starts(refusal(t, kSnake), "split_k:")) << refusal(t, kSnake);
  t = s;
  t.model = "hoper";
  EXPECT_TRUE(starts(refusal(t, kSnake), "model:")) << refusal(t, kSnake);
  t = s;
  t.acc = "f99";
  EXPECT_TRUE(starts(refusal(t, kSnake), "acc_format:")) << refusal(t, kSnake);
  t = s;
  t.reduction = "tree";
  EXPECT_TRUE(starts(refusal(t, kSnake), "reduction:")) << refusal(t, kSnake);
  t = s;
  t.scale_a = {0x3f800000u};  // one side only
  EXPECT_TRUE(starts(refusal(t, kSnake), "scale_b:")) << refusal(t, kSnake);
  t.scale_b = {0x3f800000u};  // both, but no promotion to apply them at
  EXPECT_TRUE(starts(refusal(t, kSnake), "scale_a:")) << refusal(t, kSnake);
  t = s;
  t.block_scale_a = {127};
  EXPECT_TRUE(starts(refusal(t, kSnake), "block_scale_b:")) << refusal(t, kSnake);
  t.block_scale_b = {0x1ff};  // above ue8m0's 8 bits
  EXPECT_TRUE(starts(refusal(t, kSnake), "block_scale_b:")) << refusal(t, kSnake);
  t = s;
  t.block_scale_format = "nope";
  EXPECT_TRUE(starts(refusal(t, kSnake), "block_scale_format:")) << refusal(t, kSnake);
}

}  // namespace
}  // namespace fpconform
