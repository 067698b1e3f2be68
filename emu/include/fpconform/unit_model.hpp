// A matrix unit as typed stages: how a and b become products, the reduction node that sums them
// (a fused n-way block, an exact sum, a pairwise tree or chain of IEEE operations, or a tree of
// rounding nodes), where C enters, how an instruction walks K, and the output stage. Each stage
// holds only the parameters that mean something for it, so a combination that means nothing
// (a pairwise tree with alignment bits, an accumulator cut on an fma chain) cannot be written.
// The fdpa algorithm runs on FdpaParams, the flat form every stage lowers to (lower); any
// FdpaParams raises to the one UnitModel that computes the same (raise).
//
// Text form (unit_text writes it, parse_unit reads it; `--model` takes it): stages separated by
// " | ", each name(arguments), an argument key=value or a bare flag, in this order:
//   products(flush, flush_positive, bits=N, rounding=R, overflow_inf)   optional
//   scales(block=N, subsum=G)                                           optional
//   one node:
//     fused(block=L, frac_bits=F, align=R, zero_exp=E|none, carry_bits=N, interleave=G,
//           group_align=R)
//     exact(block=N)            exact sums of N products (0: all), each rounded once
//     pairwise(group=N)         IEEE fma leaves and additions in D's format, balanced
//     chain()                   fma(a_k, b_k, ... fma(a_0, b_0, C)) in D's format
//     tree(T)                   T: a SumTree text over c and the instruction's products
//   c(block) | c(after) | c(late, sum_frac_bits=, c_frac_bits=, drop_below=, align=)
//                                                                       fused only; default block
//   instr(k=N, order=natural|pairs_mod4, c_last)                        optional
//   acc(frac_bits=N)                                                    optional; fused, exact
//   out(MODE, sat=S, flush, underflow_positive, nan=POLICY, nan_b_first)
// R is truncate, nearest_even or down; MODE a rounding mode (rne, rtz, ...). Arguments left out
// take the values FdpaParams{} has; unit_text writes only those that differ.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fpconform/fdpa.hpp"

namespace fpconform {

struct ProductStage {
  bool flush = false;           // subnormal a, b (and C) read as zeros
  bool flush_positive = false;  // ... as +0, whatever their sign
  int bits = -1;                // fused: each product rounded to this many significant bits
  AlignRounding rounding = AlignRounding::truncate;
  bool overflow_inf = false;    // fused: |a*b| >= 2^(D's emax + 1) is an infinity
};

struct ScaleStage {
  int block = 0;   // elements per scale (0: the unit takes no scales)
  int subsum = 0;  // products per exact sub-sum (0: products are the terms)
};

struct FusedNode {
  int block = 4, frac_bits = 23;
  AlignRounding align = AlignRounding::truncate;
  int zero_exp = INT_MIN;  // INT_MIN: zero terms give no exponent
  int carry_bits = -1;
  int interleave = 1;
  AlignRounding group_align = AlignRounding::down;
};
struct ExactNode {
  int block = 0;
};
struct PairwiseNode {
  int group = 4;
};
struct ChainNode {};
struct TreeNode {
  std::string_view tree;  // interned (intern_tree)
};
using ReductionNode = std::variant<FusedNode, ExactNode, PairwiseNode, ChainNode, TreeNode>;

// Where C enters a fused node: aligned with the products, added exactly after the block, or the
// two-stage late C.
struct CStage {
  enum class Place : std::uint8_t { block, after, late } place = Place::block;
  int sum_frac_bits = 31, c_frac_bits = 24, drop_below = -1;
  AlignRounding align = AlignRounding::down;
};

struct InstructionStage {
  int k = 0;  // products per instruction (0: all of K)
  KOrder order = KOrder::natural;
  bool c_last = false;
};

struct OutputStage {
  Rounding rounding{RoundingMode::rtz};  // mode and saturation
  bool flush = false;
  bool underflow_positive = false;
  int acc_frac_bits = -1;  // the acc() stage
  std::string_view nan = "nvidia";
  bool nan_b_first = false;
};

struct UnitModel {
  ProductStage products;
  ScaleStage scales;
  ReductionNode node = FusedNode{};
  CStage c;
  InstructionStage instr;
  OutputStage out;
};

// The flat parameters fdpa runs on. Fields the stages do not set keep FdpaParams{}'s values
// (pairwise, chain, exact and tree set c_in_block false: C is not in a fused block).
FdpaParams lower(const UnitModel& m);
// The unit that computes what p computes: the fields p's structure reads, the rest dropped.
UnitModel raise(const FdpaParams& p);

// The text form's stages as data, in order, each with the arguments the text writes (those
// that differ from the defaults): unit_text joins them; `models --json` and device profiles
// write them as objects.
struct StageArg {
  enum class Kind : std::uint8_t { flag, integer, word } kind;
  std::string key;    // a bare word's key names what it is: out's "mode", c's "place", "tree"
  int integer = 0;
  std::string word;
  bool bare = false;  // a word written alone
};
struct UnitStage {
  std::string name;
  std::vector<StageArg> args;
};
std::vector<UnitStage> unit_stages(const UnitModel& m);

// The text form (see above), and back. parse_unit throws Error naming `what` and the stage for
// an unknown stage or argument, one the node does not take, stages out of order or repeated,
// or no node.
std::string unit_text(const UnitModel& m);
UnitModel parse_unit(std::string_view text, std::string_view what = "--model");

// Whether `text` is written in the staged form (it has a stage's parentheses and is not a
// `custom:` list), for parse_model.
bool is_unit_text(std::string_view text);

}  // namespace fpconform
