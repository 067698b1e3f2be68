// explain_element, model_batch_invariance and read_token_ids on cases whose answers are known
// without fpconform: small exact sums, a split-k model that a single row reorders, and files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "fpconform/core/error.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/validate/explain.hpp"

namespace fpconform::validate {
namespace {

Matrix f32_matrix(int rows, int cols, std::vector<std::uint64_t> codes) {
  return Matrix{rows, cols, parse_format("f32"), std::move(codes)};
}

TEST(ExplainElement, ExactSumAndItsCorrectRounding) {
  // A row [1, 2^-30], column [1, 1]: exact 1 + 2^-30, which rounds to 1.0f (0x3f800000).
  ValidateRequest q;
  q.a = f32_matrix(1, 2, {0x3f800000, 0x30800000});
  q.b = f32_matrix(2, 1, {0x3f800000, 0x3f800000});
  q.d = f32_matrix(1, 1, {0x3f800001});
  const ElementExplanation e = explain_element(q, 0, 0);
  EXPECT_EQ(e.k, 2);
  EXPECT_EQ(e.kernel, 0x3f800001u);
  EXPECT_FALSE(e.model.has_value());
  EXPECT_EQ(e.exact, 1.0L + std::ldexp(1.0L, -30));
  EXPECT_EQ(e.exact_rounded, 0x3f800000u);
  EXPECT_EQ(e.operands, "3f800000 30800000 3f800000 3f800000 00000000");
  const std::string text = element_text(e, q);
  EXPECT_NE(text.find("kernel:   3f800001 (1.00000012)"), std::string::npos) << text;
  EXPECT_NE(text.find("correctly rounded 3f800000 (1)"), std::string::npos) << text;
  EXPECT_THROW(explain_element(q, 1, 0), Error);
}

TEST(ModelBatchInvariance, SplitKChangesTheSumOfACancellingRow) {
  // An fp32 fma chain (IEEE: 2^24 + 1 ties to the even 2^24). Row 0 [2^24, 1, -2^24, 1] sums
  // to 1 in k order and in two halves (2^24, then -2^24 + 1). Row 1 [1, 2^24, 1, -2^24] sums to
  // 0 in k order but to 1 in halves (2^24, 1 - 2^24): only row 1 depends on the split.
  GemmOptions g;
  g.acc = g.out = parse_format("f32");
  g.unit = find_matrix_unit("fp32-sequential", g.acc, g.acc);
  g.split_k = 2;
  const Matrix a = f32_matrix(2, 4, {0x4b800000, 0x3f800000, 0xcb800000, 0x3f800000,
                                     0x3f800000, 0x4b800000, 0x3f800000, 0xcb800000});
  const Matrix b = f32_matrix(4, 1, {0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000});
  const BatchInvariance same = model_batch_invariance(g, a, b, nullptr, 2);
  EXPECT_EQ(same.rows, 2);
  EXPECT_TRUE(same.differing_rows.empty());
  const BatchInvariance split = model_batch_invariance(g, a, b, nullptr, 1);
  EXPECT_EQ(split.differing_rows, std::vector<int>{1});
}

TEST(ReadTokenIds, OnePerLineAndTheBadLineNamed) {
  const std::string path = ::testing::TempDir() + "tokens.txt";
  {
    std::ofstream f(path);
    f << "3\n17 \n4x\n";
  }
  try {
    read_token_ids(path);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), path + ":3");
  }
  {
    std::ofstream f(path);
    f << "3\n17\r\n";
  }
  EXPECT_EQ(read_token_ids(path), (std::vector<int>{3, 17}));
  std::remove(path.c_str());
  EXPECT_THROW(read_token_ids(path), Error);
}

}  // namespace
}  // namespace fpconform::validate
