// FPRev results as fpconform-gpu-run would write them for fprev.plan's jobs (rows laid out as
// plans/write_check_plans.sh writes them), outputs from an emu target whose tree is known.
#pragma once
#include <string>

#include "fpconform/characterize/target.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"
#include "fpconform/gpu/result.hpp"

namespace fpconform::gpu::testing {

using characterize::DotBatch;

// fprev.plan's rows for one kernel: all units; +M at i, -M at j (i < j); +M at i with C = -M.
// f16 kernels only; codes as in the plan's table: f16 M = 2^15 (products 2^30), unit 2^-14 (products 2^-28), C = -2^30 or 2^-28 in f32.
inline DotBatch fprev_rows(int k) {
  const std::uint64_t am = 0x7800, an = 0xF800, au = 0x0400, c_neg_m = 0xCE800000, c_u = 0x31800000;
  DotBatch batch;
  batch.k = k;
  auto row = [&](int i, int j, std::uint64_t c) {
    std::vector<std::uint64_t> a(k, au), b(k, au);
    for (int t : {i, j})
      if (t >= 0) a[t] = t == i ? am : an, b[t] = am;
    batch.add(a, b, c);
  };
  row(-1, -1, c_u);
  for (int i = 0; i < k; ++i) {
    for (int j = i + 1; j < k; ++j) row(i, j, c_u);
    row(i, -1, c_neg_m);
  }
  return batch;
}

// The result fpconform-gpu-run would write for fprev.<kernel>, outputs from `unit`.
inline Result fprev_result(const std::string& kernel, int cc, characterize::Target& unit, std::size_t drop_rows = 0) {
  const KernelInfo& k = *find_kernel(kernel);
  DotBatch batch = fprev_rows(k.k);
  const auto d = unit.run(batch);
  Result r;
  r.header = {{"job", "fprev." + kernel}, {"kernel", kernel}, {"input", "explicit"}, {"status", "ok"},
              {"device", "synthetic (emu)"}, {"cc", std::to_string(cc)}, {"instruction", std::string(k.ptx)}};
  auto& in = r.add_block(kBlockInputs, 4).data;
  auto& out = r.add_block(kBlockOutputs, 4).data;
  for (std::size_t row = drop_rows; row < batch.rows(); ++row) {
    in.insert(in.end(), batch.a.begin() + row * k.k, batch.a.begin() + (row + 1) * k.k);
    in.insert(in.end(), batch.b.begin() + row * k.k, batch.b.begin() + (row + 1) * k.k);
    in.push_back(batch.c[row]);
    out.push_back(d[row]);
  }
  return r;
}

}  // namespace fpconform::gpu::testing
