// The 16-bit scalar intrinsics of cuda_fp16.h and cuda_bf16.h (sm_80+), which have the same
// names for __half and __nv_bfloat16: one list of operations, instantiated for each type
// (scalar_f16.cu, scalar_bf16.cu), so the two kernel sets cannot drift apart.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <deque>
#include <string>

#include "elementwise.cuh"

namespace fpconform::gpu::cuda {

// Code <-> value for each 16-bit type.
template <class T>
struct HalfBits;
template <>
struct HalfBits<__half> {
  __device__ static __half from(std::uint32_t x) { return __ushort_as_half(static_cast<unsigned short>(x)); }
  __device__ static unsigned short to(__half h) { return __half_as_ushort(h); }
};
template <>
struct HalfBits<__nv_bfloat16> {
  __device__ static __nv_bfloat16 from(std::uint32_t x) {
    return __ushort_as_bfloat16(static_cast<unsigned short>(x));
  }
  __device__ static unsigned short to(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
};

// X(Name, arity, expression over a, b, c, kernel-name suffix)
#define FPC_HALF_OPS(X)                                  \
  X(Hadd, 2, __hadd(a, b), "_hadd")                      \
  X(Hsub, 2, __hsub(a, b), "_hsub")                      \
  X(Hmul, 2, __hmul(a, b), "_hmul")                      \
  X(Hdiv, 2, __hdiv(a, b), "_hdiv")                      \
  X(HaddRn, 2, __hadd_rn(a, b), "_hadd_rn")              \
  X(HsubRn, 2, __hsub_rn(a, b), "_hsub_rn")              \
  X(HmulRn, 2, __hmul_rn(a, b), "_hmul_rn")              \
  X(HaddSat, 2, __hadd_sat(a, b), "_hadd_sat")           \
  X(HsubSat, 2, __hsub_sat(a, b), "_hsub_sat")           \
  X(HmulSat, 2, __hmul_sat(a, b), "_hmul_sat")           \
  X(Hmin, 2, __hmin(a, b), "_hmin")                      \
  X(Hmax, 2, __hmax(a, b), "_hmax")                      \
  X(HminNan, 2, __hmin_nan(a, b), "_hmin_nan")           \
  X(HmaxNan, 2, __hmax_nan(a, b), "_hmax_nan")           \
  X(Hfma, 3, __hfma(a, b, c), "_hfma")                   \
  X(HfmaSat, 3, __hfma_sat(a, b, c), "_hfma_sat")        \
  X(HfmaRelu, 3, __hfma_relu(a, b, c), "_hfma_relu")     \
  X(Hsqrt, 1, hsqrt(a), "_hsqrt")                        \
  X(Hrcp, 1, hrcp(a), "_hrcp")

namespace half_ops {
#define FPC_HALF_OP_STRUCT(NAME, ARITY, EXPR, SUFFIX)                  \
  template <class T>                                                   \
  struct NAME {                                                        \
    static constexpr int arity = ARITY, in_bits = 16;                  \
    __device__ static bool supported() { return FPC_SM80; }            \
    __device__ static std::uint32_t apply(const std::uint32_t* ops) {  \
      const T a = HalfBits<T>::from(ops[0]);                           \
      const T b = HalfBits<T>::from(ops[ARITY > 1 ? 1 : 0]);           \
      const T c = HalfBits<T>::from(ops[ARITY > 2 ? 2 : 0]);           \
      (void)b;                                                         \
      (void)c;                                                         \
      return HalfBits<T>::to(EXPR);                                    \
    }                                                                  \
  };
FPC_HALF_OPS(FPC_HALF_OP_STRUCT)
#undef FPC_HALF_OP_STRUCT
}  // namespace half_ops

// Registers every operation for T as "<prefix><suffix>" (f16_hadd, bf16_hfma_relu, ...).
template <class T>
void add_half_kernels(Registry& r, const std::string& prefix) {
  static std::deque<std::string> names;  // CudaKernel keeps a const char*: the names must stay
  const auto add = [&](CudaKernel k) {
    names.push_back(prefix + k.name);
    k.name = names.back().c_str();
    r.push_back(k);
  };
#define FPC_HALF_OP_ENTRY(NAME, ARITY, EXPR, SUFFIX) add(scalar_entry<half_ops::NAME<T>>(SUFFIX));
  FPC_HALF_OPS(FPC_HALF_OP_ENTRY)
#undef FPC_HALF_OP_ENTRY
}

}  // namespace fpconform::gpu::cuda
