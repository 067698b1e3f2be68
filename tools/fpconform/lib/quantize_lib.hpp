// `fpconform quantize` and `scale-rules`: rule listing and the rules compared on one matrix.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fpconform/block_scale.hpp"
#include "fpconform/block_spec.hpp"
#include "fpconform/gemm.hpp"

namespace fpconform::cli {

// The rules as text (name, scale format, choice, elements, source) or JSON.
std::string list_scale_rules(bool json);

// The disagreement report: `x` (f32 codes, rows x cols) quantized under each rule with the
// block geometry of `spec`; per rule the SQNR and the largest relative error of the dequantized
// values against x, and how many blocks' scales and how many elements' dequantized values
// differ from the first rule's. Rules with a per-tensor scale use it when the spec asks.
std::string compare_rules(const Matrix& x, const BlockSpec& spec,
                          const std::vector<std::string>& rules);

}  // namespace fpconform::cli
