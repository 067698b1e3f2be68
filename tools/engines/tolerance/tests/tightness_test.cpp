// The bound is tight: for every preset (every output format it accepts) an input reaches at
// least half of it. How the input is built: one large term 2^E (a product, or C) and every
// other leaf either zero or a value just below 2^(E - j) for the grid exponents j the model
// has (its alignment F, the accumulator's fraction bits, the e8m13 cut, the late-C grids), of
// either sign. So for a truncating fused block the search finds 2^E plus L - 1 terms just
// under 2^(E - F) of one sign, each losing almost a full unit of 2^(E - F) (the bound counts
// L of them); for an RZ output a sum just under a representable value (2^E minus a little);
// for a chain of RNE roundings (fma chain, pairwise, AMX tree) the large term at the deepest
// leaf and, beside it at each node of its path, a term just under half an ulp, so that every
// node rounds back down and loses u |sum|. The leaves are chosen greedily (each leaf in turn
// takes the candidate that raises error / bound the most); the error comes from the MPFR/GMP
// oracle, the bound from bound.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <set>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/sum_tree.hpp"
#include "fpconform/tolerance/adversarial.hpp"
#include "fpconform/tolerance/bound.hpp"
#include "fpconform/reference/dot.hpp"
#include "fpconform/tolerance/adversarial.hpp"

namespace fpconform::tolerance {
namespace {


int unit_k(const FdpaParams& p) {
  switch (p.structure) {
    case FdpaStructure::tree: return product_count(parse_sum_tree(p.tree));
    case FdpaStructure::fused: return p.instr_k > 0 ? p.instr_k : std::max(1, p.block);
    case FdpaStructure::pairwise: return 2 * std::max(1, p.block);
    case FdpaStructure::exact: return p.block > 0 ? p.block : 8;
    case FdpaStructure::sequential: return 8;
  }
  return 8;
}

// The construction lives in the library (adversarial.hpp); the error here from the oracle.
double tightest(const FdpaParams& p, const Format& in, const Format& out, int k) {
  const ErrorOf err = [&](std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                          std::uint64_t c, std::uint64_t d) -> std::optional<double> {
    const reference::DotError oe = reference::dot_error(in, a, b, out, c, out, d);
    if (oe.overflow) return std::nullopt;
    return oe.err;
  };
  return adversarial_input(p, in, out, k, err, 2).ratio;
}

TEST(ToleranceTightness, EveryPresetReachesHalfItsBound) {
  int pairs = 0, loose = 0;
  double least = 1;
  for (const PresetUnit& u : preset_units({"f32", "f16", "bf16", "f64"})) {
    ++pairs;
    const int k = unit_k(u.params);
    const double r = tightest(u.params, u.in, u.out, k);
    least = std::min(least, r);
    std::printf("  %-18s %-9s -> %-4s K = %-3d error/bound reached %.4f\n",
                std::string(u.entry->preset).c_str(), std::string(u.entry->input).c_str(),
                u.out.name.c_str(), k, r);
    EXPECT_GE(r, 0.5) << u.entry->preset << " " << u.entry->input << " -> " << u.out.name;
    EXPECT_LE(r, 1.0);
    if (r < 0.5) ++loose;
  }
  std::printf("%d preset/output pairs, least error/bound reached %.4f, %d below 1/2\n", pairs,
              least, loose);
}

}  // namespace
}  // namespace fpconform::tolerance

namespace fpconform::tolerance {
namespace {

// Over several chained steps the bound adds every step's loss (each step's result is the next
// C): the same construction reaches half of it there too.
TEST(ToleranceTightness, ChainedStepsReachHalfTheirBound) {
  struct Case { const char* preset; const char* in; const char* out; int k; };
  const Case cases[] = {
      {"hopper", "e4m3", "f32", 96},  {"volta", "f16", "f32", 16},
      {"ampere", "bf16", "f16", 24},  {"cdna1", "f16", "f32", 16},
      {"cdna3", "f16", "f32", 24},    {"x86-amx-bf16", "bf16", "f32", 64},
      {"fp32-sequential", "bf16", "f32", 32}, {"cdna1-km", "f16", "f32", 12},
  };
  for (const Case& cs : cases) {
    const Format in = parse_format(cs.in), out = parse_format(cs.out);
    const FdpaParams p = find_matrix_unit(cs.preset, in, out);
    const double r = tightest(p, in, out, cs.k);
    std::printf("  %-16s %-5s -> %-4s K = %-3d error/bound reached %.4f\n", cs.preset, cs.in,
                cs.out, cs.k, r);
    EXPECT_GE(r, 0.5) << cs.preset << " K = " << cs.k;
    EXPECT_LE(r, 1.0);
  }
}

}  // namespace
}  // namespace fpconform::tolerance
