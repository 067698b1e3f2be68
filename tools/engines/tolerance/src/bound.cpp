// The bound of bound.hpp, node by node along the structure the model runs (fdpa.hpp), so that
// every rounding and cut the model makes appears once in the derivation.
#include "fpconform/tolerance/bound.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/sum_tree.hpp"

namespace fpconform::tolerance {

namespace {

// err <= a S_v + b for the value v; |v| <= (1 + a) S_v + b.
// long double: f64 units' floors (2^-1075) are below double's range.
using real = long double;
struct AB {
  real a = 0, b = 0;
};
AB sum(AB x, AB y) { return {std::max(x.a, y.a), x.b + y.b}; }

real pow2(int e) { return std::ldexp(static_cast<real>(1), e); }

// v as a double no smaller than v.
double up(real v) {
  double d = static_cast<double>(v);
  if (static_cast<real>(d) < v) d = std::nextafter(d, INFINITY);
  return d;
}

bool nearest(RoundingMode m) { return m == RoundingMode::rne || m == RoundingMode::rna; }

const char* mode_name(RoundingMode m) {
  switch (m) {
    case RoundingMode::rne: return "RNE";
    case RoundingMode::rna: return "RNA";
    case RoundingMode::rtz: return "RZ";
    case RoundingMode::up: return "RU";
    case RoundingMode::down: return "RD";
    case RoundingMode::odd: return "RO";
    default: return "stochastic";
  }
}

// One rounding onto t fraction bits with exponents down to emin: nearest loses half an ulp,
// every other mode (directed, odd, stochastic) less than one. With ftz a result below 2^emin
// becomes zero: at most 2^emin (1 + 2^-t) more.
struct Rnd {
  bool exact = false;
  std::string name;
  real u = 0, eta = 0;  // as an intermediate step
  real rho = 0;         // as the last step: rho ulp_t(D)
  int t = 0, emin = 0;
  real floor = 0;           // as the last step: the flush floor
};

Rnd rounding_into(int t, int emin, RoundingMode m, bool ftz, const std::string& what) {
  Rnd r;
  const bool n = nearest(m);
  r.name = what + " (" + mode_name(m) + (ftz ? ", FTZ" : "") + ")";
  r.u = n ? pow2(-t - 1) : pow2(-t);
  r.eta = n ? pow2(emin - t - 1) : pow2(emin - t);
  r.rho = n ? 0.5 : 1.0;
  r.t = t;
  r.emin = emin;
  if (ftz) {
    r.floor = pow2(emin) * (1 + pow2(-t));
    r.eta += r.floor;
  }
  return r;
}

Rnd rounding_into(const Format& f, RoundingMode m, bool ftz, const std::string& what) {
  return rounding_into(f.man_bits, f.emin(), m, ftz, what + " " + f.name);
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

class Eval {
 public:
  Eval(const FdpaParams& p, const Format& in, const Format& acc) : p_(p), in_(in), acc_(acc) {}

  std::vector<LossRow> rows;

  // The value after an intermediate rounding.
  AB apply(AB x, const Rnd& r) {
    if (r.exact) return x;
    note(r.name, "u = " + num(static_cast<double>(r.u)) + " of |v|, " + num(static_cast<double>(r.eta)) + " below 2^emin", r.u, r.eta);
    return {x.a + r.u * (1 + x.a), (1 + r.u) * x.b + r.eta};
  }

  // A cut of the terms below v to a grid of lam_per_S * 2^E with 2^E <= |v| bound + z.
  AB cut(AB x, real lam, real floor, const std::string& name, const std::string& loses) {
    if (lam == 0 && floor == 0) return x;
    note(name, loses, lam, floor);
    return {x.a + lam * (1 + x.a), x.b + lam * x.b + floor};
  }

  struct State {
    AB pre;
    Rnd last;
  };
  AB post(const State& s) { return apply(s.pre, s.last); }

  // The unit over k products starting from C with error c.
  State unit(int k, AB c) {
    switch (p_.structure) {
      case FdpaStructure::fused: return fused(k, c);
      case FdpaStructure::exact: return exact(k, c);
      case FdpaStructure::sequential: return sequential(k, c);
      case FdpaStructure::pairwise: return pairwise(k, c);
      case FdpaStructure::tree: return tree(k, c);
    }
    throw Error("structure", "unknown structure");
  }

  Rnd out_rounding(const std::string& what) const {
    return rounding_into(acc_, p_.out_rounding.mode, p_.flush_subnormal_outputs, what);
  }

 private:
  const FdpaParams& p_;
  const Format& in_;
  const Format& acc_;

  void note(const std::string& name, const std::string& loses, real rel, real abs) {
    for (LossRow& r : rows)
      if (r.node == name) {
        ++r.count;
        r.rel = std::max(r.rel, up(rel));
        r.abs = std::max(r.abs, up(abs));
        return;
      }
    rows.push_back({name, 1, loses, up(rel), up(abs)});
  }

  // A product a*b computed in acc on its own (fma(a, b, +0)), or a product leaf that a tree
  // may round alone: only what acc cannot hold of it is lost.
  AB product_leaf() {
    const bool wide = 2 * in_.precision() > acc_.precision();
    const bool low = 2 * (in_.emin() - in_.man_bits) < acc_.emin() - acc_.man_bits;
    const bool tiny = p_.flush_subnormal_outputs && 2 * (in_.emin() - in_.man_bits) < acc_.emin();
    Rnd r = out_rounding("a product rounded alone into");
    const real ftz = r.floor;
    r.u = wide ? r.u : 0;
    r.eta = (low ? r.eta - ftz : 0) + (tiny ? ftz : 0);
    if (r.u == 0 && r.eta == 0) return AB{};
    return apply(AB{}, r);
  }

  // ---- fused ----
  State fused_step(int np, AB c, bool last_of_unit) {
    (void)last_of_unit;
    const int F = p_.frac_bits;
    const real unit = p_.align == AlignRounding::nearest_even ? 0.5 : 1.0;
    const bool c_in = p_.c_in_block;
    const int nterms = p_.subsum > 0 ? (np + p_.subsum - 1) / p_.subsum : np;
    // What 2^E may exceed max |term| by: the zero terms' exponent, and with sub-sums the
    // scales' exponent (0 under unit scales) that a sub-sum carries instead of its own.
    real zfloor = 0;
    if (p_.zero_exp != INT_MIN) zfloor += pow2(p_.zero_exp);
    if (p_.subsum > 0) zfloor += 1;
    // A subnormal C (the previous step's result included) carries the exponent emin, not
    // its magnitude.
    if (c_in || p_.late_c) zfloor += pow2(acc_.emin());
    // The term(s) at exponent E itself fit the grid when their fraction bits do (products of
    // two m-bit significands have 2m, C has acc's), so one fewer term loses.
    const bool exempt = p_.subsum == 0 && 2 * in_.man_bits <= F && (!c_in || acc_.man_bits <= F);
    const std::string align_name = std::string("alignment cut to 2^(E-F), F = ") +
                                   std::to_string(F) + (unit < 1 ? " (nearest)" : " (toward zero)");
    AB x;
    if (p_.interleave <= 1) {
      const int n = nterms + (c_in ? 1 : 0);
      const int lossy = std::max(0, n - (exempt ? 1 : 0));
      x = cut(c_in ? c : AB{}, lossy * unit * pow2(-F), n * unit * zfloor * pow2(-F),
              align_name, "each term < 1 unit of 2^(E-F), 2^E <= max |term|: " +
                               std::to_string(lossy) + " of " + std::to_string(n) + " terms");
      if (p_.carry_bits >= 0)
        x = apply(x, Rnd{false, "carry cut, top F+1+" + std::to_string(p_.carry_bits) + " bits",
                         pow2(-(F + p_.carry_bits)), 0, 1, F + p_.carry_bits, 0, 0});
      if (!c_in && !p_.late_c) x = sum(x, c);
    } else {
      const int G = p_.interleave;
      const int ng = (nterms + G - 1) / G;
      const int lossy = std::max(0, ng - (exempt ? 1 : 0));
      x = cut(AB{}, lossy * unit * pow2(-F), nterms * unit * zfloor * pow2(-F),
              align_name + ", " + std::to_string(G) + " interleaved groups",
              "per group: each term < 1 unit of 2^(E_g-F)");
      if (p_.carry_bits >= 0)
        x = apply(x, Rnd{false, "carry cut, top F+1+" + std::to_string(p_.carry_bits) + " bits",
                         pow2(-(F + p_.carry_bits)), 0, 1, F + p_.carry_bits, 0, 0});
      const real gu = p_.group_align == AlignRounding::nearest_even ? 0.5 : 1.0;
      x = cut(x, (G - 1) * gu * pow2(-F), (G - 1) * gu * zfloor * pow2(-F),
              "group sums cut to 2^(E_s-F)", "each group below E_s < 1 unit of 2^(E_s-F)");
      if (!p_.late_c) x = sum(x, c);
    }
    if (p_.late_c) {
      x = sum(x, c);
      const real lu = p_.late_align == AlignRounding::nearest_even ? 0.5 : 1.0;
      real cl = lu * pow2(-p_.late_c_frac_bits);
      if (p_.late_c_drop_below >= 0) cl = std::max(cl, pow2(-p_.late_c_drop_below));
      const real lam = lu * pow2(-p_.late_sum_frac_bits) + cl;
      x = cut(x, lam, lam * zfloor, "late C: sum cut to 2^(E-" +
                                        std::to_string(p_.late_sum_frac_bits) + "), C to 2^(E-" +
                                        std::to_string(p_.late_c_frac_bits) + ")" +
                                        (p_.late_c_drop_below >= 0 ? " or dropped" : ""),
              "E = max(E_s, e_c), 2^E <= max(|sum terms|, |C|)");
    }
    State s;
    const Rnd outr = out_rounding("block result into");
    if (p_.acc_frac_bits >= 0) {
      const Rnd cutr = rounding_into(p_.acc_frac_bits, acc_.emin(), RoundingMode::rtz,
                                     p_.flush_subnormal_outputs,
                                     "accumulator cut to " + std::to_string(p_.acc_frac_bits) +
                                         " fraction bits");
      if (p_.acc_frac_bits <= acc_.man_bits) {
        s.pre = x;
        s.last = cutr;  // then exact in acc
      } else {
        s.pre = apply(x, cutr);
        s.last = outr;
      }
    } else {
      s.pre = x;
      s.last = outr;
    }
    return s;
  }

  State fused(int k, AB c) {
    const int L = std::max(1, p_.block);
    const int ik = p_.instr_k > 0 ? p_.instr_k : k;
    State s;
    bool have = false;
    AB cur = c;
    for (int j0 = 0; j0 < k; j0 += ik) {
      const int m = std::min(ik, k - j0);
      if (have) cur = post(s);
      // k_order only permutes which products share a block, not how many.
      AB t = p_.c_last ? AB{} : cur;
      State b;
      for (int b0 = 0; b0 < m; b0 += L) {
        if (b0 > 0) t = post(b);
        b = fused_step(std::min(L, m - b0), t, false);
      }
      if (p_.c_last) {
        const Rnd add = rounding_into(acc_, RoundingMode::rne, false, "C added last (IEEE add) in");
        b.pre = sum(post(b), cur);
        b.last = add;
      }
      s = b;
      have = true;
    }
    if (!have) throw Error("--k", "K must be at least 1");
    return s;
  }

  // ---- exact: per block the exact sum, one rounding ----
  State exact(int k, AB c) {
    const int L = p_.block > 0 ? p_.block : k;
    State s;
    AB cur = c;
    for (int b0 = 0; b0 < k; b0 += L) {
      if (b0 > 0) cur = post(s);
      s.pre = cur;  // products exact
      s.last = out_rounding("exact block sum rounded into");
    }
    return s;
  }

  // ---- sequential: fma chain ----
  State sequential(int k, AB c) {
    State s;
    AB cur = c;
    const Rnd r = out_rounding("fma into");
    for (int i = 0; i < k; ++i) {
      if (i > 0) cur = post(s);
      s.pre = cur;
      s.last = r;
    }
    return s;
  }

  // ---- pairwise: per group a balanced tree of additions of fma(a, b, +0), then sum += ----
  AB balanced(int n, const Rnd& r) {
    if (n == 1) return product_leaf();
    const AB l = balanced(n / 2, r), rr = balanced(n - n / 2, r);
    return apply(sum(l, rr), r);
  }
  State pairwise(int k, AB c) {
    const int L = std::max(1, p_.block);
    const Rnd r = out_rounding("addition in");
    State s;
    AB cur = c;
    for (int g0 = 0; g0 < k; g0 += L) {
      if (g0 > 0) cur = post(s);
      const AB g = balanced(std::min(L, k - g0), r);
      s.pre = sum(cur, g);
      s.last = r;
    }
    return s;
  }

  // ---- tree: SumTree of rounding nodes, chained per instruction ----
  AB node(const SumTree& t, AB c, const Rnd& r, bool root, State* out) {
    if (t.is_c()) return c;
    if (t.is_leaf()) return product_leaf();
    AB x;
    for (const SumTree& ch : t.children()) x = sum(x, node(ch, c, r, false, nullptr));
    if (root) {
      out->pre = x;
      out->last = r;  // an exact root's sum is still rounded into acc as D
      return x;
    }
    return t.exact() ? x : apply(x, r);
  }
  State tree(int k, AB c) {
    const SumTree instr = parse_sum_tree(p_.tree, "tree");
    const int n = product_count(instr);
    if (n < 1) throw Error("tree", "the tree has no product leaves");
    const Rnd r = out_rounding("tree node into");
    State s;
    AB cur = c;
    for (int j0 = 0; j0 < k; j0 += n) {
      if (j0 > 0) cur = post(s);
      const int m = std::min(n, k - j0);
      const SumTree t = m == n ? instr : chain_instructions(instr, m);
      // A node left with one child rounds it alone: product_leaf covers a lone product, and a
      // lone C or node result is already a value of acc.
      if (t.is_leaf()) {
        s.pre = t.is_c() ? cur : product_leaf();
        s.last = r;
      } else {
        node(t, cur, r, true, &s);
      }
    }
    return s;
  }
};

void finish(Bound& b, const Eval::State& s, std::vector<LossRow> rows) {
  const real inflate = 1 + pow2(-40);  // the rounding of the recurrences above
  b.alpha = up(s.pre.a * inflate);
  b.beta = up((s.pre.b + (s.last.exact ? 0 : s.last.floor)) * inflate);
  if (!s.last.exact) {
    b.ulp_factor = up(s.last.rho);
    b.ulp_frac_bits = s.last.t;
    b.ulp_emin = s.last.emin;
    rows.push_back({"last rounding: " + s.last.name, 1,
                    num(static_cast<double>(s.last.rho)) + " ulp(D) with " + std::to_string(s.last.t) +
                        " fraction bits" + (s.last.floor > 0 ? ", flush floor" : ""),
                    0, up(s.last.floor)});
  }
  b.derivation = std::move(rows);
}

const Format& f32() {
  static const Format f = parse_format("f32");
  return f;
}

}  // namespace

double Bound::ulp_of(double d) const {
  const double m = std::fabs(d);
  const int e = m == 0 ? ulp_emin : std::max(std::ilogb(m), ulp_emin);
  return up(pow2(e - ulp_frac_bits));
}

double Bound::at(double s, double s_flushed, double d) const {
  if (!std::isfinite(d)) return INFINITY;
  const double m = std::fabs(d);
  if (saturates_at > 0 && m >= saturates_at) return INFINITY;
  const int e = m == 0 ? ulp_emin : std::max(std::ilogb(m), ulp_emin);
  const real r = static_cast<real>(alpha) * s + s_flushed +
                 (ulp_factor > 0 ? ulp_factor * pow2(e - ulp_frac_bits) : 0) + beta;
  return up(r * (1 + pow2(-50)));
}

double gamma_k(long long k, double u) {
  const double ku = static_cast<double>(k) * u;
  return ku < 1 ? ku / (1 - ku) : INFINITY;
}

Bound model_bound(const FdpaParams& unit, const Format& in, const Format& acc, int k,
                  const GemmShape& g, const Format* out, const Rounding* out_rounding) {
  if (k < 1) throw Error("--k", "K must be at least 1");
  if (unit.product_bits >= 0)
    throw Error("product_bits", "no bound is derived here for products rounded inside the unit");
  if (g.split_k < 1 || g.split_k > k) throw Error("--split-k", "must be 1..K");
  if (g.promote_every < 0) throw Error("--promote", "must be 0 (off) or a group size");
  if (g.promote_every > 0 && g.split_k != 1)
    throw Error("--split-k", "split-K with promotion is not modelled");
  if (unit.structure == FdpaStructure::tree && unit.tree.empty())
    throw Error("tree", "the tree structure needs a tree");
  Bound b;
  b.in_format = in;
  b.c_format = acc;
  b.subnormals_at_min_normal = unit.structure == FdpaStructure::fused;
  b.flushes_inputs = unit.flush_subnormal_inputs;
  Eval ev(unit, in, acc);
  using State = Eval::State;
  const bool promote = g.promote_every > 0;
  const Format& accf = promote ? f32() : acc;
  if (promote && !holds_exactly(acc, f32()))
    throw Error("--promote", "promotion converts the unit's " + acc.name +
                                 " results to f32, which cannot hold them exactly");
  const Rnd add = rounding_into(accf, RoundingMode::rne, false, "IEEE addition in");
  const AB c_leaf{};
  State s;
  if (promote) {
    AB run = g.c_in_epilogue ? AB{} : c_leaf;
    bool first = true;
    for (int g0 = 0; g0 < k; g0 += g.promote_every) {
      const State u = ev.unit(std::min(g.promote_every, k - g0), AB{});
      const AB partial = ev.post(u);  // to f32 exactly; times a unit scale exactly
      if (!first) run = ev.post(s);
      s.pre = sum(run, partial);
      s.last = rounding_into(f32(), RoundingMode::rne, false, "promotion fma into");
      first = false;
    }
  } else if (g.split_k > 1) {
    std::vector<AB> parts;
    for (int i = 0; i < g.split_k; ++i) {
      const int k0 = static_cast<int>(static_cast<long long>(k) * i / g.split_k);
      const int k1 = static_cast<int>(static_cast<long long>(k) * (i + 1) / g.split_k);
      parts.push_back(ev.post(ev.unit(k1 - k0, AB{})));
    }
    const AB start = g.c_in_epilogue ? AB{} : c_leaf;
    if (g.reduction == SplitReduction::sequential) {
      AB v = start;
      for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) v = ev.post(s);
        s.pre = sum(v, parts[i]);
        s.last = add;
      }
    } else {
      while (parts.size() > 1) {
        std::vector<AB> next;
        for (std::size_t t = 0; t + 1 < parts.size(); t += 2)
          next.push_back(ev.apply(sum(parts[t], parts[t + 1]), add));
        if (parts.size() % 2) next.push_back(parts.back());
        parts.swap(next);
      }
      s.pre = sum(start, parts[0]);
      s.last = add;
    }
  } else {
    s = ev.unit(k, g.c_in_epilogue ? AB{} : c_leaf);
  }
  if (g.c_in_epilogue) {
    s.pre = sum(ev.post(s), c_leaf);
    s.last = add;
  }
  std::string what = model_text(unit);
  if (out && !(*out == accf)) {
    const Rounding r = out_rounding ? *out_rounding : Rounding{};
    if (holds_exactly(accf, *out)) {
      // The conversion is exact.
    } else {
      s.pre = ev.post(s);
      s.last = rounding_into(*out, r.mode, false, "conversion of D into");
    }
  }
  b.model = what + " " + in.name + " -> " + acc.name + ", K = " + std::to_string(k);
  const Format& dformat = out ? *out : accf;
  b.saturates_at = to_double(dformat.max_finite_code(), dformat);
  finish(b, s, ev.rows);
  return b;
}

Bound correctly_rounded_bound(const Format& in, const Format& out, const Rounding& r, int k) {
  Bound b;
  b.in_format = in;
  b.c_format = out;
  Eval::State s;
  s.last = rounding_into(out, r.mode, false, "the exact sum rounded once into");
  b.saturates_at = to_double(out.max_finite_code(), out);
  finish(b, s, {});
  b.model = "exact " + in.name + " -> " + out.name + ", K = " + std::to_string(k);
  return b;
}

Bound fp32_chain_bound(const Format& in, int k) {
  FdpaParams p;
  p.structure = FdpaStructure::sequential;
  p.c_in_block = false;
  p.out_rounding = Rounding{RoundingMode::rne};
  if (!holds_exactly(in, f32()))
    throw Error("--in", "an fp32 fma chain cannot hold every " + in.name + " value exactly");
  Bound b = model_bound(p, in, f32(), k);
  b.model = "fp32 fma chain " + in.name + " -> f32, K = " + std::to_string(k);
  return b;
}

Bound bound_for(std::string_view model, const Format& in, const Format& acc, int k,
                const GemmShape& g) {
  const FdpaParams p = parse_model(model, in, acc);
  Bound b = model_bound(p, in, acc, k, g);
  b.model = std::string(model) + " " + in.name + " -> " + acc.name + ", K = " + std::to_string(k);
  return b;
}

void magnitudes(const Bound& bound, const std::uint64_t* a, std::size_t a_stride,
                const std::uint64_t* b, std::size_t b_stride, std::size_t k, std::uint64_t c,
                bool has_c, double& s, double& s_flushed) {
  const Format& in = bound.in_format;
  const Format& cf = bound.c_format;
  const real in_min = pow2(in.emin()), c_min = pow2(cf.emin());
  auto mag = [&](std::uint64_t code, const Format& f, real mn, bool& sub) {
    const real v = std::fabs(static_cast<real>(to_double(code, f)));
    sub = v != 0 && v < mn;
    return sub && bound.subnormals_at_min_normal ? mn : v;
  };
  real sum = 0, fl = 0;
  for (std::size_t i = 0; i < k; ++i) {
    bool sa = false, sb = false;
    const real x = mag(a[i * a_stride], in, in_min, sa), y = mag(b[i * b_stride], in, in_min, sb);
    if (bound.flushes_inputs && (sa || sb)) fl += x * y;
    else sum += x * y;
  }
  if (has_c) {
    bool sc = false;
    const real v = mag(c, cf, c_min, sc);
    if (bound.flushes_inputs && sc) fl += v;
    else sum += v;
  }
  // Upper bounds on the exact sums: each product and addition in long double loses at most
  // 2^-64 (the long double range holds every product of f64 values).
  const real grow = 1 + static_cast<real>(2 * k + 4) * pow2(-63);
  s = up(sum * grow);
  s_flushed = up(fl * grow);
}

std::vector<double> elementwise_bounds(const Bound& bound, const Matrix& a, const Matrix& b,
                                       const Matrix* c, const Matrix& d) {
  if (a.cols != b.rows) throw Error("--b", "A's columns and B's rows differ");
  if (d.rows != a.rows || d.cols != b.cols) throw Error("--d", "D must be M x N");
  std::vector<double> out(static_cast<std::size_t>(d.rows) * d.cols);
  for (int i = 0; i < d.rows; ++i)
    for (int j = 0; j < d.cols; ++j) {
      double s = 0, sf = 0;
      magnitudes(bound, a.codes.data() + static_cast<std::size_t>(i) * a.cols, 1,
                 b.codes.data() + j, static_cast<std::size_t>(b.cols), static_cast<std::size_t>(a.cols),
                 c ? c->at(i, j) : 0, c != nullptr, s, sf);
      out[static_cast<std::size_t>(i) * d.cols + j] = bound.at(s, sf, to_double(d.at(i, j), d.format));
    }
  return out;
}

std::vector<double> elementwise_bounds(const GemmOptions& o, const Matrix& a, const Matrix& b,
                                       const Matrix* c) {
  if (!o.scale_a.empty() || !o.scale_b.empty() || !o.block_scale_a.empty())
    throw Error("--scale-a", "the bound is derived for unit scales only");
  const GemmShape g{o.promote_every, o.split_k, o.reduction, o.c_in_epilogue};
  const Bound bound = model_bound(o.unit, a.format, o.acc, a.cols, g, &o.out, &o.out_rounding);
  return elementwise_bounds(bound, a, b, c, gemm(o, a, b, c));
}

std::string describe(const Bound& b) {
  std::string s = "bound for " + b.model + ":\n";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  |D - exact| <= alpha * S + %s ulp_%d(D) + beta%s\n  alpha = %.9g\n  beta  = %.9g\n",
                num(b.ulp_factor).c_str(), b.ulp_frac_bits,
                b.flushes_inputs ? " + S_flushed" : "", b.alpha, b.beta);
  s += buf;
  s += std::string("  S = sum |a_i b_i| + |c|") +
       (b.subnormals_at_min_normal ? " (nonzero subnormal inputs counted as 2^emin)" : "") +
       (b.flushes_inputs ? "; flushed inputs' products in S_flushed" : "") + "\n";
  s += "  derivation:\n";
  std::snprintf(buf, sizeof buf, "    %-62s %8s %13s %13s  %s\n", "node", "count", "rel/node",
                "abs/node", "loses");
  s += buf;
  for (const LossRow& r : b.derivation) {
    std::snprintf(buf, sizeof buf, "    %-62s %8lld %13.6g %13.6g  %s\n", r.node.c_str(), r.count,
                  r.rel, r.abs, r.loses.c_str());
    s += buf;
  }
  return s;
}

namespace {
nlohmann::json json_of(const Bound& b) {
  nlohmann::json j;
  j["model"] = b.model;
  j["alpha"] = b.alpha;
  j["ulp_factor"] = b.ulp_factor;
  j["ulp_frac_bits"] = b.ulp_frac_bits;
  j["ulp_emin"] = b.ulp_emin;
  j["beta"] = b.beta;
  j["subnormals_at_min_normal"] = b.subnormals_at_min_normal;
  j["flushes_inputs"] = b.flushes_inputs;
  nlohmann::json rows = nlohmann::json::array();
  for (const LossRow& r : b.derivation)
    rows.push_back({{"node", r.node}, {"count", r.count}, {"loses", r.loses}, {"rel", r.rel},
                    {"abs", r.abs}});
  j["derivation"] = rows;
  return j;
}

std::string term(const Bound& b) {
  if (b.ulp_factor == 0) return "0";
  return num(b.ulp_factor) + " ulp_" + std::to_string(b.ulp_frac_bits) + "(D)";
}
}  // namespace

std::string to_json(const Bound& b) { return json_of(b).dump(); }

std::string tolerance_report(std::string_view model, const Format& in, const Format& acc, int k,
                             const GemmShape& g, bool json) {
  const Bound m = bound_for(model, in, acc, k, g);
  const Bound e = correctly_rounded_bound(in, acc, Rounding{RoundingMode::rne}, k);
  const bool chain = holds_exactly(in, f32());
  Bound c;
  if (chain) c = fp32_chain_bound(in, k);
  const double gk = gamma_k(k, std::ldexp(1.0, -24));
  if (json) {
    nlohmann::json j;
    j["model"] = json_of(m);
    j["exact"] = json_of(e);
    if (chain) {
      j["fp32_chain"] = json_of(c);
      j["fp32_chain"]["gamma_k"] = gk;
    } else {
      j["fp32_chain"] = nullptr;
    }
    return j.dump(2) + "\n";
  }
  std::string s = describe(m);
  char buf[512];
  s += "\nside by side (|D - exact| <= alpha * S + ulp term + beta):\n";
  std::snprintf(buf, sizeof buf, "  %-22s %15s  %-16s %15s\n", "", "alpha", "ulp term", "beta");
  s += buf;
  auto line = [&](const char* name, const Bound& b, const std::string& extra) {
    std::snprintf(buf, sizeof buf, "  %-22s %15.9g  %-16s %15.9g%s\n", name, b.alpha,
                  term(b).c_str(), b.beta, extra.c_str());
    s += buf;
  };
  line("model", m, "");
  line("exact (RNE)", e, "");
  if (chain) line("fp32 fma chain", c, "   (gamma_K = " + num(gk) + " for the whole chain)");
  else s += "  fp32 fma chain         n/a (f32 cannot hold every " + in.name + " value)\n";
  return s;
}

}  // namespace fpconform::tolerance
