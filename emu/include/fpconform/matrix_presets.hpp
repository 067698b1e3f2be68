// Matrix-unit presets: the FdpaParams of real units (and two reference units, `exact` and
// `fp32-sequential`), per input format, each with its source. A preset is data; `fdpa` is the
// one algorithm.
#pragma once

#include <climits>
#include <initializer_list>
#include <span>
#include <vector>
#include <string>
#include <string_view>

#include "fpconform/fdpa.hpp"

namespace fpconform {

// Which output formats an entry accepts, and how its results are rounded into them.
enum class OutputRule : std::uint8_t {
  nvidia,  // f32: RZ (and the entry's acc_frac_bits cut); f16, bf16: RNE (refused when the
           // entry has an acc_frac_bits cut: no published model)
  f32,     // f32 only, rounded as the entry's params say (AMD MFMA f32 destinations)
  f64,     // f64 only (fp64 MMA / MFMA)
  f16,     // f16 only (x86 AVX512-FP16 FMA chains)
  any,     // any output format, rounded as the entry's params say (exact)
  fp8_e8m13,  // as nvidia; the 13-bit accumulator cut (e8m13) applies into f32 only: into f16
              // the F = 13 sum is rounded RNE (Hopper wgmma fp8 -> f16, measured on an H200:
              // reports/devices/nvidia-h200; Ada mma.sync fp8 -> f16, MMA-Sim 2.1.1)
};

struct MatrixUnitEntry {
  std::string_view preset;  // "hopper"
  std::string_view input;   // input format name as parse_format spells it: "f16", "e4m3", ...
  FdpaParams params;        // out_rounding is set by `output` for the nvidia rule
  OutputRule output;
  std::string_view source;
  int f16_zero_exp = INT_MIN;  // nvidia rules: zero_exp with f16 output (INT_MIN: params')
};

// Every (preset, input) pair with its parameters, in listing order.
std::span<const MatrixUnitEntry> matrix_unit_entries();

// The parameters of `preset` for inputs in `in` and results in `out`. NVIDIA units round fp32
// results toward zero and fp16/bf16 results to nearest even (Fasi et al. 2021; Khattak &
// Mikaitis); AMD units write f32 (f64) rounded to nearest even (MMA-Sim). Throws Error naming
// `what` for an unknown preset, or an input format or output format the preset has no measured
// model for (say which ones it has).
FdpaParams find_matrix_unit(std::string_view preset, const Format& in, const Format& out,
                            std::string_view what = "--model");

// Operands in different formats (e4m3 x e5m2, fp6 x fp4): the preset's unit for a's format,
// which must have the same parameters for b's (the unit's datapath does not depend on which
// of its input formats each operand uses). C's format does not change the parameters. Throws
// Error naming `what` as above, or when the two formats' models differ.
FdpaParams find_matrix_unit(std::string_view preset, const FdpaFormats& f,
                            std::string_view what = "--model");

// One preset's unit for one output format.
struct PresetUnit {
  const MatrixUnitEntry* entry;
  Format in, out;
  FdpaParams params;
};
// Every entry of matrix_unit_entries() with every format of `outputs` that find_matrix_unit
// accepts for it, in listing order (entries first, then outputs as given).
std::vector<PresetUnit> preset_units(std::initializer_list<std::string_view> outputs);

}  // namespace fpconform
