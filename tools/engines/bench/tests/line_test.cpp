// The bench line grammar and its checker: expected lines written from the grammar
// (suites/bench/README.md), not from a run; the checker must refuse each kind of malformed output.
#include <gtest/gtest.h>

#include "fpconform/bench/line.hpp"

namespace fpconform::bench {
namespace {

Comparison speed(double ours, double base, double target) {
  Comparison c;
  c.name = "f32_to_f16_rne";
  c.ours = ours;
  c.baseline_name = "vcvtps2ph";
  c.baseline = base;
  c.unit = "values/s";
  c.target = target;
  return c;
}

TEST(BenchLine, SpeedLineFollowsTheGrammar) {
  EXPECT_EQ(format_line(speed(3e9, 4e9, 0.5)),
            "f32_to_f16_rne ours=3e+09 values/s baseline=vcvtps2ph 4e+09 values/s ratio=0.75 "
            "target=0.5 ok");
  EXPECT_EQ(format_line(speed(1e9, 4e9, 0.5)),
            "f32_to_f16_rne ours=1e+09 values/s baseline=vcvtps2ph 4e+09 values/s ratio=0.25 "
            "target=0.5 SHORT");
}

TEST(BenchLine, TimeUnitsInvertTheRatio) {
  Comparison c;
  c.name = "sweep";
  c.ours = 30;
  c.baseline_name = "limit";
  c.baseline = 60;
  c.unit = "s";
  c.time_unit = true;
  c.target = 1;
  EXPECT_DOUBLE_EQ(c.ratio(), 2.0);  // half the time: twice the speed
  EXPECT_TRUE(c.ok());
  c.ours = 120;
  EXPECT_DOUBLE_EQ(c.ratio(), 0.5);
  EXPECT_FALSE(c.ok());
}

TEST(BenchLine, VerdictFollowsThePrintedFigures) {
  // 0.499996 prints as 0.5: a reader comparing the printed ratio and target says ok.
  const Comparison c = speed(0.499996, 1, 0.5);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(check_output(format_line(c) + "\n1 ok, 0 short\n"), "");
}

TEST(BenchLine, SummaryCounts) {
  const std::vector<Comparison> all = {speed(3, 4, 0.5), speed(1, 4, 0.5), speed(4, 4, 0.5)};
  EXPECT_EQ(format_summary(all), "2 ok, 1 short");
}

TEST(BenchLine, CheckerAcceptsWellFormedOutput) {
  const std::vector<Comparison> all = {speed(3, 4, 0.5), speed(1, 4, 0.5)};
  std::string text;
  for (const auto& c : all) text += format_line(c) + "\n";
  text += format_summary(all) + "\n";
  EXPECT_EQ(check_output(text), "");
}

TEST(BenchLine, CheckerRefusesMalformedOutput) {
  const std::string good = format_line(speed(3, 4, 0.5));
  EXPECT_NE(check_output(""), "");
  EXPECT_NE(check_output(good + "\n"), "");                                   // no summary
  EXPECT_NE(check_output(good + "\n0 ok, 1 short\n"), "");                    // wrong counts
  EXPECT_NE(check_output("x ours=1 a baseline=y 1 b ratio=1 target=1 ok\n1 ok, 0 short\n"), "");
  EXPECT_NE(check_output("x ours=1 a baseline=y 1 a ratio=1 target=2 ok\n1 ok, 0 short\n"), "");
  EXPECT_NE(check_output("x ours=fast a baseline=y 1 a ratio=1 target=1 ok\n1 ok, 0 short\n"), "");
  EXPECT_NE(check_output("note: something\n" + good + "\n1 ok, 0 short\n"), "");
}

}  // namespace
}  // namespace fpconform::bench
