// The harness itself: determinism across thread counts, the oracle decode cache, the boundary
// generator, the report writer.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/reference/oracle.hpp"
#include "test_formats.hpp"

namespace {

using namespace fpconform;
using namespace fpconform::conformance;

// Faults injected into emu's results, so that the harness has mismatches to report.
void inject(std::uint64_t bits, const Rounding& r, Rounded& e) {
  if (bits % 7 == 3 && r.mode == RoundingMode::rtz) e.bits ^= 1;
  if (bits % 11 == 5 && r.sat == Saturation::finite && r.ftz) e.flags.bits ^= Flags::inexact;
}

TEST(Sweep, DeterministicAcrossThreadCounts) {
  const Format from = parse_format("f16"), to = parse_format("e4m3");
  const auto configs = make_configs(all_modes(), default_stochastic_draws(), all_saturations(),
                                    subnormal_ftz());
  const InputSet in = InputSet::range(0x3000, 0x3800);
  SweepOptions base;
  base.emu_hook = inject;
  base.max_counterexamples = 25;
  std::vector<SweepResult> results;
  for (unsigned threads : {1u, 2u, 3u, 5u}) {
    for (std::uint64_t chunk : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{37}}) {
      SweepOptions o = base;
      o.threads = threads;
      o.chunk = chunk;
      results.push_back(ConversionSweep(from, to, configs).run(in, o));
    }
  }
  const SweepResult& a = results.front();
  EXPECT_GT(a.mismatches, 100u);
  ASSERT_EQ(a.counterexamples.size(), 25u);
  // Sorted by (input index, config index).
  for (std::size_t i = 1; i < a.counterexamples.size(); ++i) {
    const auto& p = a.counterexamples[i - 1];
    const auto& q = a.counterexamples[i];
    EXPECT_TRUE(p.index < q.index || (p.index == q.index && p.config < q.config));
  }
  for (const SweepResult& b : results) {
    EXPECT_EQ(b.mismatches, a.mismatches);
    EXPECT_EQ(b.cases, a.cases);
    ASSERT_EQ(b.counterexamples.size(), a.counterexamples.size());
    for (std::size_t i = 0; i < a.counterexamples.size(); ++i) {
      EXPECT_EQ(b.counterexamples[i].index, a.counterexamples[i].index);
      EXPECT_EQ(b.counterexamples[i].config, a.counterexamples[i].config);
      EXPECT_EQ(b.counterexamples[i].emu_bits, a.counterexamples[i].emu_bits);
      EXPECT_EQ(b.counterexamples[i].oracle_bits, a.counterexamples[i].oracle_bits);
    }
    for (std::size_t k = 0; k < a.per_config.size(); ++k)
      EXPECT_EQ(b.per_config[k].mismatches, a.per_config[k].mismatches);
  }
  // Every injected fault is found, and nothing else.
  std::uint64_t expected = 0;
  for (std::uint64_t i = 0; i < in.size(); ++i) {
    const std::uint64_t bits = in.code(i);
    for (const Rounding& r : configs) {
      Rounded e{};
      Rounded f = e;
      inject(bits, r, f);
      expected += (f.bits != e.bits || f.flags != e.flags) ? 1 : 0;
    }
  }
  EXPECT_EQ(a.mismatches, expected);
  // The first counter-example is the first injected fault, fully described.
  const std::string text = a.format_counterexample(a.counterexamples[0]);
  EXPECT_NE(text.find("f16 0x3000 (0.125)"), std::string::npos) << text;
  EXPECT_NE(text.find("rtz"), std::string::npos) << text;
  EXPECT_NE(a.summary().find("mismatches under"), std::string::npos);
}

TEST(Sweep, ReportsExceptionsAsMismatches) {
  // Codes wider than the source: both sides throw; the sweep records them, it does not abort.
  const Format from = parse_format("e4m3"), to = parse_format("e5m2");
  std::vector<Rounding> cfg(1);
  const SweepResult r = ConversionSweep(from, to, cfg).run(InputSet::range(0xFE, 0x102));
  EXPECT_EQ(r.mismatches, 2u);
  ASSERT_EQ(r.counterexamples.size(), 2u);
  EXPECT_NE(r.counterexamples[0].error.find("emu:"), std::string::npos);
  EXPECT_NE(r.counterexamples[0].error.find("oracle"), std::string::npos);
}

// The sweeps decode each input once with reference::decode and call reference::round_exact
// per configuration; that must be exactly what reference::convert does.
TEST(Sweep, CachedDecodeEqualsOracleConvert) {
  const auto configs = make_configs(all_modes(), default_stochastic_draws(), all_saturations(),
                                    subnormal_pairwise());
  for (const char* src : {"e4m3", "e5m2", "binary8p3se", "ue8m0", "e2m1", "f16", "bf16"}) {
    const Format from = parse_format(src);
    for (const char* dst : {"e4m3", "e5m2", "ue8m0", "binary8p4ue", "f16", "e2m1", "f32"}) {
      const Format to = parse_format(dst);
      const InputSet in = InputSet::strided(InputSet::all_codes(from), 256);
      SweepOptions cached, direct;
      direct.oracle_convert_per_case = true;
      // Make every case a "mismatch" so that all oracle results are kept and can be compared.
      cached.emu_hook = direct.emu_hook = [](std::uint64_t, const Rounding&, Rounded& e) {
        e.bits = ~std::uint64_t{0};
      };
      cached.max_counterexamples = direct.max_counterexamples = 1u << 22;
      cached.threads = direct.threads = 2;
      const ConversionSweep sw(from, to, configs);
      const SweepResult a = sw.run(in, cached), b = sw.run(in, direct);
      ASSERT_EQ(a.counterexamples.size(), b.counterexamples.size());
      for (std::size_t i = 0; i < a.counterexamples.size(); ++i) {
        const auto& x = a.counterexamples[i];
        const auto& y = b.counterexamples[i];
        ASSERT_EQ(x.input, y.input);
        ASSERT_EQ(x.error, y.error) << src << "->" << dst;
        EXPECT_EQ(x.oracle_bits, y.oracle_bits)
            << src << " 0x" << std::hex << x.input << " -> " << dst << " " << describe(x.rounding);
        EXPECT_EQ(x.oracle_flags, y.oracle_flags)
            << src << " 0x" << std::hex << x.input << " -> " << dst << " " << describe(x.rounding);
      }
    }
  }
}

TEST(Sweep, InputSets) {
  const InputSet all = InputSet::all_codes(parse_format("e2m1"));
  EXPECT_EQ(all.size(), 16u);
  EXPECT_EQ(all.code(15), 15u);
  const InputSet r = InputSet::range(10, 20);
  EXPECT_EQ(r.size(), 10u);
  EXPECT_EQ(r.code(0), 10u);
  const InputSet s = InputSet::strided(InputSet::range(0, 1000), 10);
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(s.code(0), 0u);
  EXPECT_EQ(s.code(9), 900u);
  const InputSet l = InputSet::list({5, 7, 9});
  EXPECT_EQ(l.size(), 3u);
  EXPECT_EQ(l.code(2), 9u);
  EXPECT_EQ(make_configs(all_modes(), default_stochastic_draws(), all_saturations(),
                         subnormal_full())
                .size(),
            (6u + 4u * 4u) * 3u * 8u);
  // The pairwise runs cover every pair of (ftz, daz, tininess) values.
  std::set<std::tuple<int, int, int>> pairs;
  for (const auto& s : subnormal_pairwise()) {
    const int t = s.tininess == Tininess::before_rounding;
    pairs.insert({0, s.ftz * 2 + s.daz, 0});
    pairs.insert({1, s.ftz * 2 + t, 0});
    pairs.insert({2, s.daz * 2 + t, 0});
  }
  EXPECT_EQ(pairs.size(), 12u);
}

std::uint64_t f32(float x) { return std::bit_cast<std::uint32_t>(x); }

TEST(Boundary, F32ToE4m3CoversTheBoundaries) {
  const Format from = parse_format("f32"), to = parse_format("e4m3");
  BoundaryOptions bo;
  bo.seed = 42;
  const std::vector<std::uint64_t> core = boundary_inputs_core(from, to, bo);
  const std::set<std::uint64_t> s(core.begin(), core.end());
  auto has = [&](float x) { return s.count(f32(x)) == 1; };
  for (float x : {448.0f, 464.0f, 480.0f, 512.0f, 416.0f, 432.0f, 0x1p-9f, 0x1p-10f, 0x1p-6f,
                  0x1.cp-7f /* 2^-6 - 2^-10: tie below the normal boundary */, 1.0f, 1.0625f,
                  0.0f, INFINITY, 0x1p-149f, 0x1p127f, 0x1.fffffep127f}) {
    EXPECT_TRUE(has(x)) << x;
    EXPECT_TRUE(has(-x)) << -x;
    if (x != 0 && !std::isinf(x) && x != 0x1p-149f && x != 0x1.fffffep127f) {
      EXPECT_TRUE(has(std::nextafter(x, 0.0f))) << x;
      EXPECT_TRUE(has(std::nextafter(x, INFINITY))) << x;
    }
  }
  for (std::uint64_t nan : {0x7FC00000ull, 0x7F800001ull, 0xFFC00001ull, 0x7FBFFFFFull,
                            0x7FFFFFFFull, 0x7F800100ull}) {
    EXPECT_EQ(s.count(nan), 1u) << std::hex << nan;
  }
  // Every f32 binade appears.
  for (int e = -149; e <= 127; ++e) EXPECT_TRUE(has(std::ldexp(1.0f, e))) << e;

  bo.min_total = 1'000'000;
  const InputSet a = boundary_input_set(from, to, bo);
  EXPECT_GE(a.size(), 1'000'000u);
  const InputSet b = boundary_input_set(from, to, bo);
  BoundaryOptions other = bo;
  other.seed = 43;
  const InputSet c = boundary_input_set(from, to, other);
  std::uint64_t differ = 0;
  for (std::uint64_t i = 0; i < a.size(); i += 997) {
    EXPECT_EQ(a.code(i), b.code(i));
    EXPECT_LE(a.code(i), 0xFFFFFFFFull);
    differ += a.code(i) != c.code(i);
  }
  EXPECT_GT(differ, 100u);  // the random part follows the seed
  EXPECT_EQ(a.code(0), c.code(0));
}

TEST(Boundary, F64TrapsSitWithinAnF32UlpOfTies) {
  const Format to = parse_format("bf16");
  const std::vector<std::uint64_t> t = double_rounding_traps(to, 1u << 16, 1);
  const std::set<std::uint64_t> s(t.begin(), t.end());
  EXPECT_EQ(s.count(std::bit_cast<std::uint64_t>(1.0 + 0x1p-8 + 0x1p-40)), 1u);
  EXPECT_EQ(s.count(std::bit_cast<std::uint64_t>(1.0 + 0x1p-8 - 0x1p-40)), 1u);
  EXPECT_EQ(s.count(std::bit_cast<std::uint64_t>(-(1.0 + 0x1p-8 + 0x1p-40))), 1u);
  const std::vector<std::uint64_t> e = double_rounding_traps(parse_format("e4m3"), 1u << 16, 1);
  const std::set<std::uint64_t> se(e.begin(), e.end());
  EXPECT_EQ(se.count(std::bit_cast<std::uint64_t>(-431.99999999999994)), 1u);
  EXPECT_THROW(boundary_inputs_core(parse_format("f16"), to, {}), Error);
}

TEST(Report, WritesMarkdownAndJsonAtomically) {
  ReportOptions o;
  o.quick = true;
  o.sources = {"e4m3", "f32"};
  o.targets = {"e5m2", "ue8m0"};
  o.wide_inputs = 3000;
  o.seed = 7;
  const ConversionReport rep = run_conversion_report(o);
  // 2 sources x 2 targets x (6 modes + 4 stochastic modes x 2 draws) rows.
  EXPECT_EQ(rep.rows.size(), 2u * 2u * 14u);
  EXPECT_GT(rep.total_cases, 0u);
  std::uint64_t sum = 0;
  for (const auto& r : rep.rows) sum += r.cases;
  EXPECT_EQ(sum, rep.total_cases);

  const auto dir = std::filesystem::temp_directory_path() /
                   ("fpconform_conf_report_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                    "_" + std::to_string(reinterpret_cast<std::uintptr_t>(&rep)));
  std::filesystem::remove_all(dir);
  write_conversion_report(rep, (dir / "out").string());
  std::ifstream js(dir / "out" / "results.json");
  ASSERT_TRUE(js.good());
  const nlohmann::json j = nlohmann::json::parse(js);
  EXPECT_EQ(j["kind"], "conversion-conformance");
  EXPECT_EQ(j["rows"].size(), rep.rows.size());
  EXPECT_EQ(j["total_cases"].get<std::uint64_t>(), rep.total_cases);
  EXPECT_EQ(j["rows"][0]["source"], "e4m3");
  std::ifstream md(dir / "out" / "report.md");
  std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("| e4m3 | e5m2 |"), std::string::npos);
  // No temporary files left behind.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "out")) {
    ++files;
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos);
  }
  EXPECT_EQ(files, 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
