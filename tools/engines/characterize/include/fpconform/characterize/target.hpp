// Targets of the characterization engine: anything that computes batches of dot products
// D_r = sum_i a[r][i] * b[r][i] + c[r] with a in one format, b in the same or another (e4m3 x
// e5m2, fp6 x fp4), and C, D in a third. Emulated
// units (emu:PRESET, emu:custom:...), the x86 CPU's own matrix and FMA units (cpu:...), and,
// with the GPU probes, cuda:... kernels. Probes, the summation-order recovery and validation see
// only this interface, so a black box is characterized exactly like a model.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/fdpa.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/gemm.hpp"

namespace fpconform::characterize {

// `rows` dot products of length k: a and b are rows * k codes of the target's in() and in_b()
// (row-major), c holds rows codes of its out().
struct DotBatch {
  int k = 0;
  std::vector<std::uint64_t> a, b, c;
  std::size_t rows() const { return c.size(); }
  // Appends one row (a.size() == b.size() == k).
  void add(std::span<const std::uint64_t> row_a, std::span<const std::uint64_t> row_b,
           std::uint64_t row_c);
};

class Target {
 public:
  virtual ~Target() = default;
  // The spec it was made from ("emu:hopper", "cpu:amx-bf16").
  virtual std::string name() const = 0;
  // Empty when the target can run here; otherwise why not ("this CPU has no AMX-BF16").
  virtual std::string unavailable() const { return {}; }
  virtual const Format& in() const = 0;  // a's format
  virtual const Format& in_b() const { return in(); }
  virtual const Format& out() const = 0;  // C's and D's
  FdpaFormats formats() const { return {in(), in_b(), out(), out()}; }
  // Whether the target accepts dot products of length k (AMX: even k; most: any k >= 1).
  virtual bool supports_k(int k) const { return k >= 1; }
  // D codes, one per row. Throws Error when the batch is malformed or k is not supported.
  virtual std::vector<std::uint64_t> run(const DotBatch& batch) = 0;
  // Number of dot products evaluated so far (for reports: "characterized with N queries").
  std::uint64_t queries() const { return queries_; }

 protected:
  void count(std::size_t rows) { queries_ += rows; }
  void check_batch(const DotBatch& batch) const;  // sizes, supports_k; throws Error

 private:
  std::uint64_t queries_ = 0;
};

// An emulated unit: the model `unit` (fdpa, through FdpaKernel where it applies) over the whole
// k, or, with split_k > 1, k cut into split_k slices computed from +0 and reduced as `reduction`
// says before C is added (emu/gemm.hpp). `in_b`: b's format where it is not `in`.
class EmuTarget final : public Target {
 public:
  EmuTarget(std::string name, const FdpaParams& unit, const Format& in, const Format& out,
            int split_k = 1, SplitReduction reduction = SplitReduction::sequential,
            const Format* in_b = nullptr);
  std::string name() const override { return name_; }
  const Format& in() const override { return in_; }
  const Format& in_b() const override { return in_b_; }
  const Format& out() const override { return out_; }
  std::vector<std::uint64_t> run(const DotBatch& batch) override;
  const FdpaParams& unit() const { return unit_; }

 private:
  std::string name_;
  FdpaParams unit_;
  Format in_, in_b_, out_;
  int split_k_;
  SplitReduction reduction_;
};

// Makes a target from its spec:
//   emu:MODEL[@split-k=S[,reduction=sequential|pairwise]]  MODEL as `--model` takes it (a preset
//       or custom:key=value,...); in and out must be given (nullptr: f16 -> f32); in_b is b's
//       format (nullptr: in's).
//   cpu:fp32-fma      f32 -> f32, d = fma(a_k, b_k, ... fma(a_0, b_0, c)) with FMA3
//   cpu:avx512-fp16   f16 -> f16, the same chain with VFMADDSH
//   cpu:avx512-bf16   bf16 -> f32, VDPBF16PS over pairs (k even)
//   cpu:amx-bf16      bf16 -> f32, TDPBF16PS tiles (k even, chained per 32)
//   cuda:KERNEL       a dot kernel of the GPU probe catalog through $FPCONFORM_GPU_RUNNER
//                     (cuda_target.hpp; make_cuda_target for the offline plan/results mode)
// cpu and cuda targets have fixed formats; in/out, when given, must match them, and in_b, when
// given, in's. A cpu target is made even
// where the CPU lacks the feature: unavailable() says so and run() throws. Throws Error naming
// `what` for an unknown spec.
std::unique_ptr<Target> make_target(std::string_view spec, const Format* in = nullptr,
                                     const Format* out = nullptr,
                                     std::string_view what = "--target",
                                     const Format* in_b = nullptr);

// The cpu: targets this library knows, for listings.
std::vector<std::string> cpu_target_names();

}  // namespace fpconform::characterize
