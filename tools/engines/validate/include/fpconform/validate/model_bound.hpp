// The third verdict of `fpconform validate --tolerance model`: a kernel's D is bit-exact to the
// model; else within the bound on |D - exact| that the model implies per element
// (tools/engines/tolerance); else it fails, with the worst elements relative to that bound. Beside the
// ulp figures: DeepGEMM's calc_diff, the SQNR and the normwise relative error against the exact
// result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fpconform/gemm.hpp"
#include "fpconform/validate/bound_verdict.hpp"
#include "fpconform/validate/validate.hpp"

namespace fpconform::validate {

// D against the model's bound. `exact` holds the exact values (exact_gemm), `model_d` the
// model's D. Throws Error("--tolerance", ...) for GEMM options the bound does not cover
// (scales).
BoundVerdict check_model_bound(const ValidateRequest& q, const Matrix& model_d,
                               const ExactResult& exact);

}  // namespace fpconform::validate
