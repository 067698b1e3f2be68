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

// t with its inner node number `target` (pre-order, from 0) replaced by edit(node), or nullopt
// where there is no such node or the edit does not apply to it.
template <class Edit>
std::optional<SumTree> edit_at(const SumTree& t, int target, const Edit& edit, int& seen) {
  if (t.is_leaf()) return std::nullopt;
  if (seen++ == target) return edit(t);
  std::vector<SumTree> kids;
  bool changed = false;
  for (const SumTree& c : t.children()) {
    std::optional<SumTree> e = edit_at(c, target, edit, seen);
    changed = changed || e.has_value();
    kids.push_back(e ? std::move(*e) : c);
  }
  if (!changed) return std::nullopt;
  return SumTree::node(std::move(kids), t.exact());
}

// The node of the other kind: exact for a rounding node, rounding for an exact one.
std::optional<SumTree> flip_kind(const SumTree& node) {
  return SumTree::node(node.children(), !node.exact());
}

// The inner child `child` merged into the node (its children become the node's own: a fused
// node where FPRev saw a rounding below it).
std::optional<SumTree> merge_child(const SumTree& node, std::size_t child) {
  const auto& ch = node.children();
  if (child >= ch.size() || ch[child].is_leaf()) return std::nullopt;
  std::vector<SumTree> kids;
  for (std::size_t i = 0; i < ch.size(); ++i)
    if (i == child) kids.insert(kids.end(), ch[i].children().begin(), ch[i].children().end());
    else kids.push_back(ch[i]);
  return SumTree::node(std::move(kids), node.exact());
}

// Children i and j of a node of three or more wrapped in a new rounding node (two leaves FPRev
// saw as siblings of a wider node, or a child of the node above).
std::optional<SumTree> wrap_children(const SumTree& node, std::size_t i, std::size_t j) {
  const auto& ch = node.children();
  if (ch.size() < 3) return std::nullopt;
  std::vector<SumTree> kids;
  for (std::size_t c = 0; c < ch.size(); ++c)
    if (c != i && c != j) kids.push_back(ch[c]);
  kids.push_back(SumTree::node({ch[i], ch[j]}));
  return SumTree::node(std::move(kids), node.exact());
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
  const auto add = [&](int node, const auto& edit) {
    int seen = 0;
    if (std::optional<SumTree> e = edit_at(t, node, edit, seen)) edits.push_back(std::move(*e));
  };
  const int count = static_cast<int>(nodes.size());
  for (int n = 0; n < count; ++n) add(n, flip_kind);
  for (int n = 0; n < count; ++n)
    for (std::size_t child = 0; child < nodes[static_cast<std::size_t>(n)]->children().size(); ++child)
      add(n, [child](const SumTree& node) { return merge_child(node, child); });
  for (int n = 0; n < count; ++n) {
    const std::size_t width = nodes[static_cast<std::size_t>(n)]->children().size();
    for (std::size_t i = 0; width >= 3 && i < width; ++i)
      for (std::size_t j = i + 1; j < width; ++j)
        add(n, [i, j](const SumTree& node) { return wrap_children(node, i, j); });
  }
  return edits;
}

}  // namespace

SearchResult search_tree(const FdpaParams& start, std::span<const SumTree> recovered,
                         const FdpaFormats& f, std::span<const DotCase> cases) {
  SearchResult best;
  best.params = start;
  best.disagreements = count_disagreements(start, f, cases);
  if (recovered.empty()) return best;
  // Only what a tree of rounding nodes reads carries over from `start`: a block, an
  // instruction split or alignment bits found for the fixed structures mean nothing here (the
  // tree is the instruction; longer K chains it).
  FdpaParams base;
  base.structure = FdpaStructure::tree;
  base.c_in_block = false;
  base.out_rounding = start.out_rounding;
  base.flush_subnormal_inputs = start.flush_subnormal_inputs;
  base.flushed_inputs_positive = start.flushed_inputs_positive;
  base.flush_subnormal_outputs = start.flush_subnormal_outputs;
  base.nan = start.nan;
  base.nan_b_first = start.nan_b_first;
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
            const std::size_t d = count_disagreements(p, f, cases, tree_d);
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
      const std::size_t d = count_disagreements(p, f, cases, tree_d);
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
                           model_text(best.params));
    for (const std::string& e : edits) best.changes.push_back("tree edited: " + e);
  }
  return best;
}

}  // namespace fpconform::characterize
