// The mismatch metrics against a direct computation on small cases.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "fpconform/core/error.hpp"
#include "fpconform/validate/mismatch.hpp"

namespace fpconform::validate {
namespace {

Matrix logits_f32(int rows, int cols, const std::vector<float>& v) {
  Matrix m{rows, cols, parse_format("f32"), {}};
  for (float x : v) m.codes.push_back(std::bit_cast<std::uint32_t>(x));
  return m;
}

TEST(LogitMismatch, TwoTokenCaseByHand) {
  const float l3 = std::log(3.0f);
  // Row 0: mu = (1/2, 1/2), pi = softmax(0, ln 3) ~ (1/4, 3/4). Row 1: identical.
  const Matrix mu = logits_f32(2, 2, {0, 0, 1, 2});
  const Matrix pi = logits_f32(2, 2, {0, l3, 1, 2});
  const std::vector<int> tokens = {0, 1};
  const LogitMismatch m = logit_mismatch(mu, pi, tokens, 1);
  const double p1 = std::exp(double(l3)) / (1 + std::exp(double(l3)));  // pi(1), row 0
  const double p0 = 1 - p1;
  const double kl0 = 0.5 * std::log(0.5 / p0) + 0.5 * std::log(0.5 / p1);
  EXPECT_NEAR(m.kl_per_row[0], kl0, 1e-15);
  EXPECT_NEAR(m.kl_per_row[1], 0, 1e-18);
  EXPECT_NEAR(m.mean_kl, kl0 / 2, 1e-15);
  EXPECT_EQ(m.worst_row, 0);
  const double l = std::log(p0) - std::log(0.5);  // log pi(x) - log mu(x), row 0, x = 0
  EXPECT_NEAR(m.mean_k3, (std::exp(l) - l - 1) / 2, 1e-15);
  EXPECT_NEAR(m.max_prob_diff, 0.5 - p0, 1e-15);
  EXPECT_NEAR(m.mean_logprob_gap, -l / 2, 1e-15);
}

TEST(LogitMismatch, SampledTokensFollowMuAndErrorsNameThePlace) {
  // mu puts all its mass on token 2: every sample is 2.
  const Matrix mu = logits_f32(3, 4, {0, 0, 100, 0, 0, 0, 100, 0, 0, 0, 100, 0});
  const LogitMismatch m = logit_mismatch(mu, mu, {}, 7);
  EXPECT_EQ(m.tokens, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(m.mean_kl, 0);
  Matrix bad = mu;
  bad.codes[5] = 0x7fc00000;
  try {
    logit_mismatch(mu, bad, {}, 7);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "--against row 1 column 1");
  }
  const std::vector<int> out_of_range = {0, 4, 1};
  EXPECT_THROW(logit_mismatch(mu, mu, out_of_range, 7), Error);
}

TEST(BatchInvariance, ReportsTheRowsThatDiffer) {
  const Matrix a = logits_f32(3, 2, {1, 2, 3, 4, 5, 6});
  Matrix b = a;
  b.codes[3] ^= 1;
  EXPECT_EQ(rows_not_invariant(a, b), (std::vector<int>{1}));
  EXPECT_TRUE(rows_not_invariant(a, a).empty());
}

}  // namespace
}  // namespace fpconform::validate
