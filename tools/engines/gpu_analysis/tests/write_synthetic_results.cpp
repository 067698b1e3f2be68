// Writes result files as fpconform-gpu-run would, with outputs from emu's models, for the
// gpu-analyze CLI test: agree.res (all agree), differ.res (one planted difference), mma.res
// (a dot result), hopper.res (fp8 wgmma rows made with the hopper preset: judged hopper-wgmma),
// custom.res (bf16 rows of a unit no preset models: the fit proposes one). With FPREV_DIR: the
// split-K kernel's FPRev rows made by ampere slices reduced pairwise (the kernel's documented tree)
// in FPREV_DIR/pairwise/ and sequentially in FPREV_DIR/sequential/, each with expected.tree, the
// tree expected_order gives for that model; FPREV_DIR/bad/ holds a result whose row is no FPRev row. usage: write_synthetic_results DIR [FPREV_DIR]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "fpconform/gpu/analysis.hpp"
#include "fpconform/gpu/result.hpp"
#include "fpconform/characterize/order.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "synthetic_dot.hpp"
#include "synthetic_fprev.hpp"

using namespace fpconform::gpu;

namespace {
Result explicit_result(const char* job, const char* kernel, const std::vector<std::vector<std::uint32_t>>& cases) {
  Result r;
  r.header = {{"job", job}, {"kernel", kernel}, {"input", "explicit"}, {"status", "ok"},
              {"device", "synthetic (emu)"}, {"cc", "90"}, {"instruction", find_kernel(kernel)->ptx.data()}};
  auto& in = r.add_block(kBlockInputs, 4).data;
  auto& out = r.add_block(kBlockOutputs, 4).data;
  for (const auto& c : cases) {
    in.insert(in.end(), c.begin(), c.end());
    const auto e = expected_output(*find_kernel(kernel), c.data());
    out.push_back(e ? *e : 0u);
  }
  return r;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: write_synthetic_results DIR [FPREV_DIR]\n");
    return 2;
  }
  const std::string dir = argv[1];
  write_result_file(explicit_result("agree", "cvt_f32_e4m3x2_rn_satfinite", {{0x3F800000}, {0x43FA0000}, {0x7FC00000}}),
                    dir + "/agree.res");
  Result d = explicit_result("differ", "bf16_hadd", {{0x3F80, 0x3F80}, {0x3F80, 0x3B80}});
  d.blocks[1].data[1] ^= 1;  // planted: one ulp off
  write_result_file(d, dir + "/differ.res");
  std::vector<std::uint32_t> row(33, 0);
  row[0] = 0x3C00;   // a0 = 1
  row[16] = 0x4000;  // b0 = 2
  Result m = explicit_result("mma", "mma_m16n8k16_f32_f16", {row});
  m.blocks[1].data[0] = 0x40000000;  // 2, as the unit would say
  write_result_file(m, dir + "/mma.res");
  write_result_file(testing::synthetic_dot_result("hopper", "wgmma_m64n8k32_f32_e4m3", 90, "hopper", 4096, 1024, 1,
                                                  "window:4"),
                    dir + "/hopper.res");
  write_result_file(testing::synthetic_dot_result("custom", "mma_m16n8k16_f32_bf16", 80,
                                                  "custom:base=ampere,frac_bits=20", 512, 512, 2, "window:4"),
                    dir + "/custom.res");
  if (argc == 3) {
    const fpconform::Format in = fpconform::parse_format("f16"), out = fpconform::parse_format("f32");
    const fpconform::FdpaParams p = fpconform::parse_model("ampere", in, out);
    for (auto reduction : {fpconform::SplitReduction::pairwise, fpconform::SplitReduction::sequential}) {
      const std::string sub =
          std::string(argv[2]) + (reduction == fpconform::SplitReduction::pairwise ? "/pairwise" : "/sequential");
      std::filesystem::create_directories(sub);
      fpconform::characterize::EmuTarget unit("emu:ampere", p, in, out, 4, reduction);
      write_result_file(testing::fprev_result("splitk4_k128_f32_f16", 80, unit), sub + "/fprev.splitk4_k128_f32_f16.res");
      std::ofstream(sub + "/expected.tree") << fpconform::characterize::expected_order(p, 128, 4, reduction).text() << "\n";
    }
    // FPREV_DIR/bad/: a row that is no FPRev row (a_0 of the all-units row made 1, beside units of 2^-14)
    std::filesystem::create_directories(std::string(argv[2]) + "/bad");
    fpconform::characterize::EmuTarget unit("emu:ampere", p, in, out);
    Result bad = testing::fprev_result("mma_m16n8k16_f32_f16", 80, unit);
    bad.blocks[0].data[0] = 0x3C00;
    write_result_file(bad, std::string(argv[2]) + "/bad/fprev.mma_m16n8k16_f32_f16.res");
  }
  return 0;
}
