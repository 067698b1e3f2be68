// MMA verdicts on synthetic results whose outputs an emu preset computed: the verdict is known by
// construction (made with hopper: judged hopper, not ampere; made with a custom model: no preset,
// and the fit finds a model that reproduces every row).
#include <gtest/gtest.h>

#include "fpconform/characterize/cuda_target.hpp"
#include "fpconform/gpu/mma_verdict.hpp"
#include "synthetic_dot.hpp"

namespace fpconform::gpu {
namespace {

using testing::synthetic_dot_result;

const PresetAgreement& preset(const MmaVerdict& v, const std::string& name) {
  for (const auto& p : v.presets)
    if (p.preset == name) return p;
  throw std::runtime_error("no preset " + name + " in the verdict");
}

TEST(ExpectedPresets, FollowInstructionAndComputeCapability) {
  const auto& mma = *find_kernel("mma_m16n8k16_f32_f16");
  EXPECT_EQ(expected_presets(mma, 80), std::vector<std::string>{"ampere"});
  EXPECT_EQ(expected_presets(mma, 86), std::vector<std::string>{"ampere"});
  EXPECT_EQ(expected_presets(mma, 89), std::vector<std::string>{"ada"});
  EXPECT_EQ(expected_presets(mma, 90), std::vector<std::string>{"hopper-mma"});
  EXPECT_EQ(expected_presets(mma, 120), std::vector<std::string>{"rtx-blackwell"});
  EXPECT_EQ(expected_presets(*find_kernel("wgmma_m64n8k32_f32_e4m3"), 90), std::vector<std::string>{"hopper-wgmma"});
  // composed kernels: the unit they are built of, composed as cuda_kernel_composition says
  EXPECT_EQ(expected_presets(*find_kernel("splitk4_k128_f32_f16"), 90), std::vector<std::string>{"hopper-mma"});
  EXPECT_EQ(expected_presets(*find_kernel("cublaslt_e4m3_k512_f32_promoted"), 90), std::vector<std::string>{"hopper"});
  EXPECT_TRUE(expected_presets(*find_kernel("cublaslt_e4m3_k512_f32_promoted"), 80).empty());
  const auto split = characterize::cuda_kernel_composition(*find_kernel("splitk4_k128_f32_f16"));
  EXPECT_EQ(split.split_k, 4);
  EXPECT_FALSE(split.c_in_epilogue);
  const auto fast = characterize::cuda_kernel_composition(*find_kernel("cublaslt_e4m3_k512_f32_fast_accum"));
  EXPECT_TRUE(fast.c_in_epilogue);
  EXPECT_EQ(fast.promote_every, 0);
  EXPECT_EQ(characterize::cuda_kernel_composition(*find_kernel("cublaslt_e4m3_k512_f32_promoted")).promote_every, 128);
  EXPECT_FALSE(characterize::cuda_kernel_composition(mma).composed());
}

TEST(MmaVerdict, HopperRowsAreHopperNotAmpere) {
  const Result r = synthetic_dot_result("w4", "mma_m16n8k16_f32_f16", 90, "hopper", 2048, 1024, 7, "window:4");
  const auto v = mma_verdict(std::span(&r, 1));
  EXPECT_EQ(v.rows, 1024u);
  EXPECT_TRUE(v.matches_expected()) << to_string(v);
  EXPECT_EQ(v.best, "hopper-mma");  // expected on cc 90, same parameters as hopper
  EXPECT_EQ(preset(v, "hopper").agreed, v.rows);
  EXPECT_LT(preset(v, "ampere").agreed, v.rows);
  EXPECT_EQ(v.digest_chunks, 8u);  // 2048 cases in chunks of 256
  EXPECT_EQ(v.digest_mismatched, 0u);
  EXPECT_FALSE(v.fitted);
}

TEST(MmaVerdict, AmpereRowsAreAmpereNotHopper) {
  const Result r = synthetic_dot_result("w4", "mma_m16n8k16_f32_bf16", 80, "ampere", 1024, 1024, 3, "window:4");
  const auto v = mma_verdict(std::span(&r, 1));
  EXPECT_TRUE(v.matches_expected()) << to_string(v);
  EXPECT_EQ(v.best, "ampere");
  EXPECT_LT(preset(v, "hopper").agreed, v.rows);
}

TEST(MmaVerdict, WgmmaFp8IsHopperWithThe13BitAccumulatorNotAda) {
  const Result r = synthetic_dot_result("w4", "wgmma_m64n8k32_f32_e4m3", 90, "hopper", 1024, 1024, 5, "window:4");
  const auto v = mma_verdict(std::span(&r, 1));
  EXPECT_TRUE(v.matches_expected()) << to_string(v);
  EXPECT_EQ(v.best, "hopper-wgmma");
  EXPECT_EQ(preset(v, "hopper").agreed, v.rows);
  EXPECT_LT(preset(v, "ada").agreed, v.rows);        // L = 16: chained twice per k = 32
  EXPECT_LT(preset(v, "blackwell").agreed, v.rows);  // no 13-bit cut
}

TEST(MmaVerdict, Fp8MmaSyncWithF16OutputOnHopperIsHopperMma) {
  const Result r = synthetic_dot_result("w4", "mma_m16n8k32_f16_e4m3", 90, "hopper-mma", 1024, 1024, 9, "window:4");
  const auto v = mma_verdict(std::span(&r, 1));
  EXPECT_TRUE(v.matches_expected()) << to_string(v);
  EXPECT_EQ(v.best, "hopper-mma");
  // the wgmma unit into f16 (L = 32, F = 13, no cut) is another summation: not this one
  EXPECT_LT(preset(v, "hopper").agreed, v.rows);
  EXPECT_LT(preset(v, "blackwell").agreed, v.rows);
}

TEST(MmaVerdict, Ada89IsJudgedAgainstAda) {
  const Result r = synthetic_dot_result("w4", "mma_m16n8k32_f32_e5m2", 89, "hopper", 512, 512, 11, "window:4");
  const auto v = mma_verdict(std::span(&r, 1));
  EXPECT_FALSE(v.matches_expected());  // made with hopper, but cc 89 expects ada
  EXPECT_TRUE(v.best_exact());
  EXPECT_EQ(v.best, "hopper");
  EXPECT_NE(verdict_sentence(v).find("NOT the expected ada"), std::string::npos) << verdict_sentence(v);
}

TEST(MmaVerdict, CustomUnitMatchesNoPresetAndTheFitProposesOne) {
  const Result r = synthetic_dot_result("w4", "mma_m16n8k16_f32_bf16", 80, "custom:base=ampere,frac_bits=20",
                                        600, 600, 13, "window:4");
  MmaOptions o;
  o.fit_rows = 600;
  const auto v = mma_verdict(std::span(&r, 1), o);
  EXPECT_FALSE(v.matches_expected());
  EXPECT_FALSE(v.best_exact());
  ASSERT_TRUE(v.fitted);
  EXPECT_GE(v.fit_matching, 1u);
  EXPECT_EQ(v.fit_agreed, v.rows) << v.fit_spec;
  const auto c = mma_characterization(v);
  EXPECT_EQ(c.model_spec, v.fit_spec);
  EXPECT_EQ(c.agreed, c.validated);
}

TEST(MmaVerdict, AWrongDigestIsCaught) {
  Result r = synthetic_dot_result("w4", "mma_m16n8k16_f32_f16", 90, "hopper", 1024, 256, 7, "window:4");
  r.blocks[1].data[2] ^= 1;  // digests: chunk 2 (cases 512..767, beyond the raw outputs)
  const auto v = mma_verdict(std::span(&r, 1));
  EXPECT_EQ(v.best_agreed, v.rows);
  EXPECT_EQ(v.digest_mismatched, 1u);
  EXPECT_FALSE(v.matches_expected());
}

TEST(MmaVerdict, ResultsOfOneKernelAreJudgedTogether) {
  const Result r[2] = {synthetic_dot_result("a", "mma_m16n8k8_f32_tf32", 80, "ampere", 300, 300, 1, "window:4"),
                       synthetic_dot_result("b", "mma_m16n8k8_f32_tf32", 80, "ampere", 200, 200, 2, "finite")};
  const auto v = mma_verdict(std::span(r, 2));
  EXPECT_EQ(v.rows, 500u);
  EXPECT_EQ(v.in.name, "tf32");
  EXPECT_EQ(v.jobs, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(v.matches_expected()) << to_string(v);
  const auto c = mma_characterization(v);
  EXPECT_EQ(c.target, "cuda:mma_m16n8k8_f32_tf32");
  EXPECT_EQ(c.model_spec, "ampere");
  EXPECT_EQ(c.validated, 500u);
  EXPECT_TRUE(c.expressible);
}

TEST(DeviceFolderName, IsLowerCaseWithDashes) {
  EXPECT_EQ(device_folder_name("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(device_folder_name("  NVIDIA A100-SXM4-40GB "), "nvidia-a100-sxm4-40gb");
  EXPECT_EQ(device_folder_name("../x"), "x");  // never a path out of reports/devices
  EXPECT_EQ(device_folder_name(""), "unknown-gpu");
}

}  // namespace
}  // namespace fpconform::gpu
