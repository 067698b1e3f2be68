// gemm: the DeepSeek-V3 promotion effect worked out by hand on the Hopper FP8 unit
// (L = 32, F = 13, e8m13 accumulator), split-K, per-group scales, shape errors, and every
// preset against the model per element.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <utility>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/gemm.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform {
namespace {

// A = 1 x 256 of e4m3 1.0 (0x38); B = 256 x 1 with b0 = 256 (0x78) and every other b = 2^-6
// (0x08). Exact A.B = 256 + 255 * 2^-6 = 259.984375.
// Without promotion each 32-product block aligns to E = 8 with 13 fraction bits (unit 2^-5):
// every 2^-6 product truncates to 0, and once C = 256 the later blocks lose theirs too: 256.
// Promotion every 128: the first group gives 256; the second starts from 0, its 128 products of
// 2^-6 are exact (E = -6 .. 0), 2.0 in all; fp32 accumulation gives 258.
struct Fixture {
  Matrix a, b;
  GemmOptions o;
  Fixture() {
    const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32");
    a = {1, 256, e4m3, std::vector<std::uint64_t>(256, 0x38)};
    b = {256, 1, e4m3, std::vector<std::uint64_t>(256, 0x08)};
    b.codes[0] = 0x78;
    o.unit = find_matrix_unit("hopper", e4m3, f32);
    o.acc = f32;
    o.out = f32;
  }
};

TEST(Gemm, HopperFp8LosesSmallProductsWithoutPromotion) {
  Fixture fx;
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b).codes[0], 0x43800000u);  // 256
  fx.o.promote_every = 128;
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b).codes[0], 0x43810000u);  // 258
  // Promotion every 32 products: group 1 still truncates its 31 small products (E = 8);
  // groups 2..8 give 32 * 2^-6 = 0.5 each: 256 + 7 * 0.5 = 259.5.
  fx.o.promote_every = 32;
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b).codes[0], 0x4381C000u);  // 259.5
}

TEST(Gemm, SplitKAndScales) {
  Fixture fx;
  fx.o.split_k = 2;  // slices of 128, each from zero: 256 and 2.0, then fp32 adds
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b).codes[0], 0x43810000u);
  fx.o.reduction = SplitReduction::pairwise;
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b).codes[0], 0x43810000u);
  // Per-group scales (1 x 2 for A, 2 x 1 for B): 256 * 2 + 2.0 * 0.5 = 513.
  fx.o.split_k = 1;
  fx.o.promote_every = 128;
  fx.o.scale_a = {0x40000000, 0x3F000000};
  fx.o.scale_b = {0x3F800000, 0x3F800000};
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b).codes[0], 0x44004000u);
  // C enters as the initial fp32 accumulator: 513 + 1 = 514.
  const Matrix c{1, 1, parse_format("f32"), {0x3F800000}};
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b, &c).codes[0], 0x44008000u);
}

// C in the epilogue (cuBLASLt): with B all 2^-6 the products sum exactly to 4.0 from zero
// (every block E <= 0), and 4 + 256 = 260 in fp32. C = 256 as the initial accumulator instead
// aligns every block to E = 8, where the 2^-6 products truncate away: 256.
TEST(Gemm, CInTheEpilogue) {
  Fixture fx;
  fx.b.codes[0] = 0x08;
  const Matrix c{1, 1, parse_format("f32"), {0x43800000}};
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b, &c).codes[0], 0x43800000u);  // 256
  fx.o.c_in_epilogue = true;
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b, &c).codes[0], 0x43820000u);  // 260
  // with promotion every 128 the same: two partials of 2.0, then + 256
  fx.o.promote_every = 128;
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b, &c).codes[0], 0x43820000u);
  // no C given: the epilogue adds nothing
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b).codes[0], 0x40800000u);  // 4
}

// Walking K backwards: the seven blocks of small products come first and add up exactly
// (E <= 1), 224 * 2^-6 = 3.5; the last block holds 256, aligns to E = 8 and truncates its 31
// small products, keeping C = 3.5: 259.5.
TEST(Gemm, ReverseK) {
  Fixture fx;
  fx.o.reverse_k = true;
  EXPECT_EQ(gemm(fx.o, fx.a, fx.b).codes[0], 0x4381C000u);
}

// Blackwell mxf8f6f4 with ue8m0 scales per 32 elements: A = 1 x 64 ones, B = 64 x 1 ones;
// A's first block scaled by 2 (code 128), the rest by 1 (127): 32 * 2 + 32 = 96.
TEST(Gemm, BlockScales) {
  const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32");
  GemmOptions o;
  o.unit = find_matrix_unit("blackwell", e4m3, f32);
  o.acc = f32;
  o.out = f32;
  o.block_scale_format = parse_format("ue8m0");
  o.block_scale_a = {128, 127};
  o.block_scale_b = {127, 127};
  const Matrix a{1, 64, e4m3, std::vector<std::uint64_t>(64, 0x38)};
  const Matrix b{64, 1, e4m3, std::vector<std::uint64_t>(64, 0x38)};
  EXPECT_EQ(gemm(o, a, b).codes[0], 0x42C00000u);
  o.block_scale_a = {128};
  try {
    gemm(o, a, b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--block-scale-a"), std::string::npos) << e.what();
  }
}

// fdpa on row i of A and column j of B, from C.
std::uint64_t model_at(const FdpaParams& p, const Format& out, const Matrix& a, const Matrix& b,
                       int i, int j, std::uint64_t c) {
  std::vector<std::uint64_t> av, bv;
  for (int t = 0; t < a.cols; ++t) {
    av.push_back(a.at(i, t));
    bv.push_back(b.at(t, j));
  }
  return fdpa(p, a.format, out, av, bv, c);
}

// Whole rows of D at once (gemm hands several rows' columns to the kernel together, which
// interleaves their dot products, and B in panels of 16 columns where the kernel takes B
// row-major) against fdpa per element on the gathered row and column, with and without C: the
// Ampere f16 and bf16, Hopper e4m3 and CDNA1 bf16 (the host path) units; M x N of 3 x 11
// (N = 8 + 2 + 1, every group size of the kernel's other paths) and 19 x 45 (16 rows and 3,
// two panels and 13 columns of a third); K with a partial last block; normal values.
TEST(Gemm, RowsSameAsTheModelPerElement) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f32 = parse_format("f32"), f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  for (const auto& [preset, input] : {std::pair{"ampere", "f16"}, std::pair{"hopper", "e4m3"},
                                      std::pair{"ampere", "bf16"}, std::pair{"cdna1", "bf16"}})
  for (const auto& [m, n] : {std::pair{3, 11}, std::pair{19, 45}}) {
    const Format in = parse_format(input);
    GemmOptions o;
    o.unit = find_matrix_unit(preset, in, f32);
    o.acc = f32;
    o.out = f32;
    const int k = (m == 3 ? 1000 : 200) + static_cast<int>(rng() % 8);
    Matrix a{m, k, in, {}}, b{k, n, in, {}}, c{m, n, f32, {}};
    for (int i = 0; i < m * k; ++i)
      a.codes.push_back(convert(std::bit_cast<std::uint64_t>(normal(rng)), f64, in, sat).bits);
    for (int i = 0; i < k * n; ++i)
      b.codes.push_back(convert(std::bit_cast<std::uint64_t>(normal(rng)), f64, in, sat).bits);
    for (int i = 0; i < m * n; ++i)
      c.codes.push_back(std::bit_cast<std::uint32_t>(static_cast<float>(normal(rng) * 16)));
    const Matrix d0 = gemm(o, a, b), d1 = gemm(o, a, b, &c);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        EXPECT_EQ(d0.at(i, j), model_at(o.unit, f32, a, b, i, j, 0))
            << preset << " " << input << " " << i << "," << j;
        EXPECT_EQ(d1.at(i, j), model_at(o.unit, f32, a, b, i, j, c.at(i, j)))
            << preset << " " << input << " " << i << "," << j << " with C";
      }
  }
}

// Every preset's unit into every output it writes (f32, f16, bf16, f64), through gemm against
// fdpa per element: one shape each (M up to 20, N up to 40: partial panels of 16 and groups of
// rows; K up to 300: partial blocks), operands drawn in turn as every code (NaN, inf,
// subnormals), mostly zeros, normal values spread over 2^-30 .. 2^30, near the top of the
// format's range and near the bottom, with rows and columns each scaled by their own power of
// two; C present in every other case.
TEST(Gemm, EveryPresetSameAsTheModel) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  int units = 0;
  long compared = 0;
  for (const PresetUnit& u : preset_units({"f32", "f16", "bf16", "f64"})) {
    const int kind = units++ % 6;
    const int m = 1 + static_cast<int>(rng() % 20), n = 1 + static_cast<int>(rng() % 40),
              k = 1 + static_cast<int>(rng() % 300);
    int shift = 0;  // the row's or the column's power of two
    auto draw = [&](const Format& f) -> std::uint64_t {
      if (kind == 0) return rng() & f.code_mask();
      if (kind == 1 && rng() % 3 != 0) return rng() % 2 ? f.sign_mask() : 0;
      double x = std::ldexp(normal(rng), shift);
      if (kind == 2) x = std::ldexp(x, static_cast<int>(rng() % 61) - 30);
      if (kind == 3) x = std::ldexp(x, std::min(f.emax(), 60) - static_cast<int>(rng() % 4));
      if (kind == 4) x = std::ldexp(x, std::max(f.emin(), -60) + static_cast<int>(rng() % 4));
      return convert(std::bit_cast<std::uint64_t>(x), f64, f, sat).bits;
    };
    std::vector<int> row_shift(static_cast<std::size_t>(m)), column_shift(static_cast<std::size_t>(n));
    for (int& x : row_shift) x = kind == 5 ? static_cast<int>(rng() % 41) - 20 : 0;
    for (int& x : column_shift) x = kind == 5 ? static_cast<int>(rng() % 41) - 20 : 0;
    Matrix a{m, k, u.in, {}}, b{k, n, u.in, {}}, c{m, n, u.out, {}};
    for (int i = 0; i < m * k; ++i) {
      shift = row_shift[static_cast<std::size_t>(i / k)];
      a.codes.push_back(draw(u.in));
    }
    for (int i = 0; i < k * n; ++i) {
      shift = column_shift[static_cast<std::size_t>(i % n)];
      b.codes.push_back(draw(u.in));
    }
    shift = 0;
    for (int i = 0; i < m * n; ++i) c.codes.push_back(draw(u.out));
    GemmOptions o;
    o.unit = u.params;
    o.acc = u.out;
    o.out = u.out;
    const bool with_c = units % 2 == 0;
    const Matrix d = gemm(o, a, b, with_c ? &c : nullptr);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        ASSERT_EQ(d.at(i, j), model_at(u.params, u.out, a, b, i, j, with_c ? c.at(i, j) : 0))
            << u.entry->preset << " " << u.in.name << " -> " << u.out.name << " kind " << kind
            << " M, N, K = " << m << ", " << n << ", " << k << " at " << i << "," << j;
        ++compared;
      }
  }
  EXPECT_GT(units, 60);
  EXPECT_GT(compared, 10000);
}

TEST(Gemm, ShapeErrorsNameTheArgument) {
  Fixture fx;
  Matrix wrong = fx.b;
  wrong.rows = 255;
  wrong.codes.pop_back();
  EXPECT_THROW(gemm(fx.o, fx.a, wrong), Error);
  fx.o.promote_every = 128;
  fx.o.scale_a = {0x3F800000};
  fx.o.scale_b = {0x3F800000, 0x3F800000};
  try {
    gemm(fx.o, fx.a, fx.b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--scale-a"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fpconform
