// Turns the recorded tensor-core dumps (suites/data/tensorcore-dumps, Khattak & Mikaitis) into
// result files as fpconform-gpu-run would write them for the matching catalog kernel: a stand-in
// for real GPU output while no GPU is at hand. usage: dumps_to_results DUMPS_ROOT OUT_DIR
//
// Rows shorter than the kernel's k (A100 fp16/bf16: K = 8 for k = 16; tf32: K = 4 for k = 8) get
// +0 products appended: a block of zero products after the real ones adds nothing to the
// accumulated value (it is exact in the accumulator), so every model of the family gives the
// same D. Which instruction recorded the rows is not in the dumps: H100 fp8 rows with f32
// output (recorded with C = 0) are taken as wgmma, as the dumps' README says; fp8 rows with f16
// output as fp8 mma.sync (ptxas's HMMA emulation, preset hopper-mma); the rest as mma.sync.
#include <cstdio>
#include <filesystem>
#include <string>

#include "fpconform/characterize/rows.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"
#include "fpconform/gpu/result.hpp"

using namespace fpconform;

namespace {

struct Dump {
  const char* gpu;
  const char* folder;  // under the gpu's folder
  const char* out;     // output format
  bool c_zero;
  const char* kernel;
  int cc;
};

constexpr Dump kDumps[] = {
    {"A100", "fp16", "f32", false, "mma_m16n8k16_f32_f16", 80},
    {"A100", "fp16", "f16", false, "mma_m16n8k16_f16_f16", 80},
    {"A100", "bf16", "f32", false, "mma_m16n8k16_f32_bf16", 80},
    {"A100", "tf32", "f32", false, "mma_m16n8k8_f32_tf32", 80},
    {"H100", "fp16", "f32", false, "mma_m16n8k16_f32_f16", 90},
    {"H100", "fp16", "f16", false, "mma_m16n8k16_f16_f16", 90},
    {"H100", "bf16", "f32", false, "mma_m16n8k16_f32_bf16", 90},
    {"H100", "tf32", "f32", false, "mma_m16n8k8_f32_tf32", 90},
    {"H100", "E4M3", "f32", true, "wgmma_m64n8k32_f32_e4m3", 90},
    {"H100", "E4M3", "f16", false, "mma_m16n8k32_f16_e4m3", 90},
    {"H100", "E5M2", "f32", true, "wgmma_m64n8k32_f32_e5m2", 90},
    {"H100", "E5M2", "f16", false, "mma_m16n8k32_f16_e5m2", 90},
};

void convert(const std::string& root, const std::string& out_dir, const Dump& d) {
  characterize::RowsOptions o;
  o.out = d.out;
  o.c_zero = d.c_zero;
  const std::string dir = root + "/" + d.gpu + "/" + d.folder;
  const auto rows = characterize::read_rows(dir, o);
  const gpu::KernelInfo& k = *gpu::find_kernel(d.kernel);
  const int shift = rows.in.name == "tf32" ? 13 : 0;  // the kernel takes f32 containers
  gpu::Result r;
  const std::string job = std::string("dumps.") + d.gpu + "." + d.folder + "." + d.out;
  r.header = {{"job", job},
              {"kernel", d.kernel},
              {"input", "explicit"},
              {"status", "ok"},
              {"device", std::string("NVIDIA ") + d.gpu + " (tensor-core dumps)"},
              {"cc", std::to_string(d.cc)},
              {"instruction", std::string(k.ptx)},
              {"plan", "tensorcore-dumps/" + std::string(d.gpu) + "/" + d.folder}};
  auto& in = r.add_block(gpu::kBlockInputs, 4).data;
  auto& out = r.add_block(gpu::kBlockOutputs, 4).data;
  for (const auto& c : rows.cases) {
    if (c.a.size() > static_cast<std::size_t>(k.k))
      throw Error(dir, "rows of K = " + std::to_string(c.a.size()) + " exceed the kernel's k = " + std::to_string(k.k));
    for (int j = 0; j < k.k; ++j) in.push_back(j < static_cast<int>(c.a.size()) ? c.a[j] << shift : 0);
    for (int j = 0; j < k.k; ++j) in.push_back(j < static_cast<int>(c.b.size()) ? c.b[j] << shift : 0);
    in.push_back(c.c);
    out.push_back(c.d);
  }
  r.header["cases"] = std::to_string(rows.cases.size());
  const std::string folder = out_dir + "/" + d.gpu;
  std::filesystem::create_directories(folder);
  gpu::write_result_file(r, folder + "/" + job + ".res");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: dumps_to_results DUMPS_ROOT OUT_DIR\n");
    return 2;
  }
  try {
    for (const auto& d : kDumps) convert(argv[1], argv[2], d);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dumps_to_results: %s\n", e.what());
    return 2;
  }
  return 0;
}
