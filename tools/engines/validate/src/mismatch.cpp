#include "fpconform/validate/mismatch.hpp"

#include <cmath>
#include <random>

#include "fpconform/core/error.hpp"
#include "fpconform/validate/compare.hpp"

namespace fpconform::validate {
namespace {

// log-softmax of one row, in long double (max subtracted first).
std::vector<long double> log_softmax(const Matrix& m, int r, const char* what) {
  std::vector<long double> x(static_cast<std::size_t>(m.cols));
  long double hi = -INFINITY;
  for (int c = 0; c < m.cols; ++c) {
    const double v = code_value(m.format, m.at(r, c));
    if (std::isnan(v))
      throw Error(std::string(what) + " row " + std::to_string(r) + " column " + std::to_string(c),
                  "NaN logit");
    x[static_cast<std::size_t>(c)] = v;
    hi = std::max(hi, static_cast<long double>(v));
  }
  if (std::isinf(static_cast<double>(hi)))
    throw Error(std::string(what) + " row " + std::to_string(r), "infinite logits");
  long double sum = 0;
  for (long double v : x) sum += std::exp(v - hi);
  const long double lse = hi + std::log(sum);
  for (long double& v : x) v -= lse;
  return x;
}

}  // namespace

LogitMismatch logit_mismatch(const Matrix& mu, const Matrix& pi, std::span<const int> tokens,
                             std::uint64_t seed) {
  if (mu.rows != pi.rows || mu.cols != pi.cols)
    throw Error("--against", "the two logit matrices differ in shape (" + std::to_string(mu.rows) +
                                 "x" + std::to_string(mu.cols) + " and " + std::to_string(pi.rows) +
                                 "x" + std::to_string(pi.cols) + ")");
  if (mu.rows == 0 || mu.cols == 0) throw Error("--d", "empty logits");
  if (!tokens.empty() && tokens.size() != static_cast<std::size_t>(mu.rows))
    throw Error("--tokens", "expected " + std::to_string(mu.rows) + " token ids, one per row, got " +
                                std::to_string(tokens.size()));
  LogitMismatch out;
  out.rows = static_cast<std::size_t>(mu.rows);
  std::mt19937_64 rng(seed);
  double kl_sum = 0, k3_sum = 0, gap_sum = 0, abs_gap_sum = 0, diff_sum = 0;
  for (int r = 0; r < mu.rows; ++r) {
    const auto lm = log_softmax(mu, r, "--d");
    const auto lp = log_softmax(pi, r, "--against");
    long double kl = 0;
    for (std::size_t v = 0; v < lm.size(); ++v) {
      const long double pm = std::exp(lm[v]);
      if (pm > 0) kl += pm * (lm[v] - lp[v]);
    }
    int x;
    if (!tokens.empty()) {
      x = tokens[static_cast<std::size_t>(r)];
      if (x < 0 || x >= mu.cols)
        throw Error("--tokens row " + std::to_string(r),
                    "token id " + std::to_string(x) + " is outside 0.." + std::to_string(mu.cols - 1));
    } else {
      // Inverse-CDF sampling from mu with a 53-bit uniform.
      const long double u = static_cast<long double>(rng() >> 11) * 0x1p-53L;
      long double cum = 0;
      x = mu.cols - 1;
      for (int v = 0; v < mu.cols; ++v) {
        cum += std::exp(lm[static_cast<std::size_t>(v)]);
        if (u < cum) {
          x = v;
          break;
        }
      }
    }
    out.tokens.push_back(x);
    const long double l = lp[static_cast<std::size_t>(x)] - lm[static_cast<std::size_t>(x)];
    const double diff = static_cast<double>(
        std::fabs(std::exp(lp[static_cast<std::size_t>(x)]) - std::exp(lm[static_cast<std::size_t>(x)])));
    out.max_prob_diff = std::max(out.max_prob_diff, diff);
    diff_sum += diff;
    k3_sum += static_cast<double>(std::expm1(l) - l);
    gap_sum += static_cast<double>(-l);
    abs_gap_sum += static_cast<double>(std::fabs(l));
    const double kld = static_cast<double>(std::max<long double>(kl, 0));
    out.kl_per_row.push_back(kld);
    kl_sum += kld;
    if (out.worst_row < 0 || kld > out.max_kl) {
      out.max_kl = kld;
      out.worst_row = r;
    }
  }
  const double n = static_cast<double>(out.rows);
  out.mean_prob_diff = diff_sum / n;
  out.mean_kl = kl_sum / n;
  out.mean_k3 = k3_sum / n;
  out.mean_logprob_gap = gap_sum / n;
  out.mean_abs_logprob_gap = abs_gap_sum / n;
  return out;
}

std::vector<int> rows_not_invariant(const Matrix& batch, const Matrix& alone) {
  if (batch.rows != alone.rows || batch.cols != alone.cols || !(batch.format == alone.format))
    throw Error("--against", "the batch and the rows computed alone differ in shape or format");
  std::vector<int> rows;
  for (int r = 0; r < batch.rows; ++r)
    for (int c = 0; c < batch.cols; ++c)
      if (batch.at(r, c) != alone.at(r, c)) {
        rows.push_back(r);
        break;
      }
  return rows;
}

}  // namespace fpconform::validate
