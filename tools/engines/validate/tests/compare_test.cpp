// ulp_distance against a direct definition (the number of distinct values between two codes,
// counted by sorting every value of the format), and the comparison's bookkeeping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "fpconform/convert.hpp"
#include "fpconform/validate/compare.hpp"

namespace fpconform::validate {
namespace {

// Every non-NaN code of f with the rank of its value among the distinct values (+0 = -0).
std::map<std::uint64_t, long> value_ranks(const Format& f) {
  std::vector<std::pair<double, std::uint64_t>> v;
  for (std::uint64_t code = 0; code <= f.code_mask(); ++code)
    if (!f.is_nan_code(code)) v.push_back({code_value(f, code), code});
  std::sort(v.begin(), v.end());
  std::map<std::uint64_t, long> rank;
  long r = -1;
  double prev = NAN;
  for (const auto& [x, code] : v) {
    if (!(x == prev)) ++r;
    prev = x;
    rank[code] = r;
  }
  return rank;
}

TEST(UlpDistance, CountsDistinctValuesBetweenCodes) {
  for (const char* name : {"e4m3", "e5m2", "e2m1", "e3m2", "f16"}) {
    const Format f = parse_format(name);
    const auto rank = value_ranks(f);
    const std::uint64_t step = f.width() > 8 ? 97 : 1;
    std::uint64_t checked = 0;
    for (std::uint64_t x = 0; x <= f.code_mask(); x += step)
      for (std::uint64_t y = 0; y <= f.code_mask(); y += step) {
        const auto d = ulp_distance(f, x, y);
        if (f.is_nan_code(x) || f.is_nan_code(y)) {
          EXPECT_FALSE(d.has_value());
          continue;
        }
        ASSERT_TRUE(d.has_value());
        ASSERT_EQ(static_cast<long>(*d), std::labs(rank.at(x) - rank.at(y)))
            << name << " " << std::hex << x << " " << y;
        ++checked;
      }
    EXPECT_GE(checked, 200u) << name;  // e2m1 has 16 codes
  }
}

TEST(CompareOutputs, CountsAndWorstElements) {
  const Format f32 = parse_format("f32");
  Matrix want{2, 3, f32, {0x3f800000, 0x40000000, 0x80000000, 0x7fc00000, 0x3f800000, 0}};
  Matrix got = want;
  got.codes[1] = 0x40000003;  // 3 ulp away
  got.codes[2] = 0x00000000;  // +0 for -0: same value
  got.codes[4] = 0x7fc00000;  // NaN where 1 was expected
  const Comparison c = compare_outputs(got, want, "model", 10);
  EXPECT_EQ(c.total, 6u);
  EXPECT_EQ(c.bit_exact, 3u);  // [0], [3] (same NaN), [5]
  EXPECT_EQ(c.same_value, 1u);
  EXPECT_EQ(c.nan_mismatch, 1u);
  EXPECT_EQ(c.max_ulp, 3u);
  ASSERT_EQ(c.worst.size(), 3u);
  EXPECT_EQ(c.worst[0].row, 1);  // the NaN mismatch first
  EXPECT_EQ(c.worst[0].col, 1);
  EXPECT_EQ(c.worst[1].col, 1);  // then 3 ulp at (0, 1)
  EXPECT_DOUBLE_EQ(c.worst[1].rel, 3 * std::ldexp(1.0, -23));  // 3 ulp of 2^-22, over 2
  EXPECT_FALSE(within(c, -1, -1));
  got.codes[4] = want.codes[4];
  const Comparison c2 = compare_outputs(got, want, "model", 10);
  EXPECT_FALSE(within(c2, -1, -1));
  EXPECT_TRUE(within(c2, 3, -1));
  EXPECT_FALSE(within(c2, 2, -1));
  EXPECT_TRUE(within(c2, -1, 1e-6));
  EXPECT_EQ(c2.ulp_histogram[0], 4u);  // distance 0, +0 vs -0 included (NaNs have none)
  EXPECT_EQ(c2.ulp_histogram[2], 1u);  // 3 is in [2, 4)
}

}  // namespace
}  // namespace fpconform::validate
