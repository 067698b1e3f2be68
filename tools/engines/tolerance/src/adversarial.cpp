#include "fpconform/tolerance/adversarial.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/exact.hpp"

namespace fpconform::tolerance {

std::uint64_t code_of(double v, const Format& f, RoundingMode m) {
  if (v == 0) return 0;
  int e = 0;
  const double fr = std::frexp(std::fabs(v), &e);
  const auto sig = static_cast<u128>(std::ldexp(fr, 53));
  Rounding r;
  r.mode = m;
  r.sat = Saturation::finite;
  return round_to_format(ExactValue::finite(v < 0, sig, e - 53), f, r).bits;
}

namespace {

struct Pair {
  std::uint64_t a = 0, b = 0;
  double v = 0;
};

// Codes a, b > 0 of `in` with a * b as large as possible but <= target.
Pair product_below(const Format& in, double target) {
  Pair best;
  if (in.width() <= 8) {
    for (std::uint64_t x = 0; x <= in.magnitude_mask(); ++x)
      for (std::uint64_t y = 0; y <= in.magnitude_mask(); ++y) {
        if (in.is_nan_code(x) || in.is_inf_code(x) || in.is_nan_code(y) || in.is_inf_code(y) ||
            in.is_reserved_code(x) || in.is_reserved_code(y))
          continue;
        const double v = to_double(x, in) * to_double(y, in);
        if (v <= target && v > best.v) best = {x, y, v};
      }
    return best;
  }
  for (int eb = in.emin() - in.man_bits; eb <= in.emax(); ++eb) {
    const std::uint64_t b = code_of(std::ldexp(1.0, eb), in);
    if (to_double(b, in) != std::ldexp(1.0, eb)) continue;
    const std::uint64_t a = code_of(target / std::ldexp(1.0, eb), in, RoundingMode::rtz);
    if (in.is_nan_code(a) || in.is_inf_code(a)) continue;
    const double v = to_double(a, in) * std::ldexp(1.0, eb);
    if (v <= target && v > best.v) best = {a, b, v};
  }
  return best;
}

struct Probe {
  const FdpaParams& p;
  const Format& in;
  const Format& out;
  const Bound& bound;
  const ErrorOf& error;
  // error / bound of one input (0 where there is no bound: an overflow, a special, a refusal).
  double ratio(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
               std::uint64_t c, Adversarial* keep = nullptr) const {
    std::uint64_t d;
    try {
      d = fdpa(p, in, out, a, b, c);
    } catch (const Error&) {
      return 0;
    }
    if (out.is_nan_code(d) || out.is_inf_code(d)) return 0;
    const std::optional<double> e = error(a, b, c, d);
    if (!e) return 0;
    double s, sf;
    magnitudes(bound, a.data(), 1, b.data(), 1, a.size(), c, true, s, sf);
    const double bd = bound.at(s, sf, to_double(d, out));
    const double r = bd > 0 ? *e / bd : 0;
    if (keep) {
      keep->a = a;
      keep->b = b;
      keep->c = c;
      keep->d = d;
      keep->err = *e;
      keep->bound = bd;
      keep->ratio = r;
    }
    return r;
  }
};

}  // namespace

Adversarial adversarial_input(const FdpaParams& p, const Format& in, const Format& out, int k,
                              const ErrorOf& err, int passes) {
  const Bound bound = model_bound(p, in, out, k);
  const Probe probe{p, in, out, bound, err};
  std::set<int> grids{out.man_bits, out.man_bits + 1, out.man_bits + 2};
  if (p.structure == FdpaStructure::fused) {
    for (int j : {p.frac_bits - 1, p.frac_bits, p.frac_bits + 1}) grids.insert(j);
    if (p.acc_frac_bits >= 0) grids.insert({p.acc_frac_bits, p.acc_frac_bits + 1});
    if (p.late_c) grids.insert({p.late_sum_frac_bits, p.late_c_frac_bits});
  }
  Adversarial best;
  const int e_hi = std::min(2 * in.emax(), out.emax() - 8);
  // A large C may sit far above the largest product: so high that the products fall to the
  // grids below it (coarse formats such as e2m1 reach no grid otherwise).
  std::set<int> exps{e_hi, e_hi - 5, std::min(e_hi, 12)};
  for (int j : grids)
    if (j + e_hi + 2 <= out.emax() - 2) exps.insert(j + e_hi + 2);
  for (int E : exps) {
    const Pair big = product_below(in, std::ldexp(1.0, E));
    if (big.v == 0) continue;
    const double bigv = E > e_hi ? std::ldexp(1.0, E) : big.v;  // above e_hi only C is large
    std::vector<Pair> cand{{0, 0, 0}};
    std::vector<std::uint64_t> ccand{0};
    for (int j : grids) {
      const double t = std::ldexp(bigv, -j);
      const Pair q = product_below(in, t * (1 - 1e-9));
      if (q.v > 0) {
        cand.push_back(q);
        cand.push_back({q.a ^ in.sign_mask(), q.b, -q.v});
      }
      for (double f : {1 - 1e-9, 1.0}) {
        const std::uint64_t c = code_of(t * f, out, RoundingMode::rtz);
        ccand.push_back(c);
        ccand.push_back(c ^ out.sign_mask());
      }
    }
    const std::uint64_t cbig = code_of(bigv, out);
    for (int where : {-1, 0, k - 1}) {  // -1: C is the large term
      if (E > e_hi && where >= 0) continue;
      std::vector<std::uint64_t> a(k, 0), b(k, 0);
      std::uint64_t c = 0;
      if (where < 0) {
        if (to_double(cbig, out) != bigv) continue;
        c = cbig;
      } else {
        a[where] = big.a;
        b[where] = big.b;
      }
      Adversarial here;
      here.where = where < 0 ? -1 : where == 0 ? 0 : 1;
      double r = probe.ratio(a, b, c, &here);
      if (passes == 0) {
        Pair fill{0, 0, 0};
        for (const Pair& x : cand) {
          for (int i = 0; i < k; ++i)
            if (i != where) a[i] = x.a, b[i] = x.b;
          Adversarial t;
          const double q = probe.ratio(a, b, c, &t);
          if (q > r) r = q, fill = x, here = t;
        }
        for (int i = 0; i < k; ++i)
          if (i != where) a[i] = fill.a, b[i] = fill.b;
        if (where >= 0)
          for (std::uint64_t x : ccand) {
            Adversarial t;
            const double q = probe.ratio(a, b, x, &t);
            if (q > r) r = q, here = t;
          }
        here.where = where < 0 ? -1 : where == 0 ? 0 : 1;
        here.fill_a = fill.a;
        here.fill_b = fill.b;
      }
      for (int pass = 0; pass < passes; ++pass) {
        for (int i = -1; i < k; ++i) {
          if (i == where) continue;
          if (i < 0) {
            std::uint64_t keep = c;
            for (std::uint64_t x : ccand) {
              const double q = probe.ratio(a, b, x);
              if (q > r) r = q, keep = x;
            }
            c = keep;
          } else {
            Pair keep{a[i], b[i], 0};
            for (const Pair& x : cand) {
              a[i] = x.a;
              b[i] = x.b;
              const double q = probe.ratio(a, b, c);
              if (q > r) r = q, keep = x;
            }
            a[i] = keep.a;
            b[i] = keep.b;
          }
        }
      }
      if (passes > 0) probe.ratio(a, b, c, &here);
      if (here.ratio > best.ratio || best.a.empty()) best = here;
    }
  }
  return best;
}

Adversarial stretch(const Adversarial& pattern, const FdpaParams& p, const Format& in,
                    const Format& out, int k, const ErrorOf& err) {
  if (pattern.a.empty()) return pattern;
  const Bound bound = model_bound(p, in, out, k);
  const Probe probe{p, in, out, bound, err};
  const int big = pattern.where < 0 ? -1 : pattern.where == 0 ? 0 : k - 1;
  const std::size_t from = pattern.where == 0 ? 0 : pattern.a.size() - 1;
  std::vector<std::uint64_t> a(k, pattern.fill_a), b(k, pattern.fill_b);
  if (big >= 0) a[big] = pattern.a[from], b[big] = pattern.b[from];
  Adversarial r = pattern;
  if (probe.ratio(a, b, pattern.c, &r) == 0 && r.a.size() != a.size()) {
    r.a = a, r.b = b, r.err = r.bound = r.ratio = 0;
  }
  return r;
}

}  // namespace fpconform::tolerance
