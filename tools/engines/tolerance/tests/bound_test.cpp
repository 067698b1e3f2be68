// The derived bound holds: for every preset (the whole preset table, every output format it
// accepts) and for random custom fused blocks and reduction trees, on random, cancelling,
// adversarial and underflowing inputs, |D - exact| <= bound, with D from emu's fdpa and the
// exact value from reference/'s MPFR/GMP dot product (which shares no code with emu).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/gemm.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/sum_tree.hpp"
#include "fpconform/tolerance/bound.hpp"
#include "fpconform/reference/dot.hpp"
#include "fpconform/tolerance/adversarial.hpp"

#ifndef FPCONFORM_TOLERANCE_SCALE
#define FPCONFORM_TOLERANCE_SCALE 1
#endif

namespace fpconform::tolerance {
namespace {


// A finite code of f (never NaN or inf); `lo`..`hi` limit its exponent.
std::uint64_t finite_code(std::mt19937_64& rng, const Format& f, int lo, int hi) {
  for (int tries = 0; tries < 1000; ++tries) {
    const std::uint64_t c = rng() & f.code_mask();
    if (f.is_nan_code(c) || f.is_inf_code(c) || f.is_reserved_code(c)) continue;
    const double v = std::fabs(to_double(c, f));
    if (v == 0) return c;
    const int e = std::ilogb(v);
    if (e >= lo && e <= hi) return c;
  }
  return 0;
}

enum class Kind { random, cancelling, adversarial, tiny };

struct Stats {
  long long checked = 0, skipped = 0;
  double worst = 0;
};

// One dot product through the model and the oracle; false when the bound fails.
bool check_one(const FdpaParams& p, const Format& in, const Format& out, const Bound& bd,
               const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
               std::uint64_t c, Stats& st, std::string& why) {
  std::uint64_t d;
  try {
    d = fdpa(p, in, out, a, b, c);
  } catch (const Error& e) {
    ++st.skipped;  // a sub-sum too wide for the model's adder and the like
    return true;
  }
  if (out.is_nan_code(d) || out.is_inf_code(d) || (d & out.magnitude_mask()) == out.max_finite_code()) {
    ++st.skipped;
    return true;
  }
  const reference::DotError oe = reference::dot_error(in, a, b, out, c, out, d);
  if (oe.overflow) {
    ++st.skipped;
    return true;
  }
  double s = 0, sf = 0;
  magnitudes(bd, a.data(), 1, b.data(), 1, a.size(), c, true, s, sf);
  const double bound = bd.at(s, sf, to_double(d, out));
  ++st.checked;
  if (bound > 0) st.worst = std::max(st.worst, oe.err / bound);
  if (oe.err <= bound) return true;
  char buf[256];
  std::snprintf(buf, sizeof buf, "error %.17g > bound %.17g (S %.6g, D %.17g, K %zu)", oe.err,
                bound, s, to_double(d, out), a.size());
  why = buf;
  return false;
}

// Inputs of one kind. The product exponents stay inside the output's range (overflow has no
// rounding error to bound); `F` steers the adversarial ones to just below 2^(E-F).
void make_inputs(std::mt19937_64& rng, Kind kind, const Format& in, const Format& out, int F,
                 std::size_t k, std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& b,
                 std::uint64_t& c) {
  a.assign(k, 0);
  b.assign(k, 0);
  const int lo = std::max(in.emin() - in.man_bits, (out.emin() - out.man_bits) / 2 + 2);
  const int hi = std::min(in.emax(), out.emax() / 2 - 4);
  c = 0;
  switch (kind) {
    case Kind::random:
      for (std::size_t i = 0; i < k; ++i) {
        a[i] = finite_code(rng, in, lo, hi);
        b[i] = finite_code(rng, in, lo, hi);
      }
      if (rng() % 4) c = finite_code(rng, out, 2 * lo, 2 * hi);
      break;
    case Kind::cancelling: {
      // Pairs a_i b_i and -a_i b_i (sign flipped), a few perturbations: the sum is tiny next to
      // the terms.
      for (std::size_t i = 0; i < k; ++i) {
        if (i % 2 == 1) {
          a[i] = a[i - 1] ^ in.sign_mask();
          b[i] = rng() % 8 ? b[i - 1] : finite_code(rng, in, lo, hi);
        } else {
          a[i] = finite_code(rng, in, lo, hi);
          b[i] = finite_code(rng, in, lo, hi);
        }
      }
      if (rng() % 2) c = finite_code(rng, out, 2 * lo, 2 * hi);
      break;
    }
    case Kind::adversarial: {
      // One large product 2^E and the rest just below 2^(E - F), all one sign (or mixed): the
      // alignment cut drops almost a unit of each.
      const int E = std::max(lo, hi - static_cast<int>(rng() % 4));
      const double big = std::ldexp(1.0, E);
      const int small_e = E - F - 1 - static_cast<int>(rng() % 3);
      const bool mixed = rng() % 3 == 0;
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t at = rng() % k;
        if (i == at || i == 0) {
          a[i] = code_of(std::ldexp(1.0, E / 2), in);
          b[i] = code_of(big / to_double(a[i], in), in);
        } else {
          const double av = std::ldexp(2 - std::ldexp(1.0, -in.man_bits), small_e / 2);
          a[i] = code_of(av, in);
          b[i] = code_of(std::ldexp(1.0, small_e - small_e / 2) * (1 + std::ldexp(1.0, -in.man_bits) * (rng() % 3)), in);
          if (mixed && rng() % 2) a[i] ^= in.sign_mask();
        }
      }
      if (rng() % 2) c = code_of(std::ldexp(2 - std::ldexp(1.0, -out.man_bits), E - F - 1), out);
      break;
    }
    case Kind::tiny:
      // Subnormal inputs and results: the absolute floors.
      for (std::size_t i = 0; i < k; ++i) {
        a[i] = rng() % 2 ? (rng() % (in.min_normal_code() + 1)) : finite_code(rng, in, in.emin(), in.emin() + 2);
        b[i] = finite_code(rng, in, in.emin() - in.man_bits, std::min(in.emax(), 3));
        if (rng() % 2) a[i] ^= in.sign_mask();
      }
      if (rng() % 2) c = rng() % (out.min_normal_code() + 1);
      break;
  }
}

int frac_bits_of(const FdpaParams& p, const Format& out) {
  return p.structure == FdpaStructure::fused ? p.frac_bits : out.man_bits + 1;
}

void run_params(std::mt19937_64& rng, const std::string& label, const FdpaParams& p,
                const Format& in, const Format& out, int trials, int max_k, Stats& total,
                int force_kind = -1) {
  Stats st;
  std::vector<std::uint64_t> a, b;
  std::uint64_t c;
  const int unit = p.structure == FdpaStructure::tree
                       ? product_count(parse_sum_tree(p.tree))
                       : (p.instr_k > 0 ? p.instr_k : std::max(1, p.block));
  for (int t = 0; t < trials; ++t) {
    std::size_t k;
    switch (t % 4) {
      case 0: k = static_cast<std::size_t>(unit); break;
      case 1: k = 1 + rng() % (2 * unit); break;
      default: k = 1 + rng() % max_k;
    }
    const Kind kind = force_kind >= 0 ? static_cast<Kind>(force_kind)
                                      : static_cast<Kind>(t % 7 < 3 ? 0 : t % 7 < 5 ? 1 : t % 7 < 6 ? 2 : 3);
    make_inputs(rng, kind, in, out, frac_bits_of(p, out), k, a, b, c);
    const Bound bd = model_bound(p, in, out, static_cast<int>(k));
    std::string why;
    ASSERT_TRUE(check_one(p, in, out, bd, a, b, c, st, why))
        << label << " kind " << static_cast<int>(kind) << ": " << why;
  }
  total.checked += st.checked;
  total.skipped += st.skipped;
  total.worst = std::max(total.worst, st.worst);
  std::printf("  %-34s %7lld checked, worst error/bound %.4f\n", label.c_str(), st.checked, st.worst);
}

constexpr int kScale = FPCONFORM_TOLERANCE_SCALE;

TEST(ToleranceBound, HoldsForEveryPreset) {
  std::mt19937_64 rng(20261201 + kScale);
  Stats total;
  int pairs = 0;
  for (const PresetUnit& u : preset_units({"f32", "f16", "bf16", "f64"})) {
    if (u.params.structure == FdpaStructure::exact && u.out.name != "f32") continue;  // one is enough
    ++pairs;
    run_params(rng, std::string(u.entry->preset) + " " + std::string(u.entry->input) + "->" + u.out.name,
               u.params, u.in, u.out, 700 * kScale, 160, total);
  }
  std::printf("%d preset/output pairs, %lld dot products within their bound (%lld skipped: "
              "overflow or refused), worst error/bound %.4f\n",
              pairs, total.checked, total.skipped, total.worst);
  EXPECT_GT(pairs, 60);
  EXPECT_GE(total.checked, 100000LL * kScale);
  EXPECT_LE(total.worst, 1.0);
}

// A random SumTree text over n products and c: random splits, rounding or exact nodes.
std::string random_tree(std::mt19937_64& rng, std::vector<std::string> leaves) {
  while (leaves.size() > 1) {
    const std::size_t i = rng() % leaves.size();
    std::size_t j = rng() % leaves.size();
    if (i == j) j = (j + 1) % leaves.size();
    const bool exact = rng() % 5 == 0;
    const std::string node = std::string(exact ? "[" : "(") + leaves[i] + " " + leaves[j] +
                             (exact ? "]" : ")");
    leaves.erase(leaves.begin() + static_cast<long>(std::max(i, j)));
    leaves.erase(leaves.begin() + static_cast<long>(std::min(i, j)));
    leaves.push_back(node);
  }
  return leaves[0];
}

TEST(ToleranceBound, HoldsForRandomCustomUnits) {
  std::mt19937_64 rng(77 + kScale);
  Stats total;
  const char* ins[] = {"f16", "bf16", "e4m3", "e5m2", "tf32", "e2m1"};
  const char* outs[] = {"f32", "f16", "bf16"};
  for (int u = 0; u < 60 * kScale; ++u) {
    const Format in = parse_format(ins[rng() % 6]);
    const Format out = parse_format(outs[rng() % 3]);
    FdpaParams p;
    std::string label;
    if (u % 3 == 2) {
      if (!holds_exactly(in, out)) continue;
      const int n = 1 + static_cast<int>(rng() % 12);
      std::vector<std::string> leaves{"c"};
      for (int i = 0; i < n; ++i) leaves.push_back(std::to_string(i));
      p.structure = FdpaStructure::tree;
      p.c_in_block = false;
      p.tree = intern_tree(random_tree(rng, leaves));
      p.out_rounding = Rounding{rng() % 2 ? RoundingMode::rne : RoundingMode::rtz};
      p.flush_subnormal_inputs = rng() % 2;
      p.flush_subnormal_outputs = rng() % 2;
      label = "tree " + std::string(p.tree);
    } else {
      p.block = 1 + static_cast<int>(rng() % 40);
      p.frac_bits = 3 + static_cast<int>(rng() % 30);
      p.align = rng() % 3 == 0 ? AlignRounding::nearest_even : AlignRounding::truncate;
      p.zero_exp = rng() % 2 ? INT_MIN : -100 - static_cast<int>(rng() % 60);
      p.c_in_block = rng() % 3 != 0;
      if (!p.c_in_block && rng() % 2) {
        p.late_c = true;
        p.late_sum_frac_bits = 10 + static_cast<int>(rng() % 30);
        p.late_c_frac_bits = 8 + static_cast<int>(rng() % 30);
        p.late_c_drop_below = rng() % 2 ? -1 : 5 + static_cast<int>(rng() % 30);
        p.late_align = rng() % 2 ? AlignRounding::down : AlignRounding::truncate;
        p.interleave = 1 + static_cast<int>(rng() % 3);
      }
      if (rng() % 4 == 0) p.carry_bits = static_cast<int>(rng() % 4);
      if (out.name == "f32" && rng() % 3 == 0) p.acc_frac_bits = 5 + static_cast<int>(rng() % 20);
      p.out_rounding = Rounding{rng() % 2 ? RoundingMode::rne : RoundingMode::rtz};
      if (rng() % 4 == 0) p.flush_subnormal_outputs = true;
      label = "fused L" + std::to_string(p.block) + " F" + std::to_string(p.frac_bits);
    }
    label += " " + in.name + "->" + out.name;
    try {
      const std::vector<std::uint64_t> one(1, 0);
      (void)fdpa(p, in, out, one, one, 0);
    } catch (const Error&) {
      continue;  // a combination fdpa refuses
    }
    run_params(rng, label, p, in, out, 1500, 100, total);
  }
  std::printf("random custom units: %lld dot products within their bound, worst %.4f\n",
              total.checked, total.worst);
  EXPECT_GE(total.checked, 40000LL * kScale);
}

// Inputs with f32's exponent range (tf32, bf16) whose products fall below f32's normal range:
// chained blocks then carry a subnormal C, which a fused block aligns by the exponent emin.
TEST(ToleranceBound, SubnormalChainsOfFusedBlocks) {
  std::mt19937_64 rng(11 + kScale);
  Stats total;
  const Format f32 = parse_format("f32");
  for (int u = 0; u < 40 * kScale; ++u) {
    const Format in = parse_format(u % 2 ? "tf32" : "bf16");
    FdpaParams p;
    p.block = 1 + static_cast<int>(rng() % 16);
    p.frac_bits = 6 + static_cast<int>(rng() % 22);
    p.zero_exp = rng() % 2 ? INT_MIN : -100 - static_cast<int>(rng() % 60);
    p.c_in_block = rng() % 3 != 0;
    if (!p.c_in_block && rng() % 2) p.late_c = true;
    if (rng() % 3 == 0) p.acc_frac_bits = 5 + static_cast<int>(rng() % 20);
    p.out_rounding = Rounding{rng() % 2 ? RoundingMode::rne : RoundingMode::rtz};
    run_params(rng, "fused L" + std::to_string(p.block) + " F" + std::to_string(p.frac_bits) +
               " " + in.name + "->f32 (subnormal)", p, in, f32, 500, 24, total, 3);
  }
  std::printf("subnormal chains: %lld dot products within their bound, worst %.4f\n",
              total.checked, total.worst);
  EXPECT_GE(total.checked, 15000LL * kScale);
}

// Elementwise GEMM bounds with split-K, promotion and an epilogue C, against the oracle.
TEST(ToleranceBound, ElementwiseGemm) {
  std::mt19937_64 rng(3 + kScale);
  long long checked = 0;
  double worst = 0;
  struct Case { const char* preset; const char* in; int promote, split; SplitReduction red; bool epi; };
  const Case cases[] = {
      {"hopper", "e4m3", 128, 1, SplitReduction::sequential, false},
      {"hopper", "e4m3", 0, 1, SplitReduction::sequential, true},
      {"hopper", "e4m3", 0, 4, SplitReduction::pairwise, false},
      {"ampere", "bf16", 0, 3, SplitReduction::sequential, false},
      {"volta", "f16", 64, 1, SplitReduction::sequential, false},
      {"cdna3", "f16", 0, 2, SplitReduction::pairwise, true},
      {"x86-amx-bf16", "bf16", 0, 2, SplitReduction::sequential, false},
  };
  for (const Case& cs : cases) {
    const Format in = parse_format(cs.in), acc = parse_format("f32");
    GemmOptions o;
    o.unit = find_matrix_unit(cs.preset, in, acc);
    o.acc = acc;
    o.out = parse_format(rng() % 2 ? "f32" : "bf16");
    o.out_rounding = Rounding{RoundingMode::rne};
    o.promote_every = cs.promote;
    o.split_k = cs.split;
    o.reduction = cs.red;
    o.c_in_epilogue = cs.epi;
    const int M = 6, N = 5, K = 256 + static_cast<int>(rng() % 200);
    for (int rep = 0; rep < 4 * kScale; ++rep) {
      Matrix A{M, K, in, {}}, B{K, N, in, {}}, C{M, N, acc, {}};
      std::vector<std::uint64_t> av, bv;
      std::uint64_t cv;
      for (int i = 0; i < M; ++i) {
        make_inputs(rng, static_cast<Kind>(rep % 3), in, acc, o.unit.frac_bits, K, av, bv, cv);
        A.codes.insert(A.codes.end(), av.begin(), av.end());
      }
      for (int j = 0; j < N; ++j) {
        make_inputs(rng, Kind::random, in, acc, o.unit.frac_bits, K, av, bv, cv);
        B.codes.insert(B.codes.end(), bv.begin(), bv.end());
      }
      // B was generated column by column: transpose into row-major K x N.
      std::vector<std::uint64_t> bt(B.codes.size());
      for (int j = 0; j < N; ++j)
        for (int r = 0; r < K; ++r) bt[static_cast<std::size_t>(r) * N + j] = B.codes[static_cast<std::size_t>(j) * K + r];
      B.codes = bt;
      for (int i = 0; i < M * N; ++i) C.codes.push_back(finite_code(rng, acc, -20, 20));
      const Matrix D = gemm(o, A, B, &C);
      GemmShape g{cs.promote, cs.split, cs.red, cs.epi};
      const Bound bd = model_bound(o.unit, in, acc, K, g, &o.out, &o.out_rounding);
      const std::vector<double> bounds = elementwise_bounds(bd, A, B, &C, D);
      ASSERT_EQ(bounds, elementwise_bounds(o, A, B, &C)) << "the options-only form agrees";
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          std::vector<std::uint64_t> ar(A.codes.begin() + static_cast<long>(i) * K,
                                        A.codes.begin() + static_cast<long>(i + 1) * K),
              bc(K);
          for (int r = 0; r < K; ++r) bc[r] = B.at(r, j);
          const reference::DotError oe = reference::dot_error(in, ar, bc, acc, C.at(i, j), o.out, D.at(i, j));
          if (oe.overflow) continue;
          const double bound = bounds[static_cast<std::size_t>(i) * N + j];
          ASSERT_LE(oe.err, bound) << cs.preset << " " << cs.in << " promote " << cs.promote
                                   << " split " << cs.split << " element " << i << "," << j;
          worst = std::max(worst, oe.err / bound);
          ++checked;
        }
    }
  }
  std::printf("gemm: %lld elements within their elementwise bound, worst %.4f\n", checked, worst);
  EXPECT_GT(checked, 500 * kScale);
}

// What the bound refuses or cannot cover: products rounded inside the unit (no derivation
// here), K = 0, and a D at the largest finite value (a saturated overflow has no bound).
TEST(ToleranceBound, RefusesWhatItCannotBound) {
  const Format in = parse_format("e4m3"), f32 = parse_format("f32");
  FdpaParams p = find_matrix_unit("hopper", in, f32);
  const Bound b = model_bound(p, in, f32, 32);
  EXPECT_TRUE(std::isinf(b.at(1, 0, to_double(f32.max_finite_code(), f32))));
  EXPECT_TRUE(std::isinf(b.at(1, 0, INFINITY)));
  EXPECT_TRUE(std::isfinite(b.at(1, 0, 1.0)));
  try {
    (void)model_bound(p, in, f32, 0);
    ADD_FAILURE() << "K = 0 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--k"), std::string::npos) << e.what();
  }
  p.product_bits = 12;
  try {
    (void)model_bound(p, in, f32, 32);
    ADD_FAILURE() << "product_bits accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("product_bits"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fpconform::tolerance
