// bf16 arithmetic intrinsics from cuda_bf16.h, as a CUDA program calls them (sm_80+).
#include "scalar_half.cuh"

namespace fpconform::gpu::cuda {

void add_scalar_bf16_kernels(Registry& r) { add_half_kernels<__nv_bfloat16>(r, "bf16"); }

}  // namespace fpconform::gpu::cuda
