// CPU side of the GPU probes: compares result files with what emu says each kernel computes,
// and turns MMA results into recorded rows for `fpconform fit --rows`. Links emu; the runner
// never does.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fpconform/gpu/kernel_catalog.hpp"
#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"

namespace fpconform::gpu {

// emu's model of a convert or scalar kernel, as PTX and the CUDA headers document it (PLAN.md;
// rounding from the suffix, NVIDIA NaN rules, relu clamps negatives to +0, _sat clamps to
// [0, 1]). nullopt for dot kernels (fitted, not predicted) and for kernels without a model.
std::optional<std::uint32_t> expected_output(const KernelInfo& k, const std::uint32_t* operands);

struct Mismatch {
  std::vector<std::uint32_t> operands;
  std::uint32_t gpu = 0, emu = 0;
};

struct Verdict {
  std::string job, kernel, status;  // status: the result's (ok, unsupported: ..., error: ...)
  std::string method;               // what was compared
  std::uint64_t checked = 0, mismatched = 0;
  std::uint64_t digest_chunks = 0, digest_mismatched = 0;
  std::vector<Mismatch> examples;   // up to 8
  bool agrees() const { return status == "ok" && mismatched == 0 && digest_mismatched == 0; }
};

struct AnalysisOptions {
  std::uint64_t max_digest_chunks = 64;  // recompute at most this many digests per result
  std::uint64_t run_samples = 1u << 16;  // extra random inputs checked in a conversion sweep
};

// Throws std::invalid_argument when the result names an unknown kernel.
Verdict analyze_result(const Result& r, const AnalysisOptions& o = {});

// Writes a dot result's raw rows in the plain layout of tools/engines/characterize/ROWS.md (inputs
// regenerated from the plan fields in the header). tf32 inputs are written as 19-bit tf32
// codes (the f32 code's top 19 bits). Throws std::invalid_argument for other kinds.
void write_dot_rows(const Result& r, std::ostream& out);

std::string to_string(const Verdict& v);

// The job as the runner ran it, rebuilt from the result header through the plan parser
// (explicit jobs get one placeholder case: their cases are in the inputs block).
Job job_from_header(const Result& r);

}  // namespace fpconform::gpu
