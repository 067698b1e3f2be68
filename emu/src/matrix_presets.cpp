// Matrix-unit presets as data. Sources:
//  [KM]  F. Khattak, M. Mikaitis, "Accurate Models of NVIDIA Tensor Cores", arXiv 2512.07004,
//        and north-numerical-computing/MATLAB-tensor-core (min_exp_limit, neab = F - 23; AMD:
//        models/CDNA1.m, CDNA2.m, CDNA3.m);
//  [MS]  Xie et al., "MMA-Sim", arXiv 2511.10909, github microsoft/MMA-Sim:
//        mmasim/simulator/nv.py (F per architecture; Ampere/Ada k split in halves; fp64 mma =
//        a chain of fma), mmasim/simulator/amd.py + functions.py (CDNA1/2 pairwise trees of
//        fp32 fma, CDNA2 flushes; CDNA3 amd_fused_dot_add: F = 24, late C with floor to 31 / 24
//        fraction bits, fp8 even/odd groups and C dropped below max - 25; products >= 2^128
//        are infinite), mmasim/mmasim/amd/sim.py (newer: CDNA1 = exact FDPA, L = 4 / 2);
//  [MS2] MMA-Sim 2.1.1 (PyPI mmasim), mmasim/nv_ptx/sim.py: the zero-term exponent per
//        architecture, f32 output -132 (Turing, Ampere, Ada) / -133 (Hopper, Blackwell, RTX
//        Blackwell), f16 output -19 (Volta) / -20 (Turing, Ampere, Ada) / -21 (Hopper and
//        later; wgmma and tcgen05 too); the fp4 kinds (G = 16, F = 35) -139, and a sub-sum that
//        cancels to zero keeps its scales' exponent (arithmetic/fdpa.py: "zeros resulted from
//        summation do not apply e_zero"). Compared row by row: reports/peers/mmasim.md;
//  [FHMP] Fasi, Higham, Mikaitis, Pranesh, PeerJ CS 7:e330 (2021) (V100: L = 4, RZ fp32 out);
//  [DS]  DeepSeek-V3, arXiv 2412.19437 3.3.2 (Hopper FP8 accumulation keeps ~14 bits).
//        Block-scaled MMA (tcgen05.mma kind::mxf8f6f4 / mxf4 / mxf4nvf4, sm_120 mma.sync with
//        block scale): simulator/nv.py + functions.py nv_fused_dot_add (scale_a/scale_b: the
//        scale exponents added to each product's, F = 25) and nv_fused_dot_add_with_block_scale
//        (fp4 kinds: F = 35, exact sub-sums of 16 products times their scales, aligned by the
//        scale exponents; ue4m3 scales read as |x|; NaN scale or C: 0x7FFFFFFF; RZ into f32);
// Rows marked "dumps" are reproduced bit for bit by suites/matrix (recorded V100/A100/H100
// outputs in suites/data/tensorcore-dumps). AMD rows have no recorded data here: they follow
// the published models. AMD's NaN bit pattern is not measured by either source: the IEEE
// default NaN is assumed (policy "ieee").
#include "fpconform/matrix_presets.hpp"

#include <climits>
#include <optional>
#include <string>

#include "fpconform/core/error.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/fdpa_spec.hpp"

namespace fpconform {

namespace {

constexpr int kNone = INT_MIN;

// NVIDIA fused block: L products + C in one alignment, F fraction bits, truncation.
constexpr FdpaParams nv(int block, int frac_bits, int zero_exp, int acc_frac_bits = -1) {
  FdpaParams p;
  p.block = block;
  p.frac_bits = frac_bits;
  p.zero_exp = zero_exp;
  p.acc_frac_bits = acc_frac_bits;
  return p;
}

// Two output rules measured on an H200 (reports/devices/nvidia-h200). Hopper's units truncate
// into f32 yet overflow to infinity: every bf16 and tf32 row (mma.sync and wgmma) whose exact sum
// passes f32's range came back +-inf, not the +-max finite that RZ gives (116,037 + 86,609 rows
// per instruction). A nonzero sum that rounds to zero is +0, whatever its sign: 52 rows of each
// f16 -> f16 instruction, 4 of fp8 mma.sync into f16, 5 bf16 and 7 tf32 rows into f32.
constexpr FdpaParams hopper_unit(int block, int frac_bits, int zero_exp, int acc_frac_bits = -1) {
  FdpaParams p = nv(block, frac_bits, zero_exp, acc_frac_bits);
  p.out_rounding.sat = Saturation::infinite;
  p.underflow_zero_positive = true;
  return p;
}

// Hopper has no fp8 mma.sync in hardware (NVIDIA/cutlass#1986): for
// mma.sync.m16n8k32.f16.e4m3.e4m3.f16 on sm_90, ptxas (CUDA 13.0) emits F2FP unpacks to f16,
// HMMA.16816.F16 on the k with k % 4 in {0, 1} from C = +0, HMMA.16816.F16 on k % 4 in {2, 3}
// chained on that, and HADD2 D = T + C (RNE). So: two Hopper f16 blocks (L = 16, F = 25), then
// an f16 add. Found by disassembling the instruction and confirmed on all 10,000 H100 fp8 rows
// with f16 output in suites/data/tensorcore-dumps (recorded with that mma.sync, per the
// authors' mma_fp8_output_fp16.cu), which no published model reproduces.
constexpr FdpaParams hopper_mma_fp8() {
  FdpaParams p = hopper_unit(16, 25, -133);
  p.instr_k = 32;
  p.k_order = KOrder::pairs_mod4;
  p.c_last = true;
  return p;
}
constexpr std::string_view kHopperMmaFp8 =
    "fpconform: ptxas sm_90 SASS of fp8 mma.sync (2x HMMA.16816.F16 + HADD2); dumps H100 "
    "E4M3/E5M2 fp16 out, 10,000 rows; H200 fp16 and fp32 out (reports/devices/nvidia-h200)";

// A chain of IEEE fma in the output format (fp64 MMA, fp32 MFMA, fp32-sequential).
constexpr FdpaParams sequential(std::string_view nan) {
  FdpaParams p;
  p.structure = FdpaStructure::sequential;
  p.c_in_block = false;  // not a fused block
  p.out_rounding = Rounding{RoundingMode::rne};
  p.nan = nan;
  return p;
}

// x86 units as reduction trees of IEEE fp32 operations, with the MXCSR-independent DAZ/FTZ and
// x86's NaN choice (recorded rows of suites/data/cpu-units: a Xeon of family 6, model 207).
constexpr FdpaParams x86_tree(std::string_view tree) {
  FdpaParams p;
  p.structure = FdpaStructure::tree;
  p.tree = tree;
  p.c_in_block = false;
  p.out_rounding = Rounding{RoundingMode::rne};
  p.flush_subnormal_inputs = true;
  p.flush_subnormal_outputs = true;
  p.nan = "x86";
  return p;
}
// TDPBF16PS per row and column: the even and the odd k in two fp32 FMA chains, their sum, then C.
constexpr std::string_view kAmxBf16Tree =
    "(c ((((((((((((((((0 2) 4) 6) 8) 10) 12) 14) 16) 18) 20) 22) 24) 26) 28) 30) "
    "(((((((((((((((1 3) 5) 7) 9) 11) 13) 15) 17) 19) 21) 23) 25) 27) 29) 31)))";
constexpr std::string_view kX86Rows =
    "recorded rows, suites/data/cpu-units (Xeon 6/207; every row reproduced, NaN payloads too)";

constexpr FdpaParams x86_fp16_chain() {
  FdpaParams p = sequential("x86");
  p.nan_b_first = true;
  return p;
}

// AMD CDNA3 two-stage block [MS]: products fused with F = 24 (truncated), then the sum and C
// aligned to max(E_s, e_c) with floor to 31 and 24 fraction bits, RNE into f32.
constexpr FdpaParams cdna3(int block, int interleave, int c_drop_below) {
  FdpaParams p;
  p.block = block;
  p.frac_bits = 24;
  p.c_in_block = false;
  p.late_c = true;
  p.interleave = interleave;
  p.group_align = AlignRounding::down;
  p.late_sum_frac_bits = 31;
  p.late_c_frac_bits = 24;
  p.late_c_drop_below = c_drop_below;
  p.late_align = AlignRounding::down;
  p.product_overflow = true;
  p.out_rounding = Rounding{RoundingMode::rne};
  p.nan = "ieee";
  return p;
}

// AMD CDNA1/CDNA2 [MS]: groups of `group` products, fp32 fma(a, b, 0), a balanced tree of fp32
// additions, sum += group; CDNA2 flushes subnormal inputs and C to +0 and every result to 0.
constexpr FdpaParams pairwise(int group, bool flush) {
  FdpaParams p;
  p.structure = FdpaStructure::pairwise;
  p.c_in_block = false;  // not a fused block
  p.block = group;
  p.out_rounding = Rounding{RoundingMode::rne};
  p.flush_subnormal_inputs = flush;
  p.flushed_inputs_positive = flush;
  p.flush_subnormal_outputs = flush;
  p.nan = "ieee";
  return p;
}

// Exact sum of `block` products (0: all) and C, one rounding to nearest even.
constexpr FdpaParams exact(int block) {
  FdpaParams p;
  p.structure = FdpaStructure::exact;
  p.c_in_block = false;  // not a fused block
  p.block = block;
  p.out_rounding = Rounding{RoundingMode::rne};
  p.nan = "ieee";
  return p;
}

// Blackwell block-scaled units [MS]: kind::mxf8f6f4 (k32, one ue8m0 pair per 32 elements, the
// plain fused block with F = 25; the same numbers as kind::f8f6f4 with unit scales), and the fp4
// kinds (k64, exact sub-sums of 16, F = 35, f32 RZ only). zero_exp: -133 ([KM]'s B200 value,
// measured for f16/bf16/tf32; [MS2] likewise) and -139 for the fp4 kinds ([MS2]).
constexpr FdpaParams mx_f8f6f4() {
  FdpaParams p = nv(32, 25, -133);
  p.scale_block = 32;
  return p;
}
constexpr FdpaParams mx_f4(int scale_block) {
  FdpaParams p = nv(64, 35, -139);  // [MS2]
  p.scale_block = scale_block;
  p.subsum = 16;
  p.out_rounding = Rounding{RoundingMode::rtz};
  return p;
}

using R = OutputRule;

constexpr MatrixUnitEntry kEntries[] = {
    // ---- NVIDIA (fused blocks) ----
    {"volta", "f16", nv(4, 23, kNone), R::nvidia, "[FHMP], [KM]; dumps V100 fp16 (fp32 and fp16 out)", -19},
    {"turing", "f16", nv(8, 24, -132), R::nvidia, "[MS] nv.py (Turing F = 24; m16n8k8: L = 8); zero exponent [MS2]", -20},
    {"ampere", "f16", nv(8, 24, -132), R::nvidia, "[KM]; dumps A100 fp16 (fp32 and fp16 out)", -20},
    {"ampere", "bf16", nv(8, 24, -132), R::nvidia, "[KM]; dumps A100 bf16", -20},
    {"ampere", "tf32", nv(4, 24, -132), R::nvidia, "[KM]; dumps A100 tf32", -20},
    {"ampere", "f64", sequential("nvidia"), R::f64, "[MS] nv.py: fp64 mma (m8n8k4) = fma chain in k order"},
    {"ada", "f16", nv(8, 24, -132), R::nvidia, "[MS] (as Ampere)", -20},
    {"ada", "bf16", nv(8, 24, -132), R::nvidia, "[MS] (as Ampere)", -20},
    {"ada", "tf32", nv(4, 24, -132), R::nvidia, "[MS] (as Ampere)", -20},
    // fp8 -> f16 (mma.sync m16n8k16/k32 .f16.e4m3.e4m3.f16): [MS2] nv_ptx/sim.py gives Ada's fp8
    // F = 13 and rho = RNE-FP16 with no e8m13 cut, e_zero -20; no recorded Ada row here.
    {"ada", "e4m3", nv(16, 13, -133, 13), R::fp8_e8m13, "[MS]; FP22 accumulator (SageAttention2, arXiv 2411.10958); f16 out [MS2]", -20},
    {"ada", "e5m2", nv(16, 13, -133, 13), R::fp8_e8m13, "[MS]; FP22 accumulator; f16 out [MS2]", -20},
    {"ada", "f64", sequential("nvidia"), R::f64, "[MS] nv_ptx/isa_mma.py (Ada has Ampere's f64 mma) + nv.py: fma chain"},
    {"hopper", "f16", hopper_unit(16, 25, -133), R::nvidia, "[KM]; dumps H100 fp16 (fp32 and fp16 out)", -21},
    {"hopper", "bf16", hopper_unit(16, 25, -133), R::nvidia, "[KM]; dumps H100 bf16", -21},
    {"hopper", "tf32", hopper_unit(8, 25, -133), R::nvidia, "[KM]; dumps H100 tf32", -21},
    {"hopper", "e4m3", hopper_unit(32, 13, -133, 13), R::fp8_e8m13, "[KM], [DS] (wgmma); dumps H100 E4M3 fp32 out (C = 0)", -21},
    {"hopper", "e5m2", hopper_unit(32, 13, -133, 13), R::fp8_e8m13, "[KM], [DS] (wgmma); dumps H100 E5M2 fp32 out (C = 0)", -21},
    // wgmma: the whole k of the instruction in one block (k16 f16/bf16, k8 tf32, k32 fp8), F = 25
    // and the e8m13 fp8 accumulator ([MS] nv.py WGMMASim); the same rows as `hopper`.
    {"hopper-wgmma", "f16", hopper_unit(16, 25, -133), R::nvidia, "= hopper: [MS] nv.py WGMMASim, [KM]", -21},
    {"hopper-wgmma", "bf16", hopper_unit(16, 25, -133), R::nvidia, "= hopper: [MS] nv.py WGMMASim, [KM]", -21},
    {"hopper-wgmma", "tf32", hopper_unit(8, 25, -133), R::nvidia, "= hopper: [MS] nv.py WGMMASim, [KM]", -21},
    {"hopper-wgmma", "e4m3", hopper_unit(32, 13, -133, 13), R::fp8_e8m13, "= hopper: [MS] WGMMASim (e8m13), [DS]", -21},
    {"hopper-wgmma", "e5m2", hopper_unit(32, 13, -133, 13), R::fp8_e8m13, "= hopper: [MS] WGMMASim (e8m13), [DS]", -21},
    // mma.sync on sm_90: [MS] nv.py MMASim with arch Hopper: F = 25, the instruction's k fused
    // in one block (no split, unlike Ampere/Ada); MMA-Sim lists f16/bf16 (m16n8k16), tf32
    // (m16n8k8) and f64, no fp8 mma.sync for Hopper. zero_exp -133 as [KM]'s H100 model.
    {"hopper-mma", "f16", hopper_unit(16, 25, -133), R::nvidia, "[MS] nv.py (Hopper mma: F = 25, k16 unsplit), [KM] H100 zero exponent", -21},
    {"hopper-mma", "bf16", hopper_unit(16, 25, -133), R::nvidia, "[MS] nv.py (Hopper mma: F = 25, k16 unsplit), [KM] H100 zero exponent", -21},
    {"hopper-mma", "tf32", hopper_unit(8, 25, -133), R::nvidia, "[MS] nv.py (Hopper mma: F = 25, k8 unsplit), [KM] H100 zero exponent", -21},
    {"hopper-mma", "e4m3", hopper_mma_fp8(), R::nvidia, kHopperMmaFp8},
    {"hopper-mma", "e5m2", hopper_mma_fp8(), R::nvidia, kHopperMmaFp8},
    {"hopper-mma", "f64", sequential("nvidia"), R::f64, "[MS] nv.py + nv_ptx/isa_mma.py (sm_90 f64 mma = fma chain)"},
    {"blackwell", "f16", nv(16, 25, -133), R::nvidia, "[KM], [MS] (B200 tcgen05)", -21},
    {"blackwell", "bf16", nv(16, 25, -133), R::nvidia, "[KM], [MS] (B200 tcgen05)", -21},
    {"blackwell", "tf32", nv(8, 25, -133), R::nvidia, "[KM], [MS] (B200 tcgen05)", -21},
    // fp8/fp6/fp4 (kind::f8f6f4 and, with fdpa_scaled and ue8m0 scales, kind::mxf8f6f4).
    {"blackwell", "e4m3", mx_f8f6f4(), R::nvidia, "[MS] (B200 tcgen05: no 13-bit cut); mxf8f6f4: [MS] nv_fused_dot_add with scales", -21},
    // The mma.sync path of Blackwell (sm_100) and RTX Blackwell (sm_120): MMASim with F = 25
    // (arch_accum_fractional_bits), one fused block per instruction (no k split outside
    // Ampere/Ada), no 13-bit cut (Ada-only). Zero terms count as 2^-133 ([MS2]; the older
    // nv.py gave them no exponent). Not yet checked against recorded data.
    {"blackwell-mma", "f16", nv(16, 25, -133), R::nvidia, "[MS] nv.py MMASim (Blackwell: F = 25, m16n8k16 unsplit); zero exponent [MS2]", -21},
    {"blackwell-mma", "bf16", nv(16, 25, -133), R::nvidia, "[MS] nv.py MMASim (Blackwell: F = 25, m16n8k16 unsplit); zero exponent [MS2]", -21},
    {"blackwell-mma", "tf32", nv(8, 25, -133), R::nvidia, "[MS] nv.py MMASim (Blackwell: F = 25, m16n8k8 unsplit); zero exponent [MS2]", -21},
    {"blackwell-mma", "e4m3", nv(32, 25, -133), R::nvidia, "[MS] nv.py MMASim (Blackwell: F = 25, m16n8k32 unsplit); zero exponent [MS2]", -21},
    {"blackwell-mma", "e5m2", nv(32, 25, -133), R::nvidia, "[MS] nv.py MMASim (Blackwell: F = 25, m16n8k32 unsplit); zero exponent [MS2]", -21},
    {"rtx-blackwell", "f16", nv(16, 25, -133), R::nvidia, "[MS] nv.py, kernels/nv_rtxblackwell.py (sm_120 mma.sync m16n8k16); zero exponent [MS2]", -21},
    {"rtx-blackwell", "bf16", nv(16, 25, -133), R::nvidia, "[MS] nv.py, kernels/nv_rtxblackwell.py (sm_120 mma.sync m16n8k16); zero exponent [MS2]", -21},
    {"rtx-blackwell", "tf32", nv(8, 25, -133), R::nvidia, "[MS] nv.py, kernels/nv_rtxblackwell.py (sm_120 mma.sync m16n8k8); zero exponent [MS2]", -21},
    {"rtx-blackwell", "e4m3", nv(32, 25, -133), R::nvidia, "[MS] nv.py, kernels/nv_rtxblackwell.py (sm_120 f8f6f4 m16n8k32); zero exponent [MS2]", -21},
    {"rtx-blackwell", "e5m2", nv(32, 25, -133), R::nvidia, "[MS] nv.py, kernels/nv_rtxblackwell.py (sm_120 f8f6f4 m16n8k32); zero exponent [MS2]", -21},
    {"blackwell", "e5m2", mx_f8f6f4(), R::nvidia, "[MS] nv.py TCGen05MMASim (f8f6f4/mxf8f6f4: F = 25, k32 fused), nv_fused_dot_add with scales", -21},
    {"blackwell", "e2m3", mx_f8f6f4(), R::nvidia, "[MS] nv.py TCGen05MMASim (f8f6f4/mxf8f6f4: F = 25, k32 fused), nv_fused_dot_add with scales", -21},
    {"blackwell", "e3m2", mx_f8f6f4(), R::nvidia, "[MS] nv.py TCGen05MMASim (f8f6f4/mxf8f6f4: F = 25, k32 fused), nv_fused_dot_add with scales", -21},
    {"blackwell", "e2m1", mx_f8f6f4(), R::nvidia, "[MS] nv.py TCGen05MMASim (f8f6f4/mxf8f6f4: F = 25, k32 fused), nv_fused_dot_add with scales", -21},
    // fp4 kinds: kind::mxf4 (ue8m0 per 32) and kind::mxf4nvf4 (nvf4: ue4m3 per 16), k64.
    {"blackwell-mxf4", "e2m1", mx_f4(32), R::f32, "[MS] functions.py nv_fused_dot_add_with_block_scale (mxf4: exact sub-sums of 16, F = 35, ue8m0 per 32, RZ)"},
    {"blackwell-nvf4", "e2m1", mx_f4(16), R::f32, "[MS] functions.py nv_fused_dot_add_with_block_scale (mxf4nvf4: exact sub-sums of 16, F = 35, ue4m3 per 16, RZ)"},
    // ---- AMD CDNA1 (MI100). The sources disagree: cdna1 = [MS] simulator/amd.py (pairwise
    // fp32 tree, the model of the paper's v1); cdna1-km = [KM] models/CDNA1.m (exact sum of
    // 4 (f16) / 2 (bf16) products and C, then RNE; correct_rounding = 1), which MMA-Sim's newer
    // mmasim/amd/sim.py also adopts (MMA_E_FDPA, L_max 4 / 2). ----
    {"cdna1", "f16", pairwise(4, false), R::f32, "[MS] simulator/amd.py (group 4, pairwise_dot)"},
    {"cdna1", "bf16", pairwise(2, false), R::f32, "[MS] simulator/amd.py (group 2, pairwise_dot)"},
    {"cdna1", "f32", sequential("ieee"), R::f32, "[MS] simulator/amd.py (f32: fma chain)"},
    {"cdna1-km", "f16", exact(4), R::f32, "[KM] CDNA1.m (fma 4, exact, rne); [MS] amd/sim.py MMA_E_FDPA(4)"},
    {"cdna1-km", "bf16", exact(2), R::f32, "[KM] CDNA1.m (fma 2, exact, rne); [MS] amd/sim.py MMA_E_FDPA(2)"},
    {"cdna1-km", "f32", sequential("ieee"), R::f32, "[KM] CDNA1.m note (fp32 = sequential FMAs)"},
    // ---- AMD CDNA2 (MI200): pairwise with flushing ([MS] simulator/amd.py, ftz_mul_add.py;
    // [KM] CDNA2.m pair_wise_sum = 1, in/out_subnormals = 0). bf16 without _1k: group 2;
    // the v_mfma_*bf16_1k instructions: group 4 (preset cdna2-1k). ----
    {"cdna2", "f16", pairwise(4, true), R::f32, "[MS] simulator/amd.py (group 4, flush), [KM] CDNA2.m"},
    {"cdna2", "bf16", pairwise(2, true), R::f32, "[MS] simulator/amd.py (bf16 group 2, flush), [KM] CDNA2.m"},
    {"cdna2", "f32", sequential("ieee"), R::f32, "[MS] simulator/amd.py (f32: fma chain)"},
    {"cdna2", "f64", sequential("ieee"), R::f64, "[MS] amd/sim.py (f64: MMA_FMA chain)"},
    {"cdna2-1k", "bf16", pairwise(4, true), R::f32, "[MS] simulator/amd.py (bf16 _1k: group 4, flush)"},
    // ---- AMD CDNA3 (MI300): two-stage blocks ([MS] simulator/amd.py + functions.py
    // amd_fused_dot_add; [KM] CDNA3.m: fma 8 / 4 / 16, neab 1 (F = 24), late_partial_sum,
    // armode rd, odd_even_grouping for fp8). fp8 is FNUZ on MI300 (MMA-Sim's fp8 = float8_e4m3fnuz,
    // bf8 = float8_e5m2fnuz); xf32 inputs are f32 truncated to tf32 (the caller's conversion). ----
    {"cdna3", "f16", cdna3(8, 1, -1), R::f32, "[MS] amd.py/functions.py (group 8, F 24, late C 31/24), [KM] CDNA3.m"},
    {"cdna3", "bf16", cdna3(8, 1, -1), R::f32, "[MS] amd.py/functions.py (group 8, F 24, late C 31/24), [KM] CDNA3.m"},
    {"cdna3", "tf32", cdna3(4, 1, -1), R::f32, "[MS] amd.py (xf32: group 4, F 24, late C), [KM] CDNA3.m (fma 4)"},
    {"cdna3", "e4m3fnuz", cdna3(16, 2, 25), R::f32, "[MS] functions.py (fp8: 16, even/odd groups, C dropped below max - 25), [KM] CDNA3.m"},
    {"cdna3", "e5m2fnuz", cdna3(16, 2, 25), R::f32, "[MS] functions.py (bf8: 16, even/odd groups, C dropped below max - 25), [KM] CDNA3.m"},
    {"cdna3", "f32", sequential("ieee"), R::f32, "[MS] simulator/amd.py (f32: fma chain)"},
    {"cdna3", "f64", sequential("ieee"), R::f64, "[MS] amd/sim.py (f64: MMA_FMA chain)"},
    // ---- x86 CPU matrix and dot-product units (recorded rows; FPRev on the CPU's own) ----
    // AMX TDPBF16PS: kAmxBf16Tree per 32 products. AVX512-BF16 VDPBF16PS: per 32-bit lane
    // C + a_1 b_1 first, then + a_0 b_0 (two FMAs; the SDM's order). AVX512-FP16 VFMADD231PH
    // chain with MXCSR at its default (RNE, no FTZ/DAZ), b in the instruction's second operand
    // as recorded (b's NaN before a's).
    {"x86-amx-bf16", "bf16", x86_tree(kAmxBf16Tree), R::f32, kX86Rows},
    {"x86-avx512-bf16", "bf16", x86_tree("((c 1) 0)"), R::f32, kX86Rows},
    {"x86-avx512-fp16", "f16", x86_fp16_chain(), R::f16, kX86Rows},
    // ---- reference units ----
    // exact: a Kulisch accumulator, the exact sum of all products and C with one RNE ([KM]'s
    // correct_rounding reference mode); fp32-sequential: an IEEE 754-2019 fusedMultiplyAdd chain
    // in binary32 ([KM]: "fp32/fp64 correspond to sequential FMAs").
    {"exact", "f64", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "f32", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "tf32", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "f16", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "bf16", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "e4m3", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "e5m2", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "e4m3fnuz", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "e5m2fnuz", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "e3m2", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "e2m3", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"exact", "e2m1", exact(0), R::any, "Kulisch: exact sum, one RNE"},
    {"fp32-sequential", "f32", sequential("ieee"), R::f32, "IEEE fma chain in binary32"},
    {"fp32-sequential", "tf32", sequential("ieee"), R::f32, "IEEE fma chain in binary32"},
    {"fp32-sequential", "f16", sequential("ieee"), R::f32, "IEEE fma chain in binary32"},
    {"fp32-sequential", "bf16", sequential("ieee"), R::f32, "IEEE fma chain in binary32"},
    {"fp32-sequential", "e4m3", sequential("ieee"), R::f32, "IEEE fma chain in binary32"},
    {"fp32-sequential", "e5m2", sequential("ieee"), R::f32, "IEEE fma chain in binary32"},
    {"fp32-sequential", "e4m3fnuz", sequential("ieee"), R::f32, "IEEE fma chain in binary32"},
    {"fp32-sequential", "e5m2fnuz", sequential("ieee"), R::f32, "IEEE fma chain in binary32"},
};

// Whether f is the built-in format the table names `name`, by its data (not its name).
bool is_builtin(const Format& f, std::string_view name) {
  const std::optional<Format> b = find_builtin(name);
  return b && *b == f;
}

std::string inputs_of(std::string_view preset) {
  std::string s;
  for (const MatrixUnitEntry& e : kEntries)
    if (e.preset == preset) s += (s.empty() ? "" : ", ") + std::string(e.input);
  return s;
}

}  // namespace

std::span<const MatrixUnitEntry> matrix_unit_entries() { return kEntries; }

FdpaParams find_matrix_unit(std::string_view preset, const Format& in, const Format& out,
                            std::string_view what) {
  const MatrixUnitEntry* found = nullptr;
  bool known_preset = false;
  for (const MatrixUnitEntry& e : kEntries) {
    if (e.preset != preset) continue;
    known_preset = true;
    if (is_builtin(in, e.input)) found = &e;
  }
  const std::string name(preset), w(what);
  if (!known_preset) {
    std::string names;
    for (const MatrixUnitEntry& e : kEntries) {
      const std::string n(e.preset);
      if ((", " + names + ",").find(", " + n + ",") == std::string::npos)
        names += (names.empty() ? "" : ", ") + n;
    }
    throw Error(w, "unknown matrix-unit preset '" + name + "' (known: " + names + ")");
  }
  if (!found)
    throw Error(w, "preset " + name + " has no model for " + in.name + " inputs (it has: " +
                       inputs_of(preset) + ")");
  FdpaParams p = found->params;
  switch (found->output) {
    case OutputRule::fp8_e8m13:
      if (is_builtin(out, "f16")) p.acc_frac_bits = -1;
      [[fallthrough]];
    case OutputRule::nvidia:
      if (is_builtin(out, "f32")) {
        p.out_rounding.mode = RoundingMode::rtz;
      } else if (is_builtin(out, "f16") || is_builtin(out, "bf16")) {
        if (p.acc_frac_bits >= 0)
          throw Error(w, "no published model reproduces " + name + " " + in.name +
                             " inputs with " + out.name + " output (see suites/matrix)");
        p.out_rounding.mode = RoundingMode::rne;
        if (is_builtin(out, "f16") && found->f16_zero_exp != INT_MIN) p.zero_exp = found->f16_zero_exp;
      } else {
        throw Error(w, "matrix units write f32, f16 or bf16, not " + out.name);
      }
      break;
    case OutputRule::f32:
    case OutputRule::f64:
    case OutputRule::f16: {
      const char* want = found->output == OutputRule::f32 ? "f32" : found->output == OutputRule::f64 ? "f64" : "f16";
      if (!is_builtin(out, want))
        throw Error(w, "preset " + name + " writes " + want + " results for " + in.name +
                           " inputs, not " + out.name);
      break;
    }
    case OutputRule::any: break;
  }
  if ((p.structure == FdpaStructure::pairwise || p.structure == FdpaStructure::sequential) &&
      !holds_exactly(in, out))
    throw Error(w, "preset " + name + " computes in " + out.name + ", which cannot hold every " +
                       in.name + " input exactly");
  return p;
}

FdpaParams find_matrix_unit(std::string_view preset, const FdpaFormats& f, std::string_view what) {
  const FdpaParams p = find_matrix_unit(preset, f.a, f.d, what);
  if (!(f.b == f.a) &&
      !same_params(p, find_matrix_unit(preset, f.b, f.d, what)))
    throw Error(std::string(what), "preset " + std::string(preset) + " models " + f.a.name +
                                       " and " + f.b.name +
                                       " inputs differently: no model for the pair");
  return p;
}

std::vector<PresetUnit> preset_units(std::initializer_list<std::string_view> outputs) {
  std::vector<PresetUnit> units;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    for (std::string_view name : outputs) {
      const Format out = parse_format(name);
      try {
        units.push_back({&e, in, out, find_matrix_unit(e.preset, in, out)});
      } catch (const Error&) {
        // the preset has no model for this output
      }
    }
  }
  return units;
}

}  // namespace fpconform
