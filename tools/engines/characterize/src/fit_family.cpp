// fit_family: the presets for the formats, then the grid and the tree templates (see fit.hpp).
#include <algorithm>
#include <climits>

#include "fpconform/characterize/fit.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fpconform/matrix_presets.hpp"
#include "tree_templates.hpp"

namespace fpconform::characterize {

namespace {

// Same parameters apart from the NaN policy, which finite rows cannot see. The cheap fields
// first: the grid is large.
bool same_except_nan(const FdpaParams& a, const FdpaParams& b) {
  if (a.structure != b.structure || a.block != b.block || a.frac_bits != b.frac_bits ||
      a.zero_exp != b.zero_exp)
    return false;
  FdpaParams b_as_a = b;
  b_as_a.nan = a.nan;
  return same_params(a, b_as_a);
}

constexpr int kBlocks[] = {1, 2, 4, 8, 16, 32, 64};
constexpr RoundingMode kRoundings[] = {RoundingMode::rtz, RoundingMode::rne, RoundingMode::up,
                                       RoundingMode::down};

// How C enters a fused block.
enum class CMode { in_block, after, late, last_natural, last_pairs_mod4 };

void set_c_mode(FdpaParams& p, CMode m) {
  p.c_in_block = m == CMode::in_block || m == CMode::last_natural || m == CMode::last_pairs_mod4;
  p.late_c = m == CMode::late;  // AMD CDNA3's late stage: FdpaParams' defaults are its values
  if (m == CMode::last_natural || m == CMode::last_pairs_mod4) {
    // ptxas's fp8 mma.sync on Hopper: k32 instructions from +0, then D = T + C (see presets)
    p.instr_k = 32;
    p.c_last = true;
    p.k_order = m == CMode::last_pairs_mod4 ? KOrder::pairs_mod4 : KOrder::natural;
  }
}

}  // namespace

std::vector<FamilyMember> fit_family(const FdpaFormats& f, const FamilyOptions& options) {
  const Format &in = f.a, &out = f.d;
  std::vector<FamilyMember> family;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    if (!options.presets || e.input != in.name) continue;
    FdpaParams p;
    try {
      p = find_matrix_unit(e.preset, f);
    } catch (const Error&) {
      continue;  // no model of this preset for these formats, or two for a's and b's
    }
    bool known = false;
    for (FamilyMember& m : family)
      if (same_except_nan(m.params, p)) {
        m.preset += ", " + std::string(e.preset);
        known = true;
      }
    if (!known) family.push_back({p, std::string(e.preset)});
  }
  const std::size_t presets = family.size();
  const auto add = [&](const FdpaParams& p) {
    for (std::size_t i = 0; i < presets; ++i)
      if (same_except_nan(family[i].params, p)) return;
    family.push_back({p, {}});
  };

  // Output rounding, or an RZ cut to acc_frac_bits below the output's precision (the cut leaves
  // a value of the output format, so the output rounding adds nothing: rtz).
  std::vector<std::pair<int, RoundingMode>> outputs;
  for (RoundingMode r : kRoundings) outputs.emplace_back(-1, r);
  for (int acc = options.acc_min_frac_bits; acc < out.man_bits; ++acc)
    outputs.emplace_back(acc, RoundingMode::rtz);

  for (int block : kBlocks)
    for (int frac = options.min_frac_bits; frac <= options.max_frac_bits; ++frac)
      for (AlignRounding align :
           {AlignRounding::truncate, AlignRounding::nearest_even, AlignRounding::down})
        for (int zero_exp : {INT_MIN, -132, -133})
          for (CMode c : {CMode::in_block, CMode::after, CMode::late, CMode::last_natural,
                          CMode::last_pairs_mod4})
            for (const auto& [acc, rounding] : outputs)
              for (int flush = 0; flush < 4; ++flush) {
                FdpaParams p;
                p.block = block;
                p.frac_bits = frac;
                p.align = align;
                p.zero_exp = zero_exp;
                set_c_mode(p, c);
                p.acc_frac_bits = acc;
                p.out_rounding.mode = rounding;
                p.flush_subnormal_inputs = (flush & 1) != 0;
                p.flush_subnormal_outputs = (flush & 2) != 0;
                add(p);
              }

  // Flushing as the AMD presets do it: none, to signed zeros, or inputs to +0 (CDNA2).
  const auto flushes = [](FdpaParams& p, int flush) {
    p.flush_subnormal_inputs = p.flush_subnormal_outputs = flush != 0;
    p.flushed_inputs_positive = flush == 2;
  };
  for (int block : kBlocks)
    for (RoundingMode rounding : kRoundings)
      for (int flush = 0; flush < 3; ++flush) {
        FdpaParams p;
        p.structure = FdpaStructure::pairwise;
        p.c_in_block = false;
        p.block = block;
        p.out_rounding.mode = rounding;
        flushes(p, flush);
        add(p);
      }
  for (RoundingMode rounding : kRoundings)
    for (int flush = 0; flush < 3; ++flush) {
      FdpaParams p;
      p.structure = FdpaStructure::sequential;
      p.c_in_block = false;
      p.out_rounding.mode = rounding;
      flushes(p, flush);
      add(p);
    }
  for (int block : {0, 1, 2, 4, 8, 16, 32, 64})
    for (RoundingMode rounding : kRoundings)
      for (bool flush_out : {false, true}) {
        FdpaParams p;
        p.structure = FdpaStructure::exact;
        p.c_in_block = false;
        p.block = block;
        p.out_rounding.mode = rounding;
        p.flush_subnormal_outputs = flush_out;
        add(p);
      }

  // Reduction trees of IEEE operations in `out` (every node rounds with one mode), for the
  // rows' k: each template, rounding, flush and NaN rule (special rows see the NaN rule).
  if (options.k > 0)
    for (int n : tree_instruction_sizes(options.k))
      for (const SumTree& t : tree_templates(n)) {
        const std::string_view text = intern_tree(t.text());
        for (RoundingMode rounding : kRoundings)
          for (int flush = 0; flush < 4; ++flush)
            for (const NanPolicy& nan : nan_policies())
              for (bool b_first : {false, true}) {
                FdpaParams p;
                p.structure = FdpaStructure::tree;
                p.tree = text;
                p.c_in_block = false;
                p.out_rounding.mode = rounding;
                p.flush_subnormal_inputs = (flush & 1) != 0;
                p.flush_subnormal_outputs = (flush & 2) != 0;
                p.nan = nan.name;
                p.nan_b_first = b_first;
                bool known = false;  // a preset itself; a NaN rule of its own is a member
                for (std::size_t i = 0; i < presets && !known; ++i)
                  known = same_params(family[i].params, p);
                if (!known) family.push_back({p, {}});
              }
      }
  return family;
}

std::span<const std::string_view> fit_family_fields() {
  // What the presets and the grid above set; keep in step with them.
  static constexpr std::string_view kFields[] = {
      "structure", "block",  "frac_bits", "align",        "zero_exp",   "c_in_block",
      "late_c",    "acc_frac_bits", "out_round", "flush_inputs", "flush_inputs_positive",
      "flush_outputs", "interleave", "late_c_drop_below", "product_overflow", "scale_block",
      "subsum", "instr_k", "k_order", "c_last", "tree", "nan", "nan_b_first"};
  return kFields;
}

std::vector<std::pair<std::string, std::vector<std::string>>> field_values(
    std::span<const FamilyMember> sets) {
  std::vector<std::pair<std::string, std::vector<std::string>>> fields;
  for (const FamilyMember& m : sets) {
    const auto described = describe_params(m.params);
    if (fields.empty())
      for (const auto& [name, value] : described) fields.push_back({name, {}});
    for (std::size_t i = 0; i < described.size(); ++i) {
      std::vector<std::string>& values = fields[i].second;
      if (std::find(values.begin(), values.end(), described[i].second) == values.end())
        values.push_back(described[i].second);
    }
  }
  return fields;
}

}  // namespace fpconform::characterize
