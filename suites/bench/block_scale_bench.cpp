// Block-scaled quantization of a large fp32 tensor against a plain copy of it, in one run:
//   memcpy            the tensor into another buffer of the same size (the baseline)
//   mxfp8/fast        F32BlockQuantizer, rule ocp, e4m3 elements, blocks of 32 (ue8m0 scales)
//   mxfp8-rceil/fast  the same with rule rceil;  mxfp4/fast: ocp with e2m1 elements
//   mxfp8/clear       quantize_block block by block (on the first 1 MiB only: it is slow)
// The tensor is normally distributed (sigma 1, times 2^j for the j-th MiB so that blocks span
// many binades), every buffer is written once before timing (no page faults in the loop), and
// rates are fp32 values per second of wall time. The summary gives time(quantize) / time(memcpy)
// for the same number of values (the target: within 2x) and the peak RSS.
//
//   build/suites/bench/block_scale_bench                         (64 MiB tensor)
//   FPCONFORM_BENCH_MIB=1024 build/suites/bench/block_scale_bench  (the 1 GiB measurement)
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fpconform/block_scale.hpp"
#include "fpconform/fast_block_scale.hpp"

namespace {

using namespace fpconform;

std::size_t tensor_mib() {
  if (const char* s = std::getenv("FPCONFORM_BENCH_MIB")) return std::max(1L, std::atol(s));
  return 64;
}

std::size_t values() { return tensor_mib() * (std::size_t{1} << 20) / 4; }

const std::vector<float>& tensor() {
  static const std::vector<float> v = [] {
    constexpr std::size_t kMiB = (std::size_t{1} << 20) / 4;
    std::vector<float> base(kMiB);
    std::mt19937 rng(42);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (auto& f : base) f = nd(rng);
    std::vector<float> x(values());
    for (std::size_t i = 0; i < x.size(); i += kMiB) {
      const float s = std::ldexp(1.0f, static_cast<int>((i / kMiB) % 40) - 20);
      for (std::size_t j = 0; j < kMiB; ++j) x[i + j] = base[j] * s;
    }
    return x;
  }();
  return v;
}

void BM_Memcpy(benchmark::State& state) {
  const auto& in = tensor();
  std::vector<float> out(in.size(), 1.0f);
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), in.size() * sizeof(float));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * 8));
}

void BM_Fast(benchmark::State& state, const char* rule, const char* elem) {
  const auto& in = tensor();
  const F32BlockQuantizer q(parse_format(elem), find_scale_rule(rule), 32);
  if (!q.fast()) {
    state.SkipWithError(("not served by the fast path: " + q.why_generic()).c_str());
    return;
  }
  std::vector<std::uint8_t> codes(in.size(), 1), scales(in.size() / 32, 1);
  for (auto _ : state) {
    q.quantize(in.data(), in.size(), codes.data(), scales.data());
    benchmark::DoNotOptimize(codes.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
  state.SetBytesProcessed(
      static_cast<std::int64_t>(state.iterations() * (in.size() * 5 + in.size() / 32)));
}

void BM_Clear(benchmark::State& state) {
  const auto& in = tensor();
  const std::size_t n = std::min<std::size_t>(in.size(), (std::size_t{1} << 20) / 4);
  const Format f32 = parse_format("f32"), e4m3 = parse_format("e4m3");
  const ScaleRule& rule = find_scale_rule("ocp");
  std::vector<std::uint64_t> block(32);
  std::vector<std::uint8_t> codes(n), scales(n / 32);
  for (auto _ : state) {
    for (std::size_t b = 0; b < n / 32; ++b) {
      for (std::size_t i = 0; i < 32; ++i) block[i] = std::bit_cast<std::uint32_t>(in[b * 32 + i]);
      const QuantizedBlock qb = quantize_block(block, f32, e4m3, rule);
      scales[b] = static_cast<std::uint8_t>(qb.scale);
      for (std::size_t i = 0; i < 32; ++i) codes[b * 32 + i] = static_cast<std::uint8_t>(qb.elements[i]);
    }
    benchmark::DoNotOptimize(codes.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(OutputOptions o) : ConsoleReporter(o) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      const auto it = run.counters.find("items_per_second");
      if (it == run.counters.end()) continue;
      double& best = best_[run.run_name.function_name];
      best = std::max(best, static_cast<double>(it->second));
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    const double copy = best_["memcpy"];
    std::printf("\nSummary: %zu MiB fp32 tensor (%zu values), best repetition, Gvalues/s of wall "
                "time\n",
                tensor_mib(), values());
    std::printf("  memcpy              %7.3f  (%.2f GB/s read + write)\n", copy / 1e9,
                copy * 8 / 1e9);
    for (const char* name : {"mxfp8/fast", "mxfp8-rceil/fast", "mxfp4/fast", "mxfp8/clear"}) {
      const double r = best_[name];
      if (r <= 0) continue;
      std::printf("  %-18s %8.3f  time / memcpy time = %.2f\n", name, r / 1e9, copy / r);
    }
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    // The quantizer itself keeps one chunk (16 KiB) on the stack: its memory does not grow with
    // the tensor. The peak is the tensor plus the largest output buffer (memcpy's copy).
    std::printf("  peak RSS %.1f MiB (tensor %zu MiB + memcpy's copy %zu MiB; quantize output "
                "%zu MiB codes + %zu KiB scales)\n",
                static_cast<double>(u.ru_maxrss) / 1024.0, tensor_mib(), tensor_mib(),
                tensor_mib() / 4, tensor_mib() * 1024 / 128);
  }

 private:
  std::map<std::string, double> best_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("memcpy", BM_Memcpy)->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("mxfp8/fast", BM_Fast, "ocp", "e4m3")
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("mxfp8-rceil/fast", BM_Fast, "rceil", "e4m3")
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("mxfp4/fast", BM_Fast, "ocp", "e2m1")
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("mxfp8/clear", BM_Clear)->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  tensor();  // generate before any timing
  SummaryReporter reporter(isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_Defaults
                                                   : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
