// What a NaN result looks like: a named policy, as data. Machines agree that an operation
// with a NaN operand or an invalid operation gives a NaN; they differ in which NaN.
#pragma once

#include <span>
#include <string_view>

namespace fpconform {

struct NanPolicy {
  std::string_view name;
  // true: a NaN operand's NaN comes back (the first NaN in operand order a, b, c, quieted,
  // sign and payload kept); false: every NaN result is the default NaN.
  bool propagate = true;
  // The default NaN (invalid operations; every NaN under !propagate): quiet, with this sign,
  // and a payload of all ones (NVIDIA's 0x7FFFFFFF) or zero (0x7FC00000).
  bool default_negative = false;
  bool default_payload_ones = false;
  // fusedMultiplyAdd(0, inf, qNaN): IEEE 754-2019 7.2(c) leaves it to the implementation
  // whether invalid is signalled. (The result is the qNaN under propagate, else the default.)
  bool invalid_for_zero_times_inf_plus_qnan = false;
  std::string_view source;  // where the behaviour is documented
};

// ieee, x86, arm-default-nan, riscv, nvidia.
std::span<const NanPolicy> nan_policies();
// Throws Error naming `what` for an unknown name (the message lists the known ones).
const NanPolicy& find_nan_policy(std::string_view name, std::string_view what = "--nan");
const NanPolicy& default_nan_policy();  // ieee

}  // namespace fpconform
