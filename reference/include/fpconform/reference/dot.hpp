// The exact dot product: a Kulisch-style fixed-point accumulator (a GMP integer and the weight
// of its last bit) that adds products and addends of any formats without ever rounding, and
// rounds once at the end with round_exact. The oracle for every matrix-unit model.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <gmp.h>

#include "fpconform/reference/oracle.hpp"

namespace fpconform::reference {

class ExactAccumulator {
 public:
  ExactAccumulator();
  ~ExactAccumulator();
  ExactAccumulator(const ExactAccumulator&) = delete;
  ExactAccumulator& operator=(const ExactAccumulator&) = delete;

  // Adds a * b exactly (a in fa, b in fb). Subnormal inputs count at their value.
  void add_product(std::uint64_t a, const Format& fa, std::uint64_t b, const Format& fb);
  // Adds a[i] * b[i * stride_b] for every i, exactly. Formats of up to 16 bits with at most 12
  // significant bits are read through tables (each code decoded once per process, by the same
  // MPFR decode), and the products summed per exponent in int64 before they join the GMP
  // integer: the same exact sum, without GMP work per product.
  void add_products(std::span<const std::uint64_t> a, const Format& fa, const std::uint64_t* b,
                    std::size_t stride_b, const Format& fb);
  // Adds c exactly.
  void add(std::uint64_t c, const Format& fc);
  // The sum rounded once into `out` under `r`. A NaN input, inf * 0 or inf - inf give a
  // positive quiet NaN (invalid for inf * 0, inf - inf and signaling NaNs); an exact zero sum has IEEE's sign (+0 unless every term is
  // a zero of the same sign; -0 for mixed signs when rounding down).
  OracleResult round(const Format& out, const Rounding& r) const;
  // The exact sum (NaN/inf as MPFR specials); `out` gets exactly as many bits as it needs.
  void value(mpfr_t out) const;
  void clear();

 private:
  void merge_buckets() const;  // the per-exponent sums into acc_
  mutable mpz_t acc_, term_;
  mutable long lsb_ = 0;         // weight of acc_'s last bit
  mutable bool any_term_ = false;
  // Products of table formats: bucket_[e - kBucketBase] sums the products m_a * m_b of weight
  // 2^e (each below 2^24 in magnitude); buckets lo_..hi_ may be nonzero; fast_terms_ counts
  // the products since the last merge (int64 holds 2^39 of them).
  static constexpr int kBuckets = 1024, kBucketBase = -512;
  mutable std::vector<std::int64_t> bucket_;
  mutable int lo_ = kBuckets, hi_ = -1;
  mutable std::uint64_t fast_terms_ = 0;
  bool nan_ = false, invalid_ = false, pos_inf_ = false, neg_inf_ = false;
  bool all_zero_terms_ = true, any_pos_zero_ = false, any_neg_zero_ = false;
};

// a . b + c in one rounding: a[i] in fa, b[i] in fb, c in fc, result in out.
OracleResult exact_dot(std::span<const std::uint64_t> a, const Format& fa,
                       std::span<const std::uint64_t> b, const Format& fb, std::uint64_t c,
                       const Format& fc, const Format& out, const Rounding& r);

// How far d, a code of df, lies from the exact a . b + c (a[i], b[i] codes of in, c of cf).
struct DotError {
  double value = 0;       // the exact value, rounded to the nearest double
  double err = 0;         // |d - exact|, rounded up
  bool overflow = false;  // exact or d not finite, or |exact| past df's largest binade
};
DotError dot_error(const Format& in, std::span<const std::uint64_t> a,
                   std::span<const std::uint64_t> b, const Format& cf, std::uint64_t c,
                   const Format& df, std::uint64_t d);

}  // namespace fpconform::reference
