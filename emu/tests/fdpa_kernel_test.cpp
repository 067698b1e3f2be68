// FdpaKernel (the integer fast path) against fdpa (the clear model) on random vectors: values
// spread over the whole range, cancellation, zeros, subnormals, NaN/inf, every preset.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string_view>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/matrix_presets.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform {
namespace {

constexpr const char* kNoColumnLanes =
    "the column lanes need AVX2 or AVX-512, and FPCONFORM_DISPATCH is portable or the CPU has "
    "neither";

// The preset's unit for in -> out, if it models that output.
std::optional<FdpaParams> unit_for(const MatrixUnitEntry& e, const Format& in, const Format& out) {
  try {
    return find_matrix_unit(e.preset, in, out);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::uint64_t random_code(std::mt19937_64& rng, const Format& f, int kind) {
  std::uint64_t v = rng() & f.code_mask();
  if (kind == 0 && rng() % 16 == 0) v &= f.sign_mask() | 0x7;  // zeros and subnormals
  if (kind == 1) v = (v & ~(f.magnitude_mask() >> 2)) | (rng() & 0x3);  // wide range
  if (kind == 2) {
    // Values near 2^-75 so that products land below the zero-term exponent (-133 for
    // bf16/tf32) by more than F, and some zeros: where zero_exp decides the alignment.
    const std::int64_t want = static_cast<std::int64_t>(f.bias) - 76 + static_cast<std::int64_t>(rng() % 4);
    const std::uint64_t field = static_cast<std::uint64_t>(
        std::clamp<std::int64_t>(want, 1, (1ll << f.exp_bits) - 2));
    v = (v & (f.sign_mask() | ((1ull << f.man_bits) - 1))) | (field << f.man_bits);
    if (rng() % 8 == 0) v &= f.sign_mask();
  }
  return v;
}

TEST(FdpaKernel, SameAsTheModelOnRandomVectors) {
  std::mt19937_64 rng(11);
  int compared = 0, fast_blocks = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    for (const char* out_name : {"f32", "f16"}) {
      const Format out = parse_format(out_name);
      const auto p = unit_for(e, in, out);
      if (!p) continue;  // no model for this output
      const FdpaKernel kernel(*p, in, out);
      fast_blocks += kernel.fast() ? 1 : 0;
      for (int t = 0; t < 400; ++t) {
        const std::size_t k = 1 + rng() % 100;
        std::vector<std::uint64_t> a(k), b(k);
        const int kind = t % 4;
        for (std::size_t i = 0; i < k; ++i) {
          a[i] = random_code(rng, in, kind);
          b[i] = random_code(rng, in, kind);
        }
        if (t % 4 == 3)  // cancellation: negate the first half into the second
          for (std::size_t i = k / 2; i < k; ++i) {
            a[i] = a[i - k / 2] ^ in.sign_mask();
            b[i] = b[i - k / 2];
          }
        std::uint64_t c = rng() & out.code_mask();
        if (t % 5 == 0 || kind == 2) c = 0;
        if (t % 7 == 0) c &= out.sign_mask() | 0xFF;  // subnormal C
        const std::uint64_t want = fdpa(*p, in, out, a, b, c);
        const std::uint64_t got = kernel.dot(a, b, c);
        ASSERT_EQ(got, want) << e.preset << " " << e.input << "->" << out_name << " t=" << t
                             << " k=" << k;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 5000);
  EXPECT_GT(fast_blocks, 10);
}

// Long dot products of ordinary values (what gemm and the bench run): the two-pass form of the
// fused block (C known only after the previous block) against fdpa, for every preset with an
// fp32 output whose block the kernel serves, K up to 4096, C from tiny to large.
TEST(FdpaKernel, LongDotsSameAsTheModel) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f32 = parse_format("f32"), f64 = parse_format("f64");
  int compared = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    if (in.precision() > 12) continue;  // the kernel's integer paths: tf32 and narrower
    const auto p = unit_for(e, in, f32);
    if (!p) continue;  // no model for this output
    const FdpaKernel kernel(*p, in, f32);
    for (std::size_t k : {std::size_t{7}, std::size_t{64}, std::size_t{1000}, std::size_t{4096}}) {
      std::vector<std::uint64_t> a(k), b(k);
      Rounding sat;
      sat.sat = Saturation::finite;
      const double scale = std::ldexp(1.0, static_cast<int>(rng() % 9) - 4);
      for (std::size_t i = 0; i < k; ++i) {
        const double x = normal(rng) * scale, y = normal(rng);
        a[i] = convert(std::bit_cast<std::uint64_t>(x), f64, in, sat).bits;
        b[i] = convert(std::bit_cast<std::uint64_t>(y), f64, in, sat).bits;
      }
      for (std::uint64_t c : {std::uint64_t{0}, std::uint64_t{0x3F800000}, std::uint64_t{0xC4800000},
                              std::uint64_t{0x00000010}, std::uint64_t{0x80000000}}) {
        ASSERT_EQ(kernel.dot(a, b, c), fdpa(*p, in, f32, a, b, c))
            << e.preset << " " << e.input << " k=" << k << " c=" << c;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

// The exact (Kulisch) structure's integer path against fdpa: every input format of <= 16 bits
// that it serves, several outputs, blocks 0 (all K) and small ones, every deterministic output
// rounding, output flushing, long vectors (carries between digit rows), wide ranges, exact
// cancellation to zero and NaN/inf among the operands or in C.
TEST(FdpaKernel, ExactPathSameAsTheModel) {
  std::mt19937_64 rng(29);
  int compared = 0;
  const RoundingMode modes[] = {RoundingMode::rne, RoundingMode::rna, RoundingMode::rtz,
                                RoundingMode::up, RoundingMode::down, RoundingMode::odd};
  for (const char* in_name : {"f16", "bf16", "e4m3", "e5m2", "e2m1", "e3m2", "e4m3fnuz"}) {
    const Format in = parse_format(in_name);
    for (const char* out_name : {"f32", "f16", "bf16"}) {
      const Format out = parse_format(out_name);
      for (int block : {0, 1, 4, 33}) {
        for (RoundingMode mode : modes) {
          FdpaParams p;
          p.structure = FdpaStructure::exact;
          p.c_in_block = false;
          p.block = block;
          p.out_rounding = Rounding{mode};
          p.flush_subnormal_outputs = rng() % 4 == 0;
          p.nan = "ieee";
          const FdpaKernel kernel(p, in, out);
          ASSERT_TRUE(kernel.fast()) << in_name << "->" << out_name;
          for (int t = 0; t < 24; ++t) {
            const std::size_t k = t % 6 == 0 ? 600 + rng() % 1200 : rng() % 70;
            std::vector<std::uint64_t> a(k), b(k);
            const int kind = t % 4;
            for (std::size_t i = 0; i < k; ++i) {
              a[i] = random_code(rng, in, kind == 2 ? 1 : kind);
              b[i] = random_code(rng, in, kind == 2 ? 1 : kind);
              if (t % 5 != 4) {  // NaN/inf only in some vectors (they take the general path)
                if (in.is_nan_code(a[i]) || in.is_inf_code(a[i])) a[i] = 0;
                if (in.is_nan_code(b[i]) || in.is_inf_code(b[i])) b[i] = 0;
              }
            }
            if (t % 4 == 3)  // exact cancellation: negate the first half into the second
              for (std::size_t i = k / 2; i < k; ++i) {
                a[i] = a[i - k / 2] ^ in.sign_mask();
                b[i] = b[i - k / 2];
              }
            std::uint64_t c = rng() & out.code_mask();
            if (t % 3 == 0) c = 0;
            if (t % 7 == 0) c &= out.sign_mask() | 0xFF;  // subnormal C
            const std::uint64_t want = fdpa(p, in, out, a, b, c);
            ASSERT_EQ(kernel.dot(a, b, c), want)
                << in_name << "->" << out_name << " block=" << block << " mode="
                << static_cast<int>(mode) << " t=" << t << " k=" << k;
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 10000);
}

// dot_many (several dot products at once, their block chains interleaved: what gemm runs) against
// fdpa on each output's gathered vectors: every preset with an input of <= 16 bits, f32 and f16
// outputs, 1 to 13 outputs (groups of 8, 4, 2 and 1), A rows and B columns contiguous or
// strided, K with and without a partial last block, ordinary and wide-range values (blocks that
// leave the short path in some lanes of a group), zeros, subnormal and NaN/inf codes, C from
// zero and subnormal to inf and NaN per output.
TEST(FdpaKernel, DotManySameAsTheModel) {
  std::mt19937_64 rng(41);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  int compared = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    if (in.precision() > 12) continue;  // the kernel's integer paths: tf32 and narrower
    for (const char* out_name : {"f32", "f16"}) {
      const Format out = parse_format(out_name);
      const auto p = unit_for(e, in, out);
      if (!p) continue;  // no model for this output
      const FdpaKernel kernel(*p, in, out);
      for (int t = 0; t < 12; ++t) {
        const std::size_t n = 1 + (static_cast<std::size_t>(t) * 5) % 13;  // outputs: 1 .. 13
        const std::size_t rows = 1 + rng() % 3;
        const std::size_t k = t == 0 ? 2048 + rng() % 64 : 1 + rng() % 300;
        const int kind = t % 4;  // 0, 1: ordinary values; 2: wide range, zeros; 3: specials too
        auto code = [&] {
          if (kind < 2) {
            const double x = normal(rng);
            return convert(std::bit_cast<std::uint64_t>(x), f64, in, sat).bits;
          }
          std::uint64_t v = random_code(rng, in, rng() % 2);
          if (kind == 2 && (in.is_nan_code(v) || in.is_inf_code(v))) v = 0;
          return v;
        };
        // A: rows x k, row-major. B: k x n, row-major (stride n) or column-major (stride 1).
        std::vector<std::uint64_t> a(rows * k), b(k * n);
        for (auto& v : a) v = code();
        for (auto& v : b) v = code();
        const bool strided = t % 2 == 1;
        const DecodedOperands da = kernel.decode(a), db = kernel.decode(b);
        std::vector<std::size_t> oa(n), ob(n);
        std::vector<std::uint64_t> c(n), got(n);
        for (std::size_t j = 0; j < n; ++j) {
          oa[j] = (rng() % rows) * k;
          ob[j] = strided ? j : j * k;
          c[j] = rng() % 3 == 0 ? 0 : rng() & out.code_mask();
          if (rng() % 5 == 0) c[j] &= out.sign_mask() | 0xFF;  // subnormal C
          if (kind == 2 && rng() % 6 == 0) {  // NaN or inf C
            const std::uint64_t inf = (out.magnitude_mask() >> out.man_bits) << out.man_bits;
            c[j] = (out.sign_mask() * (rng() % 2)) | (rng() % 2 ? out.magnitude_mask() : inf);
          }
          if (kind < 2 && (out.is_nan_code(c[j]) || out.is_inf_code(c[j]))) c[j] = 0;
        }
        kernel.dot_many(da, oa, db, ob, strided ? n : 1, k, c, got);
        for (std::size_t j = 0; j < n; ++j) {
          std::vector<std::uint64_t> av(a.begin() + static_cast<std::ptrdiff_t>(oa[j]),
                                        a.begin() + static_cast<std::ptrdiff_t>(oa[j] + k));
          std::vector<std::uint64_t> bv(k);
          for (std::size_t i = 0; i < k; ++i) bv[i] = b[strided ? i * n + j : j * k + i];
          ASSERT_EQ(got[j], fdpa(*p, in, out, av, bv, c[j]))
              << e.preset << " " << e.input << "->" << out_name << " t=" << t << " n=" << n
              << " j=" << j << " k=" << k << (strided ? " strided" : "");
          ++compared;
        }
        // Outputs written over the C values.
        kernel.dot_many(da, oa, db, ob, strided ? n : 1, k, c, c);
        ASSERT_EQ(c, got) << e.preset << " " << e.input << "->" << out_name << " t=" << t;
      }
    }
  }
  EXPECT_GT(compared, 500);
}

// Blocks at the edge of the kernel's int32 sums: every product the largest significand times
// itself (just below 4), all of one sign or alternating, so that a block of L sums to almost
// L * 2^(F + 2) (2^31 for Hopper's f16 blocks), with C zero, tiny, of the same magnitude
// and of either sign; dot and dot_many against fdpa.
TEST(FdpaKernel, BlocksOfTheLargestSignificands) {
  const Format f32 = parse_format("f32");
  int compared = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    if (in.precision() > 12 || !in.is_signed) continue;
    const auto p = unit_for(e, in, f32);
    if (!p) continue;
    const FdpaKernel kernel(*p, in, f32);
    // 1.11..1 x 2^0: the bias's field, every fraction bit set.
    const std::uint64_t big = (static_cast<std::uint64_t>(in.bias) << in.man_bits) |
                              ((1ull << in.man_bits) - 1);
    constexpr std::size_t k = 256, n = 8;
    for (int pattern = 0; pattern < 3; ++pattern) {
      std::vector<std::uint64_t> a(k, big), b(k * n, big);
      for (std::size_t i = 0; i < k; ++i)
        if (pattern == 1 || (pattern == 2 && i % 2 == 1)) a[i] |= in.sign_mask();
      for (std::uint64_t c : {std::uint64_t{0}, std::uint64_t{0x00000010}, std::uint64_t{0x42800000},
                              std::uint64_t{0xC2800000}, std::uint64_t{0x4F000000}}) {
        const std::uint64_t want = fdpa(*p, in, f32, a, std::vector<std::uint64_t>(b.begin(), b.begin() + k), c);
        ASSERT_EQ(kernel.dot(a, std::vector<std::uint64_t>(b.begin(), b.begin() + k), c), want)
            << e.preset << " " << e.input << " pattern " << pattern << " c=" << c;
        const DecodedOperands da = kernel.decode(a), db = kernel.decode(b);
        std::vector<std::size_t> oa(n, 0), ob(n);
        for (std::size_t j = 0; j < n; ++j) ob[j] = j * k;
        std::vector<std::uint64_t> cs(n, c), got(n);
        kernel.dot_many(da, oa, db, ob, 1, k, cs, got);
        for (std::size_t j = 0; j < n; ++j)
          ASSERT_EQ(got[j], want) << e.preset << " " << e.input << " pattern " << pattern << " c=" << c;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

// The model's result for one output of dot_many over A row-major (its row from offset_a, k
// long) and B row-major (n columns, its column offset_b).
std::uint64_t model_of_row_major(const FdpaParams& p, const FdpaFormats& f,
                                 const std::vector<std::uint64_t>& a,
                                 const std::vector<std::uint64_t>& b, std::size_t n,
                                 std::size_t k, std::size_t offset_a, std::size_t offset_b,
                                 std::uint64_t c) {
  const std::vector<std::uint64_t> av(a.begin() + static_cast<std::ptrdiff_t>(offset_a),
                                      a.begin() + static_cast<std::ptrdiff_t>(offset_a + k));
  std::vector<std::uint64_t> bv(k);
  for (std::size_t i = 0; i < k; ++i) bv[i] = b[i * n + offset_b];
  return fdpa(p, f, av, bv, c);
}

// Every row of a row-major A (rows x k) against every column of a row-major B (k x n), row by
// row: dot_many's offsets and C codes (random_code's `kind`, a fifth zeros or subnormals).
struct RowsByColumns {
  std::vector<std::size_t> oa, ob;
  std::vector<std::uint64_t> c;
};
RowsByColumns rows_by_columns(std::mt19937_64& rng, std::size_t rows, std::size_t n,
                              std::size_t k, const Format& out, int kind) {
  RowsByColumns t;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < n; ++j) {
      t.oa.push_back(r * k);
      t.ob.push_back(j);
      std::uint64_t x = random_code(rng, out, kind);
      if (rng() % 5 == 0) x = rng() % 2 ? 0 : out.sign_mask() | 1;  // zero, subnormal
      t.c.push_back(x);
    }
  return t;
}

// The column lanes (sixteen columns of a row-major B per AVX-512 vector, up to four groups at
// once, rows of A sharing B) against fdpa, for every preset they serve (and every other that
// dot_many runs with B row-major: the host path's, the exact unit's): 1 to 5 rows, 16 to 53
// columns (whole groups and leftovers), K with and without a partial last block; ordinary values,
// values spread over 2^-40 .. 2^40 where the format has them, zeros, blocks of the largest
// significands (sums at the edge of int32), blocks that cancel to zero, and C zero, subnormal,
// near overflow, NaN or inf per output; and outputs written over C.
TEST(FdpaKernel, ColumnLanesSameAsTheModel) {
  std::mt19937_64 rng(77);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f32 = parse_format("f32"), f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  int served = 0, compared = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    if (in.precision() > 12 || !in.is_signed) continue;
    const auto p = unit_for(e, in, f32);
    if (!p) continue;
    const FdpaKernel kernel(*p, in, f32);
    if (!kernel.row_major_b()) continue;
    ++served;
    const std::uint64_t big = (static_cast<std::uint64_t>(in.bias) << in.man_bits) |
                              ((1ull << in.man_bits) - 1);
    for (int t = 0; t < 8; ++t) {
      const std::size_t rows = 1 + static_cast<std::size_t>(t) % 5;
      const std::size_t n = t % 3 == 0 ? 16 : t % 3 == 1 ? 32 : 53;
      const auto L = static_cast<std::size_t>(std::max(p->block, 1));  // exact: block 0
      const std::size_t k = t % 2 == 0 ? L * (1 + rng() % 40) : L * (1 + rng() % 40) + 1 + rng() % (L - 1 > 0 ? L - 1 : 1);
      // 0: ordinary; 1: spread, zeros; 2: largest significands; 3: cancelling in pairs.
      const int kind = t % 4;
      auto code = [&](std::size_t i) {
        double x = normal(rng);
        if (kind == 1) x = std::ldexp(x, static_cast<int>(rng() % 81) - 40);
        std::uint64_t v = convert(std::bit_cast<std::uint64_t>(x), f64, in, sat).bits;
        if (kind == 1 && rng() % 9 == 0) v = rng() % 2 ? in.sign_mask() : 0;
        if (kind == 2) v = big | (rng() % 2 ? in.sign_mask() : 0);
        if (kind == 3 && i % 2 == 1) v = 0;  // filled below
        return v;
      };
      std::vector<std::uint64_t> a(rows * k), b(k * n);  // both row-major
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = code(i % k);
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = code(i / n);
      if (kind == 3)  // products in pairs that cancel: a[2i+1] = -a[2i], b[2i+1] = b[2i]
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t i = 1; i < k; i += 2) {
            a[r * k + i] = a[r * k + i - 1] ^ in.sign_mask();
            for (std::size_t j = 0; j < n; ++j) b[i * n + j] = b[(i - 1) * n + j];
          }
      const DecodedOperands da = kernel.decode(a), db = kernel.decode(b, Operand::b);
      std::vector<std::size_t> oa, ob;
      std::vector<std::uint64_t> c;
      const std::uint64_t specials[] = {0x00000000, 0x80000000, 0x00000010, 0x7F7FFFF0, 0xFF7FFFF0,
                                        0x7F800000, 0xFF800000, 0x7FC00000, 0x00800000};
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < n; ++j) {
          oa.push_back(r * k);
          ob.push_back(j);
          c.push_back(rng() % 4 == 0 ? specials[rng() % 9] : (rng() & 0x807FFFFF) | 0x3F000000);
        }
      std::vector<std::uint64_t> got(c.size());
      kernel.dot_many(da, oa, db, ob, n, k, c, got);
      for (std::size_t o = 0; o < c.size(); ++o) {
        ASSERT_EQ(got[o], model_of_row_major(*p, {in, f32}, a, b, n, k, oa[o], ob[o], c[o]))
            << e.preset << " " << e.input << " t=" << t << " rows=" << rows << " n=" << n
            << " k=" << k << " output " << o << " c=" << c[o];
        ++compared;
      }
      kernel.dot_many(da, oa, db, ob, n, k, c, c);
      ASSERT_EQ(c, got) << e.preset << " " << e.input << " t=" << t;
    }
  }
  if (served == 0)
    GTEST_SKIP() << kNoColumnLanes;
  EXPECT_GT(compared, 5000);
}

// The sub-sum path's row form (the fp4 kinds: binary32 lanes, one fma per product, one addition
// toward zero per block) against fdpa: 1-15 rows, 16/24/37 columns, K = 0 to 300 (whole blocks
// of 64 and a partial last one). Kinds of operands: every code (zeros of both signs included);
// normal values; mostly zeros, most of them -0 (blocks whose products are all zero, zero sums'
// signs); products cancelling in pairs (sums that are exactly zero); the largest magnitudes.
// C: ordinary, +-0, with its lead at either edge of the window where the block's sum is taken
// whole (2^(23 - F) and 2^(F + lsb0)) and one binade outside each, subnormal, the largest,
// inf, NaN; outputs written over C.
TEST(FdpaKernel, SubsumRowsSameAsTheModel) {
  const Format f32 = parse_format("f32"), e2m1 = parse_format("e2m1");
  std::mt19937_64 rng(41);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  int compared = 0, zeros = 0, negative_zeros = 0;
  for (const char* preset : {"blackwell-mxf4", "blackwell-nvf4"}) {
    const FdpaParams unit = find_matrix_unit(preset, e2m1, f32);
    const FdpaKernel kernel(unit, e2m1, f32);
    if (!kernel.row_major_b())
      GTEST_SKIP() << "the sub-sum row form needs AVX2 and FMA and FPCONFORM_DISPATCH other "
                      "than portable; the integers serve instead, tested elsewhere";
    const int lsb0 = 2 * (e2m1.emin() - e2m1.man_bits);
    const int lo = 23 - unit.frac_bits, hi = unit.frac_bits + lsb0;
    const auto power = [](int e, bool negative) {  // a binary32 code of +-1.x 2^e
      return (negative ? 0x80000000ull : 0) | (static_cast<std::uint64_t>(e + 127) << 23) | 0x2A5A5B;
    };
    for (int t = 0; t < 40; ++t) {
      const std::size_t rows = std::array<std::size_t, 7>{1, 3, 8, 9, 15, 5, 2}[t % 7];
      const std::size_t n = t % 3 == 0 ? 16 : t % 3 == 1 ? 24 : 37;
      const int kind = t % 5;
      const std::size_t k = t == 7 ? 0 : t % 4 == 3 ? 300 : 64 * (1 + rng() % 4);
      const auto code = [&](bool of_b) -> std::uint64_t {
        switch (kind) {
          case 0: return rng() & e2m1.code_mask();
          case 2:  // products -0 mostly: +0 in a, -0 in b
            return rng() % 64 == 0 ? rng() & e2m1.code_mask() : of_b ? 0x8 : 0x0;
          case 4: return rng() % 2 ? 0x7 : 0xF;  // +-6
          default:
            return convert(std::bit_cast<std::uint64_t>(normal(rng)), f64, e2m1, sat).bits;
        }
      };
      std::vector<std::uint64_t> a(rows * k), b(k * n);  // both row-major
      for (std::uint64_t& x : a) x = code(false);
      for (std::uint64_t& x : b) x = code(true);
      if (kind == 3)  // a[2i+1] = -a[2i], b[2i+1] = b[2i]: every block's sum is zero
        for (std::size_t i = 1; i < k; i += 2) {
          for (std::size_t r = 0; r < rows; ++r)
            a[r * k + i] = a[r * k + i - 1] ^ e2m1.sign_mask();
          for (std::size_t j = 0; j < n; ++j) b[i * n + j] = b[(i - 1) * n + j];
        }
      RowsByColumns tile = rows_by_columns(rng, rows, n, k, f32, 0);
      for (std::uint64_t& c : tile.c) {
        const bool neg = rng() % 2;
        switch (rng() % 12) {
          case 0: c = 0; break;
          case 1: c = 0x80000000; break;
          case 2: c = power(lo, neg); break;
          case 3: c = power(lo - 1, neg); break;
          case 4: c = power(hi, neg); break;
          case 5: c = power(hi + 1, neg); break;
          case 6: c = (neg ? 0x80000000 : 0) | 0x00012345; break;  // subnormal
          case 7: c = (neg ? 0xFF7FFFFF : 0x7F7FFFFF); break;
          case 8: c = rng() % 2 ? (neg ? 0xFF800000 : 0x7F800000) : 0x7FC00000; break;
          default: c = power(static_cast<int>(rng() % 8) - 2, neg); break;
        }
      }
      const DecodedOperands da = kernel.decode(a, Operand::a), db = kernel.decode(b, Operand::b);
      std::vector<std::uint64_t> got(tile.c.size());
      kernel.dot_many(da, tile.oa, db, tile.ob, n, k, tile.c, got);
      for (std::size_t o = 0; o < got.size(); ++o) {
        const std::uint64_t want =
            model_of_row_major(unit, {e2m1, f32}, a, b, n, k, tile.oa[o], tile.ob[o], tile.c[o]);
        ASSERT_EQ(got[o], want) << preset << " t=" << t << " kind=" << kind << " rows=" << rows
                                << " n=" << n << " k=" << k << " output " << o
                                << " c=" << tile.c[o];
        ++compared;
        zeros += (want & 0x7FFFFFFF) == 0;
        negative_zeros += want == 0x80000000;
      }
      kernel.dot_many(da, tile.oa, db, tile.ob, n, k, tile.c, tile.c);
      ASSERT_EQ(tile.c, got) << preset << " t=" << t;
    }
  }
  EXPECT_GT(compared, 10000);
  EXPECT_GT(zeros, 100);
  EXPECT_GT(negative_zeros, 10);
}

// The column lanes with a late C (AMD CDNA3: the block's sum taken at its products' exponent,
// then C added: the sum floored to 31 fraction bits of the larger exponent, C to 24, one
// rounding to nearest even) against fdpa, for f16, bf16 and tf32: C of either sign from 2^-30
// to 2^30 times the block's scale, so that either side dominates by up to 30 binades and each
// floor cuts (sums and C of both signs), C zero, subnormal, NaN or inf; operands near 2^12
// against a C below 2^-100 (the binary64 stage's lanes); and a sum whose last bit the unit's
// floor drops ahead of a tie with C; 1-6 rows, 16/24/37 columns, K with and
// without a partial last block.
TEST(FdpaKernel, LateCLanesSameAsTheModel) {
  const Format f32 = parse_format("f32"), f64 = parse_format("f64");
  std::mt19937_64 rng(57);
  std::normal_distribution<double> normal(0.0, 1.0);
  Rounding sat;
  sat.sat = Saturation::finite;
  int compared = 0, served = 0;
  for (const char* in_name : {"f16", "bf16", "tf32"}) {
    const Format in = parse_format(in_name);
    const FdpaParams unit = find_matrix_unit("cdna3", in, f32);
    const FdpaKernel kernel(unit, in, f32);
    if (!kernel.row_major_b()) continue;
    ++served;
    const auto L = static_cast<std::size_t>(unit.block);
    for (int t = 0; t < 24; ++t) {
      const std::size_t rows = 1 + static_cast<std::size_t>(t) % 6;
      const std::size_t n = t % 3 == 0 ? 16 : t % 3 == 1 ? 24 : 37;
      const std::size_t k = L * (1 + rng() % 6) + (t % 2 ? 1 + rng() % (L - 1) : 0);
      const auto code = [&](double x) {
        return convert(std::bit_cast<std::uint64_t>(x), f64, in, sat).bits;
      };
      // Operands near 2^12 against a C of 2^-100 or below (a subnormal, either sign): C trails
      // the block by more than the int32 form takes, so the binary64 stage floors it.
      const bool tiny_c = t % 6 == 4;
      const double scale = tiny_c ? 0x1p12 : 1.0;
      std::vector<std::uint64_t> a(rows * k), b(k * n);  // both row-major
      for (std::uint64_t& x : a) x = code(scale * normal(rng));
      for (std::uint64_t& x : b) x = code(scale * normal(rng));
      // Every block: 1 + 2^-16 + 2^-24 against C = 2^8 (+ 2^-15): C leads by 8 binades, so the
      // unit floors the sum at 2^-23 (dropping 2^-24) before C meets it, and 2^-16 is half
      // C's last place: a tie, to even.
      const bool tie = t % 6 == 5;
      if (tie) {
        const double values[] = {1.0, 0x1p-8, 0x1p-12};
        for (std::size_t i = 0; i < k; ++i) {
          const double v = i % L < 3 ? values[i % L] : 0.0;
          for (std::size_t r = 0; r < rows; ++r) a[r * k + i] = code(v);
          for (std::size_t j = 0; j < n; ++j) b[i * n + j] = code(v);
        }
      }
      RowsByColumns tile = rows_by_columns(rng, rows, n, k, f32, 0);
      for (std::uint64_t& c : tile.c) {
        if (tie) {
          c = rng() % 2 ? 0x43800000 : 0x43800001;  // 2^8 (+ 2^-15)
          continue;
        }
        if (tiny_c) {  // ~2^-101, subnormal, or -2^-149 (C 2^(F - E) below 2^-150)
          c = (rng() % 2 ? 0x80000000 : 0) | (rng() % 2 ? 0x0D000000 | (rng() & 0x7FFFFF)
                                                         : rng() & 0x7FFFFF);
          if (rng() % 4 == 0) c = 0x80000001;
          continue;
        }
        const double x = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() % (1u << 23)), -23),
                                    static_cast<int>(rng() % 61) - 30);
        c = std::bit_cast<std::uint32_t>(static_cast<float>(rng() % 2 ? -x : x));
        if (rng() % 16 == 0) {
          const std::uint64_t specials[] = {0x00000000, 0x80000000, 0x00000123, 0x7F800000, 0xFFC00000};
          c = specials[rng() % 5];
        }
      }
      const DecodedOperands da = kernel.decode(a, Operand::a), db = kernel.decode(b, Operand::b);
      std::vector<std::uint64_t> got(tile.c.size());
      kernel.dot_many(da, tile.oa, db, tile.ob, n, k, tile.c, got);
      for (std::size_t o = 0; o < got.size(); ++o) {
        ASSERT_EQ(got[o], model_of_row_major(unit, {in, f32}, a, b, n, k, tile.oa[o], tile.ob[o],
                                             tile.c[o]))
            << in_name << " t=" << t << " rows=" << rows << " n=" << n << " k=" << k
            << " output " << o << " c=" << tile.c[o];
        ++compared;
      }
    }
  }
  if (served == 0)
    GTEST_SKIP() << kNoColumnLanes;
  EXPECT_GT(compared, 5000);
}

// The host's row path (IEEE chains, pairwise groups and two-way trees on the host's fma and
// add: up to eight rows of A against the 16 or 8 columns of a vector of a row-major B) against
// fdpa, for every preset it serves into f32 and f64, each also with its results flushed the
// other way: 1 to 15 rows (runs of 8, 4, 2, 1), column counts with and without a partial
// vector, K with and without a partial instruction, and K = 0; random codes (NaN, inf,
// subnormals), a wide range, values near 2^-75, and values whose products straddle the
// output's 2^emin (what a unit that flushes must leave to the model); C random, zero or subnormal per
// output; outputs written over C.
TEST(FdpaKernel, HostRowsSameAsTheModel) {
  std::mt19937_64 rng(91);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  int served = 0, compared = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    for (const char* out_name : {"f32", "f64"}) {
      const Format out = parse_format(out_name);
      auto p = unit_for(e, in, out);
      if (!p || (p->structure != FdpaStructure::sequential &&
                 p->structure != FdpaStructure::pairwise && p->structure != FdpaStructure::tree))
        continue;
      for (int t = 0; t < 12; ++t) {
        if (t == 6) p->flush_subnormal_outputs = !p->flush_subnormal_outputs;  // the other way
        const FdpaKernel kernel(*p, in, out);
        if (!kernel.row_major_b()) continue;
        served += t == 0 || t == 6;
        const std::size_t rows = std::array<std::size_t, 6>{1, 3, 8, 9, 15, 5}[t % 6];
        const std::size_t n = t % 3 == 0 ? 16 : t % 3 == 1 ? 24 : 37;
        const std::size_t k = t % 6 == 5 ? 0 : 1 + rng() % 70;
        // 0-2: random_code's kinds; 3: magnitudes about 2^(emin / 2) (2^-70 .. 2^-55 for f32),
        // products on both sides of the output's 2^emin.
        const int kind = t % 4;
        const auto code = [&] {
          if (kind < 3) return random_code(rng, in, kind);
          const int e = out.emin() / 2 + 8 - static_cast<int>(rng() % 16);
          const double x = std::ldexp(normal(rng), e);
          return convert(std::bit_cast<std::uint64_t>(x), f64, in, sat).bits;
        };
        std::vector<std::uint64_t> a(rows * k), b(k * n);  // both row-major
        for (std::uint64_t& x : a) x = code();
        for (std::uint64_t& x : b) x = code();
        const DecodedOperands da = kernel.decode(a), db = kernel.decode(b, Operand::b);
        RowsByColumns tile = rows_by_columns(rng, rows, n, k, out, kind % 3);
        const std::vector<std::size_t>&oa = tile.oa, &ob = tile.ob;
        std::vector<std::uint64_t>& c = tile.c;
        std::vector<std::uint64_t> got(c.size());
        kernel.dot_many(da, oa, db, ob, n, k, c, got);
        for (std::size_t o = 0; o < c.size(); ++o) {
          ASSERT_EQ(got[o], model_of_row_major(*p, {in, out}, a, b, n, k, oa[o], ob[o], c[o]))
              << e.preset << " " << e.input << " -> " << out_name << " t=" << t
              << " rows=" << rows << " n=" << n << " k=" << k << " output " << o
              << " c=" << c[o];
          ++compared;
        }
        kernel.dot_many(da, oa, db, ob, n, k, c, c);
        ASSERT_EQ(c, got) << e.preset << " " << e.input << " -> " << out_name << " t=" << t;
      }
    }
  }
  EXPECT_GE(served, 12);
  EXPECT_GT(compared, 40000);
}

// dot_many over rows of A (row-major, k each) against n columns of a row-major B, one C per
// output (rows * n), each output asserted equal to the model's; returns them.
std::vector<std::uint64_t> column_lanes_as_model(const FdpaKernel& kernel, const FdpaParams& p,
                                                 const FdpaFormats& f,
                                                 const std::vector<std::uint64_t>& a,
                                                 const std::vector<std::uint64_t>& b,
                                                 std::size_t n, std::size_t k,
                                                 const std::vector<std::uint64_t>& c) {
  const DecodedOperands da = kernel.decode(a), db = kernel.decode(b, Operand::b);
  std::vector<std::size_t> oa, ob;
  for (std::size_t o = 0; o < c.size(); ++o) {
    oa.push_back(o / n * k);
    ob.push_back(o % n);
  }
  std::vector<std::uint64_t> got(c.size());
  kernel.dot_many(da, oa, db, ob, n, k, c, got);
  for (std::size_t o = 0; o < c.size(); ++o)
    EXPECT_EQ(got[o], model_of_row_major(p, f, a, b, n, k, oa[o], ob[o], c[o]))
        << "output " << o << " c=" << c[o];
  return got;
}

// The column lanes where zero terms sit above C: a unit with zero_exp = -10, operands of
// magnitude >= 2^-4 (so every nonzero product is above the zero terms), a row of A all zeros
// (every block's products zero: C alone, cut at the zero terms' exponent), and C tiny or
// ordinary.
TEST(FdpaKernel, ColumnLanesZeroTermsAboveC) {
  const Format f16 = parse_format("f16"), f32 = parse_format("f32");
  FdpaParams p = find_matrix_unit("hopper", f16, f32);
  p.zero_exp = -10;
  const FdpaKernel kernel(p, f16, f32);
  if (!kernel.row_major_b())
    GTEST_SKIP() << kNoColumnLanes;
  std::mt19937_64 rng(3);
  constexpr std::size_t rows = 2, n = 16, k = 256;
  auto code = [&] {  // 2^-4 .. 2^4, either sign
    return ((rng() % 2) << 15) | (static_cast<std::uint64_t>(15 - 4 + rng() % 9) << 10) |
           (rng() & 0x3FF);
  };
  std::vector<std::uint64_t> a(rows * k), b(k * n);
  for (auto& v : a) v = code();
  for (auto& v : b) v = code();
  for (std::size_t i = 0; i < k; ++i) a[i] = 0;  // row 0: every block's products zero
  std::vector<std::uint64_t> c(rows * n);
  for (std::size_t o = 0; o < c.size(); ++o)
    c[o] = o % 2 ? 0x30800000 | (rng() & 0x7FFFFF) : 0x3F800000 | (rng() & 0x7FFFFF);
  column_lanes_as_model(kernel, p, {f16, f32}, a, b, n, k, c);
}

// The column lanes' two ways to a block's largest exponent: each operand's leads as bytes
// (rows sharing B, each operand's leads within 127 binades) and as 2^lead (otherwise).
// Operands whose leads span 127 or 128 binades (the other's 90; all from 2^-50, zeros among
// them: every sum far below 2^128, which Hopper's lanes need), four rows against the same 16
// columns and three rows against three different ones, for units of blocks of 4 (tf32), 8 and
// 16 (bf16) and the late C.
TEST(FdpaKernel, ColumnLanesExponentForms) {
  const Format f32 = parse_format("f32");
  std::mt19937_64 rng(41);
  int bytes_served = 0;
  for (const auto& [preset, input] : {std::pair{"ampere", "tf32"}, std::pair{"ampere", "bf16"},
                                      std::pair{"hopper", "bf16"}, std::pair{"cdna3", "bf16"}}) {
    const Format in = parse_format(input);
    const FdpaParams p = find_matrix_unit(preset, in, f32);
    const FdpaKernel kernel(p, in, f32);
    if (!kernel.row_major_b())
      GTEST_SKIP() << kNoColumnLanes;
    for (const auto& [spread_a, spread_b] : {std::pair{127, 90}, std::pair{128, 90},
                                             std::pair{90, 127}, std::pair{90, 128}}) {
      constexpr std::size_t k = 64, n = 48;  // B: three blocks of 16 columns
      // Leads from -50 to -50 + spread, both ends present; a tenth zeros.
      auto operands = [&](std::size_t count, int spread) {
        std::vector<std::uint64_t> v(count);
        for (std::size_t i = 0; i < count; ++i) {
          const int above = i == 0 ? 0 : i == 1 ? spread : static_cast<int>(rng() % (spread + 1u));
          const std::uint64_t field = static_cast<std::uint64_t>(in.bias - 50 + above) << in.man_bits;
          const std::uint64_t fraction = rng() & ((1ull << in.man_bits) - 1);
          v[i] = rng() % 10 == 0 && i > 1 ? 0 : (rng() % 2 ? in.sign_mask() : 0) | field | fraction;
        }
        return v;
      };
      const std::vector<std::uint64_t> a = operands(4 * k, spread_a), b = operands(k * n, spread_b);
      const DecodedOperands da = kernel.decode(a), db = kernel.decode(b, Operand::b);
      ASSERT_EQ(da.lead_bytes.empty(), spread_a > 127) << preset;
      ASSERT_EQ(db.lead_bytes.empty(), spread_b > 127) << preset;
      bytes_served += !da.lead_bytes.empty() && !db.lead_bytes.empty();
      std::vector<std::size_t> oa, ob;
      for (std::size_t r = 0; r < 4; ++r)  // rows 0-3 against columns 0-15
        for (std::size_t j = 0; j < 16; ++j) {
          oa.push_back(r * k);
          ob.push_back(j);
        }
      for (std::size_t r = 0; r < 3; ++r)  // rows 0-2 against columns 16r .. 16r + 15
        for (std::size_t j = 0; j < 16; ++j) {
          oa.push_back(r * k);
          ob.push_back(16 * r + j);
        }
      std::vector<std::uint64_t> c(oa.size()), got(oa.size());
      for (auto& x : c) x = rng() % 5 == 0 ? 0 : (rng() & 0x807FFFFF) | 0x3F000000;
      kernel.dot_many(da, oa, db, ob, n, k, c, got);
      for (std::size_t o = 0; o < c.size(); ++o)
        ASSERT_EQ(got[o], model_of_row_major(p, {in, f32}, a, b, n, k, oa[o], ob[o], c[o]))
            << preset << " " << input << " spreads " << spread_a << "/" << spread_b << " output "
            << o;
    }
  }
  EXPECT_EQ(bytes_served, 8);
}

// The column lanes at the top of fp32's range: C near 2^128 and products near 2^120 whose
// block sums carry it past the largest finite value, or not. Toward zero, IEEE stops there
// (ampere: the largest finite value); a unit that saturates to infinity (hopper, as the H200
// measured) gives inf, which the lanes' rounding cannot: they step aside for such operands.
// To nearest even (cdna3's late C) the sum overflows to inf, and the next block starts from
// that inf (the long way).
TEST(FdpaKernel, ColumnLanesNearTheTopOfTheRange) {
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  for (const char* preset : {"ampere", "hopper", "cdna3"}) {
    const FdpaParams p = find_matrix_unit(preset, bf16, f32);
    const FdpaKernel kernel(p, bf16, f32);
    if (!kernel.row_major_b())
      GTEST_SKIP() << kNoColumnLanes;
    const bool to_inf = p.out_rounding.sat == Saturation::infinite ||
                        p.out_rounding.mode == RoundingMode::rne;
    EXPECT_EQ(to_inf, std::string_view(preset) != "ampere");
    std::mt19937_64 rng(11);
    constexpr std::size_t rows = 3, n = 16, k = 64;
    auto code = [&] {  // 2^59 .. 2^60 (bf16 exponent field 186 .. 187), either sign, mostly +
      return ((rng() % 4 == 0 ? 1u : 0u) << 15) | ((186u + rng() % 2) << 7) | (rng() & 0x7F);
    };
    std::vector<std::uint64_t> a(rows * k), b(k * n);
    for (auto& v : a) v = code();
    for (auto& v : b) v = code();
    const std::uint64_t cs[] = {0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x7F700000, 0x7F600000,
                                0x3F800000};
    std::vector<std::uint64_t> c(rows * n);
    for (auto& v : c) v = cs[rng() % std::size(cs)];
    const std::vector<std::uint64_t> got =
        column_lanes_as_model(kernel, p, {bf16, f32}, a, b, n, k, c);
    int past = 0, largest = 0;
    for (std::size_t o = 0; o < c.size(); ++o) {
      past += (got[o] & 0x7FFFFFFF) == 0x7F800000;
      largest += (got[o] & 0x7FFFFFFF) == 0x7F7FFFFF && (c[o] & 0x7FFFFFFF) != 0x7F7FFFFF;
    }
    // Some sums do pass the largest finite value; toward zero in IEEE, nothing reaches inf.
    EXPECT_GT(to_inf ? past : largest, 0) << preset;
    if (!to_inf) {
      EXPECT_EQ(past, 0) << preset;
    }
  }
}

// The late-C path's eight lanes (CDNA3: dot_many with eight columns): C far below the block
// (dropped for fp8, floored for the others: tiny negative C moves the result), far above it,
// zero of either sign, subnormal, NaN and inf, against fdpa column by column.
TEST(FdpaKernel, LateCLanesAgreeWithTheModel) {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f32 = parse_format("f32"), f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  const std::uint64_t cs[] = {0xA6800000, 0x26800000, 0xB3000001, 0x00000000, 0x80000000,
                              0x00000123, 0x80400000, 0x5F000000, 0xDF000000, 0x3F800000,
                              0xC0400000, 0x7FC00000, 0xFF800000, 0x3A000000, 0xBA000000};
  int compared = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    if (e.preset != "cdna3") continue;
    const Format in = parse_format(e.input);
    if (in.precision() > 12) continue;
    const auto p = unit_for(e, in, f32);
    if (!p) continue;
    const FdpaKernel kernel(*p, in, f32);
    for (int t = 0; t < 40; ++t) {
      const std::size_t k = t % 3 == 0 ? 16 : t % 3 == 1 ? 64 : 250, n = 8;
      std::vector<std::uint64_t> a(k), b(k * n);
      const double scale = std::ldexp(1.0, static_cast<int>(rng() % 21) - 10);
      for (auto& v : a) v = convert(std::bit_cast<std::uint64_t>(normal(rng) * scale), f64, in, sat).bits;
      for (auto& v : b) v = convert(std::bit_cast<std::uint64_t>(normal(rng)), f64, in, sat).bits;
      std::vector<std::uint64_t> c(n), got(n);
      for (auto& v : c) v = cs[rng() % std::size(cs)];
      const DecodedOperands da = kernel.decode(a), db = kernel.decode(b);
      const std::vector<std::size_t> oa(n, 0);
      std::vector<std::size_t> ob(n);
      for (std::size_t j = 0; j < n; ++j) ob[j] = j * k;
      kernel.dot_many(da, oa, db, ob, 1, k, c, got);
      for (std::size_t j = 0; j < n; ++j) {
        const std::vector<std::uint64_t> col(b.begin() + static_cast<std::ptrdiff_t>(j * k),
                                             b.begin() + static_cast<std::ptrdiff_t>((j + 1) * k));
        ASSERT_EQ(got[j], fdpa(*p, in, f32, a, col, c[j]))
            << e.input << " t=" << t << " j=" << j << " c=" << c[j];
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

// The binary16 fma chain (x86-avx512-fp16): 1.5 * 1.333984375 = 2 (1 + 2^-11), the tie between
// 2 and 2 + 2^-9; C = 2^-20 puts the exact sum above it (0x4001), C = 0 leaves the tie to even
// (0x4000), C = -2^-20 below it (0x4000). A product of two subnormals (2^-24 * 2^-24) added to
// -0 rounds to -0; 65504 + 16 overflows (inf, x86's rule: the model decides).
TEST(FdpaKernel, F16ChainRoundsOnceByHand) {
  const Format f16 = parse_format("f16");
  const FdpaKernel k(find_matrix_unit("x86-avx512-fp16", f16, f16), f16, f16);
  ASSERT_TRUE(k.fast());
  const std::vector<std::uint64_t> x{0x3E00}, y{0x3D56};  // 1.5, 1.333984375
  EXPECT_EQ(k.dot(x, y, 0x0010), 0x4001u);  // + 2^-20
  EXPECT_EQ(k.dot(x, y, 0x0000), 0x4000u);
  EXPECT_EQ(k.dot(x, y, 0x8010), 0x4000u);
  EXPECT_EQ(k.dot(std::vector<std::uint64_t>{0x0001}, std::vector<std::uint64_t>{0x8001}, 0x8000), 0x8000u);
  EXPECT_EQ(k.dot(std::vector<std::uint64_t>{0x7BFF}, std::vector<std::uint64_t>{0x3C00}, 0x4C00), 0x7C00u);
  // Ties below binary16's normal range, at its spacing 2^-24: 2^-25 -> 0, 1.5 * 2^-24 -> 2^-23.
  const std::vector<std::uint64_t> tiny{0x0001};
  EXPECT_EQ(k.dot(tiny, std::vector<std::uint64_t>{0x3800}, 0x0000), 0x0000u);
  EXPECT_EQ(k.dot(tiny, std::vector<std::uint64_t>{0xB800}, 0x0000), 0x8000u);
  EXPECT_EQ(k.dot(tiny, std::vector<std::uint64_t>{0x3E00}, 0x0000), 0x0002u);
  EXPECT_EQ(k.dot(tiny, std::vector<std::uint64_t>{0x3800}, 0x0001), 0x0002u);
  EXPECT_EQ(k.dot(tiny, std::vector<std::uint64_t>{0x3C00}, 0x0002), 0x0003u);  // exact
  // 2^-14 - 2^-24 (the largest subnormal) + 2^-25 ties to the even 2^-14.
  EXPECT_EQ(k.dot(tiny, std::vector<std::uint64_t>{0x3800}, 0x03FF), 0x0400u);
}

// The binary16 chain's row forms (dot_many, B row-major) round x y + c once: (1 + 2^-10)
// (2^-10 - 2^-20) = 2^-10 - 2^-30, added to 2 + 2^-9 (last bit odd), lies just below the tie
// 2 + 2^-9 + 2^-10. Rounded to 24 bits first it would be that tie, and to even would go up
// (0x4002); once, it goes down (0x4001). With C = 2 (last bit even) both give 2.
TEST(FdpaKernel, F16RowsRoundOnce) {
  const Format f16 = parse_format("f16");
  const FdpaKernel kernel(find_matrix_unit("x86-avx512-fp16", f16, f16), f16, f16);
  if (!kernel.row_major_b())
    GTEST_SKIP() << "the binary16 chain's row forms need AVX2 and F16C, or AVX-512";
  constexpr std::size_t n = 16;
  const std::vector<std::uint64_t> a{0x3C01, 0xBC01, 0x3C01}, b(n, 0x13FE);  // 1 + 2^-10 | ...
  std::vector<std::uint64_t> c(3 * n), got(3 * n);
  std::vector<std::size_t> oa(3 * n), ob(3 * n);
  const std::uint64_t cs[] = {0x4001, 0xC001, 0x4000};  // 2 + 2^-9, its negative, 2
  for (std::size_t o = 0; o < 3 * n; ++o) {
    oa[o] = o / n;
    ob[o] = o % n;
    c[o] = cs[o / n];
  }
  kernel.dot_many(kernel.decode(a), oa, kernel.decode(b, Operand::b), ob, n, 1, c, got);
  for (std::size_t o = 0; o < 3 * n; ++o) EXPECT_EQ(got[o], cs[o / n]) << "output " << o;
}

// The binary16 chain's row form (x86-avx512-fp16, rows of A against sixteen columns of a
// row-major B, eight with AVX2; AVX512-FP16's own fma, or elsewhere binary32 rounded to odd) against
// fdpa: binary16 operands, fp8 ones (held exactly) and a mixed pair; 1-15 rows, 16/24/37
// columns, K = 0 to 300; random codes (NaN, inf, subnormals), a wide range (overflow on the
// way), values in [1/4, 2) (a few inf) whose chains stay finite, products at binary16's
// subnormal spacing, sums just inside a halfway point (where rounding twice goes wrong); C
// random, zero or subnormal; operands decoded by this kernel and by another unit's (hopper).
TEST(FdpaKernel, F16RowsSameAsTheModel) {
  const Format f16 = parse_format("f16");
  const FdpaParams chain = find_matrix_unit("x86-avx512-fp16", f16, f16);
  if (!FdpaKernel(chain, f16, f16).row_major_b())
    GTEST_SKIP() << "the binary16 row form needs AVX-512, or AVX2 with FMA and F16C, and "
                    "FPCONFORM_DISPATCH other than portable; the binary64 form serves instead, "
                    "tested elsewhere";
  std::mt19937_64 rng(17);
  int compared = 0, finite = 0;
  const std::pair<const char*, const char*> pairs[] = {{"f16", "f16"}, {"e5m2", "e5m2"},
                                                       {"e4m3", "f16"}};
  for (const auto& [a_name, b_name] : pairs) {
    const FdpaFormats formats(parse_format(a_name), parse_format(b_name), f16, f16);
    const FdpaKernel kernel(chain, formats);
    const FdpaKernel other(find_matrix_unit("hopper", f16, parse_format("f32")),
                           FdpaFormats(formats.a, formats.b, parse_format("f32"),
                                       parse_format("f32")));
    ASSERT_TRUE(kernel.row_major_b()) << a_name << " x " << b_name;
    for (int t = 0; t < 20; ++t) {
      const std::size_t rows = std::array<std::size_t, 6>{1, 3, 8, 9, 15, 5}[t % 6];
      const std::size_t n = t % 3 == 0 ? 16 : t % 3 == 1 ? 24 : 37;
      const std::size_t k = t % 6 == 5 ? 0 : t % 5 == 4 ? 300 : 1 + rng() % 70;
      // 0, 1: random_code's; 2: [1/4, 2); 3: at 2^-12 (f16); 4: next to halfway (f16 x f16)
      const int kind = t % 5;
      const auto code = [&](const Format& f) {
        if (kind < 2) return random_code(rng, f, kind);
        const std::uint64_t top = ((std::uint64_t{1} << f.exp_bits) - 1) << f.man_bits;
        if (kind == 2 && rng() % 512 == 0) return top;  // inf (e4m3: 256) among ordinary values
        const std::uint64_t field = kind == 2 ? f.bias - 2 + rng() % 3 : 1 + rng() % 3;
        const std::uint64_t keep = f.sign_mask() | ((std::uint64_t{1} << f.man_bits) - 1);
        return std::uint64_t{(rng() & keep) | (field << f.man_bits)};
      };
      std::vector<std::uint64_t> a(rows * k), b(k * n);  // both row-major
      for (std::uint64_t& x : a) x = code(formats.a);
      for (std::uint64_t& x : b) x = code(formats.b);
      RowsByColumns tile = rows_by_columns(rng, rows, n, k, f16, kind == 1);
      const std::vector<std::size_t>&oa = tile.oa, &ob = tile.ob;
      std::vector<std::uint64_t>& c = tile.c;
      // The first product (1 + 2^-10)(1 - 2^-10) 2^e = 2^e - 2^(e - 20) against C = v, an odd
      // binary16 of spacing 2^(e + 1), either sign each: v + p lies 2^(e - 20) inside the
      // halfway point v +- 2^e, too close for binary32's 24 bits; the other products zero.
      if (kind == 4 && a_name == std::string_view("f16") && b_name == std::string_view("f16") &&
          k > 0) {
        std::vector<int> e(n);
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t i = 0; i < k; ++i) a[r * k + i] = i == 0 ? 0x3C01 : 0;
        for (std::size_t j = 0; j < n; ++j) {
          e[j] = -14 + static_cast<int>(rng() % 19);  // v's field e + 26 within 12 .. 30
          const std::uint64_t y = (e[j] >= -13 ? static_cast<std::uint64_t>(e[j] + 14) << 10 : 0) | 0x3FF;
          for (std::size_t i = 0; i < k; ++i) b[i * n + j] = i == 0 ? y | (rng() % 2 ? 0x8000 : 0) : 0;
        }
        for (std::size_t o = 0; o < c.size(); ++o)
          c[o] = (rng() % 2 ? 0x8000 : 0) | static_cast<std::uint64_t>(e[ob[o]] + 26) << 10 |
                 (2 * (rng() % 512) + 1);
      }
      for (const FdpaKernel* decoder : {&kernel, &other}) {
        const DecodedOperands da = decoder->decode(a, Operand::a),
                              db = decoder->decode(b, Operand::b);
        std::vector<std::uint64_t> got(c.size());
        kernel.dot_many(da, oa, db, ob, n, k, c, got);
        for (std::size_t o = 0; o < c.size(); ++o) {
          const std::uint64_t want = model_of_row_major(chain, formats, a, b, n, k, oa[o], ob[o], c[o]);
          ASSERT_EQ(got[o], want) << a_name << " x " << b_name << " t=" << t << " rows=" << rows
                                  << " n=" << n << " k=" << k << " output " << o
                                  << " c=" << c[o] << (decoder == &other ? " (hopper's)" : "");
          ++compared;
          finite += (want & 0x7C00) != 0x7C00;
        }
      }
    }
  }
  EXPECT_GT(compared, 15000);
  EXPECT_GT(finite, compared / 2) << finite << " of " << compared;  // most results come from the row form, not the model
}

// The exact unit's row form (one rounding of the exact sum into binary32, up to eight rows of A
// against the consecutive columns of a row-major B in binary64 lanes), and that of the exact
// structure in steps (cdna1-km: a rounding every 4 or 2 products), against fdpa: bf16,
// f16, e4m3 and a mixed pair; 1-15 rows, 16/24/37 columns, K = 0 to 300. Kinds of operands:
// random codes (NaN, inf, subnormals) and a wide range without NaN or inf (overflow, zeros,
// subnormals); normal values (the bound
// decides); pairs that cancel exactly, ahead of a few small terms, where the binary64 sum has
// rounded and the result lies far below the bound (the model's integers decide); and C = 2^24
// with sums of +-1 products, exact sums at binary32's halfway points (ties to even); and a
// binary64 sum that rounds onto the halfway point below 2^24 (see there). C random,
// zero or subnormal elsewhere; operands decoded by this kernel and by another unit's.
TEST(FdpaKernel, ExactRowsSameAsTheModel) {
  const Format f32 = parse_format("f32"), bf16 = parse_format("bf16");
  if (!FdpaKernel(find_matrix_unit("exact", bf16, f32), bf16, f32).row_major_b())
    GTEST_SKIP() << "the exact row form needs AVX2 and FMA and FPCONFORM_DISPATCH other than "
                    "portable; the binary64 lanes and integers serve instead, tested elsewhere";
  std::mt19937_64 rng(23);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  int compared = 0, normal_results = 0;
  struct Case {
    const char* preset;
    const char* a_name;
    const char* b_name;
  };
  const Case cases[] = {{"exact", "bf16", "bf16"},   {"exact", "f16", "f16"},
                        {"exact", "e4m3", "e4m3"},   {"exact", "e5m2", "bf16"},
                        {"cdna1-km", "f16", "f16"}, {"cdna1-km", "bf16", "bf16"}};
  for (const auto& [preset, a_name, b_name] : cases) {
    const FdpaFormats formats(parse_format(a_name), parse_format(b_name), f32, f32);
    const FdpaParams unit = find_matrix_unit(preset, formats.a, f32);
    const FdpaKernel kernel(unit, formats);
    const FdpaKernel other(find_matrix_unit("hopper", bf16, f32), formats);
    ASSERT_TRUE(kernel.row_major_b()) << preset << " " << a_name << " x " << b_name;
    for (int t = 0; t < 24; ++t) {
      const std::size_t rows = std::array<std::size_t, 7>{1, 3, 8, 9, 15, 5, 2}[t % 7];
      const std::size_t n = t % 3 == 0 ? 16 : t % 3 == 1 ? 24 : 37;
      // 0, 1: random_code's; 2: normal; 3: cancelling; 4: halfway; 5: rounded onto halfway
      const int kind = t % 6;
      const std::size_t k = t == 7 ? 0 : t % 4 == 3 ? 300 : 2 + 2 * (rng() % 40);
      const auto value = [&](const Format& f, double x) {
        return convert(std::bit_cast<std::uint64_t>(x), f64, f, sat).bits;
      };
      // Kind 1 without NaN and inf, so that the row form sees the wide range (with either
      // operand holding one, dot_many takes the integers' way).
      const auto random = [&](const Format& f) {
        std::uint64_t x = random_code(rng, f, kind);
        while (kind == 1 && !std::isfinite(to_double(x, f))) x = random_code(rng, f, kind);
        return x;
      };
      std::vector<std::uint64_t> a(rows * k), b(k * n);  // both row-major
      for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = kind < 2 ? random(formats.a)
               : kind == 4 ? value(formats.a, rng() % 2 ? 1.0 : -1.0)
                           : value(formats.a, normal(rng));
      for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          std::uint64_t& x = b[i * n + j];
          x = kind < 2    ? random(formats.b)
              : kind == 4 ? value(formats.b, rng() % 2 ? 1.0 : -1.0)
                          : value(formats.b, normal(rng));
          // Cancelling: b at odd i the negation of b at even i (a repeats there, below), the
          // last four terms small, or zero in every third column (an exact zero throughout).
          if (kind == 3 && i % 2 == 1) x = b[(i - 1) * n + j] ^ formats.b.sign_mask();
          if (kind == 3 && i + 4 >= k)
            x = j % 3 == 0 ? 0 : value(formats.b, std::ldexp(normal(rng), -12));
        }
      if (kind == 3)
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t i = 1; i < k; i += 2) a[r * k + i] = a[r * k + i - 1];
      // C = +-2^24, then +-(2^30, a term of 2^-24 that binary64 loses beside it, -2^30, -1/2):
      // the binary64 sum lands on 2^24 -+ 1/2, halfway to a power of two, whose spacing below
      // is half its spacing above; the exact sum lies just past it (where the small term is
      // there) and rounds the other way. Zeros after; e4m3 lacks the range.
      const bool halfway_by_rounding = kind == 5 && formats.a.emax() >= 15 && formats.b.emax() >= 15;
      if (kind == 5)
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t i = 0; i < k; ++i) {
            const double row_values[] = {0x1p15, 0x1p-12, 0x1p15, 1.0};
            a[r * k + i] = halfway_by_rounding && i < 4 ? value(formats.a, row_values[i])
                                                        : value(formats.a, normal(rng));
          }
      if (kind == 5)
        for (std::size_t j = 0; j < n; ++j) {
          const double sign = rng() % 2 ? 1.0 : -1.0, small = rng() % 4 ? -0x1p-12 : 0.0;
          const double column_values[] = {0x1p15, small, -0x1p15, -0.5};
          for (std::size_t i = 0; i < k; ++i)
            b[i * n + j] = value(formats.b, !halfway_by_rounding ? normal(rng)
                                            : i < 4          ? sign * column_values[i]
                                                             : 0.0);
        }
      RowsByColumns tile = rows_by_columns(rng, rows, n, k, f32, kind == 1);
      if (kind == 3 || kind == 4)
        for (std::uint64_t& c : tile.c)
          c = kind == 4 ? 0x4B800000 | (rng() % 2 ? 0x80000000 : 0) : 0;  // +-2^24
      if (halfway_by_rounding)
        for (std::size_t o = 0; o < tile.c.size(); ++o)  // C's sign: its column's
          tile.c[o] = 0x4B800000 | (b[tile.ob[o]] & formats.b.sign_mask() ? 0x80000000 : 0);
      for (const FdpaKernel* decoder : {&kernel, &other}) {
        const DecodedOperands da = decoder->decode(a, Operand::a),
                              db = decoder->decode(b, Operand::b);
        std::vector<std::uint64_t> got(tile.c.size());
        kernel.dot_many(da, tile.oa, db, tile.ob, n, k, tile.c, got);
        for (std::size_t o = 0; o < got.size(); ++o) {
          const std::uint64_t want =
              model_of_row_major(unit, formats, a, b, n, k, tile.oa[o], tile.ob[o], tile.c[o]);
          ASSERT_EQ(got[o], want) << preset << " " << a_name << " x " << b_name << " t=" << t
                                  << " kind=" << kind
                                  << " rows=" << rows << " n=" << n << " k=" << k << " output "
                                  << o << " c=" << tile.c[o]
                                  << (decoder == &other ? " (hopper's)" : "");
          ++compared;
          const std::uint32_t field = want >> 23 & 0xFF;
          normal_results += field != 0 && field != 0xFF;
        }
      }
    }
  }
  EXPECT_GT(compared, 20000);
  EXPECT_GT(normal_results, compared / 2) << normal_results << " of " << compared;
}

// Operands decoded by a kernel of another unit (one decoding shared by many models, as fit
// does) give the binary16 chain the same results as its own decoding, and as the model.
TEST(FdpaKernel, F16ChainReadsOperandsDecodedElsewhere) {
  const Format f16 = parse_format("f16");
  const FdpaParams chain = find_matrix_unit("x86-avx512-fp16", f16, f16);
  const FdpaKernel k(chain, f16, f16), other(find_matrix_unit("hopper", f16, f16), f16, f16);
  std::mt19937_64 rng(7);
  const std::size_t n = 8, depth = 100;
  std::vector<std::uint64_t> a(depth), b(n * depth);
  for (auto& v : a) v = rng() & 0xBBFF;  // finite: exponent fields below 0x1F
  for (auto& v : b) v = rng() & 0xBBFF;
  const std::vector<std::size_t> oa(n, 0);
  std::vector<std::size_t> ob(n);
  for (std::size_t j = 0; j < n; ++j) ob[j] = j * depth;
  const std::vector<std::uint64_t> c(n, 0x3C00);
  std::vector<std::uint64_t> own(n), elsewhere(n);
  k.dot_many(k.decode(a), oa, k.decode(b, Operand::b), ob, 1, depth, c, own);
  k.dot_many(other.decode(a), oa, other.decode(b, Operand::b), ob, 1, depth, c, elsewhere);
  for (std::size_t j = 0; j < n; ++j) {
    const std::vector<std::uint64_t> bj(b.begin() + static_cast<std::ptrdiff_t>(j * depth),
                                        b.begin() + static_cast<std::ptrdiff_t>((j + 1) * depth));
    EXPECT_EQ(own[j], fdpa(chain, f16, f16, a, bj, 0x3C00)) << j;
    EXPECT_EQ(elsewhere[j], own[j]) << j;
  }
}

// The exact steps' binary64 lanes (cdna1-km bf16: C + a_0 b_0 + a_1 b_1, exact, then RNE into
// binary32) where the binary64 sum of the products rounds: its result must not be taken.
TEST(FdpaKernel, ExactStepsTakeNoRoundedSum) {
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  const FdpaParams unit = find_matrix_unit("cdna1-km", bf16, f32);
  const FdpaKernel k(unit, bf16, f32);
  struct Case {
    std::uint64_t a0, b0, a1, b1, c, want;
  };
  const Case cases[] = {
      // -2^40 + 2^20 * 2^20 + (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 exactly; binary64 loses the 2^-14
      // in 2^40 + 1 + 2^-6 + 2^-14.
      {0x4980, 0x4980, 0x3F81, 0x3F81, 0xD3800000, 0x3F820200},
      // 1 - 2^-25 - 2^-90 lies below the midpoint under 1 (whose spacing below is 2^-24):
      // 1 - 2^-24. Binary64 gives 1 - 2^-25, a tie that would round to 1.
      {0x3900, 0xB980, 0x2900, 0xA900, 0x3F800000, 0x3F7FFFFF},
      // 1 + 2^-24 exactly (no rounding in binary64): a tie, to even 1.
      {0x3F80, 0x3380, 0x0000, 0x0000, 0x3F800000, 0x3F800000},
  };
  for (const Case& t : cases) {
    const std::vector<std::uint64_t> a{t.a0, t.a1}, b{t.b0, t.b1};
    ASSERT_EQ(fdpa(unit, bf16, f32, a, b, t.c), t.want) << std::hex << t.c;  // the model agrees
    // Eight dot products at once (the lanes), each the same.
    const DecodedOperands da = k.decode(a), db = k.decode(b, Operand::b);
    const std::vector<std::size_t> o(8, 0);
    const std::vector<std::uint64_t> c(8, t.c);
    std::vector<std::uint64_t> got(8);
    k.dot_many(da, o, db, o, 1, 2, c, got);
    for (std::uint64_t g : got) EXPECT_EQ(g, t.want) << std::hex << t.c;
  }
}

constexpr const char* kNoExactStepsRows =
    "the exact steps' row form needs AVX2 and FMA and FPCONFORM_DISPATCH other than portable";

// cdna1-km with bf16 operands: exact steps of two products into binary32.
FdpaParams cdna1_km_bf16() {
  return find_matrix_unit("cdna1-km", parse_format("bf16"), parse_format("f32"));
}
bool exact_steps_rows_here() {
  return FdpaKernel(cdna1_km_bf16(), parse_format("bf16"), parse_format("f32")).row_major_b();
}

// One row of A (bf16 codes) against the 16 columns of a row-major B by cdna1-km, from C = c:
// the kernel's results, each checked against the model's; the model's.
std::vector<std::uint64_t> exact_steps_row(const std::vector<std::uint64_t>& a,
                                           const std::vector<std::uint64_t>& b,
                                           const std::vector<std::uint64_t>& c) {
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  const FdpaParams unit = cdna1_km_bf16();
  const FdpaKernel kernel(unit, bf16, f32);
  const std::size_t k = a.size(), n = c.size();
  const std::vector<std::size_t> oa(n, 0);
  std::vector<std::size_t> ob(n);
  for (std::size_t j = 0; j < n; ++j) ob[j] = j;
  std::vector<std::uint64_t> got(n), want(n);
  kernel.dot_many(kernel.decode(a), oa, kernel.decode(b, Operand::b), ob, n, k, c, got);
  const FdpaFormats formats(bf16, bf16, f32, f32);
  for (std::size_t j = 0; j < n; ++j) {
    want[j] = model_of_row_major(unit, formats, a, b, n, k, 0, j, c[j]);
    EXPECT_EQ(got[j], want[j]) << "column " << j;
  }
  return want;
}

// The exact steps' row form (cdna1-km bf16, steps of two products) where a step's exact sum,
// exact in binary64 too, is no normal binary32: in column 0, 2^-75 2^-75 + 2^-90 2^-90 =
// 2^-150 + 2^-180, past the halfway point between 0 and 2^-149, rounds to 2^-149 (rounded to
// 24 bits first it would land on that halfway point and go to 0); in column 1, 2^64 2^64 + 2^64
// 2^63 = 1.5 2^128 overflows to inf, which the next step's -1.5 2^128 leaves inf (a sum carried
// on unrounded would return to 0). The other columns sum 2^75 2^-75 and 2^-64 2^64s: every
// sum exact in binary64 and every result normal, so that nothing but the range check keeps the
// single sum (exact_steps_at_once) from columns 0 and 1.
TEST(FdpaKernel, ExactStepsRowsMeetTheRangeEnds) {
  if (!exact_steps_rows_here()) GTEST_SKIP() << kNoExactStepsRows;
  constexpr std::uint64_t kTwoTo64 = 0x5F80, kTwoTo63 = 0x5F00, kSign = 0x8000;
  const std::vector<std::uint64_t> a{0x1A00, 0x1280, kTwoTo64, kTwoTo64, kTwoTo64, kTwoTo64};
  const std::size_t k = a.size(), n = 16;
  std::vector<std::uint64_t> b(k * n, 0x1F80);  // 2^-64
  const std::uint64_t tiny[] = {0x1A00, 0x1280, 0, 0, 0, 0};
  const std::uint64_t huge[] = {0, 0, kTwoTo64, kTwoTo63, kTwoTo64 | kSign, kTwoTo63 | kSign};
  for (std::size_t i = 0; i < k; ++i) {
    b[i * n + 0] = tiny[i];
    b[i * n + 1] = huge[i];
    for (std::size_t j = 2; j < n && i < 2; ++j) b[i * n + j] = i == 0 ? 0x6500 : 0;  // 2^75, 0
  }
  const std::vector<std::uint64_t> want = exact_steps_row(a, b, std::vector<std::uint64_t>(n, 0));
  EXPECT_EQ(want[0], 0x00000001u);
  EXPECT_EQ(want[1], 0x7F800000u);
}

// As above, once a lane of the same vector has stopped: column 0's first step, C = 2^100 plus
// 2^50 2^26 + 2^-75 2^-75, lies just past the halfway point 2^100 + 2^76 and rounds up to
// 2^100 + 2^77, which binary64 cannot tell (its two sums round apart: the lane stops, its value
// left at a normal 2^100), so that the next group of eight steps is tried as one sum with that
// lane left out; there column 1, at 2^100 from 2^50 2^50, adds 2^64 2^64 + 2^64 2^63
// (exact in binary64, beyond binary32: inf) and then takes them away again. The other columns
// sum 2^-50 2^50 and 2^-64 2^64s: exact and normal throughout.
TEST(FdpaKernel, ExactStepsRowsRangeAfterALaneStopped) {
  if (!exact_steps_rows_here()) GTEST_SKIP() << kNoExactStepsRows;
  constexpr std::uint64_t kTwoTo50 = 0x5880, kTwoTo64 = 0x5F80, kTwoTo63 = 0x5F00, kSign = 0x8000;
  const std::size_t k = 20, n = 16;  // ten steps of two: 0-7 in the first group, 8 and 9 after
  std::vector<std::uint64_t> a(k, 0);
  a[0] = kTwoTo50;
  a[1] = 0x1A00;  // 2^-75
  for (std::size_t i = 16; i < k; ++i) a[i] = kTwoTo64;
  std::vector<std::uint64_t> b(k * n, 0);
  b[0] = 0x4C80;  // 2^26
  b[n] = 0x1A00;
  const std::uint64_t back[] = {kTwoTo64, kTwoTo63, kTwoTo64 | kSign, kTwoTo63 | kSign};
  for (std::size_t j = 1; j < n; ++j) {
    b[j] = j == 1 ? kTwoTo50 : 0x2680;  // 2^-50
    for (std::size_t i = 16; i < k; ++i) b[i * n + j] = j == 1 ? back[i - 16] : 0x1F80;  // 2^-64
  }
  std::vector<std::uint64_t> c(n, 0);
  c[0] = 0x71800000;  // 2^100
  const std::vector<std::uint64_t> want = exact_steps_row(a, b, c);
  EXPECT_EQ(want[0], 0x71800001u);
  EXPECT_EQ(want[1], 0x7F800000u);
  EXPECT_EQ(want[2], 0x40A00000u);  // 5
}


// Every preset's dot_many against the model, f32 and f16 out, B by columns and row-major: two
// rows of k = 64 against 16 columns, the operands from value(in), C from the codes cs(out);
// under each MXCSR value of `mxcsr` in turn (x86; none: as the caller runs), which dot_many
// must leave as it was. Counts the comparisons and the model's results of each class.
struct ClassCounts {
  int compared = 0, inf = 0, zero = 0, negative_zero = 0, subnormal = 0;
};
constexpr std::size_t kPresetRows = 2, kPresetColumns = 16, kPresetK = 64;
template <class Value, class Cs>
ClassCounts every_preset_as_model(std::mt19937_64& rng, Value value, Cs cs,
                                  std::span<const unsigned> mxcsr = {}) {
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  ClassCounts counts;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    if (in.width() > 19) continue;
    for (const char* out_name : {"f32", "f16"}) {
      const Format out = parse_format(out_name);
      const auto p = unit_for(e, in, out);
      if (!p) continue;
      const FdpaKernel kernel(*p, in, out);
      constexpr std::size_t rows = kPresetRows, n = kPresetColumns, k = kPresetK;
      std::vector<std::uint64_t> a(rows * k), b(n * k);  // b: n columns of k, contiguous
      for (auto* v : {&a, &b})
        for (auto& x : *v) x = convert(std::bit_cast<std::uint64_t>(value(in)), f64, in, sat).bits;
      const std::vector<std::uint64_t> c_codes = cs(out);
      std::vector<std::uint64_t> c(rows * n), want(rows * n), got(rows * n);
      for (auto& x : c) x = c_codes[rng() % c_codes.size()];
      std::vector<std::size_t> oa(rows * n);
      for (std::size_t o = 0; o < rows * n; ++o) {
        oa[o] = o / n * k;
        const std::size_t j = o % n;
        want[o] = fdpa(*p, in, out,
                       std::vector<std::uint64_t>(a.begin() + static_cast<std::ptrdiff_t>(oa[o]),
                                                  a.begin() + static_cast<std::ptrdiff_t>(oa[o] + k)),
                       std::vector<std::uint64_t>(b.begin() + static_cast<std::ptrdiff_t>(j * k),
                                                  b.begin() + static_cast<std::ptrdiff_t>((j + 1) * k)),
                       c[o]);
        const std::uint64_t magnitude = want[o] & out.magnitude_mask();
        counts.inf += out.is_inf_code(want[o]);
        counts.zero += magnitude == 0;
        counts.negative_zero += want[o] == out.sign_mask();
        counts.subnormal += magnitude != 0 && magnitude < (std::uint64_t{1} << out.man_bits);
      }
      for (const bool row_major : {false, true}) {
        std::vector<std::uint64_t> bb(b);
        std::vector<std::size_t> ob(rows * n);
        for (std::size_t o = 0; o < rows * n; ++o) ob[o] = row_major ? o % n : o % n * k;
        if (row_major)
          for (std::size_t j = 0; j < n; ++j)
            for (std::size_t i = 0; i < k; ++i) bb[i * n + j] = b[j * k + i];
        const DecodedOperands da = kernel.decode(a), db = kernel.decode(bb, Operand::b);
        const auto run = [&](const std::string& how) {
          kernel.dot_many(da, oa, db, ob, row_major ? n : 1, k, c, got);
          EXPECT_EQ(got, want) << e.preset << " " << e.input << "->" << out_name
                               << (row_major ? " (B row-major)" : "") << how;
          ++counts.compared;
        };
#if defined(__x86_64__)
        for (const unsigned mode : mxcsr) {
          const unsigned before = _mm_getcsr();
          _mm_setcsr(mode);
          run(" MXCSR " + std::to_string(mode));
          const unsigned after = _mm_getcsr();
          _mm_setcsr(before);
          EXPECT_EQ(after, mode) << e.preset;
        }
        if (!mxcsr.empty()) continue;
#endif
        run("");
      }
    }
  }
  return counts;
}

#if defined(__x86_64__)
// The kernel's paths that compute in the host's binary32/binary64 give the model's results
// whatever MXCSR the caller runs with (rounding mode, FTZ, DAZ), and leave it as it was; B by
// columns and row-major (the row forms, some of which set MXCSR themselves). Ordinary operands
// and some near the bottom of their range.
TEST(FdpaKernel, CallersMxcsrChangesNoResult) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  const unsigned modes[] = {0x7FC0u, 0xDF80u, 0xBFC0u};  // toward zero, up, down; FTZ and DAZ
  const ClassCounts counts = every_preset_as_model(
      rng,
      [&](const Format& in) {
        return normal(rng) * (rng() % 8 == 0 ? std::ldexp(1.0, in.emin() + 1) : 1.0);
      },
      [](const Format&) { return std::vector<std::uint64_t>{0}; }, modes);
  EXPECT_GT(counts.compared, 360);
}
#endif

// At the top of the output's range: operands near the top of their format's (bf16 and tf32
// near 2^60, where the fast paths still take them), mostly positive, and C at the output's
// largest finite value, its negative, half of it, 1 or 0. Sums pass the largest finite value:
// each unit's overflow rule (IEEE, or saturation to inf or to the largest finite value).
TEST(FdpaKernel, EveryPresetAtTheTopOfTheRange) {
  std::mt19937_64 rng(23);
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  const ClassCounts counts = every_preset_as_model(
      rng,
      [&](const Format& in) {
        return (rng() % 4 == 0 ? -1.0 : 1.0) * std::ldexp(1.0, std::min(in.emax(), 60)) *
               std::ldexp(1.0 + static_cast<double>(rng() % 1024) / 1024.0, -(rng() % 3));
      },
      [&](const Format& out) {
        const std::uint64_t largest = convert(0x7FEFFFFFFFFFFFFF, f64, out, sat).bits;
        const double half = std::bit_cast<double>(convert(largest, out, f64, sat).bits) / 2;
        return std::vector<std::uint64_t>{largest, largest | out.sign_mask(),
                                          convert(std::bit_cast<std::uint64_t>(half), f64, out, sat).bits,
                                          convert(0x3FF0000000000000, f64, out, sat).bits, 0};
      });
  EXPECT_GT(counts.compared, 100);
  EXPECT_GT(counts.inf, 100);  // the model's overflow results are among them
}

// At the bottom: operands near the bottom of their format's normal range (bf16 and tf32 near
// 2^-60), either sign, so that products cancel; C zero of either sign, the output's least
// subnormal of either sign, or its least normal. Results underflow: each unit's subnormal
// results, flushes and signs of zero.
TEST(FdpaKernel, EveryPresetAtTheBottomOfTheRange) {
  std::mt19937_64 rng(29);
  const ClassCounts counts = every_preset_as_model(
      rng,
      [&](const Format& in) {
        return (rng() % 2 ? -1.0 : 1.0) * std::ldexp(1.0, std::max(in.emin(), -60)) *
               std::ldexp(1.0 + static_cast<double>(rng() % 4) / 4.0, static_cast<int>(rng() % 3));
      },
      [&](const Format& out) {
        const std::uint64_t least_normal = std::uint64_t{1} << out.man_bits;
        return std::vector<std::uint64_t>{0, out.sign_mask(), 1, out.sign_mask() | 1, least_normal,
                                          out.sign_mask() | least_normal};
      });
  EXPECT_GT(counts.compared, 100);
  EXPECT_GT(counts.zero, 100);
  EXPECT_GT(counts.negative_zero, 0);
  EXPECT_GT(counts.subnormal, 100);
}

// Specials: C inf of either sign, NaN, zero or 1; ordinary operands, in every other unit (each
// unit's a and b drawn in one run) with an infinity or a NaN now and then (in formats without
// them, the largest finite value: the conversion saturates). Each unit's NaN and inf rules
// (inf - inf, NaN patterns, saturation) are the model's.
TEST(FdpaKernel, EveryPresetWithSpecials) {
  std::mt19937_64 rng(31);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::size_t drawn = 0;
  const ClassCounts counts = every_preset_as_model(
      rng,
      [&](const Format&) {
        const bool specials =
            drawn++ / (kPresetRows * kPresetK + kPresetK * kPresetColumns) % 2 == 1;
        const unsigned pick = specials ? rng() % 64 : 3;
        return pick == 0   ? std::numeric_limits<double>::infinity()
               : pick == 1 ? -std::numeric_limits<double>::infinity()
               : pick == 2 ? std::numeric_limits<double>::quiet_NaN()
                           : normal(rng);
      },
      [](const Format& out) {
        const std::uint64_t one = convert(0x3FF0000000000000, parse_format("f64"), out, {}).bits;
        return std::vector<std::uint64_t>{0, out.inf_code(false), out.inf_code(true),
                                          out.nan_code(false), one};
      });
  EXPECT_GT(counts.compared, 100);
  EXPECT_GT(counts.inf, 100);
}

// The exact unit's binary64 lanes (one running sum, its rounding errors kept and summed) where
// the errors' own binary64 sum rounds: 2^100 hides 1, 3 * 2^-24, 2^-51 and sixteen -2^-54, then
// goes. The exact sum 1 + 3 * 2^-24 - 2^-51 lies below the midpoint 1 + 3 * 2^-24: binary32
// gives 1 + 2^-23. Summed in binary64 the errors come to 1 + 3 * 2^-24 + 2^-51 (each -2^-54 is
// a quarter of a unit in the last place), above it.
TEST(FdpaKernel, ExactSumTakesNoRoundedErrorSum) {
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  const FdpaParams unit = find_matrix_unit("exact", bf16, f32);
  const FdpaKernel k(unit, bf16, f32);
  std::vector<std::uint64_t> a{0x5880, 0x3F80, 0x39C0, 0x3300}, b{0x5880, 0x3F80, 0x3A00, 0x3280};
  for (int i = 0; i < 16; ++i) {
    a.push_back(0x3200);  // 2^-27
    b.push_back(0xB200);  // -2^-27
  }
  a.push_back(0xD880);  // -2^50
  b.push_back(0x5880);  // 2^50
  ASSERT_EQ(fdpa(unit, bf16, f32, a, b, 0), 0x3F800001u);
  const DecodedOperands da = k.decode(a), db = k.decode(b, Operand::b);
  const std::vector<std::size_t> o(8, 0);
  const std::vector<std::uint64_t> c(8, 0);
  std::vector<std::uint64_t> got(8);
  k.dot_many(da, o, db, o, 1, a.size(), c, got);
  for (std::uint64_t g : got) EXPECT_EQ(g, 0x3F800001u);
}

// The long check (CTest label `exhaustive`, not in the default run): groups of eight dot products
// of every preset with an input of <= 16 bits, f32 and f16 outputs, against fdpa one by one:
// any codes (specials made zeros), codes of a few neighbouring binades, and codes of two
// significant bits there (exact ties and cancellations), K from 1 to 600, A rows shared or not,
// C of any finite code. FPCONFORM_LONG_GROUPS sets the groups per preset and output (300).
TEST(FdpaKernelLong, EveryPresetAgreesWithTheModel) {
  const char* env = std::getenv("FPCONFORM_LONG_GROUPS");
  const int groups = env ? std::atoi(env) : 300;
  std::mt19937_64 rng(2026);
  long long compared = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    if (in.width() > 16) continue;
    for (const char* out_name : {"f32", "f16"}) {
      const Format out = parse_format(out_name);
      const auto p = unit_for(e, in, out);
      if (!p) continue;
      const FdpaKernel kernel(*p, in, out);
      const int man = in.man_bits;
      for (int g = 0; g < groups; ++g) {
        const std::size_t k = 1 + (g % 3 == 0 ? rng() % 600 : rng() % 13);
        const int mode = g % 3;
        const std::uint64_t fields = 1ull << in.exp_bits;
        const std::uint64_t field0 = rng() % fields;
        auto code = [&]() -> std::uint64_t {
          std::uint64_t v = rng() & in.code_mask();
          const std::uint64_t sign = v & in.sign_mask();
          if (mode >= 1) {
            const std::uint64_t keep = mode == 1 ? (1ull << man) - 1 : (man >= 2 ? 3ull << (man - 2) : 1);
            v = sign | (v & keep) | (((field0 + rng() % 4) % fields) << man);
          }
          if (in.is_nan_code(v) || in.is_inf_code(v)) v = sign;
          return v;
        };
        std::vector<std::uint64_t> a(2 * k), b(8 * k);
        for (auto& v : a) v = code();
        for (auto& v : b) v = code();
        std::vector<std::size_t> oa(8), ob(8);
        std::vector<std::uint64_t> c(8), got(8);
        for (std::size_t j = 0; j < 8; ++j) {
          oa[j] = g % 2 ? (rng() % 2) * k : 0;
          ob[j] = j * k;
          c[j] = rng() & out.code_mask();
          if (out.is_nan_code(c[j]) || out.is_inf_code(c[j])) c[j] &= out.sign_mask();
        }
        kernel.dot_many(kernel.decode(a), oa, kernel.decode(b, Operand::b), ob, 1, k, c, got);
        for (std::size_t j = 0; j < 8; ++j) {
          const std::vector<std::uint64_t> aj(a.begin() + static_cast<std::ptrdiff_t>(oa[j]),
                                              a.begin() + static_cast<std::ptrdiff_t>(oa[j] + k));
          const std::vector<std::uint64_t> bj(b.begin() + static_cast<std::ptrdiff_t>(j * k),
                                              b.begin() + static_cast<std::ptrdiff_t>((j + 1) * k));
          ASSERT_EQ(got[j], fdpa(*p, in, out, aj, bj, c[j]))
              << e.preset << " " << e.input << "->" << out_name << " group " << g << " mode "
              << mode << " k " << k << " lane " << j;
          ++compared;
        }
      }
    }
  }
  std::printf("FdpaKernelLong: %lld dot products, every one the model's\n", compared);
  EXPECT_GT(compared, 0);
}

TEST(FdpaKernel, DotManyChecksItsSpans) {
  const Format f16 = parse_format("f16"), f32 = parse_format("f32");
  const FdpaKernel kernel(find_matrix_unit("ampere", f16, f32), f16, f32);
  const DecodedOperands d = kernel.decode(std::vector<std::uint64_t>(8, 0x3C00));
  const std::vector<std::size_t> o2(2, 0), o1(1, 0);
  const std::vector<std::uint64_t> c2(2, 0);
  std::vector<std::uint64_t> out2(2);
  EXPECT_THROW(kernel.dot_many(d, o2, d, o1, 1, 8, c2, out2), Error);
  kernel.dot_many(d, o2, d, o2, 1, 8, c2, out2);
  EXPECT_EQ(out2[0], 0x41000000u);  // 8 products of 1.0
  EXPECT_EQ(out2[1], 0x41000000u);
}

}  // namespace
}  // namespace fpconform
