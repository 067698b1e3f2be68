// wgmma probes (sm_90a): m64n8k16 f16/bf16, m64n8k8 tf32, m64n8k32 e4m3/e5m2, with f32 and (where
// PTX has them) f16 accumulators. One warpgroup per block; A from registers (warp w holds rows
// 16w..16w+15 in the mma.m16n8kK A layout; only warp 0 carries data), B from shared memory,
// K-major without swizzle: two 8-row x 16-byte core matrices along K, 128 bytes apart. Eight
// DotBatch rows per instruction, mapped as dot_rows.cuh says; D = C + A.B with scale-d = 1.
#include "dot_rows.cuh"
#include "elementwise.cuh"

namespace fpconform::gpu::cuda {
namespace {

enum class W { k16_f32_f16, k16_f16_f16, k16_f32_bf16, k8_f32_tf32, k32_f32_e4m3, k32_f32_e5m2,
               k32_f16_e4m3, k32_f16_e5m2 };

template <W S> __host__ __device__ constexpr int k_of() {
  return S == W::k8_f32_tf32 ? 8 : (S == W::k16_f32_f16 || S == W::k16_f16_f16 || S == W::k16_f32_bf16) ? 16 : 32;
}
template <W S> __host__ __device__ constexpr bool f16_acc() {
  return S == W::k16_f16_f16 || S == W::k32_f16_e4m3 || S == W::k32_f16_e5m2;
}
template <W S> __host__ __device__ constexpr int elem_bytes() { return 32 / k_of<S>(); }  // 32 bytes of K per row

// Shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format"): start address >> 4 in
// bits 0-13, leading-dimension byte offset >> 4 in bits 16-29, stride byte offset >> 4 in bits
// 32-45, swizzle 0 (none). Both offsets are 128: with N = 8 there is one core matrix along N, so
// whichever of the two the hardware applies along K, the second core matrix is 128 bytes on.
__device__ inline std::uint64_t smem_desc(const void* p) {
  const auto addr = static_cast<std::uint64_t>(__cvta_generic_to_shared(p));
  return ((addr & 0x3FFFFull) >> 4) | (std::uint64_t{128 >> 4} << 16) | (std::uint64_t{128 >> 4} << 32);
}

template <W S>
__device__ void wgmma(const Frags& f, const void* b_smem, std::uint32_t& d0, std::uint32_t& d1) {
#if FPC_SM90A
  const std::uint64_t desc = smem_desc(b_smem);
  float x0 = __uint_as_float(f.c[0]), x1 = __uint_as_float(f.c[1]), x2 = 0.f, x3 = 0.f;
  std::uint32_t h0 = pack16(f.c[0], f.c[1]), h1 = 0u;
  const std::uint32_t one = 1;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#define FPC_WG_F32(INS, TAIL)                                                                   \
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %9, 0; " INS                                      \
               " {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p" TAIL "; }"                                 \
               : "+f"(x0), "+f"(x1), "+f"(x2), "+f"(x3)                                          \
               : "r"(f.a[0]), "r"(f.a[1]), "r"(f.a[2]), "r"(f.a[3]), "l"(desc), "r"(one) : "memory")
#define FPC_WG_F16(INS, TAIL)                                                                   \
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %7, 0; " INS                                      \
               " {%0,%1}, {%2,%3,%4,%5}, %6, p" TAIL "; }"                                       \
               : "+r"(h0), "+r"(h1)                                                              \
               : "r"(f.a[0]), "r"(f.a[1]), "r"(f.a[2]), "r"(f.a[3]), "l"(desc), "r"(one) : "memory")
  // f16/bf16 take imm-scale-a, imm-scale-b, imm-trans-b (0: B K-major); tf32/fp8 no trans.
  if constexpr (S == W::k16_f32_f16) FPC_WG_F32("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", ", 1, 1, 0");
  if constexpr (S == W::k16_f16_f16) FPC_WG_F16("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16", ", 1, 1, 0");
  if constexpr (S == W::k16_f32_bf16) FPC_WG_F32("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", ", 1, 1, 0");
  if constexpr (S == W::k8_f32_tf32) FPC_WG_F32("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", ", 1, 1");
  if constexpr (S == W::k32_f32_e4m3) FPC_WG_F32("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", ", 1, 1");
  if constexpr (S == W::k32_f32_e5m2) FPC_WG_F32("wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2", ", 1, 1");
  if constexpr (S == W::k32_f16_e4m3) FPC_WG_F16("wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3", ", 1, 1");
  if constexpr (S == W::k32_f16_e5m2) FPC_WG_F16("wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2", ", 1, 1");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  d0 = f16_acc<S>() ? h0 : __float_as_uint(x0);
  d1 = f16_acc<S>() ? 0u : __float_as_uint(x1);
#else
  (void)f;
  (void)b_smem;
  d0 = d1 = 0u;
#endif
}

template <W S>
__global__ void __launch_bounds__(128) wgmma_kernel(const std::uint32_t* codes, std::uint32_t* out,
                                                    std::uint64_t rows, int* unsupported) {
  if (!FPC_SM90A) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *unsupported = 1;
    return;
  }
  constexpr int k = k_of<S>(), eb = elem_bytes<S>();
  __shared__ __align__(128) unsigned char b_tile[256];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid & 31;
  const std::uint64_t groups = (rows + 7) / 8;
  for (std::uint64_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
    const DotRows d{codes, rows, grp * 8, k};
    // B(i, n) at byte (i*eb / 16) * 128 + n * 16 + (i*eb) % 16: 2 core matrices along K.
    for (int e = tid; e < 8 * k; e += 128) {
      const int n = e / k, i = e % k;
      const std::uint32_t v = d.b(i, n);
      unsigned char* p = b_tile + (i * eb / 16) * 128 + n * 16 + (i * eb) % 16;
      for (int byte = 0; byte < eb; ++byte) p[byte] = static_cast<unsigned char>(v >> (8 * byte));
    }
#if FPC_SM90A
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> async proxy
#endif
    __syncthreads();
    Frags f;
    if constexpr (k == 16) frags_k16_16bit(d, lane, warp == 0, f);
    else if constexpr (k == 8) frags_k8_tf32(d, lane, warp == 0, f);
    else frags_k32_8bit(d, lane, warp == 0, f);
    std::uint32_t d0, d1;
    wgmma<S>(f, b_tile, d0, d1);
    if (warp == 0) store_diagonal(d, lane, d0, d1, f16_acc<S>(), out);
    __syncthreads();  // b_tile is rewritten by the next group
  }
}

template <W S>
cudaError_t launch(const std::uint32_t* codes, std::uint32_t* out, std::uint64_t rows, int* unsupported) {
  const std::uint64_t groups = (rows + 7) / 8;
  const unsigned blocks = static_cast<unsigned>(groups < 132 * 64 ? (groups ? groups : 1) : 132 * 64);
  wgmma_kernel<S><<<blocks, 128>>>(codes, out, rows, unsupported);
  return cudaGetLastError();
}

CudaKernel entry(const char* name, MapLauncher m) { return CudaKernel{name, m, nullptr, nullptr}; }

}  // namespace

void add_wgmma_kernels(Registry& r) {
  r.push_back(entry("wgmma_m64n8k16_f32_f16", &launch<W::k16_f32_f16>));
  r.push_back(entry("wgmma_m64n8k16_f16_f16", &launch<W::k16_f16_f16>));
  r.push_back(entry("wgmma_m64n8k16_f32_bf16", &launch<W::k16_f32_bf16>));
  r.push_back(entry("wgmma_m64n8k8_f32_tf32", &launch<W::k8_f32_tf32>));
  r.push_back(entry("wgmma_m64n8k32_f32_e4m3", &launch<W::k32_f32_e4m3>));
  r.push_back(entry("wgmma_m64n8k32_f32_e5m2", &launch<W::k32_f32_e5m2>));
  r.push_back(entry("wgmma_m64n8k32_f16_e4m3", &launch<W::k32_f16_e4m3>));
  r.push_back(entry("wgmma_m64n8k32_f16_e5m2", &launch<W::k32_f16_e5m2>));
}

}  // namespace fpconform::gpu::cuda
