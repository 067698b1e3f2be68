// The fast path for binary operations in formats of at most 16 bits: what the exhaustive
// sweeps (all 2^32 f16/bf16 pairs) and batch users call. Results and flags are identical to
// apply_op for every operand pair and every option; only the speed differs.
//
// How: a decode table per format (sign, integer significand, exponent for every code); add,
// sub, mul and div of two finite non-zero operands in 64-bit integers (an exact sum or product,
// or a quotient with 28+ bits and a sticky bit), then a short round-and-pack under rne, rna,
// rtz, up, down and odd (normal, subnormal and overflowing results; the overflow, FTZ and
// zero codes come from round_to_format itself). A NaN with a non-NaN operand takes its result
// from a table filled by apply_op at construction (per NaN code and side; kept only where
// apply_op gave the same result with every probe operand, i.e. the NaN policy looks at the NaN
// alone): in an exhaustive f16 sweep 3% of the pairs. Everything else — two NaNs, inf or zero operands,
// exact zero results, tininess-after-rounding in doubt, formats without subnormals, the
// stochastic modes — goes to apply_op, so the special-case rules live in one place.
// An object is immutable after construction; calls may run concurrently from threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fpconform/arith.hpp"

namespace fpconform {

class SmallFormatOp {
 public:
  // Throws Error if f is wider than 16 bits or op is not add, sub, mul or div.
  SmallFormatOp(const Format& f, Op op, const OpOptions& options);

  Rounded operator()(std::uint64_t a, std::uint64_t b) const;

  // A row of pairs (the exhaustive sweeps: a fixed, every b): for i < n, out[i] = the code of
  // (*this)(a, b0 + i) | its flags << 16 — the same results, with the op and mode dispatched
  // once per row instead of per pair; add, sub and mul of a finite non-zero a run in AVX-512
  // lanes where the CPU has them (a lane they do not settle goes the pair's way).
  void row(std::uint64_t a, std::uint64_t b0, std::size_t n, std::uint32_t* out) const;

  static bool supports(const Format& f, Op op);

 private:
  struct Entry {
    std::uint16_t sig = 0;   // 0: not finite non-zero (NaN, inf, zero, or DAZ-flushed)
    std::int16_t exp = 0;    // weight of sig's last bit
  };
  Rounded slow(std::uint64_t a, std::uint64_t b) const;
  template <Op O, RoundingMode M>
  Rounded eval(std::uint64_t a, std::uint64_t b) const;
  template <Op O, RoundingMode M>
  void row_impl(std::uint64_t a, std::uint64_t b0, std::size_t n, std::uint32_t* out) const;
  struct Lanes;  // the row's add, sub and mul in vector lanes (fast_arith.cpp)
  template <class F>
  auto dispatch(F&& f) const;  // f.template operator()<op_, mode>()
  template <RoundingMode M>
  Rounded round(bool negative, std::uint64_t sig, int exp, bool sticky, std::uint64_t a,
                std::uint64_t b) const;
  template <RoundingMode M>
  bool away(std::uint64_t rem, std::uint64_t half, bool sticky, bool odd_code, bool negative) const;

  Format f_;
  Op op_;
  OpOptions options_;
  std::vector<Entry> table_;
  std::vector<std::uint8_t> is_nan_;           // per code (empty: no NaN table)
  std::vector<std::uint32_t> nan_result_[2];   // [0]: NaN first, [1]: NaN second; bit 31 valid,
                                               // flags << 16, code
  bool fast_mode_ = false;  // a deterministic mode the short rounding handles
  bool subnormal_grid_ = false;  // tiny results round on the subnormal grid
  Rounded overflow_[2], ftz_[2];  // [0] positive, [1] negative
  std::uint64_t zero_[2] = {0, 0};
  std::uint64_t sign_mask_ = 0, max_finite_ = 0;
  int emin_ = 0, emax_ = 0, m_ = 0, bias_ = 0;
};

}  // namespace fpconform
