// Operands shared by the matrix-unit cases: K codes of `in` per vector, normal with sigma 1
// (saturated to the format), with their fp32 values for the fp32 baselines.
#pragma once

#include <cstdint>
#include <vector>

#include "fpconform/format.hpp"

namespace fpconform::bench {

struct DotData {
  Format in;
  std::vector<std::uint64_t> a, b;
  std::vector<float> fa, fb;
  DotData(const char* format, std::size_t k, unsigned seed);
};

}  // namespace fpconform::bench
