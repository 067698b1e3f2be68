// Two implementations of one computation side by side: the training-inference mismatch metrics
// RL practitioners track (logits of a rollout engine, mu, against the trainer's, pi) and batch
// invariance (the same rows computed alone and inside a batch must be bitwise equal).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fpconform/gemm.hpp"

namespace fpconform::validate {

// Per row (token position) r, with probabilities from softmax over the row's logits (computed
// in long double) and the token x_r (given, or sampled from mu):
//   |pi(x) - mu(x)|, KL(mu || pi) = sum_v mu_v (log mu_v - log pi_v) (the exact expectation),
//   k3 = exp(l) - l - 1 with l = log pi(x) - log mu(x) (verl's k3_kl estimator at x),
//   the log-probability gap log mu(x) - log pi(x).
struct LogitMismatch {
  std::size_t rows = 0;
  double max_prob_diff = 0, mean_prob_diff = 0;
  double mean_kl = 0, max_kl = 0;
  double mean_k3 = 0;
  double mean_logprob_gap = 0, mean_abs_logprob_gap = 0;
  std::vector<int> tokens;          // x_r
  std::vector<double> kl_per_row;   // KL(mu || pi) of each row
  int worst_row = -1;               // the row with the largest KL
};

// mu and pi: rows x vocab logits (any float format). tokens: one per row, or empty to sample
// x_r ~ mu with `seed`. Throws Error for shape mismatches, token ids out of range, NaN logits
// (naming the row and column).
LogitMismatch logit_mismatch(const Matrix& mu, const Matrix& pi, std::span<const int> tokens,
                             std::uint64_t seed);

// The rows of `batch` whose bits differ from the same rows of `alone` (equal shapes).
std::vector<int> rows_not_invariant(const Matrix& batch, const Matrix& alone);

}  // namespace fpconform::validate
