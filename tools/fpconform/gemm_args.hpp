// The options that describe a GEMM around a matrix unit (--model, --acc, --split-k, promotion,
// scales), shared by `gemm` and `validate` so both read them the same way.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "fpconform/gemm.hpp"

namespace fpconform::cli {

struct GemmArgs {
  std::string model, acc;
  int promote = 0, split_k = 1, scale_b_block_cols = 1;
  std::string reduction = "sequential";
  std::string scale_a, scale_b, block_scale_a, block_scale_b, block_scale_format = "ue8m0";
  bool reverse_k = false;
};

// Adds --model (required when `model_required`), --acc, --promote, --split-k, --reduction,
// --reverse-k, --scale-a, --scale-b, --scale-b-block-cols, --block-scale-a/-b/-format.
void add_gemm_options(CLI::App* sub, GemmArgs& g, bool model_required);

// GemmOptions for inputs in `in` and results in `out`; reads the scale files. Throws Error
// naming the option.
GemmOptions make_gemm_options(const GemmArgs& g, const Format& in, const Format& out);
// A in `in`, B in `in_b`.
GemmOptions make_gemm_options(const GemmArgs& g, const Format& in, const Format& in_b,
                              const Format& out);

}  // namespace fpconform::cli
