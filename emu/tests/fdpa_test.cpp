// The dot-product-add family (fdpa.hpp) and its presets on crafted vectors. Every expected
// value is worked out by hand from the published algorithms (Fasi et al. 2021, Khattak &
// Mikaitis, MMA-Sim); the comment beside each case gives the arithmetic.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform {
namespace {

// The code of an exactly representable value ("0x1p-24", "-1.5", "0", "-0", "inf", "nan").
std::uint64_t enc(const Format& f, const std::string& text) {
  const Rounded r = round_to_format(parse_number(text), f, Rounding{});
  EXPECT_FALSE(r.flags.has(Flags::inexact)) << text << " is not a value of " << f.name;
  return r.bits;
}

std::vector<std::uint64_t> enc(const Format& f, const std::vector<std::string>& v) {
  std::vector<std::uint64_t> out;
  for (const std::string& s : v) out.push_back(enc(f, s));
  return out;
}

struct Case {
  std::vector<std::string> a, b;
  std::string c;
};

// fdpa with a preset; the result as a code of `out`.
std::uint64_t run(const std::string& preset, const std::string& in_name, const Case& x,
                  const std::string& out_name = "f32") {
  const Format in = parse_format(in_name), out = parse_format(out_name);
  const FdpaParams p = find_matrix_unit(preset, in, out);
  return fdpa(p, in, out, enc(in, x.a), enc(in, x.b), enc(out, x.c));
}

std::uint64_t run(const FdpaParams& p, const std::string& in_name, const Case& x,
                  const std::string& out_name = "f32") {
  const Format in = parse_format(in_name), out = parse_format(out_name);
  return fdpa(p, in, out, enc(in, x.a), enc(in, x.b), enc(out, x.c));
}

std::uint64_t f32(const std::string& v) { return enc(parse_format("f32"), v); }
std::uint64_t f64(const std::string& v) { return enc(parse_format("f64"), v); }

// ---------------------------------------------------------------- Fasi et al. 2021 probes

// a = b = 1 - 2^-11 (f16): each product 1 - 2^-10 + 2^-22 is exact in every model; four of
// them sum to 4 - 2^-8 + 2^-20, a binary32 value (ulp 2^-22 in [2, 4)).
TEST(FdpaProbes, ProductsAreExact) {
  const Case one{{"0x1.ffcp-1"}, {"0x1.ffcp-1"}, "0"};
  const Case four{{"0x1.ffcp-1", "0x1.ffcp-1", "0x1.ffcp-1", "0x1.ffcp-1"},
                  {"0x1.ffcp-1", "0x1.ffcp-1", "0x1.ffcp-1", "0x1.ffcp-1"},
                  "0"};
  for (const char* preset : {"volta", "turing", "ampere", "hopper", "hopper-mma", "cdna1",
                             "cdna1-km", "cdna2", "cdna3", "exact", "fp32-sequential"}) {
    EXPECT_EQ(run(preset, "f16", one), f32("0x1.ff8008p-1")) << preset;  // 1 - 2^-10 + 2^-22
    EXPECT_EQ(run(preset, "f16", four), f32("0x1.ff8008p+1")) << preset;
  }
}

// C = 1 and four products 0.5 * 2^-24 = 2^-25 (exact sum 1 + 2^-23): a unit that aligns to 2^0
// with F < 25 truncates each product away (1); F = 25, a two-stage or pairwise unit keeps
// them (1 + 2^-23); an fp32 fma chain rounds 1 + 2^-25 back to 1 four times.
TEST(FdpaProbes, AccumulationPrecisionWithCOne) {
  const Case x{{"0.5", "0.5", "0.5", "0.5"}, {"0x1p-24", "0x1p-24", "0x1p-24", "0x1p-24"}, "1"};
  const std::uint64_t one = f32("1"), above = f32("0x1.000002p+0");
  EXPECT_EQ(run("volta", "f16", x), one);      // F = 23: unit 2^-23
  EXPECT_EQ(run("turing", "f16", x), one);     // F = 24: unit 2^-24
  EXPECT_EQ(run("ampere", "f16", x), one);
  EXPECT_EQ(run("hopper", "f16", x), above);   // F = 25: 4 * 2^-25 kept, RZ exact
  EXPECT_EQ(run("cdna3", "f16", x), above);    // block sum 2^-23 (E_s = -15), late C exact
  EXPECT_EQ(run("cdna1", "f16", x), above);    // fp32 tree: 2^-23, then 1 + 2^-23
  EXPECT_EQ(run("cdna1-km", "f16", x), above);
  EXPECT_EQ(run("exact", "f16", x), above);
  EXPECT_EQ(run("fp32-sequential", "f16", x), one);
}

// Measuring F: C = 1 and one product -2^-k. Aligned to 2^0 and truncated, it survives iff
// k <= F; with RZ output 1 - 2^-k (k <= 24) or 1 - 2^-24 (k = 25) is below 1. With RNE output
// 1 - 2^-25 is the tie between 1 - 2^-24 and 1 and goes to 1 (even), so RNE units show 24.
int largest_k_below_one(const std::string& preset) {
  int last = 19;
  for (int k = 20; k <= 30; ++k) {
    const Case x{{"-0x1p-10"}, {"0x1p-" + std::to_string(k - 10)}, "1"};
    const std::uint64_t d = run(preset, "f16", x);
    if (d != f32("1")) {
      EXPECT_EQ(last, k - 1) << preset << ": results below 1 must be a run of k";
      // 1 - n * 2^-24 has the code of 1 minus n.
      EXPECT_EQ(d, k <= 24 ? f32("1") - (1ull << (24 - k)) : f32("0x1.fffffep-1"))
          << preset << " k=" << k;
      last = k;
    }
  }
  return last;
}

TEST(FdpaProbes, FractionBitsFromCOneMinusTinyProduct) {
  EXPECT_EQ(largest_k_below_one("volta"), 23);
  EXPECT_EQ(largest_k_below_one("turing"), 24);
  EXPECT_EQ(largest_k_below_one("ampere"), 24);
  EXPECT_EQ(largest_k_below_one("hopper"), 25);
  EXPECT_EQ(largest_k_below_one("hopper-wgmma"), 25);
  EXPECT_EQ(largest_k_below_one("cdna3"), 24);  // late C: floor to 31 bits is exact; RNE tie
  EXPECT_EQ(largest_k_below_one("cdna1"), 24);
  EXPECT_EQ(largest_k_below_one("exact"), 24);
  EXPECT_EQ(largest_k_below_one("fp32-sequential"), 24);
}

// Rounding direction: products {2, 2^-23 + 2^-24} (b = 3 * 2^-24, an f16 subnormal), exact sum
// 2 + 0.75 * 2^-22. NVIDIA: F = 23 drops it, F = 24 keeps 2^-23, F = 25 keeps 3 * 2^-24; RZ
// gives 2 in every case, -2 for the negated vector. CDNA3: truncation to 2^-23 (unit 2^(1-24)),
// then 2 + 2^-23 is a tie that RNE sends to 2 (even). IEEE units (pairwise, fma chain, exact)
// round 2 + 0.75 ulp up to 2 + 2^-22.
TEST(FdpaProbes, RoundingDirection) {
  const Case pos{{"1", "1", "1", "1"}, {"2", "0x3p-24", "0", "0"}, "0"};
  const Case neg{{"1", "1", "1", "1"}, {"-2", "-0x3p-24", "0", "0"}, "0"};
  for (const char* preset : {"volta", "turing", "ampere", "hopper", "cdna3"}) {
    EXPECT_EQ(run(preset, "f16", pos), f32("2")) << preset;
    EXPECT_EQ(run(preset, "f16", neg), f32("-2")) << preset;
  }
  for (const char* preset : {"cdna1", "cdna1-km", "exact", "fp32-sequential"}) {
    EXPECT_EQ(run(preset, "f16", pos), f32("0x1.000002p+1")) << preset;
    EXPECT_EQ(run(preset, "f16", neg), f32("-0x1.000002p+1")) << preset;
  }
  // CDNA2 flushes the f16 subnormal 3 * 2^-24 to zero: exactly 2.
  EXPECT_EQ(run("cdna2", "f16", pos), f32("2"));
  EXPECT_EQ(run("cdna2", "f16", neg), f32("-2"));
}

// Block size (Khattak & Mikaitis): products 2 (first), 2^-23 (second), 2^-23 (k-th), zeros
// between, C = 0. Within one block (F >= 24) the sum 2 + 2^-22 is exact; once the k-th product
// falls in the next block, 2 + 2^-23 is cut back to 2 (RZ, or RNE tie to even) and the last
// 2^-23 is lost the same way. Returns the largest k such that every k' in 3..k gives
// 2 + 2^-22 (2 when k = 3 already fails).
int block_probe(const std::string& preset, const std::string& in, const std::string& big,
                const std::string& tiny_a, const std::string& tiny_b, std::uint64_t want) {
  for (int k = 3; k <= 40; ++k) {
    Case x;
    x.c = "0";
    for (int i = 0; i < k; ++i) {
      const bool tiny = i == 1 || i == k - 1;
      x.a.push_back(i == 0 ? big : tiny ? tiny_a : "0");
      x.b.push_back(i == 0 ? big : tiny ? tiny_b : "0");
    }
    if (run(preset, in, x) != want) return k - 1;
  }
  return 40;
}

TEST(FdpaProbes, BlockSize) {
  // f16: the first product is 1 * 2, the tiny ones 2^-12 * 2^-11.
  auto f16_probe = [](const std::string& preset) {
    for (int k = 3; k <= 40; ++k) {
      Case x;
      x.c = "0";
      for (int i = 0; i < k; ++i) {
        const bool tiny = i == 1 || i == k - 1;
        x.a.push_back(i == 0 ? "1" : tiny ? "0x1p-12" : "0");
        x.b.push_back(i == 0 ? "2" : tiny ? "0x1p-11" : "0");
      }
      if (run(preset, "f16", x) != f32("0x1.000002p+1")) return k - 1;
    }
    return 40;
  };
  EXPECT_EQ(f16_probe("volta"), 2);    // F = 23: 2^-23 is below the unit 2^-22, never seen
  EXPECT_EQ(f16_probe("turing"), 8);
  EXPECT_EQ(f16_probe("ampere"), 8);
  EXPECT_EQ(f16_probe("hopper"), 16);
  EXPECT_EQ(f16_probe("hopper-mma"), 16);
  EXPECT_EQ(f16_probe("cdna3"), 8);
  // CDNA1 tree of 4: k = 3 is (2) + (2^-23 + 2^-23); k = 4 is (2 + 2^-23 -> 2) + (0 + 2^-23).
  EXPECT_EQ(f16_probe("cdna1"), 3);
  EXPECT_EQ(f16_probe("cdna1-km"), 4);  // exact blocks of 4 (see ExactBlocksOfFour)
  EXPECT_EQ(f16_probe("exact"), 40);
  EXPECT_EQ(f16_probe("fp32-sequential"), 2);  // 2 + 2^-23 -> 2 at once
  // CDNA3 fp8 (e4m3fnuz), scaled: 256 = 16 * 16 and 2^-16 = 2^-8 * 2^-8 (subnormals); the
  // even/odd groups are exact here and 256 + 2^-15 is an f32 value (ulp 2^-15); L = 16.
  EXPECT_EQ(block_probe("cdna3", "e4m3fnuz", "16", "0x1p-8", "0x1p-8", f32("0x1.000002p+8")), 16);
  EXPECT_EQ(block_probe("cdna3", "e5m2fnuz", "16", "0x1p-8", "0x1p-8", f32("0x1.000002p+8")), 16);
}

// cdna1-km with k = 4: one exact block {2, 2^-23, 0, 2^-23} = 2 + 2^-22; k = 5 puts the last
// 2^-23 in the second block: 2 + 2^-23 -> 2 (RNE tie, even), then 2 + 2^-23 -> 2.
TEST(FdpaProbes, ExactBlocksOfFour) {
  const Case k4{{"1", "0x1p-12", "0", "0x1p-12"}, {"2", "0x1p-11", "0", "0x1p-11"}, "0"};
  const Case k5{{"1", "0x1p-12", "0", "0", "0x1p-12"}, {"2", "0x1p-11", "0", "0", "0x1p-11"}, "0"};
  EXPECT_EQ(run("cdna1-km", "f16", k4), f32("0x1.000002p+1"));
  EXPECT_EQ(run("cdna1-km", "f16", k5), f32("2"));
  EXPECT_EQ(run("cdna1", "f16", k4), f32("2"));  // the tree rounds (2 + 2^-23) first
}

// --------------------------------------------------------------- where structures differ

// Products {1024, -1024, 2^-16}: the fused units align to 2^10 (unit 2^-14 or finer, F <= 25)
// and truncate 2^-16 away: +0. The CDNA1 tree is (1024) + (-1024 + 2^-16 -> -1024) = +0. The
// exact sum and the fma chain (1024 - 1024 = 0, then + 2^-16) keep 2^-16. In the other order
// {2^-16, 1024, -1024} the tree keeps it (2^-16 + (1024 - 1024)) and the chain loses it
// (2^-16 + 1024 -> 1024).
TEST(FdpaStructures, CancellingProducts) {
  const Case big_first{{"32", "-32", "0x1p-8"}, {"32", "32", "0x1p-8"}, "0"};
  const Case tiny_first{{"0x1p-8", "32", "-32"}, {"0x1p-8", "32", "32"}, "0"};
  const std::uint64_t tiny = f32("0x1p-16"), zero = f32("0");
  EXPECT_EQ(run("ampere", "f16", big_first), zero);
  EXPECT_EQ(run("hopper", "f16", big_first), zero);
  EXPECT_EQ(run("cdna3", "f16", big_first), zero);
  EXPECT_EQ(run("cdna1", "f16", big_first), zero);
  EXPECT_EQ(run("cdna1-km", "f16", big_first), tiny);
  EXPECT_EQ(run("exact", "f16", big_first), tiny);
  EXPECT_EQ(run("fp32-sequential", "f16", big_first), tiny);
  EXPECT_EQ(run("ampere", "f16", tiny_first), zero);
  EXPECT_EQ(run("cdna1", "f16", tiny_first), tiny);
  EXPECT_EQ(run("exact", "f16", tiny_first), tiny);
  EXPECT_EQ(run("fp32-sequential", "f16", tiny_first), zero);
}

// Products {1, 2^-24, 2^-24, 0}, C = 0 (exact sum 1 + 2^-23, an f32 value). The tree of 4 adds
// (1 + 2^-24 -> 1, tie to even) + (2^-24 + 0) = 1 + 2^-24 -> 1; the chain loses both; fused
// units and the exact sum keep 1 + 2^-23.
TEST(FdpaStructures, PairwiseVersusFused) {
  const Case x{{"1", "0x1p-12", "0x1p-12", "0"}, {"1", "0x1p-12", "0x1p-12", "0"}, "0"};
  EXPECT_EQ(run("cdna1", "f16", x), f32("1"));
  EXPECT_EQ(run("fp32-sequential", "f16", x), f32("1"));
  for (const char* preset : {"ampere", "hopper", "cdna3", "cdna1-km", "exact"})
    EXPECT_EQ(run(preset, "f16", x), f32("0x1.000002p+0")) << preset;
}

// CDNA2 bf16: groups of 2 (v_mfma_*bf16) or 4 (the _1k instructions). C = 1 and products
// {2^-24, 0, 2^-24, 0}: groups of 2 add 2^-24 to 1 twice (each a tie, back to 1); a group of
// 4 first forms 2^-23, and 1 + 2^-23 is exact.
TEST(FdpaStructures, Cdna2GroupSizes) {
  const Case x{{"0x1p-12", "0", "0x1p-12", "0"}, {"0x1p-12", "0", "0x1p-12", "0"}, "1"};
  EXPECT_EQ(run("cdna2", "bf16", x), f32("1"));
  EXPECT_EQ(run("cdna2-1k", "bf16", x), f32("0x1.000002p+0"));
  EXPECT_EQ(run("exact", "bf16", x), f32("0x1.000002p+0"));
  // cdna1-km bf16 (exact blocks of 2) and the exact unit on {1, 2^-24, 2^-24}: blocks of 2
  // give 1 + 2^-24 -> 1, then 1 + 2^-24 -> 1; all at once 1 + 2^-23.
  const Case y{{"1", "0x1p-12", "0x1p-12"}, {"1", "0x1p-12", "0x1p-12"}, "0"};
  EXPECT_EQ(run("cdna1-km", "bf16", y), f32("1"));
  EXPECT_EQ(run("exact", "bf16", y), f32("0x1.000002p+0"));
}

// CDNA2 flushes: an f16 subnormal input (2^-24 * 1) is 0 on CDNA2, 2^-24 on CDNA1. A bf16
// product -2^-70 * 2^-60 = -2^-130 is an f32 subnormal: CDNA1 keeps it (C = -0 + it), CDNA2
// flushes it to -0 and C = -0 to +0 (MMA-Sim), so D = +0 + -0 = +0.
TEST(FdpaStructures, Cdna2FlushesSubnormals) {
  const Case sub{{"0x1p-24"}, {"1"}, "0"};
  EXPECT_EQ(run("cdna1", "f16", sub), f32("0x1p-24"));
  EXPECT_EQ(run("cdna2", "f16", sub), f32("0"));
  const Case tiny{{"-0x1p-70"}, {"0x1p-60"}, "-0"};
  EXPECT_EQ(run("cdna1", "bf16", tiny), f32("-0x1p-130"));
  EXPECT_EQ(run("exact", "bf16", tiny), f32("-0x1p-130"));
  EXPECT_EQ(run("cdna2", "bf16", tiny), f32("0"));
  // An f32 subnormal C is flushed too: C = 2^-140, product 0 -> +0 on CDNA2.
  EXPECT_EQ(run("cdna2", "f16", Case{{"0"}, {"1"}, "0x1p-140"}), f32("0"));
  EXPECT_EQ(run("cdna1", "f16", Case{{"0"}, {"1"}, "0x1p-140"}), f32("0x1p-140"));
}

// CDNA3 late C. (1) Tiny negative C: C = -2^-30 with the product 1. E = max(0, -30) = 0, C is
// floored to 24 fraction bits: floor(-2^-6) = -1, i.e. -2^-24, and 1 - 2^-24 is an f32 value.
// NVIDIA (C in the block, truncated toward zero) and the exact sum (RNE) give 1.
// (2) A lost sticky bit: C = 1, products 2^-24 and 2^-40 (E_s = -24, both kept with F = 24);
// the sum is floored to 31 fraction bits of 2^0: 2^-40 vanishes, 1 + 2^-24 is a tie -> 1.
// The exact sum 1 + 2^-24 + 2^-40 rounds up to 1 + 2^-23; so does the CDNA1 tree.
TEST(FdpaStructures, Cdna3LateC) {
  const Case neg_c{{"1"}, {"1"}, "-0x1p-30"};
  EXPECT_EQ(run("cdna3", "f16", neg_c), f32("0x1.fffffep-1"));
  EXPECT_EQ(run("ampere", "f16", neg_c), f32("1"));
  EXPECT_EQ(run("exact", "f16", neg_c), f32("1"));
  const Case sticky{{"0x1p-12", "0x1p-20"}, {"0x1p-12", "0x1p-20"}, "1"};
  EXPECT_EQ(run("cdna3", "f16", sticky), f32("1"));
  EXPECT_EQ(run("exact", "f16", sticky), f32("0x1.000002p+0"));
  EXPECT_EQ(run("cdna1", "f16", sticky), f32("0x1.000002p+0"));
  EXPECT_EQ(run("ampere", "f16", sticky), f32("1"));  // 2^-40 truncated, 1 + 2^-24 RZ -> 1
}

// CDNA3 fp8: C is dropped when e_c < E - 25. Product 1 (E = 0): C = -2^-26 is dropped (D = 1),
// C = -2^-25 is kept and floored to -2^-24 (D = 1 - 2^-24). The f16 unit never drops it.
TEST(FdpaStructures, Cdna3Fp8DropsTinyC) {
  EXPECT_EQ(run("cdna3", "e4m3fnuz", Case{{"1"}, {"1"}, "-0x1p-26"}), f32("1"));
  EXPECT_EQ(run("cdna3", "e4m3fnuz", Case{{"1"}, {"1"}, "-0x1p-25"}), f32("0x1.fffffep-1"));
  EXPECT_EQ(run("cdna3", "e5m2fnuz", Case{{"1"}, {"1"}, "-0x1p-26"}), f32("1"));
  EXPECT_EQ(run("cdna3", "f16", Case{{"1"}, {"1"}, "-0x1p-26"}), f32("0x1.fffffep-1"));
}

// CDNA3 fp8 interleaving: 256 (index 0, even) and -2^-20 (index 1, odd: -2^-10 * 2^-10, both
// e4m3fnuz subnormals). Each group is exact on its own; the odd sum is floored to 24 fraction
// bits of 2^8: floor(-2^-4) = -1 unit = -2^-16, and 256 - 2^-16 is an f32 value. One group of
// both (interleave 1) truncates -2^-20 toward zero: 256. The exact sum 256 - 2^-20 -> 256.
TEST(FdpaStructures, Cdna3Fp8EvenOddGroups) {
  const Case x{{"16", "-0x1p-10"}, {"16", "0x1p-10"}, "0"};
  EXPECT_EQ(run("cdna3", "e4m3fnuz", x), f32("0x1.fffffep+7"));
  EXPECT_EQ(run("exact", "e4m3fnuz", x), f32("256"));
  const Format in = parse_format("e4m3fnuz"), out = parse_format("f32");
  FdpaParams p = find_matrix_unit("cdna3", in, out);
  EXPECT_EQ(p.interleave, 2);
  p.interleave = 1;
  EXPECT_EQ(run(p, "e4m3fnuz", x), f32("256"));
}

// CDNA3 products of 2^128 or more are infinite (MMA-Sim): bf16 2^100 * 2^100 = +inf, and with
// -2^100 * 2^100 beside it inf - inf = NaN (the IEEE default NaN). The exact unit gets
// 2^200 - 2^200 + 1 = 1; NVIDIA aligns everything to 2^200 and C = 1 vanishes: +0.
TEST(FdpaStructures, Cdna3ProductOverflow) {
  EXPECT_EQ(run("cdna3", "bf16", Case{{"0x1p100"}, {"0x1p100"}, "0"}), f32("inf"));
  const Case both{{"0x1p100", "-0x1p100"}, {"0x1p100", "0x1p100"}, "1"};
  EXPECT_EQ(run("cdna3", "bf16", both), 0x7FC00000u);
  EXPECT_EQ(run("exact", "bf16", both), f32("1"));
  EXPECT_EQ(run("ampere", "bf16", both), f32("0"));
}

// ------------------------------------------------------------------ exact and sequential

// The Kulisch accumulator keeps everything: products 2^1020, -2^1020 and 2^-1074 (f64 inputs)
// sum to 2^-1074, the smallest f64 subnormal; with C = 1 the sum 1 + 2^-1074 rounds to 1.
// f32 inputs: 2^127 - 2^127 + 2^-149 = 2^-149 (code 1).
TEST(FdpaExact, WideRangeCancellation) {
  const Case wide{{"0x1p1000", "-0x1p1000", "0x1p-1000"}, {"0x1p20", "0x1p20", "0x1p-74"}, "0"};
  EXPECT_EQ(run("exact", "f64", wide, "f64"), 1u);
  Case with_one = wide;
  with_one.c = "1";
  EXPECT_EQ(run("exact", "f64", with_one, "f64"), f64("1"));
  const Case order{{"0x1p1000", "0x1p-1000"}, {"0x1p20", "0x1p-74"}, "-0x1p1020"};
  EXPECT_EQ(run("exact", "f64", order, "f64"), 1u);
  const Case narrow{{"0x1p100", "-0x1p100", "0x1p-100"}, {"0x1p27", "0x1p27", "0x1p-49"}, "0"};
  EXPECT_EQ(run("exact", "f32", narrow), 1u);
}

// K = 4096 products 2^-12 * 2^-12 = 2^-24 and C = 1: exactly 1 + 2^-12. An fp32 fma chain
// rounds each 1 + 2^-24 back to 1 (tie to even).
TEST(FdpaExact, LongSums) {
  Case x;
  x.c = "1";
  for (int i = 0; i < 4096; ++i) {
    x.a.push_back("0x1p-12");
    x.b.push_back("0x1p-12");
  }
  EXPECT_EQ(run("exact", "f16", x), f32("0x1.001p+0"));
  EXPECT_EQ(run("fp32-sequential", "f16", x), f32("1"));
  EXPECT_EQ(run("exact", "f16", x, "bf16"), enc(parse_format("bf16"), "1"));  // 1 + 2^-12 -> 1
}

// fp64 MMA (NVIDIA, AMD): an IEEE fma chain in f64. Products {1, 2^-53, 2^-53}: the chain
// rounds 1 + 2^-53 to 1 twice; the exact sum is 1 + 2^-52.
TEST(FdpaSequential, Fp64ChainRoundsEachStep) {
  const Case x{{"1", "0x1p-27", "0x1p-27"}, {"1", "0x1p-26", "0x1p-26"}, "0"};
  EXPECT_EQ(run("ampere", "f64", x, "f64"), f64("1"));
  EXPECT_EQ(run("hopper-mma", "f64", x, "f64"), f64("1"));
  EXPECT_EQ(run("cdna3", "f64", x, "f64"), f64("1"));
  EXPECT_EQ(run("exact", "f64", x, "f64"), f64("0x1.0000000000001p+0"));
}

// --------------------------------------------------------------------- optional features

// Products rounded to P significant bits: 1.5 * 1.75 = 2.625 = 10.101b. P = 2 truncated: 2;
// to nearest: 3 (the dropped 0.101b is above half); P = 3: 2.5 both ways; exact: 2.625.
TEST(FdpaOptions, RoundedProducts) {
  FdpaParams p;
  p.block = 4;
  p.frac_bits = 30;
  p.out_rounding = Rounding{RoundingMode::rne};
  const Case x{{"1.5"}, {"1.75"}, "0"};
  EXPECT_EQ(run(p, "f16", x), f32("2.625"));
  p.product_bits = 2;
  EXPECT_EQ(run(p, "f16", x), f32("2"));
  p.product_rounding = AlignRounding::nearest_even;
  EXPECT_EQ(run(p, "f16", x), f32("3"));
  p.product_bits = 3;
  EXPECT_EQ(run(p, "f16", x), f32("2.5"));
}

// Carry bits: four products 1 and C = 3 * 2^-23 with F = 23 (unit 2^-23): the sum is 2^25 + 3
// units (26 bits). The adder keeps F + 1 + carry_bits bits: 2 carry bits hold it all and RNE
// gives 4 + 2^-21 (3/4 of the ulp 2^-21 rounds up); 1 bit leaves 2^25 + 2 (a tie -> 4);
// 0 bits leave 2^25 (4).
TEST(FdpaOptions, CarryBits) {
  FdpaParams p;
  p.block = 4;
  p.frac_bits = 23;
  p.out_rounding = Rounding{RoundingMode::rne};
  const Case x{{"1", "1", "1", "1"}, {"1", "1", "1", "1"}, "0x3p-23"};
  EXPECT_EQ(run(p, "f16", x), f32("0x1.000002p+2"));
  p.carry_bits = 2;
  EXPECT_EQ(run(p, "f16", x), f32("0x1.000002p+2"));
  p.carry_bits = 1;
  EXPECT_EQ(run(p, "f16", x), f32("4"));
  p.carry_bits = 0;
  EXPECT_EQ(run(p, "f16", x), f32("4"));
}

// ------------------------------------------------------------------------ specials

TEST(FdpaSpecials, NanInfAndZeros) {
  // NVIDIA: the canonical NaN 0x7FFFFFFF for a NaN input, inf * 0 and inf - inf.
  EXPECT_EQ(run("ampere", "f16", Case{{"nan", "1"}, {"1", "1"}, "0"}), 0x7FFFFFFFu);
  EXPECT_EQ(run("ampere", "f16", Case{{"inf"}, {"0"}, "0"}), 0x7FFFFFFFu);
  EXPECT_EQ(run("hopper", "f16", Case{{"inf"}, {"1"}, "-inf"}), 0x7FFFFFFFu);
  EXPECT_EQ(run("hopper", "f16", Case{{"inf", "1"}, {"1", "1"}, "0"}), f32("inf"));
  EXPECT_EQ(run("volta", "f16", Case{{"-inf"}, {"2"}, "1"}), f32("-inf"));
  // AMD rows assume the IEEE default NaN 0x7FC00000 (not measured by the sources).
  EXPECT_EQ(run("cdna3", "f16", Case{{"inf"}, {"0"}, "1"}), 0x7FC00000u);
  EXPECT_EQ(run("cdna3", "e4m3fnuz", Case{{"nan"}, {"1"}, "1"}), 0x7FC00000u);
  EXPECT_EQ(run("cdna3", "f16", Case{{"1"}, {"1"}, "inf"}), f32("inf"));
  EXPECT_EQ(run("exact", "f16", Case{{"inf", "-inf"}, {"1", "1"}, "0"}), 0x7FC00000u);
  EXPECT_EQ(run("exact", "f16", Case{{"inf", "1"}, {"1", "1"}, "0"}), f32("inf"));
  // Pairwise and sequential go through apply_op with the IEEE policy: inf * 0 is the default
  // NaN; a NaN input propagates (f16 0x7E01 -> f32 0x7FC02000, the payload left-aligned).
  EXPECT_EQ(run("cdna1", "f16", Case{{"inf"}, {"0"}, "0"}), 0x7FC00000u);
  {
    const Format f16 = parse_format("f16"), out = parse_format("f32");
    const std::vector<std::uint64_t> a{0x7E01, 0x3C00}, b{0x3C00, 0x3C00};
    EXPECT_EQ(fdpa(find_matrix_unit("cdna1", f16, out), f16, out, a, b, 0), 0x7FC02000u);
    EXPECT_EQ(fdpa(find_matrix_unit("fp32-sequential", f16, out), f16, out, a, b, 0), 0x7FC02000u);
  }
  EXPECT_EQ(run("cdna1", "f16", Case{{"inf", "1"}, {"1", "1"}, "1"}), f32("inf"));
  // fp64 MMA on NVIDIA: the nvidia policy's f64 default NaN.
  EXPECT_EQ(run("ampere", "f64", Case{{"inf"}, {"0"}, "0"}, "f64"), 0x7FFFFFFFFFFFFFFFull);
  // Zeros: every product -0 and C = -0 is -0 for IEEE-like units (the exact sum, the fma chain
  // and the fused block); CDNA1's fma(a, b, +0) products are +0, so -0 + +0 = +0; CDNA2 also
  // reads C = -0 as +0. A sum that cancels is +0.
  const Case neg_zeros{{"-0", "0"}, {"1", "-1"}, "-0"};
  EXPECT_EQ(run("exact", "f16", neg_zeros), f32("-0"));
  EXPECT_EQ(run("fp32-sequential", "f16", neg_zeros), f32("-0"));
  EXPECT_EQ(run("volta", "f16", neg_zeros), f32("-0"));
  EXPECT_EQ(run("cdna3", "f16", neg_zeros), f32("-0"));
  EXPECT_EQ(run("cdna1", "f16", neg_zeros), f32("0"));
  EXPECT_EQ(run("cdna2", "f16", neg_zeros), f32("0"));
  EXPECT_EQ(run("exact", "f16", Case{{"1", "-1"}, {"1", "1"}, "0"}), f32("0"));
  EXPECT_EQ(run("cdna3", "f16", Case{{"1", "-1"}, {"1", "1"}, "0"}), f32("0"));
  // Only C: products all zero leave C (late and exact C paths too).
  EXPECT_EQ(run("cdna3", "f16", Case{{"0", "0"}, {"1", "1"}, "0x1.8p-3"}), f32("0x1.8p-3"));
  EXPECT_EQ(run("exact", "f16", Case{{"0"}, {"1"}, "-0x1.8p-3"}), f32("-0x1.8p-3"));
}

// ------------------------------------------------------------------------ presets

TEST(FdpaPresets, RowsAndRefusals) {
  const Format f16 = parse_format("f16"), f32f = parse_format("f32"), f64f = parse_format("f64");
  // hopper-wgmma is hopper.
  for (const char* in : {"f16", "bf16", "tf32", "e4m3", "e5m2"}) {
    const FdpaParams h = find_matrix_unit("hopper", parse_format(in), f32f);
    const FdpaParams w = find_matrix_unit("hopper-wgmma", parse_format(in), f32f);
    EXPECT_EQ(h.block, w.block) << in;
    EXPECT_EQ(h.frac_bits, w.frac_bits) << in;
    EXPECT_EQ(h.zero_exp, w.zero_exp) << in;
    EXPECT_EQ(h.acc_frac_bits, w.acc_frac_bits) << in;
  }
  const FdpaParams c3 = find_matrix_unit("cdna3", parse_format("e5m2fnuz"), f32f);
  EXPECT_EQ(c3.block, 16);
  EXPECT_EQ(c3.frac_bits, 24);
  EXPECT_EQ(c3.late_c_drop_below, 25);
  EXPECT_EQ(find_matrix_unit("cdna3", parse_format("tf32"), f32f).block, 4);
  EXPECT_EQ(find_matrix_unit("cdna3", parse_format("bf16"), f32f).late_c_drop_below, -1);
  EXPECT_EQ(find_matrix_unit("cdna2", parse_format("bf16"), f32f).block, 2);
  EXPECT_EQ(find_matrix_unit("cdna2-1k", parse_format("bf16"), f32f).block, 4);
  EXPECT_EQ(find_matrix_unit("cdna1", f16, f32f).structure, FdpaStructure::pairwise);
  EXPECT_EQ(find_matrix_unit("cdna1-km", f16, f32f).structure, FdpaStructure::exact);
  EXPECT_EQ(find_matrix_unit("cdna1", parse_format("f32"), f32f).structure, FdpaStructure::sequential);
  EXPECT_EQ(find_matrix_unit("exact", parse_format("e2m1"), parse_format("bf16")).block, 0);
  // Refusals: AMD writes f32 (f64 for f64); OCP fp8 is not a CDNA3 input (MI300 uses FNUZ);
  // fp64 rows want f64 out; unknown names.
  EXPECT_THROW(find_matrix_unit("cdna3", f16, f16), Error);
  EXPECT_THROW(find_matrix_unit("cdna3", parse_format("e4m3"), f32f), Error);
  EXPECT_THROW(find_matrix_unit("ampere", f64f, f32f), Error);
  EXPECT_THROW(find_matrix_unit("fp32-sequential", f64f, f32f), Error);
  EXPECT_THROW(find_matrix_unit("cdna4", f16, f32f), Error);
  // Every row names a source and resolves for some output.
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    EXPECT_FALSE(e.source.empty()) << e.preset << " " << e.input;
    const Format in = parse_format(e.input);
    bool any = false;
    for (const char* out : {"f32", "f16", "f64"}) {
      try {
        find_matrix_unit(e.preset, in, parse_format(out));
        any = true;
      } catch (const Error&) {
      }
    }
    EXPECT_TRUE(any) << e.preset << " " << e.input;
  }
}

// Ada's fp8 mma.sync into f16 (MMA-Sim 2.1.1 nv_ptx/sim.py: F = 13, RNE into f16, blocks of 16
// chained through an f16 D). e4m3 products 1, 2^-11 (2^-5 * 2^-6) and 2^-14 (2^-7 * 2^-7):
// aligned to 2^0 with 13 fraction bits 2^-14 is cut, and 1 + 2^-11 is the tie between 1 and
// 1 + 2^-10, which RNE sends to 1 (the correctly rounded sum is 1 + 2^-10). Into f32 the same
// sum is cut RZ to 13 fraction bits: 1 + 2^-11. With 2^-11 in each half of k = 32, Ada rounds
// the first half to 1 in f16 and then 1 + 2^-11 to 1 again; one block of 32 (Hopper's wgmma)
// gives 1 + 2^-10.
TEST(FdpaPresets, AdaFp8IntoF16) {
  const Format f16 = parse_format("f16");
  const Case three{{"1", "0x1p-5", "0x1p-7"}, {"1", "0x1p-6", "0x1p-7"}, "0"};
  EXPECT_EQ(run("ada", "e4m3", three, "f16"), enc(f16, "1"));
  EXPECT_EQ(run("ada", "e5m2", three, "f16"), enc(f16, "1"));
  EXPECT_EQ(run("ada", "e4m3", three, "f32"), f32("0x1.002p+0"));
  Case halves{std::vector<std::string>(32, "0"), std::vector<std::string>(32, "0"), "0"};
  halves.a[0] = halves.b[0] = "1";
  halves.a[1] = halves.a[16] = "0x1p-5";
  halves.b[1] = halves.b[16] = "0x1p-6";
  EXPECT_EQ(run("ada", "e4m3", halves, "f16"), enc(f16, "1"));
  EXPECT_EQ(run("hopper-wgmma", "e4m3", halves, "f16"), enc(f16, "0x1.004p+0"));
}

TEST(FdpaParamsChecks, BadParametersAreErrors) {
  const Format f16 = parse_format("f16"), f32f = parse_format("f32");
  const std::vector<std::uint64_t> one{0x3C00};
  FdpaParams p;
  p.interleave = 2;  // needs C after the block
  EXPECT_THROW(fdpa(p, f16, f32f, one, one, 0), Error);
  p = FdpaParams{};
  p.block = 0;
  EXPECT_THROW(fdpa(p, f16, f32f, one, one, 0), Error);
  p = FdpaParams{};
  p.structure = FdpaStructure::sequential;  // f32 inputs do not fit f16 arithmetic
  EXPECT_THROW(fdpa(p, f32f, f16, std::vector<std::uint64_t>{0x3F800000},
                    std::vector<std::uint64_t>{0x3F800000}, 0),
               Error);
  EXPECT_TRUE(holds_exactly(parse_format("bf16"), f32f));
  EXPECT_TRUE(holds_exactly(parse_format("e4m3fnuz"), f32f));
  EXPECT_FALSE(holds_exactly(parse_format("bf16"), f16));
  EXPECT_FALSE(holds_exactly(f32f, parse_format("tf32")));
  const std::vector<std::uint64_t> two{0x3C00, 0x3C00};
  EXPECT_THROW(fdpa(FdpaParams{}, f16, f32f, one, two, 0), Error);
}

}  // namespace
}  // namespace fpconform
