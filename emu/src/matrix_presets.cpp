// Matrix-unit presets as data. Sources:
//  [KM]  F. Khattak, M. Mikaitis, "Accurate Models of NVIDIA Tensor Cores", arXiv 2512.07004,
//        and north-numerical-computing/MATLAB-tensor-core (min_exp_limit, neab = F - 23);
//  [MS]  Xie et al., "MMA-Sim", arXiv 2511.10909 (T4, Ada, Blackwell; k split in halves);
//  [FHMP] Fasi, Higham, Mikaitis, Pranesh, PeerJ CS 7:e330 (2021) (V100: L = 4, RZ fp32 out);
//  [DS]  DeepSeek-V3, arXiv 2412.19437 3.3.2 (Hopper FP8 accumulation keeps ~14 bits).
// Rows marked "dumps" are reproduced bit for bit by suites/matrix (recorded V100/A100/H100
// outputs in suites/data/tensorcore-dumps).
#include "fpconform/matrix_presets.hpp"

#include <array>
#include <climits>
#include <string>

#include "fpconform/error.hpp"

namespace fpconform {

namespace {

constexpr int kNone = INT_MIN;

constexpr std::array<MatrixUnitEntry, 19> kEntries = {{
    {"volta", "f16", 4, 23, kNone, -1, "[FHMP], [KM]; dumps V100 fp16 (fp32 and fp16 out)"},
    {"turing", "f16", 8, 24, kNone, -1, "[MS] (T4)"},
    {"ampere", "f16", 8, 24, -132, -1, "[KM]; dumps A100 fp16 (fp32 and fp16 out)"},
    {"ampere", "bf16", 8, 24, -132, -1, "[KM]; dumps A100 bf16"},
    {"ampere", "tf32", 4, 24, -132, -1, "[KM]; dumps A100 tf32"},
    {"ada", "f16", 8, 24, -132, -1, "[MS] (as Ampere)"},
    {"ada", "bf16", 8, 24, -132, -1, "[MS] (as Ampere)"},
    {"ada", "tf32", 4, 24, -132, -1, "[MS] (as Ampere)"},
    {"ada", "e4m3", 16, 13, -133, 13, "[MS]; FP22 accumulator (SageAttention2, arXiv 2411.10958)"},
    {"ada", "e5m2", 16, 13, -133, 13, "[MS]; FP22 accumulator"},
    {"hopper", "f16", 16, 25, -133, -1, "[KM]; dumps H100 fp16 (fp32 and fp16 out)"},
    {"hopper", "bf16", 16, 25, -133, -1, "[KM]; dumps H100 bf16"},
    {"hopper", "tf32", 8, 25, -133, -1, "[KM]; dumps H100 tf32"},
    {"hopper", "e4m3", 32, 13, -133, 13, "[KM], [DS] (wgmma); dumps H100 E4M3 fp32 out (C = 0)"},
    {"hopper", "e5m2", 32, 13, -133, 13, "[KM], [DS] (wgmma); dumps H100 E5M2 fp32 out (C = 0)"},
    {"blackwell", "f16", 16, 25, -133, -1, "[KM], [MS] (B200 tcgen05)"},
    {"blackwell", "bf16", 16, 25, -133, -1, "[KM], [MS] (B200 tcgen05)"},
    {"blackwell", "tf32", 8, 25, -133, -1, "[KM], [MS] (B200 tcgen05)"},
    {"blackwell", "e4m3", 32, 25, -133, -1, "[MS] (B200 tcgen05: no 13-bit cut)"},
}};

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
    if (e.input == in.name) found = &e;
  }
  if (!known_preset) {
    std::string names;
    for (const MatrixUnitEntry& e : kEntries)
      if (names.find(std::string(e.preset)) == std::string::npos)
        names += (names.empty() ? "" : ", ") + std::string(e.preset);
    throw Error(std::string(what), "unknown matrix-unit preset '" + std::string(preset) +
                                       "' (known: " + names + ")");
  }
  if (!found)
    throw Error(std::string(what), "preset " + std::string(preset) + " has no model for " +
                                       in.name + " inputs (it has: " + inputs_of(preset) + ")");
  FdpaParams p;
  p.block = found->block;
  p.frac_bits = found->frac_bits;
  p.zero_exp = found->zero_exp;
  if (out.name == "f32") {
    p.out_rounding.mode = RoundingMode::rtz;
    p.acc_frac_bits = found->fp32_acc_frac_bits;
  } else if (out.name == "f16" || out.name == "bf16") {
    if (found->fp32_acc_frac_bits >= 0)
      throw Error(std::string(what), "no published model reproduces " + std::string(preset) +
                                         " " + in.name + " inputs with " + out.name +
                                         " output (see suites/matrix)");
    p.out_rounding.mode = RoundingMode::rne;
  } else {
    throw Error(std::string(what), "matrix units write f32, f16 or bf16, not " + out.name);
  }
  return p;
}

}  // namespace fpconform
