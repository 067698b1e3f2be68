// The comparison groups of the bench suite, one file each.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "fpconform/bench/line.hpp"
#include "fpconform/bench/suite.hpp"

namespace fpconform::bench {

struct Settings {
  Level level = Level::full;
  double min_time = 0.2;  // seconds per Google Benchmark case and round
  int rounds = 3;
  std::string python;
  unsigned threads = 1;
  std::ostream* notes = nullptr;
  void note(const std::string& s) const { *notes << "note: " << s << '\n' << std::flush; }
};

// Prints each comparison as it is made (progress on a long run) and keeps them for the summary.
struct Sink {
  std::ostream* out;
  std::vector<Comparison> all;
  void add(const Comparison& c) {
    *out << format_line(c) << '\n' << std::flush;
    all.push_back(c);
  }
};

void convert_cases(const Settings& s, Sink& sink);   // in cache, incl. ml_dtypes
void stream_cases(const Settings& s, Sink& sink);    // 1 GiB vs memcpy, peak RSS
void sweep_cases(const Settings& s, Sink& sink);     // f16 binary-op sweep
void mma_cases(const Settings& s, Sink& sink);       // emulated MMA vs fp32 FMA dot
void exact_dot_cases(const Settings& s, Sink& sink); // Kulisch vs MPFR

}  // namespace fpconform::bench
