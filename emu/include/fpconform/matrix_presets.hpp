// Matrix-unit presets: the FdpaParams of real units, per input format, each with its source.
// A preset is data; `fdpa` is the one algorithm.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "fpconform/fdpa.hpp"

namespace fpconform {

struct MatrixUnitEntry {
  std::string_view preset;  // "hopper"
  std::string_view input;   // input format name as parse_format spells it: "f16", "e4m3", ...
  int block;                // L
  int frac_bits;            // F
  int zero_exp;             // exponent of zero terms (INT_MIN: none measured)
  int fp32_acc_frac_bits;   // fp32 output: first cut RZ to this many fraction bits (-1: none)
  std::string_view source;
};

// Every (preset, input) pair with its parameters, in listing order.
std::span<const MatrixUnitEntry> matrix_unit_entries();

// The parameters of `preset` for inputs in `in` and results in `out`. NVIDIA units round fp32
// results toward zero and fp16/bf16 results to nearest even (Fasi et al. 2021; Khattak &
// Mikaitis). Throws Error naming `what` for an unknown preset, or an input format or output
// format the preset has no measured model for (say which ones it has).
FdpaParams find_matrix_unit(std::string_view preset, const Format& in, const Format& out,
                            std::string_view what = "--model");

}  // namespace fpconform
