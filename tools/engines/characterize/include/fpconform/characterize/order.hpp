// Summation order: the reduction tree of a dot product D = sum a_i * b_i + C, recovered from a
// black-box target by FPRev (Xie et al., arXiv 2411.00442), the tree a known model implies, and
// what a tree says about the model's parameters.
//
// The tree itself (SumTree, its text form) is emu's: fpconform/sum_tree.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/characterize/target.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/gemm.hpp"
#include "fpconform/sum_tree.hpp"

namespace fpconform::characterize {

using fpconform::parse_sum_tree;
using fpconform::SumTree;

struct OrderStats {
  std::uint64_t queries = 0;  // dot products evaluated (rows)
  int rounds = 0;             // run() calls
  int big_exp = 0;            // M = 2^big_exp: the swamping summand
  int unit_exp = 0;           // the unit 2^unit_exp
  bool subnormal_units = false;  // the unit uses subnormal inputs or a subnormal C
  // False when the whole tree is one exact node: no summand ever absorbed another, so the
  // order cannot be seen (an exact sum, or rounding only at the end).
  bool order_visible = true;
  // The pivot counts fit two shapes at some node (more children of it, or a node above it):
  // recover_order with the other `ShapeChoice` gives the other reading (recover_readings).
  bool ambiguous = false;
  std::vector<std::string> notes;
};

// Where the pivot counts fit both a new node above and more children of the node below: a new
// node where its other children are leaves (a chain of blocks), else the wider node; or the
// wider node always.
enum class ShapeChoice : std::uint8_t { leaves_above, wider_node };

// Recovers the summation tree of `t` for dot products of length k (leaves 0 .. k-1 and c) from
// black-box queries alone. Query (i, j): summand i is +M, summand j is -M, every other summand
// is the unit u; products are a*b of powers of two in t.in(), C a power of two in t.out(). M
// swamps the units wherever they meet it (IEEE round to nearest; alignment truncation in fused
// nodes), so D counts the units outside the lowest common ancestor of i and j. Rounds of
// pivot queries group the leaves recursively (multi-way nodes included): k queries for an fma
// chain, about (k / 2) log2 k for a pairwise tree, about k L / 2 for fused blocks of L; at most
// k (k + 1) / 2. Nodes where +M and -M cancel without absorbing the other units are exact
// nodes (their other children, leaves or sub-trees, keep their units); where the pivot's
// counts fit more children of one node and a new node above it alike (such as (a a a (b b b))
// and ((a a a) b b b)), one is taken and a note says so.
// M is as large as the products and t.out()
// allow, the unit up to 2^(log2 k + p_out + 26) below it (subnormal where the target does not
// flush them); OrderStats::notes says when the formats give less than IEEE additions or wide
// fused nodes need (e4m3 with flushed subnormals: 2^28), where a fused node that keeps more
// fraction bits than the range shows as exact. Under directed rounding, pairs are re-asked
// with the signs of M and of the units swapped; pairs whose units meet both +M and -M below
// their LCA under rounding toward zero (no sign absorbs them all: each node where units join
// the M of the other sign steps it one ulp) are read with a unit 2^(log2 k + 1) below that ulp,
// as D = s ulp + n units, where the output's precision holds both (f32: any k of a unit;
// f16: k <= 14). Throws Error when a result is still not a count of units (garbage, NaN, a
// format too narrow for the stepping read) or the counts fit no tree.
SumTree recover_order(Target& t, int k, OrderStats* stats = nullptr,
                      ShapeChoice choice = ShapeChoice::leaves_above);

// recover_order's tree and, where the counts are ambiguous (OrderStats::ambiguous) and the
// other ShapeChoice fits a different tree, that tree second: one set of summands, and only
// the pairs the second shape asks for that the first did not are queried again.
std::vector<SumTree> recover_readings(Target& t, int k, OrderStats* stats = nullptr);

// recover_readings' trees checked against the counts of every pair (one more round asks the
// pairs not asked yet; k (k + 1) / 2 in all): the readings that imply every count, then the
// other trees decoded from all pairs that imply them alike (at most 4 in all). Rounding nodes
// of three or more children of unequal sizes, which the pivot's counts alone can misread or fit
// to no tree, come back right; some counts fit two trees ([a b (c d)] counts as [(a b) c d]),
// and then both are returned. Where no tree fits every count, the pivot readings are returned
// unchecked, with a note.
std::vector<SumTree> recover_checked_readings(Target& t, int k, OrderStats* stats = nullptr);

// A recovered tree as the tree structure (fdpa.hpp) reads it: its exact nodes, which absorb
// nothing, are exact sums rounded once, "( )" nodes there (a "[ ]" node there is passed up
// unrounded, which the pivot queries cannot tell from its parent).
SumTree rounding_nodes(const SumTree& t);

// The tree that FdpaParams imply for k products (fdpa.hpp's documented semantics: blocks,
// groups, chains, instr_k / k_order / c_last), with split-K as gemm.hpp documents it (slices
// from +0, reduced sequentially or pairwise, then C added). Interleaved groups and late C do not
// change what FPRev sees (every term of the block is cut against the largest exponent), so the
// fused block is one node with the previous result. Throws Error for sub-sums (subsum > 0).
SumTree expected_order(const FdpaParams& unit, int k, int split_k = 1,
                       SplitReduction reduction = SplitReduction::sequential);

// What a recovered tree says about the family's parameters: every (structure, block,
// c_in_block, split-K) whose expected_order is this tree. FPRev cannot tell some apart (a fused
// block with C added after it looks like split-K of fused blocks): all are listed, simplest
// first.
struct OrderCandidate {
  FdpaParams unit;  // structure, block, c_in_block, instr_k set; the rest default
  int split_k = 1;
  SplitReduction reduction = SplitReduction::sequential;
  std::string text;  // "fused block=16 c_in_block=1", "split-k=4 pairwise of sequential"
};
struct OrderFindings {
  int k = 0;
  bool order_visible = true;
  std::vector<OrderCandidate> candidates;  // empty: no model of the family has this tree
  std::string summary;                     // one line for reports
};
OrderFindings describe_order(const SumTree& tree);

}  // namespace fpconform::characterize
