#include "gemm_args.hpp"

#include "fpconform/core/error.hpp"
#include "fpconform/gemm_setup.hpp"
#include "fpconform/files/matrix_io.hpp"
#include "numeric_options.hpp"

namespace fpconform::cli {
using namespace fpconform::files;

void add_gemm_options(CLI::App* sub, GemmArgs& g, bool model_required) {
  auto* model = sub->add_option("--model", g.model, "preset (fpconform models), staged unit (\"fused(block=32, frac_bits=13) | out(rtz)\") or custom:key=value,...");
  if (model_required) model->required();
  sub->add_option("--acc", g.acc, "the unit's output/accumulator format (default: f32)");
  sub->add_option("--promote", g.promote, "add partial sums into fp32 every N products (0: off)")
      ->check(integer_in(0, kMaxLength, "0: off"));
  sub->add_option("--split-k", g.split_k, "cut K into S slices, reduce their results")
      ->check(integer_in(1, kMaxLength, "and at most K"));
  sub->add_option("--reduction", g.reduction, "sequential | pairwise (split-K)");
  sub->add_flag("--reverse-k", g.reverse_k, "walk K from the last product to the first");
  sub->add_option("--scale-a", g.scale_a, "fp32 scales of A per promotion group (M x K/N)");
  sub->add_option("--scale-b", g.scale_b, "fp32 scales of B per group (K/N x N, or x N/cols)");
  sub->add_option("--scale-b-block-cols", g.scale_b_block_cols,
                  "columns of B sharing one scale (128 for 128x128 weight blocks)")
      ->check(integer_in(1, kMaxLength));
  sub->add_option("--block-scale-a", g.block_scale_a,
                  "in-unit block scales of A (MX/NVFP4 units: M x K/scale_block)");
  sub->add_option("--block-scale-b", g.block_scale_b, "in-unit block scales of B (K/scale_block x N)");
  sub->add_option("--block-scale-format", g.block_scale_format, "ue8m0 (MX) or e4m3 (NVFP4)");
}

GemmOptions make_gemm_options(const GemmArgs& a, const Format& in, const Format& out) {
  return make_gemm_options(a, in, in, out);
}

GemmOptions make_gemm_options(const GemmArgs& a, const Format& in, const Format& in_b,
                              const Format& out) {
  GemmSetup s;
  s.model = a.model;
  s.acc = a.acc;
  s.promote_every = a.promote;
  s.split_k = a.split_k;
  s.reduction = a.reduction;
  s.reverse_k = a.reverse_k;
  s.scale_b_block_cols = a.scale_b_block_cols;
  const Format f32 = parse_format("f32");
  auto codes32 = [](const Matrix& m) { return std::vector<std::uint32_t>(m.codes.begin(), m.codes.end()); };
  if (!a.scale_a.empty()) s.scale_a = codes32(read_matrix(a.scale_a, f32, "--scale-a"));
  if (!a.scale_b.empty()) s.scale_b = codes32(read_matrix(a.scale_b, f32, "--scale-b"));
  s.block_scale_format = a.block_scale_format;
  if (!a.block_scale_a.empty() || !a.block_scale_b.empty()) {
    const Format bf = parse_format(a.block_scale_format, "--block-scale-format");
    if (!a.block_scale_a.empty()) s.block_scale_a = read_matrix(a.block_scale_a, bf, "--block-scale-a").codes;
    if (!a.block_scale_b.empty()) s.block_scale_b = read_matrix(a.block_scale_b, bf, "--block-scale-b").codes;
  }
  return gemm_options(s, in, in_b, out, kCliGemmNames);
}

}  // namespace fpconform::cli
