// Label "exhaustive": long sweeps of the scalar operations.
//   F16Bf16AllPairs/<fmt>_<op>_<mode>: all 2^32 operand pairs of f16 / bf16 for add, sub, mul,
//     div under rne, rna, rtz, up, down, odd, emu's SmallFormatOp (the fast path; identical to
//     apply_op on every 8-bit pair, emu_tests) vs double_arith.hpp (the MPFR oracle would
//     take ~1 core-hour per (format, op, mode); double_arith is checked against it on tens of
//     millions of cases in the default suite).
//   MulAdd8Bit/<fmt>: all 2^24 triples of each 8-bit format under every configuration (modes,
//     stochastic bit counts capped at 51 - p, saturations, ftz/daz/tininess variants, NaN
//     policies), emu vs double_arith.
//   MulAdd6Bit/<fmt>: all triples of e3m2, e2m3, e2m1 under every configuration vs MPFR.
//   F32Patterns/<op>: 10^7 f32 cases per op (7*10^6 pattern pairs of TestFloat-level-2 style,
//     near-cancellation and random tuples), one configuration each, emu vs MPFR.
// FPCONFORM_EXHAUSTIVE_STRIDE=k checks 2^32/k pairs of the 2^32 sweeps only (timing runs): the
// rows a = j*k mod 2^16 (k made odd), every b in each. The 2^32 sweeps run both sides in their
// row forms (SmallFormatOp::row, dref::Context::apply_row).
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

// Rows (a fixed, every b) through both sides' row forms: SmallFormatOp::row and
// dref::Context::apply_row, each the same results as its pair-by-pair call (emu_tests and
// ArithOracle.RowFormEqualsPairByPair check that), codes and flags compared.
Stats check_rows(Op op, const Format& f, const OpOptions& o, const std::vector<u64>& rows) {
  const auto t0 = std::chrono::steady_clock::now();
  const SmallFormatOp fast(f, op, o);
  const dref::Context ctx(f, o);
  const u64 ncodes = f.code_mask() + 1;
  std::mutex mu;
  Stats total;
  parallel_for(rows.size(), 1, [&](u64 lo, u64 hi) {
    constexpr u64 kChunk = 1024;
    std::uint32_t got[kChunk], want[kChunk];
    Stats st;
    for (u64 r = lo; r < hi; ++r) {
      const u64 a = rows[r];
      for (u64 b0 = 0; b0 < ncodes; b0 += kChunk) {
        const std::size_t n = static_cast<std::size_t>(std::min(kChunk, ncodes - b0));
        fast.row(a, b0, n, got);
        ctx.apply_row(op, a, b0, n, want);
        for (std::size_t j = 0; j < n; ++j) {
          if (got[j] == want[j]) continue;
          ++st.bad;
          if (st.examples.size() < 20) {
            const u64 ops[3] = {a, b0 + j, 0};
            st.examples.emplace_back(
                (a << 16) | (b0 + j),
                case_text(op, f, ops, o, "emu", {got[j] & 0xFFFFu, std::uint8_t(got[j] >> 16)},
                          "opref", {want[j] & 0xFFFFu, std::uint8_t(want[j] >> 16)}));
          }
        }
        st.cases += n;
      }
    }
    std::lock_guard<std::mutex> g(mu);
    total.merge(st);
  });
  total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return total;
}

TEST_P(F16Bf16AllPairs, VsOpReference) {
  const PairParam& p = GetParam();
  const Format f = *find_builtin(p.format);
  // An odd stride k checks the rows a = j * k mod 2^16, j < ceil(2^16 / k): distinct rows
  // spread over the code space, every b in each.
  u64 stride = env_u64("FPCONFORM_EXHAUSTIVE_STRIDE", 1);
  if (stride > 1) stride |= 1;
  std::vector<u64> rows;
  for (u64 j = 0; j < (65536 + stride - 1) / stride; ++j) rows.push_back((j * stride) & 0xFFFF);
  OpOptions o;
  o.rounding.mode = p.mode;
  const Stats s = check_rows(p.op, f, o, rows);
  report(f.name + " " + std::string(op_info(p.op).name) + " " + std::string(to_string(p.mode)) +
             " all pairs (stride " + std::to_string(stride) + ")",
         s, Oracle::opref);
  const double scale = 65536.0 / static_cast<double>(rows.size());
  std::printf("[ arith ] %.1f M pairs/s on %u threads; all 2^32: %.0f s\n",
              static_cast<double>(s.cases) / s.seconds / 1e6, threads(), s.seconds * scale);
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
