// `fpconform validate`: is a kernel's D = A.B + C right, and if not, where and why? D is compared
// with the bit-exact result of a hardware model (emu gemm) and/or the correctly rounded result
// (the MPFR/GMP exact dot product, rounded once).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fpconform/gemm.hpp"
#include "fpconform/validate/bound_verdict.hpp"
#include "fpconform/validate/compare.hpp"

namespace fpconform::validate {

struct ValidateRequest {
  Matrix a, b;               // M x K, K x N, codes of the input format
  std::optional<Matrix> c;   // M x N in the accumulator format (model) / any format (exact)
  Matrix d;                  // the kernel's M x N output
  std::optional<GemmOptions> model;  // expectation 1: this model, bit for bit
  std::string model_name;            // for messages ("hopper")
  bool exact = false;                // expectation 2: a.b + c rounded once into d's format
  Rounding exact_rounding;           // rne unless said otherwise
  double max_ulp = -1, max_rel = -1;  // tolerance for the first expectation (< 0: not set)
  int worst = 10;
  unsigned threads = 0;  // exact reference workers (0: all cores)
  // Tolerance "model": bit-exact to the model, else within the bound the model implies per
  // element (model_bound.hpp), else fail.
  bool model_bound = false;
};

// The exact reference for every element: the correctly rounded code and the exact value
// (a long double, 64 significant bits, enough for relative errors of the output formats).
struct ExactResult {
  Matrix rounded;
  std::vector<long double> value;  // row-major, NaN for NaN results
};
ExactResult exact_gemm(const Matrix& a, const Matrix& b, const Matrix* c, const Format& out,
                       const Rounding& r, unsigned threads);

struct ValidateReport {
  std::vector<Comparison> comparisons;  // model first (if any), then exact (if asked)
  bool pass = false;                    // the first comparison within the tolerance
  std::string tolerance;                // "bit-exact", "max 2 ulp", ...
  std::optional<BoundVerdict> bound;    // with model_bound
};

// Throws Error naming the argument for shape or format mismatches.
ValidateReport validate_kernel(const ValidateRequest& req);

}  // namespace fpconform::validate
