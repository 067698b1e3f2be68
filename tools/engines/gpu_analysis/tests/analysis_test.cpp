// The CPU-side analysis on synthetic result files: emu's model of each kernel against values
// the format and instruction definitions fix, and verdicts that find a planted difference.
#include <gtest/gtest.h>

#include <sstream>

#include "fpconform/gpu/analysis.hpp"
#include "fpconform/gpu/cases.hpp"

using namespace fpconform::gpu;

namespace {

std::uint32_t expect_of(const char* kernel, std::vector<std::uint32_t> ops) {
  return *expected_output(*find_kernel(kernel), ops.data());
}

TEST(GpuAnalysis, ModelsGiveTheValuesTheDefinitionsFix) {
  // e4m3 0x38 is 1.0 (bias 7), f16 1.0 is 0x3C00: a packed pair of ones
  EXPECT_EQ(expect_of("cvt_e4m3x2_f16x2_rn", {0x3838}), 0x3C003C00u);
  // 448 is e4m3's max (0x7E); satfinite sends 500 and inf there too; the lower lane is -x
  EXPECT_EQ(expect_of("cvt_f32_e4m3x2_rn_satfinite", {0x43E00000}), 0x7EFEu);
  EXPECT_EQ(expect_of("cvt_f32_e4m3x2_rn_satfinite", {0x43FA0000}), 0x7EFEu);
  EXPECT_EQ(expect_of("cvt_f32_e4m3x2_rn_satfinite", {0x7F800000}), 0x7EFEu);
  // relu: the negated lane becomes +0
  EXPECT_EQ(expect_of("cvt_f32_e4m3x2_rn_satfinite_relu", {0x3F800000}), 0x3800u);
  // bf16: 1 + 2^-8 is a tie (ties to even: 1.0), rz drops, rp rounds up
  EXPECT_EQ(expect_of("cvt_f32_bf16_rn", {0x3F808000}), 0x3F80u);
  EXPECT_EQ(expect_of("cvt_f32_bf16_rz", {0x3F80FFFF}), 0x3F80u);
  EXPECT_EQ(expect_of("cvt_f32_bf16_rp", {0x3F800001}), 0x3F81u);
  // tf32 keeps 10 fraction bits: 0x3F801000 is a tie; rna goes away, rn to even
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna", {0x3F801000}), 0x3F802000u);
  EXPECT_EQ(expect_of("cvt_f32_tf32_rn", {0x3F801000}), 0x3F800000u);
  // rna's NaNs, as an H200 returned them (reports/devices/nvidia-h200, sweep.cvt_f32_tf32_rna*):
  // truncated to the tf32 grid, low payloads becoming inf; .satfinite then one ulp down
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna", {0x7F801FFF}), 0x7F800000u);
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna", {0x7FBFFFFF}), 0x7FBFE000u);
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna", {0xFF800001}), 0xFF800000u);
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna_satfinite", {0x7F801FFF}), 0x7F7FE000u);
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna_satfinite", {0x7F802000}), 0x7F800000u);
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna_satfinite", {0x7FC00000}), 0x7FBFE000u);
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna_satfinite", {0xFFFFFFFF}), 0xFFFFC000u);
  EXPECT_EQ(expect_of("cvt_f32_tf32_rna_satfinite", {0x7F800000}), 0x7F7FE000u);  // inf: max finite
  // rn and rz run on F2FP and give the canonical NaN
  EXPECT_EQ(expect_of("cvt_f32_tf32_rn", {0x7F801FFF}), 0x7FFFE000u);
  // f16: 1 + 1 = 2 (0x4000); _sat clamps to [0, 1]
  EXPECT_EQ(expect_of("f16_hadd", {0x3C00, 0x3C00}), 0x4000u);
  EXPECT_EQ(expect_of("f16_hadd_sat", {0x3C00, 0x3C00}), 0x3C00u);
  EXPECT_EQ(expect_of("f16_hmul_sat", {0xBC00, 0x3C00}), 0x0000u);
  // f32 directed rounding: 1 + 2^-30 rounds up to 1 + 2^-23 only under ru
  EXPECT_EQ(expect_of("f32_fadd_ru", {0x3F800000, 0x30800000}), 0x3F800001u);
  EXPECT_EQ(expect_of("f32_fadd_rn", {0x3F800000, 0x30800000}), 0x3F800000u);
  EXPECT_FALSE(expected_output(*find_kernel("mma_m16n8k16_f32_f16"), nullptr).has_value());
}

Result header(const char* job, const char* kernel, const char* input) {
  Result r;
  r.header["job"] = job;
  r.header["kernel"] = kernel;
  r.header["input"] = input;
  r.header["status"] = "ok";
  return r;
}

TEST(GpuAnalysis, ExplicitResultsAgreeUntilAnOutputIsChanged) {
  Result r = header("x", "f16_hadd", "explicit");
  r.add_block(kBlockInputs, 4).data = {0x3C00, 0x3C00, 0x7BFF, 0x7BFF};
  r.add_block(kBlockOutputs, 2).data = {0x4000, 0x7C00};  // 65504 + 65504 overflows to inf
  EXPECT_TRUE(analyze_result(r).agrees()) << to_string(analyze_result(r));
  r.blocks[1].data[1] = 0x7BFF;
  const Verdict v = analyze_result(r);
  EXPECT_FALSE(v.agrees());
  EXPECT_EQ(v.mismatched, 1u);
  ASSERT_EQ(v.examples.size(), 1u);
  EXPECT_EQ(v.examples[0].emu, 0x7C00u);
}

TEST(GpuAnalysis, GeneratedResultsAreRegeneratedAndDigestsRecomputed) {
  Job j;
  j.name = "g";
  j.kernel = "bf16_hmul";
  j.input = InputMode::generated;
  j.count = 300;
  j.seed = 5;
  j.chunk_log2 = 7;
  const KernelInfo& k = *find_kernel(j.kernel);
  const auto inputs = job_inputs(j, k);
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < j.count; ++i) out.push_back(*expected_output(k, &inputs[i * 2]));
  Result r = header("g", "bf16_hmul", "generated");
  r.header["cases"] = "300";
  r.header["seed"] = "5";
  r.header["dist_a"] = r.header["dist_b"] = r.header["dist_c"] = "finite";
  r.header["chunk_log2"] = "7";
  r.add_block(kBlockOutputs, 2).data.assign(out.begin(), out.begin() + 100);  // raw_count 100
  r.add_block(kBlockDigests, 8).data = chunk_digests(out, 7);
  Verdict v = analyze_result(r);
  EXPECT_TRUE(v.agrees()) << to_string(v);
  EXPECT_EQ(v.checked, 100u);
  EXPECT_EQ(v.digest_chunks, 3u);
  out[250] ^= 1;  // beyond the raw outputs: only the digest of chunk 1 sees it
  r.blocks[1].data = chunk_digests(out, 7);
  v = analyze_result(r);
  EXPECT_EQ(v.mismatched, 0u);
  EXPECT_EQ(v.digest_mismatched, 1u);
  EXPECT_FALSE(v.agrees());
}

TEST(GpuAnalysis, ConversionSweepRunsAreChecked) {
  const KernelInfo& k = *find_kernel("cvt_e5m2x2_f16x2_rn");
  std::vector<std::uint32_t> out;
  for (std::uint32_t x = 0; x < 65536; ++x) out.push_back(*expected_output(k, &x));
  const Runs runs = run_length_encode(out);
  Result r = header("s", "cvt_e5m2x2_f16x2_rn", "sweep");
  r.add_block(kBlockRunStart, 4).data = runs.start;
  r.add_block(kBlockRunValue, 4).data = runs.value;
  AnalysisOptions o;
  o.run_samples = 1000;
  Verdict v = analyze_result(r, o);
  EXPECT_TRUE(v.agrees()) << to_string(v);
  EXPECT_EQ(v.checked, 2 * runs.start.size() + 1000);
  r.blocks[1].data[100] ^= 0x10000;  // one upper-lane value wrong
  v = analyze_result(r, o);
  EXPECT_FALSE(v.agrees());
  EXPECT_GE(v.mismatched, 1u);
}

TEST(GpuAnalysis, SmallScalarSweepsAreCheckedWhole) {
  const KernelInfo& k = *find_kernel("f16_hsqrt");
  Result r = header("q", "f16_hsqrt", "sweep");
  r.header["chunk_log2"] = "16";
  auto& o = r.add_block(kBlockOutputs, 2).data;
  for (std::uint32_t x = 0; x < 65536; ++x) o.push_back(*expected_output(k, &x));
  EXPECT_TRUE(analyze_result(r).agrees());
  EXPECT_EQ(analyze_result(r).checked, 65536u);
}

TEST(GpuAnalysis, DotResultsBecomeRowsAndUnrunJobsSaySo) {
  Result r = header("m", "mma_m16n8k8_f32_tf32", "explicit");
  std::vector<std::uint64_t> row(17, 0);
  row[0] = 0x3F800000;  // a0 = 1 (tf32 0x1FC00)
  row[8] = 0x40000000;  // b0 = 2 (tf32 0x20000)
  row[16] = 0x3F800000;  // c = 1
  r.add_block(kBlockInputs, 4).data = row;
  r.add_block(kBlockOutputs, 4).data = {0x40400000};  // 3
  std::ostringstream rows;
  write_dot_rows(r, rows);
  EXPECT_NE(rows.str().find("# in=tf32 out=f32\n"), std::string::npos);
  EXPECT_NE(rows.str().find("1fc00 0 0 0 0 0 0 0 | 20000 0 0 0 0 0 0 0 | 3f800000 | 40400000\n"), std::string::npos)
      << rows.str();
  EXPECT_EQ(analyze_result(r).checked, 0u);
  Result u = header("u", "wgmma_m64n8k16_f32_f16", "generated");
  u.header["status"] = "unsupported: needs cc 90 (arch-specific), device has 80";
  EXPECT_FALSE(analyze_result(u).agrees());
  EXPECT_EQ(to_string(analyze_result(u)), "u (wgmma_m64n8k16_f32_f16): unsupported: needs cc 90 (arch-specific), device has 80");
}

}  // namespace
