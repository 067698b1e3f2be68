// The dot-product-add family: how matrix units (tensor cores, matrix cores) compute
// D = sum a_i * b_i + C. A unit is described by named parameters (after Khattak & Mikaitis,
// arXiv 2512.07004, and MMA-Sim, Xie et al., arXiv 2511.10909), not by special cases. One of
// four structures, each fully described by the fields below:
//
// fused (NVIDIA tensor cores, AMD CDNA3), per block of `block` products:
//   1. products exact: significands multiplied, kept in [1, 4) (not renormalised), exponent
//      ea + eb (subnormal inputs keep the exponent emin and a significand below 1); optionally
//      rounded to `product_bits` significant bits, and infinite when `product_overflow` and
//      |a*b| >= 2^(out.emax + 1);
//   2. the products are split into `interleave` groups by index (i mod interleave); in each
//      group E = the largest exponent over its terms (products and, with `c_in_block`, C);
//      zero terms count as `zero_exp`, so E >= zero_exp whenever a term is zero;
//   3. every term is aligned to the unit 2^(E - F) (F = `frac_bits`) and cut by `align`
//      (truncated toward zero, no guard or sticky bits), and the group is summed exactly;
//      with `carry_bits` >= 0 a group sum of 2^(E + 1 + carry_bits) or more keeps only its top
//      F + 1 + carry_bits bits (cut toward zero);
//   4. with interleave > 1 each group sum is cut by `group_align` to F fraction bits relative
//      to the largest group exponent E_s, and the groups are added exactly;
//   5. C: `c_in_block` (a term of step 2), else added exactly afterwards, or with `late_c`
//      (two stage, AMD CDNA3): with E = max(E_s, e_c), the sum is cut by `late_align` to
//      `late_sum_frac_bits` fraction bits relative to 2^E and C to `late_c_frac_bits`; C is
//      dropped when e_c < E - `late_c_drop_below` (>= 0; -1: never); the two are added exactly;
//   6. the result is rounded once into `out` with `out_rounding`, or first toward zero to
//      `acc_frac_bits` fraction bits (Hopper's FP8 "e8m13" accumulator).
// pairwise (AMD CDNA1/CDNA2 after MMA-Sim), per group of `block` products, in the format `out`
//   with IEEE operations (apply_op, `out_rounding`): every product is fma(a, b, +0), the group
//   is summed as a balanced tree (left half n/2, right half the rest, recursively) of
//   additions, and sum = sum + group. With `flush_subnormal_outputs`, every one of these
//   results that is subnormal becomes the zero of its sign (|x| < 2^emin).
// sequential (fp32/fp64 paths): D = fma(a_k, b_k, ... fma(a_0, b_0, C)) in `out`.
// exact (Kulisch): per `block` products (0: all of them) the exact sum of the products and C,
//   rounded once into `out` with `out_rounding`.
// tree (a reduction tree of rounding nodes: x86 AMX, AVX512-BF16): `tree` is a SumTree text
//   (sum_tree.hpp) over C and the products 0 .. n-1 of one instruction. A product leaf is exact
//   (inputs flushed by `flush_subnormal_inputs`, C too); a "( ... )" node is the exact sum of
//   its children rounded once into `out` with `out_rounding` (FTZ by `flush_subnormal_outputs`,
//   tininess after rounding), so a node of C and one product is an FMA; a node of two products
//   is an FMA of the later (higher index) onto the earlier rounded alone (a product rounded
//   alone is fma(a, b, +0): a -0 product gives +0); a "[ ... ]" node is an
//   exact sum passed up unrounded (its terms join its parent's one exact sum, zeros' signs too). K > n runs as a chain of instructions (each D is the next
//   C); a last instruction with m < n products runs the tree without the leaves m .. n-1
//   (an AMX tile configured for m columns, not one padded with zeros): a node left with one
//   child rounds that child alone, a node left with none is dropped.
//   NaN results follow `nan`: a node's NaN is the first NaN among its product leaves (a before
//   b, by index), then its other children in the tree's order (C first), quieted.
// In every structure K > block runs as a chain: each step's D is the next step's C.
// Block scaling (fdpa_scaled; fused and exact structures): element i of a and b is multiplied by
//   scale_a[i / scale_block] and scale_b[i / scale_block], codes of a scale format whose sign
//   bit, if it has one, is ignored (ue4m3 = e4m3 read as |x|). With `subsum` = 0 (MX fp8/fp6/fp4,
//   MMA-Sim's kind::mxf8f6f4) each product is exact, its significand times the scales'
//   significands and its exponent ea + eb + esa + esb (the scales' exponents as step 1 reads
//   them); the fused block then runs as above. With `subsum` = G > 0 (MMA-Sim's kind::mxf4 and
//   mxf4nvf4) the step-1 terms are exact sums of G consecutive products, each times its scale
//   pair's significands, with the exponent esa + esb of the scales alone (not of the sum's own
//   magnitude); a sub-sum of zero products is a zero term (zero_exp), one that cancels to zero
//   keeps its scales' exponent (MMA-Sim 2.1.1: "zeros resulted from summation do not apply
//   e_zero"). A NaN scale gives the
//   default NaN; a zero scale makes its products zeros (inf times a zero scale: NaN). fdpa()
//   runs with unit scales (1: exponent 0), so there scale_block alone changes nothing and
//   `subsum` (fused and exact only) still groups the products; pairwise and sequential ignore
//   scale_block and refuse subsum.
// Zeros (fused, exact): a step whose products and C are all zero gives the IEEE sign of an
// exact zero sum (-0 only when all are -0, or mixed under `down`); a sum that cancels gives +0
// (-0 under `down`). (K-M's and MMA-Sim's models return +0 in the first case: not measured.)
#pragma once

#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform {

// How a value is brought onto a coarser grid: toward zero, to nearest (ties to even) or toward
// -inf (floor of the signed value).
enum class AlignRounding : std::uint8_t { truncate, nearest_even, down };

enum class FdpaStructure : std::uint8_t { fused, pairwise, sequential, exact, tree };

// The order in which an instruction's k products reach the blocks.
enum class KOrder : std::uint8_t {
  natural,     // k = 0, 1, 2, ...
  pairs_mod4,  // k with k % 4 in {0, 1} first, then {2, 3}: the two HMMA.16816 halves that
               // ptxas emits for Hopper's fp8 mma.sync m16n8k32 (register fragment layout)
};

struct FdpaParams {
  FdpaStructure structure = FdpaStructure::fused;
  int block = 4;            // fused: L products per step; pairwise: group size; exact: products
                            // per rounding (0: all); sequential: ignored
  int frac_bits = 23;       // F: fraction bits kept relative to 2^E
  AlignRounding align = AlignRounding::truncate;
  int zero_exp = INT_MIN;   // exponent given to zero terms (INT_MIN: zeros do not count)
  bool c_in_block = true;   // fused: C aligned and cut with the products (NVIDIA); else added
                            // after the block: exactly, or two-stage when `late_c`. The other
                            // structures ignore it; their presets set it false, so a fast path
                            // that requires it never takes them.
  bool late_c = false;      // fused, !c_in_block: the two-stage late C of step 5
  int acc_frac_bits = -1;   // >= 0: the block result is first cut (RZ) to this many fraction
                            // bits with the output's exponent range (e8m13: 13)
  Rounding out_rounding{RoundingMode::rtz};  // the rounding of results into `out`
  bool flush_subnormal_inputs = false;   // subnormal a, b (in `in`) and C (in `out`) read as 0
  bool flushed_inputs_positive = false;  // ... as +0, -0 included (MMA-Sim's CDNA2), not a
                                         // zero of their sign
  bool flush_subnormal_outputs = false;  // fused/exact: FTZ of the result; pairwise: see above
  bool underflow_zero_positive = false;  // fused/exact: a nonzero result that rounds to zero is
                                         // +0, not a zero of its sign (Hopper: an H200)

  // fused: interleaved groups (AMD CDNA3 fp8: 2)
  int interleave = 1;
  AlignRounding group_align = AlignRounding::down;
  // fused, late_c (AMD CDNA3: 31, 24, -1 or 25 for fp8, down)
  int late_sum_frac_bits = 31;
  int late_c_frac_bits = 24;
  int late_c_drop_below = -1;
  AlignRounding late_align = AlignRounding::down;
  // fused: products
  bool product_overflow = false;  // |a*b| >= 2^(out.emax + 1) is an infinity (MMA-Sim CDNA3)
  int product_bits = -1;          // >= 1: each product rounded to this many significant bits
  AlignRounding product_rounding = AlignRounding::truncate;
  int carry_bits = -1;            // >= 0: bits above 2^E the group adder keeps (see step 3)
  // Block scaling (see above): elements per scale (0: the unit takes no scales; fdpa_scaled
  // refuses it) and products per exact sub-sum (0: products are the terms).
  int scale_block = 0;
  int subsum = 0;
  // Instructions that run as a sequence of MMAs with C added at the end (ptxas's emulation of
  // fp8 mma.sync on Hopper: two f16 HMMAs from C = +0, then HADD2 D = T + C, RNE). `instr_k`
  // products per instruction (0: all K), reordered by `k_order`; with `c_last` the blocks of
  // each instruction chain from +0 and C (then the previous instruction's D) is added by one
  // IEEE addition (RNE) in the output format.
  int instr_k = 0;
  KOrder k_order = KOrder::natural;
  bool c_last = false;

  // tree: the SumTree text of one instruction (see "tree" above), in static storage
  // (intern_tree); the other structures ignore it.
  std::string_view tree;

  // The NaN policy (nan_policy.hpp) of NaN results: its default NaN for the fused and exact
  // structures (NaN inputs, inf * 0, inf - inf); the full policy in the pairwise and
  // sequential structures, which go through apply_op.
  std::string_view nan = "nvidia";
  // pairwise, sequential, tree: a product's NaN operands are taken b first (x86's FMA takes
  // the first NaN in the order its formula names the operands: VFMADD231 xmm1, xmm2, xmm3 is
  // xmm2 * xmm3 + xmm1, so which of a and b sits in xmm2 decides).
  bool nan_b_first = false;
};

// A copy of `text` that lives as long as the program (one per distinct text), for
// FdpaParams::tree, which presets hold in constant tables.
std::string_view intern_tree(std::string_view text);

// The most fraction bits acc_frac_bits can ask for with this output: the accumulator is out's
// sign and exponent field with acc_frac_bits fraction bits, a code of at most 64 bits.
int max_acc_frac_bits(const Format& out);

// The formats of one dot-product-add: a and b may differ (e4m3 x e5m2, fp6 x fp4), and C may
// differ from D (Volta's f32.f16.f16.f16). C is read as a value of its own format (flushed by
// flush_subnormal_inputs as a subnormal of that format; its alignment exponent that format's,
// emin when subnormal); a chain's later steps take the previous D, in D's format. The IEEE
// structures (pairwise, sequential) compute in D and need D to hold a, b and C exactly.
struct FdpaFormats {
  Format a, b, c, d;
  FdpaFormats(const Format& in, const Format& out) : a(in), b(in), c(out), d(out) {}
  FdpaFormats(const Format& fa, const Format& fb, const Format& fc, const Format& fd)
      : a(fa), b(fb), c(fc), d(fd) {}
  // a and b in one format, C in D's.
  bool uniform() const { return a == b && c == d; }
};

// One step (a block, a group, or the whole chain for `sequential`) or a chain of steps over any
// K. a, b hold codes of `in`, c and the result codes of `out`. Specials (fused, exact): a NaN
// input, inf * 0 or inf - inf give the policy's default NaN; other infinities pass through.
// Throws Error when a and b differ in length, when a parameter is out of range, or (pairwise,
// sequential) when `in` has values `out` cannot hold exactly.
std::uint64_t fdpa(const FdpaParams& p, const Format& in, const Format& out,
                   std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                   std::uint64_t c);
// The same with a, b, c and the result in the formats of `f`.
std::uint64_t fdpa(const FdpaParams& p, const FdpaFormats& f, std::span<const std::uint64_t> a,
                   std::span<const std::uint64_t> b, std::uint64_t c);

// fdpa with block scales: scale_a and scale_b hold one code of `scale_format` per scale_block
// elements (the last block may be short), ceil(K / scale_block) each. D = sum_i a_i * b_i *
// scale_a[i / scale_block] * scale_b[i / scale_block] + C, computed as the parameters say (see
// "Block scaling" above). Throws Error for a structure other than fused or exact, scale_block
// < 1, wrong scale counts, a scale format with infinities, sub-sums that straddle a scale block
// or a step (scale_block and block must be multiples of subsum), or significands too wide
// for the model's 128-bit terms.
std::uint64_t fdpa_scaled(const FdpaParams& p, const Format& in, const Format& out,
                          std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                          const Format& scale_format, std::span<const std::uint64_t> scale_a,
                          std::span<const std::uint64_t> scale_b, std::uint64_t c);
std::uint64_t fdpa_scaled(const FdpaParams& p, const FdpaFormats& f,
                          std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                          const Format& scale_format, std::span<const std::uint64_t> scale_a,
                          std::span<const std::uint64_t> scale_b, std::uint64_t c);

// Every finite value of `in` is a value of `out` (precision, exponent range, subnormals).
bool holds_exactly(const Format& in, const Format& out);

}  // namespace fpconform
