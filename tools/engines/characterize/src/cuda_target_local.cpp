// cuda:<kernel> targets, local half: each batch becomes an explicit-case plan that the runner
// (fpconform-gpu-run) executes on this machine's GPU; its result file is the answer. The runner's
// exit codes (gpu_probes/README.md): 0 ok or unsupported, 1 a job failed, 2 bad plan, 3 no GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "fpconform/characterize/cuda_target.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"

namespace fpconform::characterize {

namespace fs = std::filesystem;

struct CudaTarget::Local {
  fs::path dir;               // scratch folder for plans and results
  std::uint64_t jobs = 0;
  bool tried = false;         // the trial run is done
  std::string why_not;        // its finding ("" = runs)
  ~Local() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

namespace {

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string last_lines(const fs::path& log) {
  std::ifstream f(log);
  std::string line, last, before;
  while (std::getline(f, line))
    if (!line.empty()) before = std::exchange(last, line);
  return before.empty() ? last : before + " / " + last;
}

struct RunnerAnswer {
  int exit = 0;
  std::string log;            // the runner's last lines
  gpu::Result result;         // when exit == 0
};

// One job through the runner: the plan, the run, the result file.
RunnerAnswer run_runner(const std::string& runner, const fs::path& dir, const gpu::Job& job) {
  gpu::Plan plan;
  plan.jobs.push_back(job);
  const fs::path plan_path = dir / (job.name + ".plan"), log = dir / (job.name + ".log");
  {
    std::ofstream f(plan_path);
    f << gpu::write_plan(plan);
    if (!f) throw Error(plan_path.string(), "cannot write the plan");
  }
  const std::string cmd = quoted(runner) + " --out " + quoted(dir.string()) + " " + quoted(plan_path.string()) +
                          " >" + quoted(log.string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  RunnerAnswer a;
  a.exit = status == -1 ? 127 : (WIFEXITED(status) ? WEXITSTATUS(status) : 128);
  a.log = last_lines(log);
  if (a.exit == 0) {
    try {
      a.result = gpu::read_result_file((dir / (job.name + ".res")).string());
    } catch (const gpu::FileError& e) {
      throw Error(runner, std::string("result unreadable: ") + e.what());
    }
  }
  return a;
}

}  // namespace

std::string CudaTarget::unavailable() const {
  if (options_.offline()) return {};
  if (options_.runner.empty())
    return "no GPU runner: set FPCONFORM_GPU_RUNNER or give --runner (fpconform-gpu-run), or plan offline "
           "with --plan-out/--results";
  if (::access(options_.runner.c_str(), X_OK) != 0) return "runner " + options_.runner + " is not executable";
  auto& self = const_cast<CudaTarget&>(*this);  // the trial run is cached, as the answer never changes
  if (!self.local_) {
    self.local_ = std::make_shared<Local>();
    std::string tmpl = (fs::temp_directory_path() / "fpconform-cuda-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return "cannot make a scratch folder under " + fs::temp_directory_path().string();
    self.local_->dir = tmpl;
  }
  Local& l = *self.local_;
  if (!l.tried) {
    l.tried = true;
    gpu::Job job;
    job.name = "trial";
    job.kernel = std::string(kernel_->name);
    job.input = gpu::InputMode::explicit_cases;
    job.cases.push_back(std::vector<std::uint32_t>(2 * kernel_->k + 1, 0));
    try {
      const RunnerAnswer a = run_runner(options_.runner, l.dir, job);
      if (a.exit == 3) l.why_not = "no GPU (runner exit 3: " + a.log + ")";
      else if (a.exit != 0) l.why_not = "the runner failed (exit " + std::to_string(a.exit) + ": " + a.log + ")";
      else if (a.result.get("status") != "ok") l.why_not = a.result.get("device") + ": " + a.result.get("status");
    } catch (const Error& e) {
      l.why_not = e.what();
    }
  }
  return l.why_not;
}

std::vector<std::uint64_t> CudaTarget::run_local(const DotBatch& batch) {
  Local& l = *local_;  // check_batch called unavailable(), which made it
  gpu::Job job;
  job.name = "q" + std::to_string(++l.jobs);
  job.kernel = std::string(kernel_->name);
  job.input = gpu::InputMode::explicit_cases;
  for (std::size_t r = 0; r < batch.rows(); ++r) job.cases.push_back(row_codes(batch, r));
  const RunnerAnswer a = run_runner(options_.runner, l.dir, job);
  if (a.exit != 0) throw Error(name_, "runner exit " + std::to_string(a.exit) + ": " + a.log);
  if (a.result.get("status") != "ok") throw Error(name_, a.result.get("status"));
  const gpu::ResultBlock* out = a.result.block(gpu::kBlockOutputs);
  if (!out || out->data.size() != batch.rows())
    throw Error(name_, "the runner answered " + std::to_string(out ? out->data.size() : 0) + " of " +
                           std::to_string(batch.rows()) + " rows");
  std::error_code ec;
  fs::remove(l.dir / (job.name + ".res"), ec);
  fs::remove(l.dir / (job.name + ".plan"), ec);
  count(batch.rows());
  return {out->data.begin(), out->data.end()};
}

}  // namespace fpconform::characterize
