// search_tree: the reduction-tree structure typed from FPRev's tree, then refined by editing the
// tree (see synthesize.hpp).
#include <algorithm>
#include <optional>

#include "fpconform/characterize/order.hpp"
#include "fpconform/characterize/synthesize.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/core/nan_policy.hpp"

namespace fpconform::characterize {

namespace {

// t with its inner node number `target` (pre-order, from 0) of the other kind: exact for a
// rounding node, rounding for an exact one.
SumTree flip_node(const SumTree& t, int target, int& seen) {
  if (t.is_leaf()) return t;
  const bool here = seen++ == target;
  std::vector<SumTree> kids;
  for (const SumTree& c : t.children()) kids.push_back(flip_node(c, target, seen));
  return SumTree::node(std::move(kids), here != t.exact());
}

// t with the inner child `child` of inner node `target` merged into it (its children become the
// node's own: a fused node where FPRev saw a rounding below it), or nullopt where that node has
// no such child. Pre-order numbering as flip_node.
std::optional<SumTree> merge_child(const SumTree& t, int target, int child, int& seen) {
  if (t.is_leaf()) return std::nullopt;
  const bool here = seen++ == target;
  std::vector<SumTree> kids;
  bool merged = false;
  for (std::size_t i = 0; i < t.children().size(); ++i) {
    const SumTree& c = t.children()[i];
    if (here && static_cast<int>(i) == child) {
      if (c.is_leaf()) return std::nullopt;
      kids.insert(kids.end(), c.children().begin(), c.children().end());
      merged = true;
      continue;
    }
    if (auto m = merge_child(c, target, child, seen)) {
      kids.push_back(*m);
      merged = true;
    } else {
      kids.push_back(c);
    }
  }
  if (!merged) return std::nullopt;
  return SumTree::node(std::move(kids), t.exact());
}

// t with children `i` and `j` of inner node `target` wrapped in a new rounding node (two
// leaves FPRev saw as siblings of a wider node, or a child of the node above), or nullopt
// where that node has fewer than three children.
std::optional<SumTree> wrap_children(const SumTree& t, int target, int i, int j, int& seen) {
  if (t.is_leaf()) return std::nullopt;
  const bool here = seen++ == target;
  const auto& ch = t.children();
  std::vector<SumTree> kids;
  bool changed = false;
  if (here) {
    if (ch.size() < 3) return std::nullopt;
    for (std::size_t c = 0; c < ch.size(); ++c)
      if (static_cast<int>(c) != i && static_cast<int>(c) != j) kids.push_back(ch[c]);
    kids.push_back(SumTree::node({ch[static_cast<std::size_t>(i)], ch[static_cast<std::size_t>(j)]}));
    return SumTree::node(std::move(kids), t.exact());
  }
  for (const SumTree& c : ch) {
    if (auto w = wrap_children(c, target, i, j, seen)) {
      kids.push_back(*w);
      changed = true;
    } else {
      kids.push_back(c);
    }
  }
  if (!changed) return std::nullopt;
  return SumTree::node(std::move(kids), t.exact());
}

void inner_nodes_in_order(const SumTree& t, std::vector<const SumTree*>& nodes) {
  if (t.is_leaf()) return;
  nodes.push_back(&t);
  for (const SumTree& c : t.children()) inner_nodes_in_order(c, nodes);
}

// Every tree one edit away from t: a node of the other kind, a child merged into its parent, or
// two children of a node of three or more wrapped in a node of their own.
std::vector<SumTree> tree_edits(const SumTree& t) {
  std::vector<const SumTree*> nodes;
  inner_nodes_in_order(t, nodes);
  std::vector<SumTree> edits;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    int seen = 0;
    edits.push_back(flip_node(t, i, seen));
  }
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    for (int child = 0; child < static_cast<int>(nodes[i]->children().size()); ++child) {
      int seen = 0;
      if (auto m = merge_child(t, i, child, seen)) edits.push_back(*m);
    }
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    const int width = static_cast<int>(nodes[n]->children().size());
    for (int i = 0; width >= 3 && i < width; ++i)
      for (int j = i + 1; j < width; ++j) {
        int seen = 0;
        if (auto w = wrap_children(t, n, i, j, seen)) edits.push_back(*w);
      }
  }
  return edits;
}

}  // namespace

SearchResult search_tree(const FdpaParams& start, std::span<const SumTree> recovered,
                         const Format& in, const Format& out, std::span<const DotCase> cases) {
  SearchResult best;
  best.params = start;
  best.disagreements = count_disagreements(start, in, out, cases);
  if (recovered.empty()) return best;
  FdpaParams base = canonical_params(start);
  base.structure = FdpaStructure::tree;
  base.c_in_block = false;
  // FPRev's exact nodes absorb nothing: an exact sum that a "( )" node rounds once, or one
  // passed up unrounded ("[ ]"); both readings of each tree are typed.
  std::vector<std::string> shapes;
  for (const SumTree& r : recovered) {
    const SumTree instruction = instruction_of(r);
    for (const SumTree& shape : {rounding_nodes(instruction), instruction})
      if (std::find(shapes.begin(), shapes.end(), shape.text()) == shapes.end())
        shapes.push_back(shape.text());
  }
  const SumTree instruction = instruction_of(recovered.front());
  std::vector<RoundingMode> modes{start.out_rounding.mode};
  for (RoundingMode m : {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up, RoundingMode::down})
    if (m != modes.front()) modes.push_back(m);
  // The best typing of FPRev's tree, kept apart from `start` so that edits start from it even
  // when `start` does better.
  FdpaParams tree = base;
  std::size_t tree_d = cases.size() + 1;
  for (const std::string& shape : shapes) {
    base.tree = intern_tree(shape);
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
            const std::size_t d = count_disagreements(p, in, out, cases, tree_d);
            if (d < tree_d) tree = p, tree_d = d;
          }
  }
  // FPRev cannot see every node's kind (an exact node whose children are not all leaves shows
  // as rounding; a fused node as a rounding one over a rounding child): edit the tree, one node
  // at a time, while an edit agrees on more cases.
  std::vector<std::string> edits;
  while (tree_d > 0) {
    const SumTree current = parse_sum_tree(tree.tree);
    bool improved = false;
    for (const SumTree& edit : tree_edits(current)) {
      FdpaParams p = tree;
      p.tree = intern_tree(edit.text());
      ++best.candidates;
      const std::size_t d = count_disagreements(p, in, out, cases, tree_d);
      if (d < tree_d) {
        edits.push_back(edit.text() + " (" + std::to_string(d) + " wrong)");
        tree = p, tree_d = d, improved = true;
        break;
      }
    }
    if (!improved) break;
  }
  if (tree_d < best.disagreements) {
    best.params = tree;
    best.disagreements = tree_d;
    best.changes.push_back("structure = tree " + instruction.text() + " (from the recovered " +
                           std::to_string(product_count(recovered.front())) + "-product tree" +
                           (recovered.size() > 1 ? " and its other reading" : "") + "), " +
                           model_spec(best.params));
    for (const std::string& e : edits) best.changes.push_back("tree edited: " + e);
  }
  return best;
}

}  // namespace fpconform::characterize
