// Direct probes: the block size L and the alignment fraction bits F, each read off a threshold.
#include <algorithm>

#include "fpconform/characterize/probes.hpp"

namespace fpconform::characterize {

// +M at position 0, -M at 1, a tiny t at position j, zeros elsewhere, C = +0 (Khattak &
// Mikaitis's block-size test, FPRev's swamping idea). While j is in the block of the pair, t is
// aligned to M's exponent and cut away, and the pair cancels: D = 0. From the first j in a later
// block (or a chain step after the cancellation) t survives alone: D = t.
ProbeEvidence probe_block_size(Prober& p, FdpaParams& guess) {
  ProbeEvidence ev;
  ev.probe = "block_size";
  // M / t up to 2^80 (beyond any F of the family's units and the output's precision), t no
  // smaller than that needs: the higher t, the less an exponent given to zero terms can hide it.
  const int m = p.high_product_exp();
  const int s = std::max(p.low_product_exp(), m - 80);
  const auto big = p.product(false, 1, m), neg_big = p.product(true, 1, m), tiny = p.product(false, 1, s);
  const auto t_out = Prober::exact_code(p.out(), false, 1, s);
  if (!big || !neg_big || !tiny || !t_out || m - s < 2 || p.k_at_least(3) == 0) {
    ev.finding = "not determined (the formats cannot make the swamping test)";
    return ev;
  }
  std::vector<DotCase> cases;
  std::vector<int> position;
  for (int j = 2; j < std::min(p.max_k(), 64); ++j) {
    if (p.k_at_least(j + 1) == 0 || p.k_at_least(j + 1) > std::max(p.max_k(), 64)) break;
    cases.push_back(p.make_case(j + 1, {{0, *big}, {1, *neg_big}, {j, *tiny}}, p.out().zero_code(false)));
    position.push_back(j);
  }
  p.run(cases);
  int first = -1;
  bool regular = true;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const bool survived = cases[i].d == *t_out;
    if (survived && first < 0) first = position[i];
    if (!survived && first >= 0) regular = false;
  }
  ev.cases = cases;
  const std::string span = "M = 2^" + std::to_string(m) + ", t = 2^" + std::to_string(s);
  const bool strong = m - s >= p.out().precision() + 1;
  if (first < 0) {
    const int n = position.empty() ? 1 : position.back() + 1;
    ev.finding = "block >= " + std::to_string(n);
    ev.proves = "with +M, -M at positions 0, 1 (" + span + ") a tiny t at every position up to " +
                std::to_string(n - 1) + " was cut away: all of them are aligned with M in one block";
    guess.block = std::min(64, n);
  } else if (!regular) {
    ev.finding = "irregular: t first survives at position " + std::to_string(first) +
                 " but not at every later one (reordered or interleaved products; left to the search)";
    ev.proves = "the survivors of a tiny t after a cancelling pair +M, -M (" + span +
                ") do not form one block boundary";
    guess.block = first;
  } else if (first == 2) {
    ev.finding = "block <= 2, or not a fused block (a chain of steps, a tree, or an exact sum)";
    ev.proves = "a tiny t right after the cancelling pair +M, -M (" + span +
                ") survives: it was not aligned with M";
    guess.block = 2;
  } else {
    ev.finding = "block = " + std::to_string(first);
    ev.proves = "a tiny t after the cancelling pair +M, -M (" + span + ") is cut away at positions 2.." +
                std::to_string(first - 1) + " (aligned with M in the first block) and survives from position " +
                std::to_string(first) + " on (a later block, after the pair cancelled)";
    guess.block = first;
    guess.structure = FdpaStructure::fused;
  }
  if (!strong) ev.proves += "; M/t is below 2^(output precision + 1), so rounding could also hide t";
  return ev;
}

// +2^(s0+d), -2^(s0+d) and +2^s0 in one block, C = +0: the exact sum is 2^s0. Aligned to
// 2^(s0 + d - F), 2^s0 survives while d <= F and is cut away from d = F + 1 on (half a unit:
// lost by truncation, floor and ties-to-even alike). F = the last d at which it survives.
ProbeEvidence probe_frac_bits(Prober& p, FdpaParams& guess) {
  ProbeEvidence ev;
  ev.probe = "frac_bits";
  const int hi = p.high_product_exp();
  const int s0 = std::max(p.low_product_exp(), hi - 80);
  const bool in_block = guess.structure == FdpaStructure::fused && guess.block >= 3 && p.k_at_least(3) != 0;
  // Without a block of three (a chain, or blocks of one or two), C carries the test: C =
  // 2^e (1 + 2^-d) with the product -2^e in one step; C's low part survives while d <= F, up
  // to the output's precision (F >= that is a lower bound).
  const int e1 = std::clamp(0, p.low_product_exp(), hi);
  const auto neg_e1 = p.product(true, 1, e1);
  const auto t = in_block ? p.product(false, 1, s0) : neg_e1;
  std::optional<std::uint64_t> t_out = Prober::exact_code(p.out(), false, 1, s0);
  if (!t || !t_out) {
    ev.finding = "not determined (the formats cannot make the test)";
    return ev;
  }
  std::vector<DotCase> cases;
  std::vector<int> distance;
  for (int d = 0; in_block ? s0 + d <= hi && d <= 100 : d < p.out().precision(); ++d) {
    if (in_block) {
      const auto big = p.product(false, 1, s0 + d), neg_big = p.product(true, 1, s0 + d);
      if (!big || !neg_big) break;
      cases.push_back(p.make_case(3, {{0, *big}, {1, *neg_big}, {2, *t}}, p.out().zero_code(false)));
    } else {  // one step: C = 2^e (1 + 2^-d) and the product -2^e leave 2^(e-d)
      const auto c = Prober::exact_code(p.out(), false, (u128(1) << d) + 1, e1 - d);
      if (!c || !neg_e1) break;
      cases.push_back(p.make_case(1, {{0, *neg_e1}}, *c));
    }
    distance.push_back(d);
  }
  p.run(cases);
  ev.cases = cases;
  int lost = -1;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (cases[i].d != (in_block ? *t_out : Prober::exact_code(p.out(), false, 1, e1 - distance[i]).value_or(~0ull))) {
      lost = distance[i];
      break;
    }
  const std::string how = in_block ? "+2^(s+d), -2^(s+d), +2^s in one block (s = " + std::to_string(s0) + ")"
                                   : "C = 2^e (1 + 2^-d) with the product -2^e in one step (e = " +
                                         std::to_string(e1) + "), s = e - d";
  if (lost < 0) {
    const int dmax = distance.empty() ? 0 : distance.back();
    ev.finding = "frac_bits >= " + std::to_string(dmax) + " (not bounded by these formats)";
    ev.proves = how + ": 2^s survived at every distance d up to " + std::to_string(dmax);
    if (in_block) guess.frac_bits = std::max(guess.frac_bits, dmax);
  } else if (lost == 0) {
    ev.finding = "not determined (even d = 0 lost the small term)";
    ev.proves = how;
  } else {
    ev.finding = "frac_bits = " + std::to_string(lost - 1);
    ev.proves = how + ": 2^s survives for d <= " + std::to_string(lost - 1) + " and is cut away at d = " +
                std::to_string(lost) + " (half a unit of 2^(E - F) is lost by truncation, floor and ties-to-even)";
    guess.frac_bits = lost - 1;
  }
  return ev;
}

}  // namespace fpconform::characterize
