// Inputs that reach a large part of the model's bound (bound.hpp). One large term 2^E (a
// product, or C) and every other leaf either zero or a value just below 2^(E - j) for the grid
// exponents j the model has (its alignment F, the accumulator's fraction bits, the e8m13 cut,
// the late-C grids), of either sign. So for a truncating fused block the search finds 2^E plus
// L - 1 terms just under 2^(E - F) of one sign, each losing almost a full unit of 2^(E - F);
// for an RZ output a sum just under a representable value; for a chain of RNE roundings (fma
// chain, pairwise, AMX tree) the large term at the deepest leaf and, beside it at each node of
// its path, a term just under half an ulp, so that every node rounds back down and loses
// u |sum|. The error comes from the caller (an exact oracle: this library has none).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "fpconform/fdpa.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/tolerance/bound.hpp"

namespace fpconform::tolerance {

// The code of f nearest v in the direction m, saturating (v a finite double; 0 gives +0).
std::uint64_t code_of(double v, const Format& f, RoundingMode m = RoundingMode::rtz);

// |D - exact| for a, b (codes of in), c and d (codes of out); nullopt when the exact value
// overflows out.
using ErrorOf = std::function<std::optional<double>(std::span<const std::uint64_t> a,
                                                     std::span<const std::uint64_t> b,
                                                     std::uint64_t c, std::uint64_t d)>;

struct Adversarial {
  std::vector<std::uint64_t> a, b;
  std::uint64_t c = 0, d = 0;  // c and the model's result, codes of out
  double err = 0, bound = 0, ratio = 0;  // |D - exact|, the bound there, their ratio
  // The pattern (uniform searches only): the large term's place (-1: C, 0: the first
  // product, 1: the last), and the code pair every other leaf holds.
  int where = 0;
  std::uint64_t fill_a = 0, fill_b = 0;
};

// The input with the largest error / bound found. passes > 0: each leaf in turn takes the
// candidate that raises error / bound the most, `passes` times over (K^2 evaluations of K
// products: small K); passes = 0: every leaf but the large one takes the same candidate, and
// then C (K evaluations per candidate).
Adversarial adversarial_input(const FdpaParams& p, const Format& in, const Format& out, int k,
                              const ErrorOf& err, int passes = 2);

// A uniform pattern (adversarial_input with passes = 0) stretched to k products: the large
// term at the same place, every other leaf the same fill, the same C.
Adversarial stretch(const Adversarial& pattern, const FdpaParams& p, const Format& in,
                    const Format& out, int k, const ErrorOf& err);

}  // namespace fpconform::tolerance
