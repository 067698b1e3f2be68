#include "fpconform/validate/model_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fpconform/core/error.hpp"
#include "fpconform/tolerance/bound.hpp"
#include "fpconform/validate/compare.hpp"

namespace fpconform::validate {

BoundVerdict check_model_bound(const ValidateRequest& q, const Matrix& model_d,
                               const ExactResult& exact) {
  if (!q.model) throw Error("--tolerance", "model needs --model");
  const GemmOptions& g = *q.model;
  if (!g.scale_a.empty() || !g.scale_b.empty() || !g.block_scale_a.empty())
    throw Error("--tolerance", "the model's bound is derived for unit scales only");
  if (!(q.a.format == q.b.format) || (q.c && !(q.c->format == g.acc)))
    throw Error("--tolerance", "the model's bound is derived for A and B in one format and C in "
                               "the accumulator's");
  tolerance::GemmShape shape{g.promote_every, g.split_k, g.reduction, g.c_in_epilogue};
  const tolerance::Bound bound = tolerance::model_bound(g.unit, q.a.format, g.acc, q.a.cols, shape,
                                                        &g.out, &g.out_rounding);
  const std::vector<double> bounds =
      tolerance::elementwise_bounds(bound, q.a, q.b, q.c ? &*q.c : nullptr, model_d);
  BoundVerdict v;
  v.bit_exact = q.d.codes == model_d.codes;
  long double sxy = 0, sxx = 0, syy = 0, sdd = 0;
  std::vector<BoundElement> all;
  for (int i = 0; i < q.d.rows; ++i)
    for (int j = 0; j < q.d.cols; ++j) {
      const std::size_t idx = static_cast<std::size_t>(i) * q.d.cols + j;
      const long double x = code_value(q.d.format, q.d.codes[idx]);
      const long double y = exact.value[idx];
      ++v.elements;
      BoundElement e{i, j, 0, bounds[idx], 0};
      if (std::isnan(static_cast<double>(x)) || std::isnan(static_cast<double>(y))) {
        // NaN on both sides is the model's NaN case; on one side only it is no rounding error.
        const bool both = std::isnan(static_cast<double>(x)) && std::isnan(static_cast<double>(y));
        e.error = both ? 0 : INFINITY;
      } else {
        e.error = static_cast<double>(std::fabs(x - y));
        sxy += x * y;
        sxx += x * x;
        syy += y * y;
        sdd += (x - y) * (x - y);
      }
      e.ratio = e.error == 0 ? 0 : e.bound > 0 ? e.error / e.bound : INFINITY;
      if (!(e.error <= e.bound)) ++v.over;
      v.worst_ratio = std::max(v.worst_ratio, e.ratio);
      all.push_back(e);
    }
  v.within = v.over == 0;
  std::sort(all.begin(), all.end(),
            [](const BoundElement& a, const BoundElement& b) { return a.ratio > b.ratio; });
  all.resize(std::min<std::size_t>(all.size(), static_cast<std::size_t>(std::max(0, q.worst))));
  v.worst = all;
  v.calc_diff = sxx + syy > 0 ? static_cast<double>(1 - 2 * sxy / (sxx + syy)) : 0;
  v.sqnr_db = sdd > 0 ? static_cast<double>(10 * std::log10(syy / sdd)) : INFINITY;
  v.rel_fro = syy > 0 ? static_cast<double>(std::sqrt(sdd / syy)) : (sdd > 0 ? INFINITY : 0);
  return v;
}

std::string BoundVerdict::text() const {
  std::string s;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "against the exact result: calc_diff %.3g, SQNR %.2f dB, ||D - exact||_F / "
                "||exact||_F %.3g\n",
                calc_diff, sqnr_db, rel_fro);
  s += buf;
  if (bit_exact) {
    s += "model's bound: bit-exact to the model\n";
  } else if (within) {
    std::snprintf(buf, sizeof buf,
                  "model's bound: within the model's bound (worst element at %.3g of its bound)\n",
                  worst_ratio);
    s += buf;
  } else {
    std::snprintf(buf, sizeof buf,
                  "model's bound: FAIL, %llu of %llu elements outside the model's bound (worst %.3g "
                  "times its bound)\n",
                  static_cast<unsigned long long>(over), static_cast<unsigned long long>(elements),
                  worst_ratio);
    s += buf;
    for (const BoundElement& e : worst) {
      if (e.ratio <= 1) break;
      std::snprintf(buf, sizeof buf, "  D[%d][%d]: |D - exact| = %.6g, bound %.6g (%.3g times)\n",
                    e.row, e.col, e.error, e.bound, e.ratio);
      s += buf;
    }
  }
  return s;
}

}  // namespace fpconform::validate
