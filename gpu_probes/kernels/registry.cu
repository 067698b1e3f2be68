#include <cstring>

#include "registry.hpp"

namespace fpconform::gpu::cuda {

const Registry& registry() {
  static const Registry r = [] {
    Registry k;
    add_convert_fp8_kernels(k);
    add_convert_f16_kernels(k);
    add_convert_tf32_kernels(k);
    add_convert_fp6_fp4_kernels(k);
    add_scalar_f16_kernels(k);
    add_scalar_bf16_kernels(k);
    add_scalar_f32_kernels(k);
    add_mma_sync_kernels(k);
    add_wgmma_kernels(k);
    add_splitk_kernels(k);
    add_cublaslt_kernels(k);
    return k;
  }();
  return r;
}

const CudaKernel* find_cuda_kernel(const char* name) {
  for (const auto& k : registry())
    if (std::strcmp(k.name, name) == 0) return &k;
  return nullptr;
}

}  // namespace fpconform::gpu::cuda
