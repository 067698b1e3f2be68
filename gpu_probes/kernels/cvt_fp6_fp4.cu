// PTX fp6/fp4/ue8m0 conversions (sm_100a, sm_120a): f32 -> e2m1x2 / e2m3x2 / e3m2x2 (rn,
// satfinite, relu), those -> f16x2, f32 -> ue8m0x2 (rz, rp, satfinite), ue8m0x2 -> bf16x2.
#include "elementwise.cuh"

namespace fpconform::gpu::cuda {
namespace {

#if FPC_SM100A
// e2m1x2 lives in a .b8 register: widen/narrow through cvt.u32.u8 / cvt.u8.u32.
#define FPC_PAIR8(INS)                                                                   \
  std::uint32_t d;                                                                       \
  asm("{ .reg .b8 t; " INS " t, %1, %2; cvt.u32.u8 %0, t; }"                             \
      : "=r"(d) : "f"(__uint_as_float(x)), "f"(__uint_as_float(x ^ 0x80000000u)));      \
  return d;
#define FPC_PAIR16(INS)                                                                  \
  std::uint16_t d;                                                                       \
  asm(INS " %0, %1, %2;" : "=h"(d) : "f"(__uint_as_float(x)), "f"(__uint_as_float(x ^ 0x80000000u))); \
  return d;
#define FPC_UNPACK8(INS)                                                      \
  std::uint32_t d;                                                            \
  asm("{ .reg .b8 t; cvt.u8.u32 t, %1; " INS " %0, t; }" : "=r"(d) : "r"(x)); \
  return d;
#define FPC_UNPACK16(INS)                                              \
  std::uint32_t d;                                                     \
  asm(INS " %0, %1;" : "=r"(d) : "h"(static_cast<std::uint16_t>(x))); \
  return d;
#else
#define FPC_PAIR8(INS) return 0;
#define FPC_PAIR16(INS) return 0;
#define FPC_UNPACK8(INS) return 0;
#define FPC_UNPACK16(INS) return 0;
#endif

#define FPC_OP(NAME, BITS, BODY)                                              \
  struct NAME {                                                               \
    static constexpr int arity = 1, in_bits = BITS;                           \
    __device__ static bool supported() { return FPC_SM100A; }                 \
    __device__ static std::uint32_t apply(const std::uint32_t* ops) {         \
      const std::uint32_t x = ops[0];                                         \
      (void)x;                                                                \
      BODY                                                                    \
    }                                                                         \
  };

FPC_OP(E2m1, 32, FPC_PAIR8("cvt.rn.satfinite.e2m1x2.f32"))
FPC_OP(E2m1Relu, 32, FPC_PAIR8("cvt.rn.satfinite.relu.e2m1x2.f32"))
FPC_OP(E2m3, 32, FPC_PAIR16("cvt.rn.satfinite.e2m3x2.f32"))
FPC_OP(E2m3Relu, 32, FPC_PAIR16("cvt.rn.satfinite.relu.e2m3x2.f32"))
FPC_OP(E3m2, 32, FPC_PAIR16("cvt.rn.satfinite.e3m2x2.f32"))
FPC_OP(E3m2Relu, 32, FPC_PAIR16("cvt.rn.satfinite.relu.e3m2x2.f32"))
FPC_OP(E2m1F16, 8, FPC_UNPACK8("cvt.rn.f16x2.e2m1x2"))
FPC_OP(E2m3F16, 16, FPC_UNPACK16("cvt.rn.f16x2.e2m3x2"))
FPC_OP(E3m2F16, 16, FPC_UNPACK16("cvt.rn.f16x2.e3m2x2"))
FPC_OP(Ue8m0Rz, 32, FPC_PAIR16("cvt.rz.ue8m0x2.f32"))
FPC_OP(Ue8m0RzSat, 32, FPC_PAIR16("cvt.rz.satfinite.ue8m0x2.f32"))
FPC_OP(Ue8m0Rp, 32, FPC_PAIR16("cvt.rp.ue8m0x2.f32"))
FPC_OP(Ue8m0RpSat, 32, FPC_PAIR16("cvt.rp.satfinite.ue8m0x2.f32"))
FPC_OP(Ue8m0Bf16, 16, FPC_UNPACK16("cvt.rn.bf16x2.ue8m0x2"))

}  // namespace

void add_convert_fp6_fp4_kernels(Registry& r) {
  r.push_back(convert_entry<E2m1>("cvt_f32_e2m1x2_rn_satfinite"));
  r.push_back(convert_entry<E2m1Relu>("cvt_f32_e2m1x2_rn_satfinite_relu"));
  r.push_back(convert_entry<E2m3>("cvt_f32_e2m3x2_rn_satfinite"));
  r.push_back(convert_entry<E2m3Relu>("cvt_f32_e2m3x2_rn_satfinite_relu"));
  r.push_back(convert_entry<E3m2>("cvt_f32_e3m2x2_rn_satfinite"));
  r.push_back(convert_entry<E3m2Relu>("cvt_f32_e3m2x2_rn_satfinite_relu"));
  r.push_back(convert_entry<E2m1F16>("cvt_e2m1x2_f16x2_rn"));
  r.push_back(convert_entry<E2m3F16>("cvt_e2m3x2_f16x2_rn"));
  r.push_back(convert_entry<E3m2F16>("cvt_e3m2x2_f16x2_rn"));
  r.push_back(convert_entry<Ue8m0Rz>("cvt_f32_ue8m0x2_rz"));
  r.push_back(convert_entry<Ue8m0RzSat>("cvt_f32_ue8m0x2_rz_satfinite"));
  r.push_back(convert_entry<Ue8m0Rp>("cvt_f32_ue8m0x2_rp"));
  r.push_back(convert_entry<Ue8m0RpSat>("cvt_f32_ue8m0x2_rp_satfinite"));
  r.push_back(convert_entry<Ue8m0Bf16>("cvt_ue8m0x2_bf16x2_rn"));
}

}  // namespace fpconform::gpu::cuda
