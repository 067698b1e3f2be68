// The CPU's own units as black boxes (label characterize; the targets need the CPU features and
// skip with the reason where absent): each ends with a model that agrees on every fresh case.
// The default run checks 20,000 per unit; FPCONFORM_CPU_CASES raises the count (CTest
// characterize_cpu_units_1e6, label exhaustive: 10^6 each).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "fpconform/characterize/characterize.hpp"

namespace fpconform::characterize {
namespace {

std::uint64_t cases_or(std::uint64_t fallback) {
  const char* env = std::getenv("FPCONFORM_CPU_CASES");
  return env ? std::strtoull(env, nullptr, 10) : fallback;
}

void characterize_cpu(const char* spec, std::uint64_t n) {
  auto t = make_target(spec);
  if (const std::string why = t->unavailable(); !why.empty()) GTEST_SKIP() << spec << ": " << why;
  CharacterizeOptions o;
  o.validation_cases = n;
  const Characterization c = characterize(*t, o);
  std::printf("%s %s->%s: %s\n  %llu of %llu fresh cases agree, %.1f s, %llu queries\n  %s\n", spec,
              c.in.name.c_str(), c.out.name.c_str(), c.model_spec.c_str(),
              (unsigned long long)c.agreed, (unsigned long long)c.validated, c.seconds,
              (unsigned long long)c.queries, c.verdict.c_str());
  EXPECT_TRUE(c.deterministic);
  EXPECT_TRUE(c.expressible) << c.verdict;
  EXPECT_EQ(c.agreed, c.validated);
  EXPECT_GE(c.validated, n);
}

TEST(CpuTargets, Fp32FmaChain) { characterize_cpu("cpu:fp32-fma", cases_or(20000)); }

// AMX is Intel's alone; AVX512-BF16 is on Intel from Cooper Lake and AMD from Zen 4;
// AVX512-FP16 on Intel from Sapphire Rapids. Each skips with the reason where absent.
TEST(CpuTargets, AmxBf16) { characterize_cpu("cpu:amx-bf16", cases_or(20000)); }
TEST(CpuTargets, Avx512Bf16) { characterize_cpu("cpu:avx512-bf16", cases_or(20000)); }
TEST(CpuTargets, Avx512Fp16) { characterize_cpu("cpu:avx512-fp16", cases_or(20000)); }

}  // namespace
}  // namespace fpconform::characterize
