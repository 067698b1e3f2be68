// expected_order: the summation tree that fdpa.hpp and gemm.hpp document, written from those
// semantics and not from the recovery; describe_order: the parameter sets whose tree a
// recovered one is.
#include <algorithm>
#include <optional>
#include <span>

#include "fpconform/characterize/order.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::characterize {

namespace {

using MaybeTree = std::optional<SumTree>;

std::vector<SumTree> leaves(std::span<const int> products) {
  std::vector<SumTree> out;
  for (int i : products) out.push_back(SumTree::product(i));
  return out;
}

// D = (start + x): a 2-way node, or x alone when the start is +0 (not a leaf).
SumTree then(MaybeTree start, SumTree x) {
  if (!start) return x;
  return SumTree::node({std::move(*start), std::move(x)});
}

// Balanced pairwise tree: left half n/2, right half the rest (fdpa pairwise groups).
SumTree balanced(std::span<const int> products) {
  if (products.size() == 1) return SumTree::product(products[0]);
  const std::size_t m = products.size() / 2;
  return SumTree::node({balanced(products.first(m)), balanced(products.subspan(m))});
}

// One structure over products in the order they reach the unit, from `start` (C, the previous
// step, or nothing for +0).
SumTree structure_tree(const FdpaParams& p, std::span<const int> order, MaybeTree start) {
  const std::size_t n = order.size();
  switch (p.structure) {
    case FdpaStructure::sequential:  // fma(a_i, b_i, d): one rounding over d and the product
      for (int i : order) start = then(std::move(start), SumTree::product(i));
      return *start;
    case FdpaStructure::pairwise:  // sum = sum + balanced(group)
      if (p.block < 1) throw Error("expected_order", "pairwise block must be >= 1");
      for (std::size_t k0 = 0; k0 < n; k0 += static_cast<std::size_t>(p.block))
        start = then(std::move(start),
                     balanced(order.subspan(k0, std::min<std::size_t>(p.block, n - k0))));
      return *start;
    case FdpaStructure::exact: {  // per step the exact sum of its products and C
      const std::size_t step = p.block == 0 ? std::max<std::size_t>(n, 1) : p.block;
      for (std::size_t k0 = 0; k0 < n; k0 += step) {
        std::vector<SumTree> kids = leaves(order.subspan(k0, std::min(step, n - k0)));
        if (start) kids.push_back(std::move(*start));
        start = SumTree::node(std::move(kids), true);
      }
      return *start;
    }
    case FdpaStructure::fused:
      // C in the block is one more term of the block's node. C after the block: the block's
      // terms are cut against their own largest exponent, then C is added (exactly or two
      // stage); with late_c the sum and C are cut against max(E_s, e_C), so a block that holds
      // M cuts C like a term: one node again.
      if (p.block < 1) throw Error("expected_order", "fused block must be >= 1");
      for (std::size_t k0 = 0; k0 < n; k0 += static_cast<std::size_t>(p.block)) {
        std::vector<SumTree> block =
            leaves(order.subspan(k0, std::min<std::size_t>(p.block, n - k0)));
        if (p.c_in_block || p.late_c) {
          if (start) block.push_back(std::move(*start));
          start = SumTree::node(std::move(block));
        } else {
          start = then(std::move(start), SumTree::node(std::move(block)));
        }
      }
      return *start;
    case FdpaStructure::tree: break;  // expected_order reads the tree itself
  }
  throw Error("expected_order", "unknown structure");
}

// fdpa over products [k0, k1): instructions of instr_k products reordered by k_order, each run
// from +0 and added to C by one IEEE addition (c_last) or chained on C.
SumTree unit_tree(const FdpaParams& p, int k0, int k1, MaybeTree start) {
  std::vector<int> natural;
  for (int i = k0; i < k1; ++i) natural.push_back(i);
  if (p.instr_k == 0 && p.k_order == KOrder::natural && !p.c_last)
    return structure_tree(p, natural, std::move(start));
  const int chunk = p.instr_k > 0 ? p.instr_k : k1 - k0;
  for (int c0 = k0; c0 < k1; c0 += chunk) {
    const int c1 = std::min(k1, c0 + chunk);
    std::vector<int> order;
    for (int pass = 0; pass < (p.k_order == KOrder::pairs_mod4 ? 2 : 1); ++pass)
      for (int i = c0; i < c1; ++i)
        if (p.k_order != KOrder::pairs_mod4 || (((i - c0) % 4 < 2) == (pass == 0)))
          order.push_back(i);
    if (p.c_last) start = then(std::move(start), structure_tree(p, order, std::nullopt));
    else start = structure_tree(p, order, std::move(start));
  }
  return *start;
}

}  // namespace

SumTree expected_order(const FdpaParams& unit, int k, int split_k, SplitReduction reduction) {
  if (k < 1) throw Error("expected_order", "k must be at least 1");
  if (unit.subsum > 0) throw Error("expected_order", "exact sub-sums (subsum > 0) not modelled");
  if (split_k < 1 || split_k > k) throw Error("expected_order", "split-k must be 1..k");
  if (unit.structure == FdpaStructure::tree) {
    if (split_k != 1) throw Error("expected_order", "split-K of a tree structure is not modelled");
    return chain_instructions(parse_sum_tree(unit.tree), k);
  }
  if (split_k == 1) return unit_tree(unit, 0, k, SumTree::c());
  // gemm.hpp: slices [k s / S, k (s + 1) / S) from +0, reduced, then C added.
  std::vector<SumTree> parts;
  for (int s = 0; s < split_k; ++s)
    parts.push_back(unit_tree(unit, static_cast<int>(static_cast<long long>(k) * s / split_k),
                              static_cast<int>(static_cast<long long>(k) * (s + 1) / split_k),
                              std::nullopt));
  if (reduction == SplitReduction::sequential) {
    MaybeTree value = SumTree::c();
    for (SumTree& part : parts) value = then(std::move(value), std::move(part));
    return *value;
  }
  while (parts.size() > 1) {  // adjacent pairs level by level, an odd last one carried up
    std::vector<SumTree> next;
    for (std::size_t t = 0; t + 1 < parts.size(); t += 2)
      next.push_back(SumTree::node({std::move(parts[t]), std::move(parts[t + 1])}));
    if (parts.size() % 2) next.push_back(std::move(parts.back()));
    parts.swap(next);
  }
  return SumTree::node({SumTree::c(), std::move(parts[0])});
}

}  // namespace fpconform::characterize
