// Shared machinery of the arithmetic conformance tests (arith_*_test.cpp): rounding
// configurations, a two-way/three-way checker (emu vs the MPFR oracle and/or the double
// reference double_arith.hpp), operand generators and counters.
//
// Sides compared, per case:
//   emu     fpconform::apply_op (the model under test)
//   mpfr    fpconform::reference::apply_op (the MPFR oracle)
//   opref   dref::Context (double arithmetic + round-to-odd, double_arith.hpp)
// Oracle::mpfr: emu vs mpfr on every case, and opref vs mpfr wherever opref applies (that is
// how double_arith.hpp is validated). Oracle::opref: emu vs opref only (fast sweeps).
//
// Stochastic modes: each case gets its own random bits (a hash of the case index and the
// configuration), so a sweep sees many random values; the bit count n comes from the config.
//
// Environment: FPCONFORM_THREADS (threads, default: all cores), FPCONFORM_SEED (seed, printed),
// FPCONFORM_ARITH_SCALE (a factor on the sampled case counts, default 1; e.g. 0.1 while
// developing).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fpconform/core/splitmix.hpp"
#include "fpconform/arith.hpp"
#include "fpconform/fast_arith.hpp"
#include "fpconform/conformance/conversion.hpp"
#include "fpconform/reference/arith.hpp"
#include "fpconform/reference/double_arith.hpp"

namespace arithtest {

using namespace fpconform;
using u64 = std::uint64_t;

struct Rng {
  u64 s;
  explicit Rng(u64 seed) : s(seed) {}
  u64 next() { return splitmix64(s += kSplitMixGamma); }
  u64 below(u64 n) { return n ? next() % n : 0; }
};

inline unsigned threads() { return conformance::default_threads(); }
inline u64 seed() { return conformance::seed_from_env(1); }
inline double scale_factor() {
  if (const char* e = std::getenv("FPCONFORM_ARITH_SCALE")) {
    const double v = std::atof(e);
    if (v > 0) return v;
  }
  return 1.0;
}
inline u64 scaled(u64 n) {
  return std::max<u64>(1, static_cast<u64>(static_cast<double>(n) * scale_factor()));
}

// Runs f(begin, end) over [0, n) in chunks on threads() threads.
template <class F>
void parallel_for(u64 n, u64 chunk, F&& f) {
  const u64 nchunks = (n + chunk - 1) / chunk;
  const unsigned nt = static_cast<unsigned>(std::min<u64>(threads(), std::max<u64>(nchunks, 1)));
  std::atomic<u64> next{0};
  auto work = [&] {
    for (;;) {
      const u64 c = next.fetch_add(1);
      if (c >= nchunks) break;
      f(c * chunk, std::min(n, (c + 1) * chunk));
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < nt; ++i) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

// ---- configurations ------------------------------------------------------------------------------

inline const NanPolicy& policy(int i) {
  const auto ps = nan_policies();
  return ps[static_cast<std::size_t>(i) % ps.size()];
}

inline std::string describe(const OpOptions& o) {
  std::string s = conformance::describe(o.rounding);
  s += " nan=";
  s += o.nan ? o.nan->name : default_nan_policy().name;
  if (!o.exact_int) s += " exact_int=0";
  return s;
}

struct StochasticBits {
  RoundingMode mode;
  int bits;
};
// Bit counts per stochastic mode (two each; the random bits vary per case).
inline std::vector<StochasticBits> stochastic_bit_counts() {
  using M = RoundingMode;
  return {{M::stochastic_a, 3}, {M::stochastic_a, 64}, {M::stochastic_b, 1},
          {M::stochastic_b, 10}, {M::stochastic_c, 4}, {M::stochastic_c, 33},
          {M::stochastic_exact, 2}, {M::stochastic_exact, 17}};
}

// Every rounding mode (stochastic ones per bit count) x every saturation, with the default
// subnormal handling and the NaN policy rotating over the five; then, if `subnormal_variants`,
// each mode once more with one of the 7 non-default (ftz, daz, tininess) combinations, in
// rotation (sat rotating too), and rne, up, odd with all 7 (77 configurations in all). `max_sr_bits` caps the stochastic bit counts (double_arith's
// limit 51 - p); 0 keeps them.
inline std::vector<OpOptions> configs(bool all_sats, bool subnormal_variants, int max_sr_bits = 0,
                                      bool stochastic = true) {
  std::vector<Rounding> modes;
  for (RoundingMode m : {RoundingMode::rne, RoundingMode::rna, RoundingMode::rtz, RoundingMode::up,
                         RoundingMode::down, RoundingMode::odd}) {
    Rounding r;
    r.mode = m;
    modes.push_back(r);
  }
  if (stochastic)
    for (const auto& sb : stochastic_bit_counts()) {
      Rounding r;
      r.mode = sb.mode;
      r.stochastic_bits = max_sr_bits > 0 ? std::min(sb.bits, max_sr_bits) : sb.bits;
      modes.push_back(r);
    }
  std::vector<OpOptions> v;
  int k = 0;
  const Saturation sats[3] = {Saturation::none, Saturation::finite, Saturation::propagate};
  for (const Rounding& m : modes)
    for (int s = 0; s < (all_sats ? 3 : 1); ++s) {
      OpOptions o;
      o.rounding = m;
      o.rounding.sat = sats[s];
      o.nan = &policy(k++);
      v.push_back(o);
    }
  if (subnormal_variants) {
    int j = 0;
    for (const Rounding& m : modes) {
      const int combo = 1 + (j % 7);  // bit 0 ftz, bit 1 daz, bit 2 tininess before
      OpOptions o;
      o.rounding = m;
      o.rounding.ftz = (combo & 1) != 0;
      o.rounding.daz = (combo & 2) != 0;
      o.rounding.tininess = (combo & 4) ? Tininess::before_rounding : Tininess::after_rounding;
      o.rounding.sat = sats[j % 3];
      o.nan = &policy(k++);
      v.push_back(o);
      ++j;
    }
    // rne, up and odd once more under each of the 7 combinations (saturation rotating).
    for (RoundingMode m : {RoundingMode::rne, RoundingMode::up, RoundingMode::odd})
      for (int combo = 1; combo < 8; ++combo) {
        OpOptions o;
        o.rounding.mode = m;
        o.rounding.ftz = (combo & 1) != 0;
        o.rounding.daz = (combo & 2) != 0;
        o.rounding.tininess = (combo & 4) ? Tininess::before_rounding : Tininess::after_rounding;
        o.rounding.sat = sats[(combo + j) % 3];
        o.nan = &policy(k++);
        v.push_back(o);
      }
  }
  return v;
}

// Only the options that matter to min/max (daz, NaN policy) and comparisons (daz).
inline std::vector<OpOptions> minmax_configs() {
  std::vector<OpOptions> v;
  for (int i = 0; i < 5; ++i) {
    OpOptions o;
    o.nan = &policy(i);
    v.push_back(o);
  }
  OpOptions d;
  d.rounding.daz = true;
  d.nan = &policy(1);
  v.push_back(d);
  d.nan = &policy(4);
  d.rounding.ftz = true;  // must not matter
  v.push_back(d);
  return v;
}

// Restricts to the configs double_arith supports for f (stochastic bit count).
inline std::vector<OpOptions> opref_supported(const Format& f, std::vector<OpOptions> v) {
  v.erase(std::remove_if(v.begin(), v.end(),
                         [&](const OpOptions& o) { return !dref::supports(f, o.rounding); }),
          v.end());
  return v;
}

// ---- the checker ---------------------------------------------------------------------------------

enum class Oracle { mpfr, opref };

struct Outcome {
  u64 bits = 0;
  std::uint8_t flags = 0;
  bool operator==(const Outcome&) const = default;
};

inline std::string hex(u64 v, const Format& f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, f.hex_digits(), v);
  return buf;
}

inline std::string case_text(Op op, const Format& f, const u64* ops, const OpOptions& o,
                             const char* ln, Outcome l, const char* rn, Outcome r) {
  std::string s = f.name + " " + std::string(op_info(op).name) + "(";
  for (int i = 0; i < op_info(op).arity; ++i) s += (i ? ", " : "") + hex(ops[i], f);
  s += ") [" + describe(o);
  if (is_stochastic(o.rounding.mode)) {
    char b[40];
    std::snprintf(b, sizeof b, " r=0x%" PRIx64, o.rounding.random);
    s += b;
  }
  s += "]: " + std::string(ln) + " " + hex(l.bits, f) + " " + Flags{l.flags}.to_string() + " | " +
       rn + " " + hex(r.bits, f) + " " + Flags{r.flags}.to_string();
  return s;
}

struct Stats {
  u64 cases = 0;          // emu checked against the oracle
  u64 bad = 0;            // emu mismatches
  u64 opref_cases = 0;    // opref checked against MPFR
  u64 opref_bad = 0;
  u64 errors = 0;         // exceptions
  double seconds = 0;
  std::vector<std::pair<u64, std::string>> examples;  // smallest keys first
  std::string summary(std::size_t k = 10) const {
    std::string s;
    for (std::size_t i = 0; i < examples.size() && i < k; ++i) s += "\n  " + examples[i].second;
    return s;
  }
  void merge(const Stats& o, std::size_t k = 20) {
    cases += o.cases;
    bad += o.bad;
    opref_cases += o.opref_cases;
    opref_bad += o.opref_bad;
    errors += o.errors;
    examples.insert(examples.end(), o.examples.begin(), o.examples.end());
    std::sort(examples.begin(), examples.end());
    if (examples.size() > k) examples.resize(k);
  }
};

// Checks `op` in `f` on cases i in [0, n) (operands from gen(i, u64 ops[3])) under every
// config. The stochastic random bits of case (i, c) are splitmix64(seed ^ i * nconfigs + c).
// With Oracle::mpfr, opref is also checked against MPFR where it supports the config
// (unless validate_opref is false).
// With one_config_per_case, case i runs under config splitmix64(seed + i) % nconfigs only.
// emu_hook (tests of this harness): may alter emu's outcome before the comparison.
// emu_fast: emu is SmallFormatOp (emu's integer fast path, identical to apply_op) wherever it
// serves the op and config (add/sub/mul/div of <= 16-bit formats, non-stochastic modes).
using EmuHook = void (*)(Op, const u64* ops, Outcome&);
template <class Gen>
Stats check(Op op, const Format& f, const std::vector<OpOptions>& cfgs, u64 n, Gen gen,
            Oracle oracle, bool one_config_per_case = false, bool validate_opref = true,
            u64 chunk = 4096, EmuHook emu_hook = nullptr, bool emu_fast = false) {
  const auto t0 = std::chrono::steady_clock::now();
  const u64 sd = seed();
  const std::size_t nc = cfgs.size();
  std::vector<char> opref_ok(nc);
  for (std::size_t c = 0; c < nc; ++c) opref_ok[c] = dref::supports(f, cfgs[c].rounding);
  if (oracle == Oracle::opref)
    for (std::size_t c = 0; c < nc; ++c)
      if (!opref_ok[c]) throw std::logic_error("opref does not support " + describe(cfgs[c]));
  std::vector<std::unique_ptr<SmallFormatOp>> fast(nc);
  if (emu_fast && SmallFormatOp::supports(f, op))
    for (std::size_t c = 0; c < nc; ++c)
      if (!is_stochastic(cfgs[c].rounding.mode))
        fast[c] = std::make_unique<SmallFormatOp>(f, op, cfgs[c]);
  std::mutex mu;
  Stats total;
  std::vector<dref::Context> ctx0;  // built once (limits, shared decode tables)
  ctx0.reserve(nc);
  for (std::size_t c = 0; c < nc; ++c) ctx0.emplace_back(f, cfgs[c]);
  parallel_for(n, chunk, [&](u64 b, u64 e) {
    Stats st;
    std::vector<dref::Context> ctx = ctx0;  // per chunk: set_random mutates
    auto note = [&](u64 key, std::string text) {
      if (st.examples.size() < 20) st.examples.emplace_back(key, std::move(text));
    };
    u64 ops[3] = {0, 0, 0};
    for (u64 i = b; i < e; ++i) {
      gen(i, ops);
      const std::size_t c_lo = one_config_per_case ? splitmix64(sd + i) % nc : 0;
      const std::size_t c_hi = one_config_per_case ? c_lo + 1 : nc;
      for (std::size_t c = c_lo; c < c_hi; ++c) {
        OpOptions o = cfgs[c];
        const bool sto = is_stochastic(o.rounding.mode);
        if (sto) {
          o.rounding.random = splitmix64(sd ^ (i * nc + c));
          ctx[c].set_random(o.rounding.random);
        }
        const u64 key = i * nc + c;
        Outcome em, orc;
        try {
          const Rounded r = fast[c] ? (*fast[c])(ops[0], ops[1]) : apply_op(op, f, ops, o);
          em = {r.bits, r.flags.bits};
          if (emu_hook) emu_hook(op, ops, em);
        } catch (const std::exception& ex) {
          ++st.errors;
          note(key, std::string("emu threw: ") + ex.what());
          continue;
        }
        if (oracle == Oracle::mpfr) {
          try {
            const reference::OracleResult r = reference::apply_op(op, f, ops, o);
            orc = {r.bits, r.flags};
          } catch (const std::exception& ex) {
            ++st.errors;
            note(key, std::string("mpfr oracle threw: ") + ex.what());
            continue;
          }
          if (validate_opref && opref_ok[c]) {
            const dref::Result q = ctx[c].apply(op, ops);
            ++st.opref_cases;
            if (Outcome{q.bits, q.flags} != orc) {
              ++st.opref_bad;
              note(key, "OPREF " + case_text(op, f, ops, o, "opref", {q.bits, q.flags}, "mpfr", orc));
            }
          }
        } else {
          const dref::Result q = ctx[c].apply(op, ops);
          orc = {q.bits, q.flags};
        }
        ++st.cases;
        if (em != orc) {
          ++st.bad;
          note(key, case_text(op, f, ops, o, "emu", em,
                              oracle == Oracle::mpfr ? "mpfr" : "opref", orc));
        }
      }
    }
    std::lock_guard<std::mutex> g(mu);
    total.merge(st);
  });
  total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return total;
}

// Prints one line per check and records the totals; fails the test on any mismatch.
inline void report(const std::string& what, const Stats& s, Oracle oracle) {
  std::printf("[ arith ] %-44s %12" PRIu64 " cases vs %s, %" PRIu64 " mismatches",
              what.c_str(), s.cases, oracle == Oracle::mpfr ? "mpfr " : "opref", s.bad);
  if (s.opref_cases)
    std::printf("; opref vs mpfr %" PRIu64 " cases, %" PRIu64 " mismatches", s.opref_cases,
                s.opref_bad);
  std::printf("; %.2f s\n", s.seconds);
  std::fflush(stdout);
  EXPECT_EQ(s.errors, 0u) << what << s.summary();
  EXPECT_EQ(s.bad, 0u) << what << ": emu vs " << (oracle == Oracle::mpfr ? "mpfr" : "opref")
                       << s.summary();
  EXPECT_EQ(s.opref_bad, 0u) << what << ": op_reference vs mpfr" << s.summary();
}

// ---- operand generators ----------------------------------------------------------------------------

// Significand patterns in the style of TestFloat's level 2: zero, all ones, single bits,
// runs of leading and trailing ones, and their sums with 1 / differences with the top bit.
inline std::vector<u64> significand_patterns(int m) {
  std::vector<u64> v;
  const u64 all = (u64{1} << m) - 1;
  v.push_back(0);
  v.push_back(all);
  for (int k = 0; k < m; ++k) {
    v.push_back(u64{1} << k);                      // single bit
    v.push_back((u64{1} << k) - 1);                // trailing ones
    v.push_back(all & ~((u64{1} << k) - 1));       // leading ones
    v.push_back(((u64{1} << k) | 1) & all);        // bit k and bit 0
    v.push_back(all & ~(u64{1} << k));             // all ones but bit k
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Exponent fields worth testing: the bottom and top few, around the bias, and (for wide
// exponents) every 16th in between. All of them when there are <= 40.
inline std::vector<u64> exponent_patterns(const Format& f) {
  const u64 top = (u64{1} << f.exp_bits) - 1;
  std::vector<u64> v;
  if (top < 40) {
    for (u64 e = 0; e <= top; ++e) v.push_back(e);
    return v;
  }
  for (u64 e = 0; e <= 4; ++e) v.push_back(e);
  for (u64 e = top - 4; e <= top; ++e) v.push_back(e);
  const u64 b = static_cast<u64>(f.bias);
  for (u64 e = b - 4; e <= b + 4; ++e) v.push_back(e);
  for (u64 e = 0; e <= top; e += 16) v.push_back(e);
  // around m+1 below the bottom (products/quotients meeting the subnormal range)
  for (u64 e : {u64(f.man_bits), u64(f.man_bits + 1), u64(f.man_bits + 2), top - f.man_bits - 1})
    v.push_back(e);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Both signs x exponent patterns x significand patterns.
inline std::vector<u64> pattern_codes(const Format& f) {
  std::vector<u64> v;
  const auto sig = significand_patterns(f.man_bits);
  for (u64 s : {u64{0}, f.sign_mask()})
    for (u64 e : exponent_patterns(f))
      for (u64 t : sig) v.push_back(s | (e << f.man_bits) | t);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace arithtest
