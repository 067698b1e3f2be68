// The NaN policies as data. Sources are in emu/SEMANTICS.md ("NaN results").
#include "fpconform/core/nan_policy.hpp"

#include <array>
#include <string>

#include "fpconform/core/error.hpp"

namespace fpconform {

namespace {

constexpr std::array<NanPolicy, 5> kPolicies = {{
    {"ieee", true, false, false, false,
     "IEEE 754-2019 6.2.3 (an input NaN's payload), 7.2(c)"},
    {"x86", true, true, false, false,
     "Intel SDM vol. 1, tables E-1 and 14-17: first NaN source operand; QNaN indefinite"},
    {"arm-default-nan", false, false, false, true,
     "Arm ARM, FPDefaultNaN and FPMulAdd with FPCR.DN = 1"},
    {"riscv", false, false, false, true,
     "RISC-V unprivileged ISA, F extension: canonical NaN; fma(inf, 0, qNaN) is invalid"},
    {"nvidia", false, false, true, false,
     "CUDA C Programming Guide: a result involving NaNs is the canonical NaN 0x7fffffff"},
}};

}  // namespace

std::span<const NanPolicy> nan_policies() { return kPolicies; }

const NanPolicy& default_nan_policy() { return kPolicies[0]; }

const NanPolicy& find_nan_policy(std::string_view name, std::string_view what) {
  for (const NanPolicy& p : kPolicies)
    if (p.name == name) return p;
  std::string known;
  for (const NanPolicy& p : kPolicies) known += (known.empty() ? "" : ", ") + std::string(p.name);
  throw Error(std::string(what), "unknown NaN policy '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace fpconform
