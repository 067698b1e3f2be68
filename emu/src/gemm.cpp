// gemm: per output element, the K dimension as the kernel walks it (slices, promotion groups),
// each stretch through fdpa, the glue in IEEE fp32 through apply_op.
#include "fpconform/gemm.hpp"

#include <algorithm>
#include <string>

#include "fpconform/arith.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"

namespace fpconform {

namespace {

const Format& f32() {
  static const Format f = parse_format("f32");
  return f;
}

std::uint64_t ieee(Op op, const Format& f, std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  static const OpOptions o = [] {  // RNE, NVIDIA's NaN: looked up once, not per operation
    OpOptions x;
    x.nan = &find_nan_policy("nvidia");
    return x;
  }();
  const std::uint64_t ops[3] = {a, b, c};
  return apply_op(op, f, ops, o).bits;
}

// Columns of B per panel (the panel layout below): a whole AVX-512 vector of the kernel's lanes.
constexpr int kPanel = 16;

// The operands decoded once for the kernel: A by rows; B by columns (transposed), so every dot
// product reads contiguous memory, or, where the kernel takes B row-major, whole rows of D go
// through it and B has a panel's columns at least (`panels`), in panels of kPanel columns, each
// K rows of kPanel (the last padded with zero codes): one row of a panel is one contiguous
// vector, read in order down K.
struct Prepared {
  const GemmOptions* o;
  const Matrix* a_in;
  const Matrix* b_in;
  FdpaFormats formats;
  FdpaKernel kernel;
  DecodedOperands a, bt;
  bool panels;
  int k;
  // c_format: the format of the C values dot() is given; by_rows: whole rows of D by dot_many.
  Prepared(const GemmOptions& opt, const Matrix& a_matrix, const Matrix& b_matrix,
           const Format& c_format, bool by_rows)
      : o(&opt), a_in(&a_matrix), b_in(&b_matrix),
        formats(a_matrix.format, b_matrix.format, c_format, opt.acc), kernel(opt.unit, formats),
        a(kernel.decode(a_matrix.codes, Operand::a)),
        panels(by_rows && kernel.row_major_b() && b_matrix.cols >= kPanel),
        k(a_matrix.cols) {
    const auto rows = static_cast<std::size_t>(b_matrix.rows);
    std::vector<std::uint64_t> t;
    if (panels) {
      const std::size_t count = (static_cast<std::size_t>(b_matrix.cols) + kPanel - 1) / kPanel;
      t.assign(count * rows * kPanel, 0);
      for (int r = 0; r < b_matrix.rows; ++r)
        for (int c = 0; c < b_matrix.cols; ++c)
          t[b_offset(c) + static_cast<std::size_t>(r) * kPanel] = b_matrix.at(r, c);
    } else {
      t.resize(b_matrix.codes.size());
      for (int r = 0; r < b_matrix.rows; ++r)
        for (int c = 0; c < b_matrix.cols; ++c)
          t[static_cast<std::size_t>(c) * rows + r] = b_matrix.at(r, c);
    }
    bt = kernel.decode(t, Operand::b);
  }
  // Where column c of B starts in bt, and the stride down it.
  std::size_t b_offset(int c) const {
    const auto rows = static_cast<std::size_t>(b_in->rows);
    return panels ? static_cast<std::size_t>(c / kPanel) * rows * kPanel + c % kPanel
                  : static_cast<std::size_t>(c) * rows;
  }
  std::size_t b_stride() const { return panels ? kPanel : 1; }
  std::uint64_t dot(int row, int col, int k0, int k1, std::uint64_t start) const {
    if (o->block_scale_a.empty() && !o->reverse_k)
      return kernel.dot(a, static_cast<std::size_t>(row) * k + k0, bt,
                        b_offset(col) + static_cast<std::size_t>(k0) * b_stride(), b_stride(),
                        static_cast<std::size_t>(k1 - k0), start);
    // Reversed K or block scales: the clear model on the gathered vectors.
    std::vector<std::uint64_t> av, bv, sa, sb;
    for (int t = k0; t < k1; ++t) {
      const int kk = o->reverse_k ? k1 - 1 - (t - k0) : t;
      av.push_back(a_in->at(row, kk));
      bv.push_back(b_in->at(kk, col));
    }
    if (o->block_scale_a.empty()) return fdpa(o->unit, formats, av, bv, start);
    // Scales per scale_block elements of the slice (slices and promotion groups are whole
    // scale blocks; gemm checks that).
    const int sbk = o->unit.scale_block;
    const int nblocks = (k + sbk - 1) / sbk;
    for (int g = k0 / sbk; g < (k1 + sbk - 1) / sbk; ++g) {
      const int gg = o->reverse_k ? (k1 - 1) / sbk - (g - k0 / sbk) : g;
      sa.push_back(o->block_scale_a[static_cast<std::size_t>(row) * nblocks + gg]);
      sb.push_back(o->block_scale_b[static_cast<std::size_t>(gg) * b_in->cols + col]);
    }
    return fdpa_scaled(o->unit, formats, av, bv, o->block_scale_format, sa, sb, start);
  }
};

// One output element over products k in [k0, k1) of row `row` and column `col`, starting from
// the accumulator value `start` (a code of o.acc, or of f32 under promotion).
std::uint64_t element(const GemmOptions& o, const Prepared& pr, const Matrix& a, const Matrix& b,
                      int row, int col, int k0, int k1, std::uint64_t start) {
  if (o.promote_every <= 0) return pr.dot(row, col, k0, k1, start);
  const Format& f = f32();
  std::uint64_t acc32 = start;
  const int groups_per_row = (a.cols + o.promote_every - 1) / o.promote_every;
  for (int g0 = k0; g0 < k1; g0 += o.promote_every) {
    const int g1 = std::min(k1, g0 + o.promote_every);
    const std::uint64_t partial = pr.dot(row, col, g0, g1, 0);
    const std::uint64_t partial32 =
        convert(partial, o.acc, f, Rounding{}).bits;  // exact for f32/f16/bf16 accumulators
    std::uint64_t s = 0x3F800000;  // 1.0
    if (!o.scale_a.empty()) {
      const int g = g0 / o.promote_every;
      const std::uint64_t sa = o.scale_a[static_cast<std::size_t>(row) * groups_per_row + g];
      const int bcols = (b.cols + o.scale_b_block_cols - 1) / o.scale_b_block_cols;
      const std::uint64_t sb =
          o.scale_b[static_cast<std::size_t>(g) * bcols + col / o.scale_b_block_cols];
      s = ieee(Op::mul, f, sa, sb);
    }
    acc32 = ieee(Op::mul_add, f, partial32, s, acc32);
  }
  return acc32;
}

void check(bool ok, std::string_view where, const std::string& msg) {
  if (!ok) throw Error(std::string(where), msg);
}

}  // namespace

Matrix gemm(const GemmOptions& o, const Matrix& a, const Matrix& b, const Matrix* c,
            const GemmSetupNames& name) {
  check(a.cols == b.rows, name.b, "A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                                     " but B has " + std::to_string(b.rows) + " rows");
  check(static_cast<std::size_t>(a.rows) * a.cols == a.codes.size(), name.a, "size mismatch");
  check(static_cast<std::size_t>(b.rows) * b.cols == b.codes.size(), name.b, "size mismatch");
  if (c) {
    check(c->rows == a.rows && c->cols == b.cols, name.c,
          "C must be " + std::to_string(a.rows) + "x" + std::to_string(b.cols));
  }
  // C enters the unit in its own format when the unit is the first to see it; promotion, split-K
  // and an epilogue add it in the accumulator's format, which must then hold it exactly.
  const bool c_to_unit = o.promote_every <= 0 && o.split_k == 1 && !o.c_in_epilogue;
  const bool convert_c = c && !(c->format == o.acc) && !c_to_unit;
  if (convert_c)
    check(holds_exactly(c->format, o.acc), name.c,
          "C in " + c->format.name + " is added in the accumulator format " + o.acc.name +
              " here (promotion, split-K or an epilogue), which cannot hold it exactly");
  check(o.split_k >= 1 && o.split_k <= std::max(1, a.cols), name.split_k, "must be 1..K");
  const bool promote = o.promote_every > 0;
  if (!o.block_scale_a.empty() || !o.block_scale_b.empty()) {
    const int sbk = o.unit.scale_block;
    check(sbk > 0, name.model, "block scales need a block-scaled unit (scale_block > 0)");
    const int nblocks = (a.cols + sbk - 1) / sbk;
    check(o.block_scale_a.size() == static_cast<std::size_t>(a.rows) * nblocks, name.block_scale_a,
          "expected " + std::to_string(a.rows) + "x" + std::to_string(nblocks) + " scales");
    check(o.block_scale_b.size() == static_cast<std::size_t>(nblocks) * b.cols, name.block_scale_b,
          "expected " + std::to_string(nblocks) + "x" + std::to_string(b.cols) + " scales");
    check(o.split_k == 1 || a.cols % (o.split_k * sbk) == 0, name.split_k,
          "slices must hold whole scale blocks");
    check(o.promote_every == 0 || o.promote_every % sbk == 0, name.promote_every,
          "promotion groups must hold whole scale blocks");
    check(!o.reverse_k || a.cols % sbk == 0, name.reverse_k,
          "reversing K with block scales needs K to be whole scale blocks");
  }
  if (promote) {
    check(o.split_k == 1, name.split_k, "split-K with promotion is not modelled");
    const int groups = (a.cols + o.promote_every - 1) / o.promote_every;
    if (!o.scale_a.empty()) {
      check(o.scale_a.size() == static_cast<std::size_t>(a.rows) * groups, name.scale_a,
            "expected " + std::to_string(a.rows) + "x" + std::to_string(groups) + " scales");
      const int bcols = (b.cols + o.scale_b_block_cols - 1) / o.scale_b_block_cols;
      check(o.scale_b.size() == static_cast<std::size_t>(groups) * bcols, name.scale_b,
            "expected " + std::to_string(groups) + "x" + std::to_string(bcols) + " scales");
    }
  }
  const Format& acc_format = promote ? f32() : o.acc;
  // The plain case (one slice of all K through the kernel, no promotion, no block scales, K in
  // order): several whole rows of D at once, so that the kernel interleaves the dot products
  // (and, with B in panels, shares each load of B among the rows, and reads a panel from cache
  // for the rows after the first four).
  const bool by_rows = o.split_k == 1 && !promote && o.block_scale_a.empty() && !o.reverse_k;
  const Prepared pr(o, a, b, c && c_to_unit ? c->format : o.acc, by_rows);
  Matrix d{a.rows, b.cols, o.out, {}};
  d.codes.resize(static_cast<std::size_t>(a.rows) * b.cols);
  const int k = a.cols;
  constexpr int kRowsAtOnce = 16;
  const auto n = static_cast<std::size_t>(b.cols);
  // C of element (i, j) as the unit sees it, and as the epilogue adds it.
  auto c_of = [&](int i, int j) {
    std::uint64_t start = c ? c->at(i, j) : 0;
    if (convert_c) start = convert(start, c->format, o.acc, Rounding{}).bits;
    if (promote && c) start = convert(start, o.acc, acc_format, Rounding{}).bits;
    return start;
  };
  std::vector<std::size_t> offset_a, offset_b;
  std::vector<std::uint64_t> epilogue_c(n), starts(n), values;
  for (int i = 0; i < a.rows; ++i) {
    for (int j = 0; j < b.cols; ++j) {
      epilogue_c[static_cast<std::size_t>(j)] = c_of(i, j);
      starts[static_cast<std::size_t>(j)] = o.c_in_epilogue ? 0 : c_of(i, j);
    }
    if (by_rows && i % kRowsAtOnce == 0) {
      const int rows = std::min(kRowsAtOnce, a.rows - i);
      offset_a.clear();
      offset_b.clear();
      std::vector<std::uint64_t> block_starts;
      for (int r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < n; ++j) {
          offset_a.push_back(static_cast<std::size_t>(i + r) * k);
          offset_b.push_back(pr.b_offset(static_cast<int>(j)));
          block_starts.push_back(o.c_in_epilogue ? 0 : c_of(i + r, static_cast<int>(j)));
        }
      values.resize(block_starts.size());
      pr.kernel.dot_many(pr.a, offset_a, pr.bt, offset_b, pr.b_stride(),
                         static_cast<std::size_t>(k), block_starts, values);
    }
    for (int j = 0; j < b.cols; ++j) {
      const std::uint64_t start = starts[static_cast<std::size_t>(j)];
      std::uint64_t value;
      if (by_rows) {
        value = values[static_cast<std::size_t>(i % kRowsAtOnce) * n + static_cast<std::size_t>(j)];
      } else if (o.split_k == 1) {
        value = element(o, pr, a, b, i, j, 0, k, start);
      } else {
        std::vector<std::uint64_t> parts;
        for (int s = 0; s < o.split_k; ++s) {
          const int k0 = static_cast<int>(static_cast<long long>(k) * s / o.split_k);
          const int k1 = static_cast<int>(static_cast<long long>(k) * (s + 1) / o.split_k);
          parts.push_back(element(o, pr, a, b, i, j, k0, k1, 0));
        }
        if (o.reduction == SplitReduction::sequential) {
          value = start;
          for (std::uint64_t p : parts) value = ieee(Op::add, acc_format, value, p);
        } else {
          while (parts.size() > 1) {
            std::vector<std::uint64_t> next;
            for (std::size_t t = 0; t + 1 < parts.size(); t += 2)
              next.push_back(ieee(Op::add, acc_format, parts[t], parts[t + 1]));
            if (parts.size() % 2) next.push_back(parts.back());
            parts.swap(next);
          }
          value = ieee(Op::add, acc_format, start, parts[0]);
        }
      }
      if (o.c_in_epilogue && c)
        value = ieee(Op::add, acc_format, value, epilogue_c[static_cast<std::size_t>(j)]);
      d.codes[static_cast<std::size_t>(i) * b.cols + j] =
          convert(value, acc_format, o.out, o.out_rounding).bits;
    }
  }
  return d;
}

}  // namespace fpconform
