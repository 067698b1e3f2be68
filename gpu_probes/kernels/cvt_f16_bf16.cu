// PTX f32 -> f16/bf16 conversions (sm_80+): the x2 forms take rn and rz only (ptxas refuses rm/rp
// there), with relu and satfinite; the scalar forms take rn, rz, rm, rp.
#include "elementwise.cuh"

namespace fpconform::gpu::cuda {
namespace {

#if FPC_SM80
#define FPC_PAIR(INS)                                                                   \
  std::uint32_t d;                                                                      \
  asm(INS " %0, %1, %2;" : "=r"(d) : "f"(__uint_as_float(x)), "f"(__uint_as_float(x ^ 0x80000000u))); \
  return d;
#define FPC_ONE(INS)                                       \
  std::uint16_t d;                                         \
  asm(INS " %0, %1;" : "=h"(d) : "f"(__uint_as_float(x))); \
  return d;
#else
#define FPC_PAIR(INS) return 0;
#define FPC_ONE(INS) return 0;
#endif

#define FPC_OP(NAME, BODY)                                                \
  struct NAME {                                                           \
    static constexpr int arity = 1, in_bits = 32;                         \
    __device__ static bool supported() { return FPC_SM80; }               \
    __device__ static std::uint32_t apply(const std::uint32_t* ops) {     \
      const std::uint32_t x = ops[0];                                     \
      (void)x;                                                            \
      BODY                                                                \
    }                                                                     \
  };

#define FPC_X2(T, M)                                                                  \
  FPC_OP(T##x2_##M, FPC_PAIR("cvt." #M "." #T "x2.f32"))                              \
  FPC_OP(T##x2_##M##_relu, FPC_PAIR("cvt." #M ".relu." #T "x2.f32"))                  \
  FPC_OP(T##x2_##M##_satfinite, FPC_PAIR("cvt." #M ".satfinite." #T "x2.f32"))        \
  FPC_OP(T##x2_##M##_relu_satfinite, FPC_PAIR("cvt." #M ".relu.satfinite." #T "x2.f32"))
FPC_X2(f16, rn)
FPC_X2(f16, rz)
FPC_X2(bf16, rn)
FPC_X2(bf16, rz)
#define FPC_1(T, M) FPC_OP(T##_##M, FPC_ONE("cvt." #M "." #T ".f32"))
FPC_1(f16, rn)
FPC_1(f16, rz)
FPC_1(f16, rm)
FPC_1(f16, rp)
FPC_1(bf16, rn)
FPC_1(bf16, rz)
FPC_1(bf16, rm)
FPC_1(bf16, rp)

}  // namespace

void add_convert_f16_kernels(Registry& r) {
#define FPC_ADD_X2(T, M)                                                                         \
  r.push_back(convert_entry<T##x2_##M>("cvt_f32_" #T "x2_" #M));                                 \
  r.push_back(convert_entry<T##x2_##M##_relu>("cvt_f32_" #T "x2_" #M "_relu"));                  \
  r.push_back(convert_entry<T##x2_##M##_satfinite>("cvt_f32_" #T "x2_" #M "_satfinite"));        \
  r.push_back(convert_entry<T##x2_##M##_relu_satfinite>("cvt_f32_" #T "x2_" #M "_relu_satfinite"));
  FPC_ADD_X2(f16, rn)
  FPC_ADD_X2(f16, rz)
  FPC_ADD_X2(bf16, rn)
  FPC_ADD_X2(bf16, rz)
#define FPC_ADD_1(T, M) r.push_back(convert_entry<T##_##M>("cvt_f32_" #T "_" #M));
  FPC_ADD_1(f16, rn)
  FPC_ADD_1(f16, rz)
  FPC_ADD_1(f16, rm)
  FPC_ADD_1(f16, rp)
  FPC_ADD_1(bf16, rn)
  FPC_ADD_1(bf16, rz)
  FPC_ADD_1(bf16, rm)
  FPC_ADD_1(bf16, rp)
}

}  // namespace fpconform::gpu::cuda
