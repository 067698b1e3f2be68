// The fused dot-product-add family: how matrix units (tensor cores, matrix cores) compute
// D = sum a_i * b_i + C. A unit is described by a few named parameters (after Khattak &
// Mikaitis, arXiv 2512.07004, and MMA-Sim, Xie et al., arXiv 2511.10909), not by special cases:
//
//   1. products exact: significands multiplied, kept in [1, 4) (not renormalised), exponent
//      ea + eb (subnormal inputs keep the exponent emin and a significand below 1);
//   2. E = the largest exponent over the block's terms (products and, when `c_in_block`, C);
//      zero terms count as `zero_exp`, so E >= zero_exp whenever a term is zero;
//   3. every term is aligned to the unit 2^(E - F) and truncated toward zero (or rounded) to
//      it, with no guard or sticky bits;
//   4. the aligned integers are summed exactly and the sum is normalised and rounded once
//      into the output: `out` with `out_rounding`, or first
//      toward zero to `acc_frac_bits` fraction bits (Hopper's FP8 "e8m13" accumulator);
//   5. K > L runs as a chain of blocks: each block's D is the next block's C.
#pragma once

#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/format.hpp"
#include "fpconform/rounding.hpp"

namespace fpconform {

// How each term is brought onto the grid 2^(E - F).
enum class AlignRounding : std::uint8_t { truncate, nearest_even, down };

struct FdpaParams {
  int block = 4;            // L: products fused per step
  int frac_bits = 23;       // F: fraction bits kept relative to 2^E
  AlignRounding align = AlignRounding::truncate;
  int zero_exp = INT_MIN;   // exponent given to zero terms (INT_MIN: zeros do not count)
  bool c_in_block = true;   // C aligned and truncated with the products (else added after, RNE)
  int acc_frac_bits = -1;   // >= 0: the block result is first cut (RZ) to this many fraction
                            // bits with the output's exponent range (e8m13: 13)
  Rounding out_rounding{RoundingMode::rtz};  // the rounding of the block result into `out`
  bool flush_subnormal_inputs = false;
  bool flush_subnormal_outputs = false;
};

// One block (at most `block` products) or a chain of blocks over any K. a, b hold codes of
// `in`, c and the result codes of `out`. Specials: a NaN input, inf * 0 or inf - inf give the
// NVIDIA canonical NaN (positive, payload all ones); other infinities pass through. Throws
// Error when a and b differ in length.
std::uint64_t fdpa(const FdpaParams& p, const Format& in, const Format& out,
                   std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                   std::uint64_t c);

}  // namespace fpconform
