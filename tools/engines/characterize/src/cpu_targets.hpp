// The x86 CPU's own units as targets (cpu:...). Private to the characterize library.
#pragma once

#include <memory>
#include <string_view>

#include "fpconform/characterize/target.hpp"

namespace fpconform::characterize {

std::unique_ptr<Target> make_cpu_target(std::string_view spec, const Format* in,
                                        const Format* out, std::string_view what);

}  // namespace fpconform::characterize
