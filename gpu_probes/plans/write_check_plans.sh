#!/usr/bin/env bash
# Writes the plans that tools/gpu-check.sh runs, from the runner's own kernel list, so that every
# kernel is covered: conversions.plan (every conversion over all its inputs), scalar.plan (all
# f16/bf16 pairs of each binary op, all inputs of each unary op, 2^20 random cases of the rest),
# mma_sync.plan, wgmma.plan, gemm.plan (2^20 random rows per MMA kernel and distribution;
# 2^18 for cuBLASLt). Sizes are chosen so the results
# fit the GPU machine's 64 MiB return limit (README.md). usage: write_check_plans.sh RUNNER DIR
# or write_check_plans.sh --fprev-only DIR (fprev.plan alone, unchecked: for tests without a runner)
set -euo pipefail
runner=$1 dir=$2
header() { printf 'fpconform-gpu-plan 1\n# Written by gpu_probes/plans/write_check_plans.sh; do not edit by hand.\n'; }
if [[ $runner != --fprev-only ]]; then
list=$("$runner" --list | tail -n +2)

{
  header
  awk '$2 == "convert" {
    printf "\njob sweep.%s\nkernel %s\ninput sweep\nend\n", $1, $1 }' <<<"$list"
} >"$dir/conversions.plan"

{
  header
  # kernel kind in out c k cc ...: the binary and unary 16-bit ops are swept, the rest sampled.
  awk '$2 == "scalar" {
    name = $1; fmt = $3
    ternary = name ~ /(hfma|fmaf)/; unary = name ~ /(hsqrt|hrcp|fsqrt|frcp)/
    if (fmt != "f32" && !ternary) {
      printf "\njob sweep.%s\nkernel %s\ninput sweep\nchunk_log2 18\nsample_chunks 1\nsample_seed 1\nend\n", name, name
    } else if (unary) {
      printf "\njob sweep.%s\nkernel %s\ninput sweep\nchunk_log2 18\nsample_chunks 1\nsample_seed 1\nend\n", name, name
    } else {
      printf "\njob random.%s\nkernel %s\ninput generated\ncount 1048576\nseed 20261129\n", name, name
      printf "dist_a finite\ndist_b finite\ndist_c finite\nraw_count 65536\nchunk_log2 12\nend\n"
    }
  }' <<<"$list"
} >"$dir/scalar.plan"

# MMA plans, one per family so that a kernel that kills its CUDA context (the runner runs each
# plan in its own process) cannot take the other families along.
dot_plan() {  # dot_plan NAME_REGEX
  header
  # Two distributions per kernel: finite codes anywhere (c within 2^+-20 of 1 for f32 C), and
  # everything within 2^+-4 of 1 (cancellation, alignment and rounding of the sum dominate).
  awk -v want="$1" '$2 == "dot" && $1 ~ want {
    name = $1; cfmt = $5
    cdist = cfmt == "f32" ? "window:20" : "finite"
    # cuBLASLt rows hold k = 512: 2^18 of them (a GEMM, not one instruction)
    count = name ~ /^cublaslt/ ? 262144 : 1048576
    printf "\njob random_finite.%s\nkernel %s\ninput generated\ncount %d\nseed 1\n", name, name, count
    printf "dist_a finite\ndist_b finite\ndist_c %s\nraw_count 131072\nchunk_log2 12\nend\n", cdist
    printf "\njob random_window4.%s\nkernel %s\ninput generated\ncount %d\nseed 2\n", name, name, count
    printf "dist_a window:4\ndist_b window:4\ndist_c window:4\nraw_count 65536\nchunk_log2 12\nend\n"
  }' <<<"$list"
}
dot_plan '^mma_' >"$dir/mma_sync.plan"
dot_plan '^wgmma_' >"$dir/wgmma.plan"
dot_plan '^(splitk|cublaslt)' >"$dir/gemm.plan"

for p in conversions scalar mma_sync wgmma gemm; do
  "$runner" --check "$dir/$p.plan" | sed "s|^|$p.plan: |"
done
fi

# FPRev (Xie et al., arXiv 2411.00442): for every pair of summands (i, j) one row with product i
# = +M, product j = -M and every other product and C = u, M so large that u vanishes beside it;
# the output counts the u that were added outside the subtree where +M and -M cancel, which gives
# the summation tree. Rows with product i = +M and c = -M place C in the tree; one all-units row
# shows that k + 1 units add up exactly. These are the queries of characterize's recover_order
# (C a unit, not 0, so that C's place is seen in every pair), which `gpu-analyze` replays on them
# (tools/engines/gpu_analysis/src/fprev_tree.cpp). Kernels with f32 output only (the count must be exact in the output).
# M/u must exceed 2^(log2(k+1) + 26) (IEEE f32 additions of up to k units beside M; 2^34 for
# k = 128), as recover_order's own choice does: units 2^-28 (f16, e5m2: their smallest normal
# squared), 1 (bf16, tf32: M is 2^60), 2^-18 (e4m3: its smallest subnormal squared; a device that
# flushes it shows in the all-units row).
# fields: kernel k a_M a_negM a_u c_negM c_u (c as f32 codes: -(M_a)^2 and u_a^2)
{
  header
  awk 'function row(k, i, j, am, an, au, c,   t, s) {
         s = "case"
         for (t = 0; t < k; ++t) s = s " " (t == i ? am : t == j ? an : au)
         for (t = 0; t < k; ++t) s = s " " (t == i || t == j ? am : au)
         return s " " c
       }
       {
         printf "\njob fprev.%s\nkernel %s\ninput explicit\n", $1, $1
         print row($2, -1, -1, $3, $4, $5, $7)
         for (i = 0; i < $2; ++i) {
           for (j = i + 1; j < $2; ++j) print row($2, i, j, $3, $4, $5, $7)
           print row($2, i, -1, $3, $4, $5, $6)
         }
         print "end"
       }' <<'KERNELS'
mma_m16n8k16_f32_f16 16 7800 f800 0400 ce800000 31800000
mma_m16n8k16_f32_bf16 16 4e80 ce80 3f80 dd800000 3f800000
mma_m16n8k8_f32_tf32 8 4e800000 ce800000 3f800000 dd800000 3f800000
mma_m16n8k32_f32_e4m3 32 78 f8 01 c7800000 36800000
mma_m16n8k32_f32_e5m2 32 78 f8 04 ce800000 31800000
splitk4_k128_f32_f16 128 7800 f800 0400 ce800000 31800000
wgmma_m64n8k16_f32_f16 16 7800 f800 0400 ce800000 31800000
wgmma_m64n8k16_f32_bf16 16 4e80 ce80 3f80 dd800000 3f800000
wgmma_m64n8k8_f32_tf32 8 4e800000 ce800000 3f800000 dd800000 3f800000
wgmma_m64n8k32_f32_e4m3 32 78 f8 01 c7800000 36800000
wgmma_m64n8k32_f32_e5m2 32 78 f8 04 ce800000 31800000
KERNELS
} >"$dir/fprev.plan"
[[ $runner == --fprev-only ]] || "$runner" --check "$dir/fprev.plan" | sed "s|^|fprev.plan: |"
