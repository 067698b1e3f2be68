// Model synthesis: the parameter set of the FdpaParams family that reproduces a set of observed
// cases, found by a local search (single changes, then pairs of changes) from a start that the
// probes chose. Every parameter the family has is in the search; equivalent models are fine.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/sum_tree.hpp"

namespace fpconform::characterize {

// One change to a parameter set ("frac_bits = 13").
struct ParamMove {
  std::string label;
  std::function<void(FdpaParams&)> apply;
};

// Every single change the search tries: each parameter over its range, and the combinations
// the family only accepts together (C after the block with interleaved groups, ...).
std::vector<ParamMove> param_moves(const FdpaFormats& f);
// The changes of one named parameter (as describe_params names it; "c_place" for c_in_block
// and late_c together, "flush" for the three flushing flags).
std::vector<ParamMove> param_moves(const std::string& name, const FdpaFormats& f);

// Cases the model does not reproduce, counting up to `limit` (then stops); a model that throws
// for a case disagrees on it.
std::size_t count_disagreements(const FdpaParams& p, const FdpaFormats& f,
                                std::span<const DotCase> cases, std::size_t limit = SIZE_MAX);

struct SearchResult {
  FdpaParams params;
  std::size_t disagreements = 0;  // on the cases searched
  std::uint64_t candidates = 0;   // parameter sets evaluated
  std::vector<std::string> changes;  // the moves taken, in order
};

// Local search from `start`: take the best single change while one reduces the disagreements,
// then try pairs of the most promising changes, then pairs of small steps (+-1, +-2) of two
// integer parameters in use (quantities that trade off, such as zero_exp and late_c_frac_bits);
// stops at zero or when nothing helps. Parameters that matter only together are also single
// changes (interleave with group_align, product_bits with product_rounding, late C with its cut).
SearchResult search_params(const FdpaParams& start, const FdpaFormats& f,
                           std::span<const DotCase> cases, int max_rounds = 40);

// The reduction-tree member of the family for a unit whose summation tree FPRev recovered
// (`recovered`: its readings, ShapeChoice): the smallest instruction tree that a reading chains
// (instruction_of), its nodes rounding into `out`, with the output rounding, flushing and NaN
// choice (policy, a or b first) that disagree on the fewest `cases`, starting from `start`'s,
// over every reading; then the best tree is edited while an edit
// disagrees on fewer cases (a node of the other kind, exact or rounding; a child node merged
// into its parent; two children of a wide node wrapped in their own node), as FPRev cannot see
// every node's kind nor tell every shape from its mirror. `start` is returned unchanged in
// .params when no tree candidate does better than it.
SearchResult search_tree(const FdpaParams& start, std::span<const SumTree> recovered,
                         const FdpaFormats& f, std::span<const DotCase> cases);

// p with the fields its structure does not read reset to FdpaParams{} (a sequential chain
// reads only the output rounding, flushing and NaN policy; pairwise also the group size;
// exact also the block, accumulator cut and sub-sums): the same unit, a shorter spec.
FdpaParams canonical_params(const FdpaParams& p);

// A random member of the family for inputs `in` and results `out` (closed-loop tests): any
// structure that accepts the formats, blocks, fraction bits, alignment and output rounding, zero
// exponents, C placements (late C included), accumulator cuts, flushing, carry limits, rounded
// products, interleaved groups and NaN policies, each drawn from `rng`.
FdpaParams random_params(std::uint64_t seed, const Format& in, const Format& out);

// A random reduction tree over C and `products` products: neighbours merged two at a time, or
// three to five, until one root is left; an inner node other than the root is exact with
// probability `exact_share`.
SumTree random_sum_tree(std::uint64_t seed, int products, double exact_share);

// The tree structure over a random tree of 2 to 32 products, with a random output rounding,
// flushing of inputs and outputs, NaN policy and NaN operand order.
FdpaParams random_tree_params(std::uint64_t seed);

}  // namespace fpconform::characterize
