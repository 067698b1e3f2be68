// The IEEE-exact structures of the matrix-unit model against the MPFR/GMP oracle, on random
// vectors (wide exponent spread, cancellation, zeros, subnormals, NaN/inf), in every rounding
// direction:
// - `exact` (Kulisch, one rounding; and exact blocks chained) = reference::exact_dot;
// - `fp32-sequential` and the fp64 MMA rows = a chain of the oracle's fma;
// - `cdna1` / `cdna2` (pairwise trees of fp32 fma and additions, CDNA2 flushing) = the same
//   tree written here with the oracle's operations.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "fpconform/arith.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/reference/arith.hpp"
#include "fpconform/reference/dot.hpp"

namespace fpconform {
namespace {

// Random codes: uniform over all codes, or a narrow exponent window (lots of interaction), or
// zeros and subnormals.
std::uint64_t random_code(std::mt19937_64& rng, const Format& f, int kind) {
  std::uint64_t v = rng() & f.code_mask();
  if (kind == 1 && f.exp_bits >= 3) {
    const std::uint64_t field = static_cast<std::uint64_t>(f.bias) - 2 + rng() % 5;
    v = (v & (f.sign_mask() | ((1ull << f.man_bits) - 1))) | (field << f.man_bits);
  }
  if (kind == 2 && rng() % 3 == 0) v &= f.sign_mask() | ((1ull << f.man_bits) - 1);  // subnormal / 0
  if (kind == 2 && rng() % 4 == 0) v &= f.sign_mask();
  return v;
}

bool is_nan(std::uint64_t bits, const Format& f) { return f.is_nan_code(bits); }

struct Pair {
  const char* in;
  const char* out;
};

constexpr RoundingMode kModes[] = {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up,
                                   RoundingMode::down, RoundingMode::rna, RoundingMode::odd};

TEST(ExactStructure, MatchesTheGmpAccumulator) {
  std::mt19937_64 rng(20240611);
  std::printf("seed 20240611\n");
  const Pair pairs[] = {{"f16", "f32"},  {"bf16", "f32"},  {"tf32", "f16"},   {"e4m3", "f32"},
                        {"e5m2", "bf16"}, {"e4m3fnuz", "f32"}, {"e5m2fnuz", "f16"},
                        {"e2m1", "f32"}, {"f32", "f32"},  {"f32", "f64"},   {"f64", "f64"},
                        {"f64", "f32"}};
  int compared = 0;
  for (const Pair& pr : pairs) {
    const Format in = parse_format(pr.in), out = parse_format(pr.out);
    for (int t = 0; t < 600; ++t) {
      const std::size_t k = t % 50 == 0 ? 1000 : 1 + rng() % 40;
      const int kind = t % 3;
      std::vector<std::uint64_t> a(k), b(k);
      for (std::size_t i = 0; i < k; ++i) {
        a[i] = random_code(rng, in, kind);
        b[i] = random_code(rng, in, kind);
      }
      if (t % 4 == 3)  // cancellation: the second half negates the first
        for (std::size_t i = k / 2; i < k; ++i) {
          a[i] = a[i - k / 2] ^ in.sign_mask();
          b[i] = b[i - k / 2];
        }
      std::uint64_t c = random_code(rng, out, kind);
      if (t % 5 == 0) c = 0;
      FdpaParams p = find_matrix_unit("exact", in, out);
      const int block = t % 6 == 5 ? 1 + static_cast<int>(rng() % 5) : 0;
      p.block = block;
      for (RoundingMode mode : kModes) {
        p.out_rounding = Rounding{mode};
        const std::uint64_t got = fdpa(p, in, out, a, b, c);
        // The oracle: one exact dot product per block, each D the next C.
        std::uint64_t want = c;
        const std::size_t step = block == 0 ? k : static_cast<std::size_t>(block);
        for (std::size_t s = 0; s < k; s += step) {
          const std::size_t len = std::min(step, k - s);
          want = reference::exact_dot(std::span(a).subspan(s, len), in,
                                      std::span(b).subspan(s, len), in, want, out, out,
                                      Rounding{mode})
                     .bits;
        }
        if (!(is_nan(got, out) && is_nan(want, out))) {
          ASSERT_EQ(got, want) << pr.in << "->" << pr.out << " t=" << t << " k=" << k
                               << " block=" << block << " mode=" << to_string(mode);
          ++compared;
        }
      }
    }
  }
  std::printf("%d non-NaN results compared\n", compared);
  EXPECT_GT(compared, 25000);
}

// A chain of the oracle's fma in `out` (inputs converted exactly).
std::uint64_t oracle_chain(const Format& in, const Format& out, const std::vector<std::uint64_t>& a,
                           const std::vector<std::uint64_t>& b, std::uint64_t c,
                           const OpOptions& o) {
  std::uint64_t d = c;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::uint64_t ops[3] = {convert(a[i], in, out, Rounding{}).bits,
                                  convert(b[i], in, out, Rounding{}).bits, d};
    d = reference::apply_op(Op::mul_add, out, ops, o).bits;
  }
  return d;
}

TEST(SequentialStructure, MatchesAChainOfOracleFma) {
  std::mt19937_64 rng(77);
  std::printf("seed 77\n");
  const Pair pairs[] = {{"f16", "f32"}, {"bf16", "f32"}, {"e4m3", "f32"}, {"f32", "f32"},
                        {"f64", "f64"}};
  int compared = 0;
  for (const Pair& pr : pairs) {
    const Format in = parse_format(pr.in), out = parse_format(pr.out);
    const char* preset = out.name == "f64" ? "ampere" : "fp32-sequential";
    const FdpaParams p = find_matrix_unit(preset, in, out);
    OpOptions o;
    o.rounding = p.out_rounding;
    o.nan = &find_nan_policy(p.nan);
    for (int t = 0; t < 1500; ++t) {
      const std::size_t k = 1 + rng() % 24;
      std::vector<std::uint64_t> a(k), b(k);
      for (std::size_t i = 0; i < k; ++i) {
        a[i] = random_code(rng, in, t % 3);
        b[i] = random_code(rng, in, t % 3);
      }
      const std::uint64_t c = t % 5 == 0 ? 0 : random_code(rng, out, t % 3);
      const std::uint64_t got = fdpa(p, in, out, a, b, c);
      const std::uint64_t want = oracle_chain(in, out, a, b, c, o);
      if (!(is_nan(got, out) && is_nan(want, out))) {
        ASSERT_EQ(got, want) << preset << " " << pr.in << " t=" << t << " k=" << k;
        ++compared;
      }
    }
  }
  std::printf("%d non-NaN results compared\n", compared);
  EXPECT_GT(compared, 4000);
}

// The CDNA1/CDNA2 tree written directly with the oracle's operations (MMA-Sim's pairwise_dot:
// leaves fma(a, b, +0), nodes left + right with left = the first n/2; sum = sum + group; CDNA2:
// inputs and C with |x| < 2^emin read as +0, every result with |x| < 2^-126 made a zero of its
// sign).
struct OracleTree {
  const Format& in;
  const Format& out;
  OpOptions o;
  bool flush;

  std::uint64_t ftz(std::uint64_t x) const {
    const std::uint64_t mag = x & out.magnitude_mask();
    if (flush && mag != 0 && (mag >> out.man_bits) == 0) return x & out.sign_mask();
    return x;
  }
  std::uint64_t read(std::uint64_t x, const Format& f) const {
    const std::uint64_t mag = x & f.magnitude_mask();
    if (flush && (mag >> f.man_bits) == 0) return 0;  // zeros and subnormals: +0
    return convert(x, f, out, Rounding{}).bits;
  }
  std::uint64_t op(Op op, std::uint64_t x, std::uint64_t y, std::uint64_t z) const {
    const std::uint64_t ops[3] = {x, y, z};
    return ftz(reference::apply_op(op, out, ops, o).bits);
  }
  std::uint64_t tree(const std::uint64_t* a, const std::uint64_t* b, std::size_t n) const {
    if (n == 1) return op(Op::mul_add, read(a[0], in), read(b[0], in), 0);
    const std::size_t m = n / 2;
    return op(Op::add, tree(a, b, m), tree(a + m, b + m, n - m), 0);
  }
  std::uint64_t dot(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                    std::uint64_t c, std::size_t group) const {
    std::uint64_t d = read(c, out);
    for (std::size_t s = 0; s < a.size(); s += group)
      d = op(Op::add, d, tree(a.data() + s, b.data() + s, std::min(group, a.size() - s)), 0);
    return d;
  }
};

TEST(PairwiseStructure, MatchesTheTreeWithOracleOperations) {
  std::mt19937_64 rng(5);
  std::printf("seed 5\n");
  struct Row {
    const char* preset;
    const char* in;
    std::size_t group;
    bool flush;
  };
  const Row rows[] = {{"cdna1", "f16", 4, false}, {"cdna1", "bf16", 2, false},
                      {"cdna2", "f16", 4, true},  {"cdna2", "bf16", 2, true},
                      {"cdna2-1k", "bf16", 4, true}};
  const Format out = parse_format("f32");
  int compared = 0;
  for (const Row& row : rows) {
    const Format in = parse_format(row.in);
    const FdpaParams p = find_matrix_unit(row.preset, in, out);
    OracleTree tree{in, out, OpOptions{}, row.flush};
    tree.o.rounding = p.out_rounding;
    tree.o.nan = &find_nan_policy(p.nan);
    for (int t = 0; t < 2000; ++t) {
      const std::size_t k = 1 + rng() % 19;
      std::vector<std::uint64_t> a(k), b(k);
      for (std::size_t i = 0; i < k; ++i) {
        a[i] = random_code(rng, in, t % 3);
        b[i] = random_code(rng, in, t % 3);
      }
      std::uint64_t c = t % 5 == 0 ? 0 : random_code(rng, out, t % 3);
      if (t % 7 == 0) c &= out.sign_mask() | 0xFFF;  // subnormal C
      const std::uint64_t got = fdpa(p, in, out, a, b, c);
      const std::uint64_t want = tree.dot(a, b, c, row.group);
      if (!(is_nan(got, out) && is_nan(want, out))) {
        ASSERT_EQ(got, want) << row.preset << " " << row.in << " t=" << t << " k=" << k;
        ++compared;
      }
    }
  }
  std::printf("%d non-NaN results compared\n", compared);
  EXPECT_GT(compared, 5000);
}

}  // namespace
}  // namespace fpconform
