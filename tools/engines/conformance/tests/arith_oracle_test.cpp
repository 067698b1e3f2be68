// double_arith.hpp on hand-computed cases (independent of both emu and MPFR), emu and MPFR on
// the same cases, and a check that the arithmetic harness notices a wrong result.
#include <gtest/gtest.h>

#include "arith_common.hpp"

namespace {

using namespace arithtest;
using M = RoundingMode;

struct Spot {
  const char* format;
  Op op;
  u64 a, b, c;
  M mode;
  const char* nan;  // policy name
  u64 bits;
  std::uint8_t flags;
  Saturation sat = Saturation::none;
  int sr_bits = 0;
  u64 random = 0;
  bool exact_int = true;
};

constexpr std::uint8_t ix = 0x01, uf = 0x02, of = 0x04, dz = 0x08, nv = 0x10;

std::vector<Spot> spots() {
  return {
      // f16 1 + 2^-11: a tie at 1
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::rne, "ieee", 0x3C00, ix},
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::rna, "ieee", 0x3C01, ix},
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::up, "ieee", 0x3C01, ix},
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::down, "ieee", 0x3C00, ix},
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::rtz, "ieee", 0x3C00, ix},
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::odd, "ieee", 0x3C01, ix},
      // ... stochastic: f = 1/2, n = 1
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::stochastic_exact, "ieee", 0x3C01, ix, Saturation::none, 1, 0},
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::stochastic_exact, "ieee", 0x3C00, ix, Saturation::none, 1, 1},
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::stochastic_a, "ieee", 0x3C00, ix, Saturation::none, 1, 0},
      {"f16", Op::add, 0x3C00, 0x1000, 0, M::stochastic_a, "ieee", 0x3C01, ix, Saturation::none, 1, 1},
      // f32 fma(1, 1, +-2^-149): the sticky bit 149 places down
      {"f32", Op::mul_add, 0x3F800000, 0x3F800000, 0x00000001, M::rne, "ieee", 0x3F800000, ix},
      {"f32", Op::mul_add, 0x3F800000, 0x3F800000, 0x00000001, M::up, "ieee", 0x3F800001, ix},
      {"f32", Op::mul_add, 0x3F800000, 0x3F800000, 0x00000001, M::odd, "ieee", 0x3F800001, ix},
      {"f32", Op::mul_add, 0x3F800000, 0x3F800000, 0x80000001, M::rne, "ieee", 0x3F800000, ix},
      {"f32", Op::mul_add, 0x3F800000, 0x3F800000, 0x80000001, M::down, "ieee", 0x3F7FFFFF, ix},
      {"f32", Op::mul_add, 0x3F800000, 0x3F800000, 0x80000001, M::odd, "ieee", 0x3F7FFFFF, ix},
      // e4m3: 448 + 16 = 464 ties to 448 (even), 448 + 24 = 472 overflows
      {"e4m3", Op::add, 0x7E, 0x58, 0, M::rne, "ieee", 0x7E, ix},
      {"e4m3", Op::add, 0x7E, 0x5C, 0, M::rne, "ieee", 0x7F, of | ix},
      {"e4m3", Op::add, 0x7E, 0x5C, 0, M::rne, "ieee", 0x7E, of | ix, Saturation::finite},
      {"e4m3", Op::add, 0x7E, 0x5C, 0, M::rtz, "ieee", 0x7E, ix},  // y = 448: no overflow
      // f16 1/3, sqrt(2)
      {"f16", Op::div, 0x3C00, 0x4200, 0, M::rne, "ieee", 0x3555, ix},
      {"f16", Op::div, 0x3C00, 0x4200, 0, M::up, "ieee", 0x3556, ix},
      {"f16", Op::div, 0x3C00, 0x4200, 0, M::odd, "ieee", 0x3555, ix},
      {"f16", Op::sqrt, 0x4000, 0, 0, M::rne, "ieee", 0x3DA8, ix},
      {"f16", Op::sqrt, 0x4000, 0, 0, M::up, "ieee", 0x3DA9, ix},
      // NaNs: signaling operand quieted with its payload, or the policy's default NaN
      {"f16", Op::add, 0x7C01, 0x3C00, 0, M::rne, "ieee", 0x7E01, nv},
      {"f16", Op::add, 0x3C00, 0xFC01, 0, M::rne, "x86", 0xFE01, nv},
      {"f16", Op::add, 0x7C01, 0x3C00, 0, M::rne, "arm-default-nan", 0x7E00, nv},
      {"f16", Op::add, 0x7C01, 0x3C00, 0, M::rne, "nvidia", 0x7FFF, nv},
      {"f16", Op::add, 0x7C00, 0xFC00, 0, M::rne, "x86", 0xFE00, nv},
      {"f16", Op::sub, 0x3C00, 0xFE05, 0, M::rne, "ieee", 0xFE05, 0},  // a NaN b keeps its sign
      {"f16", Op::mul_add, 0x0000, 0x7C00, 0x7E03, M::rne, "ieee", 0x7E03, 0},
      {"f16", Op::mul_add, 0x0000, 0x7C00, 0x7E03, M::rne, "riscv", 0x7E00, nv},
      {"f16", Op::mul_add, 0x0000, 0x7C00, 0x7E03, M::rne, "nvidia", 0x7FFF, 0},
      {"f16", Op::mul_add, 0x0000, 0x7C00, 0x3C00, M::rne, "ieee", 0x7E00, nv},
      // exact zeros
      {"f16", Op::add, 0x3C00, 0xBC00, 0, M::rne, "ieee", 0x0000, 0},
      {"f16", Op::add, 0x3C00, 0xBC00, 0, M::down, "ieee", 0x8000, 0},
      {"f16", Op::add, 0x8000, 0x8000, 0, M::rne, "ieee", 0x8000, 0},
      {"f16", Op::mul, 0x8000, 0x3C00, 0, M::rne, "ieee", 0x8000, 0},
      // formats without NaN / inf / zero
      {"e2m1", Op::div, 0x0, 0x0, 0, M::rne, "ieee", 0x0, nv},
      {"e2m1", Op::div, 0x2, 0x0, 0, M::rne, "ieee", 0x7, of | ix | dz},
      {"e2m1", Op::sqrt, 0xA, 0, 0, M::rne, "ieee", 0x0, nv},
      {"ue8m0", Op::sub, 0x7F, 0x7F, 0, M::rne, "ieee", 0x00, uf | ix},
      {"ue8m0", Op::sub, 0x7F, 0x80, 0, M::rne, "ieee", 0xFF, nv},
      {"e4m3", Op::div, 0x38, 0x00, 0, M::rne, "ieee", 0x7F, nv | dz},
      {"e4m3", Op::div, 0x38, 0x00, 0, M::rne, "ieee", 0x7E, of | ix | dz, Saturation::finite},
      // roundToInt
      {"f16", Op::round_to_int, 0x4100, 0, 0, M::rne, "ieee", 0x4000, ix},
      {"f16", Op::round_to_int, 0x4100, 0, 0, M::rna, "ieee", 0x4200, ix},
      {"f16", Op::round_to_int, 0x4100, 0, 0, M::odd, "ieee", 0x4200, ix},
      {"f16", Op::round_to_int, 0x4100, 0, 0, M::rne, "ieee", 0x4000, 0, Saturation::none, 0, 0, false},
      {"f16", Op::round_to_int, 0xB800, 0, 0, M::rne, "ieee", 0x8000, ix},  // -0.5 -> -0
      {"e2m3", Op::round_to_int, 0x1F, 0, 0, M::rne, "ieee", 0x1F, of | ix},  // 7.5 -> 8 > maxf
      // min/max and comparisons
      {"f16", Op::minimum, 0x0000, 0x8000, 0, M::rne, "ieee", 0x8000, 0},
      {"f16", Op::maximum, 0x8000, 0x0000, 0, M::rne, "ieee", 0x0000, 0},
      {"f16", Op::minimum_number, 0x7E00, 0x3C00, 0, M::rne, "ieee", 0x3C00, 0},
      {"f16", Op::minimum_number, 0x7D00, 0x3C00, 0, M::rne, "ieee", 0x3C00, nv},
      {"f16", Op::minimum, 0x7D00, 0x3C00, 0, M::rne, "ieee", 0x7F00, nv},
      {"f16", Op::lt, 0x7E00, 0x3C00, 0, M::rne, "ieee", 0, nv},
      {"f16", Op::lt_quiet, 0x7E00, 0x3C00, 0, M::rne, "ieee", 0, 0},
      {"f16", Op::eq, 0x0000, 0x8000, 0, M::rne, "ieee", 1, 0},
      {"f16", Op::eq, 0x7D00, 0x7D00, 0, M::rne, "ieee", 0, nv},
  };
}

std::string spot_name(const Spot& s) {
  char b[160];
  std::snprintf(b, sizeof b, "%s %s(0x%llx, 0x%llx, 0x%llx) %s sat=%s nan=%s", s.format,
                std::string(op_info(s.op).name).c_str(), (unsigned long long)s.a,
                (unsigned long long)s.b, (unsigned long long)s.c,
                std::string(to_string(s.mode)).c_str(), std::string(to_string(s.sat)).c_str(),
                s.nan);
  return b;
}

TEST(ArithOracle, HandComputedCases) {
  int n = 0;
  for (const Spot& s : spots()) {
    const Format f = *find_builtin(s.format);
    OpOptions o;
    o.rounding.mode = s.mode;
    o.rounding.sat = s.sat;
    o.rounding.stochastic_bits = s.sr_bits;
    o.rounding.random = s.random;
    o.nan = &find_nan_policy(s.nan);
    o.exact_int = s.exact_int;
    const u64 ops[3] = {s.a, s.b, s.c};
    const dref::Result q = dref::apply_op(s.op, f, ops, o);
    EXPECT_EQ(q.bits, s.bits) << "opref " << spot_name(s);
    EXPECT_EQ(q.flags, s.flags) << "opref " << spot_name(s);
    const reference::OracleResult m = reference::apply_op(s.op, f, ops, o);
    EXPECT_EQ(m.bits, s.bits) << "mpfr " << spot_name(s);
    EXPECT_EQ(m.flags, s.flags) << "mpfr " << spot_name(s);
    const Rounded e = apply_op(s.op, f, ops, o);
    EXPECT_EQ(e.bits, s.bits) << "emu " << spot_name(s);
    EXPECT_EQ(e.flags.bits, s.flags) << "emu " << spot_name(s);
    ++n;
  }
  std::printf("[ arith ] %d hand-computed cases\n", n);
}

TEST(ArithOracle, SupportedFormats) {
  for (const char* name : {"f16", "bf16", "tf32", "f32", "e4m3", "e5m2", "e2m1", "ue8m0"})
    EXPECT_TRUE(dref::supports_format(*find_builtin(name))) << name;
  EXPECT_FALSE(dref::supports_format(*find_builtin("f64")));
  Rounding r;
  r.mode = M::stochastic_a;
  r.stochastic_bits = 27;
  EXPECT_TRUE(dref::supports(*find_builtin("f32"), r));
  r.stochastic_bits = 28;
  EXPECT_FALSE(dref::supports(*find_builtin("f32"), r));
}

// double_arith's fast rounding (round_normal, on the double's bits) against double_convert's
// round_finite, on random doubles around every binade of each format, both signs, every
// deterministic mode, with FTZ and tininess variants (which the fast path must leave alone).
TEST(ArithOracle, FastRoundingAgreesWithRoundFinite) {
  u64 n = 0, fast = 0;
  Rng rng(7);
  for (const Format& f : builtin_formats()) {
    if (!dref::supports_format(f)) continue;
    const int m = f.man_bits, emin = (f.subnormals ? 1 : 0) - f.bias;
    const int lo = emin - m - 3, hi = (1 << f.exp_bits) - f.bias + 2;
    for (M mode : {M::rne, M::rna, M::rtz, M::up, M::down, M::odd})
      for (int variant = 0; variant < 2; ++variant) {
        OpOptions o;
        o.rounding.mode = mode;
        o.rounding.ftz = variant == 1;
        o.rounding.tininess = variant == 1 ? Tininess::before_rounding : Tininess::after_rounding;
        o.rounding.sat = variant == 1 ? Saturation::finite : Saturation::none;
        const dref::Context ctx(f, o);
        const dref::Target t = dref::make_target(f);
        for (int i = 0; i < 20000; ++i) {
          const int e = lo + static_cast<int>(rng.below(static_cast<u64>(hi - lo + 1)));
          u64 sig = rng.next() >> 11;  // 53 random bits
          switch (rng.below(4)) {     // ties, near ties, exact values, random
            case 0: sig &= ~((u64{1} << (52 - m - 1)) - 1); break;
            case 1: sig = (sig | (u64{1} << (52 - m - 1))) & ~((u64{1} << (52 - m - 1)) - 1); sig |= 1; break;
            case 2: sig &= ~((u64{1} << (52 - m)) - 1); break;
            default: break;
          }
          const double mag = std::ldexp(static_cast<double>(sig | (u64{1} << 52)), e - 52);
          const bool neg = f.is_signed && rng.below(2);
          dref::Result fr;
          if (ctx.round_normal(mag, neg, fr, mode)) ++fast;
          const dref::Result a = ctx.round_value(neg ? -mag : mag);
          const dref::Result b = dref::round_finite(t, mag, neg, o.rounding);
          ++n;
          ASSERT_TRUE(a.bits == b.bits && a.flags == b.flags)
              << f.name << " " << std::hexfloat << (neg ? -mag : mag) << " "
              << describe(o) << ": fast 0x" << std::hex << a.bits << " flags " << +a.flags
              << ", round_finite 0x" << b.bits << " flags " << +b.flags;
        }
      }
  }
  std::printf("[ arith ] %llu roundings, %llu on the fast path\n", (unsigned long long)n,
              (unsigned long long)fast);
  EXPECT_GT(fast, n / 4);
}

// The row form (apply_row, the exhaustive sweeps' oracle) against apply pair by pair: every
// row of the <= 8-bit formats, and rows of f16, bf16 and e5m10 chosen for their specials
// (zeros, infinities, signaling and quiet NaNs of both signs), subnormals, the smallest and
// largest normals and ordinary values; add, sub, mul, div (and minimum, which goes pair by
// pair) under every deterministic configuration (modes x saturations, FTZ/DAZ/tininess
// variants, NaN policies rotating), in chunks of odd lengths (the vector loop's tails).
TEST(ArithOracle, RowFormEqualsPairByPair) {
  std::vector<std::string> names = {"f16", "bf16", "e5m10"};
  for (const Format& f : builtin_formats())
    if (f.width() <= 8 && dref::supports_format(f)) names.push_back(f.name);
  std::atomic<u64> pairs{0}, bad{0};
  std::mutex mu;
  std::string first;
  for (const std::string& name : names) {
    const Format f = parse_format(name);
    const auto cfgs = opref_supported(f, configs(true, true, 0, /*stochastic=*/false));
    std::vector<u64> rows;
    if (f.width() <= 8) {
      for (u64 a = 0; a <= f.code_mask(); ++a) rows.push_back(a);
    } else {
      const u64 sm = f.sign_mask(), one_exp = u64(f.bias) << f.man_bits;
      for (u64 c : {u64{0}, sm, u64{1}, sm | 3, (u64{1} << f.man_bits) - 1, u64{1} << f.man_bits,
                    f.max_finite_code(), f.max_finite_code() | sm, one_exp, one_exp | sm | 1,
                    f.inf_code(false), f.inf_code(true), f.nan_code(false), f.nan_code(true),
                    f.inf_code(false) | 1, f.inf_code(true) | 5, one_exp - (u64{3} << f.man_bits) + 77})
        rows.push_back(c & f.code_mask());
    }
    const u64 ncodes = f.code_mask() + 1;
    const std::size_t chunk = f.width() <= 8 ? 97 : 1021;
    parallel_for(cfgs.size() * rows.size(), 1, [&](u64 lo, u64 hi) {
      std::vector<std::uint32_t> got(ncodes);
      for (u64 j = lo; j < hi; ++j) {
        const OpOptions& o = cfgs[j / rows.size()];
        const u64 a = rows[j % rows.size()];
        const dref::Context ctx(f, o);
        ASSERT_TRUE(ctx.has_rows());
        for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::minimum}) {
          for (u64 b0 = 0; b0 < ncodes; b0 += chunk)
            ctx.apply_row(op, a, b0, std::min<u64>(chunk, ncodes - b0), got.data() + b0);
          u64 nb = 0;
          for (u64 b = 0; b < ncodes; ++b) {
            const u64 ops[3] = {a, b, 0};
            const std::uint32_t want = dref::Context::pack(ctx.apply(op, ops));
            if (got[b] == want) continue;
            if (nb++ == 0) {
              std::lock_guard<std::mutex> g(mu);
              if (first.empty())
                first = case_text(op, f, ops, o, "row", {got[b] & 0xFFFFu, std::uint8_t(got[b] >> 16)},
                                  "pair", {want & 0xFFFFu, std::uint8_t(want >> 16)});
            }
          }
          pairs += ncodes;
          bad += nb;
        }
      }
    });
  }
  std::printf("[ arith ] %llu pairs, row form vs pair by pair: %llu mismatches\n",
              (unsigned long long)pairs.load(), (unsigned long long)bad.load());
  EXPECT_EQ(bad.load(), 0u) << first;
  // Out of range and formats without the decode table.
  const dref::Context c16(*find_builtin("f16"), OpOptions{});
  std::uint32_t out[4];
  EXPECT_THROW(c16.apply_row(Op::add, 0x10000, 0, 1, out), std::out_of_range);
  EXPECT_THROW(c16.apply_row(Op::add, 0, 0xFFFE, 3, out), std::out_of_range);
  const dref::Context c32(*find_builtin("f32"), OpOptions{});
  EXPECT_FALSE(c32.has_rows());
  EXPECT_THROW(c32.apply_row(Op::add, 0, 0, 1, out), std::logic_error);
}

// The harness reports a wrong emu result for every config it affects.
TEST(ArithOracle, HarnessNoticesMismatches) {
  const Format f = *find_builtin("e4m3");
  const auto cfgs = configs(false, false);
  auto gen = [](u64 i, u64* o) {
    o[0] = i >> 8;
    o[1] = i & 0xFF;
  };
  EmuHook flip = [](Op, const u64* ops, Outcome& r) {
    if (ops[0] == 0x38 && ops[1] == 0x40) r.bits ^= 1;
  };
  for (Oracle oracle : {Oracle::mpfr, Oracle::opref}) {
    const auto cf = oracle == Oracle::opref ? opref_supported(f, cfgs) : cfgs;
    const Stats s = check(Op::add, f, cf, 1u << 16, gen, oracle, false, true, 4096, flip);
    EXPECT_EQ(s.bad, cf.size());
    ASSERT_FALSE(s.examples.empty());
    EXPECT_NE(s.examples[0].second.find("add(0x38, 0x40)"), std::string::npos)
        << s.examples[0].second;
  }
}

}  // namespace
