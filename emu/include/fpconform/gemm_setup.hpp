// A GEMM around a matrix unit as a user names it: each option as text or a number, the scales
// already read. One builder serves the command line (--model, --acc, ...) and the Python package
// (model=, acc_format=, ...); each passes the names its users type, so errors name them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/gemm.hpp"

namespace fpconform {

struct GemmSetup {
  std::string model;             // a preset or custom:key=value,...
  std::string acc = "f32";       // the unit's output / accumulator format
  int promote_every = 0;         // 0: off
  int split_k = 1;
  std::string reduction = "sequential";  // or pairwise
  bool reverse_k = false, c_in_epilogue = false;
  std::vector<std::uint32_t> scale_a, scale_b;  // f32 codes per promotion group (both or neither)
  int scale_b_block_cols = 1;
  std::string block_scale_format = "ue8m0";     // checked even when no block scales follow
  std::vector<std::uint64_t> block_scale_a, block_scale_b;  // codes of block_scale_format
};

// GemmOptions for inputs in `in` and results in `out`. Throws Error naming the option for an
// unknown model or format, a count out of range, or scales given for one side only. Sizes of
// the scales against the matrices are gemm()'s to check.
GemmOptions gemm_options(const GemmSetup& s, const Format& in, const Format& out,
                         const GemmSetupNames& names = kCliGemmNames);
// A in `in_a`, B in `in_b` (e4m3 x e5m2 and the like).
GemmOptions gemm_options(const GemmSetup& s, const Format& in_a, const Format& in_b,
                         const Format& out, const GemmSetupNames& names = kCliGemmNames);

}  // namespace fpconform
