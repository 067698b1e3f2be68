// Answers the explicit dot jobs of a plan with emu, as fpconform-gpu-run would on a device that
// computes what the kernel's expected preset on CC says (split-K kernels: four slices of the
// mma.sync preset reduced pairwise, the kernel's definition), for tests without a GPU: fprev.plan
// end to end (gpu-analyze must find every expected summation tree) and the probe engine's
// offline rounds. Jobs of kernels with no expected preset for their formats are skipped (named).
// usage: plan_emu_results PLAN CC DIR
#include <cstdio>
#include <string>

#include "fpconform/characterize/target.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gpu/mma_verdict.hpp"
#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"

using namespace fpconform;
using namespace fpconform::gpu;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: plan_emu_results PLAN CC DIR\n");
    return 2;
  }
  const Plan plan = read_plan_file(argv[1]);
  const int cc = std::stoi(argv[2]);
  for (const Job& job : plan.jobs) {
    const KernelInfo& k = *find_kernel(job.kernel);
    if (k.kind != KernelKind::dot || job.input != InputMode::explicit_cases) continue;
    const std::string name(k.name);
    const bool splitk = name.rfind("splitk", 0) == 0;
    const KernelInfo* unit_kernel = splitk ? find_kernel("mma_m16n8k16_f32_f16") : &k;
    const auto presets = expected_presets(*unit_kernel, cc);
    const Format in = dot_in_format(k), out = dot_out_format(k);
    FdpaParams p;
    try {
      if (presets.empty()) throw Error(name, "no expected preset");
      p = parse_model(presets[0], in, out);
    } catch (const Error& e) {
      std::printf("skipped %s: %s\n", job.name.c_str(), e.what());
      continue;
    }
    characterize::EmuTarget unit("emu:" + presets[0], p, in, out, splitk ? 4 : 1, SplitReduction::pairwise);
    const int shift = k.in_format == "f32" ? 13 : 0;  // tf32: the unit reads the top 19 bits
    characterize::DotBatch batch;
    batch.k = k.k;
    for (const auto& c : job.cases) {
      std::vector<std::uint64_t> a, b;
      for (int j = 0; j < k.k; ++j) a.push_back(c[j] >> shift), b.push_back(c[k.k + j] >> shift);
      batch.add(a, b, c[2 * k.k]);
    }
    const auto d = unit.run(batch);
    Result r;
    r.header = {{"job", job.name},  {"kernel", name},        {"input", "explicit"}, {"status", "ok"},
                {"device", "emu"},  {"cc", std::to_string(cc)}, {"instruction", std::string(k.ptx)}};
    auto& ins = r.add_block(kBlockInputs, 4).data;
    for (const auto& c : job.cases) ins.insert(ins.end(), c.begin(), c.end());
    auto& outs = r.add_block(kBlockOutputs, 4).data;
    outs.assign(d.begin(), d.end());
    write_result_file(r, std::string(argv[3]) + "/" + job.name + ".res");
    std::printf("wrote %s (%s)\n", job.name.c_str(), presets[0].c_str());
  }
  return 0;
}
