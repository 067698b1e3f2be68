// fpconform-gpu-run: runs GPU probe plans and writes one result file per job.
// Needs the CUDA runtime and the C++ standard library only; analysis happens on the CPU side.
// Exit: 0 all jobs ok or unsupported on this device, 1 some job failed, 2 bad usage or plan,
// 3 no usable GPU.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../kernels/registry.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"
#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"
#include "run_job.hpp"

namespace gpu = fpconform::gpu;

namespace {

constexpr const char* kUsage =
    "usage: fpconform-gpu-run [--out DIR] [--only JOB[,JOB...]] PLAN...\n"
    "       fpconform-gpu-run --check PLAN...   (parse and validate plans, no GPU needed)\n"
    "       fpconform-gpu-run --list            (kernels this runner has)\n";

void list_kernels() {
  std::printf("%-36s %-8s %-6s %-6s %-5s %3s %-6s  %s\n", "kernel", "kind", "in", "out", "c", "k", "cc", "instruction");
  for (const auto& k : gpu::kernel_catalog()) {
    const bool built = gpu::cuda::find_cuda_kernel(std::string(k.name).c_str()) != nullptr;
    std::printf("%-36s %-8s %-6s %-6s %-5s %3d %-6s  %s%s\n", std::string(k.name).c_str(),
                std::string(gpu::to_string(k.kind)).c_str(), std::string(k.in_format).c_str(),
                std::string(k.out_format).c_str(), k.c_format.empty() ? "-" : std::string(k.c_format).c_str(), k.k,
                (std::to_string(k.min_cc) + (k.arch_specific ? "a" : "+")).c_str(), std::string(k.ptx).c_str(),
                built ? "" : "  [not built]");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir = ".";
  std::set<std::string> only;
  std::vector<std::string> plan_files;
  bool check_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list") {
      list_kernels();
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--check") {
      check_only = true;
    } else if (a == "--out" || a == "--only") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fpconform-gpu-run: %s needs a value\n%s", a.c_str(), kUsage);
        return 2;
      }
      const std::string v = argv[++i];
      if (a == "--out") out_dir = v;
      else {
        std::stringstream s(v);
        for (std::string j; std::getline(s, j, ',');) only.insert(j);
      }
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "fpconform-gpu-run: unknown option '%s'\n%s", a.c_str(), kUsage);
      return 2;
    } else {
      plan_files.push_back(a);
    }
  }
  if (plan_files.empty()) {
    std::fprintf(stderr, "fpconform-gpu-run: no plan file given\n%s", kUsage);
    return 2;
  }
  // Every plan is read and checked before anything runs: a bad plan costs no GPU time.
  std::vector<gpu::Plan> plans;
  std::size_t jobs = 0;
  for (const auto& f : plan_files) {
    try {
      plans.push_back(gpu::read_plan_file(f));
    } catch (const gpu::FileError& e) {
      std::fprintf(stderr, "fpconform-gpu-run: %s\n", e.what());
      return 2;
    }
    for (const auto& j : plans.back().jobs) jobs += only.empty() || only.count(j.name);
  }
  if (check_only) {
    std::printf("%zu plan(s), %zu job(s): ok\n", plans.size(), jobs);
    return 0;
  }
  gpu::runner::DeviceInfo device;
  if (const std::string why = gpu::runner::probe_device(device); !why.empty()) {
    std::fprintf(stderr, "fpconform-gpu-run: no usable CUDA GPU here (%s); nothing was run\n", why.c_str());
    return 3;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "fpconform-gpu-run: %s: cannot create output folder: %s\n", out_dir.c_str(), ec.message().c_str());
    return 2;
  }
  std::printf("device: %s, cc %d, %d SMs, driver %d, runtime %d\n", device.name.c_str(), device.cc, device.sm_count,
              device.driver_version, device.runtime_version);
  std::fflush(stdout);
  int ok = 0, unsupported = 0, failed = 0;
  std::size_t n = 0;
  for (const auto& plan : plans) {
    for (const auto& job : plan.jobs) {
      if (!only.empty() && !only.count(job.name)) continue;
      ++n;
      const gpu::Result r = gpu::runner::run_job(job, device, plan.source);
      const std::string status = r.get("status");
      const std::string path = (std::filesystem::path(out_dir) / (job.name + ".res")).string();
      try {
        gpu::write_result_file(r, path);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "fpconform-gpu-run: %s\n", e.what());
        ++failed;
        continue;
      }
      if (status == "ok") ++ok;
      else if (status.rfind("unsupported", 0) == 0) ++unsupported;
      else ++failed;
      std::printf("[%zu/%zu] %-40s %-36s %s (%s cases, %s s)\n", n, jobs, job.name.c_str(), job.kernel.c_str(),
                  status.c_str(), r.get("cases").c_str(), r.get("seconds").empty() ? "0" : r.get("seconds").c_str());
      std::fflush(stdout);
    }
  }
  std::printf("summary: %d ok, %d unsupported on this device, %d failed, of %zu job(s); results in %s\n", ok, unsupported,
              failed, n, out_dir.c_str());
  return failed ? 1 : 0;
}
