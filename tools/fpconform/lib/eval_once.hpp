// `fpconform eval OP --format FMT A B [C]` (or `eval FUNCTION A...`): one evaluation by emu,
// shown as each operand's code and exact value, then the result's code, value and flags, and
// the TestFloat line of the case.
#pragma once

#include <string>
#include <vector>

#include "fpconform/testfloat/function.hpp"

namespace fpconform::cli {

struct EvalOnceOutput {
  std::vector<std::string> lines;  // "a: 0x3f80 1", ..., "result: 0x4000 2 -", "testfloat: ..."
  std::vector<std::string> notes;  // operands that were rounded to the format
};

// Each value is a code of its operand's format: 0x<hex digits> raw bits, or a number (1.5,
// -0x1p-3, 1e-3, inf, nan, snan) rounded to nearest even (with a note if that changed it).
// Throws Error naming the argument: OPERAND for a wrong count, "operand b '1.2.3'" for a
// malformed or too wide value.
EvalOnceOutput eval_once(const testfloat::Function& f, const testfloat::Options& options,
                         const std::vector<std::string>& values);

}  // namespace fpconform::cli
