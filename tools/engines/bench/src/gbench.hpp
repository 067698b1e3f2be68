// Google Benchmark underneath the in-cache measurements: each case is a function of a
// benchmark::State that processes items (values, MACs, terms) and reports them with
// SetItemsProcessed. Rates are items per second of CPU time (robust when other processes share
// the cores), best of `rounds` rounds; each round runs every case once, so ours and its baseline
// alternate and share whatever load the machine had at the time.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace fpconform::bench {

struct Case {
  std::string name;
  std::function<void(benchmark::State&)> body;
};

// Best items/s per case name (cases that skipped or failed are absent).
std::map<std::string, double> run_cases(const std::vector<Case>& cases, double min_time,
                                        int rounds);

}  // namespace fpconform::bench
