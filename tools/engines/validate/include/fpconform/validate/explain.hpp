// The parts of `validate` that look closer: one element of D explained (kernel, model, exact),
// a model's batch invariance (the batch against each row alone), and token-id files for --logits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fpconform/gemm.hpp"
#include "fpconform/validate/validate.hpp"

namespace fpconform::validate {

// Row r of m as a 1 x cols matrix; column c of m as a rows x 1 matrix.
Matrix row_of(const Matrix& m, int r);
Matrix column_of(const Matrix& m, int c);

// D[row][col] three ways: what the kernel wrote, what the model computes (when q.model is set),
// and the exact value with its correctly rounded code (q.exact_rounding). Throws Error
// ("--element") for an element outside D.
struct ElementExplanation {
  int row = 0, col = 0, k = 0;
  std::uint64_t kernel = 0;
  std::optional<std::uint64_t> model;
  // The model is a plain dot product (`fpconform dot` reproduces it): no split-k, promotion,
  // reversed k or scales, accumulator = output.
  bool model_is_dot = false;
  long double exact = 0;
  std::uint64_t exact_rounded = 0;
  std::string operands;  // hex codes: a row, b column, c ("a0 a1 ... b0 b1 ... c")
};
ElementExplanation explain_element(const ValidateRequest& q, int row, int col);
// The lines `fpconform validate --element` prints.
std::string element_text(const ElementExplanation& e, const ValidateRequest& q);

// A model's batch invariance: D for the whole batch (the model as given) against each row of A
// computed alone (split-k `split_k_alone`), bitwise per row.
struct BatchInvariance {
  std::vector<int> differing_rows;
  int rows = 0;
};
BatchInvariance model_batch_invariance(const GemmOptions& model, const Matrix& a, const Matrix& b,
                                       const Matrix* c, int split_k_alone);

// Token ids, one integer per line; Error names `path:line` for anything else.
std::vector<int> read_token_ids(const std::string& path, const std::string& what = "--tokens");

}  // namespace fpconform::validate
