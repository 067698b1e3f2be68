#include <algorithm>
#include <chrono>
#include <cstdio>

#include "fpconform/core/error.hpp"
#include "fpconform/report/report_content.hpp"

namespace fpconform::report {

namespace {
using Builder = reports::Section (*)(const ReportRun&);
struct Entry {
  SectionInfo info;
  const char* progress;  // the progress line's name
  Builder build;
};
// The sections in order; each builder sets the same id and title.
constexpr Entry kSections[] = {
    {{"conversions", "Conversions: emu against the MPFR oracle"}, "conversions", conversion_section},
    {{"arithmetic", "Scalar arithmetic: emu against the MPFR oracle"}, "arithmetic", arithmetic_section},
    {{"ecosystem", "Ecosystem conversions: where the libraries disagree"}, "ecosystem", ecosystem_section},
    {{"scale-rules", "Block-scale rules (MX, NVFP4, tiles)"}, "scale rules", scale_rules_section},
    {{"accumulation", "Accumulation error against K (FP8 GEMM models)"}, "accumulation", accumulation_section},
    {{"tolerances", "Tolerances: the model's bound against fixed rtol/atol"}, "tolerances", tolerances_section},
    {{"matrix-units", "This machine's units, characterized"}, "this machine's units", matrix_units_section},
    {{"devices", "Device profiles"}, "devices", devices_section},
};
}  // namespace

std::vector<SectionInfo> section_infos() {
  std::vector<SectionInfo> v;
  for (const Entry& e : kSections) v.push_back(e.info);
  return v;
}

reports::Document build_report(const ReportRun& run) {
  const int count = static_cast<int>(std::size(kSections));
  reports::Document d;
  d.title = "fpconform report";
  const auto t0 = std::chrono::steady_clock::now();
  int restored = 0;
  for (int i = 0; i < count; ++i) {
    const Entry& e = kSections[i];
    if (run.progress) run.progress(i, count, e.progress);
    if (auto kept = run.restore ? run.restore(i) : std::nullopt) {
      d.sections.push_back(std::move(*kept));
      ++restored;
      continue;
    }
    if (std::find(run.skip.begin(), run.skip.end(), e.info.id) != run.skip.end()) {
      reports::Section s;
      s.id = e.info.id;
      s.title = e.info.title;
      s.skipped = run.skip_reason;
      d.sections.push_back(std::move(s));
    } else {
      d.sections.push_back(e.build(run));
      if (d.sections.back().id != e.info.id)  // kSections and the builders drifted apart
        throw Error("report", "section " + std::string(e.info.id) + " was built as " + d.sections.back().id);
    }
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
  // The verdict: every failing section by name with its reason, then what was not run.
  std::vector<const reports::Section*> failed;
  std::string not_run;
  for (const auto& s : d.sections) {
    if (!s.ok) failed.push_back(&s);
    if (!s.skipped.empty()) not_run += (not_run.empty() ? "" : ", ") + s.id;
  }
  if (failed.empty()) {
    d.header.push_back(not_run.empty() ? "every check passed"
                                       : "every check that ran passed; not run: " + not_run);
  } else {
    d.header.push_back(std::to_string(failed.size()) + (failed.size() == 1 ? " section reports" : " sections report") +
                       " failures" + (not_run.empty() ? "" : "; not run: " + not_run));
    for (const reports::Section* s : failed)
      d.header.push_back("FAILED " + s->id + " (" + s->title + "): " +
                         (s->failure.empty() ? "a check failed (see the section)" : s->failure));
  }
  return d;
}

}  // namespace fpconform::report
