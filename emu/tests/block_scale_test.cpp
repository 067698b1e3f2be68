// Block-scaled quantization against hand-computed expectations from the specs (OCP MX v1.0
// section 6.3, microxcaling issue #4, NVIDIA's MXFP8/NVFP4 recipes, DeepSeek-V3 tiles).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "fpconform/block_scale.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"

using namespace fpconform;

namespace {
std::uint64_t fb(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
std::vector<std::uint64_t> f32s(std::initializer_list<float> xs) {
  std::vector<std::uint64_t> v;
  for (float x : xs) v.push_back(fb(x));
  return v;
}
const Format F32 = parse_format("f32");
const Format E4M3 = parse_format("e4m3");
const Format E2M1 = parse_format("e2m1");
const ScaleRule& rule(const char* n) { return find_scale_rule(n); }
double ev(std::uint64_t c, const Format& f) { return to_double(c, f); }
// Dequantized values of a block, as doubles.
std::vector<double> deq(const QuantizedBlock& q, const Format& elem, const char* r,
                        std::optional<std::uint64_t> g = std::nullopt) {
  std::vector<double> out;
  for (auto c : dequantize_block(q.scale, q.elements, elem, rule(r), F32, g).values)
    out.push_back(ev(c, F32));
  return out;
}
}  // namespace

TEST(BlockScale, RuleTable) {
  ASSERT_EQ(scale_rules().size(), 5u);
  for (const char* n : {"ocp", "rceil", "microxcaling", "nvfp4", "tile"}) {
    const ScaleRule& r = rule(n);
    EXPECT_FALSE(r.source.empty()) << n;
    EXPECT_NO_THROW(rule_scale_format(r)) << n;
  }
  EXPECT_EQ(rule("microxcaling").element_mode, RoundingMode::rna);
  EXPECT_EQ(rule("nvfp4").default_block, 16);
  try {
    find_scale_rule("bogus");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "--rule");
  }
}

// microxcaling issue #4: in e4m3 (emax 8) amax 957 gives X = 2^(9-8) = 2 (ue8m0 0x80);
// 957/2 = 478.5 rounds to 480 > 448 and clamps to 448 (0x7E), dequantizing to 896.
TEST(BlockScale, Ocp957Example) {
  const auto q = quantize_block(f32s({957.f, 1.f, -3.f}), F32, E4M3, rule("ocp"));
  EXPECT_EQ(q.scale, 0x80u);
  EXPECT_EQ(q.elements[0], 0x7Eu);
  EXPECT_EQ(q.elements[1], 0x30u);  // 0.5
  EXPECT_EQ(q.elements[2], 0xBCu);  // -1.5
  EXPECT_TRUE(q.flags.has(Flags::overflow));
  EXPECT_TRUE(q.flags.has(Flags::inexact));
  EXPECT_EQ(deq(q, E4M3, "ocp"), (std::vector<double>{896, 1, -3}));
  // rceil on the same block: 957/448 = 2.14 -> X = 4 (0x81); 239.25 -> 240: 960, no clamp.
  const auto r = quantize_block(f32s({957.f, 1.f, -3.f}), F32, E4M3, rule("rceil"));
  EXPECT_EQ(r.scale, 0x81u);
  EXPECT_FALSE(r.flags.has(Flags::overflow));
  EXPECT_EQ(deq(r, E4M3, "rceil"), (std::vector<double>{960, 1, -3}));
}

TEST(BlockScale, AmaxPowerOfTwoBelowAbove) {
  // Exactly 256 = 2^8: ocp X = 2^(8-8) = 1 (0x7F); rceil 256/448 < 1 -> X = 1 too.
  for (const char* r : {"ocp", "rceil"}) {
    const auto q = quantize_block(f32s({256.f, 0.5f}), F32, E4M3, rule(r));
    EXPECT_EQ(q.scale, 0x7Fu) << r;
    EXPECT_EQ(q.elements[0], 0x78u) << r;
    EXPECT_EQ(q.flags.bits, 0) << r;
  }
  // Just below: 256 - 2^-16 (f32 0x437FFFFF): ocp floor(log2) = 7, X = 2^-1 (0x7E), and
  // 511.99997 rounds to 512 > 448: clamps to 448, dequantizes to 224. rceil keeps X = 1 (0x7F)
  // and the element rounds to 256. This is the crafted ocp/rceil disagreement.
  const float below = std::nextafter(256.f, 0.f);
  const auto o = quantize_block(f32s({below}), F32, E4M3, rule("ocp"));
  EXPECT_EQ(o.scale, 0x7Eu);
  EXPECT_EQ(o.elements[0], 0x7Eu);
  EXPECT_TRUE(o.flags.has(Flags::overflow));
  EXPECT_EQ(deq(o, E4M3, "ocp")[0], 224.0);
  const auto rc = quantize_block(f32s({below}), F32, E4M3, rule("rceil"));
  EXPECT_EQ(rc.scale, 0x7Fu);
  EXPECT_EQ(rc.elements[0], 0x78u);
  EXPECT_EQ(deq(rc, E4M3, "rceil")[0], 256.0);
  // Just above: 256 + 2^-15: both X = 1, element 256 inexact.
  const float above = std::nextafter(256.f, 1000.f);
  for (const char* r : {"ocp", "rceil"}) {
    const auto q = quantize_block(f32s({above}), F32, E4M3, rule(r));
    EXPECT_EQ(q.scale, 0x7Fu) << r;
    EXPECT_EQ(q.elements[0], 0x78u) << r;
    EXPECT_EQ(q.flags.bits, Flags::inexact) << r;
  }
  // 449: ocp X = 1, 449 -> 448 (no overflow); rceil 449/448 > 1 -> X = 2 (0x80), 224.5 -> 224.
  const auto o449 = quantize_block(f32s({449.f}), F32, E4M3, rule("ocp"));
  EXPECT_EQ(o449.scale, 0x7Fu);
  EXPECT_EQ(ev(o449.elements[0], E4M3), 448.0);
  const auto r449 = quantize_block(f32s({449.f}), F32, E4M3, rule("rceil"));
  EXPECT_EQ(r449.scale, 0x80u);
  EXPECT_EQ(ev(r449.elements[0], E4M3), 224.0);
  // rceil at amax exactly 448 * 2^k: X = 2^k exactly, element 448, no clamp.
  const auto r896 = quantize_block(f32s({896.f}), F32, E4M3, rule("rceil"));
  EXPECT_EQ(r896.scale, 0x80u);
  EXPECT_EQ(r896.elements[0], 0x7Eu);
  EXPECT_EQ(r896.flags.bits, 0);
}

TEST(BlockScale, AllZeroBlock) {
  const auto zeros = f32s({0.f, -0.f, 0.f, 0.f});
  for (const char* r : {"ocp", "rceil", "microxcaling"}) {
    const auto q = quantize_block(zeros, F32, E4M3, rule(r));
    EXPECT_EQ(q.scale, 0x00u) << r;  // smallest ue8m0 scale, 2^-127
    EXPECT_EQ(q.elements, (std::vector<std::uint64_t>{0x00, 0x80, 0x00, 0x00})) << r;
    EXPECT_EQ(q.flags.bits, 0) << r;
  }
  const auto n = quantize_block(zeros, F32, E2M1, rule("nvfp4"));
  EXPECT_EQ(n.scale, 0x00u);
  EXPECT_EQ(n.elements, (std::vector<std::uint64_t>{0, 0, 0, 0}));
  EXPECT_EQ(deq(n, E2M1, "nvfp4"), (std::vector<double>{0, 0, 0, 0}));
  const auto t = quantize_block(zeros, F32, E4M3, rule("tile"));
  EXPECT_EQ(t.scale, 0x00000000u);
  EXPECT_EQ(t.flags.bits, 0);
}

TEST(BlockScale, SubnormalElements) {
  // amax 448 -> X = 1 (ocp, microxcaling); e4m3 subnormal step 2^-9.
  const auto in = f32s({448.f, 0x1p-9f, 5 * 0x1p-10f, 0x1p-11f});
  const auto o = quantize_block(in, F32, E4M3, rule("ocp"));
  EXPECT_EQ(o.scale, 0x7Fu);
  EXPECT_EQ(o.elements, (std::vector<std::uint64_t>{0x7E, 0x01, 0x02, 0x00}));  // 2.5 -> 2 (RNE)
  EXPECT_TRUE(o.flags.has(Flags::underflow));
  const auto m = quantize_block(in, F32, E4M3, rule("microxcaling"));
  EXPECT_EQ(m.elements, (std::vector<std::uint64_t>{0x7E, 0x01, 0x03, 0x00}));  // 2.5 -> 3 (RNA)
  // Subnormal f32 inputs: amax 2^-140 -> ocp k = -140 - 8 = -148 clamps to -127 (0x00);
  // 2^-140 / 2^-127 = 2^-13 is below e4m3's half-min-subnormal: 0.
  const auto s = quantize_block(f32s({0x1p-140f}), F32, E4M3, rule("ocp"));
  EXPECT_EQ(s.scale, 0x00u);
  EXPECT_EQ(s.elements[0], 0x00u);
  EXPECT_TRUE(s.flags.has(Flags::underflow));
}

TEST(BlockScale, NanAndInfInBlock) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (float bad : {nan, inf, -inf}) {
    for (const char* r : {"ocp", "rceil", "microxcaling"}) {
      const auto q = quantize_block(f32s({1.f, bad, 2.f}), F32, E4M3, rule(r));
      EXPECT_EQ(q.scale, 0xFFu) << r;
      EXPECT_TRUE(q.flags.has(Flags::invalid)) << r;
      for (double d : deq(q, E4M3, r)) EXPECT_TRUE(std::isnan(d)) << r;
    }
    EXPECT_EQ(quantize_block(f32s({1.f, bad}), F32, E2M1, rule("nvfp4")).scale, 0x7Fu);
    EXPECT_EQ(quantize_block(f32s({1.f, bad}), F32, E4M3, rule("tile")).scale, 0x7FC00000u);
  }
  // A NaN scale read back: every element NaN, whatever its code.
  const std::vector<std::uint64_t> el{0x00, 0x38};
  for (auto c : dequantize_block(0xFF, el, E4M3, rule("ocp"), F32).values)
    EXPECT_TRUE(std::isnan(ev(c, F32)));
}

TEST(BlockScale, Nvfp4OneLevel) {
  // amax 7: 7/6 = 1.1667 -> e4m3 1.125 (0x39, nearer than 1.25); 7/1.125 = 6.22 -> 6 (0x7):
  // dequantizes to 6.75. 1/1.125 = 0.889 -> 1 (0x2).
  const auto q = quantize_block(f32s({7.f, -1.f}), F32, E2M1, rule("nvfp4"));
  EXPECT_EQ(q.scale, 0x39u);
  EXPECT_EQ(q.elements, (std::vector<std::uint64_t>{0x7, 0xA}));
  EXPECT_EQ(deq(q, E2M1, "nvfp4"), (std::vector<double>{6.75, -1.125}));
}

TEST(BlockScale, Nvfp4TwoLevel) {
  // Two blocks of 16; global amax 5376 -> g = 5376 / (448 * 6) = 2 (f32 0x40000000).
  std::vector<std::uint64_t> m(32, fb(0.f));
  m[0] = fb(5376.f);
  m[16] = fb(60.f);
  m[17] = fb(25.f);
  m[18] = fb(-7.f);
  const auto q = quantize_matrix(m, 1, 32, F32, E2M1, rule("nvfp4"), 1, 16, true);
  ASSERT_TRUE(q.tensor_scale.has_value());
  EXPECT_EQ(*q.tensor_scale, 0x40000000u);
  ASSERT_EQ(q.scales.size(), 2u);
  // Block 0: 5376 / 6 / 2 = 448 (e4m3 0x7E); element 5376 / (448 * 2) = 6 (0x7).
  EXPECT_EQ(q.scales[0], 0x7Eu);
  EXPECT_EQ(q.elements[0], 0x7u);
  // Block 1: 60 / 6 / 2 = 5 (e4m3 0x4A); elements x / 10: 6 (0x7), 2.5 -> 2 (0x4, tie to
  // even), -0.7 -> -0.5 (0x9).
  EXPECT_EQ(q.scales[1], 0x4Au);
  EXPECT_EQ(q.elements[16], 0x7u);
  EXPECT_EQ(q.elements[17], 0x4u);
  EXPECT_EQ(q.elements[18], 0x9u);
  const auto d = dequantize_matrix(q, E2M1, rule("nvfp4"), F32);
  EXPECT_EQ(ev(d.values[0], F32), 5376.0);
  EXPECT_EQ(ev(d.values[16], F32), 60.0);
  EXPECT_EQ(ev(d.values[17], F32), 20.0);
  EXPECT_EQ(ev(d.values[18], F32), -5.0);
  // All-zero tensor: g = 1.
  EXPECT_EQ(tensor_scale(std::vector<std::uint64_t>(16, 0), F32, E2M1, rule("nvfp4")),
            0x3F800000u);
  // A rule without a second level refuses one.
  EXPECT_THROW(tensor_scale(m, F32, E4M3, rule("ocp")), Error);
}

TEST(BlockScale, TileFp32Scale) {
  // amax 1000: scale = RNE_f32(1000/448) (= IEEE float division of the exact integers);
  // 100 / s = 44.8 -> e4m3 44 (0x63); 1000 / s ~ 448 -> 448 (0x7E).
  const float s = 1000.f / 448.f;
  const auto q = quantize_block(f32s({1000.f, 100.f, -1.f}), F32, E4M3, rule("tile"));
  EXPECT_EQ(q.scale, fb(s));
  EXPECT_EQ(q.elements[0], 0x7Eu);
  EXPECT_EQ(q.elements[1], 0x63u);
  EXPECT_EQ(ev(q.elements[2], E4M3), -0.4375);  // -0.448 -> -0.4375 (step 2^-5 in [2^-2, 2^-1))
  // Exact power-of-two case: amax 896 -> s = 2; 3 -> 1.5 (0x3C).
  const auto e = quantize_block(f32s({896.f, 3.f}), F32, E4M3, rule("tile"));
  EXPECT_EQ(e.scale, 0x40000000u);
  EXPECT_EQ(e.elements, (std::vector<std::uint64_t>{0x7E, 0x3C}));
  EXPECT_EQ(e.flags.bits, 0);
  EXPECT_EQ(deq(e, E4M3, "tile"), (std::vector<double>{896, 3}));
}

TEST(BlockScale, MatrixBlocksAlongRowsColumnsAndTiles) {
  // 2 x 4 matrix. Blocks 1 x 2 (along rows): scales per (row, col-block); 2 x 1 (along columns).
  const auto m = f32s({1, 2, 4, 8,   //
                       16, 32, 64, 128});
  const auto rq = quantize_matrix(m, 2, 4, F32, E4M3, rule("ocp"), 1, 2);
  // amax per block: 2, 8, 32, 128 -> k = 1-8, 3-8, 5-8, 7-8.
  EXPECT_EQ(rq.scales, (std::vector<std::uint64_t>{127 - 7, 127 - 5, 127 - 3, 127 - 1}));
  const auto cq = quantize_matrix(m, 2, 4, F32, E4M3, rule("ocp"), 2, 1);
  // amax per column: 16, 32, 64, 128.
  EXPECT_EQ(cq.scales, (std::vector<std::uint64_t>{127 - 4, 127 - 3, 127 - 2, 127 - 1}));
  for (const auto* q : {&rq, &cq}) {
    const auto d = dequantize_matrix(*q, E4M3, rule("ocp"), F32);
    EXPECT_EQ(d.values, m);  // powers of two survive exactly
  }
  // 128 x 128 weight tiles on a 128 x 256 matrix: two fp32 scales.
  std::vector<std::uint64_t> big(128 * 256, fb(1.f));
  big[5 * 256 + 200] = fb(896.f);
  const auto tq = quantize_matrix(big, 128, 256, F32, E4M3, rule("tile"), 128, 128);
  EXPECT_EQ(tq.scales, (std::vector<std::uint64_t>{fb(1.f / 448.f), fb(2.f)}));
}

TEST(BlockScale, MatrixRefusesBlocksThatDoNotDivide) {
  const std::vector<std::uint64_t> m(4 * 30, fb(1.f));
  try {
    quantize_matrix(m, 4, 30, F32, E4M3, rule("ocp"), 1, 32);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "block_cols");
  }
  try {
    quantize_matrix(m, 4, 30, F32, E4M3, rule("ocp"), 3, 1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "block_rows");
  }
  EXPECT_THROW(quantize_matrix(m, 4, 29, F32, E4M3, rule("ocp"), 1, 1), Error);  // size
  EXPECT_THROW(quantize_matrix(m, 4, 30, F32, E4M3, rule("ocp"), 1, 30, true), Error);
}

TEST(BlockScale, ScaleRangeLimitsWithF64Input) {
  // Beyond ue8m0's 2^127: ocp gives the NaN scale (microxcaling: shared_exp > 127 -> NaN);
  // rceil saturates at 2^127 (0xFE) with overflow, and the element clamps to 448.
  const Format F64 = parse_format("f64");
  const std::vector<std::uint64_t> v{0x4C70000000000000ull};  // 2^200
  const auto o = quantize_block(v, F64, E4M3, rule("ocp"));
  EXPECT_EQ(o.scale, 0xFFu);
  EXPECT_TRUE(o.flags.has(Flags::invalid));
  const auto r = quantize_block(v, F64, E4M3, rule("rceil"));
  EXPECT_EQ(r.scale, 0xFEu);
  EXPECT_EQ(r.elements[0], 0x7Eu);
  EXPECT_TRUE(r.flags.has(Flags::overflow));
}
