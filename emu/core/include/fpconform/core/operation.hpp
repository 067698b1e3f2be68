// The scalar operations as data: their TestFloat names, arities and options. emu computes them
// (apply_op), the oracle computes them independently; both take these descriptions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "fpconform/core/nan_policy.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform {

enum class Op : std::uint8_t {
  add, sub, mul, div, sqrt,
  mul_add,       // fusedMultiplyAdd: a*b + c, one rounding
  round_to_int,  // roundToIntegralExact (inexact raised) unless OpOptions::exact_int is false
  minimum, maximum, minimum_number, maximum_number,  // IEEE 754-2019 9.6
  eq, le, lt,    // quiet eq; signaling le, lt (invalid on any NaN), as TestFloat's names
  eq_signaling, le_quiet, lt_quiet,
};

struct OpInfo {
  Op op;
  std::string_view name;  // TestFloat's spelling: add, mulAdd, roundToInt, lt_quiet, ...
  int arity;
  bool comparison;        // result is 0 or 1, not a code of the format
};

std::span<const OpInfo> all_ops();
const OpInfo& op_info(Op op);
std::optional<Op> find_op(std::string_view name);  // TestFloat names

struct OpOptions {
  Rounding rounding;                      // mode, sat, ftz (results), daz (operands), tininess
  const NanPolicy* nan = nullptr;         // nullptr: default_nan_policy()
  bool exact_int = true;                  // roundToInt raises inexact (roundToIntegralExact)
};

}  // namespace fpconform
