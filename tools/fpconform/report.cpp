// fpconform report [--out DIR] [--full] [--seed S] [--threads N] [--devices DIR] [--resume]
// Runs the report's sections (conformance of emu against the MPFR oracle, ecosystem profile
// disagreement, block-scale rules, accumulation error against K, this machine's units, the
// recorded device profiles) and writes DIR/index.html, report.md, results.json and tables/*.csv
// atomically. Each finished section is kept in DIR/.report.checkpoint, so an interrupted run
// (a --full one takes many minutes) continues with --resume; the checkpoint is removed once the
// report is written. Exit 0: every check passed; 1: a section reports failures.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "fpconform/error.hpp"
#include "fpconform/report/report_content.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "report_checkpoint.hpp"

namespace fpconform::cli {

namespace {
struct ReportArgs {
  std::string out = "out/report";
  std::string devices = FPCONFORM_DEVICES_DIR;
  bool full = false;
  bool resume = false;
  std::uint64_t seed = 1;
  unsigned threads = 0;
};

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
  auto a = std::make_shared<ReportArgs>();
  sub->add_option("--out,-o", a->out, "Directory for index.html, report.md, results.json, tables/")
      ->capture_default_str();
  sub->add_flag("--full", a->full, "Larger samples (the default suite's sweeps; much longer)");
  sub->add_option("--seed", a->seed, "Seed for the sampled inputs")->capture_default_str();
  sub->add_option("--threads", a->threads, "Worker threads (0: all cores)");
  sub->add_option("--devices", a->devices, "Recorded device profiles to include")->capture_default_str();
  sub->add_flag("--resume", a->resume,
                "Continue the interrupted run whose finished sections are kept in OUT/.report.checkpoint");
  commands.push_back({sub, [a] {
                        // Refuse an unwritable --out before minutes of sweeps, not after.
                        std::error_code ec;
                        std::filesystem::create_directories(a->out, ec);
                        if (ec) throw Error("--out", "cannot create '" + a->out + "': " + ec.message());
                        reports::write_file_atomically(a->out + "/.fpconform-write-check", "", "--out");
                        std::remove((a->out + "/.fpconform-write-check").c_str());
                        report::ReportRun run;
                        run.quick = !a->full;
                        run.seed = a->seed;
                        run.threads = a->threads;
                        run.devices_dir = a->devices;
                        run.version = FPCONFORM_VERSION;
                        run.progress = show_progress;
                        const std::string ckpt = a->out + "/.report.checkpoint";
                        const std::string args = report_args(a->full, a->seed, a->devices, run.version);
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
                          std::printf("%-55s %s\n", s.title.c_str(), s.ok ? "ok" : "FAILED");
                          failed += s.ok ? 0 : 1;
                        }
                        std::printf("report written to %s/index.html (and report.md, results.json, "
                                    "tables/)\n", a->out.c_str());
                        return failed ? 1 : 0;
                      }});
}

}  // namespace fpconform::cli
