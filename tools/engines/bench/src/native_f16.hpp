// The native f16 operation over one row of the exhaustive sweep: a (fixed) op every b code
// 0..65535. The sweep's baselines: what the CPU's own instruction costs to give what the sweep
// checks (the result's code and the IEEE flags of each pair), and, for reference, its vector
// form that gives the codes alone.
#pragma once

#include <cstdint>

#include "fpconform/core/operation.hpp"

namespace fpconform::bench {

struct NativeF16Row {
  const char* name = nullptr;  // "vaddph", "f16c-vaddps", ...; null where none runs here
  // Codes and flags, one pair at a time: the scalar instruction, then MXCSR read and cleared;
  // out[b] = code | MXCSR's flag bits << 16.
  void (*with_flags)(std::uint16_t a, std::uint32_t* out) = nullptr;
  // Codes alone, a vector of pairs at a time; out[b] = code.
  void (*values)(std::uint16_t a, std::uint16_t* out) = nullptr;
};

// AVX512-FP16 (vaddsh / vmulsh per pair, vaddph / vmulph 32 lanes) where the CPU has it;
// otherwise F16C + AVX (the operands widened to f32, vaddss / vmulss, vcvtps2ph back: correctly
// rounded for add and mul, since f32 holds more than 2 x 11 + 2 bits). Empty without F16C or
// for another op.
NativeF16Row native_f16_row(Op op);

}  // namespace fpconform::bench
