#include "run_job.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "../kernels/registry.hpp"
#include "fpconform/gpu/cases.hpp"
#include "fpconform/gpu/kernel_catalog.hpp"

#ifndef FPCONFORM_GPU_ARCHS
#define FPCONFORM_GPU_ARCHS "unknown"
#endif

namespace fpconform::gpu::runner {

namespace {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// A device buffer freed on scope exit.
template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(std::size_t n) { check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

int width_of(int bits) { return bits <= 8 ? 1 : bits <= 16 ? 2 : 4; }

// Reads and clears the device's "compiled without this instruction" flag after a launch.
void finish(int* d_unsupported, const char* what) {
  check(cudaDeviceSynchronize(), what);
  int flag = 0;
  check(cudaMemcpy(&flag, d_unsupported, sizeof flag, cudaMemcpyDeviceToHost), "cudaMemcpy flag");
  if (flag) throw CudaError("the kernel image for this device lacks the instruction (built without its arch)");
}

// Explicit and generated jobs: inputs built on the host, outputs copied back whole.
std::vector<std::uint32_t> run_map(const cuda::CudaKernel& ck, const KernelInfo& k, const std::vector<std::uint32_t>& codes,
                                   std::uint64_t cases, int* d_unsupported) {
  const std::size_t per = static_cast<std::size_t>(operands_per_case(k));
  std::vector<std::uint32_t> out(cases);
  const std::uint64_t batch = std::max<std::uint64_t>(8, (std::uint64_t{1} << 28) / (per * 4));  // 1 GiB of codes
  DeviceBuffer<std::uint32_t> d_codes(std::min<std::uint64_t>(batch, cases) * per), d_out(std::min<std::uint64_t>(batch, cases));
  for (std::uint64_t first = 0; first < cases; first += batch) {
    const std::uint64_t n = std::min(batch, cases - first);
    check(cudaMemcpy(d_codes.p, codes.data() + first * per, n * per * 4, cudaMemcpyHostToDevice), "cudaMemcpy inputs");
    check(cudaMemset(d_out.p, 0xFF, n * 4), "cudaMemset outputs");
    check(ck.map(d_codes.p, d_out.p, n, d_unsupported), "kernel launch");
    finish(d_unsupported, "kernel");
    check(cudaMemcpy(out.data() + first, d_out.p, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy outputs");
  }
  return out;
}

void run_convert_sweep(const cuda::CudaKernel& ck, const KernelInfo& k, const Job& job, Result& r, int* d_unsupported) {
  const std::uint64_t count = std::uint64_t{1} << k.in_bits;
  const std::uint64_t capacity = std::min<std::uint64_t>(job.max_runs, std::uint64_t{1} << 26);
  DeviceBuffer<std::uint32_t> d_start(capacity), d_value(capacity);
  DeviceBuffer<unsigned long long> d_runs(1);
  check(cudaMemset(d_runs.p, 0, sizeof(unsigned long long)), "cudaMemset");
  check(ck.runs(count, d_start.p, d_value.p, d_runs.p, capacity, d_unsupported), "kernel launch");
  finish(d_unsupported, "kernel");
  unsigned long long runs = 0;
  check(cudaMemcpy(&runs, d_runs.p, sizeof runs, cudaMemcpyDeviceToHost), "cudaMemcpy runs");
  r.header["runs"] = std::to_string(runs);
  if (runs > capacity)
    throw CudaError("the sweep has " + std::to_string(runs) + " runs, more than max_runs " + std::to_string(capacity) +
                    "; sample it with input generated instead");
  std::vector<std::uint32_t> start(runs), value(runs);
  check(cudaMemcpy(start.data(), d_start.p, runs * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(value.data(), d_value.p, runs * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::vector<std::size_t> order(runs);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return start[a] < start[b]; });
  auto& bs = r.add_block(kBlockRunStart, 4);
  auto& bv = r.add_block(kBlockRunValue, width_of(k.out_bits));
  for (auto i : order) {
    bs.data.push_back(start[i]);
    bv.data.push_back(value[i]);
  }
}

void run_scalar_sweep(const cuda::CudaKernel& ck, const KernelInfo& k, const Job& job, Result& r, int* d_unsupported) {
  const std::uint64_t count = std::uint64_t{1} << (k.in_bits * k.arity);
  const int chunk_log2 = std::min<int>(job.chunk_log2, k.in_bits * k.arity);
  const std::uint64_t chunk = std::uint64_t{1} << chunk_log2, chunks = count >> chunk_log2;
  // Small sweeps come back whole; large ones as digests plus sampled chunks.
  const bool whole = count <= (std::uint64_t{1} << 22);
  std::vector<std::uint64_t> sampled;
  if (whole) {
    sampled.resize(chunks);
    std::iota(sampled.begin(), sampled.end(), std::uint64_t{0});
  } else {
    sampled = sample_chunk_indices(chunks, job.sample_chunks, job.sample_seed);
  }
  std::vector<std::int32_t> slot(chunks, -1);
  for (std::size_t i = 0; i < sampled.size(); ++i) slot[sampled[i]] = static_cast<std::int32_t>(i);
  DeviceBuffer<std::int32_t> d_slot(chunks);
  DeviceBuffer<std::uint32_t> d_sample(sampled.size() * chunk);
  DeviceBuffer<unsigned long long> d_digests(chunks);
  check(cudaMemcpy(d_slot.p, slot.data(), chunks * 4, cudaMemcpyHostToDevice), "cudaMemcpy slots");
  check(ck.sweep(count, chunk_log2, d_slot.p, d_sample.p, d_digests.p, d_unsupported), "kernel launch");
  finish(d_unsupported, "kernel");
  std::vector<unsigned long long> digests(chunks);
  std::vector<std::uint32_t> sample(sampled.size() * chunk);
  check(cudaMemcpy(digests.data(), d_digests.p, chunks * 8, cudaMemcpyDeviceToHost), "cudaMemcpy digests");
  check(cudaMemcpy(sample.data(), d_sample.p, sample.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy sample");
  r.header["chunk_log2"] = std::to_string(chunk_log2);
  const int w = width_of(k.out_bits);
  if (whole) {
    r.add_block(kBlockOutputs, w).data.assign(sample.begin(), sample.end());
    return;
  }
  r.add_block(kBlockDigests, 8).data.assign(digests.begin(), digests.end());
  r.add_block(kBlockSampleChunks, 8).data.assign(sampled.begin(), sampled.end());
  r.add_block(kBlockSampleOutputs, w).data.assign(sample.begin(), sample.end());
}

}  // namespace

std::string probe_device(DeviceInfo& info) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  if (count == 0) return "no CUDA device";
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "cudaGetDeviceProperties failed";
  info.name = p.name;
  info.cc = p.major * 10 + p.minor;
  info.sm_count = p.multiProcessorCount;
  cudaDriverGetVersion(&info.driver_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  char uuid[64];
  std::string s;
  for (int i = 0; i < 16; ++i) {
    std::snprintf(uuid, sizeof uuid, "%02x", static_cast<unsigned char>(p.uuid.bytes[i]));
    s += uuid;
  }
  info.uuid = s;
  return "";
}

Result run_job(const Job& job, const DeviceInfo& device, const std::string& plan_file) {
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  const KernelInfo* k = find_kernel(job.kernel);
  r.header["job"] = job.name;
  r.header["kernel"] = job.kernel;
  r.header["plan"] = plan_file;
  r.header["input"] = std::string(to_string(job.input));
  r.header["cases"] = std::to_string(job_case_count(job));
  r.header["device"] = device.name;
  r.header["cc"] = std::to_string(device.cc);
  r.header["sm_count"] = std::to_string(device.sm_count);
  r.header["driver"] = std::to_string(device.driver_version);
  r.header["runtime"] = std::to_string(device.runtime_version);
  r.header["uuid"] = device.uuid;
  r.header["built_for"] = FPCONFORM_GPU_ARCHS;
  if (k) {
    r.header["kind"] = std::string(to_string(k->kind));
    r.header["instruction"] = std::string(k->ptx);
    r.header["out_bits"] = std::to_string(k->out_bits);
  }
  if (job.input == InputMode::generated) {
    r.header["seed"] = std::to_string(job.seed);
    r.header["dist_a"] = to_string(job.dist_a);
    r.header["dist_b"] = to_string(job.dist_b);
    r.header["dist_c"] = to_string(job.dist_c);
    r.header["chunk_log2"] = std::to_string(job.chunk_log2);
  }
  const cuda::CudaKernel* ck = cuda::find_cuda_kernel(job.kernel.c_str());
  if (!k || !ck) {
    r.header["status"] = "error: kernel not built into this runner";
    return r;
  }
  if (!kernel_runs_on(*k, device.cc)) {
    r.header["status"] = "unsupported: needs cc " + std::to_string(k->min_cc) + (k->arch_specific ? " (arch-specific)" : "+") +
                         ", device has " + std::to_string(device.cc);
    return r;
  }
  try {
    DeviceBuffer<int> d_unsupported(1);
    check(cudaMemset(d_unsupported.p, 0, sizeof(int)), "cudaMemset");
    const int w = width_of(k->out_bits);
    if (job.input == InputMode::sweep) {
      if (k->kind == KernelKind::convert) run_convert_sweep(*ck, *k, job, r, d_unsupported.p);
      else run_scalar_sweep(*ck, *k, job, r, d_unsupported.p);
    } else {
      const auto codes = job_inputs(job, *k);
      const auto out = run_map(*ck, *k, codes, job_case_count(job), d_unsupported.p);
      const std::uint64_t raw = job.raw_count == 0 ? out.size() : std::min<std::uint64_t>(job.raw_count, out.size());
      r.header["raw_count"] = std::to_string(raw);
      // explicit inputs first, so that the outputs stay the file's last block
      if (job.input == InputMode::explicit_cases) r.add_block(kBlockInputs, 4).data.assign(codes.begin(), codes.end());
      r.add_block(kBlockOutputs, w).data.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(raw));
      if (job.input == InputMode::generated) {
        const auto digests = chunk_digests(out, job.chunk_log2);
        r.add_block(kBlockDigests, 8).data = digests;
      }
    }
    r.header["status"] = "ok";
  } catch (const std::exception& e) {
    // cudaErrorNotSupported: a launcher found its library or feature missing (cuBLASLt); it
    // said why on stderr
    const bool missing = std::string(e.what()).find("cudaErrorNotSupported") != std::string::npos;
    r.header["status"] = std::string(missing ? "unsupported: " : "error: ") + e.what();
    cudaGetLastError();  // clear a non-sticky error so the next job may still run
  }
  r.header["seconds"] = std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return r;
}

}  // namespace fpconform::gpu::runner
