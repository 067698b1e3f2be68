// The inputs of a job and the compact forms of its outputs, computed the same way on both sides:
// the runner (to feed the GPU and to pack what it returns) and the CPU analysis (to regenerate
// the inputs and to recompute digests and runs from emu's outputs). PLAN.md documents each rule.
#pragma once
#include <cstdint>
#include <vector>

#include "fpconform/core/format.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"
#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/splitmix.hpp"

namespace fpconform::gpu {

// Codes per case: convert 1, scalar arity, dot 2k+1 (a[0..k), b[0..k), c).
int operands_per_case(const KernelInfo& k);

// One code drawn from a distribution (PLAN.md "Generator").
std::uint32_t draw_code(SplitMix64& rng, const Format& f, const Distribution& d);

// All inputs of an explicit or generated job, case after case, operands_per_case codes each.
// Throws std::invalid_argument for a sweep (sweeps are enumerated, never stored).
std::vector<std::uint32_t> job_inputs(const Job& job, const KernelInfo& k);

// Inputs of case `index` of a sweep (scalar: operand i = bits [in_bits*(arity-1-i), ...) of index).
std::vector<std::uint32_t> sweep_case(const KernelInfo& k, std::uint64_t index);

// Digest of every 2^chunk_log2 consecutive outputs (the last chunk may be short).
// first_index: case index of outputs[0].
std::vector<std::uint64_t> chunk_digests(const std::vector<std::uint32_t>& outputs, int chunk_log2,
                                         std::uint64_t first_index = 0);

// The sample_chunks distinct chunk indices in [0, chunks) drawn with sample_seed, ascending.
std::vector<std::uint64_t> sample_chunk_indices(std::uint64_t chunks, std::uint64_t count,
                                                std::uint64_t seed);

struct Runs {
  std::vector<std::uint64_t> start, value;
};
// Run-length form of outputs over consecutive inputs first_input, first_input+1, ...
Runs run_length_encode(const std::vector<std::uint32_t>& outputs, std::uint64_t first_input = 0);
// Output for input x from runs (starts ascending, runs[0] at or below x).
std::uint32_t run_lookup(const Runs& runs, std::uint64_t x);

}  // namespace fpconform::gpu
