// SmallFormatOp (the fast path) against apply_op (the clear path): every operand pair of the
// 8-bit formats under every option combination that changes a path, and samples of f16/bf16.
// The clear path itself is checked against MPFR and hardware elsewhere.
#include <gtest/gtest.h>

#include <random>

#include "fpconform/core/error.hpp"
#include "fpconform/fast_arith.hpp"
#include "fpconform/core/nan_policy.hpp"

namespace fpconform {
namespace {

const Op kOps[] = {Op::add, Op::sub, Op::mul, Op::div};
const RoundingMode kModes[] = {RoundingMode::rne, RoundingMode::rna, RoundingMode::rtz,
                               RoundingMode::up, RoundingMode::down, RoundingMode::odd,
                               RoundingMode::stochastic_a};

// Every mode plain, and the variants that change a path (saturation, FTZ with tininess
// before rounding, DAZ) under rne and down.
std::vector<OpOptions> option_sets() {
  std::vector<OpOptions> out;
  for (RoundingMode m : kModes)
    for (int variant = 0; variant < 4; ++variant) {
      if (variant > 0 && m != RoundingMode::rne && m != RoundingMode::down) continue;
      OpOptions o;
      o.rounding.mode = m;
      o.rounding.stochastic_bits = 3;
      o.rounding.random = 5;
      o.rounding.sat = variant == 1 ? Saturation::finite : Saturation::none;
      o.rounding.ftz = variant == 2;
      o.rounding.daz = variant == 3;
      o.rounding.tininess = variant == 2 ? Tininess::before_rounding : Tininess::after_rounding;
      out.push_back(o);
    }
  return out;
}

void expect_same(const SmallFormatOp& fast, const Format& f, Op op, const OpOptions& o,
                 std::uint64_t a, std::uint64_t b) {
  const std::uint64_t ops[3] = {a, b, 0};
  const Rounded want = apply_op(op, f, ops, o);
  const Rounded got = fast(a, b);
  ASSERT_TRUE(want.bits == got.bits && want.flags == got.flags)
      << f.name << " " << op_info(op).name << " " << to_string(o.rounding.mode) << " sat "
      << to_string(o.rounding.sat) << " ftz " << o.rounding.ftz << " daz " << o.rounding.daz
      << std::hex << ": " << a << " " << b << " -> fast " << got.bits << "/"
      << int(got.flags.bits) << ", clear " << want.bits << "/" << int(want.flags.bits);
}

TEST(SmallFormatOp, AllPairsOfNarrowFormats) {
  std::uint64_t n = 0;
  for (const Format& f : builtin_formats()) {
    if (f.width() > 8) continue;
    for (Op op : kOps)
      for (const OpOptions& o : option_sets()) {
        const SmallFormatOp fast(f, op, o);
        for (std::uint64_t a = 0; a <= f.code_mask(); ++a)
          for (std::uint64_t b = 0; b <= f.code_mask(); ++b, ++n) {
            expect_same(fast, f, op, o, a, b);
            if (HasFatalFailure()) return;
          }
      }
  }
  std::printf("%llu pairs checked\n", static_cast<unsigned long long>(n));
}

TEST(SmallFormatOp, SampledSixteenBitFormats) {
  std::mt19937_64 rng(7);
  for (const char* name : {"f16", "bf16", "e5m10", "binary16p11se"}) {
    const Format f = parse_format(name);
    for (Op op : kOps)
      for (const OpOptions& o : option_sets()) {
        const SmallFormatOp fast(f, op, o);
        for (int i = 0; i < 10000; ++i) {
          const std::uint64_t a = rng() & f.code_mask();
          // Half the cases with close exponents (cancellation, ties), half anywhere.
          std::uint64_t b = rng() & f.code_mask();
          if (i & 1) b = (a & ~std::uint64_t{0x3FF}) ^ (rng() & 0x83FF);
          expect_same(fast, f, op, o, a, b & f.code_mask());
          if (HasFatalFailure()) return;
        }
      }
  }
}

// The row form (the exhaustive sweeps) against the pair-by-pair call: every row of the 8-bit
// formats and sampled rows of f16/bf16 (specials, subnormals, extremes, random), every op and
// option set, in chunks of odd lengths; out-of-range codes throw as the pair call does.
TEST(SmallFormatOp, RowEqualsPairByPair) {
  std::mt19937_64 rng(11);
  std::uint64_t n = 0;
  for (const char* name : {"e4m3", "e5m2", "e2m1", "ue8m0", "f16", "bf16"}) {
    const Format f = parse_format(name);
    const std::uint64_t ncodes = f.code_mask() + 1;
    std::vector<std::uint64_t> rows;
    if (f.width() <= 8) {
      for (std::uint64_t a = 0; a < ncodes; ++a) rows.push_back(a);
    } else {
      for (std::uint64_t c : {std::uint64_t{0}, f.sign_mask(), std::uint64_t{1}, f.max_finite_code(),
                              f.max_finite_code() | f.sign_mask(), f.min_normal_code(),
                              f.inf_code(false), f.inf_code(true), f.nan_code(false),
                              f.inf_code(true) | 1})
        rows.push_back(c);
      for (int i = 0; i < 4; ++i) rows.push_back(rng() & f.code_mask());
    }
    const std::size_t chunk = f.width() <= 8 ? 61 : 4093;
    std::vector<std::uint32_t> got(ncodes);
    for (Op op : kOps)
      for (const OpOptions& o : option_sets()) {
        const SmallFormatOp fast(f, op, o);
        for (std::uint64_t a : rows) {
          for (std::uint64_t b0 = 0; b0 < ncodes; b0 += chunk)
            fast.row(a, b0, std::min<std::uint64_t>(chunk, ncodes - b0), got.data() + b0);
          for (std::uint64_t b = 0; b < ncodes; ++b, ++n) {
            const Rounded want = fast(a, b);
            const std::uint32_t w = static_cast<std::uint32_t>(want.bits) |
                                    (static_cast<std::uint32_t>(want.flags.bits) << 16);
            ASSERT_EQ(got[b], w) << f.name << " " << op_info(op).name << " "
                                 << to_string(o.rounding.mode) << std::hex << " " << a << " " << b;
          }
        }
      }
  }
  std::printf("%llu pairs checked\n", static_cast<unsigned long long>(n));
  const SmallFormatOp fast(parse_format("e4m3"), Op::add, {});
  std::uint32_t out[4];
  EXPECT_THROW(fast.row(0x100, 0, 1, out), Error);
  EXPECT_THROW(fast.row(0, 0xFE, 4, out), Error);
}

TEST(SmallFormatOp, RejectsWhatItDoesNotServe) {
  EXPECT_THROW(SmallFormatOp(parse_format("f32"), Op::add, {}), Error);
  EXPECT_THROW(SmallFormatOp(parse_format("f16"), Op::sqrt, {}), Error);
  const SmallFormatOp fast(parse_format("e4m3"), Op::add, {});
  EXPECT_THROW(fast(0x100, 0), Error);  // bits above the width: apply_op's error
}

// The NaN table: every NaN code of f16 and bf16 (signaling and quiet, both signs, every
// payload) on either side of every op, against a spread of non-NaN operands (zeros, subnormals,
// normals, max, inf) and against NaNs, under each NaN policy.
TEST(SmallFormatOp, NanOperandsUnderEveryPolicy) {
  std::uint64_t n = 0;
  for (const char* name : {"f16", "bf16"}) {
    const Format f = *find_builtin(name);
    std::vector<std::uint64_t> others;
    for (std::uint64_t c = 0; c <= f.code_mask(); c += 97) others.push_back(c);
    for (std::uint64_t c : {std::uint64_t{0}, f.sign_mask(), std::uint64_t{1}, f.max_finite_code(),
                            f.inf_code(false), f.inf_code(true), f.nan_code(false)})
      others.push_back(c);
    for (const char* policy : {"ieee", "x86", "arm-default-nan", "riscv", "nvidia"}) {
      OpOptions o;
      o.nan = &find_nan_policy(policy);
      for (Op op : kOps) {
        const SmallFormatOp fast(f, op, o);
        for (std::uint64_t a = 0; a <= f.code_mask(); ++a) {
          if (!f.is_nan_code(a)) continue;
          for (std::uint64_t b : others) {
            expect_same(fast, f, op, o, a, b);
            expect_same(fast, f, op, o, b, a);
            if (HasFatalFailure()) return;
            n += 2;
          }
        }
      }
    }
  }
  EXPECT_GT(n, 1000000u);
}

}  // namespace
}  // namespace fpconform
