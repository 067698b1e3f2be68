// Scalar operations in every built-in format of <= 8 bits, exhaustively over operands:
//   - add, sub, mul, div: every operand pair, under every rounding mode (the stochastic ones
//     with two bit counts each and per-case random bits) x every saturation, plus each mode
//     once more with a non-default ftz/daz/tininess combination; NaN policies in rotation;
//   - sqrt, roundToInt (exact and not): every input, same configurations;
//   - minimum, maximum, minimumNumber, maximumNumber: every pair, each NaN policy, DAZ on/off;
//   - the six comparisons: every pair, DAZ on/off;
//   - mulAdd: every triple of the <= 6-bit formats vs MPFR (every mode, default saturation,
//     plus the subnormal variants); every triple of the 8-bit formats vs double_arith in rne
//     (all modes and saturations: label "exhaustive", arith_exhaustive_test.cpp).
// emu is checked against the MPFR oracle; double_arith.hpp is checked against MPFR on the same
// cases wherever it applies (its validation).
#include <gtest/gtest.h>

#include "arith_common.hpp"

namespace {

using namespace arithtest;

std::vector<std::string> narrow_formats() {
  std::vector<std::string> v;
  for (const Format& f : builtin_formats())
    if (f.width() <= 8) v.push_back(f.name);
  return v;
}

class ArithNarrow : public ::testing::TestWithParam<std::string> {};

TEST_P(ArithNarrow, BinaryRoundedOpsAllPairs) {
  const Format f = *find_builtin(GetParam());
  const u64 n = u64{1} << (2 * f.width());
  const int w = f.width();
  const auto cfgs = configs(true, true);
  for (Op op : {Op::add, Op::sub, Op::mul, Op::div}) {
    const Stats s = check(op, f, cfgs, n,
                          [w](u64 i, u64* o) {
                            o[0] = i >> w;
                            o[1] = i & ((u64{1} << w) - 1);
                          },
                          Oracle::mpfr);
    report(f.name + " " + std::string(op_info(op).name) + " all pairs x " +
               std::to_string(cfgs.size()) + " cfg",
           s, Oracle::mpfr);
  }
}

TEST_P(ArithNarrow, UnaryOpsAllInputs) {
  const Format f = *find_builtin(GetParam());
  const u64 n = u64{1} << f.width();
  auto cfgs = configs(true, true);
  auto gen = [](u64 i, u64* o) { o[0] = i; };
  report(f.name + " sqrt all inputs", check(Op::sqrt, f, cfgs, n, gen, Oracle::mpfr),
         Oracle::mpfr);
  report(f.name + " roundToInt all inputs", check(Op::round_to_int, f, cfgs, n, gen, Oracle::mpfr),
         Oracle::mpfr);
  for (auto& o : cfgs) o.exact_int = false;
  report(f.name + " roundToInt (not exact) all inputs",
         check(Op::round_to_int, f, cfgs, n, gen, Oracle::mpfr), Oracle::mpfr);
}

TEST_P(ArithNarrow, MinMaxAndComparisonsAllPairs) {
  const Format f = *find_builtin(GetParam());
  const int w = f.width();
  const u64 n = u64{1} << (2 * w);
  auto gen = [w](u64 i, u64* o) {
    o[0] = i >> w;
    o[1] = i & ((u64{1} << w) - 1);
  };
  const auto mm = minmax_configs();
  for (Op op : {Op::minimum, Op::maximum, Op::minimum_number, Op::maximum_number})
    report(f.name + " " + std::string(op_info(op).name) + " all pairs",
           check(op, f, mm, n, gen, Oracle::mpfr), Oracle::mpfr);
  std::vector<OpOptions> cmp(2);
  cmp[1].rounding.daz = true;
  for (Op op : {Op::eq, Op::le, Op::lt, Op::eq_signaling, Op::le_quiet, Op::lt_quiet})
    report(f.name + " " + std::string(op_info(op).name) + " all pairs",
           check(op, f, cmp, n, gen, Oracle::mpfr), Oracle::mpfr);
}

TEST_P(ArithNarrow, MulAddAllTriples) {
  const Format f = *find_builtin(GetParam());
  const int w = f.width();
  const u64 mask = (u64{1} << w) - 1;
  const u64 n = u64{1} << (3 * w);
  auto gen = [w, mask](u64 i, u64* o) {
    o[0] = i >> (2 * w);
    o[1] = (i >> w) & mask;
    o[2] = i & mask;
  };
  if (w <= 6) {
    const auto cfgs = configs(false, true);
    report(f.name + " mulAdd all triples x " + std::to_string(cfgs.size()) + " cfg",
           check(Op::mul_add, f, cfgs, n, gen, Oracle::mpfr), Oracle::mpfr);
    return;
  }
  // 8-bit formats: 2^24 triples against double_arith in rne (default saturation), the NaN
  // policy chosen by the format; plus a strided sample of 2^16 triples against MPFR with every
  // configuration (which also validates double_arith on them).
  std::vector<OpOptions> rne(1);
  rne[0].nan = &policy(static_cast<int>(f.exp_bits + f.bias));
  report(f.name + " mulAdd all triples, rne",
         check(Op::mul_add, f, rne, n, gen, Oracle::opref, false, false, 1u << 16),
         Oracle::opref);
  const u64 stride = 0x10001;  // odd: visits every operand byte
  const u64 ns = scaled(1u << 13);
  report(f.name + " mulAdd 2^13 triples, all cfg",
         check(Op::mul_add, f, configs(true, true), ns,
               [&](u64 i, u64* o) { gen((i * stride * 2047) & (n - 1), o); }, Oracle::mpfr),
         Oracle::mpfr);
}

INSTANTIATE_TEST_SUITE_P(Formats, ArithNarrow, ::testing::ValuesIn(narrow_formats()),
                         [](const auto& info) { return info.param; });

}  // namespace
