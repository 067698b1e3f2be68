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
  int s = std::max(p.low_product_exp(), m - 80);
  const auto big = p.product(false, 1, m), neg_big = p.product(true, 1, m), tiny = p.product(false, 1, s);
  const auto t_out = Prober::exact_code(p.out(), false, 1, s);
  if (!big || !neg_big || !tiny || !t_out || m - s < 2 || p.k_at_least(3) == 0) {
    ev.finding = "not determined (the formats cannot make the swamping test)";
    return ev;
  }
  // One scan: t = 2^e at every position j >= 2 after the pair; first survivor and regularity.
  struct Scan {
    std::vector<DotCase> cases;
    std::vector<int> position;
    int first = -1;
    bool regular = true;
  };
  auto scan = [&](int e, const std::pair<std::uint64_t, std::uint64_t>& t_in, std::uint64_t t_code) {
    Scan sc;
    for (int j = 2; j < std::min(p.max_k(), 64); ++j) {
      if (p.k_at_least(j + 1) == 0 || p.k_at_least(j + 1) > std::max(p.max_k(), 64)) break;
      sc.cases.push_back(p.make_case(j + 1, {{0, *big}, {1, *neg_big}, {j, t_in}}, p.out().zero_code(false)));
      sc.position.push_back(j);
    }
    p.run(sc.cases);
    for (std::size_t i = 0; i < sc.cases.size(); ++i) {
      const bool survived = sc.cases[i].d == t_code;
      if (survived && sc.first < 0) sc.first = sc.position[i];
      if (!survived && sc.first >= 0) sc.regular = false;
    }
    (void)e;
    return sc;
  };
  Scan sc = scan(s, *tiny, *t_out);
  std::vector<DotCase> cases = sc.cases;
  // A tiny t that never survives may be hidden by the exponent given to zero terms (a later
  // block of t and zeros aligns to 2^zero_exp): raise t until it survives somewhere. The first
  // t that does shows the block when it is still cut away next to the pair (first > 2). One
  // that survives right after the pair means steps of one or two products (a chain) unless t
  // were within F of M, which needs zeros given an exponent near the largest products.
  if (sc.first < 0) {
    for (int e = s + 1; e <= m - 2; ++e) {
      const auto t_in = p.product(false, 1, e);
      const auto t_code = Prober::exact_code(p.out(), false, 1, e);
      if (!t_in || !t_code) continue;
      Scan up = scan(e, *t_in, *t_code);
      if (up.first < 0) continue;
      cases.insert(cases.end(), up.cases.begin(), up.cases.end());
      sc = std::move(up);
      s = e;
      break;
    }
  }
  const int first = sc.first;
  const bool regular = sc.regular;
  const std::vector<int>& position = sc.position;
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
// When 2^s0 is lost even at d = 0 (an exponent given to zero terms above s0 + F aligns the
// block), s0 rises until it survives there: from then on E = s0 + d wherever t can be lost.
// Blocks of two (or a target whose block the earlier probe could not bound) get a pair without
// cancellation as well: +2^(s0+d) and +2^s0, exact in the output while d < its precision, so a
// loss below that is the alignment's (F narrower than the output, e.g. fp8 units) or an
// accumulator's cut; it is used only when the C case (cancellation in one step) saw no loss.
ProbeEvidence probe_frac_bits(Prober& p, FdpaParams& guess) {
  ProbeEvidence ev;
  ev.probe = "frac_bits";
  const int hi = p.high_product_exp();
  const int s_base = std::max(p.low_product_exp(), hi - 80);
  const bool in_block = guess.structure == FdpaStructure::fused && guess.block >= 3 && p.k_at_least(3) != 0;
  const bool pair_block = !in_block && guess.structure == FdpaStructure::fused && guess.block == 2 &&
                          p.k_at_least(2) != 0;
  // Without a block of three (a chain, or blocks of one or two), C carries the test: C =
  // 2^e (1 + 2^-d) with the product -2^e in one step; C's low part survives while d <= F, up
  // to the output's precision (F >= that is a lower bound).
  const int e1 = std::clamp(0, p.low_product_exp(), hi);
  const auto neg_e1 = p.product(true, 1, e1);
  // The case at distance d from the small term 2^s0 (in_block: three products; pair: two).
  auto block_case = [&](int s0, int d, bool pair) -> std::optional<DotCase> {
    const auto big = p.product(false, 1, s0 + d), t = p.product(false, 1, s0);
    if (!big || !t) return std::nullopt;
    if (pair) return p.make_case(2, {{0, *big}, {1, *t}}, p.out().zero_code(false));
    const auto neg_big = p.product(true, 1, s0 + d);
    if (!neg_big) return std::nullopt;
    return p.make_case(3, {{0, *big}, {1, *neg_big}, {2, *t}}, p.out().zero_code(false));
  };
  auto block_expect = [&](int s0, int d, bool pair) -> std::uint64_t {
    return (pair ? Prober::exact_code(p.out(), false, (u128(1) << d) + 1, s0)
                 : Prober::exact_code(p.out(), false, 1, s0)).value_or(~0ull);
  };
  int s0 = s_base;
  std::vector<DotCase> cases;
  if (in_block || pair_block) {
    // The lowest s0 at which 2^s0 survives at d = 0 (the base one in most units).
    for (int s = s_base; s + 2 <= hi; ++s) {
      std::optional<DotCase> c = block_case(s, 0, pair_block);
      if (!c) continue;
      std::vector<DotCase> one{*c};
      p.run(one);
      if (s == s_base || one[0].d == block_expect(s, 0, pair_block)) cases.push_back(one[0]);
      if (one[0].d == block_expect(s, 0, pair_block)) {
        s0 = s;
        break;
      }
    }
  }
  const auto t = in_block ? p.product(false, 1, s0) : neg_e1;
  std::optional<std::uint64_t> t_out = Prober::exact_code(p.out(), false, 1, s0);
  if (!t || !t_out) {
    ev.finding = "not determined (the formats cannot make the test)";
    return ev;
  }
  const std::size_t scanned_from = cases.size();
  std::vector<int> distance;
  std::vector<bool> pair_case;
  auto push = [&](const DotCase& c, int d, bool pair) {
    cases.push_back(c);
    distance.push_back(d);
    pair_case.push_back(pair);
  };
  for (int d = 0; in_block ? s0 + d <= hi && d <= 100 : d < p.out().precision(); ++d) {
    if (in_block) {
      std::optional<DotCase> c = block_case(s0, d, false);
      if (!c) break;
      push(*c, d, false);
    } else {  // one step: C = 2^e (1 + 2^-d) and the product -2^e leave 2^(e-d)
      const auto c = Prober::exact_code(p.out(), false, (u128(1) << d) + 1, e1 - d);
      if (!c || !neg_e1) break;
      push(p.make_case(1, {{0, *neg_e1}}, *c), d, false);
    }
  }
  if (pair_block)
    for (int d = 0; s0 + d <= hi && d < p.out().precision() - 1; ++d)
      if (std::optional<DotCase> c = block_case(s0, d, true)) push(*c, d, true);
  std::vector<DotCase> scanned(cases.begin() + static_cast<std::ptrdiff_t>(scanned_from), cases.end());
  p.run(scanned);
  std::copy(scanned.begin(), scanned.end(), cases.begin() + static_cast<std::ptrdiff_t>(scanned_from));
  ev.cases = cases;
  // The first distance at which the small term is lost, per kind of case.
  int lost = -1, lost_pair = -1, dmax = 0;
  for (std::size_t i = 0; i < scanned.size(); ++i) {
    const int d = distance[i];
    const std::uint64_t want = pair_case[i] ? block_expect(s0, d, true)
                               : in_block   ? *t_out
                                            : Prober::exact_code(p.out(), false, 1, e1 - d).value_or(~0ull);
    int& first = pair_case[i] ? lost_pair : lost;
    if (!pair_case[i]) dmax = std::max(dmax, d);
    if (first < 0 && scanned[i].d != want) first = d;
  }
  // The pair's sum also passes through an accumulator cut (acc_frac_bits), which the
  // cancelling C case does not: believe the pair only when C was not aligned with the products.
  const bool by_pair = lost_pair > 0 && lost < 0;
  if (by_pair) lost = lost_pair;
  const std::string how = by_pair ? "+2^(s+d), +2^s in one block of two (s = " + std::to_string(s0) + ")"
                          : in_block ? "+2^(s+d), -2^(s+d), +2^s in one block (s = " + std::to_string(s0) + ")"
                                     : "C = 2^e (1 + 2^-d) with the product -2^e in one step (e = " +
                                           std::to_string(e1) + "), s = e - d";
  if (lost < 0) {
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
