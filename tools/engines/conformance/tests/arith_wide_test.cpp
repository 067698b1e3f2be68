// Scalar operations in f16, bf16 (>= 10^7 cases per binary op), tf32 and f32, sampled:
//   - emu vs double_arith.hpp (double arithmetic + round-to-odd, exact for these formats) on
//     pattern pairs in the style of TestFloat's level 2, near-cancellation pairs and random
//     codes, each case under one configuration drawn from every mode x saturation x
//     ftz/daz/tininess x NaN policy;
//   - emu vs the MPFR oracle on a stride of the same cases under every configuration, which
//     also checks double_arith against MPFR (f16 and bf16: 2*10^4 tuples x 77 configurations
//     per op; f32: 5*10^5 cases per op and tf32 2*10^5, one configuration each);
//   - sqrt and roundToInt of f16 and bf16: every input under every configuration vs
//     double_arith and under the default-saturation configurations vs MPFR; tf32 and f32:
//     patterns and random codes as above;
//   - minimum/maximum(Number) and the six comparisons: f16, bf16 10^7 cases per op (f32 2*10^6,
//     tf32 10^6), each NaN policy and DAZ on/off, vs double_arith, and a stride vs MPFR.
// FPCONFORM_ARITH_SCALE scales the sampled counts.
#include <gtest/gtest.h>

#include "arith_cases.hpp"

namespace {

using namespace arithtest;

struct WideParam {
  std::string format;
  u64 opref_cases;  // per op, vs double_arith
  u64 mpfr_tuples;  // per op, vs MPFR
  bool mpfr_all_configs;
  u64 minmax_cases;  // per min/max/comparison op, vs double_arith
};

std::vector<WideParam> wide_params() {
  return {{"f16", 10'000'000, 20'000, true, 10'000'000},
          {"bf16", 10'000'000, 20'000, true, 10'000'000},
          {"tf32", 2'000'000, 200'000, false, 1'000'000},
          {"f32", 10'000'000, 500'000, false, 2'000'000}};
}

int max_sr_bits(const Format& f) { return 51 - f.precision(); }

class ArithWide : public ::testing::TestWithParam<WideParam> {};

TEST_P(ArithWide, RoundedOps) {
  const WideParam& p = GetParam();
  const Format f = *find_builtin(p.format);
  const auto cfg_opref = configs(true, true, max_sr_bits(f));
  const auto cfg_all = configs(true, true);
  for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::mul_add}) {
    const std::string name = f.name + " " + std::string(op_info(op).name);
    const WideCases cases(f, op, scaled(p.opref_cases));
    std::printf("[ arith ] %s: %zu patterns, %llu of %llu pattern tuples, %llu near, %llu random\n",
                name.c_str(), cases.patterns(), (unsigned long long)cases.pattern_count(),
                (unsigned long long)cases.pattern_pairs(), (unsigned long long)cases.near_count(),
                (unsigned long long)(cases.size() - cases.pattern_count() - cases.near_count()));
    report(name + " vs opref", check(op, f, cfg_opref, cases.size(), cases, Oracle::opref, true),
           Oracle::opref);
    if (SmallFormatOp::supports(f, op))  // emu's fast path on the same cases
      report(name + " (SmallFormatOp) vs opref",
             check(op, f, cfg_opref, cases.size(), cases, Oracle::opref, true, true, 4096,
                   nullptr, /*emu_fast=*/true),
             Oracle::opref);
    const u64 m = scaled(p.mpfr_tuples);
    const u64 step = std::max<u64>(1, cases.size() / m) | 1;
    auto strided = [&](u64 i, u64* o) { cases((i * step) % cases.size(), o); };
    report(name + " vs mpfr", check(op, f, cfg_all, m, strided, Oracle::mpfr, !p.mpfr_all_configs),
           Oracle::mpfr);
  }
}

TEST_P(ArithWide, MinMaxAndComparisons) {
  const WideParam& p = GetParam();
  const Format f = *find_builtin(p.format);
  const auto mm = minmax_configs();
  for (Op op : {Op::minimum, Op::maximum, Op::minimum_number, Op::maximum_number, Op::eq, Op::le,
                Op::lt, Op::eq_signaling, Op::le_quiet, Op::lt_quiet}) {
    const std::string name = f.name + " " + std::string(op_info(op).name);
    const WideCases cases(f, op, scaled(p.minmax_cases));
    report(name + " vs opref", check(op, f, mm, cases.size(), cases, Oracle::opref, true),
           Oracle::opref);
    const u64 m = scaled(p.mpfr_tuples);
    const u64 step = std::max<u64>(1, cases.size() / m) | 1;
    report(name + " vs mpfr",
           check(op, f, mm, m, [&](u64 i, u64* o) { cases((i * step) % cases.size(), o); },
                 Oracle::mpfr, true),
           Oracle::mpfr);
  }
}

TEST_P(ArithWide, UnaryOps) {
  const WideParam& p = GetParam();
  const Format f = *find_builtin(p.format);
  for (Op op : {Op::sqrt, Op::round_to_int}) {
    const std::string name = f.name + " " + std::string(op_info(op).name);
    if (f.width() <= 16) {
      const u64 n = u64{1} << f.width();
      auto gen = [](u64 i, u64* o) { o[0] = i; };
      auto cfg = configs(true, true, max_sr_bits(f));
      report(name + " all inputs vs opref", check(op, f, cfg, n, gen, Oracle::opref), Oracle::opref);
      if (op == Op::round_to_int) {
        for (auto& o : cfg) o.exact_int = false;
        report(name + " (not exact) all inputs vs opref", check(op, f, cfg, n, gen, Oracle::opref),
               Oracle::opref);
      }
      const auto cm = configs(false, true);
      report(name + " all inputs vs mpfr", check(op, f, cm, n, gen, Oracle::mpfr), Oracle::mpfr);
    } else {
      const WideCases cases(f, op, scaled(p.opref_cases));
      report(name + " vs opref",
             check(op, f, configs(true, true, max_sr_bits(f)), cases.size(), cases, Oracle::opref,
                   true),
             Oracle::opref);
      const u64 m = scaled(p.mpfr_tuples);
      const u64 step = std::max<u64>(1, cases.size() / m) | 1;
      report(name + " vs mpfr",
             check(op, f, configs(true, true), m,
                   [&](u64 i, u64* o) { cases((i * step) % cases.size(), o); }, Oracle::mpfr, true),
             Oracle::mpfr);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, ArithWide, ::testing::ValuesIn(wide_params()),
                         [](const auto& info) { return info.param.format; });

}  // namespace
