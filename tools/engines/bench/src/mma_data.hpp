// Operands shared by the matrix-unit cases: K codes of `in` per vector, normal with sigma 1
// (saturated to the format), with their fp32 values for the fp32 baselines; optionally more
// columns of B (b_cols, column-major, column 0 = b; the others from their own random stream, so
// that a and b do not depend on how many there are).
#pragma once

#include <cstdint>
#include <vector>

#include "fpconform/core/format.hpp"

namespace fpconform::bench {

struct DotData {
  Format in;
  std::vector<std::uint64_t> a, b;
  std::vector<float> fa, fb;
  std::vector<std::uint64_t> b_cols;  // columns * K codes
  DotData(const char* format, std::size_t k, unsigned seed, std::size_t columns = 1);
};

}  // namespace fpconform::bench
