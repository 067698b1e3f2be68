// validate_kernel finds planted faults: one flipped bit among 10^6 outputs, and a kernel that
// accumulates sequentially in fp32 checked against the hopper model (the elements it reports
// are exactly those where a direct fdpa call differs from the kernel). The exact reference is
// checked against the IEEE fp32 fma of single products (correctly rounded by definition).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <set>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/validate/validate.hpp"

namespace fpconform::validate {
namespace {

Matrix random_bf16(int rows, int cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Matrix m{rows, cols, parse_format("bf16"), {}};
  for (int i = 0; i < rows * cols; ++i)  // exponents 2^-4 .. 2^3, both signs
    m.codes.push_back(((rng() & 1) << 15) | ((123 + rng() % 8) << 7) | (rng() & 0x7F));
  return m;
}

GemmOptions hopper_bf16() {
  GemmOptions g;
  g.acc = g.out = parse_format("f32");
  g.unit = find_matrix_unit("hopper", parse_format("bf16"), g.acc);
  return g;
}

TEST(Validate, FindsOneFlippedBitInAMillionOutputs) {
  ValidateRequest q;
  q.a = random_bf16(1000, 16, 1);
  q.b = random_bf16(16, 1000, 2);
  q.model = hopper_bf16();
  q.model_name = "hopper";
  q.d = gemm(*q.model, q.a, q.b);
  q.d.codes[123 * 1000 + 456] ^= 1u << 9;
  const ValidateReport rep = validate_kernel(q);
  ASSERT_EQ(rep.comparisons.size(), 1u);
  const Comparison& c = rep.comparisons[0];
  EXPECT_EQ(c.total, 1000000u);
  EXPECT_EQ(c.bit_exact, 999999u);
  ASSERT_EQ(c.worst.size(), 1u);
  EXPECT_EQ(c.worst[0].row, 123);
  EXPECT_EQ(c.worst[0].col, 456);
  EXPECT_EQ(c.max_ulp, 512u);
  EXPECT_FALSE(rep.pass);
  EXPECT_EQ(rep.tolerance, "bit-exact");
}

// A kernel as a user writes it: fp32 FMAs in K order (the CPU's fma), C = 0.
Matrix sequential_fp32_kernel(const Matrix& a, const Matrix& b) {
  const Format f32 = parse_format("f32");
  Matrix d{a.rows, b.cols, f32, {}};
  auto val = [](std::uint64_t bf16) { return std::bit_cast<float>(static_cast<std::uint32_t>(bf16 << 16)); };
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < b.cols; ++j) {
      float acc = 0;
      for (int k = 0; k < a.cols; ++k) acc = std::fma(val(a.at(i, k)), val(b.at(k, j)), acc);
      d.codes.push_back(std::bit_cast<std::uint32_t>(acc));
    }
  return d;
}

TEST(Validate, SequentialFp32KernelAgainstTheHopperModel) {
  ValidateRequest q;
  q.a = random_bf16(40, 64, 3);
  q.b = random_bf16(64, 30, 4);
  q.model = hopper_bf16();
  q.model_name = "hopper";
  q.exact = true;
  q.worst = 1200;
  q.d = sequential_fp32_kernel(q.a, q.b);
  const ValidateReport rep = validate_kernel(q);
  ASSERT_EQ(rep.comparisons.size(), 2u);
  // The elements where the hopper model, called directly, differs from the kernel.
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  std::set<std::pair<int, int>> expected;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 30; ++j) {
      std::vector<std::uint64_t> a(64), b(64);
      for (int k = 0; k < 64; ++k) {
        a[k] = q.a.at(i, k);
        b[k] = q.b.at(k, j);
      }
      if (fdpa(q.model->unit, bf16, f32, a, b, 0) != q.d.at(i, j)) expected.insert({i, j});
    }
  std::set<std::pair<int, int>> reported;
  for (const ElementDiff& d : rep.comparisons[0].worst) reported.insert({d.row, d.col});
  EXPECT_FALSE(expected.empty()) << "RZ, 25-bit alignment vs RNE fma chain must differ somewhere";
  EXPECT_EQ(reported, expected);
  EXPECT_EQ(rep.comparisons[0].total - rep.comparisons[0].bit_exact, expected.size());
  EXPECT_FALSE(rep.pass);
  // Against the exact values: the chain's error obeys the classic bound
  // |d - x| <= gamma_K * sum |a_k b_k|, gamma_K = K u / (1 - K u), u = 2^-24.
  const ExactResult ex = exact_gemm(q.a, q.b, nullptr, f32, Rounding{}, 1);
  const double u = std::ldexp(1.0, -24), gamma = 64 * u / (1 - 64 * u);
  auto val = [](std::uint64_t bf16) { return double(std::bit_cast<float>(static_cast<std::uint32_t>(bf16 << 16))); };
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 30; ++j) {
      double abs_sum = 0;
      for (int k = 0; k < 64; ++k) abs_sum += std::fabs(val(q.a.at(i, k)) * val(q.b.at(k, j)));
      const double d = std::bit_cast<float>(static_cast<std::uint32_t>(q.d.at(i, j)));
      const double x = static_cast<double>(ex.value[static_cast<std::size_t>(i) * 30 + j]);
      ASSERT_LE(std::fabs(d - x), gamma * abs_sum) << i << "," << j;
    }
  EXPECT_GT(rep.comparisons[1].max_ulp, 0u);
  std::printf("fp32 chain vs hopper: %zu of 1200 differ; vs exact: %llu bit-exact, max %llu ulp\n",
              expected.size(), static_cast<unsigned long long>(rep.comparisons[1].bit_exact),
              static_cast<unsigned long long>(rep.comparisons[1].max_ulp));
}

// K = 1 with C: a*b + c correctly rounded is the IEEE fma, so the CPU's fmaf is an independent
// oracle for the exact reference.
TEST(Validate, ExactReferenceIsTheCorrectlyRoundedResult) {
  const Format f32 = parse_format("f32");
  std::mt19937_64 rng(5);
  Matrix a{300, 1, f32, {}}, b{1, 300, f32, {}}, c{300, 300, f32, {}};
  auto rnd = [&] { return ((rng() & 1) << 31) | ((100 + rng() % 50) << 23) | (rng() & 0x7FFFFF); };
  for (int i = 0; i < 300; ++i) a.codes.push_back(rnd());
  for (int i = 0; i < 300; ++i) b.codes.push_back(rnd());
  for (int i = 0; i < 300 * 300; ++i) c.codes.push_back(rnd());
  ValidateRequest q;
  q.a = a;
  q.b = b;
  q.c = c;
  q.exact = true;
  q.d = Matrix{300, 300, f32, {}};
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 300; ++j)
      q.d.codes.push_back(std::bit_cast<std::uint32_t>(
          std::fma(std::bit_cast<float>(static_cast<std::uint32_t>(a.at(i, 0))),
                   std::bit_cast<float>(static_cast<std::uint32_t>(b.at(0, j))),
                   std::bit_cast<float>(static_cast<std::uint32_t>(c.at(i, j))))));
  const ValidateReport rep = validate_kernel(q);
  EXPECT_EQ(rep.comparisons[0].bit_exact, 90000u);
  EXPECT_TRUE(rep.pass);
  // Relative errors of correctly rounded fp32 results are at most 2^-24.
  EXPECT_LE(rep.comparisons[0].max_rel, std::ldexp(1.0, -24));
}

TEST(Validate, ShapeMismatchesNameTheArgument) {
  ValidateRequest q;
  q.a = random_bf16(4, 8, 1);
  q.b = random_bf16(7, 4, 2);
  q.exact = true;
  q.d = Matrix{4, 4, parse_format("f32"), std::vector<std::uint64_t>(16)};
  try {
    validate_kernel(q);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "--b");
  }
  q.b = random_bf16(8, 4, 2);
  q.d = Matrix{4, 5, parse_format("f32"), std::vector<std::uint64_t>(20)};
  try {
    validate_kernel(q);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "--d");
  }
}

}  // namespace
}  // namespace fpconform::validate
