// A generated dot result as fpconform-gpu-run would write it, with every output computed by an
// emu model instead of a GPU: the verdict on it is known by construction (the model's preset).
#pragma once
#include <string>

#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gpu/analysis.hpp"
#include "fpconform/gpu/cases.hpp"
#include "fpconform/gpu/mma_verdict.hpp"

namespace fpconform::gpu::testing {

// `count` generated cases (seed, one distribution for a, b and c), raw outputs of the first
// `raw`, digests of chunks of 2^8 cases, all computed with `model` (as --model takes it).
inline Result synthetic_dot_result(const std::string& job, const std::string& kernel, int cc,
                                   const std::string& model, std::uint64_t count, std::uint64_t raw,
                                   std::uint64_t seed, const std::string& dist,
                                   const std::string& device = "synthetic (emu)") {
  const KernelInfo& k = *find_kernel(kernel);
  Result r;
  r.header = {{"job", job},          {"kernel", kernel},   {"input", "generated"},
              {"status", "ok"},      {"device", device},   {"cc", std::to_string(cc)},
              {"instruction", std::string(k.ptx)}, {"cases", std::to_string(count)},
              {"seed", std::to_string(seed)},       {"dist_a", dist}, {"dist_b", dist},
              {"dist_c", dist},      {"chunk_log2", "8"},  {"raw_count", std::to_string(raw)}};
  const auto inputs = job_inputs(job_from_header(r), k);
  const Format in = dot_in_format(k), out = dot_out_format(k);
  const FdpaKernel unit(parse_model(model, in, out), in, out);
  const int shift = k.in_format == "f32" ? 13 : 0;  // tf32: the unit reads the top 19 bits
  const std::size_t per = 2 * k.k + 1;
  std::vector<std::uint32_t> outputs(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::vector<std::uint64_t> a, b;
    for (int j = 0; j < k.k; ++j) a.push_back(inputs[i * per + j] >> shift);
    for (int j = 0; j < k.k; ++j) b.push_back(inputs[i * per + k.k + j] >> shift);
    outputs[i] = static_cast<std::uint32_t>(unit.dot(a, b, inputs[i * per + 2 * k.k]));
  }
  auto& o = r.add_block(kBlockOutputs, 4).data;
  o.assign(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(raw));
  auto& d = r.add_block(kBlockDigests, 8).data;
  for (auto x : chunk_digests(outputs, 8)) d.push_back(x);
  return r;
}

}  // namespace fpconform::gpu::testing
