// What fitting the recorded tensor-core rows must give (shared by fit_test and
// fit_exhaustive_test). The published parameters are those of Khattak & Mikaitis (arXiv
// 2512.07004; Fasi et al. 2021; MMA-Sim): L, F, the zero-term exponent (K-M's min_exp_limit:
// -132 A100, -133 H100), truncating alignment with C in the block, fp32 output RZ and fp16
// output RNE, fp8 with fp32 output cut RZ to 13 fraction bits (e8m13).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "fpconform/characterize/fit.hpp"
#include "fpconform/characterize/rows.hpp"
#include "fpconform/fdpa_spec.hpp"

namespace fpconform::characterize::fit_expect {

inline const std::string kDumps = FPCONFORM_TENSORCORE_DUMPS;
constexpr int kAnyZeroExp = INT_MAX;  // the source gives no zero-term exponent (V100)

struct Dataset {
  const char* dir;   // under tensorcore-dumps
  const char* out;   // f32 | f16
  bool c_zero;       // recorded with C = 0 (README: H100 fp8 rows with fp32 output)
  int block, frac_bits, zero_exp, acc_frac_bits;
  // Fields the rows cannot pin, each for a reason the test checks or states:
  //  block      rows of K products: every L >= K computes one block, the same sum;
  //  zero_exp   acts only on a step with a zero term and every other term below 2^zero_exp:
  //             f16/fp8 products are >= 2^-48 and an fp32 C is a multiple of 2^-149, which a
  //             grid of 2^(zero_exp - F) <= 2^-155 keeps exact; bf16/tf32 products can be
  //             that small, but random rows do not go there (the probes do);
  //  flush_*    no row needs a subnormal input or result to come out right;
  //  c placement (c_in_block, late_c, instr_k, k_order, c_last) when every C is 0;
  //  with fp16 output, everything below the 11 bits that RNE keeps (and the ties): F beyond
  //  about 2p, the alignment rounding, C in or after the block, an exact sum (structure).
  std::set<std::string> open;
  // H100 fp8 rows with fp16 output: ptxas runs fp8 mma.sync on sm_90 as two f16 HMMAs over the
  // k with k % 4 in {0, 1}, then {2, 3}, from C = +0, and an f16 HADD2 of C (the SASS; see the
  // hopper-mma preset). No paper has a model of these rows.
  bool ptxas_fp8_mma = false;
};

// For test names and failure messages (instead of the bytes of the struct).
inline void PrintTo(const Dataset& d, std::ostream* os) { *os << d.dir << " -> " << d.out; }

inline std::vector<std::string> open_for(bool c_zero, bool f16_out, bool ptxas_fp8_mma) {
  // out_sat and underflow_zero_positive: the dumps have no row that overflows or underflows
  // to zero (the H200 rows pin them for Hopper: the hopper presets)
  std::vector<std::string> open = {"block", "zero_exp", "flush_inputs", "flush_outputs", "out_sat",
                                   "underflow_zero_positive"};
  if (c_zero)
    for (const char* f : {"c_in_block", "late_c", "instr_k", "k_order", "c_last"}) open.push_back(f);
  if (f16_out)
    for (const char* f : {"frac_bits", "align"}) open.push_back(f);
  if (f16_out && !ptxas_fp8_mma)  // with C added last, C's placement in the block is moot
    for (const char* f : {"structure", "c_in_block", "late_c"}) open.push_back(f);
  return open;
}

inline Dataset dataset(const char* dir, const char* out, bool c_zero, int block, int frac_bits,
                       int zero_exp, int acc_frac_bits = -1, bool ptxas_fp8_mma = false) {
  const std::vector<std::string> open =
      open_for(c_zero, std::string(out) == "f16", ptxas_fp8_mma);
  return {dir, out, c_zero, block, frac_bits, zero_exp, acc_frac_bits, {open.begin(), open.end()},
          ptxas_fp8_mma};
}

// The published parameters as FdpaParams (zero_exp kAnyZeroExp: none, to be ignored).
inline FdpaParams published(const Dataset& d) {
  FdpaParams p;
  p.structure = FdpaStructure::fused;
  p.block = d.block;
  p.frac_bits = d.frac_bits;
  p.align = AlignRounding::truncate;
  p.zero_exp = d.zero_exp == kAnyZeroExp ? INT_MIN : d.zero_exp;
  p.c_in_block = true;
  p.acc_frac_bits = d.acc_frac_bits;
  p.out_rounding.mode = std::string(d.out) == "f32" ? RoundingMode::rtz : RoundingMode::rne;
  if (d.ptxas_fp8_mma) {
    p.instr_k = 32;
    p.k_order = KOrder::pairs_mod4;
    p.c_last = true;
  }
  return p;
}

inline std::string value_of(const FdpaParams& p, const std::string& field) {
  for (const auto& [name, value] : describe_params(p))
    if (name == field) return value;
  return "?";
}

// The fields in which two sets differ (the NaN policy aside: finite rows cannot see it).
inline std::vector<std::string> differing_fields(const FdpaParams& a, const FdpaParams& b) {
  const auto da = describe_params(a), db = describe_params(b);
  std::vector<std::string> fields;
  for (std::size_t i = 0; i < da.size(); ++i)
    if (da[i].first != "nan" && da[i].second != db[i].second) fields.push_back(da[i].first);
  return fields;
}

inline int rows_k(const RecordedRows& rows) { return static_cast<int>(rows.cases.front().a.size()); }

// Fits the dataset and checks: the published set is among the matching sets; every other
// matching set differs from it only in the fields the rows cannot pin (block only to L >= K);
// every class the probes tell apart from the published one has a probe whose answers,
// recomputed with fdpa, differ from the published model's.
inline void check_fit(const Dataset& d, std::size_t max_rows, int probe_budget) {
  RowsOptions options;
  options.out = d.out;
  options.c_zero = d.c_zero;
  RecordedRows rows = read_rows(kDumps + "/" + d.dir, options);
  ASSERT_EQ(rows.cases.size(), 5000u);
  if (rows.cases.size() > max_rows) rows.cases.resize(max_rows);
  if (d.c_zero) {
    for (const DotCase& dc : rows.cases) ASSERT_EQ(dc.c, 0u) << "the rows' C is not 0: c placement is not open";
  }
  FitOptions fo;
  fo.probe_budget = probe_budget;
  const FitResult r = fit(rows.formats(), rows.cases, fo);
  std::printf("%s -> %s: %zu rows, family %zu, %zu matching in %zu classes, %zu probes (%zu tried); "
              "fit %.2f s, probes %.2f s\n",
              d.dir, d.out, rows.cases.size(), r.family_size, r.matching.size(), r.classes.size(),
              r.probes.size(), r.probes_tried, r.fit_seconds, r.probe_seconds);
  ASSERT_FALSE(r.matching.empty());

  const FdpaParams want = published(d);
  const int k = rows_k(rows);
  std::size_t published_index = r.matching.size();
  for (std::size_t i = 0; i < r.matching.size(); ++i) {
    std::vector<std::string> diff = differing_fields(r.matching[i].params, want);
    if (d.zero_exp == kAnyZeroExp) std::erase(diff, std::string("zero_exp"));
    if (diff.empty() && published_index == r.matching.size()) published_index = i;
    for (const std::string& f : diff)
      EXPECT_TRUE(d.open.count(f)) << d.dir << " " << d.out << ": " << model_text(r.matching[i].params)
                                   << " matches but differs from the published set in " << f;
    EXPECT_TRUE(r.matching[i].params.block >= k || r.matching[i].params.block == d.block ||
                r.matching[i].params.structure != FdpaStructure::fused)
        << model_text(r.matching[i].params) << ": a block shorter than K = " << k;
  }
  ASSERT_LT(published_index, r.matching.size())
      << d.dir << " " << d.out << ": the published " << model_text(want) << " is not among the matching sets";

  // The report says why L is open (rows of K products) and ends with the first matching set.
  FitReportOptions report;
  report.rows_path = d.dir;
  const std::string text = fit_report_text(r, rows, report);
  bool block_open = false;
  for (const auto& [field, values] : field_values(r.matching)) block_open |= field == "block" && values.size() > 1;
  if (block_open)
    EXPECT_NE(text.find("  block: every L >= K = " + std::to_string(k) + " computes the rows in one block"),
              std::string::npos);
  const std::string last = "model " + model_text(r.matching.front().params) + " agrees on " +
                           std::to_string(rows.cases.size()) + "/" + std::to_string(rows.cases.size()) + " cases\n";
  EXPECT_EQ(text.substr(text.size() - last.size()), last);

  // The probes: the reported answers are fdpa's, and each class apart from the published one's
  // has a probe that separates them.
  std::size_t published_class = 0;
  for (std::size_t c = 0; c < r.classes.size(); ++c)
    for (std::size_t m : r.classes[c])
      if (m == published_index) published_class = c;
  for (const Probe& probe : r.probes)
    for (std::size_t c = 0; c < r.classes.size(); ++c) {
      if (probe.failed[c]) continue;
      const FdpaParams& rep = r.matching[r.classes[c].front()].params;
      EXPECT_EQ(fdpa(rep, rows.in, rows.out, probe.inputs.a, probe.inputs.b, probe.inputs.c), probe.answers[c]);
    }
  for (std::size_t c = 0; c < r.classes.size(); ++c) {
    if (c == published_class) continue;
    const bool told_apart = std::any_of(r.probes.begin(), r.probes.end(), [&](const Probe& p) {
      return p.failed[c] != p.failed[published_class] || p.answers[c] != p.answers[published_class];
    });
    EXPECT_TRUE(told_apart) << "class " << c << " has no probe against the published class";
  }
}

}  // namespace fpconform::characterize::fit_expect
