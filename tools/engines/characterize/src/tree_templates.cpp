// tree_templates: chains, interleaved chains and balanced trees as SumTrees (tree_templates.hpp).
#include "tree_templates.hpp"

#include <algorithm>

namespace fpconform::characterize {

namespace {

// The leaves folded left: ((x0 x1) x2) ...; one leaf is itself.
SumTree fold(const std::vector<SumTree>& leaves) {
  SumTree t = leaves.front();
  for (std::size_t i = 1; i < leaves.size(); ++i) t = SumTree::node({t, leaves[i]});
  return t;
}

// Left half n/2, right half the rest, as the pairwise structure splits.
SumTree balanced(const std::vector<SumTree>& leaves, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) return leaves[lo];
  const std::size_t mid = lo + (hi - lo) / 2;
  return SumTree::node({balanced(leaves, lo, mid), balanced(leaves, mid, hi)});
}

}  // namespace

std::vector<SumTree> tree_templates(int n) {
  std::vector<SumTree> out;
  const auto add = [&](SumTree t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
  };
  for (bool reversed : {false, true})
    for (int s : {1, 2, 4}) {
      if (s > 1 && 2 * s > n) continue;  // each chain at least two products
      // Chain j holds the products i = j (mod s), in index order or reversed.
      std::vector<std::vector<SumTree>> chains(static_cast<std::size_t>(s));
      for (int step = 0; step < n; ++step) {
        const int i = reversed ? n - 1 - step : step;
        chains[static_cast<std::size_t>(i % s)].push_back(SumTree::product(i));
      }
      std::vector<SumTree> folded;
      for (const auto& chain : chains) folded.push_back(fold(chain));
      // C first in chain 0; C onto the joined chains; C first onto chain 0's result, then the rest.
      std::vector<SumTree> c_first = chains.front();
      c_first.insert(c_first.begin(), SumTree::c());
      std::vector<SumTree> first_chain_c = folded;
      first_chain_c.front() = fold(c_first);
      add(fold(first_chain_c));
      add(SumTree::node({SumTree::c(), fold(folded)}));
      std::vector<SumTree> c_then_chains = folded;
      c_then_chains.insert(c_then_chains.begin(), SumTree::c());
      add(fold(c_then_chains));
    }
  std::vector<SumTree> products;
  for (int i = 0; i < n; ++i) products.push_back(SumTree::product(i));
  const SumTree tree = balanced(products, 0, products.size());
  add(SumTree::node({SumTree::c(), tree}));
  std::vector<SumTree> c_in_tree = products;
  c_in_tree.insert(c_in_tree.begin(), SumTree::c());
  add(balanced(c_in_tree, 0, c_in_tree.size()));
  return out;
}

std::vector<int> tree_instruction_sizes(int k) {
  std::vector<int> sizes;
  for (int n = 2; n < k; n *= 2)
    if (k % n == 0) sizes.push_back(n);
  if (k >= 1) sizes.push_back(k);
  return sizes;
}

}  // namespace fpconform::characterize
