// random_params, random_sum_tree, random_tree_params: random units for closed-loop tests (see
// synthesize.hpp).
#include <algorithm>
#include <climits>
#include <random>
#include <vector>

#include "fpconform/characterize/synthesize.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fpconform/sum_tree.hpp"

namespace fpconform::characterize {

namespace {

// The draws every generator makes, from one seeded engine.
struct Dice {
  explicit Dice(std::uint64_t seed) : rng(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
  RoundingMode rounding() {
    constexpr RoundingMode kModes[] = {RoundingMode::rtz, RoundingMode::rne, RoundingMode::up,
                                       RoundingMode::down};
    return kModes[uniform(0, 3)];
  }
  std::string_view nan() {
    return nan_policies()[static_cast<std::size_t>(uniform(0, static_cast<int>(nan_policies().size()) - 1))].name;
  }
  std::mt19937_64 rng;
};

}  // namespace

FdpaParams random_params(std::uint64_t seed, const Format& in, const Format& out) {
  Dice dice(seed);
  auto uniform = [&](int lo, int hi) { return dice.uniform(lo, hi); };
  auto chance = [&](double p) { return dice.chance(p); };
  auto pick_align = [&] { return static_cast<AlignRounding>(uniform(0, 2)); };
  FdpaParams p;
  p.nan = dice.nan();
  p.out_rounding.mode = dice.rounding();
  p.flush_subnormal_inputs = chance(0.15);
  p.flushed_inputs_positive = p.flush_subnormal_inputs && chance(0.5);
  p.flush_subnormal_outputs = chance(0.15);
  const int roll = uniform(0, 99);
  const bool ieee_ok = holds_exactly(in, out);
  if (roll < 10) {
    p.structure = FdpaStructure::exact;
    p.c_in_block = false;
    p.block = chance(0.4) ? 0 : uniform(1, 16);
    return p;
  }
  if (roll < 20 && ieee_ok) {
    p.structure = chance(0.5) ? FdpaStructure::sequential : FdpaStructure::pairwise;
    p.c_in_block = false;
    p.block = uniform(1, 8);
    return p;
  }
  const int blocks[] = {1, 2, 3, 4, 5, 8, 12, 16, 32, 64};
  p.block = blocks[uniform(0, 9)];
  p.frac_bits = uniform(std::max(4, in.man_bits), std::min(40, 2 * in.precision() + 16));
  p.align = pick_align();
  const int z = uniform(0, 9);
  p.zero_exp = z < 4 ? INT_MIN : z < 7 ? uniform(-140, -120) : uniform(-30, 0);
  const int c = uniform(0, 9);
  p.c_in_block = c < 6;
  if (c == 9) {
    p.late_c = true;
    p.late_sum_frac_bits = uniform(26, 34);
    p.late_c_frac_bits = uniform(20, 26);
    p.late_c_drop_below = chance(0.5) ? -1 : uniform(20, 30);
    p.late_align = pick_align();
  }
  if (!p.c_in_block && p.block >= 4 && chance(0.15)) {
    p.interleave = 2;
    p.group_align = pick_align();
  }
  if (chance(0.3)) p.acc_frac_bits = uniform(std::min(10, out.man_bits - 1), out.man_bits - 1);
  if (chance(0.15)) p.carry_bits = uniform(0, 3);
  if (chance(0.15)) {
    p.product_bits = uniform(in.precision() + 1, 2 * in.precision());
    p.product_rounding = pick_align();
  }
  p.product_overflow = chance(0.1);
  return p;
}

SumTree random_sum_tree(std::uint64_t seed, int products, double exact_share) {
  Dice dice(seed);
  std::vector<SumTree> forest{SumTree::c()};
  for (int i = 0; i < products; ++i) forest.push_back(SumTree::product(i));
  std::shuffle(forest.begin(), forest.end(), dice.rng);
  // Merge runs of neighbours until one root is left: chains, balanced and multi-way shapes all
  // arise, and a node may mix C, products and sub-trees.
  while (forest.size() > 1) {
    const int left = static_cast<int>(forest.size());
    const int width = std::min(left, dice.uniform(0, 3) == 0 ? dice.uniform(3, 5) : 2);
    const int at = dice.uniform(0, left - width);
    const bool exact = dice.chance(exact_share) && left > width;  // the root rounds
    std::vector<SumTree> kids(forest.begin() + at, forest.begin() + at + width);
    forest.erase(forest.begin() + at, forest.begin() + at + width);
    forest.insert(forest.begin() + at, SumTree::node(std::move(kids), exact));
  }
  return forest.front();
}

FdpaParams random_tree_params(std::uint64_t seed) {
  constexpr int kSizes[] = {2, 3, 4, 5, 6, 8, 8, 12, 16, 16, 32};
  Dice dice(seed);
  FdpaParams p;
  p.structure = FdpaStructure::tree;
  p.c_in_block = false;
  const int products = kSizes[dice.uniform(0, 10)];
  p.tree = intern_tree(random_sum_tree(dice.rng(), products, 0.15).text());
  p.out_rounding.mode = dice.rounding();
  p.flush_subnormal_inputs = dice.chance(0.3);
  p.flush_subnormal_outputs = dice.chance(0.3);
  p.nan = dice.nan();
  p.nan_b_first = dice.chance(0.3);
  return p;
}

}  // namespace fpconform::characterize
