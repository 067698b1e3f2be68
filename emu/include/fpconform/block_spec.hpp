// The named block geometries of block-scaled formats: which element format, which block shape
// and which default scale rule "mxfp8", "nvfp4" or "tile:1x128" stand for.
#pragma once

#include <string>
#include <string_view>

namespace fpconform {

// mxfp8 (e4m3), mxfp8-e5m2, mxfp6 (e2m3), mxfp6-e3m2, mxfp4 (e2m1): 1 x 32, rule ocp;
// nvfp4: e2m1, 1 x 16, rule nvfp4 with its per-tensor scale; tile:RxC: e4m3 R x C, rule tile.
struct BlockSpec {
  std::string element;    // element format name
  int block_rows = 1, block_cols = 32;
  std::string rule;       // default rule
  bool tensor_scale = false;
};

// Throws Error naming `what` (or `axis_what`) for anything else. `axis` "rows" keeps the blocks
// along a row (1 x 32); "cols" turns them along a column (32 x 1). A tile names both dimensions,
// so the axis does not apply to it.
BlockSpec parse_block_spec(std::string_view text, std::string_view axis,
                           std::string_view what = "--block", std::string_view axis_what = "--axis");

}  // namespace fpconform
