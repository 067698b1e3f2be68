#include "gbench.hpp"

#include <algorithm>

namespace fpconform::bench {

namespace {

// Collects the rates; prints nothing (the bench lines are the output).
class Collector : public benchmark::BenchmarkReporter {
 public:
  explicit Collector(std::map<std::string, double>& best) : best_(best) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration) continue;
      const auto it = r.counters.find("items_per_second");
      if (it == r.counters.end()) continue;
      double& b = best_[r.run_name.function_name];
      b = std::max(b, static_cast<double>(it->second));
    }
  }

 private:
  std::map<std::string, double>& best_;
};

}  // namespace

std::map<std::string, double> run_cases(const std::vector<Case>& cases, double min_time,
                                        int rounds) {
  std::map<std::string, double> best;
  benchmark::ClearRegisteredBenchmarks();
  for (const Case& c : cases)
    benchmark::RegisterBenchmark(c.name.c_str(), [body = c.body](benchmark::State& s) { body(s); })
        ->MinTime(min_time);
  Collector collector(best);
  for (int r = 0; r < rounds; ++r) benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();
  return best;
}

}  // namespace fpconform::bench
