// The closed loop's acceptance run: every (preset, input format) row of matrix_unit_entries(), 100
// random members of the family and 200 random reduction trees, each characterized as a black box
// (emu: targets) and validated on >= 10^5 fresh cases that the target itself answers (the oracle).
// FPCONFORM_CLOSED_LOOP_CASES overrides the number of validation cases (for quick runs).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/synthesize.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform::characterize {
namespace {

std::uint64_t validation_cases() {
  const char* env = std::getenv("FPCONFORM_CLOSED_LOOP_CASES");
  return env ? std::strtoull(env, nullptr, 10) : 100000;
}

// The output format a preset row is characterized with.
const char* output_of(const MatrixUnitEntry& e) {
  switch (e.output) {
    case OutputRule::f64: return "f64";
    default: return e.params.c_last ? "f16" : "f32";  // Hopper's fp8 mma.sync: as its f16 dumps
  }
}

struct Tally {
  int runs = 0, reproduced = 0;
  std::uint64_t validated = 0, agreed = 0;
  double seconds = 0;
};

bool check(Target& t, const std::string& label, Tally& tally) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  CharacterizeOptions o;
  o.validation_cases = validation_cases();
  const Characterization c = characterize(t, o);
  ++tally.runs;
  tally.validated += c.validated;
  tally.agreed += c.agreed;
  tally.seconds += c.seconds;
  const bool ok = c.expressible && c.agreed == c.validated && c.validated >= o.validation_cases;
  if (ok) ++tally.reproduced;
  std::printf("%-44s %s %8llu/%-8llu %6.1f s  %s\n", label.c_str(), ok ? "ok  " : "FAIL",
              (unsigned long long)c.agreed, (unsigned long long)c.validated, c.seconds,
              c.model_spec.c_str());
  if (!ok) std::printf("    %s\n", c.verdict.c_str());
  return ok;
}

void report(const char* what, const Tally& t) {
  std::printf("%s: %d of %d reproduced; %llu of %llu fresh cases agree; %.1f s in all\n", what,
              t.reproduced, t.runs, (unsigned long long)t.agreed, (unsigned long long)t.validated,
              t.seconds);
}

// Block-scaled presets run with unit scales: the Target interface has no scale operands, and
// EmuTarget computes fdpa(), whose scales are all 1 (sub-sums still group the products).
TEST(ClosedLoopExhaustive, EveryPresetRow) {
  Tally tally;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input), out = parse_format(output_of(e));
    const std::string spec = "emu:" + std::string(e.preset);
    auto t = make_target(spec, &in, &out);
    EXPECT_TRUE(check(*t, spec + " " + in.name + "->" + out.name, tally)) << spec << " " << in.name;
  }
  report("presets", tally);
  EXPECT_EQ(tally.reproduced, tally.runs);
}

TEST(ClosedLoopExhaustive, RandomParameterSets) {
  const char* inputs[] = {"f16", "bf16", "e4m3", "e5m2", "tf32", "f16", "bf16", "e4m3"};
  Tally tally;
  for (std::uint64_t i = 0; i < 100; ++i) {
    const Format in = parse_format(inputs[i % 8]);
    const Format out = parse_format(i % 5 == 4 && in.name != "bf16" && in.name != "tf32" ? "f16" : "f32");
    const FdpaParams p = random_params(1000 + i, in, out);
    EmuTarget t("emu:" + model_text(p), p, in, out);
    EXPECT_TRUE(check(t, "random " + std::to_string(i) + " " + in.name + "->" + out.name, tally))
        << model_text(p);
  }
  report("random parameter sets", tally);
  EXPECT_EQ(tally.reproduced, tally.runs);
}

// Reduction trees no preset has (random_tree_params): random shapes of 2 to 32 products, exact
// inner nodes, C anywhere, every rounding, flushing and NaN rule.
// FPCONFORM_RANDOM_TREES overrides the count and FPCONFORM_RANDOM_TREE_FIRST the first tree's
// number (for quick runs, or to look at one tree).
TEST(ClosedLoopExhaustive, RandomTrees) {
  const char* env = std::getenv("FPCONFORM_RANDOM_TREES");
  const char* first_env = std::getenv("FPCONFORM_RANDOM_TREE_FIRST");
  const std::uint64_t first = first_env ? std::strtoull(first_env, nullptr, 10) : 0;
  const std::uint64_t count = first + (env ? std::strtoull(env, nullptr, 10) : 200);
  const char* inputs[] = {"bf16", "f16", "e4m3", "e5m2"};
  Tally tally;
  for (std::uint64_t i = first; i < count; ++i) {
    const Format in = parse_format(inputs[i % 4]);
    const Format out = parse_format(i % 3 == 2 && in.name != "bf16" ? "f16" : "f32");
    const FdpaParams p = random_tree_params(5000 + i);
    EmuTarget t("emu:" + model_text(p), p, in, out);
    EXPECT_TRUE(check(t, "tree " + std::to_string(i) + " " + in.name + "->" + out.name, tally))
        << model_text(p);
  }
  report("random trees", tally);
  EXPECT_EQ(tally.reproduced, tally.runs);
}

}  // namespace
}  // namespace fpconform::characterize
