// Matrix-unit emulation speed: emulated MACs per second per core of the fused dot-product-add
// model (FdpaKernel, the fast path; fdpa, the clear model) for `hopper` e4m3 (L = 32, F = 13,
// e8m13) and `ampere` f16 (L = 8, F = 24), next to a plain fp32 dot product over the same
// values in the same run. K = 4096 per dot product, operands decoded once (as gemm does).
// The summary gives the rates and the ratios to the fp32 baseline.
//
//   build/suites/bench/fdpa_bench [--benchmark_repetitions=3]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/matrix_presets.hpp"

namespace {

using namespace fpconform;

constexpr std::size_t kK = 4096;

struct Data {
  Format in, out;
  FdpaParams params;
  std::vector<std::uint64_t> a, b;
  std::vector<float> fa, fb;
  Data(const char* preset, const char* fmt) : in(parse_format(fmt)), out(parse_format("f32")) {
    params = find_matrix_unit(preset, in, out);
    std::mt19937_64 rng(42);
    std::normal_distribution<double> normal(0.0, 1.0);
    const Format f64 = parse_format("f64");
    for (std::size_t i = 0; i < kK; ++i)
      for (auto* v : {&a, &b}) {
        const double x = normal(rng);
        std::uint64_t bits;
        std::memcpy(&bits, &x, 8);
        Rounding sat;
        sat.sat = Saturation::finite;
        v->push_back(convert(bits, f64, in, sat).bits);
      }
    for (std::size_t i = 0; i < kK; ++i) {
      fa.push_back(static_cast<float>(to_double(a[i], in)));
      fb.push_back(static_cast<float>(to_double(b[i], in)));
    }
  }
};

const Data& data(const std::string& which) {
  static const Data hopper("hopper", "e4m3"), ampere("ampere", "f16");
  return which == "hopper_e4m3" ? hopper : ampere;
}

void BM_kernel(benchmark::State& state, const std::string& which) {
  const Data& d = data(which);
  const FdpaKernel k(d.params, d.in, d.out);
  const DecodedOperands da = k.decode(d.a), db = k.decode(d.b);
  for (auto _ : state) benchmark::DoNotOptimize(k.dot(da, 0, db, 0, 1, kK, 0));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kK));
}

void BM_clear_model(benchmark::State& state, const std::string& which) {
  const Data& d = data(which);
  for (auto _ : state) benchmark::DoNotOptimize(fdpa(d.params, d.in, d.out, d.a, d.b, 0));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kK));
}

void BM_fp32_dot(benchmark::State& state, const std::string& which) {
  const Data& d = data(which);
  for (auto _ : state) {
    float sum = 0;
    for (std::size_t i = 0; i < kK; ++i) sum += d.fa[i] * d.fb[i];
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kK));
}

// Best rate of each benchmark, then the ratios.
class Summary : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration) continue;
      const auto it = r.counters.find("items_per_second");
      if (it == r.counters.end()) continue;
      double& best = best_[r.benchmark_name()];
      best = std::max(best, static_cast<double>(it->second));
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nemulated MACs per second per core (best repetition):\n");
    for (const char* w : {"hopper_e4m3", "ampere_f16"}) {
      const double kern = best_[std::string("kernel/") + w];
      const double clear = best_[std::string("clear_model/") + w];
      const double base = best_[std::string("fp32_dot/") + w];
      std::printf("  %-12s kernel %.3g  clear model %.3g  fp32 dot %.3g  kernel/fp32 %.2f  kernel/clear %.1f\n",
                  w, kern, clear, base, base > 0 ? kern / base : 0.0, clear > 0 ? kern / clear : 0.0);
    }
  }

 private:
  std::map<std::string, double> best_;
};

}  // namespace

int main(int argc, char** argv) {
  for (const char* w : {"hopper_e4m3", "ampere_f16"}) {
    benchmark::RegisterBenchmark((std::string("kernel/") + w).c_str(), BM_kernel, std::string(w));
    benchmark::RegisterBenchmark((std::string("clear_model/") + w).c_str(), BM_clear_model, std::string(w));
    benchmark::RegisterBenchmark((std::string("fp32_dot/") + w).c_str(), BM_fp32_dot, std::string(w));
  }
  benchmark::Initialize(&argc, argv);
  Summary summary;
  benchmark::RunSpecifiedBenchmarks(&summary);
  return 0;
}
