// OperationSweep: emu's scalar operations (apply_op) against the MPFR oracle
// (reference::apply_op) over operand tuples, on the engine of the conversion sweeps (run_sweep):
// the same threads, counter-examples, resume and stop. An input is the operands packed into
// one code, the first in the high bits: for add on f16, (a << 16) | b, so "every input" of a
// binary operation on a 16-bit format is all 2^32 pairs.
#pragma once

#include <vector>

#include "fpconform/arith.hpp"
#include "fpconform/conformance/conversion.hpp"

namespace fpconform::conformance {

class OperationSweep {
 public:
  // Throws Error("--format") when the operands do not fit 48 bits together.
  OperationSweep(Op op, Format f, std::vector<Rounding> configs);
  SweepResult run(const InputSet& operands, const SweepOptions& options = {}) const;

  // Every operand tuple (2^(arity * width) inputs).
  InputSet all_operands() const;
  // "add f16 0x3c00 0x0001": the operation and its operands of a packed input.
  std::string input_text(std::uint64_t packed) const;

 private:
  Op op_;
  Format f_;
  std::vector<Rounding> configs_;
  int arity_ = 2;
};

// An operation by its TestFloat name (add, mulAdd, sqrt, lt_quiet, ...); throws Error(where),
// listing the names, for others.
Op parse_sweep_op(const std::string& name, const std::string& where);

}  // namespace fpconform::conformance
