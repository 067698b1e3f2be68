// `fpconform fit`: passive fitting of recorded rows (tools/engines/characterize: rows.hpp, fit.hpp).
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "numeric_options.hpp"
#include "commands.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/characterize/fit.hpp"
#include "fpconform/characterize/rows.hpp"
#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/reports/atomic_file.hpp"

namespace fpconform::cli {

void add_fit_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "fit", "every parameter set of the matrix-unit family that reproduces recorded rows, and "
             "the probes that would tell them apart");
  struct Opts {
    std::string rows, in, out, b_format, json;
    bool c_zero = false, all = false, no_presets = false;
    std::uint64_t seed = 1;
    int probes = 4000;
    unsigned threads = 0;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--rows", o->rows,
                  "a tensor-core dump directory (a_*.txt, b_*.txt, c_*_fp32.txt, d_*_fp32/fp16.txt) "
                  "or a rows file (tools/engines/characterize/ROWS.md)")
      ->required();
  sub->add_option("--in", o->in, "format of a and b (default: the header, or the dump folder's name)");
  sub->add_option("--b-format", o->b_format, "format of b, when it is not --in (e4m3 x e5m2; default: the header's b=)");
  sub->add_option("--out", o->out, "format of c and d (default: the header, or the one d_ file)");
  sub->add_flag("--c-zero", o->c_zero, "the rows were recorded with C = 0 (H100 fp8 dumps, fp32 out)");
  sub->add_option("--json", o->json, "also write the report as JSON to this file (-: stdout)");
  sub->add_option("--seed", o->seed, "seed of the probe search (default 1)")->check(unsigned_in(0, std::numeric_limits<std::uint64_t>::max()));
  sub->add_option("--probes", o->probes, "cases the probe search tries at most (default 4000)")
      ->check(integer_in(0, 10000000));
  add_threads_option(sub, o->threads, "threads for the fit (default: FPCONFORM_THREADS, else all cores)");
  sub->add_flag("--all", o->all, "list every matching set (default: the first 40)");
  sub->add_flag("--no-presets", o->no_presets,
                "leave the presets out: what the grid and the reduction trees alone explain");
  commands.push_back({sub, [o] {
                        const unsigned threads = resolve_threads(o->threads);  // before any work
                        // Refuse a --json that is not a file before the fit, not after.
                        if (!o->json.empty() && o->json != "-") reports::check_output_file(o->json, "--json");
                        characterize::RowsOptions ro;
                        ro.in = o->in;
                        ro.out = o->out;
                        ro.in_b = o->b_format;
                        ro.c_zero = o->c_zero;
                        const characterize::RecordedRows rows = characterize::read_rows(o->rows, ro);
                        characterize::FitOptions fo;
                        fo.seed = o->seed;
                        fo.probe_budget = o->probes;
                        fo.threads = threads;
                        fo.family.presets = !o->no_presets;
                        const characterize::FitResult r = characterize::fit(rows.formats(), rows.cases, fo);
                        characterize::FitReportOptions report;
                        report.rows_path = o->rows;
                        report.max_listed = o->all ? 0 : 40;
                        // Atomically: an interrupted fit leaves no half-written JSON.
                        if (!o->json.empty())
                          reports::write_output(
                              o->json, characterize::fit_report_json(r, rows, report), "--json");
                        std::fputs(characterize::fit_report_text(r, rows, report).c_str(), stdout);
                        return r.matching.empty() ? 1 : 0;
                      }});
}

}  // namespace fpconform::cli
