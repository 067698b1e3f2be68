// PTX f32 -> tf32 (result in an f32 container): rna (sm_80), rna.satfinite (sm_89), rn and rz
// (sm_90). Each op carries its own arch guard.
#include "elementwise.cuh"

namespace fpconform::gpu::cuda {
namespace {

#define FPC_TF32(NAME, GUARD, INS)                                            \
  struct NAME {                                                               \
    static constexpr int arity = 1, in_bits = 32;                             \
    __device__ static bool supported() { return GUARD; }                      \
    __device__ static std::uint32_t apply(const std::uint32_t* ops);          \
  };

FPC_TF32(Rna, FPC_SM80, "")
FPC_TF32(RnaSat, FPC_SM89, "")
FPC_TF32(Rn, FPC_SM90, "")
FPC_TF32(Rz, FPC_SM90, "")

__device__ std::uint32_t Rna::apply(const std::uint32_t* ops) {
  std::uint32_t d = 0;
#if FPC_SM80
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(d) : "f"(__uint_as_float(ops[0])));
#endif
  (void)ops;
  return d;
}
__device__ std::uint32_t RnaSat::apply(const std::uint32_t* ops) {
  std::uint32_t d = 0;
#if FPC_SM89
  asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(d) : "f"(__uint_as_float(ops[0])));
#endif
  (void)ops;
  return d;
}
__device__ std::uint32_t Rn::apply(const std::uint32_t* ops) {
  std::uint32_t d = 0;
#if FPC_SM90
  asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(d) : "f"(__uint_as_float(ops[0])));
#endif
  (void)ops;
  return d;
}
__device__ std::uint32_t Rz::apply(const std::uint32_t* ops) {
  std::uint32_t d = 0;
#if FPC_SM90
  asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(d) : "f"(__uint_as_float(ops[0])));
#endif
  (void)ops;
  return d;
}

}  // namespace

void add_convert_tf32_kernels(Registry& r) {
  r.push_back(convert_entry<Rna>("cvt_f32_tf32_rna"));
  r.push_back(convert_entry<RnaSat>("cvt_f32_tf32_rna_satfinite"));
  r.push_back(convert_entry<Rn>("cvt_f32_tf32_rn"));
  r.push_back(convert_entry<Rz>("cvt_f32_tf32_rz"));
}

}  // namespace fpconform::gpu::cuda
