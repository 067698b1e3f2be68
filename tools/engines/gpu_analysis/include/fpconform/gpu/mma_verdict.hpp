// Bit-exact verdicts of MMA (dot) results against the emu matrix-unit presets: every NVIDIA preset
// that has a model for the kernel's formats is run on the recorded rows; the verdict names the
// preset(s) the kernel should match on its compute capability, how many rows each preset
// reproduces, the best one, and, when no preset reproduces every row, the model the passive fit
// (tools/engines/characterize fit.hpp) proposes. Results of one kernel are judged together (all jobs).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"
#include "fpconform/gpu/result.hpp"

namespace fpconform::gpu {

// The presets a dot kernel should match on a device of compute capability cc: mma.sync is
// ampere (sm_80..88), ada (sm_89), hopper-mma (sm_90), blackwell-mma (sm_100..119),
// rtx-blackwell (sm_120+); wgmma is hopper-wgmma; cuBLASLt with fast accumulation is the fused
// preset of the architecture chained over k. Empty when no preset models the kernel (split-K,
// cuBLASLt with promotion).
std::vector<std::string> expected_presets(const KernelInfo& k, int cc);

// The kernel's formats as emu names them: tf32 kernels are fed f32 codes, modelled as tf32.
Format dot_in_format(const KernelInfo& k);
Format dot_out_format(const KernelInfo& k);

// The rows of a dot result with raw outputs (inputs regenerated from the header, tf32 codes
// reduced to their top 19 bits). Throws std::invalid_argument for other results.
std::vector<characterize::DotCase> dot_result_rows(const Result& r);

struct PresetAgreement {
  std::string preset;
  std::string spec;     // model_spec of its parameters
  std::string same_as;  // an earlier preset with identical parameters, else empty
  bool expected = false;
  std::uint64_t agreed = 0;
};

struct MmaOptions {
  std::uint64_t max_digest_chunks = 64;  // digests of generated jobs checked against the best preset
  bool fit = true;                       // run the passive fit when no preset matches every row
  std::size_t fit_rows = 2000;           // rows given to the fit (failing rows of the best preset first)
  unsigned threads = 1;
};

struct MmaVerdict {
  std::string kernel, device, cc;
  std::vector<std::string> jobs;
  Format in, out;
  std::vector<std::string> expected;        // expected_presets
  std::vector<std::string> expected_missing;  // expected presets with no model for these formats
  std::string composition;  // how the kernel composes each preset's unit over k ("" none)
  std::uint64_t rows = 0;
  std::vector<PresetAgreement> presets;     // listing order
  std::string best;                         // most rows (ties: expected first, then listing order)
  std::uint64_t best_agreed = 0;
  std::uint64_t digest_chunks = 0, digest_mismatched = 0;  // vs the best preset
  std::vector<characterize::DotCase> counterexamples;      // of the best preset, up to 8
  // passive fit (when the best preset misses rows)
  bool fitted = false;
  std::size_t fit_rows = 0, fit_matching = 0;  // rows given, parameter sets reproducing them
  std::string fit_spec;                        // the fit's answer ("" none)
  std::uint64_t fit_agreed = 0;                // of the fit's answer, on all rows
  // Whether an expected preset reproduces every row and every checked digest.
  bool matches_expected() const;
  // Whether the best preset reproduces every row and digest.
  bool best_exact() const { return rows > 0 && best_agreed == rows && digest_mismatched == 0; }
};

// Judges the results of one dot kernel (all with that kernel and status ok). Throws
// std::invalid_argument naming the job on malformed results.
MmaVerdict mma_verdict(std::span<const Result> results, const MmaOptions& o = {});

// One paragraph: what matched, what did not, what the fit proposes.
std::string verdict_sentence(const MmaVerdict& v);
// The per-preset table and the sentence, as printed by gpu-analyze.
std::string to_string(const MmaVerdict& v);

// The verdict as a Characterization, for reports::write_device_profile (schema
// fpconform.device-profile/1): target "cuda:<kernel>", the model the rows support (the best
// preset when exact, else the fit's answer, else the best preset), validation = the rows,
// evidence = one entry per preset and one for the fit.
characterize::Characterization mma_characterization(const MmaVerdict& v);

// The Markdown summary of a device's MMA verdicts (mma.md): one table row per kernel, then each
// verdict's sentence.
std::string mma_summary_markdown(std::span<const MmaVerdict> verdicts);

// A folder name for a device ("NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"):
// lower case, runs of anything but [a-z0-9.] made one '-', no leading '-' or '.', no trailing '-'.
std::string device_folder_name(std::string_view device);

}  // namespace fpconform::gpu
