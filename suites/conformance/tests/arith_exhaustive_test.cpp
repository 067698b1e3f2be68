// Label "exhaustive": long sweeps of the scalar operations.
//   F16Bf16AllPairs/<fmt>_<op>_<mode>: all 2^32 operand pairs of f16 / bf16 for add, sub, mul,
//     div under rne, rna, rtz, up, down, odd, emu's SmallFormatOp (the fast path; identical to
//     apply_op on every 8-bit pair, emu_tests) vs op_reference.hpp (the MPFR oracle would
//     take ~1 core-hour per (format, op, mode); op_reference is checked against it on tens of
//     millions of cases in the default suite).
//   MulAdd8Bit/<fmt>: all 2^24 triples of each 8-bit format under every configuration (modes,
//     stochastic bit counts capped at 51 - p, saturations, ftz/daz/tininess variants, NaN
//     policies), emu vs op_reference.
//   MulAdd6Bit/<fmt>: all triples of e3m2, e2m3, e2m1 under every configuration vs MPFR.
//   F32Patterns/<op>: 10^7 f32 cases per op (7*10^6 pattern pairs of TestFloat-level-2 style,
//     near-cancellation and random tuples), one configuration each, emu vs MPFR.
// FPCONFORM_EXHAUSTIVE_STRIDE=k checks 2^32/k pairs of the 2^32 sweeps only (timing runs): pair
// index i*k mod 2^32 (k made odd), spread over both operands.
#include <gtest/gtest.h>

#include "arith_cases.hpp"

namespace {

using namespace arithtest;

u64 env_u64(const char* name, u64 fallback) {
  if (const char* e = std::getenv(name)) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 0);
    if (end != e && v > 0) return v;
  }
  return fallback;
}

struct PairParam {
  std::string format;
  Op op;
  RoundingMode mode;
};

std::vector<PairParam> pair_params() {
  std::vector<PairParam> v;
  for (const char* f : {"f16", "bf16"})
    for (Op op : {Op::add, Op::sub, Op::mul, Op::div})
      for (RoundingMode m : {RoundingMode::rne, RoundingMode::rna, RoundingMode::rtz,
                             RoundingMode::up, RoundingMode::down, RoundingMode::odd})
        v.push_back({f, op, m});
  return v;
}

class F16Bf16AllPairs : public ::testing::TestWithParam<PairParam> {};

TEST_P(F16Bf16AllPairs, VsOpReference) {
  const PairParam& p = GetParam();
  const Format f = *find_builtin(p.format);
  // An odd stride visits 2^32 / stride distinct pairs spread over both operands.
  u64 stride = env_u64("FPCONFORM_EXHAUSTIVE_STRIDE", 1);
  if (stride > 1) stride |= 1;
  const u64 n = ((u64{1} << 32) + stride - 1) / stride;
  std::vector<OpOptions> cfg(1);
  cfg[0].rounding.mode = p.mode;
  const Stats s = check(p.op, f, cfg, n,
                        [stride](u64 i, u64* o) {
                          const u64 j = (i * stride) & 0xFFFFFFFFu;
                          o[0] = j >> 16;
                          o[1] = j & 0xFFFF;
                        },
                        Oracle::opref, false, false, 1u << 16, nullptr, /*emu_fast=*/true);
  report(f.name + " " + std::string(op_info(p.op).name) + " " + std::string(to_string(p.mode)) +
             " all pairs (stride " + std::to_string(stride) + ")",
         s, Oracle::opref);
  std::printf("[ arith ] %.1f M pairs/s on %u threads; all 2^32: %.0f s\n",
              static_cast<double>(s.cases) / s.seconds / 1e6, threads(),
              s.seconds * static_cast<double>(stride));
}

INSTANTIATE_TEST_SUITE_P(Exhaustive, F16Bf16AllPairs, ::testing::ValuesIn(pair_params()),
                         [](const auto& info) {
                           return info.param.format + "_" +
                                  std::string(op_info(info.param.op).name) + "_" +
                                  std::string(to_string(info.param.mode));
                         });

std::vector<std::string> formats_of_width(int lo, int hi) {
  std::vector<std::string> v;
  for (const Format& f : builtin_formats())
    if (f.width() >= lo && f.width() <= hi) v.push_back(f.name);
  return v;
}

auto triple_gen(int w) {
  const u64 mask = (u64{1} << w) - 1;
  return [w, mask](u64 i, u64* o) {
    o[0] = i >> (2 * w);
    o[1] = (i >> w) & mask;
    o[2] = i & mask;
  };
}

class MulAdd8Bit : public ::testing::TestWithParam<std::string> {};

TEST_P(MulAdd8Bit, AllTriplesAllConfigsVsOpReference) {
  const Format f = *find_builtin(GetParam());
  const auto cfgs = configs(true, true, 51 - f.precision());
  const u64 n = u64{1} << (3 * f.width());
  report(f.name + " mulAdd all triples x " + std::to_string(cfgs.size()) + " cfg",
         check(Op::mul_add, f, cfgs, n, triple_gen(f.width()), Oracle::opref, false, false,
               1u << 14),
         Oracle::opref);
}

INSTANTIATE_TEST_SUITE_P(Exhaustive, MulAdd8Bit, ::testing::ValuesIn(formats_of_width(7, 8)),
                         [](const auto& info) { return info.param; });

class MulAdd6Bit : public ::testing::TestWithParam<std::string> {};

TEST_P(MulAdd6Bit, AllTriplesAllConfigsVsMpfr) {
  const Format f = *find_builtin(GetParam());
  const auto cfgs = configs(true, true);
  const u64 n = u64{1} << (3 * f.width());
  report(f.name + " mulAdd all triples x " + std::to_string(cfgs.size()) + " cfg",
         check(Op::mul_add, f, cfgs, n, triple_gen(f.width()), Oracle::mpfr), Oracle::mpfr);
}

INSTANTIATE_TEST_SUITE_P(Exhaustive, MulAdd6Bit, ::testing::ValuesIn(formats_of_width(1, 6)),
                         [](const auto& info) { return info.param; });

class F32Patterns : public ::testing::TestWithParam<Op> {};

TEST_P(F32Patterns, VsMpfr) {
  const Format f = *find_builtin("f32");
  const Op op = GetParam();
  const WideCases cases(f, op, scaled(10'000'000));
  std::printf("[ arith ] f32 %s: %llu pattern tuples (of %llu), %llu near, %llu random\n",
              std::string(op_info(op).name).c_str(), (unsigned long long)cases.pattern_count(),
              (unsigned long long)cases.pattern_pairs(), (unsigned long long)cases.near_count(),
              (unsigned long long)(cases.size() - cases.pattern_count() - cases.near_count()));
  report("f32 " + std::string(op_info(op).name) + " patterns+random",
         check(op, f, configs(true, true), cases.size(), cases, Oracle::mpfr, true),
         Oracle::mpfr);
}

INSTANTIATE_TEST_SUITE_P(Exhaustive, F32Patterns,
                         ::testing::Values(Op::add, Op::sub, Op::mul, Op::div, Op::mul_add,
                                           Op::sqrt),
                         [](const auto& info) { return std::string(op_info(info.param).name); });

}  // namespace
