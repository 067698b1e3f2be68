// One observed dot product: inputs and the unit's answer. Probes, validation and passive fitting
// all reduce to sets of these; a model agrees with a unit when it reproduces every d.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fpconform/characterize/target.hpp"

namespace fpconform::characterize {

struct DotCase {
  std::vector<std::uint64_t> a, b;  // codes of the target's in() and in_b(), equal lengths
  std::uint64_t c = 0;              // code of its out()
  std::uint64_t d = 0;              // the unit's result (output format)
};

// Runs the cases' inputs on `t` (grouped by length, one batch per length) and fills in d.
void observe(Target& t, std::span<DotCase> cases);

// The indices of the cases whose d the model `p` does not reproduce (fdpa through FdpaKernel).
std::vector<std::size_t> disagreements(const FdpaParams& p, const FdpaFormats& f,
                                       std::span<const DotCase> cases);

}  // namespace fpconform::characterize
