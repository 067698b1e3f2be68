// Shared launch templates for element-wise kernels (conversions and scalar arithmetic).
// An Op is a struct with
//   static constexpr int arity;                       // codes per case
//   __device__ static bool supported();               // compiled for an arch that has it
//   __device__ static uint32_t apply(const uint32_t* ops);  // one case -> output code
// and, for sweeps, static constexpr int in_bits (width of one operand code).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "fpconform/gpu/splitmix.hpp"
#include "registry.hpp"

// Arch guards: true inside the device pass for the archs that have the instruction.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define FPC_SM80 1
#else
#define FPC_SM80 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define FPC_SM89 1
#else
#define FPC_SM89 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define FPC_SM90 1
#else
#define FPC_SM90 0
#endif
// sm_90a (wgmma)
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FPC_SM90A 1
#else
#define FPC_SM90A 0
#endif
// sm_100a / sm_120a and later arch-specific targets (fp6/fp4/ue8m0 cvt)
#if (defined(__CUDA_ARCH_SPECIFIC__) && __CUDA_ARCH_SPECIFIC__ >= 1000) || \
    (defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000)
#define FPC_SM100A 1
#else
#define FPC_SM100A 0
#endif

namespace fpconform::gpu::cuda {

inline constexpr int kThreads = 256;

inline unsigned grid_for(std::uint64_t n, unsigned cap = 65535u * 4u) {
  const std::uint64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < cap ? (blocks ? blocks : 1) : cap);
}

template <class Op>
__global__ void map_kernel(const std::uint32_t* codes, std::uint32_t* out, std::uint64_t n,
                           int* unsupported) {
  if (!Op::supported()) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *unsupported = 1;
    return;
  }
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint32_t ops[Op::arity];
#pragma unroll
    for (int j = 0; j < Op::arity; ++j) ops[j] = codes[i * Op::arity + j];
    out[i] = Op::apply(ops);
  }
}

template <class Op>
cudaError_t launch_map(const std::uint32_t* codes, std::uint32_t* out, std::uint64_t n, int* unsupported) {
  map_kernel<Op><<<grid_for(n), kThreads>>>(codes, out, n, unsupported);
  return cudaGetLastError();
}

// Splits a sweep index into operands, the highest operand in the highest bits (cases.hpp).
template <class Op>
__device__ inline void sweep_operands(std::uint64_t index, std::uint32_t* ops) {
  constexpr std::uint64_t mask = Op::in_bits == 32 ? 0xFFFFFFFFull : ((1ull << Op::in_bits) - 1);
#pragma unroll
  for (int j = 0; j < Op::arity; ++j)
    ops[j] = static_cast<std::uint32_t>((index >> (Op::in_bits * (Op::arity - 1 - j))) & mask);
}

template <class Op>
__global__ void runs_kernel(std::uint64_t count, std::uint32_t* start, std::uint32_t* value,
                            unsigned long long* runs, std::uint64_t capacity, int* unsupported) {
  if (!Op::supported()) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *unsupported = 1;
    return;
  }
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(i);
    const std::uint32_t y = Op::apply(&x);
    bool boundary = i == 0;
    if (!boundary) {
      std::uint32_t prev = static_cast<std::uint32_t>(i - 1);
      boundary = Op::apply(&prev) != y;
    }
    if (boundary) {
      const unsigned long long slot = atomicAdd(runs, 1ull);
      if (slot < capacity) {
        start[slot] = x;
        value[slot] = y;
      }
    }
  }
}

template <class Op>
cudaError_t launch_runs(std::uint64_t count, std::uint32_t* start, std::uint32_t* value,
                        unsigned long long* runs, std::uint64_t capacity, int* unsupported) {
  runs_kernel<Op><<<grid_for(count), kThreads>>>(count, start, value, runs, capacity, unsupported);
  return cudaGetLastError();
}

// One block per chunk at a time: the block sums its chunk's digest terms and writes it once.
template <class Op>
__global__ void sweep_kernel(std::uint64_t count, int chunk_log2, const std::int32_t* slot,
                             std::uint32_t* sample, unsigned long long* digests, int* unsupported) {
  if (!Op::supported()) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *unsupported = 1;
    return;
  }
  __shared__ unsigned long long partial[kThreads / 32];
  const std::uint64_t chunk = 1ull << chunk_log2;
  const std::uint64_t chunks = (count + chunk - 1) >> chunk_log2;
  for (std::uint64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    const std::uint64_t first = c << chunk_log2;
    const std::uint64_t last = first + chunk < count ? first + chunk : count;
    const std::int32_t s = slot[c];
    unsigned long long sum = 0;
    for (std::uint64_t i = first + threadIdx.x; i < last; i += blockDim.x) {
      std::uint32_t ops[Op::arity];
      sweep_operands<Op>(i, ops);
      const std::uint32_t y = Op::apply(ops);
      sum += digest_term(i, y);
      if (s >= 0) sample[static_cast<std::uint64_t>(s) * chunk + (i - first)] = y;
    }
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xFFFFFFFFu, sum, off);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned long long total = 0;
      for (int w = 0; w < kThreads / 32; ++w) total += partial[w];
      digests[c] = total;
    }
    __syncthreads();
  }
}

template <class Op>
cudaError_t launch_sweep(std::uint64_t count, int chunk_log2, const std::int32_t* slot,
                         std::uint32_t* sample, unsigned long long* digests, int* unsupported) {
  const std::uint64_t chunks = (count + (1ull << chunk_log2) - 1) >> chunk_log2;
  const unsigned blocks = static_cast<unsigned>(chunks < 65536 * 8 ? chunks : 65536 * 8);
  sweep_kernel<Op><<<blocks, kThreads>>>(count, chunk_log2, slot, sample, digests, unsupported);
  return cudaGetLastError();
}

template <class Op>
CudaKernel convert_entry(const char* name) {
  return CudaKernel{name, &launch_map<Op>, &launch_runs<Op>, nullptr};
}
template <class Op>
CudaKernel scalar_entry(const char* name) {
  return CudaKernel{name, &launch_map<Op>, nullptr, &launch_sweep<Op>};
}

}  // namespace fpconform::gpu::cuda
