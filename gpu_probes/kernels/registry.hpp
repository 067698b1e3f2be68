// The CUDA side of the kernel catalog: one entry per kernel name, with the launchers the runner
// calls. Each kernels/*.cu file adds its own entries through an add_*_kernels function, listed
// once in registry.cu; a test checks the registry against host/kernel_catalog.cpp.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace fpconform::gpu::cuda {

// out[i] = kernel(case i), cases laid out as in cases.hpp (operands_per_case codes each).
using MapLauncher = cudaError_t (*)(const std::uint32_t* d_codes, std::uint32_t* d_out,
                                    std::uint64_t n, int* d_unsupported);
// Conversion sweep over inputs [0, count): one (start, value) per run, in any order;
// *d_runs counts them all even past capacity.
using RunsLauncher = cudaError_t (*)(std::uint64_t count, std::uint32_t* d_start,
                                     std::uint32_t* d_value, unsigned long long* d_runs,
                                     std::uint64_t capacity, int* d_unsupported);
// Scalar sweep over cases [0, count): digest per 2^chunk_log2 cases; d_slot[chunk] >= 0 sends
// that chunk's raw outputs to d_sample + slot * 2^chunk_log2.
using SweepLauncher = cudaError_t (*)(std::uint64_t count, int chunk_log2, const std::int32_t* d_slot,
                                      std::uint32_t* d_sample, unsigned long long* d_digests,
                                      int* d_unsupported);

struct CudaKernel {
  const char* name;
  MapLauncher map;
  RunsLauncher runs;    // convert kernels only
  SweepLauncher sweep;  // scalar kernels only
};

using Registry = std::vector<CudaKernel>;

void add_convert_fp8_kernels(Registry&);
void add_convert_f16_kernels(Registry&);
void add_convert_tf32_kernels(Registry&);
void add_convert_fp6_fp4_kernels(Registry&);
void add_scalar_f16_kernels(Registry&);
void add_scalar_bf16_kernels(Registry&);
void add_scalar_f32_kernels(Registry&);
void add_mma_sync_kernels(Registry&);
void add_wgmma_kernels(Registry&);
void add_splitk_kernels(Registry&);
void add_cublaslt_kernels(Registry&);

const Registry& registry();
const CudaKernel* find_cuda_kernel(const char* name);

}  // namespace fpconform::gpu::cuda
