#include "fpconform/gpu/kernel_catalog.hpp"

#include <array>

namespace fpconform::gpu {

namespace {
// name, kind, in/a-b format, c format, out format, in_bits, out_bits, arity, k, packing,
// min_cc, arch_specific, instruction. x2 conversions: see Packing.
constexpr KernelInfo kKernels[] = {
    // PTX cvt conversions
    {"cvt_f32_e4m3x2_rn_satfinite", KernelKind::convert, "f32", "", "e4m3", 32, 16, 1, 0, Packing::pair_neg, 89, false, "cvt.rn.satfinite.e4m3x2.f32"},
    {"cvt_f16x2_e4m3x2_rn_satfinite", KernelKind::convert, "f16", "", "e4m3", 16, 16, 1, 0, Packing::pair_neg, 89, false, "cvt.rn.satfinite.e4m3x2.f16x2"},
    {"cvt_e4m3x2_f16x2_rn", KernelKind::convert, "e4m3", "", "f16", 16, 32, 1, 0, Packing::packed, 89, false, "cvt.rn.f16x2.e4m3x2"},
    {"cvt_f32_e4m3x2_rn_satfinite_relu", KernelKind::convert, "f32", "", "e4m3", 32, 16, 1, 0, Packing::pair_neg, 89, false, "cvt.rn.satfinite.relu.e4m3x2.f32"},
    {"cvt_f16x2_e4m3x2_rn_satfinite_relu", KernelKind::convert, "f16", "", "e4m3", 16, 16, 1, 0, Packing::pair_neg, 89, false, "cvt.rn.satfinite.relu.e4m3x2.f16x2"},
    {"cvt_e4m3x2_f16x2_rn_relu", KernelKind::convert, "e4m3", "", "f16", 16, 32, 1, 0, Packing::packed, 89, false, "cvt.rn.relu.f16x2.e4m3x2"},
    {"cvt_f32_e5m2x2_rn_satfinite", KernelKind::convert, "f32", "", "e5m2", 32, 16, 1, 0, Packing::pair_neg, 89, false, "cvt.rn.satfinite.e5m2x2.f32"},
    {"cvt_f16x2_e5m2x2_rn_satfinite", KernelKind::convert, "f16", "", "e5m2", 16, 16, 1, 0, Packing::pair_neg, 89, false, "cvt.rn.satfinite.e5m2x2.f16x2"},
    {"cvt_e5m2x2_f16x2_rn", KernelKind::convert, "e5m2", "", "f16", 16, 32, 1, 0, Packing::packed, 89, false, "cvt.rn.f16x2.e5m2x2"},
    {"cvt_f32_e5m2x2_rn_satfinite_relu", KernelKind::convert, "f32", "", "e5m2", 32, 16, 1, 0, Packing::pair_neg, 89, false, "cvt.rn.satfinite.relu.e5m2x2.f32"},
    {"cvt_f16x2_e5m2x2_rn_satfinite_relu", KernelKind::convert, "f16", "", "e5m2", 16, 16, 1, 0, Packing::pair_neg, 89, false, "cvt.rn.satfinite.relu.e5m2x2.f16x2"},
    {"cvt_e5m2x2_f16x2_rn_relu", KernelKind::convert, "e5m2", "", "f16", 16, 32, 1, 0, Packing::packed, 89, false, "cvt.rn.relu.f16x2.e5m2x2"},
    {"cvt_f32_f16x2_rn", KernelKind::convert, "f32", "", "f16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rn.f16x2.f32"},
    {"cvt_f32_f16x2_rn_relu", KernelKind::convert, "f32", "", "f16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rn.relu.f16x2.f32"},
    {"cvt_f32_f16x2_rn_satfinite", KernelKind::convert, "f32", "", "f16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rn.satfinite.f16x2.f32"},
    {"cvt_f32_f16x2_rn_relu_satfinite", KernelKind::convert, "f32", "", "f16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rn.relu.satfinite.f16x2.f32"},
    {"cvt_f32_f16x2_rz", KernelKind::convert, "f32", "", "f16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rz.f16x2.f32"},
    {"cvt_f32_f16x2_rz_relu", KernelKind::convert, "f32", "", "f16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rz.relu.f16x2.f32"},
    {"cvt_f32_f16x2_rz_satfinite", KernelKind::convert, "f32", "", "f16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rz.satfinite.f16x2.f32"},
    {"cvt_f32_f16x2_rz_relu_satfinite", KernelKind::convert, "f32", "", "f16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rz.relu.satfinite.f16x2.f32"},
    {"cvt_f32_f16_rn", KernelKind::convert, "f32", "", "f16", 32, 16, 1, 0, Packing::single, 80, false, "cvt.rn.f16.f32"},
    {"cvt_f32_f16_rz", KernelKind::convert, "f32", "", "f16", 32, 16, 1, 0, Packing::single, 80, false, "cvt.rz.f16.f32"},
    {"cvt_f32_f16_rm", KernelKind::convert, "f32", "", "f16", 32, 16, 1, 0, Packing::single, 80, false, "cvt.rm.f16.f32"},
    {"cvt_f32_f16_rp", KernelKind::convert, "f32", "", "f16", 32, 16, 1, 0, Packing::single, 80, false, "cvt.rp.f16.f32"},
    {"cvt_f32_bf16x2_rn", KernelKind::convert, "f32", "", "bf16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rn.bf16x2.f32"},
    {"cvt_f32_bf16x2_rn_relu", KernelKind::convert, "f32", "", "bf16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rn.relu.bf16x2.f32"},
    {"cvt_f32_bf16x2_rn_satfinite", KernelKind::convert, "f32", "", "bf16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rn.satfinite.bf16x2.f32"},
    {"cvt_f32_bf16x2_rn_relu_satfinite", KernelKind::convert, "f32", "", "bf16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rn.relu.satfinite.bf16x2.f32"},
    {"cvt_f32_bf16x2_rz", KernelKind::convert, "f32", "", "bf16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rz.bf16x2.f32"},
    {"cvt_f32_bf16x2_rz_relu", KernelKind::convert, "f32", "", "bf16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rz.relu.bf16x2.f32"},
    {"cvt_f32_bf16x2_rz_satfinite", KernelKind::convert, "f32", "", "bf16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rz.satfinite.bf16x2.f32"},
    {"cvt_f32_bf16x2_rz_relu_satfinite", KernelKind::convert, "f32", "", "bf16", 32, 32, 1, 0, Packing::pair_neg, 80, false, "cvt.rz.relu.satfinite.bf16x2.f32"},
    {"cvt_f32_bf16_rn", KernelKind::convert, "f32", "", "bf16", 32, 16, 1, 0, Packing::single, 80, false, "cvt.rn.bf16.f32"},
    {"cvt_f32_bf16_rz", KernelKind::convert, "f32", "", "bf16", 32, 16, 1, 0, Packing::single, 80, false, "cvt.rz.bf16.f32"},
    {"cvt_f32_bf16_rm", KernelKind::convert, "f32", "", "bf16", 32, 16, 1, 0, Packing::single, 80, false, "cvt.rm.bf16.f32"},
    {"cvt_f32_bf16_rp", KernelKind::convert, "f32", "", "bf16", 32, 16, 1, 0, Packing::single, 80, false, "cvt.rp.bf16.f32"},
    {"cvt_f32_tf32_rna", KernelKind::convert, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "cvt.rna.tf32.f32"},
    {"cvt_f32_tf32_rna_satfinite", KernelKind::convert, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 89, false, "cvt.rna.satfinite.tf32.f32"},
    {"cvt_f32_tf32_rn", KernelKind::convert, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 90, false, "cvt.rn.tf32.f32"},
    {"cvt_f32_tf32_rz", KernelKind::convert, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 90, false, "cvt.rz.tf32.f32"},
    {"cvt_f32_e2m1x2_rn_satfinite", KernelKind::convert, "f32", "", "e2m1", 32, 8, 1, 0, Packing::pair_neg, 100, true, "cvt.rn.satfinite.e2m1x2.f32"},
    {"cvt_f32_e2m1x2_rn_satfinite_relu", KernelKind::convert, "f32", "", "e2m1", 32, 8, 1, 0, Packing::pair_neg, 100, true, "cvt.rn.satfinite.relu.e2m1x2.f32"},
    {"cvt_e2m1x2_f16x2_rn", KernelKind::convert, "e2m1", "", "f16", 8, 32, 1, 0, Packing::packed, 100, true, "cvt.rn.f16x2.e2m1x2"},
    {"cvt_f32_e2m3x2_rn_satfinite", KernelKind::convert, "f32", "", "e2m3", 32, 16, 1, 0, Packing::pair_neg, 100, true, "cvt.rn.satfinite.e2m3x2.f32"},
    {"cvt_f32_e2m3x2_rn_satfinite_relu", KernelKind::convert, "f32", "", "e2m3", 32, 16, 1, 0, Packing::pair_neg, 100, true, "cvt.rn.satfinite.relu.e2m3x2.f32"},
    {"cvt_e2m3x2_f16x2_rn", KernelKind::convert, "e2m3", "", "f16", 16, 32, 1, 0, Packing::packed, 100, true, "cvt.rn.f16x2.e2m3x2"},
    {"cvt_f32_e3m2x2_rn_satfinite", KernelKind::convert, "f32", "", "e3m2", 32, 16, 1, 0, Packing::pair_neg, 100, true, "cvt.rn.satfinite.e3m2x2.f32"},
    {"cvt_f32_e3m2x2_rn_satfinite_relu", KernelKind::convert, "f32", "", "e3m2", 32, 16, 1, 0, Packing::pair_neg, 100, true, "cvt.rn.satfinite.relu.e3m2x2.f32"},
    {"cvt_e3m2x2_f16x2_rn", KernelKind::convert, "e3m2", "", "f16", 16, 32, 1, 0, Packing::packed, 100, true, "cvt.rn.f16x2.e3m2x2"},
    {"cvt_f32_ue8m0x2_rz", KernelKind::convert, "f32", "", "ue8m0", 32, 16, 1, 0, Packing::pair_neg, 100, true, "cvt.rz.ue8m0x2.f32"},
    {"cvt_f32_ue8m0x2_rz_satfinite", KernelKind::convert, "f32", "", "ue8m0", 32, 16, 1, 0, Packing::pair_neg, 100, true, "cvt.rz.satfinite.ue8m0x2.f32"},
    {"cvt_f32_ue8m0x2_rp", KernelKind::convert, "f32", "", "ue8m0", 32, 16, 1, 0, Packing::pair_neg, 100, true, "cvt.rp.ue8m0x2.f32"},
    {"cvt_f32_ue8m0x2_rp_satfinite", KernelKind::convert, "f32", "", "ue8m0", 32, 16, 1, 0, Packing::pair_neg, 100, true, "cvt.rp.satfinite.ue8m0x2.f32"},
    {"cvt_ue8m0x2_bf16x2_rn", KernelKind::convert, "ue8m0", "", "bf16", 16, 32, 1, 0, Packing::packed, 100, true, "cvt.rn.bf16x2.ue8m0x2"},
    // scalar arithmetic intrinsics (cuda_fp16.h, cuda_bf16.h, CUDA math API)
    {"f16_hadd", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hadd"},
    {"f16_hsub", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hsub"},
    {"f16_hmul", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hmul"},
    {"f16_hdiv", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hdiv"},
    {"f16_hadd_rn", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hadd_rn"},
    {"f16_hsub_rn", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hsub_rn"},
    {"f16_hmul_rn", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hmul_rn"},
    {"f16_hadd_sat", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hadd_sat"},
    {"f16_hsub_sat", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hsub_sat"},
    {"f16_hmul_sat", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hmul_sat"},
    {"f16_hmin", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hmin"},
    {"f16_hmax", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hmax"},
    {"f16_hmin_nan", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hmin_nan"},
    {"f16_hmax_nan", KernelKind::scalar, "f16", "", "f16", 16, 16, 2, 0, Packing::single, 80, false, "__hmax_nan"},
    {"f16_hfma", KernelKind::scalar, "f16", "", "f16", 16, 16, 3, 0, Packing::single, 80, false, "__hfma"},
    {"f16_hfma_sat", KernelKind::scalar, "f16", "", "f16", 16, 16, 3, 0, Packing::single, 80, false, "__hfma_sat"},
    {"f16_hfma_relu", KernelKind::scalar, "f16", "", "f16", 16, 16, 3, 0, Packing::single, 80, false, "__hfma_relu"},
    {"f16_hsqrt", KernelKind::scalar, "f16", "", "f16", 16, 16, 1, 0, Packing::single, 80, false, "__hsqrt"},
    {"f16_hrcp", KernelKind::scalar, "f16", "", "f16", 16, 16, 1, 0, Packing::single, 80, false, "__hrcp"},
    {"bf16_hadd", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hadd"},
    {"bf16_hsub", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hsub"},
    {"bf16_hmul", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hmul"},
    {"bf16_hdiv", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hdiv"},
    {"bf16_hadd_rn", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hadd_rn"},
    {"bf16_hsub_rn", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hsub_rn"},
    {"bf16_hmul_rn", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hmul_rn"},
    {"bf16_hadd_sat", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hadd_sat"},
    {"bf16_hsub_sat", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hsub_sat"},
    {"bf16_hmul_sat", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hmul_sat"},
    {"bf16_hmin", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hmin"},
    {"bf16_hmax", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hmax"},
    {"bf16_hmin_nan", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hmin_nan"},
    {"bf16_hmax_nan", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 2, 0, Packing::single, 80, false, "__hmax_nan"},
    {"bf16_hfma", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 3, 0, Packing::single, 80, false, "__hfma"},
    {"bf16_hfma_sat", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 3, 0, Packing::single, 80, false, "__hfma_sat"},
    {"bf16_hfma_relu", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 3, 0, Packing::single, 80, false, "__hfma_relu"},
    {"bf16_hsqrt", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 1, 0, Packing::single, 80, false, "__hsqrt"},
    {"bf16_hrcp", KernelKind::scalar, "bf16", "", "bf16", 16, 16, 1, 0, Packing::single, 80, false, "__hrcp"},
    {"f32_fadd_rn", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fadd_rn"},
    {"f32_fadd_rz", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fadd_rz"},
    {"f32_fadd_ru", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fadd_ru"},
    {"f32_fadd_rd", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fadd_rd"},
    {"f32_fsub_rn", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fsub_rn"},
    {"f32_fsub_rz", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fsub_rz"},
    {"f32_fsub_ru", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fsub_ru"},
    {"f32_fsub_rd", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fsub_rd"},
    {"f32_fmul_rn", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fmul_rn"},
    {"f32_fmul_rz", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fmul_rz"},
    {"f32_fmul_ru", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fmul_ru"},
    {"f32_fmul_rd", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fmul_rd"},
    {"f32_fdiv_rn", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fdiv_rn"},
    {"f32_fdiv_rz", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fdiv_rz"},
    {"f32_fdiv_ru", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fdiv_ru"},
    {"f32_fdiv_rd", KernelKind::scalar, "f32", "", "f32", 32, 32, 2, 0, Packing::single, 80, false, "__fdiv_rd"},
    {"f32_fmaf_rn", KernelKind::scalar, "f32", "", "f32", 32, 32, 3, 0, Packing::single, 80, false, "__fmaf_rn"},
    {"f32_fmaf_rz", KernelKind::scalar, "f32", "", "f32", 32, 32, 3, 0, Packing::single, 80, false, "__fmaf_rz"},
    {"f32_fmaf_ru", KernelKind::scalar, "f32", "", "f32", 32, 32, 3, 0, Packing::single, 80, false, "__fmaf_ru"},
    {"f32_fmaf_rd", KernelKind::scalar, "f32", "", "f32", 32, 32, 3, 0, Packing::single, 80, false, "__fmaf_rd"},
    {"f32_fsqrt_rn", KernelKind::scalar, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "__fsqrt_rn"},
    {"f32_fsqrt_rz", KernelKind::scalar, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "__fsqrt_rz"},
    {"f32_fsqrt_ru", KernelKind::scalar, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "__fsqrt_ru"},
    {"f32_fsqrt_rd", KernelKind::scalar, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "__fsqrt_rd"},
    {"f32_frcp_rn", KernelKind::scalar, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "__frcp_rn"},
    {"f32_frcp_rz", KernelKind::scalar, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "__frcp_rz"},
    {"f32_frcp_ru", KernelKind::scalar, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "__frcp_ru"},
    {"f32_frcp_rd", KernelKind::scalar, "f32", "", "f32", 32, 32, 1, 0, Packing::single, 80, false, "__frcp_rd"},
    // MMA: mma.sync (one warp, 8 diagonal rows per instruction)
    {"mma_m16n8k16_f16_f16", KernelKind::dot, "f16", "f16", "f16", 16, 16, 0, 16, Packing::single, 80, false, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"},
    {"mma_m16n8k16_f32_f16", KernelKind::dot, "f16", "f32", "f32", 16, 32, 0, 16, Packing::single, 80, false, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
    {"mma_m16n8k16_f32_bf16", KernelKind::dot, "bf16", "f32", "f32", 16, 32, 0, 16, Packing::single, 80, false, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
    {"mma_m16n8k8_f32_tf32", KernelKind::dot, "f32", "f32", "f32", 32, 32, 0, 8, Packing::single, 80, false, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"},
    {"mma_m16n8k32_f32_e4m3", KernelKind::dot, "e4m3", "f32", "f32", 8, 32, 0, 32, Packing::single, 89, false, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"},
    {"mma_m16n8k32_f16_e4m3", KernelKind::dot, "e4m3", "f16", "f16", 8, 16, 0, 32, Packing::single, 89, false, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16"},
    {"mma_m16n8k32_f32_e5m2", KernelKind::dot, "e5m2", "f32", "f32", 8, 32, 0, 32, Packing::single, 89, false, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"},
    {"mma_m16n8k32_f16_e5m2", KernelKind::dot, "e5m2", "f16", "f16", 8, 16, 0, 32, Packing::single, 89, false, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16"},
    // MMA: wgmma (one warpgroup, A from registers, B from shared memory, 8 diagonal rows)
    {"wgmma_m64n8k16_f32_f16", KernelKind::dot, "f16", "f32", "f32", 16, 32, 0, 16, Packing::single, 90, true, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"},
    {"wgmma_m64n8k16_f16_f16", KernelKind::dot, "f16", "f16", "f16", 16, 16, 0, 16, Packing::single, 90, true, "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16"},
    {"wgmma_m64n8k16_f32_bf16", KernelKind::dot, "bf16", "f32", "f32", 16, 32, 0, 16, Packing::single, 90, true, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"},
    {"wgmma_m64n8k8_f32_tf32", KernelKind::dot, "f32", "f32", "f32", 32, 32, 0, 8, Packing::single, 90, true, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32"},
    {"wgmma_m64n8k32_f32_e4m3", KernelKind::dot, "e4m3", "f32", "f32", 8, 32, 0, 32, Packing::single, 90, true, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"},
    {"wgmma_m64n8k32_f16_e4m3", KernelKind::dot, "e4m3", "f16", "f16", 8, 16, 0, 32, Packing::single, 90, true, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3"},
    {"wgmma_m64n8k32_f32_e5m2", KernelKind::dot, "e5m2", "f32", "f32", 8, 32, 0, 32, Packing::single, 90, true, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2"},
    {"wgmma_m64n8k32_f16_e5m2", KernelKind::dot, "e5m2", "f16", "f16", 8, 16, 0, 32, Packing::single, 90, true, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2"},
    // split-K: k = 128 as four slices of 32 (two chained m16n8k16 each), slices summed in f32
    {"splitk4_k128_f32_f16", KernelKind::dot, "f16", "f32", "f32", 16, 32, 0, 128, Packing::single, 80, false, "4 x (2 x mma m16n8k16 f32.f16) then ((s0+s1)+(s2+s3))+c in f32 adds"},
    // cuBLASLt FP8 GEMM (kernels/cublaslt_fp8.cu): libcublasLt opened at run time
    {"cublaslt_e4m3_k512_f32_fast_accum", KernelKind::dot, "e4m3", "f32", "f32", 8, 32, 0, 512, Packing::single, 89, false, "cublasLtMatmul e4m3 TN -> f32, CUBLASLT_MATMUL_DESC_FAST_ACCUM=1"},
    {"cublaslt_e4m3_k512_f32_promoted", KernelKind::dot, "e4m3", "f32", "f32", 8, 32, 0, 512, Packing::single, 89, false, "cublasLtMatmul e4m3 TN -> f32, CUBLASLT_MATMUL_DESC_FAST_ACCUM=0"},
};
}  // namespace

std::span<const KernelInfo> kernel_catalog() { return kKernels; }

const KernelInfo* find_kernel(std::string_view name) {
  for (const auto& k : kKernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::string_view to_string(KernelKind kind) {
  switch (kind) {
    case KernelKind::convert: return "convert";
    case KernelKind::scalar: return "scalar";
    case KernelKind::dot: return "dot";
  }
  return "?";
}

bool kernel_runs_on(const KernelInfo& k, int cc) {
  // "a" targets (sm_90a, sm_100a, sm_120a) run only on their own major version.
  if (k.arch_specific) return cc / 10 == k.min_cc / 10 || (k.min_cc == 100 && cc / 10 == 12);
  return cc >= k.min_cc;
}

}  // namespace fpconform::gpu
