// A conversion sweep's progress (conformance::SweepProgress) as checkpoint fields, and back.
#pragma once

#include <cstdint>
#include <string>

#include "fpconform/files/checkpoint.hpp"
#include "fpconform/conformance/conversion.hpp"

namespace fpconform::files {

// Adds: inputs N, configs C, done D, mismatches m0 m1 ..., one `cex` line per counter-example.
void add_sweep_progress(Checkpoint& c, const conformance::SweepProgress& p, std::uint64_t inputs);

// Reads them back; `inputs` and `configs` must match the sweep being resumed. Throws Error
// naming path:line.
conformance::SweepProgress sweep_progress_of(const Checkpoint& c, const std::string& path,
                                             std::uint64_t inputs, std::size_t configs);

}  // namespace fpconform::files
