// fpconform report [--out DIR] [--full] [--seed S] [--threads N] [--devices DIR] [--resume]
//                  [--strict] [--sections IDS] [--skip-section IDS] [--unit-cases N]
// Runs the report's sections (conformance of emu against the MPFR oracle, ecosystem profile
// disagreement, block-scale rules, accumulation error against K, this machine's units, the
// recorded device profiles) and writes DIR/index.html, report.md, results.json and tables/*.csv
// atomically. Each finished section is kept in DIR/.report.checkpoint, so an interrupted run
// (a --full one takes many minutes) continues with --resume; the checkpoint is removed once the
// report is written. A failing check is a finding of the report: the header names each failing
// section and why. Exit 0: the report was written; with --strict, 1 when a section reports
// failures; 2: bad arguments or an unwritable --out.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "numeric_options.hpp"
#include "commands.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/report/report_content.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "fpconform/files/report_checkpoint.hpp"

namespace fpconform::cli {
using namespace fpconform::files;

namespace {
struct ReportArgs {
  std::string out = "out/report";
  std::string devices = FPCONFORM_DEVICES_DIR;
  bool full = false;
  bool resume = false;
  bool strict = false;
  std::uint64_t seed = 1;
  unsigned threads = 0;
  std::vector<std::string> sections, skip;  // ids, each possibly "a,b"
  std::uint64_t unit_cases = 0;
};

// The ids of a comma-separated list, each checked against the report's sections.
std::vector<std::string> section_ids(const std::vector<std::string>& lists, const char* option) {
  const auto infos = report::section_infos();
  std::vector<std::string> ids;
  for (const std::string& list : lists) {
    std::stringstream in(list);
    for (std::string id; std::getline(in, id, ',');) {
      if (id.empty()) continue;
      if (std::none_of(infos.begin(), infos.end(), [&](const report::SectionInfo& i) { return id == i.id; })) {
        std::string known;
        for (const auto& i : infos) known += std::string(known.empty() ? "" : ", ") + i.id;
        throw Error(option, "no section '" + id + "' (the sections: " + known + ")");
      }
      ids.push_back(id);
    }
  }
  return ids;
}

// What the section being built is doing now: a terminal overwrites the progress bar's line
// with each step; a log gets the milestones, one line each.
void show_step(std::string_view line, bool milestone) {
  if (::isatty(STDERR_FILENO)) {
    std::fprintf(stderr, "\r\033[K  %.*s", static_cast<int>(std::min<std::size_t>(line.size(), 110)), line.data());
  } else if (milestone) {
    std::fprintf(stderr, "fpconform report:   %.*s\n", static_cast<int>(line.size()), line.data());
  }
}

// A progress bar on stderr when it is a terminal; one line per section otherwise.
void show_progress(int done, int total, std::string_view what) {
  if (::isatty(STDERR_FILENO)) {
    const int width = 30, filled = total ? width * done / total : width;
    std::fprintf(stderr, "\r\033[K[%.*s%*s] %d/%d %.*s", filled, "##############################",
                 width - filled, "", done, total, static_cast<int>(what.size()), what.data());
    if (done == total) std::fputc('\n', stderr);
  } else if (done < total) {
    std::fprintf(stderr, "fpconform report: %d/%d %.*s\n", done + 1, total,
                 static_cast<int>(what.size()), what.data());
  }
}
}  // namespace

void add_report_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "report", "Check emu against the MPFR oracle, compare the ecosystem and the matrix-unit "
                "models, characterize this machine's units; write an HTML/Markdown/JSON report");
  sub->footer("Exit status: 0 once the report is written, failing sections included (a failing check is a "
              "finding: the header names each failing section and why); 1 with --strict when a section "
              "reports failures; 2 for bad arguments or an unwritable --out.");
  auto a = std::make_shared<ReportArgs>();
  sub->add_option("--out,-o", a->out, "Directory for index.html, report.md, results.json, tables/")
      ->capture_default_str();
  sub->add_flag("--full", a->full, "Larger samples (the default suite's sweeps; much longer)");
  sub->add_option("--seed", a->seed, "Seed for the sampled inputs")->capture_default_str()->check(unsigned_in(0, std::numeric_limits<std::uint64_t>::max()));
  add_threads_option(sub, a->threads, "Worker threads (0: FPCONFORM_THREADS, else all cores)");
  sub->add_option("--devices", a->devices, "Recorded device profiles to include")->capture_default_str();
  sub->add_flag("--resume", a->resume,
                "Continue the interrupted run whose finished sections are kept in OUT/.report.checkpoint");
  sub->add_flag("--strict", a->strict,
                "Exit 1 when a section reports failures (without it: exit 0 once the report is written, "
                "the failures named in its header)");
  sub->add_option("--sections", a->sections,
                  "Run only these sections (ids, comma-separated: conversions, arithmetic, ecosystem, "
                  "scale-rules, accumulation, tolerances, matrix-units, devices); the others are listed as not run");
  sub->add_option("--skip-section", a->skip,
                  "Do not run these sections (ids as for --sections; repeatable), e.g. matrix-units, "
                  "which characterizes this CPU's units (up to a minute)");
  sub->add_option("--unit-cases", a->unit_cases,
                  "Fresh validation cases per unit in matrix-units (0: " + std::to_string(report::kUnitCasesQuick) +
                      ", with --full " + std::to_string(report::kUnitCasesFull) + ")")
      ->capture_default_str()
      ->check(unsigned_in(0, 1000000000));
  commands.push_back({sub, [a] {
                        // Refuse an unwritable --out before minutes of sweeps, not after.
                        std::error_code ec;
                        reports::prepare_output_dir(a->out, "--out");
                        reports::write_file_atomically(a->out + "/.fpconform-write-check", "", "--out");
                        std::remove((a->out + "/.fpconform-write-check").c_str());
                        report::ReportRun run;
                        run.quick = !a->full;
                        run.seed = a->seed;
                        run.threads = resolve_threads(a->threads);  // FPCONFORM_THREADS checked now
                        run.devices_dir = a->devices;
                        run.version = FPCONFORM_VERSION;
                        run.progress = show_progress;
                        run.step = show_step;
                        run.unit_cases = a->unit_cases;
                        // Which sections run: the canonical list of those that do not.
                        const auto only = section_ids(a->sections, "--sections");
                        const auto skip = section_ids(a->skip, "--skip-section");
                        for (const auto& info : report::section_infos()) {
                          const std::string id = info.id;
                          if ((!only.empty() && std::find(only.begin(), only.end(), id) == only.end()) ||
                              std::find(skip.begin(), skip.end(), id) != skip.end())
                            run.skip.push_back(id);
                        }
                        run.skip_reason = only.empty() ? "skipped with --skip-section"
                                         : skip.empty() ? "not among the --sections asked for"
                                                        : "not among the --sections asked for, or skipped with --skip-section";
                        std::string selection;
                        if (!run.skip.empty()) {
                          selection = "not-run=";
                          for (std::size_t i = 0; i < run.skip.size(); ++i) selection += (i ? "," : "") + run.skip[i];
                        }
                        if (a->unit_cases) selection += (selection.empty() ? "" : " ") + std::string("unit-cases=") +
                                                        std::to_string(a->unit_cases);
                        const std::string ckpt = a->out + "/.report.checkpoint";
                        const std::string args = report_args(a->full, a->seed, a->devices, run.version, selection);
                        std::vector<reports::Section> kept;
                        if (a->resume) {
                          kept = read_report_checkpoint(ckpt, args);
                          std::fprintf(stderr, "fpconform report: %s\n",
                                       kept.empty() ? ("no sections kept in " + ckpt + "; starting from the beginning").c_str()
                                                    : ("resuming: " + std::to_string(kept.size()) +
                                                       " finished sections kept in " + ckpt).c_str());
                        } else if (std::filesystem::exists(ckpt, ec)) {
                          std::fprintf(stderr, "fpconform report: starting again; the sections of the interrupted "
                                               "run in %s are dropped (--resume continues such a run)\n", ckpt.c_str());
                        }
                        std::vector<reports::Section> finished = kept;
                        write_report_checkpoint(ckpt, args, finished);  // refuses an unwritable --out now
                        run.restore = [&](int i) -> std::optional<reports::Section> {
                          if (i < static_cast<int>(kept.size())) return kept[i];
                          return std::nullopt;
                        };
                        run.finished = [&](int, const reports::Section& s) {
                          finished.push_back(s);
                          write_report_checkpoint(ckpt, args, finished);
                        };
                        const auto doc = report::build_report(run);
                        reports::write_report(doc, a->out);
                        std::filesystem::remove(ckpt, ec);  // written: nothing left to resume
                        int failed = 0;
                        for (const auto& s : doc.sections) {
                          std::printf("%-55s %s\n", s.title.c_str(),
                                      !s.ok ? "FAILED" : s.skipped.empty() ? "ok" : "not run");
                          if (!s.ok) std::printf("  %s\n", s.failure.empty() ? "a check failed" : s.failure.c_str());
                          failed += s.ok ? 0 : 1;
                        }
                        std::printf("report written to %s/index.html (and report.md, results.json, "
                                    "tables/)\n", a->out.c_str());
                        if (failed)
                          std::printf("%d %s failures%s\n", failed, failed == 1 ? "section reports" : "sections report",
                                      a->strict ? " (--strict: exit 1)" : " (a finding of the report; --strict exits 1)");
                        return failed && a->strict ? 1 : 0;
                      }});
}

}  // namespace fpconform::cli
