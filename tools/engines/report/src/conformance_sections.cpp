// Conversion and arithmetic conformance: emu against the MPFR oracle.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "fpconform/arith.hpp"
#include "fpconform/conformance/conversion.hpp"
#include "fpconform/reference/arith.hpp"
#include "fpconform/report/report_content.hpp"

namespace fpconform::report {

reports::Section conversion_section(const ReportRun& run) {
  conformance::ReportOptions opt;
  opt.quick = run.quick;
  opt.seed = run.seed;
  opt.threads = run.threads;
  opt.scale_rules = false;  // a section of its own
  const auto rep = conformance::run_conversion_report(opt);
  reports::Section s;
  s.id = "conversions";
  s.title = "Conversions: emu against the MPFR oracle";
  s.paragraphs.push_back(std::to_string(rep.total_cases) + " cases (" + rep.configs + "), " +
                         std::to_string(rep.total_mismatches) + " disagree; " +
                         std::to_string(rep.rows.size()) + " source/target/mode rows.");
  reports::Table t{"conversions", "Per source, target and rounding mode",
                   {"source", "target", "mode", "inputs", "cases", "mismatches"}, {}, ""};
  t.detail = true;
  // The summary: one row per source and target, every mode together.
  reports::Table pairs{"conversion-pairs", "Per source and target (every mode and configuration)",
                       {"source", "target", "modes", "cases", "mismatches", "first counterexample"}, {}, ""};
  for (const auto& r : rep.rows) {
    t.rows.push_back({r.source, r.target, r.mode, std::to_string(r.inputs), std::to_string(r.cases),
                      std::to_string(r.mismatches)});
    if (pairs.rows.empty() || pairs.rows.back()[0] != r.source || pairs.rows.back()[1] != r.target)
      pairs.rows.push_back({r.source, r.target, "0", "0", "0", ""});
    auto& row = pairs.rows.back();
    row[2] = std::to_string(std::stoull(row[2]) + 1);
    row[3] = std::to_string(std::stoull(row[3]) + r.cases);
    row[4] = std::to_string(std::stoull(row[4]) + r.mismatches);
    if (row[5].empty() && !r.counterexamples.empty()) row[5] = r.counterexamples.front();
  }
  // A source x target map of the fraction of cases that disagree (all green when emu agrees).
  reports::HeatMap map;
  map.id = "conversion-map";
  map.title = "Conversions checked, source (rows) x target (columns)";
  map.value_label = "fraction of cases where emu and the oracle disagree";
  map.note = "Per cell: every rounding mode, saturation and subnormal configuration; the counts "
             "are in tables/conversion-pairs.csv.";
  for (const auto& row : pairs.rows) {
    auto find = [](std::vector<std::string>& v, const std::string& x) {
      const auto it = std::find(v.begin(), v.end(), x);
      if (it != v.end()) return static_cast<std::size_t>(it - v.begin());
      v.push_back(x);
      return v.size() - 1;
    };
    const std::size_t r = find(map.row_labels, row[0]), c = find(map.col_labels, row[1]);
    if (map.values.size() <= r) map.values.resize(r + 1);
    if (map.values[r].size() <= c) map.values[r].resize(c + 1, NAN);
    map.values[r][c] = static_cast<double>(std::stoull(row[4])) / static_cast<double>(std::stoull(row[3]));
  }
  for (auto& v : map.values) v.resize(map.col_labels.size(), NAN);
  s.heatmaps.push_back(std::move(map));
  pairs.detail = true;
  s.tables.push_back(std::move(pairs));
  s.tables.push_back(std::move(t));
  s.ok = rep.total_mismatches == 0;
  if (!s.ok)
    s.failure = std::to_string(rep.total_mismatches) + " of " + std::to_string(rep.total_cases) +
                " conversions disagree with the MPFR oracle (the table lists the first per pair)";
  s.results = {{"cases", rep.total_cases}, {"mismatches", rep.total_mismatches},
               {"seconds", rep.seconds}, {"quick", rep.quick}};
  return s;
}

reports::Section arithmetic_section(const ReportRun& run) {
  const char* formats[] = {"f32", "f16", "bf16", "e4m3", "e5m2", "e3m2", "e2m1"};
  const Op ops[] = {Op::add, Op::sub, Op::mul, Op::div, Op::sqrt, Op::mul_add};
  const RoundingMode modes[] = {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up,
                                RoundingMode::down, RoundingMode::rna, RoundingMode::odd};
  const int per_cell = run.quick ? 2000 : 50000;
  reports::Section s;
  s.id = "arithmetic";
  s.title = "Scalar arithmetic: emu against the MPFR oracle";
  reports::Table t{"arithmetic", "Random operands per format and operation, every mode",
                   {"format", "op", "cases", "mismatches", "first mismatch"}, {}, ""};
  std::uint64_t total = 0, bad = 0;
  std::string first_any;  // the first mismatch of all, "f16 add rne ..."
  for (const char* fname : formats) {
    const Format f = parse_format(fname);
    for (Op op : ops) {
      std::mt19937_64 rng(run.seed * 1000003 + static_cast<unsigned>(op) * 131 + f.width());
      std::uint64_t cases = 0, mismatches = 0;
      std::string first;
      for (RoundingMode m : modes) {
        OpOptions o;
        o.rounding.mode = m;
        for (int i = 0; i < per_cell; ++i) {
          const std::uint64_t x[3] = {rng() & f.code_mask(), rng() & f.code_mask(), rng() & f.code_mask()};
          const Rounded e = apply_op(op, f, x, o);
          const auto r = reference::apply_op(op, f, x, o);
          ++cases;
          if (e.bits != r.bits || e.flags.bits != r.flags) {
            ++mismatches;
            if (first.empty()) {
              char buf[160];
              std::snprintf(buf, sizeof buf, "%s %llx %llx %llx: emu %llx, oracle %llx",
                            std::string(to_string(m)).c_str(), (unsigned long long)x[0],
                            (unsigned long long)x[1], (unsigned long long)x[2],
                            (unsigned long long)e.bits, (unsigned long long)r.bits);
              first = buf;
            }
          }
        }
      }
      total += cases;
      bad += mismatches;
      if (first_any.empty() && !first.empty()) first_any = std::string(fname) + " " + std::string(op_info(op).name) + " " + first;
      t.rows.push_back({fname, std::string(op_info(op).name), std::to_string(cases),
                        std::to_string(mismatches), first});
    }
  }
  s.paragraphs.push_back(std::to_string(total) + " operations (uniformly random codes, NaNs and "
                         "infinities included, in rne, rtz, up, down, rna and odd), " +
                         std::to_string(bad) + " disagree in bits or flags. The default test "
                         "suite checks far more (every pair of the 8-bit formats, 10^7 per op "
                         "for f16/bf16/f32).");
  s.tables.push_back(std::move(t));
  s.ok = bad == 0;
  if (!s.ok) {
    s.failure = std::to_string(bad) + " of " + std::to_string(total) + " operations disagree with the MPFR oracle";
    if (!first_any.empty()) s.failure += ", first " + first_any;
  }
  s.results = {{"cases", total}, {"mismatches", bad}};
  return s;
}

}  // namespace fpconform::report
