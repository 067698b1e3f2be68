// Scalar operations in any format: each result is the single rounding (round_to_format) of the
// exact mathematical result, never a native computation rounded twice. Specials first, by the
// rules of IEEE 754-2019 and the NaN policy; semantics written down in emu/SEMANTICS.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "fpconform/convert.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/core/operation.hpp"

namespace fpconform {

// One operation on codes of `f` (operands beyond the op's arity are ignored). Comparisons
// return bits 0 or 1 with only the invalid flag. Throws Error for bits above f's width.
Rounded apply_op(Op op, const Format& f, const std::uint64_t* operands, const OpOptions& o);

}  // namespace fpconform
