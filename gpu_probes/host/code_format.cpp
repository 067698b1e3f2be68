#include "fpconform/gpu/code_format.hpp"

#include <array>

namespace fpconform::gpu {

namespace {
constexpr std::array<CodeFormat, 9> kFormats{{
    {"f32", 32, 8, 23, 127, SpecialEncoding::ieee},
    {"f16", 16, 5, 10, 15, SpecialEncoding::ieee},
    {"bf16", 16, 8, 7, 127, SpecialEncoding::ieee},
    {"e4m3", 8, 4, 3, 7, SpecialEncoding::fn},
    {"e5m2", 8, 5, 2, 15, SpecialEncoding::ieee},
    {"e2m1", 4, 2, 1, 1, SpecialEncoding::none},
    {"e2m3", 6, 2, 3, 1, SpecialEncoding::none},
    {"e3m2", 6, 3, 2, 3, SpecialEncoding::none},
    {"ue8m0", 8, 8, 0, 127, SpecialEncoding::ue8m0},
}};
}  // namespace

bool CodeFormat::is_nan_or_inf(std::uint32_t code) const {
  code &= mask();
  const std::uint32_t frac_mask = (1u << frac_bits) - 1u;
  const std::uint32_t exp_field = (code >> frac_bits) & ((1u << exp_bits) - 1u);
  const std::uint32_t exp_all_ones = (1u << exp_bits) - 1u;
  switch (special) {
    case SpecialEncoding::ieee: return exp_field == exp_all_ones;
    case SpecialEncoding::fn: return exp_field == exp_all_ones && (code & frac_mask) == frac_mask;
    case SpecialEncoding::none: return false;
    case SpecialEncoding::ue8m0: return code == 0xFFu;
  }
  return false;
}

std::optional<CodeFormat> code_format(std::string_view name) {
  for (const auto& f : kFormats)
    if (f.name == name) return f;
  return std::nullopt;
}

}  // namespace fpconform::gpu
