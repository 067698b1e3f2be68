// FdpaKernel's host path (the model's IEEE binary32/binary64 operations on the host's fma and
// add) against fdpa: which presets it serves, and the same bits as the model on values that stay
// normal, on values near the bottom of the range (units that flush their results leave those
// dot products to the model), on zeros of both signs, NaN/inf, the short last instruction or
// group, strided and interleaved columns, and trees edited by hand (nodes of two products, C
// deep in the tree).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform {
namespace {

// A code of `in`: ordinary values, values whose products sit near 2^emin of `out`, zeros of
// both signs, or (kind 3) anything, NaN and inf included.
std::uint64_t operand(std::mt19937_64& rng, const Format& in, const Format& out, int kind) {
  static const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  std::normal_distribution<double> normal(0.0, 1.0);
  double x = normal(rng);
  if (kind == 1) x = std::ldexp(x, std::max(out.emin() / 2 + static_cast<int>(rng() % 5) - 2,
                                            in.emin()));
  if (kind == 2 && rng() % 3 == 0) x = rng() % 2 ? 0.0 : -0.0;
  if (kind == 3) return rng() & in.code_mask();
  return convert(std::bit_cast<std::uint64_t>(x), f64, in, sat).bits;
}

struct Unit {
  std::string name;
  FdpaParams p;
  Format in, out;
};

std::vector<Unit> host_units() {
  std::vector<Unit> units;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    for (const char* out_name : {"f32", "f64"}) {
      const Format out = parse_format(out_name);
      FdpaParams p;
      try {
        p = find_matrix_unit(e.preset, in, out);
      } catch (const Error&) {
        continue;
      }
      if (FdpaKernel(p, in, out).host_ieee())
        units.push_back({std::string(e.preset) + " " + std::string(e.input) + "->" + out_name, p, in, out});
    }
  }
  // Trees the presets do not hold: a node of two products, C inside, a chain of instructions.
  for (const char* tree : {"((c (0 1)) (2 3))", "(((c 2) (0 1)) 3)", "((0 3) ((1 2) c))"}) {
    FdpaParams p;
    p.structure = FdpaStructure::tree;
    p.tree = intern_tree(tree);
    p.c_in_block = false;
    p.out_rounding = Rounding{RoundingMode::rne};
    p.nan = "x86";
    for (bool flush : {false, true}) {
      p.flush_subnormal_inputs = p.flush_subnormal_outputs = flush;
      units.push_back({std::string(tree) + (flush ? " ftz" : ""), p, parse_format("bf16"),
                       parse_format("f32")});
    }
  }
  return units;
}

TEST(FdpaHost, ServesTheIeeePresets) {
  std::set<std::string> names;
  for (const Unit& u : host_units()) names.insert(u.name);
  // fma chains, pairwise trees and two-way rounding trees with a binary32/64 result, RNE
  for (const char* want : {"fp32-sequential bf16->f32", "fp32-sequential e4m3->f32",
                           "fp32-sequential f32->f32", "x86-amx-bf16 bf16->f32",
                           "x86-avx512-bf16 bf16->f32", "cdna1 f16->f32", "cdna2 bf16->f32",
                           "cdna3 f32->f32", "ampere f64->f64"})
    EXPECT_TRUE(names.count(want)) << want;
  // not IEEE operations of the output: fused blocks, exact sums, binary16 results
  for (const char* not_host : {"hopper e4m3->f32", "exact bf16->f32", "cdna1-km f16->f32",
                               "x86-avx512-fp16 f16->f32"})
    EXPECT_FALSE(names.count(not_host)) << not_host;
}

TEST(FdpaHost, SameAsTheModel) {
  std::mt19937_64 rng(77);
  int compared = 0;
  for (const Unit& u : host_units()) {
    const FdpaKernel kernel(u.p, u.in, u.out);
    ASSERT_TRUE(kernel.host_ieee()) << u.name;
    for (int t = 0; t < 16; ++t) {
      const int kind = t % 4;
      const std::size_t n = 1 + (static_cast<std::size_t>(t) * 3) % 11;  // 1 .. 11 outputs
      const std::size_t k = t == 0 ? 1 : t % 5 == 1 ? 48 : t % 5 == 2 ? 64 : 1 + rng() % 80;
      const bool strided = t % 2 == 1;
      std::vector<std::uint64_t> a(2 * k), b(k * n);
      for (auto& v : a) v = operand(rng, u.in, u.out, kind);
      for (auto& v : b) v = operand(rng, u.in, u.out, kind);
      std::vector<std::size_t> oa(n), ob(n);
      std::vector<std::uint64_t> c(n), got(n);
      for (std::size_t j = 0; j < n; ++j) {
        oa[j] = (rng() % 2) * k;
        ob[j] = strided ? j : j * k;
        c[j] = kind == 3 ? rng() & u.out.code_mask() : operand(rng, u.out, u.out, kind);
        if (rng() % 6 == 0) c[j] &= u.out.sign_mask() | 0xFF;  // subnormal C
      }
      kernel.dot_many(kernel.decode(a), oa, kernel.decode(b), ob, strided ? n : 1, k, c, got);
      for (std::size_t j = 0; j < n; ++j) {
        const std::vector<std::uint64_t> av(a.begin() + static_cast<std::ptrdiff_t>(oa[j]),
                                            a.begin() + static_cast<std::ptrdiff_t>(oa[j] + k));
        std::vector<std::uint64_t> bv(k);
        for (std::size_t i = 0; i < k; ++i) bv[i] = b[strided ? i * n + j : j * k + i];
        ASSERT_EQ(got[j], fdpa(u.p, u.in, u.out, av, bv, c[j]))
            << u.name << " t=" << t << " k=" << k << " j=" << j << (strided ? " strided" : "");
        ASSERT_EQ(kernel.dot(av, bv, c[j]), got[j]) << u.name << " t=" << t << " one at a time";
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1500);
}

// One decoding shared by many kernels (fit decodes the rows once for a family of models): the
// host path reads the codes again where the decoding kernel's flushing or output differ.
TEST(FdpaHost, OperandsDecodedByAnotherKernel) {
  std::mt19937_64 rng(5);
  const Format bf16 = parse_format("bf16"), f32 = parse_format("f32");
  const FdpaKernel decoder(FdpaParams{}, bf16, f32);  // a fused unit: no host values
  const FdpaParams amx = find_matrix_unit("x86-amx-bf16", bf16, f32);  // flushes inputs
  const FdpaKernel kernel(amx, bf16, f32);
  ASSERT_TRUE(kernel.host_ieee());
  int compared = 0;
  for (int t = 0; t < 200; ++t) {
    std::vector<std::uint64_t> a(32), b(32);
    for (auto& v : a) v = operand(rng, bf16, f32, t % 4);
    for (auto& v : b) v = operand(rng, bf16, f32, t % 4);
    if (t % 3 == 0) a[t % 32] &= bf16.sign_mask() | 0x7F;  // a subnormal input
    const std::uint64_t c = operand(rng, f32, f32, t % 3);
    ASSERT_EQ(kernel.dot(decoder.decode(a), 0, decoder.decode(b), 0, 1, 32, c),
              fdpa(amx, bf16, f32, a, b, c)) << "t=" << t;
    ++compared;
  }
  EXPECT_EQ(compared, 200);
}

}  // namespace
}  // namespace fpconform
