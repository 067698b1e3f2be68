// What `fpconform report` puts in a report, as sections of a reports::Document: conformance of
// emu's conversions and arithmetic against the MPFR oracle, where the ecosystem's conversion
// profiles disagree, accumulation error against K for the matrix-unit models, the matrix units
// of this machine, and every device profile recorded under reports/devices/.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/reports/document.hpp"

namespace fpconform::report {

struct ReportRun {
  bool quick = true;       // sampled inputs (the default report); false: larger samples
  std::uint64_t seed = 1;
  unsigned threads = 0;    // 0: all cores
  std::string devices_dir; // recorded profiles (reports/devices); empty: none
  std::string version;     // fpconform's version, for the header
  // Called before each section with (index, count, title), and once more with (count, count).
  std::function<void(int, int, std::string_view)> progress;
  // Resumable runs: `restore(i)` gives section i kept from an interrupted run with the same
  // arguments (nullopt: build it), and `finished(i, s)` is called with each section built here,
  // so the caller can keep it. Either may be empty.
  std::function<std::optional<reports::Section>(int)> restore;
  std::function<void(int, const reports::Section&)> finished;
};

reports::Section conversion_section(const ReportRun& run);
reports::Section arithmetic_section(const ReportRun& run);
reports::Section ecosystem_section(const ReportRun& run);
reports::Section accumulation_section(const ReportRun& run);
reports::Section devices_section(const ReportRun& run);
reports::Section scale_rules_section(const ReportRun& run);
reports::Section matrix_units_section(const ReportRun& run);

// Every section, in order, with a header (version, seed, time taken).
reports::Document build_report(const ReportRun& run);

}  // namespace fpconform::report
