#include "fpconform/core/operation.hpp"

#include <array>

namespace fpconform {

namespace {

constexpr std::array<OpInfo, 17> kOps = {{
    {Op::add, "add", 2, false},
    {Op::sub, "sub", 2, false},
    {Op::mul, "mul", 2, false},
    {Op::div, "div", 2, false},
    {Op::sqrt, "sqrt", 1, false},
    {Op::mul_add, "mulAdd", 3, false},
    {Op::round_to_int, "roundToInt", 1, false},
    {Op::minimum, "minimum", 2, false},
    {Op::maximum, "maximum", 2, false},
    {Op::minimum_number, "minimumNumber", 2, false},
    {Op::maximum_number, "maximumNumber", 2, false},
    {Op::eq, "eq", 2, true},
    {Op::le, "le", 2, true},
    {Op::lt, "lt", 2, true},
    {Op::eq_signaling, "eq_signaling", 2, true},
    {Op::le_quiet, "le_quiet", 2, true},
    {Op::lt_quiet, "lt_quiet", 2, true},
}};

}  // namespace

std::span<const OpInfo> all_ops() { return kOps; }

const OpInfo& op_info(Op op) { return kOps[static_cast<std::size_t>(op)]; }

std::optional<Op> find_op(std::string_view name) {
  for (const OpInfo& i : kOps)
    if (i.name == name) return i.op;
  return std::nullopt;
}

}  // namespace fpconform
