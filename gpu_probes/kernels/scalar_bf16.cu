// bf16 arithmetic intrinsics from cuda_bf16.h, as a CUDA program calls them (sm_80+).
#include <cuda_bf16.h>

#include "scalar_common.cuh"

namespace fpconform::gpu::cuda {
namespace {

#define FPC_H_FROM(x) __ushort_as_bfloat16(static_cast<unsigned short>(x))
#define FPC_OP2(NAME, EXPR) FPC_SCALAR_OP(NAME, __nv_bfloat16, 16, 2, FPC_H_FROM, __bfloat16_as_ushort, EXPR)
FPC_OP2(Hadd, __hadd(a, b))
FPC_OP2(Hsub, __hsub(a, b))
FPC_OP2(Hmul, __hmul(a, b))
FPC_OP2(Hdiv, __hdiv(a, b))
FPC_OP2(HaddRn, __hadd_rn(a, b))
FPC_OP2(HsubRn, __hsub_rn(a, b))
FPC_OP2(HmulRn, __hmul_rn(a, b))
FPC_OP2(HaddSat, __hadd_sat(a, b))
FPC_OP2(HsubSat, __hsub_sat(a, b))
FPC_OP2(HmulSat, __hmul_sat(a, b))
FPC_OP2(Hmin, __hmin(a, b))
FPC_OP2(Hmax, __hmax(a, b))
FPC_OP2(HminNan, __hmin_nan(a, b))
FPC_OP2(HmaxNan, __hmax_nan(a, b))
FPC_SCALAR_OP(Hfma, __nv_bfloat16, 16, 3, FPC_H_FROM, __bfloat16_as_ushort, __hfma(a, b, c))
FPC_SCALAR_OP(HfmaSat, __nv_bfloat16, 16, 3, FPC_H_FROM, __bfloat16_as_ushort, __hfma_sat(a, b, c))
FPC_SCALAR_OP(HfmaRelu, __nv_bfloat16, 16, 3, FPC_H_FROM, __bfloat16_as_ushort, __hfma_relu(a, b, c))
FPC_SCALAR_OP(Hsqrt, __nv_bfloat16, 16, 1, FPC_H_FROM, __bfloat16_as_ushort, hsqrt(a))
FPC_SCALAR_OP(Hrcp, __nv_bfloat16, 16, 1, FPC_H_FROM, __bfloat16_as_ushort, hrcp(a))

}  // namespace

void add_scalar_bf16_kernels(Registry& r) {
  r.push_back(scalar_entry<Hadd>("bf16_hadd"));
  r.push_back(scalar_entry<Hsub>("bf16_hsub"));
  r.push_back(scalar_entry<Hmul>("bf16_hmul"));
  r.push_back(scalar_entry<Hdiv>("bf16_hdiv"));
  r.push_back(scalar_entry<HaddRn>("bf16_hadd_rn"));
  r.push_back(scalar_entry<HsubRn>("bf16_hsub_rn"));
  r.push_back(scalar_entry<HmulRn>("bf16_hmul_rn"));
  r.push_back(scalar_entry<HaddSat>("bf16_hadd_sat"));
  r.push_back(scalar_entry<HsubSat>("bf16_hsub_sat"));
  r.push_back(scalar_entry<HmulSat>("bf16_hmul_sat"));
  r.push_back(scalar_entry<Hmin>("bf16_hmin"));
  r.push_back(scalar_entry<Hmax>("bf16_hmax"));
  r.push_back(scalar_entry<HminNan>("bf16_hmin_nan"));
  r.push_back(scalar_entry<HmaxNan>("bf16_hmax_nan"));
  r.push_back(scalar_entry<Hfma>("bf16_hfma"));
  r.push_back(scalar_entry<HfmaSat>("bf16_hfma_sat"));
  r.push_back(scalar_entry<HfmaRelu>("bf16_hfma_relu"));
  r.push_back(scalar_entry<Hsqrt>("bf16_hsqrt"));
  r.push_back(scalar_entry<Hrcp>("bf16_hrcp"));
}

}  // namespace fpconform::gpu::cuda
