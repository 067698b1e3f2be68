// Cross-check of emu's conversions against the MPFR oracle (fpconform::reference).
//
// The two sides share no code: emu decodes and rounds on bit patterns, the oracle on exact
// MPFR values, each written from emu/SEMANTICS.md. A sweep runs both on every (input, rounding
// configuration) pair and compares result bits and flags exactly (NaN results included: their
// sign and payload are specified, so the bits must agree).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform::conformance {

// ---------------------------------------------------------------------------------------------
// Rounding configurations

// One draw for the stochastic modes: n = stochastic_bits, r = random.
struct StochasticDraw {
  int bits = 3;
  std::uint64_t random = 0;
};
// n=3 with r = 0, 5, 7 and n=64 with a fixed pseudo-random r.
std::vector<StochasticDraw> default_stochastic_draws();

// The subnormal-handling part of a Rounding.
struct SubnormalConfig {
  bool ftz = false;
  bool daz = false;
  Tininess tininess = Tininess::after_rounding;
};
// All 8 combinations of ftz x daz x tininess.
std::vector<SubnormalConfig> subnormal_full();
// 4 runs covering every pair of the three factors (a 2-level orthogonal array):
// (ftz0, after, daz0) (ftz0, before, daz1) (ftz1, before, daz0) (ftz1, after, daz1).
std::vector<SubnormalConfig> subnormal_pairwise();
// FTZ off and on (daz off, tininess after).
std::vector<SubnormalConfig> subnormal_ftz();
// Just the default (no ftz, no daz, after rounding).
std::vector<SubnormalConfig> subnormal_plain();

std::vector<RoundingMode> all_modes();          // the 10 modes
std::vector<RoundingMode> deterministic_modes();  // rne rna rtz up down odd
std::vector<Saturation> all_saturations();      // none finite propagate

// Cartesian product: every mode (stochastic modes once per draw) x sat x subnormal config.
std::vector<Rounding> make_configs(std::span<const RoundingMode> modes,
                                   std::span<const StochasticDraw> draws,
                                   std::span<const Saturation> sats,
                                   std::span<const SubnormalConfig> subs);

// "rne sat=none ftz=0 daz=0 tin=after" (+ " n=3 r=0x5" for stochastic modes).
std::string describe(const Rounding& r);
// The mode label used for per-mode counts: "rne", "sr-a n=3 r=0x5", ...
std::string mode_label(const Rounding& r);

// ---------------------------------------------------------------------------------------------
// Input sets

// A sequence of source codes, produced on demand by index so that sweeps over 2^32 inputs need
// no memory: `code(i)` for i in [0, size).
class InputSet {
 public:
  InputSet() = default;
  InputSet(std::uint64_t size, std::function<std::uint64_t(std::uint64_t)> code,
           std::string description);
  // Every code of the format, in order (2^width of them).
  static InputSet all_codes(const Format& f);
  // codes [lo, hi) in order.
  static InputSet range(std::uint64_t lo, std::uint64_t hi, std::string description = "");
  static InputSet list(std::vector<std::uint64_t> codes, std::string description = "");
  // `count` inputs of `in`, evenly spaced over it (index floor(i * size / count)).
  static InputSet strided(const InputSet& in, std::uint64_t count);

  std::uint64_t size() const { return size_; }
  std::uint64_t code(std::uint64_t i) const { return code_(i); }
  const std::string& description() const { return description_; }

 private:
  std::uint64_t size_ = 0;
  std::function<std::uint64_t(std::uint64_t)> code_;
  std::string description_;
};

// Boundary inputs for a wide source (f32 or f64; any IEEE binary32/binary64-shaped source)
// against `to`: exact target values, ties (midpoints of neighbours), +-1/+-2 source ulps around
// both, around maxf and the overflow threshold, around 2^emin, minpos and minpos/2, for every
// exponent of the source a few values in its binade, zeros, infinities, quiet and signaling
// NaNs with payloads, both signs; then seeded random codes (a third uniform over all codes, a
// third uniform over the target's exponent range, a third within +-4 source ulps of a random
// target value or tie): at least `min_random` of them, more until `min_total` inputs.
// Deterministic for a given seed. Throws Error for other sources.
struct BoundaryOptions {
  std::uint64_t min_total = 1'000'000;
  std::uint64_t min_random = 100'000;  // random codes even when the core reaches min_total
  std::uint64_t seed = 1;
  // Ties +- offsets smaller than an f32 ulp (double-rounding traps). Meaningful for f64
  // sources; adds t*(1 +- 2^-k) for several k > 24 around every target tie.
  bool double_rounding_traps = false;
  // Cap on the number of enumerated target values (targets wider than this are sampled per
  // exponent field).
  std::uint64_t max_target_values = 1u << 17;
};
std::vector<std::uint64_t> boundary_inputs(const Format& from, const Format& to,
                                           const BoundaryOptions& opt);
// The same inputs without materialising the random part: the deterministic core is stored,
// random codes are computed from (seed, index) on demand.
InputSet boundary_input_set(const Format& from, const Format& to, const BoundaryOptions& opt);
// Only the deterministic part (no random fill).
std::vector<std::uint64_t> boundary_inputs_core(const Format& from, const Format& to,
                                                const BoundaryOptions& opt);
// Ties of `to` perturbed by less than an f32 ulp (f64 source only): t*(1 +- 2^-k).
std::vector<std::uint64_t> double_rounding_traps(const Format& to, std::uint64_t max_ties,
                                                 std::uint64_t seed);

// A seed from FPCONFORM_SEED if set, else `fallback`.
std::uint64_t seed_from_env(std::uint64_t fallback);

// ---------------------------------------------------------------------------------------------
// Sweeps

struct CounterExample {
  std::uint64_t index = 0;   // position in the input set
  std::uint64_t input = 0;   // source code
  std::size_t config = 0;    // index into the sweep's configurations
  Rounding rounding;
  std::uint64_t emu_bits = 0;
  std::uint8_t emu_flags = 0;
  std::uint64_t oracle_bits = 0;
  std::uint8_t oracle_flags = 0;
  std::string error;  // an exception from either side (then bits/flags are meaningless)
};

struct ConfigCount {
  Rounding rounding;
  std::uint64_t cases = 0;
  std::uint64_t mismatches = 0;
};

// The state of a sweep over a contiguous prefix of its inputs, [0, done): enough to continue
// it later (resumable runs) with the same final result as an uninterrupted run, because the
// counts are sums over inputs and the counter-examples are the first K by (index, config).
struct SweepProgress {
  std::uint64_t done = 0;                       // inputs [0, done) are counted
  std::vector<std::uint64_t> mismatches;        // per configuration
  std::vector<CounterExample> counterexamples;  // the first K of [0, done), sorted
};

struct SweepResult {
  Format from, to;       // an operation's sweep: both are the operands' format
  std::string subject;   // "f16 -> e4m3", "add f16"
  // How a counter-example's input is shown; empty: "<from> <code> (<value>) -> <to>".
  std::function<std::string(std::uint64_t input)> input_text;
  // false when SweepOptions::stop ended the run early: the counts then cover inputs
  // [0, inputs_done) only, and `progress` holds the state to resume from.
  bool complete = true;
  std::uint64_t inputs_done = 0;
  SweepProgress progress;
  std::string input_description;
  std::uint64_t inputs = 0;
  std::uint64_t cases = 0;  // inputs x configurations
  std::uint64_t matches = 0;
  std::uint64_t mismatches = 0;
  std::vector<ConfigCount> per_config;
  std::vector<CounterExample> counterexamples;  // the first K by (input index, config index)
  double seconds = 0;
  unsigned threads = 0;
  std::string reference_name = "oracle";

  // "f16 -> e4m3: 1234 cases, 0 mismatches" plus the counter-examples, one per line.
  std::string summary() const;
  std::string format_counterexample(const CounterExample& c) const;
};

struct SweepOptions {
  std::size_t max_counterexamples = 10;
  unsigned threads = 0;            // 0: FPCONFORM_THREADS, else hardware_concurrency()
  std::uint64_t chunk = 0;         // inputs per work item; 0: from the input count (<= 4096)
  // true: oracle via reference::convert per case. false (default): the source code is
  // decoded by the oracle once per input (and daz setting), then reference::round_exact is
  // called per configuration -- the same two steps reference::convert performs.
  bool oracle_convert_per_case = false;
  // Replaces the MPFR oracle by another reference (e.g. a fast one for 2^32-input sweeps):
  // called once per input with every configuration; must fill `out` (one per config).
  // Counter-examples then show its results in the "oracle" fields.
  using Reference = std::function<void(std::uint64_t bits, std::span<const Rounding> configs,
                                       std::span<Rounded> out)>;
  Reference reference;
  std::string reference_name = "oracle";
  // Test hook for the harness itself: may alter emu's result before the comparison.
  std::function<void(std::uint64_t bits, const Rounding&, Rounded&)> emu_hook;

  // Resumable runs. `resume`: continue from this state (from an earlier run of the same
  // sweep, inputs and max_counterexamples). `on_progress`: called with the state of the
  // longest finished prefix, by one thread at a time, at most every `progress_seconds`, and
  // once more at the end (also when stopped). `stop`: when it becomes true (a signal handler),
  // workers finish their current chunk and run() returns with complete == false.
  const SweepProgress* resume = nullptr;
  std::function<void(const SweepProgress&)> on_progress;
  double progress_seconds = 1.0;
  const std::atomic<bool>* stop = nullptr;
};

// One input of a sweep under one configuration: emu's result and the reference's, or what
// threw on either side (then `error` says which).
struct CaseOutcome {
  Rounded emu, oracle;
  std::string error;
};
// Evaluates one input code under every configuration (out: one entry per configuration).
// A sweep makes one per worker thread, so it may keep per-thread state (MPFR variables).
using SweepEvaluator = std::function<void(std::uint64_t code, std::span<CaseOutcome> out)>;

// The engine under every sweep (conversions, operations): the inputs in chunks over threads,
// counts and the first counter-examples over a committed prefix (so the result does not depend
// on the thread count), resume, stop and progress as SweepOptions says. The caller fills
// from/to/subject of the result.
SweepResult run_sweep(const InputSet& inputs, const std::vector<Rounding>& configs,
                      const SweepOptions& options, const std::function<SweepEvaluator()>& make_evaluator);

class ConversionSweep {
 public:
  ConversionSweep(Format from, Format to, std::vector<Rounding> configs);
  SweepResult run(const InputSet& inputs, const SweepOptions& options = {}) const;
  const std::vector<Rounding>& configs() const { return configs_; }

 private:
  Format from_, to_;
  std::vector<Rounding> configs_;
};

unsigned default_threads();

// ---------------------------------------------------------------------------------------------
// Report (for `fpconform report`)

struct ReportOptions {
  bool quick = true;  // quick: a sampled subset; full: the default suite's sweeps (minutes)
  std::vector<std::string> sources;  // empty: the preset's list
  std::vector<std::string> targets;  // empty: the preset's list
  std::uint64_t seed = 1;
  // Inputs per pair for sources wider than 16 bits (boundary + random) and the cap for
  // narrower ones (all codes when they fit, else a seeded sample + every special code).
  std::uint64_t wide_inputs = 0;    // 0: preset (quick 20000, full 1000000)
  std::uint64_t narrow_inputs = 0;  // 0: preset (quick 4096, full all codes)
  unsigned threads = 0;
  std::size_t max_counterexamples = 5;
  bool scale_rules = true;  // add the block-scale rule section (run_scale_rule_report)
};

struct ReportRow {
  std::string source, target, mode;  // mode: mode_label()
  std::uint64_t inputs = 0;
  std::uint64_t cases = 0;
  std::uint64_t mismatches = 0;
  std::vector<std::string> counterexamples;  // formatted
};

// The block-scale rules (block_scale.hpp) for the report: the rule table, and for generated
// data what each rule costs (SQNR and largest relative error of the dequantized values against
// the f32 input; dequantization is exact in double) and where it disagrees with OCP's rule on
// the same element format (scale values of the same block geometry, dequantized values).
struct ScaleRuleInfo {
  std::string name, element, scale_format, scale, element_rounding, element_saturation,
      tensor_scale_format, source;
  int block = 0;
};
struct ScaleRuleResult {
  std::string distribution;  // "normal", "log-normal"
  std::string geometry;      // "mxfp8 1x32", "nvfp4 1x16", ...
  std::string rule, element;
  double sqnr_db = 0, max_rel_err = 0;
  std::uint64_t blocks = 0, values = 0;
  // Differences from rule ocp on the same element format: scale values (-1: a different block
  // geometry or scale format, not comparable) and dequantized values.
  std::int64_t scales_differing = -1, values_differing = -1;
};
struct ScaleRuleReport {
  std::vector<ScaleRuleInfo> rules;
  std::vector<ScaleRuleResult> results;
  int rows = 0, cols = 0;  // each distribution is a rows x cols f32 matrix, blocks along rows
  std::uint64_t seed = 0;
  double seconds = 0;
};
// Deterministic for a seed; rows * cols values per distribution (cols a multiple of 128).
ScaleRuleReport run_scale_rule_report(std::uint64_t seed, int rows = 256, int cols = 1024);

struct ConversionReport {
  bool quick = true;
  std::uint64_t seed = 0;
  std::string configs;  // what was varied per mode, in words
  std::vector<ReportRow> rows;
  std::uint64_t total_cases = 0;
  std::uint64_t total_mismatches = 0;
  double seconds = 0;
  unsigned threads = 0;
  std::optional<ScaleRuleReport> scale_rules;  // results.json key "scale_rules"
};

ConversionReport run_conversion_report(const ReportOptions& options);
// report.md and results.json into `directory` (created if missing), each written to a
// temporary file in the same directory and renamed into place.
void write_conversion_report(const ConversionReport& report, const std::string& directory);
std::string report_markdown(const ConversionReport& report);
std::string report_json(const ConversionReport& report);  // pretty-printed

}  // namespace fpconform::conformance
