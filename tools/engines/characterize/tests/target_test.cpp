// Targets: emu targets reproduce fdpa; cpu targets match the IEEE oracle where the CPU has the
// unit (the fp32 FMA chain against MPFR) and say why where it does not.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "fpconform/arith.hpp"
#include "fpconform/characterize/target.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/reference/arith.hpp"

namespace fpconform::characterize {
namespace {

TEST(Target, EmuTargetIsTheModel) {
  const Format f16 = parse_format("f16"), f32 = parse_format("f32");
  auto t = make_target("emu:hopper", &f16, &f32);
  EXPECT_EQ(t->name(), "emu:hopper");
  EXPECT_TRUE(t->unavailable().empty());
  const FdpaParams p = find_matrix_unit("hopper", f16, f32);
  std::mt19937_64 rng(7);
  DotBatch batch;
  batch.k = 16;
  for (int r = 0; r < 200; ++r) {
    std::vector<std::uint64_t> a(16), b(16);
    for (auto& x : a) x = rng() & 0x7BFF;  // finite f16 of both signs
    for (auto& x : b) x = rng() & 0xFBFF;
    batch.add(a, b, rng() & 0xBF7FFFFF);
  }
  const auto d = t->run(batch);
  ASSERT_EQ(d.size(), 200u);
  for (std::size_t r = 0; r < 200; ++r)
    EXPECT_EQ(d[r], fdpa(p, f16, f32, std::span(batch.a).subspan(r * 16, 16),
                         std::span(batch.b).subspan(r * 16, 16), batch.c[r]));
  EXPECT_EQ(t->queries(), 200u);
}

TEST(Target, SplitKOptionAndBadSpecs) {
  const Format f32 = parse_format("f32");
  auto t = make_target("emu:custom:structure=sequential,out_round=rne@split-k=2,reduction=pairwise",
                       &f32, &f32);
  DotBatch batch;
  batch.k = 4;
  const std::uint64_t one = 0x3F800000, big = 0x4E800000, nbig = 0xCE800000;  // 1, +-2^30
  batch.add(std::vector<std::uint64_t>{big, one, nbig, one},
            std::vector<std::uint64_t>{one, one, one, one}, 0);
  // One fma chain: 2^30 + 1 rounds to 2^30, minus 2^30 is 0, plus 1 is 1. Split in halves:
  // 2^30 + 1 -> 2^30 and -2^30 + 1 -> -2^30 (RNE; the ulp there is 64), so the sum is 0.
  EXPECT_EQ(t->run(batch)[0], 0u);
  auto whole = make_target("emu:custom:structure=sequential,out_round=rne", &f32, &f32);
  EXPECT_EQ(whole->run(batch)[0], one);
  EXPECT_THROW(make_target("emu:hopper@split-k=x"), Error);
  EXPECT_THROW(make_target("emu:hopper@bogus=1"), Error);
  EXPECT_THROW(make_target("emu:"), Error);
  EXPECT_THROW(make_target("tpu:v5"), Error);
  EXPECT_THROW(make_target("cpu:amx-fp8"), Error);
  EXPECT_THROW(make_target("cuda:mma"), Error);
  const Format f16 = parse_format("f16");
  EXPECT_THROW(make_target("cpu:amx-bf16", &f16, nullptr), Error);  // wrong input format
  DotBatch bad;
  bad.k = 3;
  bad.a = {1, 2};
  EXPECT_THROW(t->run(bad), Error);
}

// The fp32 FMA chain of the CPU against the MPFR oracle's fma, step by step.
TEST(Target, CpuFp32FmaMatchesOracle) {
  auto t = make_target("cpu:fp32-fma");
  if (!t->unavailable().empty()) GTEST_SKIP() << t->unavailable();
  const Format f32 = parse_format("f32");
  std::mt19937_64 rng(11);
  DotBatch batch;
  batch.k = 8;
  for (int r = 0; r < 2000; ++r) {
    std::vector<std::uint64_t> a(8), b(8);
    for (auto& x : a) x = (rng() & 0x807FFFFF) | ((120 + rng() % 16) << 23);
    for (auto& x : b) x = (rng() & 0x807FFFFF) | ((120 + rng() % 16) << 23);
    batch.add(a, b, (rng() & 0x807FFFFF) | ((118 + rng() % 20) << 23));
  }
  const auto d = t->run(batch);
  const OpOptions opt;
  for (std::size_t r = 0; r < batch.rows(); ++r) {
    std::uint64_t want = batch.c[r];
    for (int i = 0; i < 8; ++i) {
      const std::uint64_t ops[3] = {batch.a[r * 8 + i], batch.b[r * 8 + i], want};
      want = reference::apply_op(Op::mul_add, f32, ops, opt).bits;
    }
    ASSERT_EQ(d[r], want) << "row " << r;
  }
}

TEST(Target, AbsentUnitsSayWhy) {
  for (const std::string& name : cpu_target_names()) {
    auto t = make_target(name);
    const std::string why = t->unavailable();
    if (why.empty()) continue;
    std::printf("%s: %s\n", name.c_str(), why.c_str());
    DotBatch batch;
    batch.k = 2;
    batch.add(std::vector<std::uint64_t>{0, 0}, std::vector<std::uint64_t>{0, 0}, 0);
    EXPECT_THROW(t->run(batch), Error);
  }
}

}  // namespace
}  // namespace fpconform::characterize
