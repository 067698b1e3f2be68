// One line of `fpconform bench`: a measured rate of ours next to a baseline measured in the same
// run, the ratio of the two speeds and the target ratio (the line grammar):
//   <name> ours=<value> <unit> baseline=<baseline name> <value> <unit> ratio=<r> target=<t> ok|SHORT
// and the last line `N ok, M short`. Everything else the command says (skips, substitutions,
// peak RSS, how a figure was extrapolated) goes to the notes stream, never between these lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fpconform::bench {

struct Comparison {
  std::string name;           // no spaces
  double ours = 0;            // in `unit`
  std::string baseline_name;  // no spaces
  double baseline = 0;        // in `unit`
  std::string unit;           // no spaces, e.g. "values/s", "GB/s", "s"
  bool time_unit = false;     // true: the values are durations (speed = 1 / value)
  double target = 1;          // the least acceptable ratio of ours' speed to the baseline's

  // ours' speed / the baseline's speed.
  double ratio() const;
  // ratio() >= target, as printed (4 significant digits).
  bool ok() const;
};

std::string format_line(const Comparison& c);
std::string format_summary(const std::vector<Comparison>& all);

// Checks text printed by `fpconform bench` (stdout): every line but the last matches the line
// grammar, the last is `N ok, M short` with the counts of the lines above, and each line's
// verdict agrees with its ratio and target. Returns "" when it does, else what is wrong.
std::string check_output(std::string_view text);

}  // namespace fpconform::bench
