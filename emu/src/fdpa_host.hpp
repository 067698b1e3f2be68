// FdpaKernel's host path: units whose every operation is an IEEE operation of binary32 or
// binary64 rounded to nearest even (an fma chain, a pairwise tree of additions, a reduction tree
// of two-way rounding nodes) run on the host's own fma and add, eight dot products interleaved.
// A dot product whose result is a NaN (the model's NaN rule is not the host's), or, where the
// unit flushes its results, that passes through a value of magnitude <= 2^emin (the host does
// not flush), is left to the model: `run` and `run_rows` say which.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "fpconform/fdpa.hpp"
#include "fpconform/fdpa_kernel.hpp"

namespace fpconform::detail {

// One step of an instruction's program. Registers hold values of the output format; register
// 0 is C (or the previous instruction's result).
struct HostOp {
  enum class Kind : std::uint8_t {
    fma,       // r[dst] = fma(a[p], b[p], r[x])
    fma_pair,  // r[dst] = fma(a[p], b[p], fma(a[q], b[q], +0)): a node of two products
    product,   // r[dst] = fma(a[p], b[p], +0): a product rounded alone
    add,       // r[dst] = r[x] + r[y]
  } kind;
  int p = 0, q = 0, x = 0, y = 0, dst = 0;
};

// What a call's operands allow: every nonzero product is a multiple of 2^least and of
// magnitude below 2^below (from the operands' decoded exponent ranges).
struct ProductBounds {
  long long least = LLONG_MAX;  // LLONG_MAX: no nonzero product
  long long below = LLONG_MIN;
};

struct HostProgram {
  std::vector<HostOp> ops;
  int registers = 1;
  int result = 0;  // the register holding the instruction's result
};

class HostIeeePath {
 public:
  // The host path for p from `in` to `out`, or null where the host's operations are not the
  // model's (other formats or roundings, flushes other than of inputs and results, fused or
  // exact nodes, nodes of three or more children).
  static std::shared_ptr<const HostIeeePath> make(const FdpaParams& p, const Format& in,
                                                  const Format& out);

  bool binary64() const { return binary64_; }
  // Which host values decode() gives: the output type and the input flushing.
  static constexpr int kUnflushedBinary64 = 4;  // every code's exact value in binary64
  int reading() const {
    return (binary64_ ? kUnflushedBinary64 : 0) | (p_.flush_subnormal_inputs ? 2 : 0) |
           (p_.flushed_inputs_positive ? 1 : 0);
  }
  // Host values of codes of `in`, read as the model reads them (subnormals flushed when it
  // flushes inputs), into values32 or values64.
  void decode(std::span<const std::uint64_t> codes, LineVector<float>& values32,
              LineVector<double>& values64) const;

  // n <= 8 dot products of k products: a_j = a + offset_a[j], b_j = b + offset_b[j] (stride
  // stride_b); d holds the C codes in and the result codes out. `bounds` says whether results
  // must be checked for flushing and whether pairs of products may be fused. Returns a mask
  // of the dot products left to the model (bit j); their d is unchanged.
  unsigned run(const float* a, const double* a64, const std::size_t* offset_a, const float* b,
               const double* b64, const std::size_t* offset_b, std::size_t stride_b,
               std::size_t k, const ProductBounds& bounds, std::uint64_t* d, int n) const;

  // The row path: the columns of one vector (16 binary32 with AVX-512, else 8), and the most
  // rows of A one call takes.
  int row_width() const;
  static constexpr int kMaxRowWidth = 16;
  static constexpr int kMaxRows = 8;
  // n <= kMaxRows rows of A (from a + offset_a[j]) against row_width() consecutive columns of a
  // row-major b from b + offset_b (stride_b >= row_width()); d[j W + l]: row
  // j's column l, C codes in and result codes out. left[j]: row j's lanes left to the model
  // (their d unchanged). bounds as for run.
  void run_rows(const float* a, const double* a64, const std::size_t* offset_a, const float* b,
                const double* b64, std::size_t offset_b, std::size_t stride_b, std::size_t k,
                const ProductBounds& bounds, std::uint64_t* d, int n, unsigned* left) const;

 private:
  enum class Shape : std::uint8_t { chain, groups, tree };
  HostIeeePath() = default;
  // The program for an instruction of `products` products (fused: pairs of products fused).
  const HostProgram& program_for(std::size_t products, bool fused, HostProgram& scratch) const;
  bool fuses(const ProductBounds& bounds) const;
  template <class T>
  unsigned run_typed(const T* a, const std::size_t* offset_a, const T* b,
                     const std::size_t* offset_b, std::size_t stride_b, std::size_t k,
                     const ProductBounds& bounds, std::uint64_t* d, int n) const;
  template <class T>
  void run_rows_typed(const T* a, const std::size_t* offset_a, const T* b, std::size_t stride_b,
                      std::size_t k, const ProductBounds& bounds, std::uint64_t* d, int n,
                      unsigned* left) const;

  FdpaParams p_;
  Format in_, out_;
  bool binary64_ = false;
  bool flush_outputs_ = false;
  bool fusable_ = false;  // pairwise groups whose products fit out's precision
  HostProgram fused_;     // full_ with pairs of products fused, for products exact in out
  Shape shape_ = Shape::chain;
  std::size_t width_ = 0;  // products per instruction (tree) or group (pairwise)
  HostProgram full_;       // the program of a whole instruction or group
};

}  // namespace fpconform::detail
