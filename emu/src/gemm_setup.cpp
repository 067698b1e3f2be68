#include "fpconform/gemm_setup.hpp"

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"

namespace fpconform {
namespace {
Error error_at(std::string_view where, const std::string& message) { return Error(std::string(where), message); }
}  // namespace

GemmOptions gemm_options(const GemmSetup& s, const Format& in, const Format& out,
                         const GemmSetupNames& n) {
  return gemm_options(s, in, in, out, n);
}

GemmOptions gemm_options(const GemmSetup& s, const Format& in_a, const Format& in_b,
                         const Format& out, const GemmSetupNames& n) {
  GemmOptions g;
  g.acc = parse_format(s.acc.empty() ? "f32" : s.acc, n.acc);
  g.out = out;
  g.unit = parse_model(s.model, FdpaFormats(in_a, in_b, g.acc, g.acc), n.model);
  if (s.promote_every < 0)
    throw error_at(n.promote_every, "must be 0 (off) or a positive count of products, got " +
                                     std::to_string(s.promote_every));
  if (s.split_k < 1)
    throw error_at(n.split_k, "must be at least 1, got " + std::to_string(s.split_k));
  if (s.scale_b_block_cols < 1)
    throw error_at(n.scale_b_block_cols, "must be at least 1, got " + std::to_string(s.scale_b_block_cols));
  g.promote_every = s.promote_every;
  g.split_k = s.split_k;
  if (s.reduction == "pairwise") g.reduction = SplitReduction::pairwise;
  else if (s.reduction != "sequential")
    throw error_at(n.reduction, "'" + s.reduction + "' is not sequential or pairwise");
  g.reverse_k = s.reverse_k;
  g.c_in_epilogue = s.c_in_epilogue;
  g.scale_b_block_cols = s.scale_b_block_cols;
  if (s.scale_a.empty() != s.scale_b.empty())
    throw error_at(s.scale_a.empty() ? n.scale_a : n.scale_b,
                "give both " + std::string(n.scale_a) + " and " + std::string(n.scale_b) + ", or neither");
  if (!s.scale_a.empty() && s.promote_every == 0)
    throw error_at(n.scale_a, "per-group scales apply at promotion: give " + std::string(n.promote_every));
  g.scale_a = s.scale_a;
  g.scale_b = s.scale_b;
  if (!s.block_scale_format.empty()) g.block_scale_format = parse_format(s.block_scale_format, n.block_scale_format);
  if (s.block_scale_a.empty() != s.block_scale_b.empty())
    throw error_at(s.block_scale_a.empty() ? n.block_scale_a : n.block_scale_b,
                "give both " + std::string(n.block_scale_a) + " and " + std::string(n.block_scale_b));
  if (!s.block_scale_a.empty() && s.block_scale_format.empty())
    throw error_at(n.block_scale_format, "block scales need their format");
  for (const auto* v : {&s.block_scale_a, &s.block_scale_b})
    for (std::size_t i = 0; i < v->size(); ++i)
      if (((*v)[i] & ~g.block_scale_format.code_mask()) != 0)
        throw error_at(v == &s.block_scale_a ? n.block_scale_a : n.block_scale_b,
                    "element " + std::to_string(i) + " holds bits above " + g.block_scale_format.name + "'s " +
                        std::to_string(g.block_scale_format.width()));
  g.block_scale_a = s.block_scale_a;
  g.block_scale_b = s.block_scale_b;
  return g;
}

}  // namespace fpconform
