// Comparing a kernel's output matrix with an expected one, element by element: bit-exact
// matches, the distance in units in the last place, the relative error, and the worst elements.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fpconform/core/format.hpp"
#include "fpconform/gemm.hpp"

namespace fpconform::validate {

// How many representable values of f lie between codes x and y (+0 and -0 count as one value;
// an infinity counts as the value after the largest finite). nullopt when either is a NaN.
std::optional<std::uint64_t> ulp_distance(const Format& f, std::uint64_t x, std::uint64_t y);

// The value of a code of f as a double (exact for formats of up to 53 bits of precision and
// f64's range; NaN for NaN codes).
double code_value(const Format& f, std::uint64_t code);

struct ElementDiff {
  int row = 0, col = 0;
  std::uint64_t got = 0, want = 0;
  std::optional<std::uint64_t> ulp;  // nullopt: a NaN on one side only
  double rel = 0;                    // |got - x| / |x|, x the exact value (or want's value)
};

struct Comparison {
  std::string against;            // "model hopper", "exact (correctly rounded, rne)"
  std::uint64_t total = 0, bit_exact = 0;
  std::uint64_t nan_mismatch = 0;  // one side NaN, the other not
  std::uint64_t same_value = 0;    // not bit-exact, but the same value (+0/-0, NaN payloads)
  std::uint64_t max_ulp = 0;
  double max_rel = 0, mean_rel = 0;
  // ulp_histogram[i]: elements with ulp distance in [2^(i-1), 2^i) (i = 0: distance 0).
  std::vector<std::uint64_t> ulp_histogram;
  std::vector<ElementDiff> worst;  // largest ulp distance first (NaN mismatches first of all)
};

// Compares got and want (same shape and format). `exact_rel`, when given, returns the relative
// error of got's element (r, c) against the exact result; otherwise against want's value.
// Keeps the `worst` largest differences.
Comparison compare_outputs(const Matrix& got, const Matrix& want, std::string against,
                           int worst,
                           const std::function<double(int r, int c, std::uint64_t got)>& exact_rel = {});

// Within tolerance: every element's ulp distance <= max_ulp (when >= 0) and relative error <=
// max_rel (when >= 0), and no NaN mismatch. With neither given: bit-exact (or same value).
bool within(const Comparison& c, double max_ulp, double max_rel);

}  // namespace fpconform::validate
