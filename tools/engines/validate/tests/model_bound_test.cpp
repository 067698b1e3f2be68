// The model's-bound verdict: the model itself is bit-exact; a legal re-implementation (K walked
// in the other order, so the fused blocks chain the other way) is not bit-exact but within the
// bound; a kernel that accumulates in bf16 fails it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fpconform/convert.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/validate/model_bound.hpp"
#include "fpconform/validate/summary.hpp"
#include "fpconform/validate/validate.hpp"

namespace fpconform::validate {
namespace {

Matrix random_matrix(std::mt19937_64& rng, int rows, int cols, const Format& f) {
  Matrix m{rows, cols, f, {}};
  while (static_cast<int>(m.codes.size()) < rows * cols) {
    const std::uint64_t c = rng() & f.code_mask();
    if (f.is_nan_code(c) || f.is_inf_code(c)) continue;
    m.codes.push_back(c);
  }
  return m;
}

struct Case {
  Format in = parse_format("e4m3"), f32 = parse_format("f32");
  GemmOptions model;
  ValidateRequest q;
  Case() {
    std::mt19937_64 rng(9);
    model.unit = find_matrix_unit("hopper", in, f32);
    model.acc = f32;
    model.out = f32;
    model.out_rounding = Rounding{RoundingMode::rne};
    q.a = random_matrix(rng, 8, 256, in);
    q.b = random_matrix(rng, 256, 6, in);
    q.model = model;
    q.model_name = "hopper";
    q.model_bound = true;
    q.threads = 1;
  }
};

TEST(ModelBound, TheModelIsBitExact) {
  Case s;
  s.q.d = gemm(s.model, s.q.a, s.q.b);
  const ValidateReport r = validate_kernel(s.q);
  ASSERT_TRUE(r.bound);
  EXPECT_TRUE(r.bound->bit_exact);
  EXPECT_TRUE(r.pass);
  EXPECT_NE(summary_text(r, s.f32, "fpconform").find("bit-exact to the model"), std::string::npos);
}

TEST(ModelBound, AnotherOrderIsWithinTheBound) {
  Case s;
  GemmOptions other = s.model;
  other.reverse_k = true;  // the same blocks' products, chained from the other end
  s.q.d = gemm(other, s.q.a, s.q.b);
  const ValidateReport r = validate_kernel(s.q);
  ASSERT_TRUE(r.bound);
  EXPECT_FALSE(r.bound->bit_exact);
  EXPECT_TRUE(r.bound->within);
  EXPECT_TRUE(r.pass);
  EXPECT_GT(r.bound->worst_ratio, 0);
  EXPECT_LE(r.bound->worst_ratio, 1);
  const std::string text = summary_text(r, s.f32, "fpconform");
  EXPECT_NE(text.find("within the model's bound"), std::string::npos) << text;
  EXPECT_NE(text.find("calc_diff"), std::string::npos);
  EXPECT_NE(text.find("SQNR"), std::string::npos);
}

TEST(ModelBound, Bf16AccumulationFails) {
  Case s;
  // An fma chain in bf16 (8 significant bits), converted to f32 at the end. Positive terms:
  // the running sum grows until each new term is half an ulp of it and is lost (random signs
  // would mostly cancel those errors).
  for (auto& c : s.q.a.codes) c &= ~s.in.sign_mask();
  for (auto& c : s.q.b.codes) c &= ~s.in.sign_mask();
  GemmOptions bad;
  bad.unit = find_matrix_unit("fp32-sequential", s.in, s.f32);
  bad.acc = parse_format("bf16");
  bad.out = s.f32;
  bad.out_rounding = Rounding{RoundingMode::rne};
  s.q.d = gemm(bad, s.q.a, s.q.b);
  const ValidateReport r = validate_kernel(s.q);
  ASSERT_TRUE(r.bound);
  EXPECT_FALSE(r.bound->within);
  EXPECT_FALSE(r.pass);
  EXPECT_GT(r.bound->worst_ratio, 1);
  EXPECT_NE(summary_text(r, s.f32, "fpconform").find("outside the model's bound"), std::string::npos);
  // calc_diff = 1 - 2 sum(xy) / sum(x^2 + y^2) = sum (x - y)^2 / sum(x^2 + y^2) >= 0, and the
  // normwise error and SQNR agree: SQNR = -20 log10(rel_fro).
  EXPECT_GT(r.bound->calc_diff, 0);
  EXPECT_NEAR(r.bound->sqnr_db, -20 * std::log10(r.bound->rel_fro), 1e-6);
}

}  // namespace
}  // namespace fpconform::validate
