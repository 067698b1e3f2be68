// cuda:<kernel> targets: the dot kernels of the GPU probe catalog (gpu_probes, kernel_catalog)
// as black boxes of the characterization engine. A kernel computes rows of its own length k only
// (supports_k), in its formats (tf32 kernels: tf32 in, fed to the GPU as f32 containers).
//
// Two modes:
//  - local: a runner (fpconform-gpu-run; CudaTargetOptions::runner or $FPCONFORM_GPU_RUNNER) on a
//    machine with a GPU. Each run(batch) writes an explicit-case plan, runs the runner, and reads
//    its result. unavailable() says why not (no runner, runner exit 3 = no GPU, unsupported on the
//    device, ...), from one trial run of one row.
//  - offline (plan_out and/or results set): a CPU machine plans, a GPU machine executes. Every
//    row is answered from the recorded results (keyed by its exact codes: a, b, c) when there;
//    otherwise from a stand-in (the emu preset expected for the kernel on cc) and remembered as
//    pending. write_next_round() writes the pending rows as the next plan, so a GPU session runs
//    round after round until the adaptive characterization asks nothing that is not recorded.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/characterize/target.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"

namespace fpconform::characterize {

// The emu presets a dot kernel should match on a device of compute capability cc (major*10 +
// minor): mma.sync is ampere (sm_80..88), ada (sm_89), hopper-mma (sm_90), blackwell-mma
// (sm_100..119), rtx-blackwell (sm_120+); wgmma is hopper-wgmma; the split-K kernel is built of
// mma.sync and expects its preset; cuBLASLt's FP8 GEMM the fused preset of its architecture
// (ada, hopper). Each composed as cuda_kernel_composition says. Empty when no preset models
// the kernel on that architecture.
std::vector<std::string> cuda_expected_presets(const gpu::KernelInfo& k, int cc);

// How a dot kernel uses its matrix unit over k, in GemmOptions' terms (gemm.hpp). mma.sync and
// wgmma are the unit itself, chained over k. The split-K kernel (splitk.cu) computes S slices
// from zero and adds ((s0 + s1) + (s2 + s3)) + C. cuBLASLt's FP8 GEMM adds C in its epilogue,
// after one chain over all of k (fast accumulation) or after partial sums of 128 products
// promoted to an f32 accumulator (without): each reproduces all rows of an H200
// (reports/devices/nvidia-h200).
struct KernelComposition {
  int split_k = 1;          // pairwise reduction of the slices, C last
  int promote_every = 0;
  bool c_in_epilogue = false;
  bool composed() const { return split_k > 1 || promote_every > 0 || c_in_epilogue; }
  std::string text() const;  // "" when not composed
};
KernelComposition cuda_kernel_composition(const gpu::KernelInfo& k);

struct CudaTargetOptions {
  std::string runner;    // local mode: the runner; empty: $FPCONFORM_GPU_RUNNER
  std::string plan_out;  // offline: write the next round's plan (pending rows) here
  std::string results;   // offline: answer from the .res files under this folder
  int cc = 0;            // compute capability for the stand-in (0: from the results, else 90)
  std::string stand_in;  // offline: preset answering unrecorded rows (empty: the expected one)
  bool offline() const { return !plan_out.empty() || !results.empty(); }
};

class CudaTarget final : public Target {
 public:
  // Throws Error naming `what` for an unknown or non-dot kernel, formats that differ from the
  // kernel's, unreadable results, or a stand-in with no model for the formats.
  CudaTarget(std::string_view spec, const CudaTargetOptions& options, const Format* in,
             const Format* out, std::string_view what);
  ~CudaTarget() override;
  std::string name() const override { return name_; }
  std::string unavailable() const override;
  const Format& in() const override { return in_; }
  const Format& out() const override { return out_; }
  bool supports_k(int k) const override { return k == kernel_->k; }
  std::vector<std::uint64_t> run(const DotBatch& batch) override;

  // Offline: rows answered from results, rows answered by the stand-in (pending: distinct rows
  // not recorded), and the stand-in's name.
  std::uint64_t recorded_answers() const { return recorded_answers_; }
  std::size_t pending() const { return pending_order_.size(); }
  const std::string& stand_in() const { return stand_in_name_; }
  std::size_t results_read() const { return results_read_; }
  // Writes the pending rows as <plan_out>/round-<n>.plan (n = 1 + the rounds already there),
  // one explicit job per 4096 rows; returns its path ("" when nothing is pending). Throws Error
  // naming plan_out when it cannot write.
  std::string write_next_round() const;

 private:
  struct Local;
  std::vector<std::uint64_t> run_local(const DotBatch& batch);
  std::vector<std::uint32_t> row_codes(const DotBatch& batch, std::size_t r) const;
  void read_results(const std::string& dir, std::string_view what);

  std::string name_;
  const gpu::KernelInfo* kernel_;
  Format in_, out_;
  CudaTargetOptions options_;
  std::unique_ptr<Target> stand_in_target_;
  std::string stand_in_name_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> recorded_;  // row codes -> output code
  std::map<std::vector<std::uint32_t>, bool> pending_seen_;
  std::vector<std::vector<std::uint32_t>> pending_order_;         // in the order first asked
  std::uint64_t recorded_answers_ = 0;
  std::size_t results_read_ = 0;
  std::shared_ptr<Local> local_;  // shared_ptr: Local is complete only in cuda_target_local.cpp
};

// make_target's cuda: branch: local mode with $FPCONFORM_GPU_RUNNER (or offline with options).
std::unique_ptr<CudaTarget> make_cuda_target(std::string_view spec, const Format* in, const Format* out,
                                         std::string_view what,
                                         const CudaTargetOptions& options = {});

}  // namespace fpconform::characterize
