// The local search over the FdpaParams family (see synthesize.hpp).
#include "fpconform/characterize/synthesize.hpp"

#include <algorithm>
#include <climits>
#include <optional>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/core/nan_policy.hpp"

namespace fpconform::characterize {

namespace {

const AlignRounding kAligns[] = {AlignRounding::truncate, AlignRounding::nearest_even,
                                 AlignRounding::down};
const char* align_label(AlignRounding a) {
  return a == AlignRounding::truncate ? "truncate" : a == AlignRounding::nearest_even ? "nearest_even" : "down";
}

template <class F>
void add(std::vector<ParamMove>& v, std::string label, F f) {
  v.push_back({std::move(label), std::function<void(FdpaParams&)>(f)});
}

void int_range(std::vector<ParamMove>& v, const std::string& name, int lo, int hi,
               int FdpaParams::*member) {
  for (int x = lo; x <= hi; ++x)
    add(v, name + " = " + std::to_string(x), [member, x](FdpaParams& p) { p.*member = x; });
}

void align_moves(std::vector<ParamMove>& v, const std::string& name, AlignRounding FdpaParams::*member) {
  for (AlignRounding a : kAligns)
    add(v, name + " = " + align_label(a), [member, a](FdpaParams& p) { p.*member = a; });
}

void bool_moves(std::vector<ParamMove>& v, const std::string& name, bool FdpaParams::*member) {
  for (bool b : {false, true})
    add(v, name + " = " + (b ? "1" : "0"), [member, b](FdpaParams& p) { p.*member = b; });
}

}  // namespace

std::vector<ParamMove> param_moves(const std::string& name, const FdpaFormats& f) {
  const Format& out = f.d;
  // The products' precision and exponent range: a's and b's together.
  const int product_precision = f.a.precision() + f.b.precision();
  const int product_low = f.a.emin() - f.a.man_bits + f.b.emin() - f.b.man_bits;
  const int product_high = f.a.emax() + f.b.emax();
  std::vector<ParamMove> v;
  if (name == "structure") {
    for (FdpaStructure s : {FdpaStructure::fused, FdpaStructure::exact, FdpaStructure::sequential,
                            FdpaStructure::pairwise}) {
      const char* n = s == FdpaStructure::fused ? "fused" : s == FdpaStructure::exact ? "exact"
                    : s == FdpaStructure::sequential ? "sequential" : "pairwise";
      add(v, std::string("structure = ") + n, [s](FdpaParams& p) {
        p.structure = s;
        if (s != FdpaStructure::fused) p.c_in_block = false, p.late_c = false, p.interleave = 1;
        if (s == FdpaStructure::exact && p.block > 64) p.block = 0;
      });
    }
  } else if (name == "block") {
    int_range(v, "block", 0, 64, &FdpaParams::block);
  } else if (name == "frac_bits") {
    int_range(v, "frac_bits", 0, std::min(100, product_precision + out.precision() + 16),
              &FdpaParams::frac_bits);
  } else if (name == "align") {
    align_moves(v, "align", &FdpaParams::align);
  } else if (name == "zero_exp") {
    add(v, "zero_exp = none", [](FdpaParams& p) { p.zero_exp = INT_MIN; });
    const int lo = std::max(-200, std::min(product_low, out.emin() - out.man_bits) - 4);
    int_range(v, "zero_exp", lo, std::min(out.emax(), product_high + 2), &FdpaParams::zero_exp);
  } else if (name == "c_place") {
    add(v, "C in the block", [](FdpaParams& p) { p.c_in_block = true, p.late_c = false, p.interleave = 1; });
    add(v, "C added exactly after the block", [](FdpaParams& p) { p.c_in_block = false, p.late_c = false; });
    add(v, "C added late (two-stage)", [](FdpaParams& p) { p.c_in_block = false, p.late_c = true; });
    // The late stage's own parameters matter only together with it: offer them with it.
    for (AlignRounding a : kAligns)
      for (int sum_bits = 22; sum_bits <= 36; ++sum_bits)
        add(v, "C added late (two-stage), late_sum_frac_bits = " + std::to_string(sum_bits) +
                   ", late_align = " + align_label(a),
            [a, sum_bits](FdpaParams& p) {
              p.c_in_block = false, p.late_c = true, p.late_sum_frac_bits = sum_bits, p.late_align = a;
            });
  } else if (name == "acc_frac_bits") {
    int_range(v, "acc_frac_bits", -1, out.man_bits - 1, &FdpaParams::acc_frac_bits);
  } else if (name == "out_round") {
    for (RoundingMode m : {RoundingMode::rtz, RoundingMode::rne, RoundingMode::up, RoundingMode::down,
                           RoundingMode::rna, RoundingMode::odd})
      add(v, "out_round = " + std::string(to_string(m)), [m](FdpaParams& p) { p.out_rounding.mode = m; });
    // The output's edges go with its rounding: overflow to inf whatever the direction, and +0
    // for nonzero sums that round to zero (Hopper: out_sat = infinite, underflow_zero_positive).
    for (RoundingMode m : {RoundingMode::rtz, RoundingMode::rne, RoundingMode::up, RoundingMode::down,
                           RoundingMode::rna, RoundingMode::odd})
      for (Saturation s : {Saturation::none, Saturation::infinite})
        for (bool z : {false, true}) {
          if (s == Saturation::none && !z) continue;  // the plain moves above
          add(v, "out_round = " + std::string(to_string(m)) + ", out_sat = " + std::string(to_string(s)) +
                     ", underflow_zero_positive = " + (z ? "1" : "0"),
              [m, s, z](FdpaParams& p) {
                p.out_rounding.mode = m, p.out_rounding.sat = s, p.underflow_zero_positive = z;
              });
        }
  } else if (name == "flush") {
    for (int f = 0; f < 8; ++f) {
      const bool fin = f & 1, pos = f & 2, fout = f & 4;
      if (pos && !fin) continue;
      add(v, std::string("flush_inputs = ") + (fin ? "1" : "0") + ", flush_inputs_positive = " +
                 (pos ? "1" : "0") + ", flush_outputs = " + (fout ? "1" : "0"),
          [fin, pos, fout](FdpaParams& p) {
            p.flush_subnormal_inputs = fin, p.flushed_inputs_positive = pos, p.flush_subnormal_outputs = fout;
          });
    }
  } else if (name == "interleave") {
    for (int g = 1; g <= 4; ++g)
      add(v, "interleave = " + std::to_string(g) + (g > 1 ? " (C after the block)" : ""),
          [g](FdpaParams& p) { p.interleave = g; if (g > 1) p.c_in_block = false; });
    align_moves(v, "group_align", &FdpaParams::group_align);
    // The group cut matters only with groups: offer it with them too.
    for (int g = 2; g <= 4; ++g)
      for (AlignRounding a : kAligns)
        add(v, "interleave = " + std::to_string(g) + " (C after the block), group_align = " + align_label(a),
            [g, a](FdpaParams& p) { p.interleave = g, p.group_align = a, p.c_in_block = false; });
  } else if (name == "late_c") {
    int_range(v, "late_sum_frac_bits", 16, 40, &FdpaParams::late_sum_frac_bits);
    int_range(v, "late_c_frac_bits", 16, 32, &FdpaParams::late_c_frac_bits);
    int_range(v, "late_c_drop_below", -1, 34, &FdpaParams::late_c_drop_below);
    align_moves(v, "late_align", &FdpaParams::late_align);
  } else if (name == "product") {
    bool_moves(v, "product_overflow", &FdpaParams::product_overflow);
    int_range(v, "product_bits", -1, product_precision, &FdpaParams::product_bits);
    align_moves(v, "product_rounding", &FdpaParams::product_rounding);
    // The product rounding matters only with rounded products: offer it with them too.
    for (int bits = 1; bits <= product_precision; ++bits)
      for (AlignRounding a : kAligns)
        add(v, "product_bits = " + std::to_string(bits) + ", product_rounding = " + align_label(a),
            [bits, a](FdpaParams& p) { p.product_bits = bits, p.product_rounding = a; });
  } else if (name == "carry_bits") {
    int_range(v, "carry_bits", -1, 8, &FdpaParams::carry_bits);
  } else if (name == "subsum") {
    for (int g : {0, 2, 4, 8, 16, 32})
      add(v, "subsum = " + std::to_string(g), [g](FdpaParams& p) { p.subsum = g; });
  } else if (name == "instr") {
    for (int k : {0, 4, 8, 16, 32, 64})
      add(v, "instr_k = " + std::to_string(k), [k](FdpaParams& p) { p.instr_k = k; });
    add(v, "k_order = natural", [](FdpaParams& p) { p.k_order = KOrder::natural; });
    add(v, "k_order = pairs_mod4", [](FdpaParams& p) { p.k_order = KOrder::pairs_mod4; });
    bool_moves(v, "c_last", &FdpaParams::c_last);
    for (int k : {16, 32, 64}) {
      add(v, "instr_k = " + std::to_string(k) + ", c_last = 1", [k](FdpaParams& p) { p.instr_k = k, p.c_last = true; });
      // An instruction run as two MMAs over interleaved k halves, then C added (ptxas's fp8
      // mma.sync on Hopper): blocks of k/2 in pairs_mod4 order.
      add(v, "instr_k = " + std::to_string(k) + ", k_order = pairs_mod4, c_last = 1, block = " + std::to_string(k / 2),
          [k](FdpaParams& p) {
            p.instr_k = k, p.k_order = KOrder::pairs_mod4, p.c_last = true, p.block = k / 2;
            p.structure = FdpaStructure::fused, p.c_in_block = true, p.late_c = false, p.interleave = 1;
          });
    }
  } else if (name == "nan") {
    for (const NanPolicy& n : nan_policies())
      for (const bool b_first : {false, true})
        add(v, "nan = " + std::string(n.name) + (b_first ? ", nan_b_first = 1" : ""),
            [s = n.name, b_first](FdpaParams& p) { p.nan = s, p.nan_b_first = b_first; });
  } else {
    throw Error("param_moves", "unknown parameter group '" + name + "'");
  }
  return v;
}

FdpaParams canonical_params(const FdpaParams& p) {
  if (p.structure == FdpaStructure::fused) return p;
  FdpaParams q;
  q.structure = p.structure;
  q.c_in_block = false;  // as the presets write the non-fused structures
  q.out_rounding = p.out_rounding;
  q.flush_subnormal_inputs = p.flush_subnormal_inputs;
  q.flushed_inputs_positive = p.flushed_inputs_positive;
  q.flush_subnormal_outputs = p.flush_subnormal_outputs;
  q.nan = p.nan;
  q.nan_b_first = p.nan_b_first;
  q.tree = p.tree;
  q.instr_k = p.instr_k;
  q.k_order = p.k_order;
  q.c_last = p.c_last;
  if (p.structure != FdpaStructure::sequential && p.structure != FdpaStructure::tree) q.block = p.block;
  if (p.structure == FdpaStructure::tree) {  // the tree says its own instruction length and order
    q.instr_k = 0;
    q.k_order = KOrder::natural;
    q.c_last = false;
  }
  if (p.structure == FdpaStructure::exact) {
    q.acc_frac_bits = p.acc_frac_bits;
    q.subsum = p.subsum;
    q.scale_block = p.scale_block;
  }
  return q;
}

std::vector<ParamMove> param_moves(const FdpaFormats& f) {
  std::vector<ParamMove> all;
  for (const char* n : {"structure", "block", "frac_bits", "align", "c_place", "acc_frac_bits",
                        "out_round", "flush", "zero_exp", "interleave", "late_c", "product",
                        "carry_bits", "subsum", "instr", "nan"}) {
    std::vector<ParamMove> v = param_moves(n, f);
    all.insert(all.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  }
  return all;
}

namespace {

// Parameter sets fdpa refuses (or that a fast path would not check): not candidates.
bool acceptable(const FdpaParams& p) {
  switch (p.structure) {
    case FdpaStructure::fused:
      return p.block >= 1 && p.block <= 64 && p.interleave >= 1 && p.interleave <= p.block &&
             (p.interleave == 1 || !p.c_in_block) && p.subsum >= 0 && p.subsum <= 64;
    case FdpaStructure::pairwise: return p.block >= 1 && p.subsum == 0;
    case FdpaStructure::exact: return p.block >= 0 && p.subsum >= 0 && p.subsum <= 64;
    case FdpaStructure::sequential: return p.subsum == 0;
    case FdpaStructure::tree: return !p.tree.empty() && p.subsum == 0;
  }
  return false;
}

// Steps of one or two units up or down of each integer parameter that is in use, labelled
// with their results ("zero_exp = -10").
std::vector<ParamMove> small_steps(const FdpaParams& at) {
  struct Field {
    const char* name;
    int FdpaParams::*member;
    int lo;
  };
  const Field fields[] = {
      {"block", &FdpaParams::block, 0},
      {"frac_bits", &FdpaParams::frac_bits, 0},
      {"zero_exp", &FdpaParams::zero_exp, INT_MIN + 8},
      {"acc_frac_bits", &FdpaParams::acc_frac_bits, -1},
      {"late_sum_frac_bits", &FdpaParams::late_sum_frac_bits, 0},
      {"late_c_frac_bits", &FdpaParams::late_c_frac_bits, 0},
      {"late_c_drop_below", &FdpaParams::late_c_drop_below, -1},
      {"product_bits", &FdpaParams::product_bits, -1},
      {"carry_bits", &FdpaParams::carry_bits, -1},
      {"interleave", &FdpaParams::interleave, 1},
  };
  std::vector<ParamMove> v;
  for (const Field& f : fields) {
    const int now = at.*(f.member);
    if (now == INT_MIN || now == -1) continue;  // not in use: the ordinary moves set it
    for (int delta : {-2, -1, 1, 2}) {
      const int x = now + delta;
      if (x < f.lo) continue;
      add(v, std::string(f.name) + " = " + std::to_string(x), [m = f.member, x](FdpaParams& p) { p.*m = x; });
    }
  }
  return v;
}

}  // namespace

std::size_t count_disagreements(const FdpaParams& p, const FdpaFormats& f,
                                std::span<const DotCase> cases, std::size_t limit) {
  if (!acceptable(p)) return cases.empty() ? 0 : cases.size() + 1;
  std::optional<FdpaKernel> kernel;
  try {
    kernel.emplace(p, f);
  } catch (const Error&) {
    return cases.empty() ? 0 : cases.size() + 1;
  }
  std::size_t bad = 0;
  for (const DotCase& c : cases) {
    bool ok = false;
    try {
      ok = kernel->dot(c.a, c.b, c.c) == c.d;
    } catch (const Error&) {
    }
    if (!ok && ++bad > limit) return bad;
  }
  return bad;
}

SearchResult search_params(const FdpaParams& start, const FdpaFormats& f,
                           std::span<const DotCase> cases_in, int max_rounds) {
  const std::vector<ParamMove> moves = param_moves(f);
  // Cases the current model fails go first, so that a candidate that fails them stops early;
  // the screen (those failures and a few hundred others) prunes candidates before the full count.
  std::vector<DotCase> cases(cases_in.begin(), cases_in.end());
  SearchResult r;
  r.params = start;
  auto evaluate = [&](const FdpaParams& p, std::span<const DotCase> set, std::size_t limit) {
    ++r.candidates;
    return count_disagreements(p, f, set, limit);
  };
  auto front_failures = [&] {
    std::optional<FdpaKernel> kernel;
    try {
      kernel.emplace(r.params, f);
    } catch (const Error&) {
      return;
    }
    std::stable_partition(cases.begin(), cases.end(), [&](const DotCase& c) {
      try {
        return kernel->dot(c.a, c.b, c.c) != c.d;
      } catch (const Error&) {
        return true;
      }
    });
  };
  r.disagreements = evaluate(r.params, cases, SIZE_MAX);
  for (int round = 0; round < max_rounds && r.disagreements > 0; ++round) {
    front_failures();
    // Three tiers: a change must fix one of the first failures (pre), do better on the screen
    // (those failures and a few hundred others), then on every case. Changes within the current
    // structure come first; the structure changes only when none of them helps.
    const std::span<const DotCase> pre(cases.data(), std::min<std::size_t>(r.disagreements, 48));
    const std::span<const DotCase> screen(cases.data(), std::min(cases.size(), r.disagreements + 400));
    const std::size_t screen_now = r.disagreements;  // the current model fails exactly these
    std::vector<std::pair<std::size_t, std::size_t>> scored;  // (failures in pre, move)
    std::size_t best = r.disagreements, best_move = SIZE_MAX;
    for (int pass = 0; pass < 2 && best_move == SIZE_MAX; ++pass)
      for (std::size_t m = 0; m < moves.size(); ++m) {
        const bool structural = moves[m].label.rfind("structure", 0) == 0;
        if (structural != (pass == 1)) continue;
        FdpaParams cand = r.params;
        moves[m].apply(cand);
        if (same_params(cand, r.params)) continue;
        const std::size_t p0 = evaluate(cand, pre, pre.size());
        scored.emplace_back(p0, m);
        if (p0 >= pre.size()) continue;
        if (evaluate(cand, screen, screen_now) >= screen_now) continue;
        const std::size_t full = evaluate(cand, cases, best - 1);
        if (full < best) best = full, best_move = m;
      }
    if (best_move != SIZE_MAX) {
      moves[best_move].apply(r.params);
      r.disagreements = best;
      r.changes.push_back(moves[best_move].label);
      continue;
    }
    // No single change helps: pairs of the most promising ones.
    std::sort(scored.begin(), scored.end());
    const std::size_t top = std::min<std::size_t>(scored.size(), 40);
    FdpaParams best_pair;
    std::string label;
    for (std::size_t i = 0; i < top; ++i)
      for (std::size_t j = i + 1; j < top; ++j) {
        FdpaParams cand = r.params;
        moves[scored[i].second].apply(cand);
        moves[scored[j].second].apply(cand);
        if (same_params(cand, r.params)) continue;
        if (evaluate(cand, pre, pre.size()) >= pre.size()) continue;
        if (evaluate(cand, screen, screen_now) >= screen_now) continue;
        const std::size_t s = evaluate(cand, cases, best - 1);
        if (s < best) {
          best = s, best_pair = cand;
          label = moves[scored[i].second].label + "; " + moves[scored[j].second].label;
        }
      }
    if (label.empty()) {
      // Nor a pair of them: pairs of small steps (one or two units up or down) of the integer
      // parameters. Two quantities that only show together (an exponent given to zeros and the
      // bits kept below it, F and the accumulator's width, ...) can trade off so that neither
      // step alone fixes a case; together they do.
      const std::vector<ParamMove> steps = small_steps(r.params);
      for (std::size_t i = 0; i < steps.size(); ++i)
        for (std::size_t j = i + 1; j < steps.size(); ++j) {
          if (steps[i].label.substr(0, steps[i].label.find(' ')) == steps[j].label.substr(0, steps[j].label.find(' ')))
            continue;
          FdpaParams cand = r.params;
          steps[i].apply(cand);
          steps[j].apply(cand);
          if (same_params(cand, r.params)) continue;
          if (evaluate(cand, pre, pre.size()) >= pre.size()) continue;
          if (evaluate(cand, screen, screen_now) >= screen_now) continue;
          const std::size_t s = evaluate(cand, cases, best - 1);
          if (s < best) best = s, best_pair = cand, label = steps[i].label + "; " + steps[j].label;
        }
    }
    if (label.empty()) break;
    r.params = best_pair;
    r.disagreements = best;
    r.changes.push_back(label);
  }
  return r;
}

}  // namespace fpconform::characterize
