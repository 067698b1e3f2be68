// Private to the fast fp32 conversion (emu/src/fast_convert*.cpp; emu/tests test pieces of it):
// the constants the kernels run on, and the entry points of the kernel files.
//
//   fast_convert.cpp          F32Converter: picks a kernel, runs it, the element-wise fallback
//   fast_convert_params.cpp   (Format, Rounding) -> F32Params, and which (to, r) are vectorized
//   fast_convert_kernel.hpp   the branch-free scalar kernel (tiers 1-3), inlined by the files below
//   fast_convert_portable.cpp that kernel compiled for the baseline ISA
//   fast_convert_avx2.cpp     tiers 1, 2, F and S in AVX2 intrinsics; tier 3 auto-vectorized
//   fast_convert_tierm.cpp    tiers M and MS (AVX2 + FMA, 1-byte codes), and MS on AVX-512
//   fast_convert_f16c.cpp     fp32 -> binary16 by vcvtps2ph
//   cpu_features.cpp          the CPU features the dispatch reads
#pragma once

#include <cstddef>
#include <cstdint>

#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define FPC_X86 1
#else
#define FPC_X86 0
#endif

namespace fpconform::detail {

// Constants precomputed from (Format, Rounding) for the kernels.
// Masks (_m) are all ones or zero; codes indexed [0] for +, [1] for -.
struct F32Params {
  std::uint32_t absmask, rebias, lo, range, s0, maxf, sign_mask, mag_mask, sign_shift;
  std::int32_t bias, sub_c, sub_lo, below_lim;
  std::uint32_t daz_lim, ftz_m, has_zero_m, unsigned_m, slow_m, fine_m;
  std::uint32_t sub_tiny_lim, tz_shift, thresh_pos, thresh_neg;
  std::uint32_t ovf_code[2], inf_code[2], zero_code[2], ftz_code[2], nan_code[2];
  std::uint32_t nan_paymask, uns_neg_code, minnorm_code;
  std::uint8_t inf_flags, zero_flags, nan_flags_quiet;
  bool tiny_after, may_slow, float_tier, sign_aligned;
  // Tier M (AVX2, 1-byte codes; fast_convert_tierm.cpp, v_tierm): |x| clamped to mg_hi[sign],
  // rounded by one fp32 addition in the rounding mode set in MXCSR for the call.
  std::uint32_t mg_hi[2], mg_lo, mg_k, mg_cmin, mg_lim, mg_w;
  bool mg_ok, mg_track;
  // Tier MS (v_tierms): x itself rounded by one fp32 addition (rne/up/down), |x| < 2^emax.
  std::uint32_t ms_k, ms_nq, ms_w[2], ms_lim;
  bool ms_ok;
  bool ms_avx512;  // tier MS runs on AVX-512 (ConvertKernel::avx512)
  bool ms_vbmi;    // ... with AVX512-VBMI's byte gather (where the CPU has it)
  bool s_avx512;   // tier S for s0 = 16 (bf16) runs on AVX-512 + VBMI (tiers_avx512.hpp)
};

// The constants for (to, r), as a converter of a vectorized kernel holds them (ms_avx512 false).
F32Params make_f32_params(const Format& to, const Rounding& r);
// Whether the vectorized kernels model (to, r); otherwise every element goes to `convert`.
bool fast_convert_supports(const Format& to, const Rounding& r);

// Vectorized entry points: lean = no flags, no ftz/daz, signed format with subnormals and zero;
// full = everything else, with per-element flags (and kSlow for lanes `convert` must redo).
using LeanFn = void (*)(const float*, void*, std::size_t, const F32Params&);
using FullFn = void (*)(const float*, void*, std::uint8_t*, std::size_t, const F32Params&);

// The kernels of mode `mode` for codes of type OutT (uint8_t or uint16_t); null for a mode no
// kernel serves (the stochastic ones).
template <class OutT>
void pick_portable(RoundingMode mode, LeanFn& lean, FullFn& full);

// Whether `to` is IEEE binary16 by its data (any name) and r is a rounding vcvtps2ph performs
// exactly as the clear path does: its immediate (0 rne, 1 down, 2 up, 3 rtz) or -1.
int native_f16_immediate(const Format& to, const Rounding& r);

#if FPC_X86
template <class OutT>
void pick_avx2(RoundingMode mode, LeanFn& lean, FullFn& full);

// Tier M (and MS) over nblocks whole blocks of 64 values (1-byte codes; rne, rtz, up, down;
// needs p.mg_ok); sets MXCSR for the call and puts the caller's back.
template <RoundingMode M>
__attribute__((target("avx2,fma"))) void run_tierm(const float* in, std::uint8_t* out,
                                                   std::size_t nblocks, const F32Params& p);

// n values by vcvtps2ph with rounding immediate imm (0..3).
void vcvtps2ph_imm(int imm, const float* in, std::uint16_t* out, std::size_t n);
#endif

}  // namespace fpconform::detail
