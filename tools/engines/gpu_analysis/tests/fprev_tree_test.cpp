// FPRev trees from recorded rows (src/fprev_tree.cpp): rows laid out as fprev.plan lays them
// (plans/write_check_plans.sh), answered by emu targets whose tree expected_order gives
// independently of the recovery; the tree recovered from the replayed rows must be that tree, and
// a kernel whose rows come from another tree must be reported as differing.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "fpconform/characterize/order.hpp"
#include "fpconform/characterize/target.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gpu/fprev_tree.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"
#include "fpconform/gpu/mma_verdict.hpp"
#include "synthetic_fprev.hpp"

namespace fpconform::gpu {
namespace {

using characterize::EmuTarget;
using testing::fprev_result;

const Format kF16 = parse_format("f16"), kF32 = parse_format("f32");

TEST(FprevTree, MmaSyncRowsGiveThePresetTree) {
  const FdpaParams p = parse_model("hopper-mma", kF16, kF32);
  EmuTarget unit("emu:hopper-mma", p, kF16, kF32);
  const FprevTree t = fprev_tree(fprev_result("mma_m16n8k16_f32_f16", 90, unit));
  EXPECT_EQ(t.error, "");
  EXPECT_EQ(t.recovered, characterize::expected_order(p, 16).text());
  EXPECT_EQ(t.expected_from, "hopper-mma");
  EXPECT_TRUE(t.matches()) << to_string(t);
  EXPECT_NE(to_string(t).find("matches"), std::string::npos);
}

TEST(FprevTree, SplitKPairwiseMatchesTheKernelsDocumentedTree) {
  // splitk4_k128: four slices of chained mma.sync (ampere on cc 80), ((s0 + s1) + (s2 + s3)) + c
  const FdpaParams p = parse_model("ampere", kF16, kF32);
  EmuTarget unit("emu:ampere@split-k=4,reduction=pairwise", p, kF16, kF32, 4, SplitReduction::pairwise);
  const FprevTree t = fprev_tree(fprev_result("splitk4_k128_f32_f16", 80, unit));
  EXPECT_EQ(t.recovered, characterize::expected_order(p, 128, 4, SplitReduction::pairwise).text());
  EXPECT_EQ(t.expected_from, "split-k=4 pairwise of ampere");
  EXPECT_TRUE(t.matches()) << to_string(t);
}

TEST(FprevTree, SequentialSplitKIsReportedAsDiffering) {
  const FdpaParams p = parse_model("ampere", kF16, kF32);
  EmuTarget unit("emu:ampere@split-k=4", p, kF16, kF32, 4, SplitReduction::sequential);
  const FprevTree t = fprev_tree(fprev_result("splitk4_k128_f32_f16", 80, unit));
  const std::string sequential = characterize::expected_order(p, 128, 4, SplitReduction::sequential).text();
  ASSERT_NE(sequential, characterize::expected_order(p, 128, 4, SplitReduction::pairwise).text());
  EXPECT_EQ(t.recovered, sequential);
  EXPECT_FALSE(t.matches());
  EXPECT_NE(to_string(t).find("DIFFERS"), std::string::npos);
  EXPECT_NE(fprev_markdown(std::span(&t, 1)).find("| differs |"), std::string::npos);
}

// Rounding nodes over children of unequal sizes (IEEE f32 adds, round to nearest): the pivot's
// counts alone misread the first and fit no tree for the second, but the rows hold every pair,
// and a tree that gives every count is the unit's (its multi-way nodes that absorb nothing read
// as exact nodes: rounding_nodes).
TEST(FprevTree, EveryPairsCountIsCheckedWhereThePivotMisreads) {
  for (const char* text : {"((c ((0 7) (1 (4 6) 11 12 13) ((2 9) 5) 8 14)) (3 10 15))",
                           "(((c 9 10 11) 0) (((1 2 7 13 15) 3) 14) (4 8) (5 6) 12)"}) {
    const SumTree tree = characterize::parse_sum_tree(text, "test");
    FdpaParams p;
    p.structure = FdpaStructure::tree;
    p.c_in_block = false;
    p.out_rounding.mode = RoundingMode::rne;
    p.tree = intern_tree(tree.text());
    EmuTarget unit("emu:tree", p, kF16, kF32);
    bool pivot_right = false;
    try {
      pivot_right = characterize::rounding_nodes(characterize::recover_order(unit, 16)) == tree;
    } catch (const Error&) {
    }
    EXPECT_FALSE(pivot_right) << text << ": the pivot alone reads it, no test of the check";
    const FprevTree t = fprev_tree(fprev_result("mma_m16n8k16_f32_f16", 90, unit));
    EXPECT_EQ(t.error, "") << text;
    std::vector<std::string> readings{t.recovered};
    readings.insert(readings.end(), t.alternatives.begin(), t.alternatives.end());
    const bool found = std::any_of(readings.begin(), readings.end(), [&](const std::string& r) {
      return !r.empty() && characterize::rounding_nodes(characterize::parse_sum_tree(r, "test")) == tree;
    });
    EXPECT_TRUE(found) << text << ": " << to_string(t);
    EXPECT_FALSE(t.matches());  // the kernel's expected tree is hopper-mma's fused block
  }
}

TEST(FprevTree, MissingRowsAreReportedNotGuessed) {
  const FdpaParams p = parse_model("hopper-mma", kF16, kF32);
  EmuTarget unit("emu:hopper-mma", p, kF16, kF32);
  const FprevTree t = fprev_tree(fprev_result("mma_m16n8k16_f32_f16", 90, unit, 1));  // no all-units row
  EXPECT_EQ(t.recovered, "");
  EXPECT_NE(t.error.find("no FPRev row"), std::string::npos) << t.error;
  EXPECT_FALSE(t.matches());
}

TEST(FprevTree, AnOutputThatIsNotACountIsAFindingNamingTheRow) {
  const FdpaParams p = parse_model("hopper-mma", kF16, kF32);
  EmuTarget unit("emu:hopper-mma", p, kF16, kF32);
  Result r = fprev_result("mma_m16n8k16_f32_f16", 90, unit);
  r.blocks[1].data[2] = 0x3FC00000;  // 1.5: not a whole number of units of 2^-28
  const FprevTree t = fprev_tree(r);
  EXPECT_EQ(t.recovered, "");
  EXPECT_NE(t.error.find("fprev.mma_m16n8k16_f32_f16 row 3"), std::string::npos) << t.error;
}

TEST(FprevTree, ARowThatIsNotAnFprevRowIsBadInput) {
  const FdpaParams p = parse_model("hopper-mma", kF16, kF32);
  EmuTarget unit("emu:hopper-mma", p, kF16, kF32);
  Result r = fprev_result("mma_m16n8k16_f32_f16", 90, unit);
  r.blocks[0].data[0] = 0x3C00;  // row 1's a_0: 1, beside units of 2^-14
  EXPECT_THROW(fprev_tree(r), std::invalid_argument);
}

}  // namespace
}  // namespace fpconform::gpu
