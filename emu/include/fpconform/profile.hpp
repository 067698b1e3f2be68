// Ecosystem profiles: what a library really does on conversion, as data (a default Rounding
// plus named quirks), not branches scattered through the code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/convert.hpp"

namespace fpconform {

// Options the user set explicitly; unset ones take the profile's defaults.
struct UserOptions {
  std::optional<RoundingMode> mode;
  std::optional<Saturation> sat;
  std::optional<bool> ftz;
  std::optional<bool> daz;
  std::optional<Tininess> tininess;
};

struct Profile {
  std::string name;     // "nvidia", "ml_dtypes", "torch-2.11", "ocp", "p3109", ...
  std::string summary;  // one line: what it models
  std::string source;   // where the behaviour is documented or was observed
  // (the profile's data: defaults and quirks; see profile.cpp for the fields in use)
};

const std::vector<Profile>& builtin_profiles();
// Throws Error naming `what` for an unknown name.
const Profile& find_profile(std::string_view name, std::string_view what = "--profile");

// The conversion as the profile's library performs it. Throws Error naming `what` if the user
// asked for something the library cannot do (e.g. --round rtz with NVIDIA's fp8 functions).
Rounded convert_with_profile(std::uint64_t bits, const Format& from, const Format& to,
                             const Profile& p, const UserOptions& user,
                             std::string_view what = "--profile");

}  // namespace fpconform
