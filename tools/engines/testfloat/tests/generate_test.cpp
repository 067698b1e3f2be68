// Case generation: determinism, counts, and that level 1 holds the cases that matter.
#include <gtest/gtest.h>

#include <set>

#include "fpconform/core/error.hpp"
#include "fpconform/testfloat/generate.hpp"
#include "fpconform/testfloat/run.hpp"

namespace fpconform::testfloat {
namespace {

std::vector<std::uint64_t> cases(const Function& f, GenOptions g) {
  std::vector<std::uint64_t> out;
  generate(f, g, [&](const std::uint64_t* ops) { out.push_back(ops[0]); });
  return out;
}

std::set<std::uint64_t> pattern_set(const char* name, int level) {
  const auto f = parse_function(name);
  std::set<std::uint64_t> s;
  for (const auto& p : f->patterns(level)) s.insert(p[0]);
  return s;
}

TEST(Generate, DeterministicForASeed) {
  const auto f = parse_function("f32_to_e4m3");
  GenOptions g;
  g.n = 20000;
  g.seed = 42;
  const auto a = cases(*f, g), b = cases(*f, g);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 20000u);
  g.seed = 43;
  const auto c = cases(*f, g);
  EXPECT_NE(a, c);
  // The patterns come first and do not depend on the seed.
  const std::size_t npat = f->patterns(1).size();
  ASSERT_LT(npat, a.size());
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(npat), c.begin()));
}

TEST(Generate, PatternsAreCompleteEvenPastN) {
  const auto f = parse_function("f32_to_e4m3");
  GenOptions g;
  g.n = 10;
  EXPECT_EQ(cases(*f, g).size(), f->patterns(1).size());
  g.n = 0;  // default
  EXPECT_EQ(cases(*f, g).size(), default_count(1));
}

TEST(Generate, PatternsHaveNoDuplicates) {
  for (const char* name : {"f32_to_e4m3", "f64_to_bf16", "f16_to_e2m1", "e4m3_to_f32"}) {
    const auto f = parse_function(name);
    for (int level : {1, 2}) {
      const auto p = f->patterns(level);
      std::set<std::uint64_t> s;
      for (const auto& x : p) s.insert(x[0]);
      EXPECT_EQ(s.size(), p.size()) << name << " level " << level;
    }
  }
}

TEST(Generate, Level1CoversF32ToE4m3Boundaries) {
  const auto s = pattern_set("f32_to_e4m3", 1);
  const std::uint64_t want[] = {
      0x43E00000,  // 448 = max finite
      0x43DFFFFF, 0x43E00001,              // max finite -+ one f32 ulp
      0x43F00000,                          // 480 = max finite + one e4m3 ulp (overflows)
      0x43E80000, 0x43E7FFFF, 0x43E80001,  // 464 = the tie above max finite, and neighbours
      0x43D80000, 0x43D7FFFF, 0x43D80001,  // 432 = tie 416|448
      0x3B000000,                          // 2^-9 = min subnormal
      0x3A800000, 0x3A7FFFFF, 0x3A800001,  // 2^-10 = half min subnormal (tie to zero)
      0x3B400000,                          // 1.5 * 2^-9: tie between subnormals 1 and 2
      0x3C800000, 0x3C7FFFFF,              // min normal 2^-6 and just below
      0x3C700000,                          // tie between max subnormal and min normal
      0x3F800000, 0x3F880000, 0x3F980000,  // 1.0 and ties at 1 (even and odd)
      0x00000000, 0x80000000,              // zeros
      0x00000001, 0x007FFFFF,              // f32 subnormals
      0x7F800000, 0xFF800000,              // infinities
      0x7FC00000, 0xFFC00000, 0x7F800001,  // quiet and signaling NaNs
      0x7F7FFFFF,                          // f32 max
      0xC3E80000, 0xBA800000, 0xBB000000,  // negative versions
  };
  for (std::uint64_t c : want) EXPECT_TRUE(s.count(c)) << std::hex << c;
}

TEST(Generate, Level1CoversF32ToBf16Ties) {
  const auto s = pattern_set("f32_to_bf16", 1);
  for (std::uint64_t c : {0x3F808000ull, 0x3F807FFFull, 0x3F808001ull, 0x3F818000ull,
                          0x7F7F8000ull,  // tie above bf16 max: overflows to inf
                          0x7F7F7FFFull, 0x7F7FFFFFull, 0x00008000ull /* tie in subnormals */})
    EXPECT_TRUE(s.count(c)) << std::hex << c;
}

TEST(Generate, Level1CoversE2m1) {
  const auto s = pattern_set("f32_to_e2m1", 1);
  // 0.25 (tie to 0), 0.75 (tie 0.5|1), 5 (tie 4|6), 7 (tie 6|8: overflow), 6 = max.
  for (std::uint64_t c : {0x3E800000ull, 0x3F400000ull, 0x40A00000ull, 0x40E00000ull, 0x40C00000ull})
    EXPECT_TRUE(s.count(c)) << std::hex << c;
}

TEST(Generate, SmallSourcesAreComplete) {
  EXPECT_EQ(pattern_set("e4m3_to_f32", 1).size(), 256u);
  EXPECT_EQ(pattern_set("e2m1_to_f16", 1).size(), 16u);
  EXPECT_EQ(pattern_set("bf16_to_e4m3", 2).size(), 65536u);
}

TEST(Generate, Level2IsLarger) {
  EXPECT_GT(pattern_set("f32_to_e4m3", 2).size(), pattern_set("f32_to_e4m3", 1).size());
  EXPECT_GT(pattern_set("f64_to_f32", 2).size(), pattern_set("f64_to_f32", 1).size());
}

TEST(Generate, Exhaustive) {
  const auto f = parse_function("e4m3_to_f32");
  GenOptions g;
  g.exhaustive = true;
  const auto all = cases(*f, g);
  ASSERT_EQ(all.size(), 256u);
  for (std::uint64_t i = 0; i < 256; ++i) EXPECT_EQ(all[i], i);
  // f32 sources (2^32 lines) are allowed; f64 sources are refused.
  EXPECT_NO_THROW(check_gen(*parse_function("f32_to_e4m3"), Options{}, g));
  EXPECT_THROW(check_gen(*parse_function("f64_to_f32"), Options{}, g), Error);
}

TEST(Generate, BadLevel) {
  const auto f = parse_function("f32_to_e4m3");
  GenOptions g;
  g.level = 3;
  EXPECT_THROW(cases(*f, g), Error);
}

TEST(Generate, RandomCasesStayInTheFormat) {
  for (const char* name : {"f32_to_e4m3", "f64_to_e2m1", "tf32_to_bf16", "f32_to_ue8m0",
                           "e5m2_to_binary8p3se"}) {
    const auto f = parse_function(name);
    Rng rng(7);
    std::uint64_t ops[kMaxArity] = {};
    for (int i = 0; i < 5000; ++i) {
      f->random_case(rng, 1 + (i & 1), ops);
      ASSERT_EQ(ops[0] & ~f->signature().operands[0].code_mask(), 0u) << name;
    }
  }
}

}  // namespace
}  // namespace fpconform::testfloat
