// The oracle for block-scaled quantization (emu/include/fpconform/block_scale.hpp): every scale
// rule computed with MPFR from the rule's data fields (choice, scale_format, scale_mode,
// element_mode, element_sat, tensor_scale_format) and the semantics written in that header.
// Shares no code path with emu/ beyond reading the data of Format, ScaleRule and Rounding (and
// parse_format for the rule's format names): values are decoded by the oracle's decode and
// every result is rounded once by round_exact.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "fpconform/core/scale_rule.hpp"
#include "fpconform/reference/oracle.hpp"

namespace fpconform::reference {

struct QuantizedBlockResult {
  std::uint64_t scale = 0;              // a code of the rule's scale format
  std::vector<std::uint64_t> elements;  // codes of the element format
  std::uint8_t flags = 0;               // Flags bit values
  bool operator==(const QuantizedBlockResult&) const = default;
};

// Same contract as fpconform::quantize_block. Thread-safe.
QuantizedBlockResult quantize_block(std::span<const std::uint64_t> values, const Format& in_format,
                                    const Format& element_format, const ScaleRule& rule,
                                    std::optional<std::uint64_t> tensor_scale = std::nullopt);

}  // namespace fpconform::reference
