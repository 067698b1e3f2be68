// Sum trees as data (sum_tree.hpp) and fdpa's tree structure read from text.
#include <gtest/gtest.h>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/unit_model.hpp"
#include "fpconform/sum_tree.hpp"

namespace fpconform {
namespace {

TEST(SumTree, ChainOfInstructionsAndBack) {
  // VDPBF16PS over k = 6: three instructions ((c 1) 0), each on the previous result.
  const SumTree one = parse_sum_tree("((c 1) 0)");
  const SumTree six = chain_instructions(one, 6);
  EXPECT_EQ(six.text(), "((((((c 1) 0) 3) 2) 5) 4)");
  EXPECT_EQ(instruction_of(six), one);
  // A short last instruction drops its missing products.
  EXPECT_EQ(chain_instructions(one, 3).text(), "(((c 1) 0) 2)");
  EXPECT_EQ(instruction_of(chain_instructions(one, 3)), one);
  const SumTree block6 = parse_sum_tree("(((((c 3 5) 2) 4) 1) 0)");
  EXPECT_EQ(instruction_of(chain_instructions(block6, 32)), block6);
  // Two even/odd instructions of 4 products into one C.
  const SumTree eo = parse_sum_tree("(c ((0 2) (1 3)))");
  const SumTree eight = chain_instructions(eo, 8);
  EXPECT_EQ(eight.text(), "((c ((0 2) (1 3))) ((4 6) (5 7)))");
  EXPECT_EQ(instruction_of(eight), eo);
  // Nothing shorter chains to a pairwise tree.
  const SumTree pairwise = parse_sum_tree("(c ((0 1) (2 3)))");
  EXPECT_EQ(instruction_of(pairwise), pairwise);
  EXPECT_EQ(product_count(eight), 8);
}

TEST(FdpaTree, SpecRoundTripsAndRefusesMalformedTrees) {
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  const FdpaParams p =
      parse_model("custom:structure=tree,tree=(c ((0 2) (1 3))),flush_inputs=1,nan=x86", bf16, f32);
  EXPECT_EQ(p.structure, FdpaStructure::tree);
  EXPECT_EQ(p.tree, "(c ((0 2) (1 3)))");
  EXPECT_EQ(model_text(p), "products(flush) | tree((c ((0 2) (1 3)))) | out(rtz, nan=x86)");
  EXPECT_TRUE(same_params(parse_model(model_text(p), bf16, f32), lower(raise(p))));
  for (const char* bad : {"custom:structure=tree", "custom:structure=tree,tree=(c 0 0)",
                          "custom:structure=tree,tree=(0 1)", "custom:structure=tree,tree=(c (0 2))",
                          "custom:structure=tree,tree=(c (0 1)"}) {
    try {
      parse_model(bad, bf16, f32, "--model");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--model"), std::string::npos) << e.what();
    }
  }
}

// Hand-computed in binary32 (every product exact): where two roundings happen decides.
TEST(FdpaTree, NodesRoundWhereTheTreeSays) {
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  const std::vector<std::uint64_t> a{0x3380, 0x3380, 0x3F80, 0x0000};  // 2^-24, 2^-24, 1, 0
  const std::vector<std::uint64_t> b{0x3F80, 0x3F80, 0x3F80, 0x3F80};
  auto run = [&](const char* tree) {
    return fdpa(parse_model(std::string("custom:structure=tree,out_round=rne,tree=") + tree, bf16, f32),
                bf16, f32, a, b, 0);
  };
  // (0 1): 2^-24 + 2^-24 = 2^-23 exactly; then 1 + 2^-23 is a binary32 value.
  EXPECT_EQ(run("(c ((0 1) (2 3)))"), 0x3F800001u);
  // (0 2): 1 + 2^-24 ties to 1; (1 3): 2^-24; 1 + 2^-24 ties to 1 again.
  EXPECT_EQ(run("(c ((0 2) (1 3)))"), 0x3F800000u);
  // A chain from C in k order: 2^-24 + 2^-24 = 2^-23 before the 1 arrives.
  EXPECT_EQ(run("((((c 0) 1) 2) 3)"), 0x3F800001u);
  // The 1 first: each 2^-24 is then lost to a tie.
  EXPECT_EQ(run("((((c 2) 0) 1) 3)"), 0x3F800000u);
  // A 3-way rounding node: one rounding of 2^-24 + 2^-24 + 1.
  EXPECT_EQ(run("(c (0 1 2) 3)"), 0x3F800001u);
}

// A node's one exact sum holds terms however far apart: 8 + 2^-130 - 8 is 2^-130 (a binary32
// subnormal, 2^-126 * 2^-4), though 8 and 2^-130 span 134 bits before the -8 cancels the 8.
// Where a node of the two products rounds first (a 2-way "[ ]" is a rounding node), 2^-130 is
// lost to 8 and the result is +0.
TEST(FdpaTree, NodeSumsTermsFarApartExactly) {
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  const std::vector<std::uint64_t> a{0x4100, 0x1F00, 0x0000};  // 8, 2^-65, 0
  const std::vector<std::uint64_t> b{0x3F80, 0x1F00, 0x3F80};  // 1, 2^-65, 1
  const std::uint64_t minus_8 = 0xC1000000;
  auto run = [&](const char* tree) {
    const FdpaParams p =
        parse_model(std::string("custom:structure=tree,out_round=rne,tree=") + tree, bf16, f32);
    return fdpa(p, bf16, f32, a, b, minus_8);
  };
  for (const char* tree : {"(c 0 1 2)", "(c [0 1 2])", "[c 0 1 2]", "((c 0) 1 2)"})
    EXPECT_EQ(run(tree), 0x00080000u) << tree;
  EXPECT_EQ(run("(c (0 1) 2)"), 0u);
  EXPECT_EQ(run("(c [0 1] 2)"), 0u);
}

}  // namespace
}  // namespace fpconform
