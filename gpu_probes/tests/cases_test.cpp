// Generator, sweep enumeration, digests, samples and runs: the rules PLAN.md states.
#include <gtest/gtest.h>

#include <set>

#include "fpconform/gpu/cases.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/gpu/splitmix.hpp"

using namespace fpconform::gpu;
using fpconform::find_builtin;
using fpconform::Format;

namespace {

bool special(const Format& f, std::uint64_t code) { return f.is_nan_code(code) || f.is_inf_code(code); }

TEST(GpuCases, SpecialCodesFollowTheFormats) {
  // OCP OFP8: e4m3 NaN only at S.1111.111, no inf; e5m2 inf S.11111.00. IEEE f16/bf16/f32.
  const auto e4m3 = *find_builtin("e4m3"), e5m2 = *find_builtin("e5m2"), f16 = *find_builtin("f16"),
             bf16 = *find_builtin("bf16"), f32 = *find_builtin("f32"), e2m1 = *find_builtin("e2m1"),
             ue8m0 = *find_builtin("ue8m0");
  EXPECT_TRUE(special(e4m3, 0x7F));
  EXPECT_TRUE(special(e4m3, 0xFF));
  EXPECT_FALSE(special(e4m3, 0x7E));  // 448
  EXPECT_TRUE(special(e5m2, 0x7C));
  EXPECT_FALSE(special(e5m2, 0x7B));  // 57344
  EXPECT_TRUE(special(f16, 0xFC00));
  EXPECT_FALSE(special(f16, 0x7BFF));
  EXPECT_TRUE(special(bf16, 0x7F80));
  EXPECT_TRUE(special(f32, 0x7FC00000));
  EXPECT_FALSE(special(f32, 0x7F7FFFFF));
  EXPECT_FALSE(special(e2m1, 0xF));
  EXPECT_TRUE(special(ue8m0, 0xFF));
  EXPECT_FALSE(find_builtin("e9m9").has_value());
}

TEST(GpuCases, FiniteAndWindowDistributionsKeepTheirPromises) {
  const auto e4m3 = *find_builtin("e4m3"), f16 = *find_builtin("f16");
  SplitMix64 r(42);
  Distribution finite{Distribution::Kind::finite, 0};
  Distribution window{Distribution::Kind::window, 2};
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 20000; ++i) {
    const auto c = draw_code(r, e4m3, finite);
    EXPECT_LE(c, 0xFFu);
    EXPECT_FALSE(special(e4m3, c));
    seen.insert(c);
    const auto w = draw_code(r, f16, window);
    const int exp_field = static_cast<int>((w >> 10) & 0x1F);
    EXPECT_GE(exp_field, 15 - 2);
    EXPECT_LE(exp_field, 15 + 2);
  }
  EXPECT_EQ(seen.size(), 254u);  // every finite e4m3 code appears
  EXPECT_EQ(draw_code(r, f16, Distribution{Distribution::Kind::zero, 0}), 0u);
}

TEST(GpuCases, GeneratedInputsAreDeterministicAndLaidOutPerRow) {
  Job j;
  j.kernel = "mma_m16n8k16_f32_f16";
  j.input = InputMode::generated;
  j.count = 5;
  j.seed = 7;
  j.dist_c.kind = Distribution::Kind::zero;
  const KernelInfo& k = *find_kernel(j.kernel);
  const auto x = job_inputs(j, k), y = job_inputs(j, k);
  ASSERT_EQ(x.size(), 5u * 33u);
  EXPECT_EQ(x, y);
  for (int row = 0; row < 5; ++row) EXPECT_EQ(x[static_cast<std::size_t>(row * 33 + 32)], 0u);  // c
  // The first a code is the first finite f16 drawn from splitmix64(7), low 16 bits.
  SplitMix64 r(7);
  std::uint32_t first;
  do first = static_cast<std::uint32_t>(r.next()) & 0xFFFF;
  while ((first & 0x7C00) == 0x7C00);
  EXPECT_EQ(x[0], first);
  j.seed = 8;
  EXPECT_NE(job_inputs(j, k), x);
}

TEST(GpuCases, SweepCasesSplitTheIndexHighOperandFirst) {
  const KernelInfo& add = *find_kernel("f16_hadd");
  EXPECT_EQ(sweep_case(add, 0x3C00BC00ull), (std::vector<std::uint32_t>{0x3C00, 0xBC00}));
  const KernelInfo& cvt = *find_kernel("cvt_f32_bf16_rn");
  EXPECT_EQ(sweep_case(cvt, 0xFFFFFFFFull), (std::vector<std::uint32_t>{0xFFFFFFFFu}));
}

TEST(GpuCases, DigestsAreSumsOfTermsPerChunk) {
  std::vector<std::uint32_t> out{1, 2, 3, 4, 5};
  const auto d = chunk_digests(out, 1, 10);  // chunks of 2 starting at case 10
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0], digest_term(10, 1) + digest_term(11, 2));
  EXPECT_EQ(d[2], digest_term(14, 5));
  auto changed = out;
  changed[3] = 0xFFFF;
  EXPECT_NE(chunk_digests(changed, 1, 10)[1], d[1]);
  // swapping two outputs changes the digest although the multiset stays
  std::swap(changed[0], changed[1]);
  EXPECT_NE(chunk_digests(changed, 1, 10)[0], d[0]);
}

TEST(GpuCases, SampleChunksAreDistinctSortedAndSeeded) {
  const auto s = sample_chunk_indices(65536, 16, 3);
  ASSERT_EQ(s.size(), 16u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::set<std::uint64_t>(s.begin(), s.end()).size(), 16u);
  EXPECT_EQ(sample_chunk_indices(65536, 16, 3), s);
  EXPECT_NE(sample_chunk_indices(65536, 16, 4), s);
  EXPECT_EQ(sample_chunk_indices(4, 10, 1).size(), 4u);
}

TEST(GpuCases, RunLengthEncodingRoundTrips) {
  const std::vector<std::uint32_t> out{7, 7, 7, 8, 8, 7, 9};
  const Runs r = run_length_encode(out, 100);
  EXPECT_EQ(r.start, (std::vector<std::uint64_t>{100, 103, 105, 106}));
  EXPECT_EQ(r.value, (std::vector<std::uint64_t>{7, 8, 7, 9}));
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(run_lookup(r, 100 + i), out[i]);
  EXPECT_THROW(run_lookup(r, 99), std::out_of_range);
}

}  // namespace
