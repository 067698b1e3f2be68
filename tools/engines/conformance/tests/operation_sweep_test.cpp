// OperationSweep: emu's apply_op against the MPFR oracle over operand tuples, on the engine of
// the conversion sweeps. All pairs of a narrow format agree; a planted wrong result is found,
// counted once per configuration and shown with its operands; the result does not depend on
// the thread count or on a stop and resume midway; impossible sweeps are refused.
#include <gtest/gtest.h>

#include <atomic>

#include "fpconform/conformance/arith_sweep.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::conformance {
namespace {

std::vector<Rounding> configs() {
  return make_configs(deterministic_modes(), default_stochastic_draws(), all_saturations(),
                      subnormal_plain());
}

TEST(OperationSweep, EveryPairOfE4m3AgreesWithTheOracle) {
  for (Op op : {Op::add, Op::mul, Op::div}) {
    const OperationSweep s(op, *find_builtin("e4m3"), configs());
    const SweepResult r = s.run(s.all_operands());
    EXPECT_EQ(r.inputs, 65536u);
    EXPECT_EQ(r.cases, 65536u * configs().size());
    EXPECT_EQ(r.mismatches, 0u) << r.summary();
  }
  const OperationSweep fma(Op::mul_add, *find_builtin("e2m1"), configs());
  const SweepResult r = fma.run(fma.all_operands());
  EXPECT_EQ(r.inputs, 4096u);  // every triple
  EXPECT_EQ(r.mismatches, 0u) << r.summary();
}

TEST(OperationSweep, FindsAndShowsAPlantedMismatch) {
  const OperationSweep s(Op::add, *find_builtin("e4m3"), configs());
  SweepOptions o;
  o.emu_hook = [](std::uint64_t packed, const Rounding&, Rounded& e) {
    if (packed == 0x3801) e.bits ^= 1;  // 1.0 + 2^-9
  };
  const SweepResult r = s.run(s.all_operands(), o);
  EXPECT_EQ(r.mismatches, configs().size());  // once per configuration
  ASSERT_FALSE(r.counterexamples.empty());
  EXPECT_EQ(r.counterexamples.front().input, 0x3801u);
  const std::string text = r.format_counterexample(r.counterexamples.front());
  EXPECT_EQ(text.rfind("add e4m3 0x38 0x01 [rne", 0), 0u) << text;
  EXPECT_EQ(r.subject, "add e4m3");
  EXPECT_EQ(s.input_text(0x3801), "add e4m3 0x38 0x01");
}

TEST(OperationSweep, SameResultWhateverTheThreadsAndAfterAResume) {
  const OperationSweep s(Op::mul, *find_builtin("e5m2"), configs());
  SweepOptions o;
  o.max_counterexamples = 7;
  o.chunk = 512;
  o.emu_hook = [](std::uint64_t packed, const Rounding& r, Rounded& e) {
    if (packed % 97 == 0 && r.mode != RoundingMode::rtz) e.flags.bits ^= 1;
  };
  o.threads = 1;
  const SweepResult one = s.run(s.all_operands(), o);
  ASSERT_GT(one.mismatches, 0u);
  o.threads = 3;
  const SweepResult three = s.run(s.all_operands(), o);
  EXPECT_EQ(three.mismatches, one.mismatches);
  ASSERT_EQ(three.counterexamples.size(), one.counterexamples.size());
  for (std::size_t i = 0; i < one.counterexamples.size(); ++i)
    EXPECT_EQ(three.counterexamples[i].index, one.counterexamples[i].index);

  // Stopped after the first progress report, then resumed.
  std::atomic<bool> stop{false};
  SweepOptions first = o;
  first.stop = &stop;
  first.progress_seconds = 0;
  first.on_progress = [&](const SweepProgress& p) {
    if (p.done > 0) stop = true;
  };
  const SweepResult part = s.run(s.all_operands(), first);
  ASSERT_FALSE(part.complete);
  ASSERT_GT(part.inputs_done, 0u);
  SweepOptions rest = o;
  rest.threads = 2;
  rest.resume = &part.progress;
  const SweepResult whole = s.run(s.all_operands(), rest);
  EXPECT_TRUE(whole.complete);
  EXPECT_EQ(whole.mismatches, one.mismatches);
  ASSERT_EQ(whole.counterexamples.size(), one.counterexamples.size());
  for (std::size_t i = 0; i < one.counterexamples.size(); ++i) {
    EXPECT_EQ(whole.counterexamples[i].index, one.counterexamples[i].index);
    EXPECT_EQ(whole.counterexamples[i].config, one.counterexamples[i].config);
  }
}

TEST(OperationSweep, RefusesWhatItCannotSweep) {
  EXPECT_THROW(OperationSweep(Op::add, *find_builtin("f32"), configs()), Error);  // 64 bits of operands
  EXPECT_EQ(OperationSweep(Op::mul_add, *find_builtin("f16"), configs()).all_operands().size(),
            std::uint64_t{1} << 48);  // 3 x 16 bits: the most that fits
  EXPECT_THROW(parse_sweep_op("fma", "--op"), Error);
  EXPECT_EQ(parse_sweep_op("mulAdd", "--op"), Op::mul_add);
  const OperationSweep s(Op::add, *find_builtin("e4m3"), configs());
  SweepOptions o;
  o.reference = [](std::uint64_t, std::span<const Rounding>, std::span<Rounded>) {};
  EXPECT_THROW(s.run(s.all_operands(), o), Error);
}

}  // namespace
}  // namespace fpconform::conformance
