// f32 intrinsics with an explicit rounding suffix (CUDA math API __fadd_rn ... __frcp_rd).
#include "scalar_common.cuh"

namespace fpconform::gpu::cuda {
namespace {

#define FPC_F_FROM(x) __uint_as_float(x)
#define FPC_F_TO(x) __float_as_uint(x)
#define FPC_F32_MODES(NAME, ARITY, CALL)                                         \
  FPC_SCALAR_OP(NAME##Rn, float, 32, ARITY, FPC_F_FROM, FPC_F_TO, CALL##_rn ARGS##ARITY) \
  FPC_SCALAR_OP(NAME##Rz, float, 32, ARITY, FPC_F_FROM, FPC_F_TO, CALL##_rz ARGS##ARITY) \
  FPC_SCALAR_OP(NAME##Ru, float, 32, ARITY, FPC_F_FROM, FPC_F_TO, CALL##_ru ARGS##ARITY) \
  FPC_SCALAR_OP(NAME##Rd, float, 32, ARITY, FPC_F_FROM, FPC_F_TO, CALL##_rd ARGS##ARITY)
#define ARGS1 (a)
#define ARGS2 (a, b)
#define ARGS3 (a, b, c)
FPC_F32_MODES(Fadd, 2, __fadd)
FPC_F32_MODES(Fsub, 2, __fsub)
FPC_F32_MODES(Fmul, 2, __fmul)
FPC_F32_MODES(Fdiv, 2, __fdiv)
FPC_F32_MODES(Fmaf, 3, __fmaf)
FPC_F32_MODES(Fsqrt, 1, __fsqrt)
FPC_F32_MODES(Frcp, 1, __frcp)

}  // namespace

void add_scalar_f32_kernels(Registry& r) {
#define FPC_ADD(NAME, STEM)                                 \
  r.push_back(scalar_entry<NAME##Rn>("f32_" STEM "_rn"));   \
  r.push_back(scalar_entry<NAME##Rz>("f32_" STEM "_rz"));   \
  r.push_back(scalar_entry<NAME##Ru>("f32_" STEM "_ru"));   \
  r.push_back(scalar_entry<NAME##Rd>("f32_" STEM "_rd"));
  FPC_ADD(Fadd, "fadd")
  FPC_ADD(Fsub, "fsub")
  FPC_ADD(Fmul, "fmul")
  FPC_ADD(Fdiv, "fdiv")
  FPC_ADD(Fmaf, "fmaf")
  FPC_ADD(Fsqrt, "fsqrt")
  FPC_ADD(Frcp, "frcp")
}

}  // namespace fpconform::gpu::cuda
