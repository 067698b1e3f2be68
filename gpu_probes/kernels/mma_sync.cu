// mma.sync probes: m16n8k16 f16/bf16 (f16 or f32 accumulators), m16n8k8 tf32, m16n8k32
// e4m3/e5m2 (sm_89+, f32 or f16 accumulators). One warp evaluates eight DotBatch rows per
// instruction (dot_rows.cuh).
#include "dot_rows.cuh"
#include "elementwise.cuh"

namespace fpconform::gpu::cuda {
namespace {

enum class Shape { k16_f16_f16, k16_f32_f16, k16_f32_bf16, k8_f32_tf32, k32_f32_e4m3,
                   k32_f32_e5m2, k32_f16_e4m3, k32_f16_e5m2 };

template <Shape S>
__device__ constexpr bool shape_supported() {
  if constexpr (S == Shape::k32_f32_e4m3 || S == Shape::k32_f32_e5m2 || S == Shape::k32_f16_e4m3 ||
                S == Shape::k32_f16_e5m2)
    return FPC_SM89;
  return FPC_SM80;
}

template <Shape S>
__device__ void mma(const Frags& f, std::uint32_t& d0, std::uint32_t& d1) {
#if FPC_SM80
  float x0 = __uint_as_float(f.c[0]), x1 = __uint_as_float(f.c[1]), x2 = 0.f, x3 = 0.f;
  std::uint32_t h0 = pack16(f.c[0], f.c[1]), h1 = 0u;
#define FPC_MMA_F32(INS)                                                                     \
  asm volatile(INS " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                  \
               : "+f"(x0), "+f"(x1), "+f"(x2), "+f"(x3)                                      \
               : "r"(f.a[0]), "r"(f.a[1]), "r"(f.a[2]), "r"(f.a[3]), "r"(f.b[0]), "r"(f.b[1]))
#define FPC_MMA_F16(INS)                                                                     \
  asm volatile(INS " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"                              \
               : "+r"(h0), "+r"(h1)                                                          \
               : "r"(f.a[0]), "r"(f.a[1]), "r"(f.a[2]), "r"(f.a[3]), "r"(f.b[0]), "r"(f.b[1]))
  if constexpr (S == Shape::k16_f16_f16) FPC_MMA_F16("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16");
  if constexpr (S == Shape::k16_f32_f16) FPC_MMA_F32("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  if constexpr (S == Shape::k16_f32_bf16) FPC_MMA_F32("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
  if constexpr (S == Shape::k8_f32_tf32) FPC_MMA_F32("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
#if FPC_SM89
  if constexpr (S == Shape::k32_f32_e4m3) FPC_MMA_F32("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
  if constexpr (S == Shape::k32_f32_e5m2) FPC_MMA_F32("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32");
  if constexpr (S == Shape::k32_f16_e4m3) FPC_MMA_F16("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16");
  if constexpr (S == Shape::k32_f16_e5m2) FPC_MMA_F16("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16");
#endif
  constexpr bool f16 = S == Shape::k16_f16_f16 || S == Shape::k32_f16_e4m3 || S == Shape::k32_f16_e5m2;
  d0 = f16 ? h0 : __float_as_uint(x0);
  d1 = f16 ? 0u : __float_as_uint(x1);
#else
  (void)f;
  d0 = d1 = 0u;
#endif
}

template <Shape S>
__global__ void mma_kernel(const std::uint32_t* codes, std::uint32_t* out, std::uint64_t rows, int* unsupported) {
  if (!shape_supported<S>()) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *unsupported = 1;
    return;
  }
  constexpr int k = S == Shape::k8_f32_tf32 ? 8 : (S == Shape::k16_f16_f16 || S == Shape::k16_f32_f16 || S == Shape::k16_f32_bf16) ? 16 : 32;
  constexpr bool f16 = S == Shape::k16_f16_f16 || S == Shape::k32_f16_e4m3 || S == Shape::k32_f16_e5m2;
  const int lane = threadIdx.x & 31;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * (blockDim.x / 32);
  const std::uint64_t groups = (rows + 7) / 8;
  // Whole warps loop together: mma.sync needs all 32 lanes.
  for (std::uint64_t grp = blockIdx.x * std::uint64_t{blockDim.x / 32} + threadIdx.x / 32; grp < groups; grp += warps) {
    const DotRows d{codes, rows, grp * 8, k};
    Frags f;
    if constexpr (k == 16) frags_k16_16bit(d, lane, true, f);
    else if constexpr (k == 8) frags_k8_tf32(d, lane, true, f);
    else frags_k32_8bit(d, lane, true, f);
    std::uint32_t d0, d1;
    mma<S>(f, d0, d1);
    store_diagonal(d, lane, d0, d1, f16, out);
  }
}

template <Shape S>
cudaError_t launch(const std::uint32_t* codes, std::uint32_t* out, std::uint64_t rows, int* unsupported) {
  const std::uint64_t groups = (rows + 7) / 8;
  const std::uint64_t blocks = (groups + 7) / 8;  // 8 warps per block
  mma_kernel<S><<<static_cast<unsigned>(blocks < 65535 * 16 ? (blocks ? blocks : 1) : 65535 * 16), 256>>>(
      codes, out, rows, unsupported);
  return cudaGetLastError();
}

CudaKernel entry(const char* name, MapLauncher m) { return CudaKernel{name, m, nullptr, nullptr}; }

}  // namespace

void add_mma_sync_kernels(Registry& r) {
  r.push_back(entry("mma_m16n8k16_f16_f16", &launch<Shape::k16_f16_f16>));
  r.push_back(entry("mma_m16n8k16_f32_f16", &launch<Shape::k16_f32_f16>));
  r.push_back(entry("mma_m16n8k16_f32_bf16", &launch<Shape::k16_f32_bf16>));
  r.push_back(entry("mma_m16n8k8_f32_tf32", &launch<Shape::k8_f32_tf32>));
  r.push_back(entry("mma_m16n8k32_f32_e4m3", &launch<Shape::k32_f32_e4m3>));
  r.push_back(entry("mma_m16n8k32_f32_e5m2", &launch<Shape::k32_f32_e5m2>));
  r.push_back(entry("mma_m16n8k32_f16_e4m3", &launch<Shape::k32_f16_e4m3>));
  r.push_back(entry("mma_m16n8k32_f16_e5m2", &launch<Shape::k32_f16_e5m2>));
}

}  // namespace fpconform::gpu::cuda
