// What each GPU probe kernel computes, in data: the runner checks plans against it without a GPU,
// and the CPU side uses it to regenerate inputs and to know what the outputs mean. The CUDA side
// (gpu_probes/kernels) implements exactly these names; a test checks the two lists agree.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

namespace fpconform::gpu {

enum class KernelKind {
  convert,  // one input code -> one output code (packing described per kernel)
  scalar,   // 1..3 operand codes of one format -> one output code
  dot,      // DotBatch: d = sum_i a_i * b_i + c over the instruction's k, one row per output
};

// How a convert kernel feeds one input code x to a two-lane (x2) PTX instruction.
enum class Packing {
  single,    // scalar instruction: output = cvt(x)
  pair_neg,  // x2 from two operands: output = (cvt(x) << w) | cvt(-x), w = output lane width;
             // -x flips the sign bit; the first PTX operand (x) lands in the upper lane
  packed,    // input x is already the packed x2 operand; output is the packed x2 result
};

struct KernelInfo {
  std::string_view name;
  KernelKind kind;
  std::string_view in_format;   // operand code format (convert: input; scalar/dot: a and b)
  std::string_view c_format;    // dot: accumulator input C; scalar: unused
  std::string_view out_format;  // output lane format
  int in_bits;                  // width of one input code as the plan gives it
  int out_bits;                 // width of one output code in results
  int arity;                    // scalar: operands; convert: 1; dot: 0
  int k;                        // dot: products per row; else 0
  Packing packing;              // convert only
  int min_cc;                   // lowest compute capability (major*10+minor) that has it
  bool arch_specific;           // an sm_90a / sm_100a feature: runs only on that major version
                                // (and, for 100a kernels, on sm_120a too)
  std::string_view ptx;         // the instruction or intrinsic probed
};

std::span<const KernelInfo> kernel_catalog();
const KernelInfo* find_kernel(std::string_view name);
std::string_view to_string(KernelKind kind);

// Whether a device of compute capability cc (major*10+minor) runs the kernel.
bool kernel_runs_on(const KernelInfo& k, int cc);

}  // namespace fpconform::gpu
