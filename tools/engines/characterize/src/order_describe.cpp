// describe_order: which parameter sets of the family give a recovered tree. The leaves next to
// C bound the search: C's parent holds C and the first block (or group, slice, instruction),
// so only a few block sizes and split counts need expected_order's comparison.
#include <algorithm>
#include <set>

#include "fpconform/characterize/order.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::characterize {

namespace {

// The node whose children include C (nullptr when the tree is C alone or has no C).
const SumTree* parent_of_c(const SumTree& t) {
  for (const SumTree& ch : t.children()) {
    if (ch.is_c()) return &t;
    if (const SumTree* p = parent_of_c(ch)) return p;
  }
  return nullptr;
}

int count_c(const SumTree& t) {
  if (t.is_leaf()) return t.is_c() ? 1 : 0;
  int n = 0;
  for (const SumTree& ch : t.children()) n += count_c(ch);
  return n;
}

// Leaf sets of every subtree without C, as sorted product lists.
void subtree_sets(const SumTree& t, std::set<std::vector<int>>& out, std::vector<int>& leaves) {
  if (t.is_leaf()) {
    if (!t.is_c()) leaves.push_back(t.index());
    if (!t.is_c()) out.insert({t.index()});
    return;
  }
  const std::size_t first = leaves.size();
  for (const SumTree& ch : t.children()) subtree_sets(ch, out, leaves);
  std::vector<int> mine(leaves.begin() + static_cast<long>(first), leaves.end());
  std::sort(mine.begin(), mine.end());
  if (static_cast<int>(mine.size()) == t.leaf_count()) out.insert(std::move(mine));
}

struct UnitCandidate {
  FdpaParams p;
  std::string text;
};

// Units whose first step spans `first` products out of `n`, simplest first: an fma chain,
// fused blocks with C in or after, pairwise groups, exact steps.
std::vector<UnitCandidate> units_for(int first, int n) {
  std::vector<UnitCandidate> out;
  FdpaParams seq;
  seq.structure = FdpaStructure::sequential;
  seq.c_in_block = false;
  if (first == 1) out.push_back({seq, "sequential"});
  if (first < 2) return out;
  const std::string size = (first == n ? ">=" : "=") + std::to_string(first);
  if (first <= 64)
    for (bool c_in : {true, false}) {
      FdpaParams f;
      f.block = first;
      f.c_in_block = c_in;
      out.push_back({f, "fused block" + size + " c_in_block=" + (c_in ? "1" : "0")});
    }
  FdpaParams pw = seq;
  pw.structure = FdpaStructure::pairwise;
  pw.block = first;
  out.push_back({pw, "pairwise block" + size});
  FdpaParams ex = seq;
  ex.structure = FdpaStructure::exact;
  ex.block = first == n ? 0 : first;
  out.push_back({ex, first == n ? "exact (one step)" : "exact block=" + std::to_string(first)});
  return out;
}

}  // namespace

OrderFindings describe_order(const SumTree& tree) {
  if (count_c(tree) != 1) throw Error("describe_order", "the tree must hold C exactly once");
  OrderFindings f;
  f.k = tree.leaf_count() - 1;
  const int k = f.k;
  f.order_visible = !(tree.exact() && static_cast<int>(tree.children().size()) == k + 1);
  if (k < 1) {
    f.summary = "no products";
    return f;
  }
  auto consider = [&](const FdpaParams& p, int split, SplitReduction r, std::string text) {
    if (expected_order(p, k, split, r) == tree) f.candidates.push_back({p, split, r, std::move(text)});
  };
  const SumTree* pc = parent_of_c(tree);
  const int first = pc->leaf_count() - 1;  // products beside C in its node
  // One unit over all k.
  for (const UnitCandidate& u : units_for(first, k))
    consider(u.p, 1, SplitReduction::sequential, u.text);
  // Instructions of `first` products, reordered (pairs_mod4) and added to C last.
  if (first % 4 == 0)
    for (int block = 2; block <= std::min(first, 64); ++block) {
      FdpaParams p;
      p.block = block;
      p.instr_k = first;
      p.k_order = KOrder::pairs_mod4;
      p.c_last = true;
      consider(p, 1, SplitReduction::sequential,
               "fused block=" + std::to_string(block) + " instr_k=" + std::to_string(first) +
                   " k_order=pairs_mod4 c_last=1");
    }
  // Split-K: the slices are subtrees without C.
  std::set<std::vector<int>> sets;
  std::vector<int> scratch;
  subtree_sets(tree, sets, scratch);
  for (int split = 2; split <= k; ++split) {
    bool slices_present = true;
    for (int s = 0; s < split && slices_present; ++s) {
      std::vector<int> slice;
      for (long long i = static_cast<long long>(k) * s / split;
           i < static_cast<long long>(k) * (s + 1) / split; ++i)
        slice.push_back(static_cast<int>(i));
      slices_present = sets.count(slice) > 0;
    }
    if (!slices_present) continue;
    const int slice0 = k / split;
    for (SplitReduction r : {SplitReduction::sequential, SplitReduction::pairwise}) {
      if (r == SplitReduction::sequential && slice0 != first) continue;
      const std::string prefix = "split-k=" + std::to_string(split) + " reduction=" +
                                 (r == SplitReduction::sequential ? "sequential" : "pairwise") +
                                 " of ";
      // The unit's first step inside slice 0: any size up to the slice.
      for (int step = 1; step <= slice0; ++step)
        for (const UnitCandidate& u : units_for(step, slice0))
          if (step == 1 || u.p.structure != FdpaStructure::sequential)
            consider(u.p, split, r, prefix + u.text);
    }
  }
  if (!f.order_visible)
    f.summary = "one exact node over C and all " + std::to_string(k) +
                " products: no summand absorbs another, the order is not visible";
  else if (f.candidates.empty())
    f.summary = "no parameter set of the family gives this tree";
  else
    f.summary = f.candidates[0].text +
                (f.candidates.size() > 1
                     ? " (or " + std::to_string(f.candidates.size() - 1) + " equivalent)"
                     : "");
  return f;
}

}  // namespace fpconform::characterize
