// cuda:<kernel> targets, offline half (cuda_target.hpp): answers from recorded results, a
// stand-in preset for the rest, and the next round's plan. The local runner is
// cuda_target_local.cpp.
#include "fpconform/characterize/cuda_target.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fpconform/core/error.hpp"
#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"

namespace fpconform::characterize {

namespace fs = std::filesystem;

std::vector<std::string> cuda_expected_presets(const gpu::KernelInfo& k, int cc) {
  const std::string_view ptx = k.ptx;
  const auto starts = [&](std::string_view p) { return ptx.substr(0, p.size()) == p; };
  if (starts("mma.sync") || k.name.substr(0, 6) == "splitk") {
    if (cc >= 80 && cc < 89) return {"ampere"};
    if (cc == 89) return {"ada"};
    if (cc >= 90 && cc < 100) return {"hopper-mma"};
    if (cc >= 100 && cc < 120) return {"blackwell-mma"};
    if (cc >= 120) return {"rtx-blackwell"};
    return {};
  }
  if (starts("wgmma")) return cc >= 90 && cc < 100 ? std::vector<std::string>{"hopper-wgmma"} : std::vector<std::string>{};
  if (k.name.substr(0, 8) == "cublaslt") {
    if (cc == 89) return {"ada"};
    if (cc >= 90 && cc < 100) return {"hopper"};
  }
  return {};
}

KernelComposition cuda_kernel_composition(const gpu::KernelInfo& k) {
  KernelComposition c;
  const std::string_view name = k.name;
  if (name.substr(0, 6) == "splitk") {
    c.split_k = std::stoi(std::string(name.substr(6)));  // splitk<S>_k<K>_...
  } else if (name.substr(0, 8) == "cublaslt") {
    c.c_in_epilogue = true;
    // fast accumulation: one chain over all of k; else promotion every 128 products
    if (name.find("fast_accum") == std::string_view::npos) c.promote_every = 128;
  }
  return c;
}

std::string KernelComposition::text() const {
  std::string t;
  const auto add = [&](const std::string& s) { t += (t.empty() ? "" : ", ") + s; };
  if (split_k > 1) add("split-k=" + std::to_string(split_k) + " pairwise, C last");
  if (promote_every > 0) add("promotion to f32 every " + std::to_string(promote_every));
  if (c_in_epilogue) add("C in the epilogue");
  return t;
}

namespace {

Format kernel_in(const gpu::KernelInfo& k) {
  return parse_format(k.in_format == "f32" ? "tf32" : std::string(k.in_format));
}

}  // namespace

CudaTarget::CudaTarget(std::string_view spec, const CudaTargetOptions& options, const Format* in,
                       const Format* out, std::string_view what)
    : name_(spec), options_(options) {
  const std::string where(what);
  const std::string kernel(spec.substr(5));
  kernel_ = gpu::find_kernel(kernel);
  if (!kernel_ || kernel_->kind != gpu::KernelKind::dot) {
    std::string dots;
    for (const auto& k : gpu::kernel_catalog())
      if (k.kind == gpu::KernelKind::dot) dots += (dots.empty() ? "" : ", ") + std::string(k.name);
    throw Error(where, "'" + kernel + "' is not a dot kernel of the GPU probe catalog (" + dots + ")");
  }
  in_ = kernel_in(*kernel_);
  out_ = parse_format(std::string(kernel_->out_format));
  if ((in && in->name != in_.name) || (out && out->name != out_.name))
    throw Error(where, name_ + " computes " + in_.name + " -> " + out_.name + "; --in/--out say otherwise");
  if (!options_.offline()) {
    if (options_.runner.empty())
      if (const char* env = std::getenv("FPCONFORM_GPU_RUNNER")) options_.runner = env;
    return;
  }
  if (!options_.results.empty()) read_results(options_.results, "--results");
  const int cc = options_.cc ? options_.cc : 90;
  std::vector<std::string> candidates;
  if (!options_.stand_in.empty()) candidates = {options_.stand_in};
  else {
    candidates = cuda_expected_presets(*kernel_, cc);
    // the expected preset may have no model for these formats (fp8 mma.sync with f32 output on
    // sm_90): then the architecture's fused preset
    for (const char* p : {"hopper", "ada", "ampere", "blackwell"}) candidates.emplace_back(p);
  }
  for (const auto& p : candidates) {
    try {
      stand_in_target_ = make_target("emu:" + p, &in_, &out_, "--stand-in");
      stand_in_name_ = p;
      break;
    } catch (const Error& e) {
      if (!options_.stand_in.empty()) throw;
    }
  }
  if (!stand_in_target_) throw Error(where, "no preset models " + in_.name + " -> " + out_.name + " as a stand-in");
}

CudaTarget::~CudaTarget() = default;

void CudaTarget::read_results(const std::string& dir, std::string_view what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(std::string(what), dir + ": no such folder");
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".res") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  const int per = 2 * kernel_->k + 1;
  for (const auto& f : files) {
    gpu::Result r;
    try {
      r = gpu::read_result_file(f);
    } catch (const gpu::FileError& e) {
      throw Error(f, e.what());
    }
    if (r.get("kernel") != kernel_->name || r.get("input") != "explicit" || r.get("status") != "ok") continue;
    const gpu::ResultBlock* inputs = r.block(gpu::kBlockInputs);
    const gpu::ResultBlock* outputs = r.block(gpu::kBlockOutputs);
    if (!inputs || !outputs || inputs->data.size() != outputs->data.size() * per)
      throw Error(f, "inputs and outputs blocks do not match " + std::to_string(per) + " codes per case");
    for (std::size_t i = 0; i < outputs->data.size(); ++i) {
      std::vector<std::uint32_t> key(inputs->data.begin() + i * per, inputs->data.begin() + (i + 1) * per);
      recorded_[std::move(key)] = static_cast<std::uint32_t>(outputs->data[i]);
    }
    if (options_.cc == 0) options_.cc = std::atoi(r.get("cc").c_str());
    ++results_read_;
  }
}

// The row as the runner takes it: a, b, c codes (tf32 as the f32 container's top 19 bits).
std::vector<std::uint32_t> CudaTarget::row_codes(const DotBatch& batch, std::size_t r) const {
  const int shift = kernel_->in_format == "f32" ? 13 : 0;
  const auto k = static_cast<std::size_t>(batch.k);
  std::vector<std::uint32_t> codes;
  codes.reserve(2 * k + 1);
  for (std::size_t i = 0; i < k; ++i) codes.push_back(static_cast<std::uint32_t>(batch.a[r * k + i] << shift));
  for (std::size_t i = 0; i < k; ++i) codes.push_back(static_cast<std::uint32_t>(batch.b[r * k + i] << shift));
  codes.push_back(static_cast<std::uint32_t>(batch.c[r]));
  return codes;
}

std::vector<std::uint64_t> CudaTarget::run(const DotBatch& batch) {
  check_batch(batch);
  if (!options_.offline()) return run_local(batch);
  std::vector<std::uint64_t> d = stand_in_target_->run(batch);
  for (std::size_t r = 0; r < batch.rows(); ++r) {
    auto key = row_codes(batch, r);
    if (const auto it = recorded_.find(key); it != recorded_.end()) {
      d[r] = it->second;
      ++recorded_answers_;
    } else if (pending_seen_.emplace(key, true).second) {
      pending_order_.push_back(std::move(key));
    }
  }
  count(batch.rows());
  return d;
}

std::string CudaTarget::write_next_round() const {
  if (pending_order_.empty()) return {};
  if (options_.plan_out.empty())
    throw Error("--plan-out", "needed: " + std::to_string(pending()) + " rows were not recorded");
  std::error_code ec;
  fs::create_directories(options_.plan_out, ec);
  int round = 1;
  // symlink_status: a dangling link named like a plan is taken, not written through.
  while (fs::exists(fs::symlink_status(fs::path(options_.plan_out) / ("round-" + std::to_string(round) + ".plan"))))
    ++round;
  gpu::Plan plan;
  constexpr std::size_t kRowsPerJob = 4096;  // results stay small; a failed job loses little
  for (std::size_t first = 0; first < pending_order_.size(); first += kRowsPerJob) {
    gpu::Job job;
    job.name = "round" + std::to_string(round) + "." + std::string(kernel_->name) + "." +
               std::to_string(first / kRowsPerJob);
    job.kernel = std::string(kernel_->name);
    job.input = gpu::InputMode::explicit_cases;
    const std::size_t last = std::min(pending_order_.size(), first + kRowsPerJob);
    job.cases.assign(pending_order_.begin() + static_cast<std::ptrdiff_t>(first),
                     pending_order_.begin() + static_cast<std::ptrdiff_t>(last));
    plan.jobs.push_back(std::move(job));
  }
  const fs::path path = fs::path(options_.plan_out) / ("round-" + std::to_string(round) + ".plan");
  std::string text = gpu::write_plan(plan);  // the first line must stay the plan header
  text.insert(text.find('\n') + 1, "# " + name_ + ": round " + std::to_string(round) + ", " +
                                       std::to_string(pending()) + " rows the characterization asked that " +
                                       (options_.results.empty() ? "no results answer yet"
                                                                 : "the results in " + options_.results + " lack") +
                                       "\n");
  std::ofstream f(path);
  f << text;
  if (!f) throw Error(options_.plan_out, "cannot write " + path.string());
  return path.string();
}

std::unique_ptr<CudaTarget> make_cuda_target(std::string_view spec, const Format* in, const Format* out,
                                         std::string_view what, const CudaTargetOptions& options) {
  return std::make_unique<CudaTarget>(spec, options, in, out, what);
}

}  // namespace fpconform::characterize
