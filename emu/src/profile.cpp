// Ecosystem profiles: what libraries and instructions really do on conversion, as data.
//
// Each profile is a list of rules (ConversionRule, profile.hpp): which formats a library
// function converts, which rounding/saturation/subnormal options it offers and defaults to,
// and its quirks. Every result still comes from fpconform::round_to_format (one rounding
// algorithm); a quirk only changes the value handed to it (through f32 first, a NaN's sign and
// payload, the sign of an e8m0 input) or the target it rounds into (the e8m0 tie rule).
//
// Sources, and how each was checked (suites/peers/ compares against the real thing):
//
// nvidia -- CUDA 13.0 headers, host code paths (the #else branches without __CUDA_ARCH__):
//   cuda_fp8.hpp  __nv_cvt_double_to_fp8: rounds the double directly, RNE only; __NV_SATFINITE:
//                 overflow and +-inf -> +-max (0x7E / 0x7B); __NV_NOSAT: overflow and inf ->
//                 NaN 0x7F (e4m3) / inf 0x7C (e5m2); NaN keeps its sign, e5m2 keeps the
//                 double's top payload bit (0x7E | bit 50). |x| <= min subnormal / 2 -> +-0.
//                 __nv_cvt_float_to_fp8 (and halfraw / bfloat16raw, which widen to float):
//                 NaN inputs are first replaced by 0x7FFFFFFF, so every NaN -> 0x7F.
//                 The C++ constructors (__nv_fp8_e4m3(float)) use __NV_SATFINITE.
//                 __nv_cvt_fp8_to_halfraw: exact; a NaN -> 0x7FFF (sign dropped).
//                 __nv_cvt_float_to_e8m0 / _double_ / _bfloat16raw_: cudaRoundZero or
//                 cudaRoundPosInf only (assert), sign ignored (|x|), SATFINITE: inf and overflow
//                 -> 0xFE, NOSAT -> 0xFF; 0 -> 0x00 (2^-127). __nv_fp8_e8m0(float) uses
//                 SATFINITE + cudaRoundPosInf. __nv_cvt_double_to_e8m0 rounds to odd into float
//                 first, which keeps floor/ceil exact. __nv_cvt_e8m0_to_bf16raw: 0xFF -> 0x7FFF.
//   cuda_fp6.hpp / cuda_fp4.hpp  __nv_cvt_{double,float,halfraw,bfloat16raw}_to_fp6 / _fp4:
//                 cudaRoundNearest or cudaRoundZero (assert), always saturating (no
//                 __nv_saturation_t argument): overflow and +-inf -> +-max; NaN -> +max (0x1F,
//                 0x7), sign dropped.
//   cuda_fp16.hpp __float2half_rn/_rz/_rd/_ru (host: __internal_float2half + remainder), all
//                 correctly rounded; NaN -> 0x7FFF; no satfinite variant. __double2half: RNE only
//                 (pre-rounds to 11 bits with a shifter, then float, then half: one rounding).
//   cuda_bf16.hpp __float2bfloat16_rn/_rz/_rd/_ru: correctly rounded, NaN -> 0x7FFF.
//                 __bfloat162float: a bit shift (a signaling NaN stays signaling);
//                 __half2float (cuda_fp16.hpp): NaN -> 0x7FFFFFFF, sign dropped.
//                 __double2bfloat16: round-to-odd into float, then RNE: one correct rounding.
// ml_dtypes / ml_dtypes-0.7 -- ml_dtypes 0.7.0 with numpy 2.4.6 (observed by
//   suites/peers/python against every cast; read in the 0.7.0 sdist's include/float8.h
//   RoundToOddFloat, ConvertImpl and _src/floats.h NarrowToFloat; CHANGELOG 0.7.0). What
//   0.6.0 does (below), except:
//   * float64 is rounded once (PR #401): numpy casts narrow it to float32 by round to odd,
//     then ConvertImpl rounds from float32; that is one correct rounding into every ml_dtypes
//     type (all have at least two fewer significand bits than float32). f64
//     -431.99999999999994 -> e4m3fn -416 (0xFD), 1+2^-8+2^-40 -> bf16 0x3F81,
//     0x3EE0100000000001 -> bf16 0x3701 (0.6: 0x3700), 2^-1074 -> e8m0 2^-127 (0x00; 0.6:
//     float32 0, so NaN). numpy's own float16 cast is unchanged (it always rounded once).
//   * float8_e8m0fnu (PR #434): ConvertImpl encodes it one binade lower, so the lowest
//     binade rounds like the others: ties away everywhere, [2^-127, 1.5 * 2^-127) -> 2^-127
//     (0x00; 0.6: 0x01 above 2^-127), and anything below 2^-127 -> 0x00 (f32 0x400001, bf16
//     0x0041 -> 0x00). 0 -> NaN, negative -> NaN, overflow -> NaN as before.
//   * Casts between every pair of ml_dtypes types (0.6 refuses e8m0 <-> the 8/6/4-bit types
//     with TypeError): they follow the same rules (through float32, exact for these sources).
//   * New float8_e5m3fnu (PR #407: unsigned, 5+3 bits, bias 15, no inf, NaN 0xFF; fpconform
//     custom:e=5,m=3,bias=15,inf=none,nan=max,signed=0): negative -> NaN, overflow -> NaN,
//     NaN -> 0xFF, -0 -> +0 (the catch-all rule; the peer test dumps it too).
// ml_dtypes-0.6 -- ml_dtypes 0.6.0 with numpy 2.4.6 (observed; include/float8.h ConvertImpl):
//   RNE, never saturating: e4m3fn overflow (465 and up) and +-inf -> NaN with the sign;
//   IEEE-like targets overflow to inf; fnuz targets to their NaN 0x80. float64 arrays are cast
//   through float32 first (double rounding; fixed by PR #401 in 0.7): f64
//   -431.99999999999994 -> e4m3fn -448 (correct: -416); 1+2^-8+2^-40 -> bf16 1.0 (correct
//   0x3F81). NaN -> quiet NaN with the input's sign, payload dropped (bf16 0x7FC0/0xFFC0).
//   fp6/fp4 (no NaN, no inf): overflow and inf saturate to +-max; NaN -> -0, and -NaN -> +0
//   (the type's "NaN" is -0, then negated for a negative input). float8_e8m0fnu: 0 -> NaN,
//   negative -> NaN, overflow -> NaN; ties round up (RoundBitsToNearestEven sees the implicit
//   bit as the last bit) and [2^-127, 2^-126) rounds to 2^-126 unless it is exactly 2^-127.
//   numpy's own float16 casts (npy_floatbits_to_halfbits / npy_doublebits_to_halfbits) round
//   float64 directly (one rounding), and keep a signaling NaN signaling (payload truncated;
//   0x7C01 if it truncates to 0); float16 -> float32/64 and bfloat16 -> float32 (bit shifts)
//   keep it signaling too. An fnuz NaN (0x80) reads as a negative NaN (-> f32 0xFFC00000,
//   -> fp6 +0).
// torch / torch-2.12 -- PyTorch with pytorch/pytorch PR #178817 (merged 2026-04-17, commit
//   9deaf8d; torchao gates on 2.12.0.dev0, pytorch/ao #4364): c10/util/Float8_e4m3fn.h
//   fp8e4m3fn_from_fp32_value saturates: finite overflow and +-inf -> +-448, NaN -> 0x7F
//   with the sign. Observed with torch 2.15.0 (CPU, AVX2 kernels): e5m2 non-saturating, NaN ->
//   0x7F / 0xFF (sign kept, payload all ones); fnuz non-saturating; float8_e8m0fnu
//   (fp8e8m0fnu_from_fp32_value: lsb = exponent > 0) ignores the sign, 0 -> 0x00 (2^-127),
//   same tie rule as ml_dtypes; bf16 from float/double (vectorised cvtfp32_bf16) NaN ->
//   0xFFFF whatever its sign, bf16 from anything else (c10::BFloat16(float)) NaN -> 0x7FC0;
//   f16 (F16C) NaN keeps sign and payload, quieted. Decoding: an e4m3fn NaN reads as the f32
//   0x7FF00000 | sign; an fnuz or e8m0 NaN as the signaling f32 0x7F800001 (kept signaling
//   into float32, quieted by the float -> double / Half steps); bf16 -> f32 is a bit shift.
//   Every c10 type is built from float, so float64 tensors are rounded to float32 first
//   (f64 1+2^-11+2^-40 -> f16 1.0).
// torch-2.11 -- the same before PR #178817: e4m3fn casts do not saturate: anything above 464
//   (it rounds to 480) and +-inf -> NaN 0x7F/0xFF; 464 itself ties to 448. Observed with torch
//   2.11.0 (CPU). pytorch/ao #1912: eager casts did not saturate while Triton's did.
// ocp -- OCP OFP8 v1.0 (2023-12-01) and OCP MX v1.0: RNE; OFP8 allows saturating and
//   non-saturating conversion (default here: saturating, as MX elements are clamped to max
//   normal); fp6/fp4 elements clamp; the e8m0 shared scale is 2^floor(log2 amax) - emax_elem,
//   so e8m0 conversions default to rtz.
// p3109 -- IEEE P3109 interim report (P3109/Public): every rounding mode including
//   stochastic A/B/C, and SatFinite / SatPropagate / SatNone; no default saturation is
//   specified (default here SatNone, as graphcore gfloat's sat=False).
// x86-f16c -- VCVTPS2PH (Intel SDM): imm8 0 RNE, 1 down, 2 up, 3 RTZ (4: MXCSR.RC); measured
//   on this project's machine (AMD EPYC): MXCSR.DAZ is honoured for f32 inputs, MXCSR.FTZ is
//   ignored (f16 subnormal results are kept); VCVTPH2PS is exact and ignores DAZ.
// x86-avx512bf16 -- VCVTNEPS2BF16 (Intel SDM pseudocode convert_fp32_to_bfloat16): RNE,
//   denormal inputs -> signed zero, output denormals flushed, MXCSR neither consulted nor
//   updated; NaN -> x[31:16] with the quiet bit set.
// ieee -- IEEE 754-2019 / emu/SEMANTICS.md: everything the user asks for.
#include "fpconform/profile.hpp"

#include <algorithm>
#include <bit>

#include "fpconform/core/error.hpp"

namespace fpconform {

namespace {

using M = RoundingMode;
using S = Saturation;

const std::vector<M> kRne{M::rne};
const std::vector<M> kDirected4{M::rne, M::rtz, M::down, M::up};

const std::vector<std::string> kFp8{"e4m3", "e5m2"};
const std::vector<std::string> kFp6Fp4{"e2m3", "e3m2", "e2m1"};
const std::vector<std::string> kE8m0{"ue8m0"};
const std::vector<std::string> kF64{"f64"};
const std::vector<std::string> kF32{"f32"};
const std::vector<std::string> kF16{"f16"};
const std::vector<std::string> kBf16{"bf16"};
const std::vector<std::string> kF16Bf16{"f16", "bf16"};
const std::vector<std::string> kF32F64{"f32", "f64"};

ConversionRule rule(std::vector<std::string> to, std::vector<std::string> from,
                    std::string function) {
  ConversionRule r;
  r.to = std::move(to);
  r.from = std::move(from);
  r.function = std::move(function);
  return r;
}

// ---- nvidia ----
std::vector<ConversionRule> nvidia_rules() {
  std::vector<ConversionRule> v;
  {
    auto r = rule(kFp8, kF64, "__nv_cvt_double_to_fp8 (cuda_fp8.hpp)");
    r.modes = kRne;
    r.sats = {S::finite, S::none};
    r.default_sat = S::finite;  // the __nv_fp8_e4m3 / __nv_fp8_e5m2 constructors
    r.nan = NanConversion::ieee;    // NaN keeps its sign; e5m2 keeps payload bit 50
    v.push_back(r);
  }
  {
    auto r = rule(kFp8, {}, "__nv_cvt_float_to_fp8 / __nv_cvt_halfraw_to_fp8 / "
                            "__nv_cvt_bfloat16raw_to_fp8 (cuda_fp8.hpp)");
    r.modes = kRne;
    r.sats = {S::finite, S::none};
    r.default_sat = S::finite;
    r.nan = NanConversion::ones_positive;  // NaN is replaced by 0x7FFFFFFF before rounding
    v.push_back(r);
  }
  {
    auto r = rule(kFp6Fp4, {}, "__nv_cvt_{double,float,halfraw,bfloat16raw}_to_fp6 / _to_fp4 "
                               "(cuda_fp6.hpp, cuda_fp4.hpp)");
    r.modes = {M::rne, M::rtz};
    r.sats = {S::finite};
    r.default_sat = S::finite;
    r.nan_to_finite = NanToFinite::max_finite;
    r.note = "always saturating; NaN -> +max";
    v.push_back(r);
  }
  {
    auto r = rule(kE8m0, {}, "__nv_cvt_{float,double,bfloat16raw}_to_e8m0 (cuda_fp8.hpp)");
    r.modes = {M::rtz, M::up};
    r.default_mode = M::up;  // __nv_fp8_e8m0(float): __NV_SATFINITE, cudaRoundPosInf
    r.sats = {S::finite, S::none};
    r.default_sat = S::finite;
    r.magnitude_only = true;
    r.note = "the sign is ignored: e8m0 of |x|";
    v.push_back(r);
  }
  {
    auto r = rule(kF16Bf16, kF64, "__double2half / __double2bfloat16 (cuda_fp16.hpp, "
                                  "cuda_bf16.hpp)");
    r.modes = kRne;
    r.sats = {S::none};
    r.nan = NanConversion::ones_positive;
    v.push_back(r);
  }
  {
    auto r = rule(kF16, {}, "__float2half_rn / _rz / _rd / _ru, __nv_cvt_fp8_to_halfraw, "
                            "__nv_cvt_fp6_to_halfraw, __nv_cvt_fp4_to_halfraw");
    r.modes = kDirected4;
    r.sats = {S::none};
    r.nan = NanConversion::ones_positive;  // 0x7FFF
    v.push_back(r);
  }
  {
    auto r = rule(kBf16, {}, "__float2bfloat16_rn / _rz / _rd / _ru, __nv_cvt_e8m0_to_bf16raw");
    r.modes = kDirected4;
    r.sats = {S::none};
    r.nan = NanConversion::ones_positive;  // 0x7FFF
    v.push_back(r);
  }
  {
    auto r = rule(kF32, kF16, "__half2float (cuda_fp16.hpp)");
    r.modes = kRne;
    r.sats = {S::none};
    r.nan = NanConversion::ones_positive;  // 0x7FFFFFFF
    v.push_back(r);
  }
  {
    auto r = rule(kF32, kBf16, "__bfloat162float (cuda_bf16.hpp: a bit shift)");
    r.modes = kRne;
    r.sats = {S::none};
    r.nan = NanConversion::raw_truncate;  // a signaling NaN stays signaling
    v.push_back(r);
  }
  {
    auto r = rule({}, {}, "no NVIDIA host function for this pair: modelled as widening "
                          "through half/float (NaN -> canonical 0x7FFF...)");
    r.modes = kRne;
    r.sats = {S::none};
    r.nan = NanConversion::ones_positive;
    v.push_back(r);
  }
  return v;
}

// ---- ml_dtypes (numpy casts) ----
// What changed between the releases the profiles model (see the comment at the top).
struct MlDtypesRelease {
  // float64 arrays are rounded to float32 (RNE) before ConvertImpl: a double rounding (0.6).
  // 0.7 (PR #401) narrows them by round to odd (RoundToOddFloat), which is one rounding.
  bool f64_via_f32;
  M0Ties e8m0_ties;
};
constexpr MlDtypesRelease kMlDtypes06{true, M0Ties::away_low_binade_even};
constexpr MlDtypesRelease kMlDtypes07{false, M0Ties::away};

std::vector<ConversionRule> ml_dtypes_rules(const MlDtypesRelease& rel) {
  std::vector<ConversionRule> v;
  auto base = [](std::vector<std::string> to, std::vector<std::string> from, std::string fn) {
    auto r = rule(std::move(to), std::move(from), std::move(fn));
    r.modes = kRne;
    r.sats = {S::none};
    r.fnuz_nan_negative = true;
    return r;
  };
  const std::string f64_how = rel.f64_via_f32 ? "float64 through float32"
                                              : "float64 rounded to odd into float32";
  {
    auto r = base(kF16, kF32F64, "numpy float32/float64 -> float16 (npy_floatbits_to_halfbits)");
    r.nan = NanConversion::raw_truncate;
    v.push_back(r);
  }
  {
    auto r = base(kF32F64, kF16, "numpy float16 -> float32/float64 (npy_halfbits_to_floatbits)");
    r.nan = NanConversion::raw_truncate;  // a signaling NaN stays signaling
    v.push_back(r);
  }
  {
    auto r = base(kF32F64, kF32F64, "numpy float32 <-> float64 (IEEE hardware casts)");
    v.push_back(r);
  }
  {
    auto r = base(kF32, kBf16, "Eigen::bfloat16 -> float (bit shift)");
    r.nan = NanConversion::raw_truncate;  // a signaling NaN stays signaling
    v.push_back(r);
  }
  {
    auto r = base(kF64, kBf16, "bfloat16 -> float -> double (the last step IEEE)");
    v.push_back(r);
  }
  {
    auto r = base(kE8m0, {}, "float8_e8m0fnu ConvertImpl (" + f64_how + ")");
    r.via_f32 = rel.f64_via_f32;
    r.nan = NanConversion::quiet_signed;
    r.zero_to_nan = true;
    r.m0_ties = rel.e8m0_ties;
    r.note = rel.e8m0_ties == M0Ties::away
                 ? "0 -> NaN; ties round up; (0, 1.5 * 2^-127) -> 2^-127"
                 : "0 -> NaN; ties round up; (2^-127, 2^-126) -> 2^-126";
    v.push_back(r);
  }
  {
    auto r = base(kFp6Fp4, {}, "float6_e2m3fn / float6_e3m2fn / float4_e2m1fn ConvertImpl (" +
                                   f64_how + ")");
    r.via_f32 = rel.f64_via_f32;
    r.nan_to_finite = NanToFinite::negated_zero;
    r.note = "overflow and inf saturate; NaN -> -0 (-NaN -> +0)";
    v.push_back(r);
  }
  {
    auto r = base({}, {}, "ml_dtypes ConvertImpl (" + f64_how + ")");
    r.via_f32 = rel.f64_via_f32;
    r.nan = NanConversion::quiet_signed;
    v.push_back(r);
  }
  return v;
}

// ---- PyTorch ----
std::vector<ConversionRule> torch_rules(bool saturating_e4m3) {
  std::vector<ConversionRule> v;
  auto base = [](std::vector<std::string> to, std::vector<std::string> from, std::string fn) {
    auto r = rule(std::move(to), std::move(from), std::move(fn));
    r.modes = kRne;
    r.sats = {S::none};
    return r;
  };
  const std::vector<std::string> single_nan{"e4m3fnuz", "e5m2fnuz", "ue8m0"};
  // f32 payload bit 0 (the signaling NaN 0x7F800001), and f32 payload 0x300000 (0x7FF00000).
  constexpr std::uint64_t kPayloadLsbF32 = 1ull << 42;
  constexpr std::uint64_t kPayloadE4m3 = 3ull << 62;
  {
    auto r = base(kF32F64, kF32F64, "Tensor.to float32 <-> float64 (IEEE hardware casts)");
    v.push_back(r);
  }
  {
    auto r = base(kF32, kBf16, "c10::BFloat16 -> float (bit shift)");
    r.nan = NanConversion::raw_truncate;  // a signaling NaN stays signaling
    v.push_back(r);
  }
  {
    auto r = base(kF32, single_nan, "fnuz / e8m0 -> float (NaN: 0x7F800001)");
    r.nan_in_payload = kPayloadLsbF32;
    r.nan_in_signaling = true;
    r.nan = NanConversion::raw_truncate;
    v.push_back(r);
  }
  {
    auto r = base({"f64", "f16"}, single_nan, "fnuz / e8m0 -> float -> double / Half");
    r.nan_in_payload = kPayloadLsbF32;
    r.nan_in_signaling = true;
    v.push_back(r);
  }
  {
    auto r = base({"f32", "f64", "f16"}, {"e4m3"}, "e4m3fn -> float (NaN: 0x7FF00000 | sign)");
    r.nan_in_payload = kPayloadE4m3;
    v.push_back(r);
  }
  {
    auto r = base(kBf16, kF32F64, "c10::BFloat16 from float (vectorised cvtfp32_bf16)");
    r.via_f32 = true;
    r.nan = NanConversion::ones_negative;  // 0xFFFF
    v.push_back(r);
  }
  {
    auto r = base(kBf16, {}, "c10::BFloat16(float) (round_to_nearest_even)");
    r.nan = NanConversion::quiet_positive;  // 0x7FC0
    v.push_back(r);
  }
  {
    auto r = base({"e4m3"}, {}, "c10::Float8_e4m3fn (fp8e4m3fn_from_fp32_value)");
    r.via_f32 = true;
    r.sats = {saturating_e4m3 ? S::finite : S::none};
    r.default_sat = r.sats[0];
    r.note = saturating_e4m3 ? "finite overflow and inf -> +-448 (PR #178817)"
                             : "overflow and inf -> NaN (before PR #178817)";
    v.push_back(r);
  }
  {
    auto r = base({"e5m2"}, {}, "c10::Float8_e5m2 (fp8e5m2_from_fp32_value)");
    r.via_f32 = true;
    r.nan = NanConversion::ones_signed;  // 0x7F / 0xFF
    v.push_back(r);
  }
  {
    auto r = base(kE8m0, {}, "c10::Float8_e8m0fnu (fp8e8m0fnu_from_fp32_value)");
    r.via_f32 = true;
    r.magnitude_only = true;
    r.m0_ties = M0Ties::away_low_binade_even;
    r.note = "sign ignored; 0 -> 2^-127; ties round up";
    v.push_back(r);
  }
  {
    auto r = base({}, {}, "c10 casts (Half via F16C, fnuz types; float64 through float32)");
    r.via_f32 = true;
    v.push_back(r);
  }
  return v;
}

// ---- OCP OFP8 / MX ----
std::vector<ConversionRule> ocp_rules() {
  std::vector<ConversionRule> v;
  {
    auto r = rule(kFp8, {}, "OFP8 v1.0 conversion (saturating or not)");
    r.sats = {S::finite, S::none};
    r.default_sat = S::finite;
    v.push_back(r);
  }
  {
    auto r = rule(kFp6Fp4, {}, "MX v1.0 FP6/FP4 elements (clamped to max normal)");
    r.sats = {S::finite};
    r.default_sat = S::finite;
    v.push_back(r);
  }
  {
    auto r = rule(kE8m0, {}, "MX v1.0 E8M0 scale (2^floor(log2 x))");
    r.default_mode = M::rtz;
    v.push_back(r);
  }
  v.push_back(rule({}, {}, "IEEE 754 for the other formats"));
  return v;
}

std::vector<ConversionRule> p3109_rules() {
  auto r = rule({}, {}, "P3109 Convert (any rounding, SatFinite/SatPropagate/SatNone)");
  r.allow_stochastic_bits = true;
  return {r};
}

std::vector<ConversionRule> ieee_rules() {
  auto r = rule({}, {}, "IEEE 754 convertFormat (emu/SEMANTICS.md)");
  r.ftz = Choice::either;
  r.daz = Choice::either;
  r.allow_stochastic_bits = true;
  return {r};
}

std::vector<ConversionRule> f16c_rules() {
  std::vector<ConversionRule> v;
  {
    auto r = rule(kF16, kF32, "VCVTPS2PH (imm8: 0 rne, 1 down, 2 up, 3 rtz)");
    r.modes = kDirected4;
    r.sats = {S::none};
    r.daz = Choice::either;  // MXCSR.DAZ honoured (measured)
    r.note = "MXCSR.FTZ is ignored";
    v.push_back(r);
  }
  {
    auto r = rule(kF32, kF16, "VCVTPH2PS (exact)");
    r.modes = kRne;
    r.sats = {S::none};
    v.push_back(r);
  }
  {
    auto r = rule({}, {}, "F16C converts only between f32 and f16");
    r.unsupported = true;
    v.push_back(r);
  }
  return v;
}

std::vector<ConversionRule> avx512bf16_rules() {
  std::vector<ConversionRule> v;
  {
    auto r = rule(kBf16, kF32, "VCVTNEPS2BF16 (RNE, DAZ and FTZ forced, MXCSR ignored)");
    r.modes = kRne;
    r.sats = {S::none};
    r.ftz = Choice::on;
    r.daz = Choice::on;
    v.push_back(r);
  }
  {
    auto r = rule({}, {}, "AVX512-BF16 converts only f32 to bf16");
    r.unsupported = true;
    v.push_back(r);
  }
  return v;
}

std::vector<Profile> build_profiles() {
  std::vector<Profile> p;
  p.push_back({"ieee", "IEEE 754 conversions as emu/SEMANTICS.md defines them (the default)",
               "IEEE 754-2019 §5.4.2, §7; emu/SEMANTICS.md", ieee_rules()});
  p.push_back({"nvidia",
               "CUDA host conversions: fp8/fp6/fp4/e8m0 intrinsics, __float2half_*, "
               "__float2bfloat16_*",
               "CUDA 13.0 cuda_fp8.hpp, cuda_fp6.hpp, cuda_fp4.hpp, cuda_fp16.hpp, cuda_bf16.hpp "
               "(host code paths)",
               nvidia_rules()});
  p.push_back({"ml_dtypes", "numpy casts to ml_dtypes types, 0.7 and later (float64 rounded once)",
               "ml_dtypes 0.7.0 + numpy 2.4.6 (observed; include/float8.h RoundToOddFloat, "
               "ConvertImpl; jax-ml/ml_dtypes PR #401, #434)",
               ml_dtypes_rules(kMlDtypes07)});
  p.push_back({"ml_dtypes-0.7", "numpy casts to ml_dtypes types, 0.7 (same as ml_dtypes)",
               "ml_dtypes 0.7.0 + numpy 2.4.6 (observed; jax-ml/ml_dtypes PR #401, #434)",
               ml_dtypes_rules(kMlDtypes07)});
  p.push_back({"ml_dtypes-0.6", "numpy casts to ml_dtypes types, 0.6 (float64 through float32)",
               "ml_dtypes 0.6.0 + numpy 2.4.6 (observed; include/float8.h ConvertImpl)",
               ml_dtypes_rules(kMlDtypes06)});
  p.push_back({"torch", "PyTorch eager CPU casts, 2.12 and later (e4m3fn saturates)",
               "PyTorch >= 2.12 (pytorch/pytorch PR #178817; observed with 2.15.0 CPU)",
               torch_rules(true)});
  p.push_back({"torch-2.12", "PyTorch eager CPU casts with PR #178817 (same as torch)",
               "PyTorch 2.12 (pytorch/pytorch PR #178817, pytorch/ao #4364)", torch_rules(true)});
  p.push_back({"torch-2.11", "PyTorch eager CPU casts before PR #178817 (e4m3fn overflow -> NaN)",
               "PyTorch <= 2.11 (c10/util/Float8_e4m3fn.h before PR #178817; pytorch/ao #1912)",
               torch_rules(false)});
  p.push_back({"ocp", "OCP OFP8 v1.0 and MX v1.0: RNE, saturating fp8 by default, clamped MX "
                      "elements, e8m0 scales by floor",
               "OCP 8-bit Floating Point Specification (OFP8) rev 1.0; OCP Microscaling "
               "Formats (MX) v1.0",
               ocp_rules()});
  p.push_back({"p3109", "IEEE P3109 conversions: every rounding mode, SatFinite/SatPropagate/"
                        "SatNone",
               "IEEE P3109 interim report (P3109/Public)", p3109_rules()});
  p.push_back({"x86-f16c", "x86 F16C VCVTPS2PH / VCVTPH2PS",
               "Intel SDM Vol. 2 VCVTPS2PH; MXCSR behaviour measured on AMD EPYC",
               f16c_rules()});
  p.push_back({"x86-avx512bf16", "x86 AVX512-BF16 VCVTNEPS2BF16",
               "Intel SDM Vol. 2 VCVTNEPS2BF16 (convert_fp32_to_bfloat16)",
               avx512bf16_rules()});
  return p;
}

// The built-in formats a rule names, resolved once.
const Format& builtin(const std::string& name) {
  static const std::vector<Format>& table = builtin_formats();
  for (const auto& f : table)
    if (f.name == name) return f;
  throw Error("profile", "internal: unknown built-in format '" + name + "'");
}

bool matches(const std::vector<std::string>& names, const Format& f) {
  if (names.empty()) return true;
  for (const auto& n : names)
    if (builtin(n) == f) return true;
  return false;
}

template <class T, class ToString>
std::string join(const std::vector<T>& v, ToString ts) {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += ", ";
    s += std::string(ts(x));
  }
  return s;
}

[[noreturn]] void refuse(std::string_view what, const Profile& p, const ConversionRule& r,
                         const std::string& msg) {
  throw Error(std::string(what), "profile " + p.name + " (" + r.function + "): " + msg);
}

bool resolve_choice(Choice c, bool dflt, const std::optional<bool>& user, const char* name,
                    std::string_view what, const Profile& p, const ConversionRule& r) {
  if (!user) return c == Choice::on ? true : c == Choice::off ? false : dflt;
  if (c == Choice::on && !*user) refuse(what, p, r, std::string(name) + " is always on");
  if (c == Choice::off && *user) refuse(what, p, r, std::string(name) + " is not available");
  return *user;
}

int exponent_of(const ExactValue& x) {
  const auto hi = static_cast<std::uint64_t>(x.sig >> 64);
  const int len = hi ? 128 - std::countl_zero(hi)
                     : 64 - std::countl_zero(static_cast<std::uint64_t>(x.sig));
  return x.exp + len - 1;
}

}  // namespace

const std::vector<Profile>& builtin_profiles() {
  static const std::vector<Profile> profiles = build_profiles();
  return profiles;
}

const Profile& find_profile(std::string_view name, std::string_view what) {
  for (const auto& p : builtin_profiles())
    if (p.name == name) return p;
  throw Error(std::string(what),
              "unknown profile '" + std::string(name) + "' (" +
                  join(builtin_profiles(), [](const Profile& q) { return q.name; }) + ")");
}

const ConversionRule& find_rule(const Profile& p, const Format& from, const Format& to) {
  for (const auto& r : p.rules)
    if (matches(r.to, to) && matches(r.from, from)) return r;
  return p.rules.back();  // every profile ends with a catch-all
}

namespace {

Rounding resolve(const Profile& p, const ConversionRule& r, const Format& from, const Format& to,
                 const UserOptions& user, std::string_view what) {
  if (r.unsupported)
    refuse(what, p, r, "cannot convert " + from.name + " to " + to.name);
  Rounding out;
  if (user.mode) {
    if (!r.modes.empty() && std::find(r.modes.begin(), r.modes.end(), *user.mode) == r.modes.end())
      refuse(what, p, r,
             "--round " + std::string(to_string(*user.mode)) + " is not available (it offers " +
                 join(r.modes, [](M m) { return to_string(m); }) + ")");
    out.mode = *user.mode;
  } else if (r.default_mode) {
    out.mode = *r.default_mode;
  } else {
    refuse(what, p, r, "needs an explicit --round (" +
                           join(r.modes, [](M m) { return to_string(m); }) + ")");
  }
  if (user.sat) {
    if (!r.sats.empty() && std::find(r.sats.begin(), r.sats.end(), *user.sat) == r.sats.end())
      refuse(what, p, r,
             "--sat " + std::string(to_string(*user.sat)) + " is not available (it offers " +
                 join(r.sats, [](S s) { return to_string(s); }) + ")");
    out.sat = *user.sat;
  } else {
    out.sat = r.default_sat;
  }
  out.ftz = resolve_choice(r.ftz, false, user.ftz, "--ftz", what, p, r);
  out.daz = resolve_choice(r.daz, r.default_daz, user.daz, "--daz", what, p, r);
  out.tininess = user.tininess.value_or(Tininess::after_rounding);
  if (is_stochastic(out.mode)) {
    if (!user.stochastic_bits)
      refuse(what, p, r, "stochastic rounding needs the number of random bits (--sr-bits)");
    out.stochastic_bits = *user.stochastic_bits;
    out.random = user.random.value_or(0);
  } else if (user.stochastic_bits && !r.allow_stochastic_bits) {
    refuse(what, p, r, "has no stochastic rounding");
  }
  return out;
}

}  // namespace

Rounding resolve_rounding(const Profile& p, const Format& from, const Format& to,
                          const UserOptions& user, std::string_view what) {
  return resolve(p, find_rule(p, from, to), from, to, user, what);
}

namespace {

bool same_options(const UserOptions& a, const UserOptions& b) {
  return a.mode == b.mode && a.sat == b.sat && a.ftz == b.ftz && a.daz == b.daz &&
         a.tininess == b.tininess && a.stochastic_bits == b.stochastic_bits && a.random == b.random;
}

// Bulk callers convert many codes with the same profile, formats and options: remember the
// last rule and Rounding per thread (the lookup compares format names, the rest is cheap).
struct Resolved {
  const Profile* profile = nullptr;
  std::string profile_name;
  Format from, to;
  UserOptions user;
  const ConversionRule* rule = nullptr;
  Rounding rounding;
};

}  // namespace

Rounded convert_with_profile(std::uint64_t bits, const Format& from, const Format& to,
                             const Profile& p, const UserOptions& user, std::string_view what) {
  thread_local Resolved memo;
  if (memo.profile != &p || memo.profile_name != p.name || !(memo.from == from) || !(memo.to == to) ||
      !same_options(memo.user, user)) {
    const ConversionRule& found = find_rule(p, from, to);
    const Rounding resolved = resolve(p, found, from, to, user, what);  // may throw
    memo.profile = &p;
    memo.profile_name = p.name;
    memo.from = from;
    memo.to = to;
    memo.user = user;
    memo.rule = &found;
    memo.rounding = resolved;
  }
  const ConversionRule& rule = *memo.rule;
  const Rounding& r = memo.rounding;

  ExactValue x = decode(bits, from, r.daz);
  std::uint8_t extra = 0;
  if (rule.via_f32) {
    static const Format& f32 = builtin("f32");
    if (!(from == f32)) {
      const Rounded y = round_to_format(x, f32, Rounding{});
      extra = y.flags.bits;
      x = decode(y.bits, f32);
    }
  }
  if (x.is_nan()) {
    if (rule.fnuz_nan_negative && from.nan == NanEncoding::negative_zero) x.negative = true;
    if (rule.nan_in_payload) {
      x.nan_payload = *rule.nan_in_payload;
      x.signaling = rule.nan_in_signaling;
    }
  }
  const bool signaling = x.signaling;

  if (x.is_nan()) {
    if (!to.has_nan()) {
      switch (rule.nan_to_finite) {
        case NanToFinite::zero: break;  // round_to_format: +0, invalid
        case NanToFinite::max_finite: {
          Rounded out;
          out.bits = to.max_finite_code();
          out.flags.bits = extra | Flags::invalid;
          return out;
        }
        case NanToFinite::negated_zero: {
          Rounded out;
          out.bits = to.zero_code(!x.negative);
          out.flags.bits = extra | Flags::invalid;
          return out;
        }
      }
    } else {
      switch (rule.nan) {
        case NanConversion::ieee:
        case NanConversion::raw_truncate: break;
        case NanConversion::quiet_signed: x = ExactValue::quiet_nan(x.negative, 0); break;
        case NanConversion::ones_positive: x = ExactValue::quiet_nan(false, ~0ull); break;
        case NanConversion::ones_signed: x = ExactValue::quiet_nan(x.negative, ~0ull); break;
        case NanConversion::ones_negative: x = ExactValue::quiet_nan(true, ~0ull); break;
        case NanConversion::quiet_positive: x = ExactValue::quiet_nan(false, 0); break;
      }
    }
  }
  if (rule.magnitude_only) x.negative = false;
  if (rule.zero_to_nan && x.is_zero() && !to.has_zero && to.has_nan()) {
    Rounded out;
    out.bits = to.nan_code(false);
    out.flags.bits = extra | Flags::invalid;
    return out;
  }

  Rounded out;
  const bool m0_target = to.man_bits == 0 && !to.subnormals && !to.has_zero;
  if (rule.m0_ties == M0Ties::away_low_binade_even && m0_target && x.is_finite_nonzero()) {
    // Round into the same layout with code 0 read as a (subnormal) zero: its grid below
    // 2^(emin+1) is 2^(emin+1), and a tie there goes to the even significand 0. Above it the
    // significand is the implicit 1 (odd), so a tie goes up: rna. Code 0 then stands for
    // 2^emin again.
    Format g = to;
    g.subnormals = true;
    g.has_zero = true;
    Rounding rg = r;
    if (r.mode == M::rne && exponent_of(x) >= g.emin()) rg.mode = M::rna;
    out = round_to_format(x, g, rg);
  } else if (rule.m0_ties == M0Ties::away && m0_target && x.is_finite_nonzero()) {
    // Ties away everywhere; below 2^emin the nearest value is 2^emin (code 0) either way.
    Rounding rg = r;
    if (r.mode == M::rne) rg.mode = M::rna;
    out = round_to_format(x, to, rg);
  } else {
    out = round_to_format(x, to, r);
  }

  if (rule.nan == NanConversion::raw_truncate && signaling && to.nan == NanEncoding::ieee &&
      to.is_nan_code(out.bits)) {
    const std::uint64_t q = to.quiet_bit();
    out.bits &= ~q;
    if ((out.bits & ((1ull << to.man_bits) - 1)) == 0) out.bits |= 1;
  }
  out.flags.bits |= extra;
  return out;
}

}  // namespace fpconform
