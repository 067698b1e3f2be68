// f16 arithmetic intrinsics from cuda_fp16.h, as a CUDA program calls them (sm_80+).
#include <cuda_fp16.h>

#include "scalar_common.cuh"

namespace fpconform::gpu::cuda {
namespace {

#define FPC_H_FROM(x) __ushort_as_half(static_cast<unsigned short>(x))
#define FPC_OP2(NAME, EXPR) FPC_SCALAR_OP(NAME, __half, 16, 2, FPC_H_FROM, __half_as_ushort, EXPR)
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
FPC_SCALAR_OP(Hfma, __half, 16, 3, FPC_H_FROM, __half_as_ushort, __hfma(a, b, c))
FPC_SCALAR_OP(HfmaSat, __half, 16, 3, FPC_H_FROM, __half_as_ushort, __hfma_sat(a, b, c))
FPC_SCALAR_OP(HfmaRelu, __half, 16, 3, FPC_H_FROM, __half_as_ushort, __hfma_relu(a, b, c))
FPC_SCALAR_OP(Hsqrt, __half, 16, 1, FPC_H_FROM, __half_as_ushort, hsqrt(a))
FPC_SCALAR_OP(Hrcp, __half, 16, 1, FPC_H_FROM, __half_as_ushort, hrcp(a))

}  // namespace

void add_scalar_f16_kernels(Registry& r) {
  r.push_back(scalar_entry<Hadd>("f16_hadd"));
  r.push_back(scalar_entry<Hsub>("f16_hsub"));
  r.push_back(scalar_entry<Hmul>("f16_hmul"));
  r.push_back(scalar_entry<Hdiv>("f16_hdiv"));
  r.push_back(scalar_entry<HaddRn>("f16_hadd_rn"));
  r.push_back(scalar_entry<HsubRn>("f16_hsub_rn"));
  r.push_back(scalar_entry<HmulRn>("f16_hmul_rn"));
  r.push_back(scalar_entry<HaddSat>("f16_hadd_sat"));
  r.push_back(scalar_entry<HsubSat>("f16_hsub_sat"));
  r.push_back(scalar_entry<HmulSat>("f16_hmul_sat"));
  r.push_back(scalar_entry<Hmin>("f16_hmin"));
  r.push_back(scalar_entry<Hmax>("f16_hmax"));
  r.push_back(scalar_entry<HminNan>("f16_hmin_nan"));
  r.push_back(scalar_entry<HmaxNan>("f16_hmax_nan"));
  r.push_back(scalar_entry<Hfma>("f16_hfma"));
  r.push_back(scalar_entry<HfmaSat>("f16_hfma_sat"));
  r.push_back(scalar_entry<HfmaRelu>("f16_hfma_relu"));
  r.push_back(scalar_entry<Hsqrt>("f16_hsqrt"));
  r.push_back(scalar_entry<Hrcp>("f16_hrcp"));
}

}  // namespace fpconform::gpu::cuda
