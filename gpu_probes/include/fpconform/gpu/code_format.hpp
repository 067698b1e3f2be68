// The little the GPU probe files need to know about a format: code width and the exponent/fraction
// split, to draw random codes from a documented distribution and to tell finite codes from
// NaN/inf. Deliberately not emu's Format (the runner must build without emu); the analysis side
// maps these names onto emu formats.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fpconform::gpu {

enum class SpecialEncoding {
  ieee,        // exponent all ones: inf (fraction 0) or NaN
  fn,          // OCP e4m3 "fn": only S.1111.111 is NaN, no infinities
  none,        // no inf, no NaN (e2m1, e2m3, e3m2)
  ue8m0,       // unsigned exponent-only scale: 0xFF is NaN
};

struct CodeFormat {
  std::string_view name;  // f32 f16 bf16 e4m3 e5m2 e2m1 e2m3 e3m2 ue8m0
  int bits;               // code width
  int exp_bits;
  int frac_bits;
  int bias;
  SpecialEncoding special;

  std::uint32_t mask() const { return bits == 32 ? 0xFFFFFFFFu : ((1u << bits) - 1u); }
  bool is_nan_or_inf(std::uint32_t code) const;
};

// The built-in table; nullopt for an unknown name.
std::optional<CodeFormat> code_format(std::string_view name);

}  // namespace fpconform::gpu
