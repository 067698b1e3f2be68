// Plan files: round trip through write_plan/parse_plan, and every refusal names file:line.
#include <gtest/gtest.h>

#include "fpconform/gpu/plan.hpp"

using namespace fpconform::gpu;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_plan(text, "p.plan");
  } catch (const FileError& e) {
    return e.what();
  }
  return "";
}

TEST(GpuPlan, RoundTripsEveryInputMode) {
  Plan plan;
  Job a;
  a.name = "crafted";
  a.kernel = "mma_m16n8k16_f32_f16";
  a.input = InputMode::explicit_cases;
  std::vector<std::uint32_t> row(33, 0x3c00);
  row.back() = 0x3f800000;  // c is an f32 code
  a.cases = {row, row};
  Job b;
  b.name = "random";
  b.kernel = "wgmma_m64n8k32_f32_e4m3";
  b.input = InputMode::generated;
  b.count = 1000;
  b.seed = 0xDEADBEEF;
  b.dist_a.kind = Distribution::Kind::window;
  b.dist_a.window = 4;
  b.dist_c.kind = Distribution::Kind::zero;
  b.raw_count = 100;
  Job c;
  c.name = "sweep";
  c.kernel = "f16_hadd";
  c.input = InputMode::sweep;
  c.chunk_log2 = 16;
  c.sample_chunks = 3;
  c.sample_seed = 9;
  plan.jobs = {a, b, c};
  const Plan back = parse_plan(write_plan(plan), "mem");
  EXPECT_EQ(back, plan);
  EXPECT_EQ(job_case_count(back.jobs[0]), 2u);
  EXPECT_EQ(job_case_count(back.jobs[1]), 1000u);
  EXPECT_EQ(job_case_count(back.jobs[2]), 1ull << 32);  // all f16 pairs
}

TEST(GpuPlan, CommentsBlankLinesAndHexPrefixesAreAccepted) {
  const Plan p = parse_plan(
      "# a plan\nfpconform-gpu-plan 1\n\njob x   # trailing\nkernel cvt_f32_e4m3x2_rn_satfinite\n"
      "input explicit\ncase 0x43E00000\ncase 7f800000\nend\n",
      "p.plan");
  ASSERT_EQ(p.jobs.size(), 1u);
  EXPECT_EQ(p.jobs[0].cases[0][0], 0x43E00000u);
  EXPECT_EQ(p.jobs[0].cases[1][0], 0x7F800000u);
}

TEST(GpuPlan, RefusalsNameFileAndLine) {
  const std::string head = "fpconform-gpu-plan 1\n";
  EXPECT_EQ(error_of(""), "p.plan:0: empty plan (a plan starts with 'fpconform-gpu-plan 1')");
  EXPECT_NE(error_of("fpconform-gpu-plan 2\n").find("p.plan:1: plan version 2"), std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel no_such\n").find("p.plan:3: unknown kernel 'no_such'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hadd\ninput explicit\ncase 1\n").find("p.plan:5: kernel f16_hadd takes 2 codes"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hadd\ninput explicit\ncase 1 10000\n").find("p.plan:5: code '10000' does not fit in 16 bits"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hadd\ninput sweep\n").find("p.plan:2: job 'a' has no 'end'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hfma\ninput sweep\nend\n").find("p.plan:5: job 'a': a sweep of 3 f16 operands"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel mma_m16n8k8_f32_tf32\ninput sweep\nend\n").find("p.plan:5: job 'a': dot kernels cannot be swept"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hadd\ninput generated\nend\n").find("p.plan:5: job 'a' has input generated but no count"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hadd\ncount 12x\n").find("p.plan:4: bad count '12x'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hadd\ndist_a normal\n").find("p.plan:4: unknown distribution 'normal'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hadd\ninput sweep\nend\njob a\n").find("p.plan:6: job name 'a' used twice"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a\nkernel f16_hadd\nfrobnicate 1\n").find("p.plan:4: unknown key 'frobnicate'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "job a/b\n").find("p.plan:2: job name 'a/b'"), std::string::npos);
}

// Found by fuzz_gpu_files: 'case' lines before 'input sweep' (or a count in an explicit job)
// were accepted and then dropped by write_plan, so the plan did not read back the same.
TEST(GpuPlan, KeysOfAnotherInputModeAreRefused) {
  const std::string head = "fpconform-gpu-plan 1\njob a\nkernel cvt_f32_bf16_rn\n";
  EXPECT_NE(error_of(head + "case 3f800000\ninput sweep\nend\n")
                .find("p.plan:6: job 'a' has case lines but input sweep"),
            std::string::npos);
  EXPECT_NE(error_of(head + "input explicit\ncount 5\ncase 3f800000\nend\n")
                .find("p.plan:7: job 'a' sets count, seed or dist_* but its input is explicit"),
            std::string::npos);
  EXPECT_NE(error_of(head + "input sweep\ndist_a uniform\nend\n").find("not generated"),
            std::string::npos);
}

TEST(GpuPlan, MissingFileIsAFileError) {
  EXPECT_THROW(read_plan_file("/nonexistent/x.plan"), FileError);
}

}  // namespace
