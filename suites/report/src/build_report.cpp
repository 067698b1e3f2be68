#include <chrono>

#include "fpconform/report/report_content.hpp"

namespace fpconform::report {

reports::Document build_report(const ReportRun& run) {
  using Builder = reports::Section (*)(const ReportRun&);
  const std::pair<const char*, Builder> sections[] = {
      {"conversions", conversion_section},   {"arithmetic", arithmetic_section},
      {"ecosystem", ecosystem_section},      {"scale rules", scale_rules_section},
      {"accumulation", accumulation_section}, {"this machine's units", matrix_units_section},
      {"devices", devices_section},
  };
  const int count = static_cast<int>(std::size(sections));
  reports::Document d;
  d.title = "fpconform report";
  const auto t0 = std::chrono::steady_clock::now();
  int restored = 0;
  for (int i = 0; i < count; ++i) {
    if (run.progress) run.progress(i, count, sections[i].first);
    if (auto kept = run.restore ? run.restore(i) : std::nullopt) {
      d.sections.push_back(std::move(*kept));
      ++restored;
      continue;
    }
    d.sections.push_back(sections[i].second(run));
    if (run.finished) run.finished(i, d.sections.back());
  }
  if (run.progress) run.progress(count, count, "done");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f s", secs);
  d.header = {"fpconform " + run.version, std::string(run.quick ? "quick" : "full") + " run, seed " + std::to_string(run.seed),
              std::string("took ") + buf +
                  (restored ? " (resumed: " + std::to_string(restored) + " of " + std::to_string(count) +
                                  " sections kept from the interrupted run)"
                            : std::string())};
  int failed = 0;
  for (const auto& s : d.sections) failed += s.ok ? 0 : 1;
  d.header.push_back(failed ? std::to_string(failed) + " sections report failures" : "every check passed");
  return d;
}

}  // namespace fpconform::report
