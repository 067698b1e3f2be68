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

#include "fpconform/characterize/characterize.hpp"
#include "fpconform/reports/document.hpp"

namespace fpconform::report {

struct ReportRun {
  bool quick = true;       // sampled inputs (the default report); false: larger samples
  std::uint64_t seed = 1;
  unsigned threads = 0;    // 0: all cores (matrix-units: units characterized side by side)
  std::string devices_dir; // recorded profiles (reports/devices); empty: none
  std::string version;     // fpconform's version, for the header
  // Called before each section with (index, count, title), and once more with (count, count).
  std::function<void(int, int, std::string_view)> progress;
  // Called inside a long section with what it is doing now ("cpu:amx-bf16: validate: ...");
  // `milestone` marks the lines worth a line of their own in a log (a unit or a stage begins,
  // a validation ends, a unit still works after 10 s more); the others are passing detail (a
  // terminal overwrites them). Sections that work on several threads call it from any of them,
  // one call at a time.
  std::function<void(std::string_view line, bool milestone)> step;
  // Sections not to run, by id (section_ids()): each is kept in the document, as not run, with
  // `skipped` saying why ("--skip-section matrix-units").
  std::vector<std::string> skip;
  std::string skip_reason = "skipped";  // Section::skipped of those
  // matrix-units: fresh validation cases per unit (0: the default, kUnitCasesQuick or
  // kUnitCasesFull) and validate -> refine rounds.
  std::uint64_t unit_cases = 0;
  // Resumable runs: `restore(i)` gives section i kept from an interrupted run with the same
  // arguments (nullopt: build it), and `finished(i, s)` is called with each section built here,
  // so the caller can keep it. Either may be empty.
  std::function<std::optional<reports::Section>(int)> restore;
  std::function<void(int, const reports::Section&)> finished;
};

// The matrix-units section's defaults: fresh validation cases per unit and refinement rounds.
// The section's time goes to synthesis (tens of seconds per AMX or AVX512-BF16 unit), and to
// each refinement round a unit no model reproduces asks for; validation is cheap (20000 cases
// in well under a second). One round keeps the section under a minute on a 2-core machine with
// AMX and AVX512 (the units run side by side); `fpconform probe --cases N` goes further.
inline constexpr std::uint64_t kUnitCasesQuick = 20000, kUnitCasesFull = 1000000;
inline constexpr int kUnitRefinementsQuick = 1, kUnitRefinementsFull = 8;

// The report's sections in order: {id, title}.
struct SectionInfo {
  const char* id;
  const char* title;
};
std::vector<SectionInfo> section_infos();

reports::Section conversion_section(const ReportRun& run);
reports::Section arithmetic_section(const ReportRun& run);
reports::Section ecosystem_section(const ReportRun& run);
reports::Section accumulation_section(const ReportRun& run);
// The model's bounds per preset and K beside the errors reached and fixed rtol/atol rules.
reports::Section tolerances_section(const ReportRun& run);
std::vector<int> tolerance_ks();  // the section's K
reports::Section devices_section(const ReportRun& run);
reports::Section scale_rules_section(const ReportRun& run);
reports::Section matrix_units_section(const ReportRun& run);

// The matrix-units section's rows for the cases c's model does not reproduce: target, k, c,
// the unit's d, the model's d (value and code), and the case as `fpconform dot --check` reads it.
std::vector<std::vector<std::string>> counterexample_rows(const characterize::Characterization& c);

// Every section, in order, with a header (version, seed, time taken).
reports::Document build_report(const ReportRun& run);

}  // namespace fpconform::report
