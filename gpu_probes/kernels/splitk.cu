// A split-K dot product whose summation order FPRev can recover: k = 128 split into four slices
// of 32; each slice is two chained mma.m16n8k16 (f16 in, f32 accumulate, C = 0 for the first),
// and the slice sums are added as ((s0 + s1) + (s2 + s3)) + c with f32 round-to-nearest adds,
// the way a split-K GEMM reduces its partial tiles. Rows map onto tiles as in dot_rows.cuh.
#include "dot_rows.cuh"
#include "elementwise.cuh"

namespace fpconform::gpu::cuda {
namespace {

constexpr int kK = 128, kSlice = 32;

// The rows of one 16-wide K step: a and b shifted by `offset`, no C.
struct StepRows {
  DotRows d;
  int offset;
  __device__ std::uint32_t a(int m, int i) const { return d.a(m, offset + i); }
  __device__ std::uint32_t b(int i, int n) const { return d.b(offset + i, n); }
  __device__ std::uint32_t c(int, int) const { return 0u; }
};

__global__ void splitk_kernel(const std::uint32_t* codes, std::uint32_t* out, std::uint64_t rows, int* unsupported) {
#if FPC_SM80
  const int lane = threadIdx.x & 31;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * (blockDim.x / 32);
  for (std::uint64_t grp = blockIdx.x * std::uint64_t{blockDim.x / 32} + threadIdx.x / 32; grp < (rows + 7) / 8; grp += warps) {
    const DotRows d{codes, rows, grp * 8, kK};
    float s0[4], partial[4][2];
    for (int slice = 0; slice < kK / kSlice; ++slice) {
      s0[0] = s0[1] = s0[2] = s0[3] = 0.f;
      for (int step = 0; step < kSlice / 16; ++step) {
        Frags f;
        frags_k16_16bit(StepRows{d, slice * kSlice + step * 16}, lane, true, f);
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(s0[0]), "+f"(s0[1]), "+f"(s0[2]), "+f"(s0[3])
                     : "r"(f.a[0]), "r"(f.a[1]), "r"(f.a[2]), "r"(f.a[3]), "r"(f.b[0]), "r"(f.b[1]));
      }
      partial[slice][0] = s0[0];
      partial[slice][1] = s0[1];
    }
    const int g = lane >> 2, t = lane & 3;
    std::uint32_t d01[2];
    for (int j = 0; j < 2; ++j) {
      const float c = __uint_as_float(d.c(g, 2 * t + j));
      const float sum = __fadd_rn(__fadd_rn(__fadd_rn(partial[0][j], partial[1][j]),
                                            __fadd_rn(partial[2][j], partial[3][j])), c);
      d01[j] = __float_as_uint(sum);
    }
    store_diagonal(d, lane, d01[0], d01[1], false, out);
  }
#else
  (void)codes, (void)out, (void)rows;
  if (blockIdx.x == 0 && threadIdx.x == 0) *unsupported = 1;
#endif
}

cudaError_t launch(const std::uint32_t* codes, std::uint32_t* out, std::uint64_t rows, int* unsupported) {
  const std::uint64_t blocks = ((rows + 7) / 8 + 7) / 8;
  splitk_kernel<<<static_cast<unsigned>(blocks < 65535 * 16 ? (blocks ? blocks : 1) : 65535 * 16), 256>>>(codes, out, rows, unsupported);
  return cudaGetLastError();
}

}  // namespace

void add_splitk_kernels(Registry& r) { r.push_back(CudaKernel{"splitk4_k128_f32_f16", &launch, nullptr, nullptr}); }

}  // namespace fpconform::gpu::cuda
