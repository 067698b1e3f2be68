// Block-scaled dot-product-add (fdpa_scaled, fdpa.hpp "Block scaling"): Blackwell's
// kind::mxf8f6f4 (products scaled one by one, F = 25) and the fp4 kinds kind::mxf4 /
// kind::mxf4nvf4 (exact sub-sums of 16 e2m1 products, each times its scale pair and aligned by
// the scales' exponents, F = 35), after MMA-Sim (Xie et al., arXiv 2511.10909;
// microsoft/MMA-Sim simulator/functions.py). Hand-worked cases give their arithmetic beside
// them; the random checks compare with an independent integer re-derivation of the structure
// and with the error bound it implies.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform {
namespace {

using Codes = std::vector<std::uint64_t>;
using i128 = __int128;

const Format& E2M1() {
  static const Format f = parse_format("e2m1");
  return f;
}
const Format& E4M3() {
  static const Format f = parse_format("e4m3");
  return f;
}
const Format& UE8M0() {
  static const Format f = parse_format("ue8m0");
  return f;
}
const Format& F32() {
  static const Format f = parse_format("f32");
  return f;
}

std::uint64_t enc(const Format& f, const std::string& text) {
  const Rounded r = round_to_format(parse_number(text), f, Rounding{});
  EXPECT_FALSE(r.flags.has(Flags::inexact)) << text << " is not a value of " << f.name;
  return r.bits;
}
std::uint64_t f32(const std::string& v) { return enc(F32(), v); }
std::uint64_t ue8m0(int k) { return static_cast<std::uint64_t>(127 + k); }  // 2^k
std::uint64_t ue4m3_pow2(int k) { return static_cast<std::uint64_t>(k + 7) << 3; }  // 2^k, normal

FdpaParams preset(const std::string& name, const Format& in, const Format& out = F32()) {
  return find_matrix_unit(name, in, out);
}

// K = 64 e2m1 elements, zero except the (index, a, b) triples given.
struct Fp4Case {
  Codes a = Codes(64, 0), b = Codes(64, 0);
  Fp4Case& set(std::size_t i, const std::string& x, const std::string& y) {
    a[i] = enc(E2M1(), x);
    b[i] = enc(E2M1(), y);
    return *this;
  }
};

std::uint64_t mxf4(const Fp4Case& x, const Codes& sa, const Codes& sb, std::uint64_t c = 0) {
  return fdpa_scaled(preset("blackwell-mxf4", E2M1()), E2M1(), F32(), x.a, x.b, UE8M0(), sa, sb, c);
}

// ------------------------------------------------------------------------- hand-worked cases

// kind::mxf8f6f4 (one ue8m0 pair per 32): scale exponents add to every product's exponent, so
// 2^k scales shift the whole computation: D(scales 2^ka, 2^kb) = 2^(ka + kb) * D(1, 1) exactly
// when C is shifted with it and nothing leaves f32's normal range. 448 * 448 = 200704 (lead 16)
// next to 2^-9 * -2^-9 = -2^-18 (lead -12): 28 > F = 25 binades apart, so the small product is
// truncated away (RZ of the exact sum would be 200704 - 2^-6).
TEST(FdpaScaled, Mxf8ScalesShiftTheResultExactly) {
  const FdpaParams p = preset("blackwell", E4M3());
  EXPECT_EQ(p.scale_block, 32);
  EXPECT_EQ(p.subsum, 0);
  const Codes a{enc(E4M3(), "448"), enc(E4M3(), "0x1p-9")}, b{enc(E4M3(), "448"), enc(E4M3(), "-0x1p-9")};
  EXPECT_EQ(fdpa_scaled(p, E4M3(), F32(), a, b, UE8M0(), Codes{ue8m0(0)}, Codes{ue8m0(0)}, 0), f32("200704"));
  EXPECT_EQ(fdpa_scaled(p, E4M3(), F32(), a, b, UE8M0(), Codes{ue8m0(20)}, Codes{ue8m0(-3)}, 0),
            f32("0x1.88p+34"));  // 200704 * 2^17
  EXPECT_EQ(fdpa_scaled(p, E4M3(), F32(), a, b, UE8M0(), Codes{ue8m0(-127)}, Codes{ue8m0(100)}, 0),
            f32("0x1.88p-10"));  // 200704 * 2^-27
  // The exact structure (Kulisch) with the same scales keeps the small product.
  FdpaParams ex = p;
  ex.structure = FdpaStructure::exact;
  ex.block = 0;
  ex.out_rounding = Rounding{RoundingMode::rtz};
  EXPECT_EQ(fdpa_scaled(ex, E4M3(), F32(), a, b, UE8M0(), Codes{ue8m0(20)}, Codes{ue8m0(-3)}, 0),
            f32("0x1.88p+34") - 1);

  std::mt19937_64 rng(3);
  int checked = 0;
  for (const char* in_name : {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}) {
    const Format in = parse_format(in_name);
    const FdpaParams q = preset("blackwell", in);
    for (int t = 0; t < 300; ++t) {
      Codes x(32), y(32);
      for (std::size_t i = 0; i < 32; ++i) {
        do x[i] = rng() & in.code_mask(); while (in.is_nan_code(x[i]) || in.is_inf_code(x[i]) || (x[i] & in.magnitude_mask()) == 0);
        do y[i] = rng() & in.code_mask(); while (in.is_nan_code(y[i]) || in.is_inf_code(y[i]) || (y[i] & in.magnitude_mask()) == 0);
      }
      const int ka = static_cast<int>(rng() % 41) - 20, kb = static_cast<int>(rng() % 41) - 20;
      const float c = t % 3 == 0 ? 0.0f : std::ldexp(static_cast<float>(rng() % 2000) - 1000.0f, static_cast<int>(rng() % 21) - 10);
      const std::uint64_t c_unit = std::bit_cast<std::uint32_t>(c),
                          c_shift = std::bit_cast<std::uint32_t>(std::ldexp(c, ka + kb));
      const std::uint64_t d1 = fdpa_scaled(q, in, F32(), x, y, UE8M0(), Codes{ue8m0(0)}, Codes{ue8m0(0)}, c_unit);
      const std::uint64_t dk = fdpa_scaled(q, in, F32(), x, y, UE8M0(), Codes{ue8m0(ka)}, Codes{ue8m0(kb)}, c_shift);
      const float want = std::ldexp(std::bit_cast<float>(static_cast<std::uint32_t>(d1)), ka + kb);
      ASSERT_EQ(dk, std::bit_cast<std::uint32_t>(want)) << in_name << " t=" << t << " 2^" << ka << " 2^" << kb;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1500);
}

// The fp4 kinds: the same shift for every block's scales (ue8m0 for mxf4, ue4m3 powers of two
// for nvf4) shifts the result exactly.
TEST(FdpaScaled, Fp4ScalesShiftTheResultExactly) {
  std::mt19937_64 rng(4);
  const Format& e4m3 = E4M3();
  for (const char* name : {"blackwell-mxf4", "blackwell-nvf4"}) {
    const FdpaParams p = preset(name, E2M1());
    const bool nv = p.scale_block == 16;
    const std::size_t nscales = 64 / p.scale_block;
    for (int t = 0; t < 300; ++t) {
      Codes x(64), y(64);
      for (std::size_t i = 0; i < 64; ++i) {
        x[i] = rng() & 0xF;
        y[i] = rng() & 0xF;
      }
      const int ka = static_cast<int>(rng() % 9) - 6, kb = static_cast<int>(rng() % 15) - 6;
      const Format& sf = nv ? e4m3 : UE8M0();
      auto code = [&](int k) { return nv ? ue4m3_pow2(k) : ue8m0(k); };
      const float c = t % 3 == 0 ? 0.0f : std::ldexp(static_cast<float>(rng() % 2000) - 1000.0f, static_cast<int>(rng() % 11) - 8);
      const std::uint64_t d1 = fdpa_scaled(p, E2M1(), F32(), x, y, sf, Codes(nscales, code(0)), Codes(nscales, code(0)),
                                           std::bit_cast<std::uint32_t>(c));
      const std::uint64_t dk = fdpa_scaled(p, E2M1(), F32(), x, y, sf, Codes(nscales, code(ka)), Codes(nscales, code(kb)),
                                           std::bit_cast<std::uint32_t>(std::ldexp(c, ka + kb)));
      const float want = std::ldexp(std::bit_cast<float>(static_cast<std::uint32_t>(d1)), ka + kb);
      ASSERT_EQ(dk, std::bit_cast<std::uint32_t>(want)) << name << " t=" << t;
    }
  }
}

// Sub-sums are exact, and each is aligned by its scales' exponents (not its magnitude), F = 35.
// Inside: 36 - 36 in one sub-sum cancels, and a cancelled sub-sum keeps its scales' exponent
// (MMA-Sim 2.1.1; only a sub-sum of zero products is a zero term), so E = 0, the unit is 2^-35
// and 0.25 * 2^-40 = 2^-42 is truncated: D = +0. Across: +36 and -36 in two sub-sums of scale
// 1 are terms of lead 0: the same. Per-product alignment (subsum = 0): E = 4 (6 * 6), 2^-42
// lost both ways. Zero products instead of 36 - 36 leave 2^-42 alone: it sets E and survives.
TEST(FdpaScaled, CancellationInsideVersusAcrossSubsums) {
  const Codes sa{ue8m0(0), ue8m0(-40)}, sb{ue8m0(0), ue8m0(0)};
  Fp4Case inside, across;
  inside.set(0, "6", "6").set(1, "-6", "6").set(32, "0.5", "0.5");
  across.set(0, "6", "6").set(16, "-6", "6").set(32, "0.5", "0.5");
  EXPECT_EQ(mxf4(inside, sa, sb), f32("0"));
  EXPECT_EQ(mxf4(across, sa, sb), f32("0"));
  Fp4Case zeros;
  zeros.set(32, "0.5", "0.5");
  EXPECT_EQ(mxf4(zeros, sa, sb), f32("0x1p-42"));
  FdpaParams per_product = preset("blackwell-mxf4", E2M1());
  per_product.subsum = 0;
  EXPECT_EQ(fdpa_scaled(per_product, E2M1(), F32(), inside.a, inside.b, UE8M0(), sa, sb, 0), f32("0"));
  EXPECT_EQ(fdpa_scaled(per_product, E2M1(), F32(), across.a, across.b, UE8M0(), sa, sb, 0), f32("0"));
  // The nvf4 kind (ue4m3 per 16): sub-sums 0 and 1 have their own scales. Inside: 36 - 36 in
  // sub-sum 0 (scale 1: lead 0), 0.25 in sub-sum 1 at scale 2^-9 * 2^-9 (ue4m3 min subnormal,
  // lead -6 - 6 = -12): E = 0 and 2^-20 is kept (F = 35). Across: 36 in sub-sum 0, -36 in 2:
  // the same.
  const FdpaParams nv = preset("blackwell-nvf4", E2M1());
  const Codes one(4, 0x38);
  Codes tiny = one;
  tiny[1] = 0x01;
  Fp4Case n_in, n_across;
  n_in.set(0, "6", "6").set(1, "-6", "6").set(16, "0.5", "0.5");
  n_across.set(0, "6", "6").set(32, "-6", "6").set(16, "0.5", "0.5");
  EXPECT_EQ(fdpa_scaled(nv, E2M1(), F32(), n_in.a, n_in.b, E4M3(), tiny, tiny, 0), f32("0x1p-20"));
  EXPECT_EQ(fdpa_scaled(nv, E2M1(), F32(), n_across.a, n_across.b, E4M3(), tiny, tiny, 0), f32("0x1p-20"));
}

// A sub-sum's alignment exponent is its scales' exponent sum: 0.25 at scale 1 has lead 0 (not
// -2), so -0.25 * 2^-34 = -2^-36 falls below the unit 2^-35 and D = 0.25 (aligned by magnitude,
// E = -2, it would be kept and RZ would give 0.25 - 2^-26).
TEST(FdpaScaled, SubsumsAlignByTheirScaleExponents) {
  Fp4Case x;
  x.set(0, "0.5", "0.5").set(32, "-0.5", "0.5");
  EXPECT_EQ(mxf4(x, {ue8m0(0), ue8m0(-34)}, {ue8m0(0), ue8m0(0)}), f32("0.25"));
  EXPECT_EQ(mxf4(x, {ue8m0(0), ue8m0(-33)}, {ue8m0(0), ue8m0(0)}), f32("0x1.fffffep-3"));  // 0.25 - 2^-35
}

// Two terms whose scaled exponents differ by more than F: the small one is truncated away.
// mxf4 (F = 35): 1 and -0.25 * 2^-30 = -2^-32 (lead -30): kept, RZ gives 1 - 2^-24; at 2^-40
// (-2^-42, lead -40): dropped, D = 1. kind::mxf8f6f4 (F = 25, one scale pair per k32 block, so
// K = 64 is a chain of two blocks): the second block aligns -2^-32 to C = 1 (E = 0) and drops it.
TEST(FdpaScaled, TermsMoreThanFApartAreTruncated) {
  Fp4Case x;
  x.set(0, "1", "1").set(32, "-0.5", "0.5");
  const Codes sb{ue8m0(0), ue8m0(0)};
  EXPECT_EQ(mxf4(x, {ue8m0(0), ue8m0(-30)}, sb), f32("0x1.fffffep-1"));
  EXPECT_EQ(mxf4(x, {ue8m0(0), ue8m0(-40)}, sb), f32("1"));
  const FdpaParams f8 = preset("blackwell", E2M1());
  EXPECT_EQ(fdpa_scaled(f8, E2M1(), F32(), x.a, x.b, UE8M0(), Codes{ue8m0(0), ue8m0(-30)}, sb, 0), f32("1"));
  EXPECT_EQ(fdpa_scaled(f8, E2M1(), F32(), x.a, x.b, UE8M0(), Codes{ue8m0(0), ue8m0(-22)}, sb, 0),
            f32("0x1.fffffep-1"));  // -2^-24 is inside F = 25: 1 - 2^-24
}

// C is a term of the block: it takes part in E and is truncated like the others.
TEST(FdpaScaled, CTakesPartInTheAlignment) {
  Fp4Case x;
  x.set(0, "-0.5", "0.5");  // -0.25
  const Codes one{ue8m0(0), ue8m0(0)};
  // C = 1 sets E = 0: -0.25 * 2^-33 = -2^-35 is one unit (kept), -2^-36 is not.
  EXPECT_EQ(mxf4(x, {ue8m0(-33), ue8m0(0)}, one, f32("1")), f32("0x1.fffffep-1"));
  EXPECT_EQ(mxf4(x, {ue8m0(-34), ue8m0(0)}, one, f32("1")), f32("1"));
  // C = 2^40 (E = 40, unit 2^5): -0.25 vanishes; D = 2^40, not RZ(2^40 - 0.25).
  EXPECT_EQ(mxf4(x, one, one, f32("0x1p40")), f32("0x1p40"));
  // C = -2^-100 beside the sub-sum 1 (E = 0): C itself is truncated away, D = 1.
  Fp4Case y;
  y.set(5, "1", "1");
  EXPECT_EQ(mxf4(y, one, one, f32("-0x1p-100")), f32("1"));
  // Only C: exact.
  EXPECT_EQ(mxf4(Fp4Case{}, one, one, f32("-0x1p-100")), f32("-0x1p-100"));
  // Chains: K = 128 is two k64 steps, the first's D the second's C (scales 0-1, then 2-3).
  Fp4Case lo, hi;
  lo.set(3, "6", "-4").set(40, "1.5", "3");
  hi.set(7, "0.5", "-0.5").set(63, "2", "2");
  Codes a2 = lo.a, b2 = lo.b;
  a2.insert(a2.end(), hi.a.begin(), hi.a.end());
  b2.insert(b2.end(), hi.b.begin(), hi.b.end());
  const Codes s4{ue8m0(3), ue8m0(-2), ue8m0(-40), ue8m0(5)}, t4{ue8m0(1), ue8m0(0), ue8m0(-1), ue8m0(2)};
  const FdpaParams p = preset("blackwell-mxf4", E2M1());
  const std::uint64_t first = fdpa_scaled(p, E2M1(), F32(), lo.a, lo.b, UE8M0(), Codes{s4[0], s4[1]}, Codes{t4[0], t4[1]}, f32("0.75"));
  const std::uint64_t second = fdpa_scaled(p, E2M1(), F32(), hi.a, hi.b, UE8M0(), Codes{s4[2], s4[3]}, Codes{t4[2], t4[3]}, first);
  EXPECT_EQ(fdpa_scaled(p, E2M1(), F32(), a2, b2, UE8M0(), s4, t4, f32("0.75")), second);
  // first: -24 * 2^4 + 4.5 * 2^-2 + 0.75 = -382.125; second: -0.25 * 2^-41 (dropped, E = 8)
  // + 4 * 2^7 = 512 - 382.125 = 129.875.
  EXPECT_EQ(first, f32("-382.125"));
  EXPECT_EQ(second, f32("129.875"));
}

// NaN scales (ue8m0 0xFF, e4m3 0x7F / 0xFF) and NaN C give the canonical NaN 0x7FFFFFFF, even
// where the scaled elements are zero (MMA-Sim checks the scales before anything else); an
// infinite C passes through; zero ue4m3 scales make their products zero.
TEST(FdpaScaled, SpecialScalesAndC) {
  const Codes one{ue8m0(0), ue8m0(0)};
  EXPECT_EQ(mxf4(Fp4Case{}, {0xFF, ue8m0(0)}, one), 0x7FFFFFFFu);
  EXPECT_EQ(mxf4(Fp4Case{}, one, {ue8m0(0), 0xFF}), 0x7FFFFFFFu);
  EXPECT_EQ(mxf4(Fp4Case{}, one, one, 0x7FC00000), 0x7FFFFFFFu);
  EXPECT_EQ(mxf4(Fp4Case{}, one, one, f32("-inf")), f32("-inf"));
  const FdpaParams f8 = preset("blackwell", E4M3());
  const Codes a{enc(E4M3(), "1")}, b{enc(E4M3(), "2")};
  EXPECT_EQ(fdpa_scaled(f8, E4M3(), F32(), a, b, UE8M0(), Codes{0xFF}, Codes{ue8m0(0)}, 0), 0x7FFFFFFFu);
  EXPECT_EQ(fdpa_scaled(f8, E4M3(), F32(), a, b, UE8M0(), Codes{ue8m0(0)}, Codes{0xFF}, f32("1")), 0x7FFFFFFFu);
  EXPECT_EQ(fdpa_scaled(f8, E4M3(), F32(), a, b, UE8M0(), Codes{ue8m0(127)}, Codes{ue8m0(-127)}, 0), f32("2"));
  // e5m2 inf times a finite scale: inf; e4m3 NaN element: NaN.
  const Format e5m2 = parse_format("e5m2");
  EXPECT_EQ(fdpa_scaled(preset("blackwell", e5m2), e5m2, F32(), Codes{enc(e5m2, "-inf")}, Codes{enc(e5m2, "2")},
                        UE8M0(), Codes{ue8m0(-100)}, Codes{ue8m0(0)}, 0),
            f32("-inf"));
  EXPECT_EQ(fdpa_scaled(f8, E4M3(), F32(), Codes{0x7F}, b, UE8M0(), Codes{ue8m0(0)}, Codes{ue8m0(0)}, 0), 0x7FFFFFFFu);
  const FdpaParams nv = preset("blackwell-nvf4", E2M1());
  Fp4Case x;
  x.set(0, "6", "6").set(20, "1", "1");
  const Codes ones(4, 0x38);
  for (std::uint64_t nan : {0x7Fu, 0xFFu}) {
    Codes s = ones;
    s[3] = nan;
    EXPECT_EQ(fdpa_scaled(nv, E2M1(), F32(), x.a, x.b, E4M3(), s, ones, 0), 0x7FFFFFFFu);
  }
  // A zero scale (either sign) zeroes its sub-sum: 36 * 0 + 1 = 1.
  for (std::uint64_t zero : {0x00u, 0x80u}) {
    Codes s = ones;
    s[0] = zero;
    EXPECT_EQ(fdpa_scaled(nv, E2M1(), F32(), x.a, x.b, E4M3(), s, ones, 0), f32("1"));
  }
}

// ue4m3 scales are e4m3 codes read without their sign: -1.25 (0xBA) scales as 1.25 (0x3A).
// Non-power-of-two scales multiply the sub-sum exactly: 1 * 1.5 * 1.25 = 1.875; 6 * 6 at two
// ue4m3 subnormal scales 2^-9: 36 * 2^-18.
TEST(FdpaScaled, Ue4m3SignIsIgnored) {
  const FdpaParams nv = preset("blackwell-nvf4", E2M1());
  EXPECT_EQ(nv.scale_block, 16);
  EXPECT_EQ(nv.subsum, 16);
  Fp4Case x;
  x.set(0, "1", "1");
  const Codes ones(4, 0x38);
  for (std::uint64_t sa : {0x3Cu, 0xBCu})
    for (std::uint64_t sb : {0x3Au, 0xBAu}) {
      Codes s = ones, t = ones;
      s[0] = sa;
      t[0] = sb;
      EXPECT_EQ(fdpa_scaled(nv, E2M1(), F32(), x.a, x.b, E4M3(), s, t, 0), f32("1.875")) << sa << " " << sb;
    }
  Fp4Case y;
  y.set(17, "-6", "6");
  Codes sub = ones;
  sub[1] = 0x81;  // -2^-9: read as 2^-9
  EXPECT_EQ(fdpa_scaled(nv, E2M1(), F32(), y.a, y.b, E4M3(), sub, sub, 0), f32("-0x1.2p-13"));
}

// fdpa() runs with unit scales: the same as fdpa_scaled with scales 1 (ue8m0 127, e4m3 0x38),
// and for the mxf8f6f4 rows the same as the plain fused block without scale_block; the kernel
// (its fused-block path, or for the fp4 kinds its sub-sum path) agrees.
TEST(FdpaScaled, UnitScalesAreFdpa) {
  std::mt19937_64 rng(9);
  int rows = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    if (e.params.scale_block == 0) continue;
    ++rows;
    const Format in = parse_format(e.input);
    const FdpaParams p = preset(std::string(e.preset), in);
    FdpaParams plain = p;
    plain.scale_block = 0;
    const FdpaKernel kernel(p, in, F32());
    EXPECT_TRUE(kernel.fast()) << e.preset << " " << e.input;
    for (int t = 0; t < 200; ++t) {
      const std::size_t k = 1 + rng() % 128;
      Codes a(k), b(k);
      for (std::size_t i = 0; i < k; ++i) {
        a[i] = rng() & in.code_mask();
        b[i] = rng() & in.code_mask();
        if (rng() % 4 == 0) a[i] = 0;
      }
      const std::uint64_t c = t % 3 == 0 ? 0 : (rng() & 0x807FFFFF) | (static_cast<std::uint64_t>(100 + rng() % 50) << 23);
      const std::size_t n = (k + p.scale_block - 1) / p.scale_block;
      const std::uint64_t d = fdpa(p, in, F32(), a, b, c);
      EXPECT_EQ(fdpa_scaled(p, in, F32(), a, b, UE8M0(), Codes(n, 127), Codes(n, 127), c), d);
      EXPECT_EQ(fdpa_scaled(p, in, F32(), a, b, E4M3(), Codes(n, 0x38), Codes(n, 0xB8), c), d);
      EXPECT_EQ(fdpa(plain, in, F32(), a, b, c), d);
      EXPECT_EQ(kernel.dot(a, b, c), d);
    }
  }
  EXPECT_EQ(rows, 7);
}

// ---------------------------------------------------------- independent re-derivation

// The value of a scale code as integer significand m, lsb exponent and lead exponent (the
// exponent alignment sees), decoded here by hand. m = 0: zero.
struct HandScale {
  std::int64_t m;
  int lsb, lead;
};
HandScale hand_ue8m0(std::uint64_t code) { return {1, static_cast<int>(code) - 127, static_cast<int>(code) - 127}; }
HandScale hand_ue4m3(std::uint64_t code) {
  const int field = static_cast<int>((code >> 3) & 0xF), frac = static_cast<int>(code & 7);
  if (field == 0) return {frac, -9, -6};
  return {8 + frac, field - 10, field - 7};
}
// e2m1 in halves: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
std::int64_t e2m1_halves(std::uint64_t code) {
  static const int h[8] = {0, 1, 2, 3, 4, 6, 8, 12};
  return (code & 8 ? -1 : 1) * h[code & 7];
}

// An exact binary32 C as (signed significand, lsb, lead); m = 0 for zeros.
struct HandTerm {
  i128 m;
  int lsb, lead;
};
HandTerm hand_f32(std::uint64_t bits) {
  const int field = static_cast<int>((bits >> 23) & 0xFF);
  const std::int64_t frac = static_cast<std::int64_t>(bits & 0x7FFFFF), s = bits >> 31 ? -1 : 1;
  if (field == 0) return {s * frac, -149, -126};
  return {s * (frac | (1 << 23)), field - 150, field - 127};
}

i128 trunc_shift(i128 v, int shift) {  // v * 2^shift, toward zero
  if (shift >= 0) return v << shift;
  const bool neg = v < 0;
  i128 m = neg ? -v : v;
  m = -shift >= 127 ? 0 : m >> -shift;
  return neg ? -m : m;
}

// RZ of v * 2^u into binary32 (normal or subnormal; |v * 2^u| < 2^128 here).
std::uint64_t rz_f32(i128 v, int u) {
  if (v == 0) return 0;
  const bool neg = v < 0;
  unsigned __int128 m = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  int bits = 0;
  for (unsigned __int128 t = m; t; t >>= 1) ++bits;
  const int target = std::max(u + bits - 1 - 23, -149);
  if (target > u) {
    m = target - u >= 128 ? 0 : m >> (target - u);
    u = target;
  }
  const float f = std::ldexp(static_cast<float>(static_cast<std::uint64_t>(m)), u);
  return std::bit_cast<std::uint32_t>(f) | (neg ? 0x80000000u : 0u);
}

// The fp4 kinds by hand (MMA-Sim 2.1.1's gst_fdpa): sub-sums of 16 in quarters, times the
// scale significands, lead = the scale leads; sub-sums of zero products (or with a zero scale)
// and a zero C count as -139 (e_zero), a sub-sum that cancels to zero keeps its lead; every
// term truncated to F = 35 fraction bits of 2^E; RZ into f32. Also returns E and the number of
// non-zero terms.
std::uint64_t hand_fp4(const Codes& a, const Codes& b, const Codes& sa, const Codes& sb, bool ue4m3,
                       std::size_t scale_block, std::uint64_t c, int* e_out = nullptr, int* terms = nullptr) {
  std::vector<HandTerm> t;
  bool any_zero = false;
  int cancelled_lead = INT_MIN;
  for (std::size_t j = 0; j < a.size(); j += 16) {
    std::int64_t q = 0;  // quarters
    bool products = false;
    for (std::size_t i = j; i < j + 16; ++i) {
      q += e2m1_halves(a[i]) * e2m1_halves(b[i]);
      products = products || e2m1_halves(a[i]) * e2m1_halves(b[i]) != 0;
    }
    const HandScale x = ue4m3 ? hand_ue4m3(sa[j / scale_block]) : hand_ue8m0(sa[j / scale_block]);
    const HandScale y = ue4m3 ? hand_ue4m3(sb[j / scale_block]) : hand_ue8m0(sb[j / scale_block]);
    if (!products || x.m == 0 || y.m == 0) {
      any_zero = true;
      continue;
    }
    if (q == 0) {
      cancelled_lead = std::max(cancelled_lead, x.lead + y.lead);
      continue;
    }
    t.push_back({static_cast<i128>(q) * x.m * y.m, -2 + x.lsb + y.lsb, x.lead + y.lead});
  }
  const HandTerm ct = hand_f32(c);
  if (ct.m == 0) any_zero = true;
  else t.push_back(ct);
  int e = std::max(any_zero ? -139 : INT_MIN, cancelled_lead);
  for (const HandTerm& x : t) e = std::max(e, x.lead);
  i128 sum = 0;
  for (const HandTerm& x : t) sum += trunc_shift(x.m, x.lsb - (e - 35));
  if (e_out) *e_out = e;
  if (terms) *terms = static_cast<int>(t.size());
  return rz_f32(sum, e - 35);
}

// kind::mxf8f6f4 by hand (e4m3, K = 32, one ue8m0 pair): products exact, lead = ea + eb + the
// scale exponents; zero products and zero C count as -133; F = 25; RZ into f32.
std::uint64_t hand_mxf8_e4m3(const Codes& a, const Codes& b, std::uint64_t sa, std::uint64_t sb, std::uint64_t c) {
  auto dec = [](std::uint64_t code) {
    const HandScale v = hand_ue4m3(code & 0x7F);
    return HandTerm{(code & 0x80 ? -1 : 1) * static_cast<i128>(v.m), v.lsb, v.lead};
  };
  const int ks = static_cast<int>(sa) - 127 + static_cast<int>(sb) - 127;
  std::vector<HandTerm> t;
  bool any_zero = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const HandTerm x = dec(a[i]), y = dec(b[i]);
    if (x.m == 0 || y.m == 0) {
      any_zero = true;
      continue;
    }
    t.push_back({x.m * y.m, x.lsb + y.lsb + ks, x.lead + y.lead + ks});
  }
  const HandTerm ct = hand_f32(c);
  if (ct.m == 0) any_zero = true;
  else t.push_back(ct);
  int e = any_zero ? -133 : INT_MIN;
  for (const HandTerm& x : t) e = std::max(e, x.lead);
  i128 sum = 0;
  for (const HandTerm& x : t) sum += trunc_shift(x.m, x.lsb - (e - 25));
  return rz_f32(sum, e - 25);
}

std::uint64_t random_f32(std::mt19937_64& rng, int lo, int hi) {
  if (rng() % 4 == 0) return 0;
  const std::uint64_t field = static_cast<std::uint64_t>(127 + lo + static_cast<int>(rng() % (hi - lo + 1)));
  return (rng() & 0x807FFFFF) | (field << 23);
}

TEST(FdpaScaled, Fp4KindsMatchAnIndependentDerivation) {
  std::mt19937_64 rng(17);
  int checked = 0, truncated = 0;
  for (const char* name : {"blackwell-mxf4", "blackwell-nvf4"}) {
    const FdpaParams p = preset(name, E2M1());
    const bool ue4m3 = p.scale_block == 16;
    const std::size_t ns = 64 / p.scale_block;
    for (int t = 0; t < 3000; ++t) {
      Codes a(64), b(64), sa(ns), sb(ns);
      const int zeros = t % 4;  // some vectors with many zeros (zero sub-sums)
      for (std::size_t i = 0; i < 64; ++i) {
        a[i] = rng() & 0xF;
        b[i] = rng() & 0xF;
        if (zeros && rng() % 4 < static_cast<unsigned>(zeros)) a[i] = 0;
      }
      if (t % 7 == 0)  // exact cancellation across sub-sums: 16..31 = -(0..15)
        for (std::size_t i = 16; i < 32; ++i) {
          a[i] = a[i - 16] ^ 8;
          b[i] = b[i - 16];
        }
      for (std::size_t s = 0; s < ns; ++s) {
        if (ue4m3) {
          do sa[s] = rng() & 0xFF; while ((sa[s] & 0x7F) == 0x7F);
          do sb[s] = rng() & 0xFF; while ((sb[s] & 0x7F) == 0x7F);
        } else {
          sa[s] = ue8m0(static_cast<int>(rng() % 101) - 50);
          sb[s] = ue8m0(static_cast<int>(rng() % 101) - 50);
        }
      }
      const std::uint64_t c = random_f32(rng, -60, 60);
      const std::uint64_t got = fdpa_scaled(p, E2M1(), F32(), a, b, ue4m3 ? E4M3() : UE8M0(), sa, sb, c);
      const std::uint64_t want = hand_fp4(a, b, sa, sb, ue4m3, p.scale_block, c);
      ASSERT_EQ(got, want) << name << " t=" << t;
      // Where the plain exact sum rounds differently, the truncation mattered.
      FdpaParams ex = p;
      ex.structure = FdpaStructure::exact;
      ex.block = 0;
      if (fdpa_scaled(ex, E2M1(), F32(), a, b, ue4m3 ? E4M3() : UE8M0(), sa, sb, c) != got) ++truncated;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 6000);
  EXPECT_GT(truncated, 100);
}

TEST(FdpaScaled, Mxf8MatchesAnIndependentDerivation) {
  std::mt19937_64 rng(23);
  const FdpaParams p = preset("blackwell", E4M3());
  for (int t = 0; t < 4000; ++t) {
    Codes a(32), b(32);
    for (std::size_t i = 0; i < 32; ++i) {
      do a[i] = rng() & 0xFF; while ((a[i] & 0x7F) == 0x7F);
      do b[i] = rng() & 0xFF; while ((b[i] & 0x7F) == 0x7F);
      if (t % 3 == 0 && rng() % 3 == 0) a[i] = 0;
    }
    const std::uint64_t sa = ue8m0(static_cast<int>(rng() % 101) - 50), sb = ue8m0(static_cast<int>(rng() % 101) - 50);
    const std::uint64_t c = random_f32(rng, -80, 80);
    ASSERT_EQ(fdpa_scaled(p, E4M3(), F32(), a, b, UE8M0(), Codes{sa}, Codes{sb}, c), hand_mxf8_e4m3(a, b, sa, sb, c))
        << "t=" << t;
  }
}

// The bound the F = 35 structure implies: |D - exact| <= n_terms * 2^(E - 35) + ulp(D) (RZ),
// with the exact value in integers (scales 2^-16..2^16 keep it within 128 bits at 2^-70).
TEST(FdpaScaled, Fp4ErrorWithinTheStructuresBound) {
  std::mt19937_64 rng(29);
  constexpr int kUnit = -70;
  for (int t = 0; t < 3000; ++t) {
    Codes a(64), b(64), sa(2), sb(2);
    for (std::size_t i = 0; i < 64; ++i) {
      a[i] = rng() & 0xF;
      b[i] = rng() & 0xF;
    }
    for (std::size_t s = 0; s < 2; ++s) {
      sa[s] = ue8m0(static_cast<int>(rng() % 33) - 16);
      sb[s] = ue8m0(static_cast<int>(rng() % 33) - 16);
    }
    const std::uint64_t c = random_f32(rng, -32, 32);
    const std::uint64_t d = mxf4({a, b}, sa, sb, c);
    int e = 0, terms = 0;
    EXPECT_EQ(d, hand_fp4(a, b, sa, sb, false, 32, c, &e, &terms));
    i128 exact = 0;  // in units of 2^-70
    for (std::size_t i = 0; i < 64; ++i) {
      const HandScale x = hand_ue8m0(sa[i / 32]), y = hand_ue8m0(sb[i / 32]);
      exact += trunc_shift(e2m1_halves(a[i]) * e2m1_halves(b[i]), -2 + x.lsb + y.lsb - kUnit);
    }
    const HandTerm ct = hand_f32(c);
    exact += trunc_shift(ct.m, ct.lsb - kUnit);
    const HandTerm dt = hand_f32(d);
    const i128 got = trunc_shift(dt.m, dt.lsb - kUnit);
    const i128 err = got > exact ? got - exact : exact - got;
    const i128 bound = static_cast<i128>(terms) * trunc_shift(1, e - 35 - kUnit) +
                       trunc_shift(1, std::max(dt.lead, -126) - 23 - kUnit);
    ASSERT_LE(err, bound) << "t=" << t;
  }
}

// ------------------------------------------------------------------------------ errors, text

TEST(FdpaScaled, ParametersAndErrors) {
  const Codes one{enc(E2M1(), "1")}, s1{127};
  // A unit without scales, a structure without terms, wrong counts, scale formats with inf.
  EXPECT_THROW(fdpa_scaled(preset("hopper", parse_format("f16")), parse_format("f16"), F32(),
                           Codes{0x3C00}, Codes{0x3C00}, UE8M0(), s1, s1, 0),
               Error);
  FdpaParams seq = preset("blackwell", E2M1());
  seq.structure = FdpaStructure::sequential;
  EXPECT_THROW(fdpa_scaled(seq, E2M1(), F32(), one, one, UE8M0(), s1, s1, 0), Error);
  const FdpaParams p = preset("blackwell-mxf4", E2M1());
  EXPECT_THROW(fdpa_scaled(p, E2M1(), F32(), one, one, UE8M0(), Codes{127, 127}, s1, 0), Error);
  EXPECT_THROW(fdpa_scaled(p, E2M1(), F32(), one, one, UE8M0(), Codes{}, Codes{}, 0), Error);
  EXPECT_THROW(fdpa_scaled(p, E2M1(), F32(), one, one, parse_format("e5m2"), s1, s1, 0), Error);
  FdpaParams odd = p;
  odd.scale_block = 24;  // sub-sums of 16 would straddle scale blocks
  EXPECT_THROW(fdpa_scaled(odd, E2M1(), F32(), one, one, UE8M0(), s1, s1, 0), Error);
  FdpaParams pw = preset("cdna1", parse_format("f16"));
  pw.subsum = 16;  // sub-sums need the fused or exact structure
  EXPECT_THROW(fdpa(pw, parse_format("f16"), F32(), Codes{0x3C00}, Codes{0x3C00}, 0), Error);
  EXPECT_EQ(mxf4(Fp4Case{}, {127, 127}, {127, 127}, 0), 0u);  // K = 64 of zeros: +0
  // The fp4 kinds write f32 only; the mxf8f6f4 rows also f16 (RNE), as kind::f8f6f4.
  EXPECT_THROW(preset("blackwell-mxf4", E2M1(), parse_format("f16")), Error);
  EXPECT_EQ(preset("blackwell", E2M1(), parse_format("f16")).out_rounding.mode, RoundingMode::rne);
  // Text: the fields print and read back; custom units can set them.
  const FdpaParams q = parse_model("custom:base=blackwell-nvf4,subsum=0", E2M1(), F32());
  EXPECT_EQ(q.subsum, 0);
  EXPECT_EQ(q.scale_block, 16);
  EXPECT_EQ(q.frac_bits, 35);
  bool seen = false;
  for (const auto& [k, v] : describe_params(p))
    if (k == "subsum") seen = v == "16";
  EXPECT_TRUE(seen);
  EXPECT_THROW(parse_model("custom:subsum=-1", E2M1(), F32()), Error);
  EXPECT_THROW(parse_model("custom:scale_block=x", E2M1(), F32()), Error);
}

}  // namespace
}  // namespace fpconform
