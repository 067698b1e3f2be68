// Every source format of <= 16 bits, exhaustively over its codes, into every target format,
// under every rounding mode (stochastic ones with several (n, r) draws), every saturation mode
// and the FTZ / DAZ / tininess variations: emu convert vs the MPFR oracle, bits and flags.
//
//   sources of <= 8 bits: 10 modes (22 configs with the draws) x 3 sat x all 8 (ftz, daz,
//     tininess) combinations = 528 configurations, every code, every target.
//   f16 and bf16: the same modes and saturations x the 4 (ftz, daz, tininess) runs of a 2-level
//     orthogonal array (every pair of the three factors appears) = 264 configurations, every
//     one of the 65536 codes, one gtest case per (source, target) so CTest can spread them.
#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>

#include "fpconform/conformance/conversion.hpp"
#include "test_formats.hpp"

namespace {

using namespace fpconform;
using namespace fpconform::conformance;

std::vector<Rounding> byte_configs() {
  return make_configs(all_modes(), default_stochastic_draws(), all_saturations(), subnormal_full());
}
std::vector<Rounding> word_configs() {
  return make_configs(all_modes(), default_stochastic_draws(), all_saturations(),
                      subnormal_pairwise());
}

class ByteSource : public ::testing::TestWithParam<std::string> {};

TEST_P(ByteSource, EveryCodeEveryTargetEveryConfig) {
  const Format from = parse_format(GetParam());
  const std::vector<Rounding> configs = byte_configs();
  std::uint64_t cases = 0, mism = 0;
  double secs = 0;
  const auto targets = conftest::all_target_names();
  for (const std::string& tn : targets) {
    const Format to = parse_format(tn);
    const SweepResult r = ConversionSweep(from, to, configs).run(InputSet::all_codes(from));
    cases += r.cases;
    mism += r.mismatches;
    secs += r.seconds;
    EXPECT_EQ(r.mismatches, 0u) << r.summary();
  }
  std::printf("[ sweep ] %s -> %zu targets x %zu configs x %llu codes: %llu cases, %llu "
              "mismatches, %.2f s\n",
              from.name.c_str(), targets.size(), configs.size(),
              static_cast<unsigned long long>(std::uint64_t{1} << from.width()),
              static_cast<unsigned long long>(cases), static_cast<unsigned long long>(mism), secs);
  RecordProperty("cases", std::to_string(cases));
}

INSTANTIATE_TEST_SUITE_P(Conformance, ByteSource,
                         ::testing::ValuesIn(conftest::byte_source_names()),
                         [](const auto& info) { return conftest::test_name(info.param); });

class WordSource : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(WordSource, EveryCodeEveryConfig) {
  const Format from = parse_format(std::get<0>(GetParam()));
  const Format to = parse_format(std::get<1>(GetParam()));
  const SweepResult r = ConversionSweep(from, to, word_configs()).run(InputSet::all_codes(from));
  EXPECT_EQ(r.mismatches, 0u) << r.summary();
  std::printf("[ sweep ] %s\n", r.summary().substr(0, 400).c_str());
  RecordProperty("cases", std::to_string(r.cases));
}

INSTANTIATE_TEST_SUITE_P(Conformance, WordSource,
                         ::testing::Combine(::testing::Values("f16", "bf16"),
                                            ::testing::ValuesIn(conftest::all_target_names())),
                         [](const auto& info) {
                           return conftest::test_name(std::get<0>(info.param)) + "_to_" +
                                  conftest::test_name(std::get<1>(info.param));
                         });

}  // namespace
