// Named block geometries against their specifications: OCP MX v1.0 (32-element blocks, E4M3 /
// E5M2 / E2M3 / E3M2 / E2M1 elements), NVIDIA NVFP4 (16 E2M1 elements, a per-tensor scale),
// DeepSeek-V3 tiles (R x C, E4M3).
#include <gtest/gtest.h>

#include "fpconform/block_spec.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform {
namespace {

TEST(BlockSpec, NamedBlocksFollowTheirSpecifications) {
  const struct {
    const char* name;
    const char* element;
    int cols;
    const char* rule;
    bool tensor;
  } table[] = {{"mxfp8", "e4m3", 32, "ocp", false},      {"mxfp8-e5m2", "e5m2", 32, "ocp", false},
               {"mxfp6", "e2m3", 32, "ocp", false},      {"mxfp6-e3m2", "e3m2", 32, "ocp", false},
               {"mxfp4", "e2m1", 32, "ocp", false},      {"nvfp4", "e2m1", 16, "nvfp4", true}};
  for (const auto& t : table) {
    const BlockSpec b = parse_block_spec(t.name, "rows");
    EXPECT_EQ(b.element, t.element) << t.name;
    EXPECT_EQ(b.block_rows, 1) << t.name;
    EXPECT_EQ(b.block_cols, t.cols) << t.name;
    EXPECT_EQ(b.rule, t.rule) << t.name;
    EXPECT_EQ(b.tensor_scale, t.tensor) << t.name;
    const BlockSpec c = parse_block_spec(t.name, "cols");
    EXPECT_EQ(c.block_rows, t.cols) << t.name;
    EXPECT_EQ(c.block_cols, 1) << t.name;
  }
  const BlockSpec tile = parse_block_spec("tile:128x64", "cols");  // a tile ignores the axis
  EXPECT_EQ(tile.element, "e4m3");
  EXPECT_EQ(tile.block_rows, 128);
  EXPECT_EQ(tile.block_cols, 64);
  EXPECT_EQ(tile.rule, "tile");
}

TEST(BlockSpec, BadTextNamesItsArgument) {
  auto where = [](const char* text, const char* axis) {
    try {
      (void)parse_block_spec(text, axis, "block", "axis");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(where("mxfp9", "rows").rfind("block: unknown block 'mxfp9'", 0), 0u) << where("mxfp9", "rows");
  EXPECT_EQ(where("tile:0x4", "rows").rfind("block:", 0), 0u);
  EXPECT_EQ(where("tile:4", "rows").rfind("block:", 0), 0u);
  EXPECT_EQ(where("tile:4x4y", "rows").rfind("block:", 0), 0u);
  EXPECT_EQ(where("mxfp8", "diagonal").rfind("axis:", 0), 0u);
}

}  // namespace
}  // namespace fpconform
