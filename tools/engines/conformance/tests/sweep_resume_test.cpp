// Resumable sweeps: a run stopped midway and continued from its progress (with any thread
// count) gives the result of an uninterrupted run; a progress from another sweep is refused.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"

namespace {

using namespace fpconform;
using namespace fpconform::conformance;

// Faults injected into emu's results, so that there are counter-examples to carry over.
void inject(std::uint64_t bits, const Rounding& r, Rounded& e) {
  if (bits % 13 == 4 && r.mode == RoundingMode::rna) e.bits ^= 2;
  if (bits % 5 == 1 && r.sat == Saturation::propagate && !r.ftz) e.flags.bits ^= Flags::inexact;
}

struct Fixture {
  Format from = parse_format("bf16"), to = parse_format("e5m2");
  std::vector<Rounding> configs = make_configs(deterministic_modes(), default_stochastic_draws(),
                                               all_saturations(), subnormal_ftz());
  InputSet in = InputSet::range(0x3c00, 0x4400);
  SweepOptions options(unsigned threads) const {
    SweepOptions o;
    o.emu_hook = inject;
    o.max_counterexamples = 40;
    o.threads = threads;
    o.chunk = 16;
    return o;
  }
};

void expect_same(const SweepResult& a, const SweepResult& b) {
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(b.inputs_done, a.inputs);
  EXPECT_EQ(b.cases, a.cases);
  EXPECT_EQ(b.mismatches, a.mismatches);
  ASSERT_EQ(b.per_config.size(), a.per_config.size());
  for (std::size_t k = 0; k < a.per_config.size(); ++k) {
    EXPECT_EQ(b.per_config[k].cases, a.per_config[k].cases);
    EXPECT_EQ(b.per_config[k].mismatches, a.per_config[k].mismatches);
  }
  ASSERT_EQ(b.counterexamples.size(), a.counterexamples.size());
  for (std::size_t i = 0; i < a.counterexamples.size(); ++i) {
    // The formatted line covers index, input, rounding, both results and flags.
    EXPECT_EQ(b.format_counterexample(b.counterexamples[i]),
              a.format_counterexample(a.counterexamples[i]));
    EXPECT_EQ(b.counterexamples[i].index, a.counterexamples[i].index);
    EXPECT_EQ(b.counterexamples[i].config, a.counterexamples[i].config);
  }
}

TEST(SweepResume, StoppedAndResumedEqualsUninterrupted) {
  const Fixture f;
  const ConversionSweep sweep(f.from, f.to, f.configs);
  const SweepResult full = sweep.run(f.in, f.options(1));
  ASSERT_TRUE(full.complete);
  ASSERT_EQ(full.counterexamples.size(), 40u);  // K reached: the merge order matters
  ASSERT_GT(full.mismatches, 1000u);

  for (unsigned threads : {1u, 2u, 3u, 7u}) {
    std::atomic<bool> stop{false};
    std::vector<SweepProgress> seen;
    SweepOptions o = f.options(threads);
    o.stop = &stop;
    o.progress_seconds = 0;
    o.on_progress = [&](const SweepProgress& p) { seen.push_back(p); };
    // Stop when a worker reaches a third of the inputs (a signal, in the CLI): chunks already
    // taken finish, no new one starts, so the run ends well before the last input.
    const std::uint64_t third = f.in.code(f.in.size() / 3);
    o.emu_hook = [&](std::uint64_t bits, const Rounding& r, Rounded& e) {
      inject(bits, r, e);
      if (bits >= third) stop = true;
    };
    const SweepResult part = sweep.run(f.in, o);
    ASSERT_FALSE(part.complete) << threads << " threads";
    EXPECT_GE(part.inputs_done, f.in.size() / 3);
    EXPECT_LT(part.inputs_done, f.in.size());
    EXPECT_EQ(part.progress.done, part.inputs_done);
    // Every progress seen is a prefix, growing; resuming from any of them gives the full result.
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].done, seen[i - 1].done);
    for (const SweepProgress* p :
         std::vector<const SweepProgress*>{&seen.front(), &seen[seen.size() / 2], &part.progress}) {
      SweepOptions r = f.options(8 - threads);
      r.resume = p;
      expect_same(full, sweep.run(f.in, r));
    }
  }
}

TEST(SweepResume, ResumeFromCompleteIsComplete) {
  const Fixture f;
  const ConversionSweep sweep(f.from, f.to, f.configs);
  const SweepResult full = sweep.run(f.in, f.options(2));
  SweepOptions r = f.options(2);
  r.resume = &full.progress;
  expect_same(full, sweep.run(f.in, r));
}

TEST(SweepResume, RefusesProgressOfAnotherSweep) {
  const Fixture f;
  const ConversionSweep sweep(f.from, f.to, f.configs);
  SweepProgress p;
  p.mismatches.assign(f.configs.size() + 1, 0);  // another configuration list
  SweepOptions o = f.options(1);
  o.resume = &p;
  EXPECT_THROW(sweep.run(f.in, o), Error);
  p.mismatches.assign(f.configs.size(), 0);
  p.done = f.in.size() + 1;  // more inputs than this sweep has
  EXPECT_THROW(sweep.run(f.in, o), Error);
  p.done = 10;
  CounterExample c;
  c.index = 10;  // outside the inputs done
  p.counterexamples.push_back(c);
  EXPECT_THROW(sweep.run(f.in, o), Error);
}

}  // namespace
