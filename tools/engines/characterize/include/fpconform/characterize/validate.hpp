// Random and adversarial dot products, and validation of a model against a target on them.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/characterize/target.hpp"
#include "fpconform/fdpa.hpp"

namespace fpconform::characterize {

// The kinds of inputs the generator mixes (each case draws one).
enum class CaseKind : std::uint8_t {
  narrow,        // exponents near 0, C of the same size or zero
  full_range,    // any finite code of the input format
  cancellation,  // products that cancel (pairs x*y, -x*y'), C near minus their sum
  spread,        // exponents spread over the whole range, zeros sprinkled in
  subnormal,     // subnormal inputs and C, results near the output's subnormal range
  tiny_zeros,    // tiny products among zero terms (the exponent given to zeros)
  specials,      // one NaN, infinity or overflowing product
  c_dominant,    // C far above the products
  ties,          // few significand bits: exact sums often fall on rounding ties
  count
};

// Draws cases whose inputs lie in the target's formats and whose lengths it supports.
class CaseGenerator {
 public:
  CaseGenerator(const Target& t, std::uint64_t seed, int max_k);
  DotCase next();                              // inputs only (d = 0)
  DotCase next(CaseKind kind);
  std::vector<DotCase> batch(std::size_t n);
  int pick_k();

 private:
  // Codes of f: a normal one (exponent clamped to f's range), any finite one, a subnormal one
  // (zero where f has none), NaN, infinity or the largest finite value.
  std::uint64_t code(const Format& f, bool negative, int exp, bool random_fraction);
  std::uint64_t random_finite(const Format& f);
  std::uint64_t subnormal(const Format& f);
  std::uint64_t special(const Format& f);
  bool coin(double p);
  int uniform(int lo, int hi);  // inclusive

  const Target& t_;
  Format a_, b_, out_;
  std::vector<int> ks_;  // supported lengths 1..max_k
  std::mt19937_64 rng_;
};

struct ValidationResult {
  std::uint64_t validated = 0, agreed = 0;
  std::vector<DotCase> failures;  // the first max_failures disagreements
};

// Runs n fresh cases (seeded) on the target and the model; compares every result.
ValidationResult validate(Target& t, const FdpaParams& model, std::uint64_t n, std::uint64_t seed,
                          int max_k, std::size_t max_failures = 64);

// Whether the model reproduces one case; false also when the model refuses it (throws).
bool model_agrees(const FdpaParams& model, const FdpaFormats& f, const DotCase& c);

}  // namespace fpconform::characterize
