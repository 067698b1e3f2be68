// The matrix-unit models consume quantize_matrix's blocks as they come: A quantized in 1 x B
// blocks along K, B in B x 1 blocks along K, the scale matrices passed to gemm as
// block_scale_a / block_scale_b unchanged. With the exact unit (Kulisch sum, one RNE) the
// result must equal, bit for bit, the oracle's exact dot product (reference/dot.hpp) of the
// dequantized values (dequantize_matrix into f64, which holds every element * scale exactly),
// rounded once to f32. The Blackwell presets (fused, F = 25 / exact sub-sums of 16 with F = 35,
// RZ) must stay within their truncation bound of that exact value.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fpconform/block_scale.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/gemm.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/reference/dot.hpp"

namespace {

using namespace fpconform;
using u64 = std::uint64_t;

const Format& F32() {
  static const Format f = parse_format("f32");
  return f;
}
const Format& F64() {
  static const Format f = parse_format("f64");
  return f;
}

// rows x cols f32 codes: normal values times 2^(a per-row and per-32-column exponent), so the
// blocks' scales differ; a few exact zeros; optionally one NaN.
std::vector<u64> random_matrix(int rows, int cols, std::mt19937_64& rng, bool with_nan) {
  std::vector<u64> m(static_cast<std::size_t>(rows) * cols);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const int e = static_cast<int>((i * 7 + (j / 16) * 5) % 23) - 11;
      float v = static_cast<float>(std::ldexp(nd(rng), e));
      if (rng() % 50 == 0) v = 0.0f;
      m[static_cast<std::size_t>(i) * cols + j] = std::bit_cast<std::uint32_t>(v);
    }
  if (with_nan) m[m.size() / 3] = 0x7FC00000u;
  return m;
}

struct MmaCase {
  const char* rule;
  const char* elem;
  int block;
  int subsum;                // the exact unit's sub-sums (0: products are the terms)
  const char* preset;        // a block-scaled hardware preset to bound-check, or ""
};

// The truncation bound of a fused unit with F fraction bits per step of `block` terms: each of
// the terms (and the chained C) loses less than 2^(E - F) where 2^E bounds the step's largest
// term, and each step's result is rounded (RZ) into f32 before it is the next step's C: one
// f32 ulp of that partial sum per step, plus the final rounding.
double fused_bound(const std::vector<double>& terms, int block, int frac_bits, double result) {
  double bound = 0, partial = 0;
  for (std::size_t s = 0; s < terms.size(); s += static_cast<std::size_t>(block)) {
    double big = std::fabs(partial);
    for (std::size_t i = s; i < terms.size() && i < s + static_cast<std::size_t>(block); ++i) {
      big = std::max(big, std::fabs(terms[i]));
      partial += terms[i];
    }
    if (big > 0) bound += (block + 1) * std::ldexp(1.0, std::ilogb(big) + 1 - frac_bits);
    if (partial != 0) bound += std::ldexp(1.0, std::ilogb(std::fabs(partial)) + 1 - 23);
  }
  return bound + std::ldexp(1.0, std::ilogb(std::fabs(result) + 1e-300) - 23);
}

void run(const MmaCase& s, std::mt19937_64& rng) {
  const int M = 6, N = 5, K = 256;
  const Format elem = parse_format(s.elem);
  const ScaleRule& rule = find_scale_rule(s.rule);
  const Format sf = rule_scale_format(rule);
  const std::vector<u64> a = random_matrix(M, K, rng, true);
  const std::vector<u64> b = random_matrix(K, N, rng, false);
  const QuantizedMatrix qa = quantize_matrix(a, M, K, F32(), elem, rule, 1, s.block);
  const QuantizedMatrix qb = quantize_matrix(b, K, N, F32(), elem, rule, s.block, 1);
  const DequantizedBlock da = dequantize_matrix(qa, elem, rule, F64());
  const DequantizedBlock db = dequantize_matrix(qb, elem, rule, F64());
  ASSERT_EQ(da.flags.bits & ~Flags::invalid, 0) << "f64 must hold every dequantized value";

  GemmOptions o;
  o.unit = find_matrix_unit("exact", elem, F32());
  o.unit.scale_block = s.block;
  o.unit.subsum = s.subsum;
  o.acc = F32();
  o.out = F32();
  o.out_rounding = Rounding{RoundingMode::rne};
  o.block_scale_format = sf;
  o.block_scale_a = qa.scales;
  o.block_scale_b = qb.scales;
  const Matrix am{M, K, elem, qa.elements}, bm{K, N, elem, qb.elements};
  const Matrix d = gemm(o, am, bm);

  Matrix dh;
  GemmOptions oh = o;
  if (*s.preset) {
    oh.unit = find_matrix_unit(s.preset, elem, F32());
    oh.out_rounding = oh.unit.out_rounding;
    dh = gemm(oh, am, bm);
  }

  int exact_equal = 0, nan_rows = 0, bounded = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      std::vector<u64> row(K), col(K);
      std::vector<double> terms(K);
      for (int k = 0; k < K; ++k) {
        row[k] = da.values[static_cast<std::size_t>(i) * K + k];
        col[k] = db.values[static_cast<std::size_t>(k) * N + j];
        terms[k] = to_double(row[k], F64()) * to_double(col[k], F64());
      }
      const reference::OracleResult want = reference::exact_dot(
          row, F64(), col, F64(), 0, F32(), F32(), Rounding{RoundingMode::rne});
      const u64 got = d.at(i, j);
      const bool want_nan = std::isnan(to_double(want.bits, F32()));
      if (want_nan) {
        ++nan_rows;
        EXPECT_TRUE(std::isnan(to_double(got, F32()))) << s.rule << " " << s.elem << " (" << i << "," << j << ")";
      } else {
        EXPECT_EQ(got, want.bits) << s.rule << " " << s.elem << " (" << i << "," << j << ")";
        exact_equal += got == want.bits;
      }
      if (*s.preset) {
        const double h = to_double(dh.at(i, j), F32());
        if (want_nan) {
          EXPECT_TRUE(std::isnan(h));
        } else {
          double exact = 0;
          for (double t : terms) exact += t;  // only for the bound's size, not compared bitwise
          const double bound = fused_bound(terms, oh.unit.block > 0 ? oh.unit.block : K,
                                           oh.unit.frac_bits, exact);
          EXPECT_LE(std::fabs(h - to_double(want.bits, F32())), bound)
              << s.preset << " " << s.elem << " (" << i << "," << j << ") unit " << h << " exact " << to_double(want.bits, F32()) << " sum " << exact;
          bounded += std::fabs(h - to_double(want.bits, F32())) <= bound;
        }
      }
    }
  std::printf("[blockscale-mma] %-12s %-5s blocks of %2d: %d/%d exact-unit results equal the "
              "oracle's exact dot (%d NaN from a NaN block)%s%s: %d within bound\n",
              s.rule, s.elem, s.block, exact_equal, M * N - nan_rows, nan_rows,
              *s.preset ? ", preset " : "", s.preset, bounded);
}

TEST(BlockScaleMma, GemmConsumesQuantizedBlocks) {
  std::mt19937_64 rng(0xB10C5CA1Eull);
  const MmaCase setups[] = {
      {"ocp", "e4m3", 32, 0, "blackwell"},
      {"rceil", "e4m3", 32, 0, "blackwell"},
      {"microxcaling", "e5m2", 32, 0, "blackwell"},
      {"ocp", "e2m3", 32, 0, "blackwell"},
      {"ocp", "e2m1", 32, 16, "blackwell-mxf4"},
      {"nvfp4", "e2m1", 16, 16, "blackwell-nvf4"},  // one-level NVFP4: e4m3 scales per 16
  };
  for (const MmaCase& s : setups) run(s, rng);
}

}  // namespace
