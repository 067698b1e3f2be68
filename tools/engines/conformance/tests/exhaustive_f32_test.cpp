// Label "exhaustive": f32 -> every format of <= 16 bits, all 2^32 inputs, rne/rtz/up/down.
//
// The MPFR oracle costs ~0.25 us per case, so 2^32 x 4 modes is ~1.2 core-hours per target
// (~30 core-hours for the 23 targets): impractical. These tests therefore check emu against
// the spec reference of double_convert.hpp (double arithmetic written from SEMANTICS.md, no
// emu code, no MPFR; itself checked against the oracle in the default suite), on every input:
//   - emu's clear path `convert(bits, f32, to, r)`, and
//   - emu's vectorized batch path `F32Converter` (fast_convert.hpp).
// The MPFR cases below run the oracle on a 1-in-1024 stride by default and on everything with
// FPCONFORM_EXHAUSTIVE_MPFR=1; both print their throughput and the projected full time.
//
// Environment: FPCONFORM_EXHAUSTIVE_STRIDE=k checks every k-th input only (for timing);
// FPCONFORM_THREADS sets the threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>

#include "fpconform/conformance/conversion.hpp"
#include "fpconform/reference/double_convert.hpp"
#include "test_formats.hpp"

#if __has_include("fpconform/fast_convert.hpp")
#include "fpconform/fast_convert.hpp"
#define FPC_HAVE_FAST_CONVERT 1
#else
#define FPC_HAVE_FAST_CONVERT 0
#endif

namespace {

using namespace fpconform;
using namespace fpconform::conformance;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  if (const char* e = std::getenv(name)) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 0);
    if (end != e && v > 0) return v;
  }
  return fallback;
}

std::vector<Rounding> four_modes() {
  std::vector<Rounding> v;
  for (RoundingMode m : {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up, RoundingMode::down}) {
    Rounding r;
    r.mode = m;
    v.push_back(r);
  }
  return v;
}

struct Failure {
  std::uint32_t input;
  std::size_t config;
  std::string text;
  bool operator<(const Failure& o) const {
    return input != o.input ? input < o.input : config < o.config;
  }
};

struct Totals {
  std::uint64_t inputs = 0, cases = 0, clear_bad = 0, fast_bad = 0;
  std::vector<Failure> failures;  // first ones by input
  double seconds = 0;
};

// Every `stride`-th f32 code: emu clear path and fast path vs the spec reference.
Totals run_all_inputs(const Format& to, const std::vector<Rounding>& configs, std::uint64_t stride) {
  const auto t0 = std::chrono::steady_clock::now();
  const dref::Target tgt = dref::make_target(to);
  const Format f32 = parse_format("f32");
  constexpr std::uint64_t kBatch = 1u << 14;
  const std::uint64_t total = ((std::uint64_t{1} << 32) + stride - 1) / stride;
  const std::uint64_t nbatches = (total + kBatch - 1) / kBatch;
  const unsigned threads = default_threads();
  constexpr std::size_t K = 10;
  std::atomic<std::uint64_t> next{0};
  std::mutex mu;
  Totals t;

  auto worker = [&]() {
    std::uint64_t cases = 0, clear_bad = 0, fast_bad = 0, inputs = 0;
    std::vector<Failure> fails;
    std::vector<float> in(kBatch);
    std::vector<std::uint16_t> out16(kBatch);
    std::vector<std::uint8_t> out8(kBatch), flags(kBatch);
#if FPC_HAVE_FAST_CONVERT
    std::vector<F32Converter> conv;
    for (const Rounding& r : configs) conv.emplace_back(to, r);
#endif
    auto fail = [&](std::uint32_t bits, std::size_t k, const std::string& what) {
      if (fails.size() >= K && !(Failure{bits, k, {}} < fails.back())) return;
      fails.push_back({bits, k, what});
      std::sort(fails.begin(), fails.end());
      if (fails.size() > K) fails.pop_back();
    };
    for (;;) {
      const std::uint64_t b = next.fetch_add(1);
      if (b >= nbatches) break;
      const std::uint64_t lo = b * kBatch, hi = std::min(total, lo + kBatch);
      const std::size_t n = hi - lo;
      for (std::size_t i = 0; i < n; ++i)
        in[i] = std::bit_cast<float>(static_cast<std::uint32_t>((lo + i) * stride));
      inputs += n;
      for (std::size_t k = 0; k < configs.size(); ++k) {
        const Rounding& r = configs[k];
#if FPC_HAVE_FAST_CONVERT
        if (conv[k].code_bytes() == 1) conv[k].convert_flags(in.data(), out8.data(), flags.data(), n);
        else conv[k].convert_flags(in.data(), out16.data(), flags.data(), n);
#endif
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t bits = std::bit_cast<std::uint32_t>(in[i]);
          const dref::Result s = dref::convert_f32(bits, tgt, r);
          const Rounded e = convert(bits, f32, to, r);
          ++cases;
          if (e.bits != s.bits || e.flags.bits != s.flags) {
            ++clear_bad;
            std::ostringstream o;
            o << "f32 0x" << std::hex << bits << " -> " << to.name << " [" << describe(r)
              << "]: emu convert 0x" << e.bits << " flags " << e.flags.to_string()
              << " | spec-ref 0x" << s.bits << " flags " << Flags{s.flags}.to_string();
            fail(bits, k, o.str());
          }
#if FPC_HAVE_FAST_CONVERT
          const std::uint64_t fb = conv[k].code_bytes() == 1 ? out8[i] : out16[i];
          if (fb != s.bits || flags[i] != s.flags) {
            ++fast_bad;
            std::ostringstream o;
            o << "f32 0x" << std::hex << bits << " -> " << to.name << " [" << describe(r)
              << "]: emu F32Converter 0x" << fb << " flags " << Flags{flags[i]}.to_string()
              << " | spec-ref 0x" << s.bits << " flags " << Flags{s.flags}.to_string();
            fail(bits, k + configs.size(), o.str());
          }
#endif
        }
      }
    }
    std::lock_guard<std::mutex> g(mu);
    t.inputs += inputs;
    t.cases += cases;
    t.clear_bad += clear_bad;
    t.fast_bad += fast_bad;
    for (auto& f : fails) t.failures.push_back(std::move(f));
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  std::sort(t.failures.begin(), t.failures.end());
  if (t.failures.size() > K) t.failures.resize(K);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

class ExhaustiveF32 : public ::testing::TestWithParam<std::string> {};

TEST_P(ExhaustiveF32, AllInputsVsSpecReference) {
  const Format to = parse_format(GetParam());
  const std::uint64_t stride = env_u64("FPCONFORM_EXHAUSTIVE_STRIDE", 1);
  const Totals t = run_all_inputs(to, four_modes(), stride);
  std::string first;
  for (const Failure& f : t.failures) first += "\n  " + f.text;
  EXPECT_EQ(t.clear_bad, 0u) << "emu convert vs spec reference" << first;
  EXPECT_EQ(t.fast_bad, 0u) << "emu F32Converter vs spec reference" << first;
  EXPECT_EQ(t.inputs, ((std::uint64_t{1} << 32) + stride - 1) / stride);
  const double per_case = t.seconds / static_cast<double>(t.cases) * default_threads();
  std::printf("[ exhaustive ] f32 -> %s: %llu inputs x 4 modes (stride %llu) = %llu cases, "
              "%llu clear-path / %llu fast-path mismatches, %.1f s on %u threads "
              "(%.1f ns per case per thread; full 2^32 x 4: %.0f s)%s\n",
              to.name.c_str(), static_cast<unsigned long long>(t.inputs),
              static_cast<unsigned long long>(stride), static_cast<unsigned long long>(t.cases),
              static_cast<unsigned long long>(t.clear_bad),
              static_cast<unsigned long long>(t.fast_bad), t.seconds, default_threads(),
              per_case * 1e9, t.seconds * static_cast<double>(stride),
              FPC_HAVE_FAST_CONVERT ? "" : " [F32Converter not built]");
}

TEST_P(ExhaustiveF32, MpfrOracle) {
  const Format from = parse_format("f32"), to = parse_format(GetParam());
  const bool full = std::getenv("FPCONFORM_EXHAUSTIVE_MPFR") != nullptr;
  const std::uint64_t stride = full ? 1 : 1024;
  const InputSet all = InputSet::range(0, std::uint64_t{1} << 32, "all 2^32 f32 codes");
  const InputSet in = full ? all : InputSet::strided(all, (std::uint64_t{1} << 32) / stride);
  const SweepResult r = ConversionSweep(from, to, four_modes()).run(in);
  EXPECT_EQ(r.mismatches, 0u) << r.summary();
  const double projected = r.seconds * static_cast<double>(stride);
  std::printf("[ exhaustive ] %s\n  MPFR: %.0f ns per case per thread; all 2^32 x 4 modes: %s "
              "%.0f s (%.1f h) on %u threads\n",
              r.summary().substr(0, 300).c_str(), r.seconds / r.cases * r.threads * 1e9,
              full ? "took" : "projected", projected, projected / 3600, r.threads);
}

INSTANTIATE_TEST_SUITE_P(Exhaustive, ExhaustiveF32,
                         ::testing::ValuesIn(conftest::narrow_target_names()),
                         [](const auto& info) { return conftest::test_name(info.param); });

}  // namespace
