// A summation tree: how a dot product D = sum a_i * b_i + C is reduced.
//
// A tree's leaves are the k products (0 .. k-1) and C ("c"); an inner node is one rounding step
// over any number of children: a fused block of L products is one (L+1)-way node, an fma is a
// 2-way node (c 0), a chain nests them. Canonical text form (what text() writes and
// parse_sum_tree reads):
//   leaf     "c" or a decimal product index
//   node     "(" children separated by single spaces ")"   rounding node (FPRev sees absorption)
//            "[" ... "]"                                    exact node (no absorption: a Kulisch
//                                                           sum; the order inside is not visible)
// Children are sorted by their smallest leaf, c before every product; a node with one child is
// that child. So the fused chain of L = 4 over k = 8 with C in the first block is
// "((c 0 1 2 3) 4 5 6 7)", the fma chain over k = 3 is "(((c 0) 1) 2)".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fpconform {

class SumTree {
 public:
  static SumTree product(int index);
  static SumTree c();
  // Canonical: children sorted; one child collapses to that child. Throws Error when empty.
  static SumTree node(std::vector<SumTree> children, bool exact = false);

  bool is_leaf() const { return kind_ != Kind::node; }
  bool is_c() const { return kind_ == Kind::c; }
  int index() const { return index_; }  // product index of a product leaf
  bool exact() const { return exact_; }
  const std::vector<SumTree>& children() const { return children_; }
  int leaf_count() const { return leaves_; }
  // Sort key of the smallest leaf: -1 for c, else the product index.
  int min_key() const { return min_key_; }
  std::string text() const;
  bool operator==(const SumTree& o) const;

 private:
  enum class Kind : std::uint8_t { product, c, node };
  Kind kind_ = Kind::node;
  int index_ = -1;
  bool exact_ = false;
  int leaves_ = 0;
  int min_key_ = 0;
  std::vector<SumTree> children_;
};

// Reads the canonical text form (any child order, any spacing). Throws Error naming `what`.
SumTree parse_sum_tree(std::string_view text, std::string_view what = "tree");

// Product leaves of t.
int product_count(const SumTree& t);

// An instruction's tree (over c and products 0 .. n-1) run as a chain over k products:
// instruction j takes products j*n .. j*n + n - 1 and the previous result as its c; products
// k and above are dropped (a zero-padded last instruction: zeros change nothing FPRev sees).
SumTree chain_instructions(const SumTree& instruction, int k);

// The smallest instruction tree whose chain_instructions over t's products is t (t itself
// when there is none shorter): AMX's two TDPBF16PS over k = 64 give the tree of one; a
// 6-product instruction over k = 32 (five and a short sixth) gives the 6-product tree.
SumTree instruction_of(const SumTree& t);

}  // namespace fpconform
