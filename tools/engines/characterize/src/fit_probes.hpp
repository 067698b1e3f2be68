// The probe search of fit (fit_probes.cpp): generated cases, crafted after the published probes,
// that split the matching parameter sets into classes.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "fpconform/characterize/fit.hpp"

namespace fpconform::characterize {

// Cases for telling dot-product models apart: recorded rows reused, cut or lengthened (block
// size, C), wide exponent spreads with one large term (alignment, F, L; Fasi et al.),
// subnormal and tiny inputs (flushing, zero_exp), cancellation against C (output rounding,
// carries). Deterministic for a seed.
class CaseMaker {
 public:
  CaseMaker(const FdpaFormats& f, std::span<const DotCase> rows, std::uint64_t seed);
  DotCase next();

 private:
  // An operand's format and the element exponents used: subnormals up to where products of
  // 128 terms stay finite in the output.
  struct Side {
    Format format;
    int lo, hi;
  };
  int uniform(int lo, int hi);  // [lo, hi]
  bool chance(double p);
  std::uint64_t element(const Side& side, int exp, bool allow_zero_share);
  std::uint64_t zero(const Side& side);  // of either sign
  std::uint64_t c_for(const DotCase& dc, int top_product_exp);
  FdpaFormats f_;
  Side a_, b_;
  std::span<const DotCase> rows_;
  std::mt19937_64 rng_;
  double zero_share_ = 0;
};

struct ProbeSearch {
  std::vector<std::vector<std::size_t>> classes;  // indices into the survivors
  std::vector<Probe> probes;
  std::size_t tried = 0;
};

// Refines the survivors into classes by their answers on generated cases until every class is
// one set or `budget` cases (fewer when there are many survivors) have been tried.
ProbeSearch split_by_probes(const FdpaFormats& f, std::span<const FdpaParams> survivors,
                            std::span<const DotCase> rows, std::uint64_t seed, int budget);

}  // namespace fpconform::characterize
