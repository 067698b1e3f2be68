// cuBLASLt FP8 GEMM (e4m3 x e4m3 -> f32, compute 32F) with CUBLASLT_MATMUL_DESC_FAST_ACCUM on and
// off: the accumulation that DeepSeek-V3 promotes every 128 products and fast accumulation does
// not. DotBatch rows with k = 512, sixteen per batched 16x16x512 GEMM, on the diagonal
// (dot_rows.cuh's mapping: row r -> A row r, B column r, C(r, r)). libcublasLt is opened at run
// time (dlopen), so the runner starts on machines without it and reports that job as failed.
#include <cublasLt.h>
#include <dlfcn.h>

#include <cstdio>

#include "elementwise.cuh"

namespace fpconform::gpu::cuda {
namespace {

constexpr int kK = 512, kTile = 16;

struct Lt {
  bool ok = false;
  decltype(&cublasLtCreate) create;
  decltype(&cublasLtMatmulDescCreate) desc_create;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&cublasLtMatrixLayoutCreate) layout_create;
  decltype(&cublasLtMatrixLayoutSetAttribute) layout_set;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic;
  decltype(&cublasLtMatmul) matmul;
  cublasLtHandle_t handle = nullptr;
};

const Lt& lt() {
  static const Lt l = [] {
    Lt x;
    void* h = nullptr;
    for (const char* name : {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"})
      if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) {
      std::fprintf(stderr, "cublaslt kernels: no libcublasLt.so.13/.12 here (%s)\n", dlerror());
      return x;
    }
#define FPC_SYM(field, sym) x.field = reinterpret_cast<decltype(x.field)>(dlsym(h, #sym)); if (!x.field) return x;
    FPC_SYM(create, cublasLtCreate)
    FPC_SYM(desc_create, cublasLtMatmulDescCreate)
    FPC_SYM(desc_set, cublasLtMatmulDescSetAttribute)
    FPC_SYM(desc_destroy, cublasLtMatmulDescDestroy)
    FPC_SYM(layout_create, cublasLtMatrixLayoutCreate)
    FPC_SYM(layout_set, cublasLtMatrixLayoutSetAttribute)
    FPC_SYM(layout_destroy, cublasLtMatrixLayoutDestroy)
    FPC_SYM(pref_create, cublasLtMatmulPreferenceCreate)
    FPC_SYM(pref_set, cublasLtMatmulPreferenceSetAttribute)
    FPC_SYM(pref_destroy, cublasLtMatmulPreferenceDestroy)
    FPC_SYM(heuristic, cublasLtMatmulAlgoGetHeuristic)
    FPC_SYM(matmul, cublasLtMatmul)
#undef FPC_SYM
    x.ok = x.create(&x.handle) == CUBLAS_STATUS_SUCCESS;
    return x;
  }();
  return l;
}

// codes (rows x (2k+1)) -> A, B (items x 16 x K bytes, row r's a / b contiguous) and C
// (items x 16 x 16 f32, column-major, c on the diagonal); rows past the end are zero.
__global__ void pack(const std::uint32_t* codes, std::uint64_t rows, std::uint64_t items, unsigned char* a,
                     unsigned char* b, float* c) {
  const std::uint64_t total = items * kTile * kK;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < total; i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t row = i / kK, j = i % kK;
    const bool live = row < rows;
    a[i] = live ? static_cast<unsigned char>(codes[row * (2 * kK + 1) + j]) : 0;
    b[i] = live ? static_cast<unsigned char>(codes[row * (2 * kK + 1) + kK + j]) : 0;
    if (j == 0) {
      const std::uint64_t item = row / kTile, r = row % kTile;
      for (int m = 0; m < kTile; ++m)
        c[item * kTile * kTile + r * kTile + m] = m == static_cast<int>(r) && live ? __uint_as_float(codes[row * (2 * kK + 1) + 2 * kK]) : 0.f;
    }
  }
}

__global__ void diagonal(const float* d, std::uint64_t rows, std::uint32_t* out) {
  for (std::uint64_t row = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; row < rows; row += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t item = row / kTile, r = row % kTile;
    out[row] = __float_as_uint(d[item * kTile * kTile + r * kTile + r]);
  }
}

template <bool FastAccum>
cudaError_t launch(const std::uint32_t* codes, std::uint32_t* out, std::uint64_t rows, int*) {
  const Lt& l = lt();
  if (!l.ok) return cudaErrorNotSupported;
  const std::uint64_t items = (rows + kTile - 1) / kTile;
  unsigned char *a = nullptr, *b = nullptr;
  float *c = nullptr, *d = nullptr;
  void* workspace = nullptr;
  const std::size_t ws_bytes = 32u << 20;
  cudaError_t e = cudaSuccess;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  auto fail = [&](const char* what, int status) {
    std::fprintf(stderr, "cublaslt kernel: %s failed (status %d)\n", what, status);
    e = cudaErrorNotSupported;
  };
  do {
    if ((e = cudaMalloc(&a, items * kTile * kK)) || (e = cudaMalloc(&b, items * kTile * kK)) ||
        (e = cudaMalloc(&c, items * kTile * kTile * 4)) || (e = cudaMalloc(&d, items * kTile * kTile * 4)) ||
        (e = cudaMalloc(&workspace, ws_bytes)))
      break;
    pack<<<grid_for(items * kTile * kK), kThreads>>>(codes, rows, items, a, b, c);
    if ((e = cudaGetLastError())) break;
    if (int s = l.desc_create(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F)) { fail("cublasLtMatmulDescCreate", s); break; }
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const std::int8_t fast = FastAccum ? 1 : 0;
    l.desc_set(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    l.desc_set(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    l.desc_set(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
    // A: K x 16 column-major (op T), B: K x 16 column-major, C/D: 16 x 16 column-major
    l.layout_create(&la, CUDA_R_8F_E4M3, kK, kTile, kK);
    l.layout_create(&lb, CUDA_R_8F_E4M3, kK, kTile, kK);
    l.layout_create(&lc, CUDA_R_32F, kTile, kTile, kTile);
    const std::int32_t count = static_cast<std::int32_t>(items);
    const std::int64_t ab_stride = std::int64_t{kTile} * kK, c_stride = kTile * kTile;
    for (auto* layout : {la, lb, lc}) l.layout_set(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    l.layout_set(la, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &ab_stride, sizeof ab_stride);
    l.layout_set(lb, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &ab_stride, sizeof ab_stride);
    l.layout_set(lc, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &c_stride, sizeof c_stride);
    l.pref_create(&pref);
    l.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes);
    cublasLtMatmulHeuristicResult_t algo{};
    int found = 0;
    if (int s = l.heuristic(l.handle, op, la, lb, lc, lc, pref, 1, &algo, &found); s || found == 0) {
      fail("cublasLtMatmulAlgoGetHeuristic (no algorithm for batched 16x16x512 e4m3)", s);
      break;
    }
    const float one = 1.f;
    if (int s = l.matmul(l.handle, op, &one, a, la, b, lb, &one, c, lc, d, lc, &algo.algo, workspace, ws_bytes, 0)) {
      fail("cublasLtMatmul", s);
      break;
    }
    diagonal<<<grid_for(rows), kThreads>>>(d, rows, out);
    e = cudaGetLastError();
  } while (false);
  if (pref) l.pref_destroy(pref);
  for (auto* layout : {la, lb, lc})
    if (layout) l.layout_destroy(layout);
  if (op) l.desc_destroy(op);
  cudaDeviceSynchronize();
  cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(d), cudaFree(workspace);
  return e;
}

}  // namespace

void add_cublaslt_kernels(Registry& r) {
  r.push_back(CudaKernel{"cublaslt_e4m3_k512_f32_fast_accum", &launch<true>, nullptr, nullptr});
  r.push_back(CudaKernel{"cublaslt_e4m3_k512_f32_promoted", &launch<false>, nullptr, nullptr});
}

}  // namespace fpconform::gpu::cuda
