// Block-scaling rules as data (OCP MX, NVIDIA MXFP8 and NVFP4, microxcaling, DeepSeek tiles):
// how the shared scale is chosen and in which formats. emu quantizes by them (block_scale.hpp),
// the oracle independently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform {

// How a block's shared scale X is chosen from its amax (the largest |x|; A = amax):
enum class ScaleChoice : std::uint8_t {
  // X = 2^(floor(log2 A) - emax_elem), as an exponent k clamped below to the scale format's
  // smallest (A = 0 gives the smallest scale); k above the largest gives the scale NaN.
  // (OCP MX v1.0 section 6.3; microxcaling mx_ops.py _quantize_mx.)
  floor_log2_minus_emax,
  // X = 2^ceil(log2(A / maxf_elem)): A / maxf_elem rounded up (toward +inf) into the scale
  // format, which must be a power-of-two format (ue8m0); saturating at its largest.
  ceil_pow2_of_ratio,
  // X = A / maxf_elem rounded (scale_mode, saturating) into the scale format (e4m3, f32).
  ratio,
};

struct ScaleRule {
  std::string name;
  std::string source;          // where the rule is written down
  ScaleChoice choice = ScaleChoice::floor_log2_minus_emax;
  std::string scale_format;    // "ue8m0", "e4m3", "f32"
  RoundingMode scale_mode = RoundingMode::rne;  // for ScaleChoice::ratio
  std::string default_element; // "e4m3", "e2m1", ...
  int default_block = 32;      // elements per block along the blocked axis
  RoundingMode element_mode = RoundingMode::rne;
  Saturation element_sat = Saturation::finite;  // elements clamp to +-maxf_elem
  // Second level (NVFP4): an optional per-tensor scale g in this format (empty: none),
  // g = global amax / (maxf_scale * maxf_elem) rounded RNE; the block scale is then
  // A / maxf_elem / g and elements are x / (X * g).
  std::string tensor_scale_format;
};

// The built-in rules: ocp, rceil, microxcaling, nvfp4, tile.
const std::vector<ScaleRule>& scale_rules();
// Looks a rule up by name; throws Error naming `what` when there is none.
const ScaleRule& find_scale_rule(std::string_view name, std::string_view what = "--rule");
// The rule's scale format (parse_format of scale_format).
Format rule_scale_format(const ScaleRule& rule);

}  // namespace fpconform
