// fp32 -> narrow formats: the fast path (F32Converter, emu/include/fpconform/fast_convert.hpp),
// the clear path (`convert`, one element at a time) and native baselines, in one run:
//   vcvtps2ph (F16C, 8 values per instruction) for f16, vcvtneps2bf16 (AVX512-BF16, skipped
//   where the CPU lacks it) and the plain bf16 bit tricks, and memcpy of the same bytes.
// Inputs: 16384 fp32 values (64 KiB, cache resident), normally distributed with sigma 1 (the
// shape of activations and weights). Rates are items (values) per second of CPU time; the
// summary printed at the end takes the best repetition of each benchmark and gives the ratios
// (fast / native, fast / clear, fp8 fast / f16 fast).
//
//   build-fast/suites/bench/convert_bench [--benchmark_repetitions=5] [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "fpconform/convert.hpp"
#include "fpconform/fast_convert.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FPC_BENCH_X86 1
#else
#define FPC_BENCH_X86 0
#endif

namespace {

using namespace fpconform;

constexpr std::size_t kN = 16384;

const std::vector<float>& inputs() {
  static const std::vector<float> v = [] {
    std::vector<float> x(kN);
    std::mt19937 rng(42);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (auto& f : x) f = nd(rng);
    return x;
  }();
  return v;
}

struct Target {
  const char* label;  // benchmark name prefix
  const char* format;
  Saturation sat;
};

constexpr Target kTargets[] = {
    {"bf16", "bf16", Saturation::none},
    {"f16", "f16", Saturation::none},
    {"e4m3", "e4m3", Saturation::none},
    {"e4m3_satfinite", "e4m3", Saturation::finite},
    {"e5m2", "e5m2", Saturation::none},
    {"e5m2_satfinite", "e5m2", Saturation::finite},
    {"e2m1", "e2m1", Saturation::none},
};

void finish(benchmark::State& state, std::size_t out_bytes) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kN));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kN * (4 + out_bytes)));
}

void BM_Fast(benchmark::State& state, Target t, ConvertKernel k) {
  Rounding r;
  r.sat = t.sat;
  if (!kernel_available(k)) {
    state.SkipWithError("kernel not available on this CPU");
    return;
  }
  const F32Converter c(*find_builtin(t.format), r, k);
  const auto& in = inputs();
  std::vector<std::uint16_t> out(kN);
  for (auto _ : state) {
    c.convert(in.data(), out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state, c.code_bytes());
}

void BM_Clear(benchmark::State& state, Target t) {
  Rounding r;
  r.sat = t.sat;
  const Format to = *find_builtin(t.format);
  const Format f32 = *find_builtin("f32");
  const auto& in = inputs();
  std::vector<std::uint16_t> out(kN);
  for (auto _ : state) {
    for (std::size_t i = 0; i < kN; ++i)
      out[i] = static_cast<std::uint16_t>(convert(std::bit_cast<std::uint32_t>(in[i]), f32, to, r).bits);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state, to.width() <= 8 ? 1 : 2);
}

#if FPC_BENCH_X86
__attribute__((target("avx,f16c"))) void vcvtps2ph(const float* in, std::uint16_t* out,
                                                   std::size_t n) {
  for (std::size_t i = 0; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
}

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10
#define FPC_HAVE_AVX512BF16 1
__attribute__((target("avx512f,avx512vl,avx512bf16"))) void vcvtneps2bf16(const float* in,
                                                                          std::uint16_t* out,
                                                                          std::size_t n) {
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    const __m128bh h = _mm256_cvtneps_pbh(_mm256_loadu_ps(in + i));
    std::memcpy(out + i, &h, 16);
  }
}
#endif
#endif

void BM_NativeF16(benchmark::State& state) {
#if FPC_BENCH_X86
  if (!__builtin_cpu_supports("f16c") || !__builtin_cpu_supports("avx")) {
    state.SkipWithError("no F16C on this CPU");
    return;
  }
  const auto& in = inputs();
  std::vector<std::uint16_t> out(kN);
  for (auto _ : state) {
    vcvtps2ph(in.data(), out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state, 2);
#else
  state.SkipWithError("not x86");
#endif
}

void BM_NativeBf16(benchmark::State& state) {
#if FPC_BENCH_X86 && defined(FPC_HAVE_AVX512BF16)
  if (!__builtin_cpu_supports("avx512bf16") || !__builtin_cpu_supports("avx512vl")) {
    state.SkipWithError("no AVX512-BF16 (vcvtneps2bf16) on this CPU");
    return;
  }
  const auto& in = inputs();
  std::vector<std::uint16_t> out(kN);
  for (auto _ : state) {
    vcvtneps2bf16(in.data(), out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state, 2);
#else
  state.SkipWithError("no AVX512-BF16 support in this build");
#endif
}

// The plain bf16 tricks on the bit pattern (what code without a converter does): truncation,
// and round-to-nearest-even by adding 0x7fff + the lsb (wrong for NaNs; fine otherwise).
// Compiled for AVX2 where the CPU has it, like the fast path.
template <bool Rne>
void bf16_trick(const float* __restrict in, std::uint16_t* __restrict out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(in[i]);
    out[i] = static_cast<std::uint16_t>(Rne ? (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16 : u >> 16);
  }
}
#if FPC_BENCH_X86
template <bool Rne>
__attribute__((target("avx2"))) void bf16_trick_avx2(const float* __restrict in,
                                                     std::uint16_t* __restrict out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(in[i]);
    out[i] = static_cast<std::uint16_t>(Rne ? (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16 : u >> 16);
  }
}
#endif

template <bool Rne>
void BM_Bf16Trick(benchmark::State& state) {
  const auto& in = inputs();
  std::vector<std::uint16_t> out(kN);
  auto fn = &bf16_trick<Rne>;
#if FPC_BENCH_X86
  if (__builtin_cpu_supports("avx2")) fn = &bf16_trick_avx2<Rne>;
#endif
  for (auto _ : state) {
    fn(in.data(), out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state, 2);
}

void BM_Memcpy(benchmark::State& state, std::size_t bytes_per_item) {
  const auto& in = inputs();
  std::vector<std::uint8_t> out(kN * bytes_per_item);
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), kN * bytes_per_item);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kN));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kN * bytes_per_item));
}

void register_all() {
  for (const Target& t : kTargets) {
    const std::string base = std::string("f32_to_") + t.label;
    benchmark::RegisterBenchmark((base + "/fast").c_str(), BM_Fast, t, ConvertKernel::best);
    benchmark::RegisterBenchmark((base + "/fast_portable").c_str(), BM_Fast, t,
                                 ConvertKernel::portable);
    benchmark::RegisterBenchmark((base + "/clear").c_str(), BM_Clear, t);
  }
  benchmark::RegisterBenchmark("f32_to_f16/native_vcvtps2ph", BM_NativeF16);
  benchmark::RegisterBenchmark("f32_to_bf16/native_vcvtneps2bf16", BM_NativeBf16);
  benchmark::RegisterBenchmark("f32_to_bf16/bittrick_truncate", BM_Bf16Trick<false>);
  benchmark::RegisterBenchmark("f32_to_bf16/bittrick_rne", BM_Bf16Trick<true>);
  benchmark::RegisterBenchmark("memcpy/2_bytes_per_item", BM_Memcpy, std::size_t{2});
  benchmark::RegisterBenchmark("memcpy/1_byte_per_item", BM_Memcpy, std::size_t{1});
}

// Console output as usual, plus a summary with the best rate of each benchmark and the ratios.
// (With --benchmark_report_aggregates_only it sees only the aggregates and uses the median.)
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(OutputOptions o) : ConsoleReporter(o) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type != Run::RT_Iteration && !median) continue;
      const auto it = run.counters.find("items_per_second");
      if (it == run.counters.end()) continue;
      const std::string name = run.run_name.function_name;
      if (median) median_[name] = it->second;
      else best_[name] = std::max(best_[name], static_cast<double>(it->second));
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto g = [&](const std::string& n) {
      if (const auto it = best_.find(n); it != best_.end()) return it->second / 1e9;
      if (const auto it = median_.find(n); it != median_.end()) return it->second / 1e9;
      return 0.0;
    };
    std::printf("\nSummary (best repetition, or the median when only aggregates are reported; "
                "Gitems/s of CPU time):\n");
    std::printf("%-16s %8s %9s %8s %10s %12s %11s %10s\n", "f32 ->", "fast", "portable",
                "clear", "native", "fast/native", "fast/clear", "vs f16");
    const double f16 = g("f32_to_f16/fast");
    for (const Target& t : kTargets) {
      const std::string b = std::string("f32_to_") + t.label;
      const double fast = g(b + "/fast");
      double native = 0;
      std::string native_name = "-";
      if (std::string(t.label) == "f16") native = g(b + "/native_vcvtps2ph"), native_name = "vcvtps2ph";
      if (std::string(t.label) == "bf16") {
        native = g(b + "/native_vcvtneps2bf16");
        native_name = "vcvtneps2bf16";
        if (native == 0) native = g(b + "/bittrick_rne"), native_name = "rne trick";
      }
      char nat[32] = "-", ratio[32] = "-";
      if (native > 0) {
        std::snprintf(nat, sizeof nat, "%.2f", native);
        std::snprintf(ratio, sizeof ratio, "%.2f", fast / native);
      }
      std::printf("%-16s %8.2f %9.2f %8.3f %10s %12s %10.0fx %10.2f   %s\n", t.label, fast,
                  g(b + "/fast_portable"), g(b + "/clear"), nat, ratio,
                  g(b + "/clear") > 0 ? fast / g(b + "/clear") : 0.0, f16 > 0 ? fast / f16 : 0.0,
                  native > 0 ? ("native = " + native_name).c_str() : "");
    }
    std::printf("bf16 bit tricks: truncate %.2f, rne %.2f; memcpy 2 B/item %.2f, 1 B/item %.2f\n",
                g("f32_to_bf16/bittrick_truncate"), g("f32_to_bf16/bittrick_rne"),
                g("memcpy/2_bytes_per_item"), g("memcpy/1_byte_per_item"));
  }

 private:
  std::map<std::string, double> best_, median_;
};

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  SummaryReporter reporter(isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_Defaults
                                                   : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
