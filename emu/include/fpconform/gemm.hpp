// Emulated GEMM, D = A.B + C, built from one matrix-unit model (fdpa) and the choices a kernel
// makes around it: the order of K, split-K with a reduction of the partial results, promotion
// of partial sums to an fp32 accumulator every N_C products with per-group scales (DeepSeek-V3's
// fine-grained FP8 recipe), and the conversion of the result.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fpconform/fdpa.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform {

// A dense row-major matrix of codes of one format.
struct Matrix {
  int rows = 0, cols = 0;
  Format format;
  std::vector<std::uint64_t> codes;  // rows * cols
  std::uint64_t at(int r, int c) const { return codes[static_cast<std::size_t>(r) * cols + c]; }
};

enum class SplitReduction : std::uint8_t {
  sequential,  // ((p0 + p1) + p2) + ..., IEEE RNE in the accumulator format
  pairwise,    // a balanced tree of IEEE RNE additions
};

struct GemmOptions {
  FdpaParams unit;    // the matrix unit (find_matrix_unit or custom)
  Format acc;         // the unit's output / accumulator format (f32 for most MMAs)
  Format out;         // D's format; acc -> out with out_rounding
  Rounding out_rounding;
  // Promotion (0 = off): every `promote_every` products the unit's partial result (its chain
  // restarted from zero) is scaled and added to an fp32 accumulator with one IEEE fma:
  // acc32 = fma(partial, s, acc32), s = fp32(scale_a * scale_b) (RNE). C is the initial acc32.
  int promote_every = 0;
  // Per-group scales along K (used with promotion; group = promote_every): scale_a is rows x
  // (K / group) and scale_b is (K / group) x cols of f32 codes; scale_b may instead be
  // (K / group) x (cols / scale_b_block_cols) for 128 x 128 blocks. Empty: scales of 1.
  std::vector<std::uint32_t> scale_a, scale_b;
  int scale_b_block_cols = 1;
  int split_k = 1;    // K cut into this many equal slices, each computed from zero, then reduced
  SplitReduction reduction = SplitReduction::sequential;
  bool reverse_k = false;  // walk K from the last product to the first
  // C added once after all products (a library's epilogue, D = acc + C: one IEEE RNE addition in
  // the accumulator format, f32 under promotion) instead of starting the accumulator. cuBLASLt's
  // FP8 GEMMs on an H200 do this, with fast accumulation and with promotion.
  bool c_in_epilogue = false;
  // Block scales inside the unit (MX / NVFP4 MMAs, unit.scale_block > 0): codes of
  // `block_scale_format`, M x ceil(K / scale_block) for A and ceil(K / scale_block) x N for B.
  // Empty: no block scales (the unit runs with scales of 1).
  Format block_scale_format;
  std::vector<std::uint64_t> block_scale_a, block_scale_b;
};

// The name of each option where the user typed it.
struct GemmSetupNames {
  std::string_view a, b, c, model, acc, promote_every, split_k, reduction, reverse_k, scale_a, scale_b,
      scale_b_block_cols, block_scale_a, block_scale_b, block_scale_format;
};
inline constexpr GemmSetupNames kCliGemmNames{
    "--a", "--b", "--c", "--model", "--acc", "--promote", "--split-k", "--reduction", "--reverse-k",
    "--scale-a", "--scale-b",
    "--scale-b-block-cols", "--block-scale-a", "--block-scale-b", "--block-scale-format"};
// As keyword arguments spell them (the Python package's gemm, validate).
inline constexpr GemmSetupNames kKeywordGemmNames{
    "a", "b", "c", "model", "acc_format", "promote_every", "split_k", "reduction", "reverse_k",
    "scale_a", "scale_b", "scale_b_block_cols", "block_scale_a", "block_scale_b", "block_scale_format"};

// D = A.B + C. A is M x K, B is K x N (each in its own input format: the unit reads a and b
// as FdpaFormats says), C (optional; M x N, in `acc` or any format the unit reads as its C;
// with promotion, split-K or an epilogue, one that `acc` holds exactly).
// Throws Error naming the argument (as `names` spells it) for mismatched shapes, formats, or
// scale sizes.
Matrix gemm(const GemmOptions& o, const Matrix& a, const Matrix& b, const Matrix* c = nullptr,
            const GemmSetupNames& names = kCliGemmNames);

}  // namespace fpconform
