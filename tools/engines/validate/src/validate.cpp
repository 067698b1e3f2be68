#include "fpconform/validate/validate.hpp"

#include <cmath>
#include <span>
#include <vector>

#include <mpfr.h>

#include "fpconform/core/error.hpp"
#include "fpconform/core/parallel_for.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/reference/dot.hpp"
#include "fpconform/validate/model_bound.hpp"

namespace fpconform::validate {

ExactResult exact_gemm(const Matrix& a, const Matrix& b, const Matrix* c, const Format& out,
                       const Rounding& r, unsigned threads) {
  ExactResult res{{a.rows, b.cols, out, {}}, {}};
  const std::size_t n = static_cast<std::size_t>(a.rows) * b.cols;
  res.rounded.codes.resize(n);
  res.value.resize(n);
  threads = resolve_threads(threads, "threads");
  // B's columns, each contiguous: walking a column of a row-major B touches one cache line per
  // product.
  std::vector<std::uint64_t> bt(b.codes.size());
  for (int k = 0; k < b.rows; ++k)
    for (int j = 0; j < b.cols; ++j)
      bt[static_cast<std::size_t>(j) * b.rows + k] = b.at(k, j);
  // One row per index; every element is written by its own index alone.
  parallel_for(static_cast<std::size_t>(a.rows), threads, [&](std::size_t row) {
    const int i = static_cast<int>(row);
    reference::ExactAccumulator acc;
    mpfr_t v;
    mpfr_init2(v, 64);
    for (int j = 0; j < b.cols; ++j) {
      acc.clear();
      acc.add_products(std::span(a.codes).subspan(static_cast<std::size_t>(i) * a.cols,
                                                  static_cast<std::size_t>(a.cols)),
                       a.format, bt.data() + static_cast<std::size_t>(j) * b.rows, 1, b.format);
      if (c) acc.add(c->at(i, j), c->format);
      const std::size_t idx = static_cast<std::size_t>(i) * b.cols + j;
      res.rounded.codes[idx] = acc.round(out, r).bits;
      mpfr_t exact;
      mpfr_init2(exact, 2);
      acc.value(exact);
      mpfr_set(v, exact, MPFR_RNDN);
      mpfr_clear(exact);
      res.value[idx] = mpfr_get_ld(v, MPFR_RNDN);
    }
    mpfr_clear(v);
  });
  return res;
}

namespace {

void check_shapes(const ValidateRequest& q) {
  auto shape = [](const Matrix& m) { return std::to_string(m.rows) + "x" + std::to_string(m.cols); };
  if (q.a.cols != q.b.rows)
    throw Error("--b", "A is " + shape(q.a) + " but B is " + shape(q.b) + " (B needs " +
                           std::to_string(q.a.cols) + " rows)");
  if (q.d.rows != q.a.rows || q.d.cols != q.b.cols)
    throw Error("--d", "D is " + shape(q.d) + " but A.B is " + std::to_string(q.a.rows) + "x" +
                           std::to_string(q.b.cols));
  if (q.c && (q.c->rows != q.d.rows || q.c->cols != q.d.cols))
    throw Error("--c", "C is " + shape(*q.c) + " but D is " + shape(q.d));
  if (!q.model && !q.exact)
    throw Error("--model", "give --model PRESET and/or --reference exact");
}

}  // namespace

ValidateReport validate_kernel(const ValidateRequest& q) {
  check_shapes(q);
  ValidateReport rep;
  if (q.model) {
    if (!(q.model->out == q.d.format))
      throw Error("--out", "D is read as " + q.d.format.name + " but the model writes " +
                               q.model->out.name);
    const Matrix want = gemm(*q.model, q.a, q.b, q.c ? &*q.c : nullptr);
    rep.comparisons.push_back(compare_outputs(q.d, want, "model " + q.model_name, q.worst));
    if (q.model_bound) {
      const ExactResult ex =
          exact_gemm(q.a, q.b, q.c ? &*q.c : nullptr, q.d.format, q.exact_rounding, q.threads);
      rep.bound = check_model_bound(q, want, ex);
    }
  }
  if (q.model_bound && !q.model) throw Error("--tolerance", "model needs --model");
  if (q.exact) {
    const ExactResult ex =
        exact_gemm(q.a, q.b, q.c ? &*q.c : nullptr, q.d.format, q.exact_rounding, q.threads);
    const Format& f = q.d.format;
    auto rel = [&](int r, int c, std::uint64_t got) -> double {
      const long double x = ex.value[static_cast<std::size_t>(r) * q.d.cols + c];
      const double g = code_value(f, got);
      if (std::isnan(g) || std::isnan(static_cast<double>(x))) return std::nan("");
      if (static_cast<long double>(g) == x) return 0;
      if (x == 0 || std::isinf(static_cast<double>(x))) return INFINITY;
      return static_cast<double>(std::fabs((static_cast<long double>(g) - x) / x));
    };
    rep.comparisons.push_back(compare_outputs(
        q.d, ex.rounded,
        std::string("exact (correctly rounded, ") + std::string(to_string(q.exact_rounding.mode)) + ")",
        q.worst, rel));
  }
  rep.pass = within(rep.comparisons.front(), q.max_ulp, q.max_rel);
  if (rep.bound) {
    rep.pass = rep.bound->bit_exact || rep.bound->within;
    rep.tolerance = "the model's bound";
  } else if (q.max_ulp < 0 && q.max_rel < 0) {
    rep.tolerance = "bit-exact";
  } else {
    if (q.max_ulp >= 0) {
      // Printed from the double: no integer conversion to overflow on a huge limit.
      char buf[64];
      std::snprintf(buf, sizeof buf, q.max_ulp == std::floor(q.max_ulp) && q.max_ulp < 1e19 ? "max %.0f ulp" : "max %.17g ulp",
                    q.max_ulp);
      rep.tolerance = buf;
    }
    if (q.max_rel >= 0) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "max relative error %.3g", q.max_rel);
      rep.tolerance += (rep.tolerance.empty() ? "" : ", ") + std::string(buf);
    }
  }
  return rep;
}

}  // namespace fpconform::validate
