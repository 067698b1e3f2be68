// Block-scaled quantization (MX, NVFP4, fp32 tile scales) with the scale rules as data: one
// descriptor per rule, one generic quantizer. Every scaling decision is exact: the block's
// amax, the scale and x / scale are ExactValues, and each result is rounded once
// (round_to_format), so nothing here depends on the host's float arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"
#include "fpconform/core/scale_rule.hpp"

namespace fpconform {

struct QuantizedBlock {
  std::uint64_t scale = 0;               // a code of rule_scale_format(rule)
  std::vector<std::uint64_t> elements;   // codes of the element format
  // OR of the elements' roundings and the scale's: all of a `ratio` scale's flags; of a
  // power-of-two scale only its range limits (invalid for NaN, overflow/underflow where it
  // saturated; the ceiling's own inexact is the rule, not a loss).
  Flags flags;
};

// Special blocks (our definition, following microxcaling and the MX spec's "a NaN scale makes
// the whole block NaN"): a NaN or infinity anywhere in the block gives the scale format's NaN
// (ue8m0 0xFF, e4m3 0x7F, f32 0x7FC00000), element codes +0 and the invalid flag; a scale that
// rounds to zero (nvfp4/tile on a zero block) gives element codes +0.
//
// `tensor_scale` is the second-level scale as a code of rule.tensor_scale_format (required
// iff the rule has one; compute it with tensor_scale()). A NaN tensor scale (a tensor holding
// NaN or inf) makes every block special as above.
QuantizedBlock quantize_block(std::span<const std::uint64_t> values, const Format& in_format,
                              const Format& element_format, const ScaleRule& rule,
                              std::optional<std::uint64_t> tensor_scale = std::nullopt);

// The per-tensor scale of a two-level rule over all `values`: global amax / (maxf_scale *
// maxf_elem), rounded RNE into rule.tensor_scale_format; 1.0 when that is zero (all-zero
// tensor) and NaN when a value is NaN or infinite. Throws Error if the rule has no second level.
std::uint64_t tensor_scale(std::span<const std::uint64_t> values, const Format& in_format,
                           const Format& element_format, const ScaleRule& rule);

struct DequantizedBlock {
  std::vector<std::uint64_t> values;  // codes of the output format
  Flags flags;                        // from rounding elem * X (* g) into the output format
};

// elem * X (* g), computed exactly and rounded RNE (no saturation) into out_format: exact
// whenever out_format holds the product (f32 does for every rule here, in range).
// A NaN scale (or tensor scale) gives NaN for every element.
DequantizedBlock dequantize_block(std::uint64_t scale, std::span<const std::uint64_t> elements,
                                  const Format& element_format, const ScaleRule& rule,
                                  const Format& out_format,
                                  std::optional<std::uint64_t> tensor_scale = std::nullopt);

// A row-major rows x cols matrix cut into block_rows x block_cols blocks (1 x 32: blocks along
// a row; 32 x 1: along a column; 128 x 128: DeepSeek-V3 weight tiles). Block sizes that do not
// divide the matrix are refused (Error naming "block_rows" or "block_cols"); nothing is padded.
struct QuantizedMatrix {
  int rows = 0, cols = 0, block_rows = 1, block_cols = 1;
  std::vector<std::uint64_t> scales;    // (rows/block_rows) x (cols/block_cols), row-major
  std::vector<std::uint64_t> elements;  // rows x cols, row-major
  std::optional<std::uint64_t> tensor_scale;
  Flags flags;
};

// use_tensor_scale: compute the rule's second-level scale over the whole matrix (Error if the
// rule has none).
QuantizedMatrix quantize_matrix(std::span<const std::uint64_t> values, int rows, int cols,
                                const Format& in_format, const Format& element_format,
                                const ScaleRule& rule, int block_rows, int block_cols,
                                bool use_tensor_scale = false);
DequantizedBlock dequantize_matrix(const QuantizedMatrix& q, const Format& element_format,
                                   const ScaleRule& rule, const Format& out_format);

}  // namespace fpconform
