// Test helpers: |D - exact| from the MPFR/GMP exact dot product of reference/ (no emu code on
// that path), and codes of chosen values.
#pragma once

#include <cstdint>
#include <span>

#include "fpconform/format.hpp"
#include "fpconform/rounding.hpp"

namespace fpconform::tolerance::test {

struct OracleError {
  double err = 0;         // |D - exact|, rounded up
  bool overflow = false;  // |exact| reaches past the largest finite value of D's format
};

// a, b codes of in; c a code of cf; d a code of df.
OracleError oracle_error(const Format& in, std::span<const std::uint64_t> a,
                         std::span<const std::uint64_t> b, const Format& cf, std::uint64_t c,
                         const Format& df, std::uint64_t d);

// The code of f nearest v in the direction m (v a finite double).
std::uint64_t code_of(double v, const Format& f, RoundingMode m = RoundingMode::rtz);

}  // namespace fpconform::tolerance::test
