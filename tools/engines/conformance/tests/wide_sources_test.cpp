// f32 and f64 sources: boundary-covering inputs (every target value, tie, +-source ulps,
// overflow threshold, subnormal boundary, every source binade, NaN payloads) plus seeded random
// codes, emu convert vs the MPFR oracle. And the double-rounding traps of f64 sources.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>

#include "fpconform/conformance/conversion.hpp"
#include "fpconform/reference/oracle.hpp"
#include "fpconform/reference/double_convert.hpp"
#include "test_formats.hpp"

namespace {

using namespace fpconform;
using namespace fpconform::conformance;

constexpr std::uint64_t kDefaultSeed = 0x5EED2024;

std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const std::uint64_t v = seed_from_env(kDefaultSeed);
    std::printf("[ seed  ] conformance seed = %llu (FPCONFORM_SEED overrides)\n",
                static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

Rounding mode_only(RoundingMode m) {
  Rounding r;
  r.mode = m;
  return r;
}

std::vector<Rounding> modes_only(std::initializer_list<RoundingMode> ms) {
  std::vector<Rounding> v;
  for (RoundingMode m : ms) v.push_back(mode_only(m));
  return v;
}

// Every mode and draw x 3 saturations x the pairwise (ftz, daz, tininess) runs.
std::vector<Rounding> all_configs() {
  return make_configs(all_modes(), default_stochastic_draws(), all_saturations(),
                      subnormal_pairwise());
}

void report(const SweepResult& r) {
  std::printf("[ sweep ] %s\n", r.summary().substr(0, 300).c_str());
}

using M = RoundingMode;

// ---- f32 -> every format of <= 16 bits --------------------------------------------------------

class F32ToNarrow : public ::testing::TestWithParam<std::string> {};

TEST_P(F32ToNarrow, BoundaryInputs) {
  const Format from = parse_format("f32");
  const Format to = parse_format(GetParam());
  BoundaryOptions bo;
  bo.seed = seed();
  bo.min_total = 1'000'000;
  const InputSet in = boundary_input_set(from, to, bo);
  ASSERT_GE(in.size(), 1'000'000u);
  // >= 10^6 inputs under rne, rtz, up, down.
  const SweepResult a =
      ConversionSweep(from, to, modes_only({M::rne, M::rtz, M::up, M::down})).run(in);
  EXPECT_EQ(a.mismatches, 0u) << a.summary();
  report(a);
  // rna and odd on 250000 of them (evenly spaced: every kind of boundary is represented).
  const InputSet quarter = InputSet::strided(in, 250'000);
  const SweepResult b = ConversionSweep(from, to, modes_only({M::rna, M::odd})).run(quarter);
  EXPECT_EQ(b.mismatches, 0u) << b.summary();
  report(b);
  // Every configuration (stochastic draws, saturations, ftz/daz/tininess) on 5000 of them.
  const SweepResult c = ConversionSweep(from, to, all_configs()).run(InputSet::strided(in, 5'000));
  EXPECT_EQ(c.mismatches, 0u) << c.summary();
  report(c);
}

INSTANTIATE_TEST_SUITE_P(Conformance, F32ToNarrow,
                         ::testing::ValuesIn(conftest::narrow_target_names()),
                         [](const auto& info) { return conftest::test_name(info.param); });

// f32 into the wider formats (tf32, f32 itself, f64), at a smaller count.
class F32ToWide : public ::testing::TestWithParam<std::string> {};

TEST_P(F32ToWide, BoundaryInputs) {
  const Format from = parse_format("f32");
  const Format to = parse_format(GetParam());
  BoundaryOptions bo;
  bo.seed = seed();
  bo.min_total = 200'000;
  const InputSet in = boundary_input_set(from, to, bo);
  const SweepResult a = ConversionSweep(
      from, to, modes_only({M::rne, M::rna, M::rtz, M::up, M::down, M::odd})).run(in);
  EXPECT_EQ(a.mismatches, 0u) << a.summary();
  report(a);
  const SweepResult c = ConversionSweep(from, to, all_configs()).run(InputSet::strided(in, 10'000));
  EXPECT_EQ(c.mismatches, 0u) << c.summary();
  report(c);
}

INSTANTIATE_TEST_SUITE_P(Conformance, F32ToWide, ::testing::Values("tf32", "f32", "f64"),
                         [](const auto& info) { return conftest::test_name(info.param); });

// ---- f64: double rounding ---------------------------------------------------------------------

std::uint64_t f64_bits(double d) { return std::bit_cast<std::uint64_t>(d); }

struct Trap {
  double value;
  const char* target;
  std::uint64_t expected;      // the single correctly rounded result (rne)
  std::uint64_t via_f32;       // what rounding through f32 first would give (wrong)
};

TEST(DoubleRounding, KnownTraps) {
  const Format f64 = parse_format("f64"), f32 = parse_format("f32");
  const Trap traps[] = {
      // -431.99999999999994 is below the e4m3 tie 432 (between 416 and 448); as f32 it
      // becomes -432 exactly, a tie, which goes to the even 448.
      {-431.99999999999994, "e4m3", 0xFD, 0xFE},
      // 1 + 2^-8 + 2^-40 is above the bf16 tie 1 + 2^-8; f32 drops the 2^-40.
      {1.0 + 0x1p-8 + 0x1p-40, "bf16", 0x3F81, 0x3F80},
      // The same below the tie.
      {1.0 + 0x1p-8 - 0x1p-40, "bf16", 0x3F80, 0x3F80},
      {1.0 + 0x1p-11 + 0x1p-30, "f16", 0x3C01, 0x3C00},
      {-(1.0 + 0x1p-4 + 0x1p-35), "e4m3", 0xB9, 0xB8},
  };
  for (const Trap& t : traps) {
    const Format to = parse_format(t.target);
    Rounding r;  // rne
    const Rounded e = convert(f64_bits(t.value), f64, to, r);
    const reference::OracleResult o = reference::convert(f64_bits(t.value), f64, to, r);
    EXPECT_EQ(e.bits, t.expected) << t.value << " -> " << t.target << " (emu)";
    EXPECT_EQ(o.bits, t.expected) << t.value << " -> " << t.target << " (oracle)";
    EXPECT_EQ(e.flags.bits, Flags::inexact);
    EXPECT_EQ(o.flags, Flags::inexact);
    // The trap is real: through f32 the answer differs (or, for the control, agrees).
    const Rounded mid = convert(f64_bits(t.value), f64, f32, r);
    EXPECT_EQ(convert(mid.bits, f32, to, r).bits, t.via_f32) << t.value;
  }
}

class F64ToAny : public ::testing::TestWithParam<std::string> {};

TEST_P(F64ToAny, DoubleRoundingTrapsAndBoundaries) {
  const Format from = parse_format("f64");
  const Format to = parse_format(GetParam());
  // Ties of the target moved by less than an f32 ulp (and less than f16/bf16 ulps).
  const std::vector<std::uint64_t> traps = double_rounding_traps(to, 1u << 14, seed());
  const SweepResult a =
      ConversionSweep(from, to,
                      modes_only({M::rne, M::rna, M::rtz, M::up, M::down, M::odd}))
          .run(InputSet::list(traps, std::to_string(traps.size()) + " double-rounding traps"));
  EXPECT_EQ(a.mismatches, 0u) << a.summary();
  report(a);
  BoundaryOptions bo;
  bo.seed = seed();
  bo.min_total = 200'000;
  const InputSet in = boundary_input_set(from, to, bo);
  const SweepResult b =
      ConversionSweep(from, to, modes_only({M::rne, M::rna, M::rtz, M::up, M::down, M::odd}))
          .run(InputSet::strided(in, 200'000));
  EXPECT_EQ(b.mismatches, 0u) << b.summary();
  report(b);
  const SweepResult c = ConversionSweep(from, to, all_configs()).run(InputSet::strided(in, 5'000));
  EXPECT_EQ(c.mismatches, 0u) << c.summary();
  report(c);
}

INSTANTIATE_TEST_SUITE_P(Conformance, F64ToAny, ::testing::ValuesIn(conftest::all_target_names()),
                         [](const auto& info) { return conftest::test_name(info.param); });

// ---- the fast spec reference (used by the exhaustive label) vs the MPFR oracle ----------------

class SpecReferenceVsOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecReferenceVsOracle, F32BoundaryInputs) {
  const Format from = parse_format("f32");
  const Format to = parse_format(GetParam());
  const dref::Target tgt = dref::make_target(to);
  BoundaryOptions bo;
  bo.seed = seed();
  bo.min_total = 0;
  bo.min_random = 0;
  const InputSet core = boundary_input_set(from, to, bo);
  // The exhaustive label's configurations on 40000 boundary inputs, every configuration on 2000.
  const std::vector<Rounding> exhaustive_configs = modes_only({M::rne, M::rtz, M::up, M::down});
  std::uint64_t bad = 0, n = 0;
  auto check = [&](const InputSet& in, const std::vector<Rounding>& configs) {
    for (std::uint64_t i = 0; i < in.size(); ++i) {
      const std::uint64_t bits = in.code(i);
      for (const Rounding& r : configs) {
        const dref::Result s = dref::convert_f32(static_cast<std::uint32_t>(bits), tgt, r);
        const reference::OracleResult o = reference::convert(bits, from, to, r);
        ++n;
        if (s.bits != o.bits || s.flags != o.flags) {
          if (++bad <= 10)
            ADD_FAILURE() << "f32 0x" << std::hex << bits << " -> " << to.name << " ["
                          << describe(r) << "]: spec reference 0x" << s.bits << " flags 0x"
                          << int(s.flags) << ", oracle 0x" << o.bits << " flags 0x"
                          << int(o.flags);
        }
      }
    }
  };
  check(InputSet::strided(core, 40'000), exhaustive_configs);
  check(InputSet::strided(core, 2'000), all_configs());
  EXPECT_EQ(bad, 0u) << "of " << n;
  std::printf("[ specref ] f32 -> %s: %llu cases, %llu disagreements with the oracle\n",
              to.name.c_str(), static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(bad));
}

INSTANTIATE_TEST_SUITE_P(Conformance, SpecReferenceVsOracle,
                         ::testing::ValuesIn(conftest::narrow_target_names()),
                         [](const auto& info) { return conftest::test_name(info.param); });

}  // namespace
