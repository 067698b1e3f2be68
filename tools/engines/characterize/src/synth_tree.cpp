// search_tree: the reduction-tree structure typed from FPRev's tree (see synthesize.hpp).
#include "fpconform/characterize/synthesize.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/core/nan_policy.hpp"

namespace fpconform::characterize {

SearchResult search_tree(const FdpaParams& start, const SumTree& recovered, const Format& in,
                         const Format& out, std::span<const DotCase> cases) {
  SearchResult best;
  best.params = start;
  best.disagreements = count_disagreements(start, in, out, cases);
  const SumTree instruction = instruction_of(recovered);
  FdpaParams base = canonical_params(start);
  base.structure = FdpaStructure::tree;
  base.tree = intern_tree(instruction.text());
  base.c_in_block = false;
  std::vector<RoundingMode> modes{start.out_rounding.mode};
  for (RoundingMode m : {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up, RoundingMode::down})
    if (m != modes.front()) modes.push_back(m);
  bool improved = false;
  for (RoundingMode mode : modes)
    for (int flush = 0; flush < 4; ++flush)
      for (const NanPolicy& nan : nan_policies())
        for (const bool b_first : {false, true}) {
          FdpaParams p = base;
          p.out_rounding.mode = mode;
          p.flush_subnormal_inputs = flush & 1;
          p.flush_subnormal_outputs = flush & 2;
          p.nan = nan.name;
          p.nan_b_first = b_first;
          ++best.candidates;
          const std::size_t d = count_disagreements(p, in, out, cases, best.disagreements);
          if (d < best.disagreements) {
            best.params = p;
            best.disagreements = d;
            improved = true;
          }
        }
  if (improved)
    best.changes.push_back("structure = tree " + instruction.text() + " (from the recovered " +
                           std::to_string(product_count(recovered)) + "-product tree), " + model_spec(best.params));
  return best;
}

}  // namespace fpconform::characterize
