// ConversionSweep: emu convert vs the MPFR oracle on every (input, configuration) pair.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <mpfr.h>

#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/parallel_for.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/reference/oracle.hpp"

namespace fpconform::conformance {

// ---- configurations ---------------------------------------------------------------------------

std::vector<StochasticDraw> default_stochastic_draws() {
  return {{3, 0}, {3, 5}, {3, 7}, {64, 0x9E3779B97F4A7C15ull}};
}

std::vector<SubnormalConfig> subnormal_full() {
  std::vector<SubnormalConfig> v;
  for (bool ftz : {false, true})
    for (bool daz : {false, true})
      for (Tininess t : {Tininess::after_rounding, Tininess::before_rounding})
        v.push_back({ftz, daz, t});
  return v;
}

std::vector<SubnormalConfig> subnormal_pairwise() {
  return {{false, false, Tininess::after_rounding},
          {false, true, Tininess::before_rounding},
          {true, false, Tininess::before_rounding},
          {true, true, Tininess::after_rounding}};
}

std::vector<SubnormalConfig> subnormal_ftz() {
  return {{false, false, Tininess::after_rounding}, {true, false, Tininess::after_rounding}};
}

std::vector<SubnormalConfig> subnormal_plain() { return {{false, false, Tininess::after_rounding}}; }

std::vector<RoundingMode> all_modes() {
  using M = RoundingMode;
  return {M::rne, M::rna, M::rtz, M::up, M::down, M::odd,
          M::stochastic_a, M::stochastic_b, M::stochastic_c, M::stochastic_exact};
}

std::vector<RoundingMode> deterministic_modes() {
  using M = RoundingMode;
  return {M::rne, M::rna, M::rtz, M::up, M::down, M::odd};
}

std::vector<Saturation> all_saturations() {
  return {Saturation::none, Saturation::finite, Saturation::propagate};
}

std::vector<Rounding> make_configs(std::span<const RoundingMode> modes,
                                   std::span<const StochasticDraw> draws,
                                   std::span<const Saturation> sats,
                                   std::span<const SubnormalConfig> subs) {
  std::vector<Rounding> out;
  for (RoundingMode m : modes) {
    std::vector<StochasticDraw> ds;
    if (is_stochastic(m)) ds.assign(draws.begin(), draws.end());
    else ds.push_back({0, 0});
    for (const StochasticDraw& d : ds)
      for (Saturation s : sats)
        for (const SubnormalConfig& sc : subs) {
          Rounding r;
          r.mode = m;
          r.sat = s;
          r.ftz = sc.ftz;
          r.daz = sc.daz;
          r.tininess = sc.tininess;
          r.stochastic_bits = d.bits;
          r.random = d.random;
          out.push_back(r);
        }
  }
  return out;
}

std::string mode_label(const Rounding& r) {
  std::string s(to_string(r.mode));
  if (is_stochastic(r.mode)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " n=%d r=0x%llx", r.stochastic_bits,
                  static_cast<unsigned long long>(r.random));
    s += buf;
  }
  return s;
}

std::string describe(const Rounding& r) {
  std::string s = mode_label(r);
  s += " sat=";
  s += to_string(r.sat);
  s += r.ftz ? " ftz=1" : " ftz=0";
  s += r.daz ? " daz=1" : " daz=0";
  s += r.tininess == Tininess::before_rounding ? " tin=before" : " tin=after";
  return s;
}

// ---- input sets ---------------------------------------------------------------------------------

InputSet::InputSet(std::uint64_t size, std::function<std::uint64_t(std::uint64_t)> code,
                   std::string description)
    : size_(size), code_(std::move(code)), description_(std::move(description)) {}

InputSet InputSet::all_codes(const Format& f) {
  if (f.width() > 40) throw Error("inputs", "all codes of " + f.name + " is too many");
  return InputSet(
      std::uint64_t{1} << f.width(), [](std::uint64_t i) { return i; },
      "all " + std::to_string(std::uint64_t{1} << f.width()) + " codes of " + f.name);
}

InputSet InputSet::range(std::uint64_t lo, std::uint64_t hi, std::string description) {
  if (hi < lo) hi = lo;
  if (description.empty()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "codes [0x%llx, 0x%llx)", static_cast<unsigned long long>(lo),
                  static_cast<unsigned long long>(hi));
    description = buf;
  }
  return InputSet(hi - lo, [lo](std::uint64_t i) { return lo + i; }, std::move(description));
}

InputSet InputSet::list(std::vector<std::uint64_t> codes, std::string description) {
  auto shared = std::make_shared<const std::vector<std::uint64_t>>(std::move(codes));
  if (description.empty()) description = std::to_string(shared->size()) + " listed codes";
  const std::uint64_t n = shared->size();
  return InputSet(n, [shared](std::uint64_t i) { return (*shared)[i]; }, std::move(description));
}

InputSet InputSet::strided(const InputSet& in, std::uint64_t count) {
  const std::uint64_t n = in.size();
  if (count >= n) return in;
  auto base = std::make_shared<const InputSet>(in);
  return InputSet(
      count,
      [base, n, count](std::uint64_t i) {
        return base->code(static_cast<std::uint64_t>((static_cast<unsigned __int128>(i) * n) / count));
      },
      std::to_string(count) + " evenly spaced of " + in.description());
}

unsigned default_threads() { return default_thread_count(); }

// ---- the sweep ----------------------------------------------------------------------------------

namespace {

std::string hex(std::uint64_t v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

std::string flag_text(std::uint8_t b) {
  Flags f;
  f.bits = b;
  return f.to_string();
}

// The value of a code as the oracle decodes it, for messages ("nan", "-416", "0x1.8p-3").
std::string oracle_value_text(std::uint64_t bits, const Format& f, bool daz) {
  try {
    mpfr_t x;
    mpfr_init2(x, 128);
    bool signaling = false;
    const bool num = reference::decode(x, bits, f, daz, &signaling);
    std::string s;
    if (!num) {
      s = std::string(mpfr_signbit(x) ? "-" : "") + (signaling ? "snan" : "nan");
    } else {
      char* out = nullptr;
      mpfr_asprintf(&out, "%.20Rg", x);
      s = out ? out : "?";
      mpfr_free_str(out);
    }
    mpfr_clear(x);
    return s;
  } catch (const std::exception& e) {
    return std::string("<") + e.what() + ">";
  }
}

bool key_less(const CounterExample& a, const CounterExample& b) {
  return a.index != b.index ? a.index < b.index : a.config < b.config;
}

// The results of one chunk of inputs.
struct Local {
  std::vector<std::uint64_t> mismatches;  // per config
  std::vector<CounterExample> cex;        // sorted by key, at most K
};

void keep(std::vector<CounterExample>& cex, CounterExample c, std::size_t k) {
  if (k == 0) return;
  if (cex.size() >= k && !key_less(c, cex.back())) return;
  auto it = std::upper_bound(cex.begin(), cex.end(), c, key_less);
  cex.insert(it, std::move(c));
  if (cex.size() > k) cex.pop_back();
}

// A resumed state must come from this sweep: right number of configurations, counter-examples
// inside the inputs done, no more than K of them.
SweepProgress checked_resume(const SweepProgress& p, std::uint64_t n,
                             const std::vector<Rounding>& configs, std::size_t k) {
  const auto bad = [](const std::string& why) { throw Error("resume", why); };
  if (p.done > n)
    bad(std::to_string(p.done) + " inputs done, but the sweep has " + std::to_string(n));
  if (p.mismatches.size() != configs.size())
    bad(std::to_string(p.mismatches.size()) + " configurations, but the sweep has " +
        std::to_string(configs.size()));
  if (p.counterexamples.size() > k)
    bad(std::to_string(p.counterexamples.size()) + " counter-examples, more than the " +
        std::to_string(k) + " kept");
  SweepProgress s = p;
  for (CounterExample& c : s.counterexamples) {
    if (c.config >= configs.size() || c.index >= p.done)
      bad("a counter-example outside the sweep (input " + std::to_string(c.index) + ", config " +
          std::to_string(c.config) + ")");
    c.rounding = configs[c.config];
  }
  std::sort(s.counterexamples.begin(), s.counterexamples.end(), key_less);
  return s;
}

}  // namespace

SweepResult run_sweep(const InputSet& inputs, const std::vector<Rounding>& configs,
                      const SweepOptions& opt, const std::function<SweepEvaluator()>& make_evaluator) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t n = inputs.size();
  const std::size_t nc = configs.size();
  const std::size_t K = opt.max_counterexamples;

  // The committed state: a contiguous prefix of the inputs. Chunks finish in any order; a
  // finished chunk waits in `pending` until every chunk before it has finished, so the state
  // (and what on_progress sees) never depends on the thread count or on timing.
  SweepProgress state;
  if (opt.resume) {
    state = checked_resume(*opt.resume, n, configs, K);
  } else {
    state.mismatches.assign(nc, 0);
  }
  const std::uint64_t start = state.done, remaining = n - start;

  unsigned threads = resolve_threads(opt.threads, "threads");
  const std::uint64_t chunk =
      opt.chunk ? opt.chunk
                : std::clamp<std::uint64_t>(remaining / (std::uint64_t{threads} * 16), 8, 4096);
  const std::uint64_t nchunks = (remaining + chunk - 1) / chunk;
  if (threads > nchunks) threads = static_cast<unsigned>(std::max<std::uint64_t>(1, nchunks));

  std::mutex mu;  // guards state, pending, committed, last_report
  std::map<std::uint64_t, Local> pending;
  std::uint64_t committed = 0;
  auto last_report = t0;

  auto commit = [&](std::uint64_t c, Local&& L) {
    std::lock_guard<std::mutex> g(mu);
    pending.emplace(c, std::move(L));
    while (!pending.empty() && pending.begin()->first == committed) {
      Local& done = pending.begin()->second;
      for (std::size_t k = 0; k < nc; ++k) state.mismatches[k] += done.mismatches[k];
      for (CounterExample& ce : done.cex) keep(state.counterexamples, std::move(ce), K);
      ++committed;
      state.done = std::min(n, start + committed * chunk);
      pending.erase(pending.begin());
    }
    if (!opt.on_progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_report).count() < opt.progress_seconds) return;
    last_report = now;
    opt.on_progress(state);
  };

  // Each worker's evaluator (MPFR state and all); MPFR's thread-local caches go with it.
  struct Worker {
    SweepEvaluator evaluate;
    std::vector<CaseOutcome> out;
    ~Worker() { mpfr_free_cache(); }
  };
  parallel_for(
      nchunks, threads, [&] { return Worker{make_evaluator(), std::vector<CaseOutcome>(nc)}; },
      [&](Worker& w, std::size_t c) {
        if (opt.stop && opt.stop->load(std::memory_order_relaxed)) return;
        Local L;
        L.mismatches.assign(nc, 0);
        const std::uint64_t lo = start + c * chunk, hi = std::min(n, lo + chunk);
        for (std::uint64_t i = lo; i < hi; ++i) {
          const std::uint64_t bits = inputs.code(i);
          for (CaseOutcome& o : w.out) o = CaseOutcome{};
          w.evaluate(bits, w.out);
          for (std::size_t k = 0; k < nc; ++k) {
            CaseOutcome& o = w.out[k];
            if (o.error.empty() && o.emu.bits == o.oracle.bits && o.emu.flags == o.oracle.flags) continue;
            ++L.mismatches[k];
            if (L.cex.size() < K) {  // inputs ascend within a chunk: the first K are kept
              CounterExample ce;
              ce.index = i;
              ce.input = bits;
              ce.config = k;
              ce.rounding = configs[k];
              ce.emu_bits = o.emu.bits;
              ce.emu_flags = o.emu.flags.bits;
              ce.oracle_bits = o.oracle.bits;
              ce.oracle_flags = o.oracle.flags.bits;
              ce.error = std::move(o.error);
              keep(L.cex, std::move(ce), K);
            }
          }
        }
        commit(c, std::move(L));
      });
  // Stopped: no chunk starts after the stop, and every chunk taken before it has finished and
  // been committed, so the state is the prefix of every input looked at.
  if (opt.on_progress) opt.on_progress(state);

  SweepResult res;
  res.input_description = inputs.description();
  res.inputs = n;
  res.inputs_done = state.done;
  res.complete = state.done == n;
  res.threads = threads;
  res.reference_name = opt.reference ? opt.reference_name : "oracle";
  res.per_config.resize(nc);
  for (std::size_t k = 0; k < nc; ++k) {
    res.per_config[k].rounding = configs[k];
    res.per_config[k].cases = state.done;
    res.per_config[k].mismatches = state.mismatches[k];
    res.mismatches += state.mismatches[k];
  }
  res.counterexamples = state.counterexamples;
  res.cases = state.done * nc;
  res.matches = res.cases - res.mismatches;
  res.progress = std::move(state);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

namespace {

// The oracle's side of a reference error: its message, prefixed with the reference's name.
std::string reference_error(const std::string& what, const SweepOptions& opt) {
  return what.rfind("oracle", 0) == 0 || what.rfind(opt.reference_name, 0) == 0
             ? what
             : opt.reference_name + ": " + what;
}

}  // namespace

ConversionSweep::ConversionSweep(Format from, Format to, std::vector<Rounding> configs)
    : from_(std::move(from)), to_(std::move(to)), configs_(std::move(configs)) {}

SweepResult ConversionSweep::run(const InputSet& inputs, const SweepOptions& opt) const {
  const std::size_t nc = configs_.size();
  bool need_daz[2] = {false, false};
  for (const Rounding& r : configs_) need_daz[r.daz ? 1 : 0] = true;
  // Per worker thread: the oracle's decoded source (per daz setting) and the replacement
  // reference's results.
  struct State {
    mpfr_t dec[2];
    std::vector<Rounded> ref_out;
    State() {
      mpfr_init2(dec[0], 128);
      mpfr_init2(dec[1], 128);
    }
    ~State() {
      mpfr_clear(dec[0]);
      mpfr_clear(dec[1]);
    }
  };
  const auto make = [&]() -> SweepEvaluator {
    auto st = std::make_shared<State>();
    st->ref_out.resize(opt.reference ? nc : 0);
    return [this, st, &opt, need_daz](std::uint64_t bits, std::span<CaseOutcome> out) {
      // The reference's per-input work, done once: the oracle decodes the code once per daz
      // setting (or the replacement reference computes every configuration).
      bool is_num[2] = {true, true};
      std::string pre_error[2];
      if (opt.reference) {
        try {
          opt.reference(bits, configs_, st->ref_out);
        } catch (const std::exception& e) {
          pre_error[0] = pre_error[1] = opt.reference_name + ": " + e.what();
        }
      } else if (!opt.oracle_convert_per_case) {
        for (int d = 0; d < 2; ++d) {
          if (!need_daz[d]) continue;
          try {
            is_num[d] = reference::decode(st->dec[d], bits, from_, d == 1, nullptr);
          } catch (const std::exception& e) {
            pre_error[d] = std::string("oracle: decode: ") + e.what();
          }
        }
      }
      const reference::NanSource nan_src{bits, &from_};
      for (std::size_t k = 0; k < configs_.size(); ++k) {
        const Rounding& r = configs_[k];
        const int d = r.daz ? 1 : 0;
        CaseOutcome& o = out[k];
        try {
          o.emu = convert(bits, from_, to_, r);
          if (opt.emu_hook) opt.emu_hook(bits, r, o.emu);
        } catch (const std::exception& ex) {
          o.error = std::string("emu: ") + ex.what();
        }
        try {
          if (!pre_error[d].empty()) throw std::runtime_error(pre_error[d]);
          if (opt.reference) {
            o.oracle = st->ref_out[k];
          } else {
            const reference::OracleResult x =
                opt.oracle_convert_per_case
                    ? reference::convert(bits, from_, to_, r)
                    : reference::round_exact(st->dec[d], to_, r, is_num[d] ? nullptr : &nan_src);
            o.oracle.bits = x.bits;
            o.oracle.flags.bits = x.flags;
          }
        } catch (const std::exception& ex) {
          o.error += (o.error.empty() ? "" : "; ") + reference_error(ex.what(), opt);
        }
      }
    };
  };
  SweepResult res = run_sweep(inputs, configs_, opt, make);
  res.from = from_;
  res.to = to_;
  res.subject = from_.name + " -> " + to_.name;
  return res;
}

std::string SweepResult::format_counterexample(const CounterExample& c) const {
  std::ostringstream o;
  if (input_text)
    o << input_text(c.input);
  else
    o << from.name << " " << hex(c.input, from.hex_digits()) << " ("
      << oracle_value_text(c.input, from, c.rounding.daz) << ") -> " << to.name;
  o << " [" << describe(c.rounding) << "]: ";
  if (!c.error.empty()) {
    // The side that threw has no result; the other side's is shown as is.
    o << "error: " << c.error << " (emu " << hex(c.emu_bits, to.hex_digits()) << " "
      << flag_text(c.emu_flags) << " | " << reference_name << " "
      << hex(c.oracle_bits, to.hex_digits()) << " " << flag_text(c.oracle_flags) << ")";
    return o.str();
  }
  o << "emu " << hex(c.emu_bits, to.hex_digits()) << " ("
    << oracle_value_text(c.emu_bits, to, false) << ") " << flag_text(c.emu_flags) << " | "
    << reference_name << " "
    << hex(c.oracle_bits, to.hex_digits()) << " (" << oracle_value_text(c.oracle_bits, to, false)
    << ") " << flag_text(c.oracle_flags);
  return o.str();
}

std::string SweepResult::summary() const {
  std::ostringstream o;
  o << subject << ": " << inputs << " inputs x " << per_config.size()
    << " configs = " << cases << " cases, " << mismatches << " mismatches (" << seconds << " s, "
    << threads << " threads; " << input_description << ")";
  if (mismatches) {
    std::size_t shown = 0;
    for (const ConfigCount& c : per_config)
      if (c.mismatches && shown++ < 12)
        o << "\n  " << c.mismatches << " mismatches under [" << describe(c.rounding) << "]";
    for (const CounterExample& c : counterexamples) o << "\n    " << format_counterexample(c);
  }
  return o.str();
}

}  // namespace fpconform::conformance
