// Discriminating probes: crafted inputs for one parameter group, and the values of that group
// whose predictions (with every other parameter as found so far) match all outputs seen.
#include <algorithm>
#include <climits>
#include <random>

#include "fpconform/characterize/probes.hpp"
#include "fpconform/characterize/synthesize.hpp"
#include "fpconform/characterize/validate.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"

namespace fpconform::characterize {

namespace {

using Pair = std::pair<std::uint64_t, std::uint64_t>;

struct Crafter {
  Prober& p;
  std::mt19937_64 rng;
  std::vector<DotCase> cases;

  Crafter(Prober& pr, const std::string& probe)
      : p(pr), rng(pr.seed() ^ std::hash<std::string>{}(probe)) {}

  bool coin() { return rng() & 1; }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  // A random significand of `bits` bits (leading bit set), or of fewer bits when few > 0.
  u128 sig(int bits) {
    if (bits <= 1) return 1;
    const u128 low = rng() & ((1ull << std::min(bits - 1, 63)) - 1);
    return (u128(1) << (bits - 1)) | low;
  }
  std::optional<Pair> prod(bool negative, u128 s, int lead) {
    return p.product(negative, s, lead - bit_length(s) + 1);
  }
  std::optional<std::uint64_t> outv(bool negative, u128 s, int lead) {
    if (s == 0) return p.out().zero_code(false);
    return Prober::exact_code(p.out(), negative, s, lead - bit_length(s) + 1);
  }
  // Adds a case when every term could be made.
  void add(int n, const std::vector<std::pair<int, std::optional<Pair>>>& terms, std::optional<std::uint64_t> c) {
    if (!c || p.k_at_least(n) == 0) return;
    std::vector<std::pair<int, Pair>> t;
    for (const auto& [i, ab] : terms) {
      if (!ab) return;
      t.emplace_back(i, *ab);
    }
    cases.push_back(p.make_case(n, t, *c));
  }
  std::uint64_t zero() const { return p.out().zero_code(false); }
};

}  // namespace

std::vector<DotCase> crafted_cases(Prober& p, const std::string& probe, const FdpaParams& guess) {
  Crafter cr(p, probe);
  const Format& in = p.in();
  const Format& in_b = p.in_b();
  const Format& out = p.out();
  const int P = in.precision(), Pb = in_b.precision(), Po = out.precision();
  const int lowest_product = in.emin() - in.man_bits + in_b.emin() - in_b.man_bits;
  const int low = p.low_product_exp(), high = p.high_product_exp();
  const int e0 = std::clamp(0, low, high);
  const int F = guess.frac_bits;
  const int L = std::max(1, std::min(guess.block > 0 ? guess.block : p.max_k(), p.max_k()));
  if (probe == "structure") {
    // FPRev's pairs: +M at i, -M at j, a unit elsewhere; which units survive depends on the order.
    const int n = std::min(p.max_k(), std::max(2 * L + 2, 8));
    const auto big = cr.prod(false, 1, high), neg_big = cr.prod(true, 1, high), unit = cr.prod(false, 1, low);
    for (int r = 0; r < 48 && n >= 2; ++r) {
      int i = cr.uniform(0, n - 1), j = cr.uniform(0, n - 1);
      if (i == j) continue;
      std::vector<std::pair<int, std::optional<Pair>>> terms;
      for (int q = 0; q < n; ++q) terms.emplace_back(q, q == i ? big : q == j ? neg_big : unit);
      cr.add(n, terms, cr.zero());
    }
    CaseGenerator gen(p.target(), p.seed() ^ 0x57ull, std::min(p.max_k(), 2 * L + 4));
    for (int r = 0; r < 32; ++r) cr.cases.push_back(gen.next(r % 2 ? CaseKind::narrow : CaseKind::cancellation));
  } else if (probe == "c_place") {
    for (int d = -34; d <= 34; d += 2)
      for (int r = 0; r < 2; ++r)
        cr.add(2, {{0, cr.prod(cr.coin(), cr.sig(P), e0)}, {1, cr.prod(cr.coin(), cr.sig(P), e0 - 3)}},
               cr.outv(cr.coin(), cr.sig(4), e0 + d));
  } else if (probe == "align") {
    const int mb = std::min(high, low + F + 4);
    for (int r = 0; r < 60; ++r) {
      const int rel = mb - F + cr.uniform(-3, 2);
      const bool use_c = cr.coin();
      cr.add(3, {{0, cr.prod(false, cr.sig(cr.uniform(1, P)), mb)},
                 {1, use_c ? cr.prod(false, 0, 0) : cr.prod(cr.coin(), cr.sig(P), rel)},
                 {2, cr.prod(cr.coin(), cr.sig(P), rel - cr.uniform(0, 2))}},
             use_c ? cr.outv(cr.coin(), cr.sig(std::min(Po, 8)), rel) : cr.zero());
    }
  } else if (probe == "out_round") {
    for (int r = 0; r < 64; ++r) {
      const int ec = std::min(out.emax() - 1, e0 + Po + cr.uniform(0, 3));
      cr.add(1, {{0, cr.prod(cr.coin(), cr.sig(cr.uniform(1, P)), ec - Po + cr.uniform(-1, 2))}},
             cr.outv(cr.coin(), cr.sig(cr.uniform(1, 4)), ec));
    }
    for (int r = 0; r < 32; ++r) {  // products only: a big one and one below the output's unit
      const int mb = std::min(high, low + Po + 4);
      cr.add(2, {{0, cr.prod(cr.coin(), cr.sig(cr.uniform(1, P)), mb)},
                 {1, cr.prod(cr.coin(), cr.sig(cr.uniform(1, P)), mb - Po + cr.uniform(-2, 1))}},
             cr.zero());
    }
    // The output's edges, where the inputs reach them: one product beyond the largest output
    // (overflow: inf, or max finite under RZ), and one below half the smallest (a zero: of the
    // product's sign, or +0), both signs.
    for (int r = 0; r < 16 && high > out.emax(); ++r)
      cr.add(1, {{0, cr.prod(r % 2, cr.sig(cr.uniform(1, P)), cr.uniform(out.emax() + 1, std::min(high, out.emax() + 8)))}},
             cr.zero());
    const int tiny = out.emin() - out.man_bits - 2;  // leads below half the smallest subnormal
    for (int r = 0; r < 16 && low <= tiny; ++r)
      cr.add(1, {{0, cr.prod(r % 2, cr.sig(cr.uniform(1, P)), cr.uniform(std::max(low, tiny - 8), tiny))}},
             cr.zero());
  } else if (probe == "acc_frac_bits") {
    for (int r = 0; r < 48; ++r) {
      const int e = std::clamp(e0 + cr.uniform(-4, 4), low, high);
      if (r % 2)
        cr.add(2, {{0, cr.prod(false, cr.sig(P), e)}, {1, cr.prod(true, cr.sig(P), e - cr.uniform(0, 1))}}, cr.zero());
      else
        cr.add(1, {{0, cr.prod(cr.coin(), cr.sig(P), e)}}, cr.outv(cr.coin(), cr.sig(Po), e + cr.uniform(-2, 2)));
    }
  } else if (probe == "zero_exp") {
    for (int e = lowest_product; e <= e0 + 4; ++e)
      cr.add(2, {{0, cr.prod(cr.coin(), cr.sig(cr.uniform(1, P)), e)}, {1, cr.prod(false, 0, 0)}}, cr.zero());
    for (int e = out.emin() - out.man_bits; e <= out.emin() + 4; ++e)
      cr.add(1, {{0, cr.prod(false, 0, 0)}}, cr.outv(cr.coin(), cr.sig(std::max(1, std::min(Po, e - (out.emin() - out.man_bits) + 1))), e));
  } else if (probe == "flush") {
    const Format& f = in;
    for (int r = 0; r < 48 && f.subnormals && f.man_bits > 0; ++r) {
      const std::uint64_t sub = (cr.coin() ? f.sign_mask() : 0) | ((cr.rng() & ((1ull << f.man_bits) - 1)) | 1);
      const auto b = Prober::exact_code(in_b, false, 1, std::min(in_b.emax(), cr.uniform(0, in_b.emax())));
      if (!b) continue;
      const int kind = r % 3;
      std::optional<std::uint64_t> c = kind == 0 ? cr.outv(cr.coin(), 0, 0)
                                      : kind == 1 ? cr.outv(cr.coin(), cr.sig(3), e0) : cr.zero();
      cr.add(1, {{0, Pair{sub, *b}}}, c);
    }
    for (int r = 0; r < 24 && out.subnormals && out.man_bits > 0; ++r) {
      const std::uint64_t csub = (cr.coin() ? out.sign_mask() : 0) | ((cr.rng() & ((1ull << out.man_bits) - 1)) | 1);
      if (r % 2) cr.add(1, {{0, cr.prod(false, 0, 0)}}, csub);
      else cr.add(1, {{0, cr.prod(cr.coin(), cr.sig(P), std::max(lowest_product, out.emin() - cr.uniform(1, 6)))}}, csub);
    }
    for (int r = 0; r < 16; ++r)  // results just below the output's normal range
      cr.add(1, {{0, cr.prod(cr.coin(), cr.sig(P), out.emin() - cr.uniform(1, 4))}},
             cr.outv(cr.coin(), cr.sig(2), out.emin() + cr.uniform(0, 1)));
  } else if (probe == "carry_bits") {
    const u128 ones = (u128(1) << P) - 1;
    for (int n = 2; n <= std::min(L, 64); ++n)
      for (int r = 0; r < 2; ++r) {
        std::vector<std::pair<int, std::optional<Pair>>> terms;
        const bool neg = r == 1;
        for (int q = 0; q < n; ++q) terms.emplace_back(q, cr.prod(neg, ones, e0));
        cr.add(n, terms, r ? cr.zero() : cr.outv(neg, (u128(1) << std::min(Po, 60)) - 1, e0));
      }
  } else if (probe == "product") {
    for (int r = 0; r < 48; ++r) {
      const auto a = Prober::exact_code(in, cr.coin(), cr.sig(P), cr.uniform(-P, -P + 2));
      const auto b = Prober::exact_code(in_b, false, cr.sig(Pb), cr.uniform(-Pb, -Pb + 2));
      if (!a || !b) continue;
      const ExactValue pa = decode(*a, in), pb = decode(*b, in_b);
      // -(a*b cut to the input precision): the exact sum is the product's low bits.
      const u128 full = pa.sig * pb.sig;
      const int cut = std::max(0, bit_length(full) - P);
      const auto neg_high = p.product(!pa.negative, full >> cut, pa.exp + pb.exp + cut);
      cr.add(2, {{0, Pair{*a, *b}}, {1, neg_high}}, cr.zero());
    }
    const std::uint64_t mx = in.max_finite_code(), mx_b = in_b.max_finite_code();
    cr.add(1, {{0, Pair{mx, mx_b}}}, cr.zero());
    cr.add(2, {{0, Pair{mx, mx_b}}, {1, Pair{mx | in.sign_mask(), mx_b}}}, cr.zero());
  } else if (probe == "nan") {
    const std::uint64_t one = *Prober::exact_code(in, false, 1, 0);
    const std::uint64_t one_b = *Prober::exact_code(in_b, false, 1, 0);
    if (in.has_nan()) cr.add(1, {{0, Pair{in.nan_code(false), one_b}}}, cr.zero());
    if (in_b.has_nan()) cr.add(1, {{0, Pair{one, in_b.nan_code(true)}}}, cr.zero());
    if (in.has_inf()) {
      cr.add(1, {{0, Pair{in.inf_code(false), in_b.zero_code(false)}}}, cr.zero());
      cr.add(1, {{0, Pair{in.inf_code(false), one_b}}}, cr.zero());
      cr.add(2, {{0, Pair{in.inf_code(false), one_b}}, {1, Pair{in.inf_code(true), one_b}}}, cr.zero());
    }
    if (out.has_nan()) cr.add(1, {{0, Pair{one, one_b}}}, out.nan_code(false));
    if (out.has_inf()) {
      cr.add(1, {{0, Pair{one, one_b}}}, out.inf_code(true));
      if (in.has_inf()) cr.add(1, {{0, Pair{in.inf_code(false), one_b}}}, out.inf_code(true));
    }
  } else {
    throw Error("probe", "unknown probe '" + probe + "'");
  }
  return cr.cases;
}

namespace {

std::vector<std::string> groups_of(const std::string& probe) {
  // Output rounding goes with the structure and the place of C: each changes which results a
  // rounding can reach, and the out_round probe runs after them.
  if (probe == "structure") return {"structure", "block", "out_round"};
  if (probe == "c_place") return {"c_place", "out_round"};
  return {probe};
}

struct ProbeText {
  const char* name;
  const char* proves;
};
const ProbeText kTexts[] = {
    {"structure", "FPRev pairs (+M at i, -M at j, a unit elsewhere) and random cases: which units "
                  "survive shows which products are summed before the pair cancels"},
    {"c_place", "C from 2^-34 to 2^34 times the products: whether C is cut with the products "
                "(one alignment) or added after the block shows in the low bits kept"},
    {"align", "terms just below and above the unit 2^(E - F) of a large product, both signs: "
              "truncation, floor and ties-to-even keep different multiples of the unit"},
    {"out_round", "exact sums that fall between two output values, both signs (C a little above "
                  "the products' unit, or products only): each rounding picks its own neighbour"},
    {"acc_frac_bits", "cancelling products (and C against a product) leave results with low bits at "
                      "every position: an accumulator cut shows as their loss below its width"},
    {"zero_exp", "a tiny product next to a zero product (and a tiny C with zero products), "
                 "scanned over every exponent: where its low bits start to vanish is where the "
                 "exponent given to zero terms takes over the alignment"},
    {"flush", "subnormal inputs times powers of two, subnormal C, and results below the output's "
              "normal range: flushed values read (or come out) as zeros of a given sign"},
    {"carry_bits", "n equal products of all-ones significands (and C): the block sum grows past "
                   "2^(E+1); a limited carry keeps only the top bits"},
    {"product", "a*b minus its high part (the low bits of the exact product), and products that "
                "overflow the output: exact products keep every bit, rounded products do not"},
    {"nan", "NaN operands, inf*0, inf - inf, NaN and infinite C: the NaN code the unit writes "
            "names its NaN policy; infinities pass through"},
};

}  // namespace

ProbeEvidence probe_discriminate(Prober& p, const std::string& probe, FdpaParams& guess,
                                 const std::vector<DotCase>& seen) {
  ProbeEvidence ev;
  ev.probe = probe;
  ev.cases = crafted_cases(p, probe, guess);
  p.run(ev.cases);
  std::vector<DotCase> all = ev.cases;  // the new cases first: they stop bad candidates early
  all.insert(all.end(), seen.begin(), seen.end());
  // Candidates: every combination of the group's moves applied to the guess.
  std::vector<std::pair<std::string, FdpaParams>> candidates{{"", guess}};
  for (const std::string& g : groups_of(probe)) {
    std::vector<std::pair<std::string, FdpaParams>> next;
    for (const auto& [label, params] : candidates)
      for (const ParamMove& m : param_moves(g, p.target().formats())) {
        FdpaParams q = params;
        m.apply(q);
        next.emplace_back(label.empty() ? m.label : label + ", " + m.label, q);
      }
    candidates = std::move(next);
  }
  std::size_t best = SIZE_MAX;
  std::vector<std::pair<std::size_t, std::size_t>> scores;  // (score, candidate)
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::size_t s = count_disagreements(candidates[i].second, p.target().formats(), all, best);
    scores.emplace_back(s, i);
    best = std::min(best, s);
  }
  std::vector<std::size_t> tied;
  std::size_t keep = SIZE_MAX;
  for (const auto& [s, i] : scores)
    if (s == best) {
      tied.push_back(i);
      if (keep == SIZE_MAX && same_params(candidates[i].second, guess)) keep = i;
    }
  const std::size_t chosen = keep != SIZE_MAX ? keep : tied.front();
  const std::string proves = [&] {
    for (const ProbeText& t : kTexts)
      if (probe == t.name) return std::string(t.proves);
    return std::string();
  }();
  if (best == 0) {
    ev.finding = candidates[chosen].first;
    if (tied.size() > 1) {
      ev.finding += " (" + std::to_string(tied.size()) + " values fit these outputs equally";
      std::size_t listed = 0;
      for (std::size_t i : tied)
        if (i != chosen && listed++ < 4) ev.finding += "; " + candidates[i].first;
      ev.finding += tied.size() > 5 ? "; ...)" : ")";
    }
    ev.proves = proves + ". With the parameters found so far, these are the values whose "
                "predictions match all " + std::to_string(all.size()) + " outputs seen";
  } else {
    ev.finding = "no value alone reproduces all " + std::to_string(all.size()) + " outputs (closest: " +
                 candidates[chosen].first + ", " + std::to_string(best) + " wrong); left to the search";
    ev.proves = proves;
  }
  guess = candidates[chosen].second;
  return ev;
}

std::vector<ProbeEvidence> run_feature_probes(Prober& p, FdpaParams& guess,
                                              const std::function<void(const ProbeEvidence&)>& progress,
                                              FdpaParams* direct) {
  std::vector<ProbeEvidence> evidence;
  std::vector<DotCase> seen;
  auto note = [&](ProbeEvidence ev) {
    seen.insert(seen.end(), ev.cases.begin(), ev.cases.end());
    if (progress) progress(ev);
    evidence.push_back(std::move(ev));
  };
  note(probe_block_size(p, guess));
  note(probe_frac_bits(p, guess));
  if (direct) *direct = guess;
  for (const char* probe : {"nan", "structure", "c_place", "out_round", "align", "acc_frac_bits",
                            "zero_exp", "flush", "carry_bits", "product"})
    note(probe_discriminate(p, probe, guess, seen));
  return evidence;
}

}  // namespace fpconform::characterize
