// `fpconform quantize` and `scale-rules`: block specs, rule listing, matrix quantization.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fpconform/block_scale.hpp"
#include "fpconform/gemm.hpp"

namespace fpconform::cli {

// --block: mxfp8 (e4m3), mxfp8-e5m2, mxfp6 (e2m3), mxfp6-e3m2, mxfp4 (e2m1): 1 x 32, rule ocp;
// nvfp4: e2m1, 1 x 16, rule nvfp4 with its per-tensor scale; tile:RxC: e4m3 R x C, rule tile.
struct BlockSpec {
  std::string element;    // element format name
  int block_rows = 1, block_cols = 32;
  std::string rule;       // default rule
  bool tensor_scale = false;
};
// Throws Error naming `what` for anything else. `axis` "rows" keeps the blocks along a row
// (1 x 32); "cols" turns them along a column (32 x 1).
BlockSpec parse_block_spec(std::string_view text, std::string_view axis, std::string_view what = "--block");

// The rules as text (name, scale format, choice, elements, source) or JSON.
std::string list_scale_rules(bool json);

// The disagreement report: `x` (f32 codes, rows x cols) quantized under each rule with the
// block geometry of `spec`; per rule the SQNR and the largest relative error of the dequantized
// values against x, and how many blocks' scales and how many elements' dequantized values
// differ from the first rule's. Rules with a per-tensor scale use it when the spec asks.
std::string compare_rules(const Matrix& x, const BlockSpec& spec,
                          const std::vector<std::string>& rules);

}  // namespace fpconform::cli
