// fuzz_cli's stand-in for tools/engines/characterize/src/cpu_targets.cpp: clang 14 has no AVX512-FP16
// intrinsics, and a cpu: target runs the machine's own units, not parsing. A cpu: target is
// refused (exit 2) in the fuzz build.
#include "cpu_targets.hpp"

#include <string>
#include <vector>

#include "fpconform/core/error.hpp"

namespace fpconform::characterize {

std::unique_ptr<Target> make_cpu_target(std::string_view spec, const Format*, const Format*,
                                        std::string_view what) {
  throw Error(std::string(what), "'" + std::string(spec) + "': cpu: targets are not in the fuzz build");
}

std::vector<std::string> cpu_target_names() { return {}; }

}  // namespace fpconform::characterize
