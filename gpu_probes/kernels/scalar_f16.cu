// f16 arithmetic intrinsics from cuda_fp16.h, as a CUDA program calls them (sm_80+).
#include "scalar_half.cuh"

namespace fpconform::gpu::cuda {

void add_scalar_f16_kernels(Registry& r) { add_half_kernels<__half>(r, "f16"); }

}  // namespace fpconform::gpu::cuda
