// PTX fp8 conversions (sm_89+): f32 -> e4m3x2/e5m2x2 and f16x2 -> e4m3x2/e5m2x2 (rn, satfinite,
// relu), e4m3x2/e5m2x2 -> f16x2 (rn, relu). Packing as kernel_catalog.hpp says: pair_neg feeds x
// as the first operand (upper lane) and -x as the second (lower lane).
#include "elementwise.cuh"

namespace fpconform::gpu::cuda {
namespace {

#if FPC_SM89
#define FPC_F32_PAIR(INS)                                                              \
  std::uint16_t d;                                                                     \
  asm(INS " %0, %1, %2;" : "=h"(d) : "f"(__uint_as_float(x)), "f"(__uint_as_float(x ^ 0x80000000u))); \
  return d;
#define FPC_F16_PAIR(INS)                                  \
  std::uint16_t d;                                         \
  asm(INS " %0, %1;" : "=h"(d) : "r"((x << 16) | (x ^ 0x8000u))); \
  return d;
#define FPC_UNPACK(INS)                                              \
  std::uint32_t d;                                                   \
  asm(INS " %0, %1;" : "=r"(d) : "h"(static_cast<std::uint16_t>(x))); \
  return d;
#else
#define FPC_F32_PAIR(INS) return 0;
#define FPC_F16_PAIR(INS) return 0;
#define FPC_UNPACK(INS) return 0;
#endif

#define FPC_OP(NAME, BITS, BODY)                                                   \
  struct NAME {                                                                    \
    static constexpr int arity = 1, in_bits = BITS;                                \
    __device__ static bool supported() { return FPC_SM89; }                        \
    __device__ static std::uint32_t apply(const std::uint32_t* ops) {              \
      const std::uint32_t x = ops[0];                                              \
      (void)x;                                                                     \
      BODY                                                                         \
    }                                                                              \
  };

FPC_OP(F32E4m3Sat, 32, FPC_F32_PAIR("cvt.rn.satfinite.e4m3x2.f32"))
FPC_OP(F32E4m3SatRelu, 32, FPC_F32_PAIR("cvt.rn.satfinite.relu.e4m3x2.f32"))
FPC_OP(F32E5m2Sat, 32, FPC_F32_PAIR("cvt.rn.satfinite.e5m2x2.f32"))
FPC_OP(F32E5m2SatRelu, 32, FPC_F32_PAIR("cvt.rn.satfinite.relu.e5m2x2.f32"))
FPC_OP(F16E4m3Sat, 16, FPC_F16_PAIR("cvt.rn.satfinite.e4m3x2.f16x2"))
FPC_OP(F16E4m3SatRelu, 16, FPC_F16_PAIR("cvt.rn.satfinite.relu.e4m3x2.f16x2"))
FPC_OP(F16E5m2Sat, 16, FPC_F16_PAIR("cvt.rn.satfinite.e5m2x2.f16x2"))
FPC_OP(F16E5m2SatRelu, 16, FPC_F16_PAIR("cvt.rn.satfinite.relu.e5m2x2.f16x2"))
FPC_OP(E4m3F16, 16, FPC_UNPACK("cvt.rn.f16x2.e4m3x2"))
FPC_OP(E4m3F16Relu, 16, FPC_UNPACK("cvt.rn.relu.f16x2.e4m3x2"))
FPC_OP(E5m2F16, 16, FPC_UNPACK("cvt.rn.f16x2.e5m2x2"))
FPC_OP(E5m2F16Relu, 16, FPC_UNPACK("cvt.rn.relu.f16x2.e5m2x2"))

}  // namespace

void add_convert_fp8_kernels(Registry& r) {
  r.push_back(convert_entry<F32E4m3Sat>("cvt_f32_e4m3x2_rn_satfinite"));
  r.push_back(convert_entry<F32E4m3SatRelu>("cvt_f32_e4m3x2_rn_satfinite_relu"));
  r.push_back(convert_entry<F32E5m2Sat>("cvt_f32_e5m2x2_rn_satfinite"));
  r.push_back(convert_entry<F32E5m2SatRelu>("cvt_f32_e5m2x2_rn_satfinite_relu"));
  r.push_back(convert_entry<F16E4m3Sat>("cvt_f16x2_e4m3x2_rn_satfinite"));
  r.push_back(convert_entry<F16E4m3SatRelu>("cvt_f16x2_e4m3x2_rn_satfinite_relu"));
  r.push_back(convert_entry<F16E5m2Sat>("cvt_f16x2_e5m2x2_rn_satfinite"));
  r.push_back(convert_entry<F16E5m2SatRelu>("cvt_f16x2_e5m2x2_rn_satfinite_relu"));
  r.push_back(convert_entry<E4m3F16>("cvt_e4m3x2_f16x2_rn"));
  r.push_back(convert_entry<E4m3F16Relu>("cvt_e4m3x2_f16x2_rn_relu"));
  r.push_back(convert_entry<E5m2F16>("cvt_e5m2x2_f16x2_rn"));
  r.push_back(convert_entry<E5m2F16Relu>("cvt_e5m2x2_f16x2_rn_relu"));
}

}  // namespace fpconform::gpu::cuda
