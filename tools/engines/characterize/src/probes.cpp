// The Prober helpers and the probes that decide whether there is anything to model (sanity,
// determinism). Direct and discriminating probes are in probe_alignment.cpp and
// probe_discriminate.cpp.
#include "fpconform/characterize/probes.hpp"

#include <algorithm>
#include <cstdio>

#include "fpconform/characterize/validate.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::characterize {

std::string hex_code(std::uint64_t code) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(code));
  return buf;
}

Prober::Prober(Target& t, std::uint64_t seed, int max_k)
    : t_(t), in_(t.in()), in_b_(t.in_b()), out_(t.out()), seed_(seed), max_k_(std::max(1, max_k)) {}

int Prober::k_at_least(int n) const {
  for (int k = std::max(1, n); k <= std::max(max_k_, n + 64); ++k)
    if (t_.supports_k(k)) return k;
  return 0;
}

std::optional<std::uint64_t> Prober::exact_code(const Format& f, bool negative, u128 sig, int exp) {
  if (sig == 0) {
    if (negative && !f.has_negative_zero()) return std::nullopt;
    return f.zero_code(negative);
  }
  if (negative && !f.is_signed) return std::nullopt;
  const Rounded r = round_to_format(ExactValue::finite(negative, sig, exp), f, Rounding{});
  if (r.flags.bits != 0) return std::nullopt;  // inexact, overflow or underflow
  return r.bits;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> Prober::product(bool negative, u128 sig,
                                                                       int exp) const {
  if (sig == 0) return std::pair{in_.zero_code(false), in_b_.zero_code(false)};
  const int n = bit_length(sig), lead = exp + n - 1;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> best;
  int best_balance = 1 << 30;
  for (int pass = 0; pass < 2 && !best; ++pass) {
    const int lo = pass == 0 ? in_.emin() : in_.emin() - in_.man_bits;
    for (int la = lo; la <= in_.emax(); ++la) {
      const int lb = lead - la;
      if (pass == 0 && (lb < in_b_.emin() || lb > in_b_.emax())) continue;
      const auto a = exact_code(in_, negative, sig, la - (n - 1));
      const auto b = exact_code(in_b_, false, 1, lb);
      if (!a || !b) continue;
      const int balance = std::abs(la - lb);
      if (balance < best_balance) best_balance = balance, best = std::pair{*a, *b};
    }
  }
  return best;
}

DotCase Prober::make_case(int n,
                          const std::vector<std::pair<int, std::pair<std::uint64_t, std::uint64_t>>>& terms,
                          std::uint64_t c) const {
  const int k = k_at_least(n);
  if (k == 0) throw Error(t_.name(), "accepts no dot-product length >= " + std::to_string(n));
  DotCase dc;
  dc.a.assign(static_cast<std::size_t>(k), in_.zero_code(false));
  dc.b.assign(static_cast<std::size_t>(k), in_b_.zero_code(false));
  for (const auto& [i, ab] : terms) {
    dc.a.at(static_cast<std::size_t>(i)) = ab.first;
    dc.b.at(static_cast<std::size_t>(i)) = ab.second;
  }
  dc.c = c;
  return dc;
}

int Prober::low_product_exp() const { return std::max(in_.emin() + in_b_.emin(), out_.emin()); }
int Prober::high_product_exp() const { return std::min(in_.emax() + in_b_.emax(), out_.emax() - 1); }

SanityResult probe_sanity(Prober& p) {
  SanityResult r;
  r.evidence.probe = "sanity";
  const Format& out = p.out();
  struct Expect {
    const char* what;
    bool na; u128 sa; int ea;  // a (one input)
    u128 sb; int eb;           // b
    bool nc; u128 sc; int ec;  // C
    bool nd; u128 sd; int ed;  // expected D
  };
  const Expect table[] = {
      {"1*1 + 0 = 1", false, 1, 0, 1, 0, false, 0, 0, false, 1, 0},
      {"1*1 + 1 = 2", false, 1, 0, 1, 0, false, 1, 0, false, 1, 1},
      {"2*1.5 + 1 = 4", false, 1, 1, 3, -1, false, 1, 0, false, 1, 2},
      {"-1*1 + 0 = -1", true, 1, 0, 1, 0, false, 0, 0, true, 1, 0},
      {"1*1 - 1 = 0", false, 1, 0, 1, 0, true, 1, 0, false, 0, 0},
  };
  std::vector<DotCase> cases;
  std::vector<std::uint64_t> expected;
  std::vector<const char*> what;
  for (const Expect& e : table) {
    const auto a = Prober::exact_code(p.in(), e.na, e.sa, e.ea), b = Prober::exact_code(p.in_b(), false, e.sb, e.eb);
    const auto c = Prober::exact_code(out, e.nc, e.sc, e.ec), d = Prober::exact_code(out, e.nd, e.sd, e.ed);
    if (!a || !b || !c || !d) continue;
    cases.push_back(p.make_case(1, {{0, {*a, *b}}}, *c));
    expected.push_back(*d);
    what.push_back(e.what);
  }
  if (cases.empty()) {
    r.evidence.finding = "no exact sanity case fits these formats";
    return r;
  }
  p.run(cases);
  std::size_t wrong = 0, nans = 0;
  std::string first_wrong;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const bool zero_expected = (expected[i] & out.magnitude_mask()) == 0;
    const bool ok = cases[i].d == expected[i] || (zero_expected && (cases[i].d & out.magnitude_mask()) == 0);
    if (out.is_nan_code(cases[i].d)) ++nans;
    if (!ok && ++wrong == 1)
      first_wrong = std::string(what[i]) + " gave " + hex_code(cases[i].d) + ", not " + hex_code(expected[i]);
  }
  r.evidence.cases = cases;
  if (nans == cases.size()) {
    r.ok = false;
    r.reason = "the target returns NaN for every input, even " + std::string(what[0]) + " (got " +
               hex_code(cases[0].d) + "): there is nothing to model";
  } else if (wrong > 0) {
    r.ok = false;
    r.reason = "the target does not compute dot products: " + first_wrong + " (" +
               std::to_string(wrong) + " of " + std::to_string(cases.size()) +
               " exact sanity cases wrong); its answers look like garbage";
  }
  r.evidence.finding = r.ok ? "computes exact small dot products" : "fails exact small dot products";
  r.evidence.proves = r.ok ? "every case has an exactly representable result that any rounding gives"
                           : r.reason;
  return r;
}

DeterminismResult probe_determinism(Prober& p, std::size_t n) {
  DeterminismResult r;
  r.evidence.probe = "determinism";
  CaseGenerator gen(p.target(), p.seed() ^ 0xD5EEDull, std::min(p.max_k(), 32));
  std::vector<DotCase> first = gen.batch(n), second = first;
  std::vector<DotCase> reversed(first.rbegin(), first.rend());
  p.run(first);
  p.run(second);
  p.run(reversed);
  std::vector<DotCase> differing;
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t d3 = reversed[n - 1 - i].d;
    if (first[i].d != second[i].d || first[i].d != d3) {
      ++count;
      if (differing.size() < 8) {
        differing.push_back(first[i]);
        differing.push_back(second[i]);
        DotCase again = first[i];
        again.d = d3;
        differing.push_back(again);
      }
    }
  }
  r.deterministic = count == 0;
  if (r.deterministic) {
    first.resize(std::min<std::size_t>(first.size(), 16));
    r.evidence.cases = first;
    r.evidence.finding = "deterministic";
    r.evidence.proves = std::to_string(n) + " random cases run three times (twice as one batch, once "
                        "in reverse order) gave identical answers";
  } else {
    r.evidence.cases = differing;
    r.evidence.finding = "non-deterministic: " + std::to_string(count) + " of " + std::to_string(n) +
                         " cases answered differently between identical calls";
    r.evidence.proves = "the cases listed come in groups of three runs of the same inputs with "
                        "different answers; no deterministic model can reproduce them";
  }
  return r;
}

}  // namespace fpconform::characterize
