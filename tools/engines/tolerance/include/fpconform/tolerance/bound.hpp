// Tolerances derived from a matrix unit's model: a rigorous bound on |D_model - D_exact| for one
// dot product D = sum_i a_i b_i + c, as the unit (FdpaParams) and the GEMM around it (split-K,
// promotion, epilogue C, output conversion) compute it:
//
//   |D - exact| <= alpha * S + ulp_factor * ulp_t(D) + beta (+ S_flushed)
//
//   S        = sum_i |a_i||b_i| + |c|, where, when `subnormals_at_min_normal`, a nonzero subnormal
//              input counts as 2^emin of its format (a fused block aligns a subnormal product by
//              its exponent emin + eb, not by its magnitude); products and C that the unit
//              flushes (DAZ) are left out of S and counted in S_flushed instead;
//   ulp_t(D) = 2^(max(floor(log2 |D|), ulp_emin) - t), t = ulp_frac_bits: the last rounding,
//              of D itself (RZ: one ulp, RNE: half an ulp; an e8m13 cut: ulp of 13 bits);
//   beta     = the underflow floors: subnormal results, flush-to-zero, zero terms' exponent.
//
// Every intermediate quantity v carries err(v) <= a_v S_v + b_v with S_v the part of S below
// it, so |v| <= (1 + a_v) S_v + b_v. An exact sum of children has a = max a_c, b = sum b_c; a
// rounding with unit roundoff u (RZ: 2^-t, RNE: 2^-(t+1)) and floor eta adds u |v|:
// a' = (1 + u)(1 + a) - 1, so a chain of k roundings gives (1 + u)^k - 1 <= gamma_k; a fused
// alignment cut of n terms to 2^(E - F), 2^E <= max |term|, adds n 2^-F (1 + a) S_v (n - 1
// when the terms at exponent E fit F fraction bits: products of two m-bit significands have 2m,
// C has acc's). One alpha for all leaves: a leaf's path length is bounded by the deepest one
// (the tightness tests put the large term there). The bound is valid while nothing overflows
// (an infinite or saturated D has no bound).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/fdpa.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/gemm.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform::tolerance {

// One kind of node that loses accuracy: how many of them the computation has, and what one
// loses (relative to the magnitude bound of its value, and absolutely).
struct LossRow {
  std::string node;   // "alignment cut, F = 13 (truncate)"
  long long count = 0;
  std::string loses;  // "< 33 units of 2^(E-F) per block, 2^E <= max |term|"
  double rel = 0;     // per node, times the magnitude below it
  double abs = 0;     // per node
};

struct Bound {
  std::string model;  // what was bounded: "hopper e4m3 -> f32, K = 32"
  double alpha = 0;
  double ulp_factor = 0;  // 0: D is not rounded last (never for the structures here)
  int ulp_frac_bits = 0;
  int ulp_emin = 0;
  double beta = 0;
  bool subnormals_at_min_normal = false;
  bool flushes_inputs = false;   // S_flushed: products with a subnormal factor, a subnormal c
  // |D| at or above this may be an overflow saturated to the largest finite value, for which
  // there is no bound (the largest finite value of D's format).
  double saturates_at = 0;
  Format in_format;  // a and b
  Format c_format;   // c (the accumulator format)
  std::vector<LossRow> derivation;

  // ulp_t(d) for a finite d.
  double ulp_of(double d) const;
  // The bound for one element: s and s_flushed as above, d the model's result (a value of the
  // output format). Infinity for a non-finite d.
  double at(double s, double s_flushed, double d) const;
};

// What the GEMM does around the unit (gemm.hpp): the unit's accumulator format is `acc`, D is
// converted into `out` with `out_rounding` at the end.
struct GemmShape {
  int promote_every = 0;
  int split_k = 1;
  SplitReduction reduction = SplitReduction::sequential;
  bool c_in_epilogue = false;
};

// The bound for `unit` with inputs `in`, accumulator `acc` (C's format and the unit's output),
// K products, the GEMM shape `g` and D written into `out` with `out_rounding` (equal to acc:
// no conversion). Throws Error naming the parameter for what it cannot bound soundly
// (product_bits, non-unit block scales are not modelled here).
Bound model_bound(const FdpaParams& unit, const Format& in, const Format& acc, int k,
                  const GemmShape& g = {}, const Format* out = nullptr,
                  const Rounding* out_rounding = nullptr);

// The correctly rounded result in `out` (half an ulp for RNE, one ulp for the directed modes).
Bound correctly_rounded_bound(const Format& in, const Format& out, const Rounding& r, int k);

// The classical fp32 FMA chain over K products: alpha = (1 + u)^(K-1) - 1 with u = 2^-24 and
// half an ulp of D, and gamma_K = K u / (1 - K u) (Higham's bound for the whole chain).
Bound fp32_chain_bound(const Format& in, int k);
double gamma_k(long long k, double u);

// `--model` text (a preset, `custom:...`, or `exact`) through parse_model, then model_bound.
Bound bound_for(std::string_view model, const Format& in, const Format& acc, int k,
                const GemmShape& g = {});

// S and S_flushed of one dot product under b's conventions (a, b codes of in, c of acc).
void magnitudes(const Bound& bound, const std::uint64_t* a, std::size_t a_stride,
                const std::uint64_t* b, std::size_t b_stride, std::size_t k, std::uint64_t c,
                bool has_c, double& s, double& s_flushed);

// Elementwise bounds for D = A.B + C (row-major, M x N) given the model's D.
std::vector<double> elementwise_bounds(const Bound& bound, const Matrix& a, const Matrix& b,
                                       const Matrix* c, const Matrix& d);

// The same from the GEMM's options alone: the bound of o's unit and shape (unit scales only:
// throws Error("--scale-a") otherwise), D from the model (gemm).
std::vector<double> elementwise_bounds(const GemmOptions& o, const Matrix& a, const Matrix& b,
                                       const Matrix* c);

// The bound and its derivation as text (a table) or JSON.
std::string describe(const Bound& b);
std::string to_json(const Bound& b);

// What `fpconform tolerance` prints: the model's bound with its derivation, and beside it the
// correctly rounded result's (RNE into acc) and the fp32 fma chain's (with gamma_K).
std::string tolerance_report(std::string_view model, const Format& in, const Format& acc, int k,
                             const GemmShape& g, bool json);

}  // namespace fpconform::tolerance
