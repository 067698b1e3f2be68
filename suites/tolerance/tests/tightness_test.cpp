// The bound is tight: for every preset (every output format it accepts) an input reaches at
// least half of it. How the input is built: one large term 2^E (a product, or C) and every
// other leaf either zero or a value just below 2^(E - j) for the grid exponents j the model
// has (its alignment F, the accumulator's fraction bits, the e8m13 cut, the late-C grids), of
// either sign. So for a truncating fused block the search finds 2^E plus L - 1 terms just
// under 2^(E - F) of one sign, each losing almost a full unit of 2^(E - F) (the bound counts
// L of them); for an RZ output a sum just under a representable value (2^E minus a little);
// for a chain of RNE roundings (fma chain, pairwise, AMX tree) the large term at the deepest
// leaf and, beside it at each node of its path, a term just under half an ulp, so that every
// node rounds back down and loses u |sum|. The leaves are chosen greedily (each leaf in turn
// takes the candidate that raises error / bound the most); the error comes from the MPFR/GMP
// oracle, the bound from bound.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <set>

#include "fpconform/convert.hpp"
#include "fpconform/error.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/sum_tree.hpp"
#include "fpconform/tolerance/bound.hpp"
#include "oracle_util.hpp"

namespace fpconform::tolerance {
namespace {

using test::code_of;
using test::oracle_error;

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
  double ratio(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
               std::uint64_t c, double* err_out = nullptr) const {
    std::uint64_t d;
    try {
      d = fdpa(p, in, out, a, b, c);
    } catch (const Error&) {
      return 0;
    }
    if (out.is_nan_code(d) || out.is_inf_code(d)) return 0;
    const test::OracleError oe = oracle_error(in, a, b, out, c, out, d);
    if (oe.overflow) return 0;
    double s, sf;
    magnitudes(bound, a.data(), 1, b.data(), 1, a.size(), c, true, s, sf);
    const double bd = bound.at(s, sf, to_double(d, out));
    if (err_out) *err_out = oe.err;
    return bd > 0 ? oe.err / bd : 0;
  }
};

int unit_k(const FdpaParams& p) {
  switch (p.structure) {
    case FdpaStructure::tree: return product_count(parse_sum_tree(p.tree));
    case FdpaStructure::fused: return p.instr_k > 0 ? p.instr_k : std::max(1, p.block);
    case FdpaStructure::pairwise: return 2 * std::max(1, p.block);
    case FdpaStructure::exact: return p.block > 0 ? p.block : 8;
    case FdpaStructure::sequential: return 8;
  }
  return 8;
}

double tightest(const FdpaParams& p, const Format& in, const Format& out, int k) {
  const Bound bound = model_bound(p, in, out, k);
  const Probe probe{p, in, out, bound};
  std::set<int> grids{out.man_bits, out.man_bits + 1, out.man_bits + 2};
  if (p.structure == FdpaStructure::fused) {
    for (int j : {p.frac_bits - 1, p.frac_bits, p.frac_bits + 1}) grids.insert(j);
    if (p.acc_frac_bits >= 0) grids.insert({p.acc_frac_bits, p.acc_frac_bits + 1});
    if (p.late_c) grids.insert({p.late_sum_frac_bits, p.late_c_frac_bits});
  }
  double best = 0;
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
      double r = probe.ratio(a, b, c);
      for (int pass = 0; pass < 2; ++pass) {
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
      best = std::max(best, r);
    }
  }
  return best;
}

TEST(ToleranceTightness, EveryPresetReachesHalfItsBound) {
  int pairs = 0, loose = 0;
  double least = 1;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    for (const char* out_name : {"f32", "f16", "bf16", "f64"}) {
      const Format out = parse_format(out_name);
      FdpaParams p;
      try {
        p = find_matrix_unit(e.preset, in, out);
      } catch (const Error&) {
        continue;
      }
      ++pairs;
      const int k = unit_k(p);
      const double r = tightest(p, in, out, k);
      least = std::min(least, r);
      std::printf("  %-18s %-9s -> %-4s K = %-3d error/bound reached %.4f\n",
                  std::string(e.preset).c_str(), std::string(e.input).c_str(), out_name, k, r);
      EXPECT_GE(r, 0.5) << e.preset << " " << e.input << " -> " << out_name;
      EXPECT_LE(r, 1.0);
      if (r < 0.5) ++loose;
    }
  }
  std::printf("%d preset/output pairs, least error/bound reached %.4f, %d below 1/2\n", pairs,
              least, loose);
}

}  // namespace
}  // namespace fpconform::tolerance

namespace fpconform::tolerance {
namespace {

// Over several chained steps the bound adds every step's loss (each step's result is the next
// C): the same construction reaches half of it there too.
TEST(ToleranceTightness, ChainedStepsReachHalfTheirBound) {
  struct Case { const char* preset; const char* in; const char* out; int k; };
  const Case cases[] = {
      {"hopper", "e4m3", "f32", 96},  {"volta", "f16", "f32", 16},
      {"ampere", "bf16", "f16", 24},  {"cdna1", "f16", "f32", 16},
      {"cdna3", "f16", "f32", 24},    {"x86-amx-bf16", "bf16", "f32", 64},
      {"fp32-sequential", "bf16", "f32", 32}, {"cdna1-km", "f16", "f32", 12},
  };
  for (const Case& cs : cases) {
    const Format in = parse_format(cs.in), out = parse_format(cs.out);
    const FdpaParams p = find_matrix_unit(cs.preset, in, out);
    const double r = tightest(p, in, out, cs.k);
    std::printf("  %-16s %-5s -> %-4s K = %-3d error/bound reached %.4f\n", cs.preset, cs.in,
                cs.out, cs.k, r);
    EXPECT_GE(r, 0.5) << cs.preset << " K = " << cs.k;
    EXPECT_LE(r, 1.0);
  }
}

}  // namespace
}  // namespace fpconform::tolerance
