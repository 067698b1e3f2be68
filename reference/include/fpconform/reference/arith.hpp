// The oracle for scalar operations: MPFR computes each exact (or correctly truncated-with-
// sticky) result, and round_exact rounds it once, per emu/SEMANTICS.md ("Operation
// semantics"). It reads the data of Op, OpOptions and NanPolicy, and shares no code path with
// emu/ (no decode, no exact_ops, no round_to_format, no apply_op).
#pragma once

#include <cstdint>

#include "fpconform/core/operation.hpp"
#include "fpconform/reference/oracle.hpp"

namespace fpconform::reference {

// Same contract as fpconform::apply_op. Thread-safe. Throws Error("bits", ...) for operand
// bits above f's width.
OracleResult apply_op(Op op, const Format& f, const std::uint64_t* operands, const OpOptions& o);

}  // namespace fpconform::reference
