// Closed loop (default suite): characterizing emulated units as black boxes yields models that
// agree with them on fresh random and adversarial cases; the target is the oracle.
// FPCONFORM_CLOSED_LOOP_ONLY="emu:SPEC IN OUT" runs one target, printing the progress.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/synthesize.hpp"
#include "fpconform/fdpa_spec.hpp"

namespace fpconform::characterize {
namespace {

Characterization run(Target& t, std::uint64_t n, bool verbose) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  CharacterizeOptions o;
  o.validation_cases = n;
  if (verbose)
    o.progress = [](std::string_view stage, std::string_view detail) {
      std::printf("  [%.*s] %.*s\n", int(stage.size()), stage.data(), int(detail.size()), detail.data());
    };
  Characterization c = characterize(t, o);
  std::printf("%-40s %s: %llu/%llu agree, %.1f s, %llu queries: %s\n", t.name().c_str(),
              c.formats_text().c_str(), (unsigned long long)c.agreed,
              (unsigned long long)c.validated, c.seconds, (unsigned long long)c.queries,
              c.model_spec.c_str());
  if (!c.expressible) std::printf("  %s\n", c.verdict.c_str());
  return c;
}

void expect_reproduced(const Characterization& c, std::uint64_t n) {
  EXPECT_TRUE(c.expressible) << c.target << ": " << c.verdict;
  EXPECT_EQ(c.agreed, c.validated) << c.target;
  EXPECT_GE(c.validated, n);
  EXPECT_TRUE(c.counterexamples.empty());
  EXPECT_TRUE(c.deterministic);
}

TEST(ClosedLoop, OneTargetFromTheEnvironment) {
  const char* only = std::getenv("FPCONFORM_CLOSED_LOOP_ONLY");
  if (!only) GTEST_SKIP() << "FPCONFORM_CLOSED_LOOP_ONLY is not set";
  std::istringstream words(only);
  std::string spec, in = "f16", out = "f32";
  words >> spec >> in >> out;
  const Format fin = parse_format(in), fout = parse_format(out);
  auto t = make_target(spec, &fin, &fout);
  const char* n = std::getenv("FPCONFORM_CLOSED_LOOP_CASES");
  const std::uint64_t cases = n ? std::strtoull(n, nullptr, 10) : 10000;
  expect_reproduced(run(*t, cases, true), cases);
}

// A representative set of presets: every structure, block sizes 4..32, F 13..25, the e8m13
// accumulator, f16 output, late C with interleaved groups. (Every row: the exhaustive test.)
TEST(ClosedLoop, Presets) {
  const char* rows[][3] = {
      {"emu:volta", "f16", "f32"},      {"emu:ampere", "bf16", "f32"},
      {"emu:hopper", "e4m3", "f32"},    {"emu:hopper", "f16", "f16"},
      {"emu:cdna1", "f16", "f32"},      {"emu:cdna3", "e4m3fnuz", "f32"},
      {"emu:fp32-sequential", "f16", "f32"}, {"emu:exact", "bf16", "f32"},
  };
  for (const auto& row : rows) {
    const Format in = parse_format(row[1]), out = parse_format(row[2]);
    auto t = make_target(row[0], &in, &out);
    expect_reproduced(run(*t, 10000, false), 10000);
  }
}

// a and b in different formats (wgmma's e4m3 x e5m2, kind::f8f6f4's fp6 x fp4): the probes
// build each operand in its own format, and the model found agrees with the unit.
TEST(ClosedLoop, MixedOperandFormats) {
  const char* rows[][4] = {
      {"emu:hopper", "e4m3", "e5m2", "f32"},
      {"emu:blackwell", "e2m3", "e2m1", "f32"},
      {"emu:fp32-sequential", "e5m2", "e4m3", "f32"},
  };
  for (const auto& row : rows) {
    const Format a = parse_format(row[1]), b = parse_format(row[2]), out = parse_format(row[3]);
    auto t = make_target(row[0], &a, &out, "--target", &b);
    ASSERT_EQ(t->in_b().name, b.name);
    const Characterization c = run(*t, 10000, false);
    EXPECT_EQ(c.b_format().name, b.name);
    EXPECT_EQ(c.formats_text(), a.name + " x " + b.name + " -> " + out.name);
    expect_reproduced(c, 10000);
  }
}

TEST(ClosedLoop, RandomParameterSets) {
  const char* inputs[] = {"f16", "bf16", "e4m3", "e5m2", "tf32"};
  for (std::uint64_t i = 0; i < 12; ++i) {
    const Format in = parse_format(inputs[i % 5]);
    const Format out = parse_format(i % 4 == 3 && in.name != "bf16" && in.name != "tf32" ? "f16" : "f32");
    const FdpaParams p = random_params(7000 + i, in, out);
    EmuTarget t("emu:" + model_text(p), p, in, out);
    expect_reproduced(run(t, 10000, false), 10000);
  }
}

}  // namespace
}  // namespace fpconform::characterize
