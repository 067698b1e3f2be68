// The fast path of the fused dot-product-add model, for GEMM-sized work: operands decoded once
// into signed integer significands and exponents, each block's alignment and sum in 64-bit
// integers (a loop the compiler vectorizes; AVX2 chosen at run time), and the output packed
// directly for fp32 results rounded toward zero (with or without the e8m13 cut). Results are
// identical to `fdpa` for every input; whatever the short path does not serve (NaN/inf
// operands, all-zero blocks, subnormal or overflowing results, other outputs) goes to the
// general code of that block. Blocks whose aligned products sum within int32 run in two passes
// (the C-free alignment and sum of every block first, then the chain through C), eight dot
// products at a time. Two variants of the fused block have paths of their own, a late C
// (CDNA3, fdpa_late_c.cpp; with B row-major, the column lanes) and exact sub-sums (the fp4
// kinds with unit scales, fdpa_subsum.cpp; with B row-major, binary32 lanes,
// fdpa_subsum_rows.cpp); so does the binary16 fma chain (fdpa_f16_chain.cpp: binary64 values rounded
// to binary16 by a magic constant; with B row-major, AVX512-FP16's own fma where the CPU has it,
// else binary32 rounded to odd, then to binary16).
// The exact structure (Kulisch) has its own integer path for inputs of up to 16 bits
// (precision <= 12): each product goes, unrounded, into a row of 32-bit digits held in int64
// (four rows, so that consecutive products do not wait on each other), carries are propagated
// every 128 products, and the exact sum is rounded once by round_to_format, as fdpa does. Into
// binary32 to nearest even, the exact structure first runs in binary64 AVX2 lanes with a proved
// error bound (fdpa_exact_steps.cpp; with B row-major, rows against consecutive columns,
// fdpa_exact_rows.cpp and, in steps, fdpa_exact_steps_rows.cpp), the integer path deciding what
// the bound cannot.
// Units whose every operation is an IEEE operation of binary32 or binary64 rounded to nearest
// even (fma chains, pairwise trees, trees of two-way rounding nodes) run on the host's own fma
// and add (fdpa_host.hpp); a dot product whose result is a NaN, or that meets a result the unit
// would flush, goes to fdpa.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <unordered_map>
#include <vector>

#include "fpconform/fdpa.hpp"

namespace fpconform {

namespace detail {
class HostIeeePath;
struct ProductBounds;
}

// Storage on 64-byte lines, so that a row of a row-major matrix whose width is a multiple of a
// vector's lanes loads as whole vectors, none split across two lines.
template <class T>
struct LineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kLine{64};
  LineAllocator() = default;
  template <class U>
  LineAllocator(const LineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kLine)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, kLine); }
  template <class U>
  bool operator==(const LineAllocator<U>&) const { return true; }
};
template <class T>
using LineVector = std::vector<T, LineAllocator<T>>;

// A vector of codes decoded for the kernel.
struct DecodedOperands {
  std::vector<std::int32_t> sig;   // signed significand (value = sig * 2^(lead - man_bits)); 0 = zero
  std::vector<std::int32_t> lead;  // exponent of the leading bit position (emin for subnormals)
  std::vector<std::uint64_t> codes;
  bool special = false;            // a NaN or inf among them
  bool zeros = false;              // a zero among them
  // The host path's values (binary32 or binary64 output), read with the input flushing of the
  // kernel that decoded them, or the binary16 chain's exact binary64 values; another kernel
  // whose reading differs reads the codes again.
  LineVector<float> host32;
  LineVector<double> host64;
  // The binary16 chain's row form on AVX512-FP16: each value's binary16 code (empty: not
  // filled); on other AVX-512 CPUs it reads value32.
  LineVector<std::uint16_t> host16;
  int host_reading = -1;  // HostIeeePath::reading() of the kernel that filled them; -1: none
  // For the column lanes (FdpaKernel::row_major_b; value32 also for the binary16 chain's row form
  // without AVX512-FP16): each value as fp32 and 2^lead as fp32 (0 for
  // a zero); and over the nonzero finite values, the smallest floor(log2 |x|), the smallest and
  // the largest lead (INT_MAX, INT_MAX, INT_MIN where there is none).
  LineVector<float> value32, lead32;
  // And 127 - (lead - min_lead) (255 for a zero) in each of the four bytes of a word, where the
  // leads span at most 127 binades (else empty): with a's byte complemented (lead - min_lead +
  // 128; 0 for a zero), a's byte less b's, saturated at 0, is lead(a) + lead(b) less both least
  // leads, plus 1, and 0 where either is zero (fdpa_column_lanes.inc).
  LineVector<std::uint32_t> lead_bytes;
  int min_exp = INT_MAX, min_lead = INT_MAX, max_lead = INT_MIN;
};

// Which operand a vector of codes is (a and b may be in different formats).
enum class Operand : std::uint8_t { a, b };

class FdpaKernel {
 public:
  FdpaKernel(const FdpaParams& p, const Format& in, const Format& out);
  // Operands in the formats of `f`. The integer paths serve a and b in different formats; a C
  // format other than D's, and the host path with mixed operands, go to fdpa.
  FdpaKernel(const FdpaParams& p, const FdpaFormats& f);
  // Whether the integer path applies to these parameters and formats (else dot = fdpa).
  bool fast() const {
    return fast_ || exact_fast_ || variant_ != nullptr || host_ != nullptr;
  }
  // Whether dot_many runs fastest with b row-major: sixteen (AVX-512) or eight (AVX2)
  // consecutive columns (offset_b consecutive, stride_b at least that, one offset_a) run in the
  // lanes of one vector (the column lanes, the host path's rows, the binary16 chain's, the exact
  // units' and the sub-sums' row forms). Other b layouts are served too, by the paths for a contiguous column (strided
  // columns gathered).
  bool row_major_b() const {
    return column_lanes_ || host_ != nullptr || f16_rows_ || exact_rows_ || subsum_rows_;
  }
  // Whether the host's IEEE operations serve (the host path).
  bool host_ieee() const { return host_ != nullptr; }
  // Codes of operand `which`, decoded in its format.
  DecodedOperands decode(std::span<const std::uint64_t> codes, Operand which = Operand::a) const;
  // a . b + c over a[offset_a .. +k) and b[offset_b .. +k) (b may be strided for a column).
  std::uint64_t dot(const DecodedOperands& a, std::size_t offset_a, const DecodedOperands& b,
                    std::size_t offset_b, std::size_t stride_b, std::size_t k,
                    std::uint64_t c) const;
  std::uint64_t dot(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                    std::uint64_t c) const;
  // Several dot products of k products each (a GEMM row against several columns, or the like):
  // out[i] = dot(a, offset_a[i], b, offset_b[i], stride_b, k, c[i]), the same codes. Where the
  // fused block's two-pass path serves, up to eight of them run at once, their block chains (each
  // block waits for the previous block's rounded result) interleaved, or with AVX2 one per
  // vector lane; consecutive columns of a row-major b in the lanes of one vector (row_major_b).
  // out may be c. Throws Error when the four spans differ in length.
  void dot_many(const DecodedOperands& a, std::span<const std::size_t> offset_a,
                const DecodedOperands& b, std::span<const std::size_t> offset_b,
                std::size_t stride_b, std::size_t k, std::span<const std::uint64_t> c,
                std::span<std::uint64_t> out) const;

 private:
  std::uint64_t block(const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
                      const std::int32_t* eb, std::size_t n, std::uint64_t c,
                      const std::uint64_t* codes_a, const std::uint64_t* codes_b,
                      std::size_t stride_b) const;
  bool exact_block_i128(const std::int32_t* sa, const std::int32_t* ea, const std::int32_t* sb,
                        const std::int32_t* eb, std::size_t n, std::uint64_t c,
                        std::uint64_t& r) const;
  std::uint64_t exact_block(const std::int32_t* sa, const std::int32_t* ea,
                            const std::int32_t* sb, const std::int32_t* eb, std::size_t n,
                            std::uint64_t c, const std::uint64_t* codes_a,
                            const std::uint64_t* codes_b, std::size_t stride_b) const;
  bool two_pass_applies(const DecodedOperands& a, const DecodedOperands& b, std::size_t k) const;
  void dot_two_pass(const DecodedOperands& a, const std::size_t* offset_a,
                    const DecodedOperands& b, const std::size_t* offset_b, std::size_t stride_b,
                    const std::int32_t* const* sb, const std::int32_t* const* eb, std::size_t k,
                    std::uint64_t* d, int n) const;
  const DecodedOperands& host_operands(const DecodedOperands& x, DecodedOperands& again) const;
  detail::ProductBounds product_bounds(const DecodedOperands& a, const DecodedOperands& b) const;
  void dot_host_rows(const DecodedOperands& a, const DecodedOperands& ha,
                     const std::size_t* offset_a, const DecodedOperands& b,
                     const DecodedOperands& hb, const std::size_t* offset_b, std::size_t stride_b,
                     std::size_t k, int n, std::uint64_t* d) const;
  void dot_host(const DecodedOperands& a, const std::size_t* offset_a, const DecodedOperands& b,
                const std::size_t* offset_b, std::size_t stride_b, std::size_t k,
                std::uint64_t* d, int n) const;
  std::uint64_t model_dot(const DecodedOperands& a, std::size_t offset_a, const DecodedOperands& b,
                          std::size_t offset_b, std::size_t stride_b, std::size_t k,
                          std::uint64_t c) const;
  std::uint64_t general(std::size_t n, std::uint64_t c, const std::uint64_t* codes_a,
                        const std::uint64_t* codes_b, std::size_t stride_b) const;
  // The late-C path (fdpa_late_c.cpp): n <= 8 dot products, sb/eb as in dot_two_pass.
  static bool late_c_serves(int block, int interleave);
  template <int L, int I>
  void late_c_run(const DecodedOperands& a, const std::size_t* offset_a, const DecodedOperands& b,
                  const std::size_t* offset_b, std::size_t stride_b, const std::int32_t* const* sb,
                  const std::int32_t* const* eb, std::size_t k, std::uint64_t* d, int n) const;
  // The binary16 fma chain (fdpa_f16_chain.cpp), the same interface.
  static bool f16_chain_serves(const FdpaParams& p, const FdpaFormats& f);
  void dot_f16_chain(const DecodedOperands& a, const std::size_t* offset_a,
                     const DecodedOperands& b, const std::size_t* offset_b, std::size_t stride_b,
                     const std::int32_t* const* sb, const std::int32_t* const* eb, std::size_t k,
                     std::uint64_t* d, int n) const;
  // The binary16 chain's row form (fdpa_f16_chain.cpp), on AVX512-FP16's own fma (native) or,
  // on other AVX-512 or AVX2 (with F16C) CPUs, in binary32 rounded to odd: the lanes of one
  // vector (16, 8 with AVX2; 0: none, or the dispatch declines it), and a tile of
  // dot_many_in_tiles (ha, hb: a's and b's binary16 codes for the native form, binary32
  // values for the other).
  static bool f16_rows_native();
  static int f16_rows_width();
  struct F16RowOperands {
    const std::uint16_t* codes;
    const float* values;
  };
  struct F16RowStorage {
    LineVector<std::uint16_t> codes;
    LineVector<float> values;
  };
  void dot_f16_rows(const DecodedOperands& a, F16RowOperands ha, const std::size_t* offset_a,
                    const DecodedOperands& b, F16RowOperands hb, const std::size_t* offset_b,
                    std::size_t stride_b, std::size_t k, int n, std::uint64_t* d) const;
  // Operand x as the row form reads it: its host16 or value32 where decode filled them, else
  // `again`, filled.
  F16RowOperands f16_row_operands(const DecodedOperands& x, Operand which,
                                  F16RowStorage& again) const;
  // The exact binary32 value of every code of d (zeros signed, NaN and inf as themselves),
  // where binary32 holds them.
  static void binary32_of(const DecodedOperands& d, const Format& in, LineVector<float>& out);
  // The sub-sum path (fdpa_subsum.cpp), the same interface.
  static bool subsum_serves(const FdpaParams& p, const FdpaFormats& f);
  void dot_subsum(const DecodedOperands& a, const std::size_t* offset_a, const DecodedOperands& b,
                  const std::size_t* offset_b, std::size_t stride_b, const std::int32_t* const* sb,
                  const std::int32_t* const* eb, std::size_t k, std::uint64_t* d, int n) const;
  // The sub-sum path's row form (fdpa_subsum_rows.cpp): the lanes of its rows (16 with
  // AVX-512, 8 with AVX2, 0: none), whether it serves these parameters, and a tile of
  // dot_many_in_tiles (the operands' value32 filled by decode).
  static int subsum_rows_width();
  static bool subsum_rows_serve(const FdpaParams& p, const FdpaFormats& f);
  void dot_subsum_rows(const DecodedOperands& a, const std::size_t* offset_a,
                       const DecodedOperands& b, const std::size_t* offset_b,
                       std::size_t stride_b, std::size_t k, int n, std::uint64_t* d) const;
  // Significand bits an fp32 result keeps: 24, or acc_frac_bits + 1 under the accumulator's cut.
  static int f32_kept_bits(const FdpaParams& p) {
    return p.acc_frac_bits >= 0 ? p.acc_frac_bits + 1 : 24;
  }
  // The column lanes (fdpa_column_lanes.cpp): n <= 4 groups, group i the W dot products (W:
  // the vector's lanes) of a from offset_a[i] against the consecutive columns of a row-major b
  // from offset_b[i]; d[W i .. W i + W) its C codes in, its results out.
  static bool column_lanes_serve(const FdpaParams& p, const FdpaFormats& f);
  // decode, with the column lanes' values or without.
  DecodedOperands decode(std::span<const std::uint64_t> codes, Operand which, bool lanes) const;
  bool column_lanes_apply(const DecodedOperands& a, const DecodedOperands& b, std::size_t k,
                          std::span<const std::uint64_t> c) const;
  void dot_column_lanes(const DecodedOperands& a, const std::size_t* offset_a,
                        const DecodedOperands& b, const std::size_t* offset_b,
                        std::size_t stride_b, std::size_t k, int n, std::uint64_t* d) const;
  // A tile of dot_many_in_tiles: n rows of a (from offset_a[i]) against `width` consecutive
  // columns of a row-major b (from offset_b[i]); d[i width + l]: C codes in, results out.
  using TileFn = std::function<void(const std::size_t* offset_a, const std::size_t* offset_b,
                                    int n, std::uint64_t* d)>;
  // dot_many by a vector path: runs of `width` outputs (one row of a against consecutive
  // columns) in tiles of up to max_rows, rows against the same columns together; the rest by
  // dot_groups.
  void dot_many_in_tiles(const DecodedOperands& a, std::span<const std::size_t> offset_a,
                         const DecodedOperands& b, std::span<const std::size_t> offset_b,
                         std::size_t stride_b, std::size_t k, std::span<const std::uint64_t> c,
                         std::span<std::uint64_t> out, std::size_t width, int max_rows,
                         const TileFn& run_tile) const;
  // How many of a tile's rows from row i on run against the same columns as row i.
  static int rows_on_same_columns(const std::size_t* offset_b, int i, int n);
  // The lanes of the column lanes' vectors on this CPU (0: none), and the most rows they run
  // at once.
  static int column_lanes_width();
  static int column_lanes_rows();
  // One block of n <= 64 products of a column of a strided b, by `block`.
  std::uint64_t block_of_column(const DecodedOperands& a, std::size_t offset_a,
                                const DecodedOperands& b, std::size_t offset_b,
                                std::size_t stride_b, std::size_t n, std::uint64_t c) const;
  // dot_many's groups of up to eight (the paths other than the column lanes).
  void dot_groups(const DecodedOperands& a, std::span<const std::size_t> offset_a,
                  const DecodedOperands& b, std::span<const std::size_t> offset_b,
                  std::size_t stride_b, std::size_t k, std::span<const std::uint64_t> c,
                  std::span<std::uint64_t> out) const;
  // The exact steps into binary32 in AVX2 lanes (fdpa_exact_steps.cpp), the same interface.
  static bool exact_steps_serve(const FdpaParams& p, const FdpaFormats& f);
  void dot_exact_steps(const DecodedOperands& a, const std::size_t* offset_a,
                       const DecodedOperands& b, const std::size_t* offset_b, std::size_t stride_b,
                       const std::int32_t* const* sb, const std::int32_t* const* eb,
                       std::size_t k, std::uint64_t* d, int n) const;
  // The exact structure in one step into binary32 as a row form (fdpa_exact_rows.cpp): the
  // lanes of its rows (16 with AVX-512, 8 with AVX2, 0: none), and a tile of dot_many_in_tiles
  // (va, vb: the operands' binary64 values; norms: the sums of squares of the rows of a and
  // the columns of b met so far in this dot_many, by offset).
  struct ExactRowsNorms {
    std::unordered_map<std::size_t, double> rows;
    std::unordered_map<std::size_t, std::array<double, 16>> columns;
  };
  static int exact_rows_width();
  void dot_exact_rows(const DecodedOperands& a, const double* va, const std::size_t* offset_a,
                      const DecodedOperands& b, const double* vb, const std::size_t* offset_b,
                      std::size_t stride_b, std::size_t k, int n, std::uint64_t* d,
                      ExactRowsNorms& norms) const;
  // The same in steps of `block` products (fdpa_exact_steps_rows.cpp), the same tile.
  void dot_exact_steps_rows(const DecodedOperands& a, const double* va,
                            const std::size_t* offset_a, const DecodedOperands& b,
                            const double* vb, const std::size_t* offset_b, std::size_t stride_b,
                            std::size_t k, int n, std::uint64_t* d) const;
  // The exact structure's steps over k products from C = c, one dot product (sb, eb: b's
  // significands and leads, contiguous).
  std::uint64_t exact_dot(const DecodedOperands& a, std::size_t offset_a, const std::int32_t* sb,
                          const std::int32_t* eb, const DecodedOperands& b, std::size_t offset_b,
                          std::size_t stride_b, std::size_t k, std::uint64_t c) const;
  // The exact binary64 value of every code of d (zeros signed), for the paths that read them.
  static void binary64_of(const DecodedOperands& d, const Format& in, LineVector<double>& out);
  // Those values of operand x: its host64 where decode filled them, else `again`, filled.
  const double* binary64_values(const DecodedOperands& x, Operand which,
                                LineVector<double>& again) const;
  void dot_late_c(const DecodedOperands& a, const std::size_t* offset_a, const DecodedOperands& b,
                  const std::size_t* offset_b, std::size_t stride_b, const std::int32_t* const* sb,
                  const std::int32_t* const* eb, std::size_t k, std::uint64_t* d, int n) const;
  FdpaParams p_;
  FdpaFormats formats_;
  Format in_, in_b_, out_;
  int product_man_bits_ = 0;  // fraction bits of an exact product: a's plus b's
  bool fast_ = false;
  bool exact_fast_ = false;  // the exact structure's integer path applies
  bool column_lanes_ = false;  // the column lanes serve these parameters on this CPU
  bool f16_rows_ = false;      // the binary16 chain's row form serves on this CPU
  bool exact_rows_ = false;    // the exact row form serves on this CPU
  bool subsum_rows_ = false;   // the sub-sum path's row form serves on this CPU
  // n <= 8 dot products of one group (dot_two_pass and the variants' paths).
  using GroupPath = void (FdpaKernel::*)(const DecodedOperands&, const std::size_t*,
                                         const DecodedOperands&, const std::size_t*, std::size_t,
                                         const std::int32_t* const*, const std::int32_t* const*,
                                         std::size_t, std::uint64_t*, int) const;
  // The unit's own group path, where it has one (late C, sub-sums, the binary16 chain, the
  // exact steps into binary32), chosen once by the constructor.
  GroupPath variant_ = nullptr;
  int exact_base_ = 0;       // weight of the last bit of digit 0
  int exact_digits_ = 0;     // digits in a row
  bool exact_i128_ = false;  // exact steps of narrow inputs in one 128-bit integer (binary32 RNE)
  int exact_lo_ = 0;         // its unit: the smallest product's last bit
  bool pack_f32_rz_ = false;
  bool sum32_ = false;  // the block sum fits int32
  bool shifted_sum32_ = false;  // the block's aligned products (without C) sum within int32
  bool ieee_out_ = false;
  std::uint64_t exp_all_ = 0;
  std::shared_ptr<const detail::HostIeeePath> host_;
};

}  // namespace fpconform
