// `fpconform gpu-analyze`: the CPU half of the GPU probes. Reads the result files that
// fpconform-gpu-run wrote on a GPU machine (gpu_probes/PLAN.md), compares conversions and scalar
// operations with emu, judges MMA results against the matrix-unit presets (passive fit where none
// matches), recovers the summation trees of the FPRev results (fprev.<kernel>), and writes MMA
// rows for `fpconform fit --rows`, device profiles and mma.md.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "numeric_options.hpp"
#include "commands.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/gpu/analysis.hpp"
#include "fpconform/gpu/fprev_tree.hpp"
#include "fpconform/gpu/mma_verdict.hpp"
#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "fpconform/characterize/device_profile.hpp"

namespace fpconform::cli {

namespace {

namespace fs = std::filesystem;

// Every .res file named or under a named folder, sorted for a stable report.
std::vector<std::string> result_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().extension() == ".res") files.push_back(e.path().string());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      throw Error(p, "no such result file or folder");
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error("gpu-analyze", "no .res files found");
  return files;
}

// Where a GPU's profiles and mma.md go: DEVICES/<gpu>/, else --out.
template <class Opts>
std::string device_dir(const std::string& device, const Opts& o) {
  return !o.devices.empty() ? (fs::path(o.devices) / gpu::device_folder_name(device)).string() : o.out;
}

// Judges each kernel's dot results against the presets, prints the verdicts, and writes a device
// profile per kernel plus mma.md per GPU (with the FPRev summation trees of that GPU).
template <class Opts>
std::vector<gpu::MmaVerdict> judge_mma(
    const std::map<std::pair<std::string, std::string>, std::vector<gpu::Result>>& by_kernel, const Opts& o,
    const std::vector<gpu::FprevTree>& trees) {
  gpu::MmaOptions mo;
  mo.max_digest_chunks = o.digest_chunks;
  mo.fit = !o.no_fit;
  mo.fit_rows = o.fit_rows;
  mo.threads = resolve_threads(o.threads);
  std::vector<gpu::MmaVerdict> verdicts;
  std::map<std::string, std::vector<gpu::MmaVerdict>> by_dir;
  for (const auto& [key, results] : by_kernel) {
    try {
      verdicts.push_back(gpu::mma_verdict(results, mo));
    } catch (const std::invalid_argument& e) {
      throw Error(key.second, e.what());
    }
    std::printf("%s", gpu::to_string(verdicts.back()).c_str());
    const std::string dir = device_dir(key.first, o);
    if (!dir.empty()) by_dir[dir].push_back(verdicts.back());
  }
  std::map<std::string, std::vector<gpu::FprevTree>> trees_by_dir;
  for (const auto& t : trees)
    if (const std::string dir = device_dir(t.device, o); !dir.empty()) trees_by_dir[dir].push_back(t);
  for (const auto& [dir, vs] : by_dir) {
    reports::prepare_output_dir(dir, o.devices.empty() ? "--out" : "--devices");
    for (const auto& v : vs) {
      if (v.rows == 0 || v.presets.empty()) continue;
      const std::string path = characterize::write_device_profile(gpu::mma_characterization(v), dir, FPCONFORM_VERSION);
      std::printf("profile written to %s (and .md)\n", path.c_str());
    }
    const std::string md = (fs::path(dir) / "mma.md").string();
    const auto& ts = trees_by_dir[dir];
    reports::write_file_atomically(md, gpu::mma_summary_markdown(vs) + (ts.empty() ? "" : "\n" + gpu::fprev_markdown(ts)),
                                   dir);
    std::printf("MMA summary written to %s\n", md.c_str());
  }
  return verdicts;
}

}  // namespace

void add_gpu_analyze_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "gpu-analyze", "compare GPU probe results (fpconform-gpu-run) with emu; write MMA rows for fit");
  struct Opts {
    std::vector<std::string> paths;
    std::string out, devices;
    std::uint64_t digest_chunks = 64, run_samples = 1u << 16;
    std::size_t fit_rows = 2000;
    bool no_fit = false;
    unsigned threads = 0;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("results", o->paths, "result files (.res) or folders holding them")->required();
  sub->add_option("--out", o->out, "write verdicts.txt and rows/<job>.rows here (e.g. reports/devices/<gpu>)");
  sub->add_option("--digest-chunks", o->digest_chunks, "chunk digests recomputed per result (default 64)")
      ->check(unsigned_in(0, 1000000));
  sub->add_option("--run-samples", o->run_samples, "random inputs checked per conversion sweep (default 65536)")
      ->check(unsigned_in(0, 1000000000));
  sub->add_option("--devices", o->devices,
                  "write MMA device profiles and mma.md to DEVICES/<gpu>/ (gpu from the results, e.g. reports/devices)");
  sub->add_option("--fit-rows", o->fit_rows, "rows given to the passive fit when no preset matches (default 2000)")
      ->check(unsigned_in(0, 100000000));
  sub->add_flag("--no-fit", o->no_fit, "skip the passive fit");
  add_threads_option(sub, o->threads, "threads for the passive fit (default: FPCONFORM_THREADS, else all cores)");
  commands.push_back({sub, [o] {
    (void)resolve_threads(o->threads);  // a bad FPCONFORM_THREADS before any work
    // Refuse an --out that is not a directory before the analysis, not after.
    if (!o->out.empty()) reports::prepare_output_dir(o->out, "--out");
    gpu::AnalysisOptions options;
    options.max_digest_chunks = o->digest_chunks;
    options.run_samples = o->run_samples;
    std::string report;
    int agree = 0, differ = 0, not_run = 0, rows = 0;
    // by device and kernel: the results of one kernel on one GPU are judged together
    std::map<std::pair<std::string, std::string>, std::vector<gpu::Result>> dot_results;
    std::vector<gpu::FprevTree> trees;  // fprev.<kernel> jobs: summation trees (also judged as rows)
    for (const auto& file : result_files(o->paths)) {
      gpu::Result r;
      try {
        r = gpu::read_result_file(file);
      } catch (const gpu::FileError& e) {
        throw Error(file, e.what());
      }
      gpu::Verdict v;
      try {
        v = gpu::analyze_result(r, options);
      } catch (const std::invalid_argument& e) {
        throw Error(file, e.what());
      }
      const std::string line = gpu::to_string(v);
      std::printf("%s\n", line.c_str());
      report += line + "\n";
      if (v.status != "ok") ++not_run;
      else if (v.checked == 0 && v.digest_chunks == 0) {
        if (!o->out.empty()) {
          const std::string rows_dir = (fs::path(o->out) / "rows").string();
          reports::prepare_output_dir(rows_dir, "--out");
          std::ostringstream text;
          gpu::write_dot_rows(r, text);
          reports::write_file_atomically((fs::path(rows_dir) / (v.job + ".rows")).string(), text.str(), "--out");
        }
        if (gpu::is_fprev_result(r)) {
          try {
            trees.push_back(gpu::fprev_tree(r));
          } catch (const std::invalid_argument& e) {
            throw Error(file, e.what());
          }
        }
        dot_results[{r.get("device"), v.kernel}].push_back(std::move(r));
        ++rows;
      } else if (v.agrees()) ++agree;
      else ++differ;
    }
    const auto mma = judge_mma(dot_results, *o, trees);
    for (const auto& v : mma) report += gpu::to_string(v);
    int trees_match = 0, trees_missed = 0;
    for (const auto& t : trees) {
      const std::string text = gpu::to_string(t);
      std::printf("%s", text.c_str());
      report += text;
      if (t.matches()) ++trees_match;
      else if (!t.expected.empty()) ++trees_missed;  // no expected tree: recorded, not judged
    }
    int mma_expected = 0, mma_other = 0, mma_none = 0;
    for (const auto& v : mma) (v.matches_expected() ? mma_expected : v.best_exact() ? mma_other : mma_none)++;
    const std::string summary =
        std::to_string(agree) + " agree with emu, " + std::to_string(differ) + " differ, " + std::to_string(rows) +
        " MMA results (" + std::to_string(mma.size()) + " kernels: " + std::to_string(mma_expected) +
        " match the expected preset, " + std::to_string(mma_other) + " another preset, " + std::to_string(mma_none) +
        " no preset), " + std::to_string(trees.size()) + " summation trees (" + std::to_string(trees_match) +
        " as expected, " + std::to_string(trees_missed) + " differ), " + std::to_string(not_run) + " not run";
    std::printf("%s\n", summary.c_str());
    if (!o->out.empty()) {
      reports::write_file_atomically((fs::path(o->out) / "verdicts.txt").string(), report + summary + "\n", "--out");
    }
    // A kernel that a preset should model and does not, or whose summation tree is not the
    // expected model's, is a finding: exit 1, like a conversion.
    bool mma_missed = false;
    for (const auto& v : mma) mma_missed |= !v.expected.empty() && !v.matches_expected();
    return differ || mma_missed || trees_missed ? 1 : 0;
  }});
}

}  // namespace fpconform::cli
