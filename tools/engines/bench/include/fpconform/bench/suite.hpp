// `fpconform bench`: every hot path next to its baseline, measured in the same run.
// Lines go to `out` as each comparison finishes (see line.hpp); notes (substituted or skipped
// baselines, extrapolations, peak RSS) go to `notes`.
#pragma once

#include <ostream>
#include <string>

namespace fpconform::bench {

enum class Level {
  full,   // 1 GiB stream, all 2^32 pairs of the f16 sweep, longer timings
  quick,  // under a minute: a 256 MiB stream, a slice of the sweep (extrapolated)
  smoke,  // seconds: tiny sizes and timings, for checking the output's form (tests)
};

struct Options {
  Level level = Level::full;
  std::string python = "python3";  // runs ml_dtypes' casts; FPCONFORM_PYTHON overrides
  unsigned threads = 0;            // sweep threads; 0: every core
};

// Runs every comparison; returns the number of SHORT lines.
int run_suite(const Options& options, std::ostream& out, std::ostream& notes);

}  // namespace fpconform::bench
