#include "fpconform/validate/summary.hpp"

#include <cinttypes>
#include <cstdio>

namespace fpconform::validate {
namespace {

std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

std::string hex(const Format& f, std::uint64_t code) {
  return fmt("0x%0*" PRIx64, f.hex_digits(), code);
}

std::string bucket_label(std::size_t i) {
  if (i == 0) return "0";
  if (i == 1) return "1";
  const std::uint64_t lo = 1ull << (i - 1), hi = (1ull << i) - 1;
  return fmt("%" PRIu64 "-%" PRIu64, lo, hi);
}

}  // namespace

std::string summary_text(const ValidateReport& r, const Format& out, const std::string& repro) {
  std::string s;
  for (const Comparison& c : r.comparisons) {
    s += fmt("against %s: %" PRIu64 "/%" PRIu64 " bit-exact (%.4f%%)", c.against.c_str(),
             c.bit_exact, c.total, c.total ? 100.0 * c.bit_exact / c.total : 0.0);
    if (c.same_value) s += fmt(", %" PRIu64 " more of the same value (zero sign, NaN payload)", c.same_value);
    if (c.nan_mismatch) s += fmt(", %" PRIu64 " NaN where a number is expected or back", c.nan_mismatch);
    s += "\n  ulp error:";
    for (std::size_t i = 0; i < c.ulp_histogram.size(); ++i)
      if (c.ulp_histogram[i]) s += fmt(" [%s] %" PRIu64, bucket_label(i).c_str(), c.ulp_histogram[i]);
    s += fmt("; max %" PRIu64 "\n", c.max_ulp);
    s += fmt("  relative error: max %.3e, mean %.3e\n", c.max_rel, c.mean_rel);
    if (!c.worst.empty()) s += "  worst elements:\n";
    for (const ElementDiff& d : c.worst) {
      const std::string ulp = d.ulp ? std::to_string(*d.ulp) + " ulp" : "NaN mismatch";
      s += fmt("    D[%d][%d] = %s (%.9g), expected %s (%.9g): %s, rel %.3e\n", d.row, d.col,
               hex(out, d.got).c_str(), code_value(out, d.got), hex(out, d.want).c_str(),
               code_value(out, d.want), ulp.c_str(), d.rel);
    }
    if (!c.worst.empty())
      s += fmt("  see one: %s --element %d,%d\n", repro.c_str(), c.worst[0].row, c.worst[0].col);
  }
  if (r.bound) s += r.bound->text();
  s += fmt("verdict: %s (%s against %s)\n", r.pass ? "PASS" : "FAIL", r.tolerance.c_str(),
           r.comparisons.empty() ? "?" : r.comparisons.front().against.c_str());
  return s;
}

nlohmann::json summary_json(const ValidateReport& r) {
  nlohmann::json comps = nlohmann::json::array();
  for (const Comparison& c : r.comparisons) {
    nlohmann::json worst = nlohmann::json::array();
    for (const ElementDiff& d : c.worst)
      worst.push_back({{"row", d.row}, {"col", d.col}, {"got", d.got}, {"expected", d.want},
                       {"ulp", d.ulp ? nlohmann::json(*d.ulp) : nlohmann::json(nullptr)},
                       {"rel", d.rel}});
    comps.push_back({{"against", c.against}, {"total", c.total}, {"bit_exact", c.bit_exact},
                     {"same_value", c.same_value}, {"nan_mismatch", c.nan_mismatch},
                     {"max_ulp", c.max_ulp}, {"max_rel", c.max_rel}, {"mean_rel", c.mean_rel},
                     {"ulp_histogram_log2", c.ulp_histogram}, {"worst", worst}});
  }
  nlohmann::json j = {{"pass", r.pass}, {"tolerance", r.tolerance}, {"comparisons", comps}};
  if (r.bound) {
    const BoundVerdict& v = *r.bound;
    nlohmann::json worst = nlohmann::json::array();
    for (const BoundElement& e : v.worst)
      worst.push_back({{"row", e.row}, {"col", e.col}, {"error", e.error}, {"bound", e.bound},
                       {"ratio", e.ratio}});
    j["model_bound"] = {{"bit_exact", v.bit_exact}, {"within", v.within}, {"over", v.over},
                        {"worst_ratio", v.worst_ratio}, {"worst", worst},
                        {"calc_diff", v.calc_diff}, {"sqnr_db", v.sqnr_db}, {"rel_fro", v.rel_fro}};
  }
  return j;
}

std::string mismatch_text(const LogitMismatch& m) {
  std::string s = fmt("logits: %zu rows (tokens)\n", m.rows);
  s += fmt("  |pi(x) - mu(x)| at the token: max %.4e, mean %.4e\n", m.max_prob_diff, m.mean_prob_diff);
  s += fmt("  KL(mu || pi): mean %.4e, max %.4e (row %d)\n", m.mean_kl, m.max_kl, m.worst_row);
  s += fmt("  k3 estimate at the tokens: mean %.4e\n", m.mean_k3);
  s += fmt("  log mu(x) - log pi(x): mean %.4e, mean |.| %.4e\n", m.mean_logprob_gap,
           m.mean_abs_logprob_gap);
  return s;
}

nlohmann::json mismatch_json(const LogitMismatch& m) {
  return {{"rows", m.rows}, {"max_prob_diff", m.max_prob_diff}, {"mean_prob_diff", m.mean_prob_diff},
          {"mean_kl", m.mean_kl}, {"max_kl", m.max_kl}, {"worst_row", m.worst_row},
          {"mean_k3", m.mean_k3}, {"mean_logprob_gap", m.mean_logprob_gap},
          {"mean_abs_logprob_gap", m.mean_abs_logprob_gap}, {"tokens", m.tokens},
          {"kl_per_row", m.kl_per_row}};
}

}  // namespace fpconform::validate
