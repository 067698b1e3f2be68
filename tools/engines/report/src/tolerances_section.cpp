// The tolerance table: for each matrix-unit preset (its first input format, results in f32)
// and K, the bound derived from the model (tools/engines/tolerance), the worst error the model reaches
// on random and on adversarial inputs (the exact value from the MPFR/GMP exact dot product),
// and beside them the fixed tolerances people use (torch.testing.assert_close's defaults, the
// rule proposed for fp8): whether such a rule fails the correct model, and whether it passes a
// wrong kernel, one that accumulates in bf16.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>

#include <mpfr.h>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/exact_ops.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/reference/dot.hpp"
#include "fpconform/reference/oracle.hpp"
#include "fpconform/report/report_content.hpp"
#include "fpconform/tolerance/adversarial.hpp"
#include "fpconform/tolerance/bound.hpp"

namespace fpconform::report {
namespace {

using Exact = reference::DotError;
constexpr auto exact_error = &reference::dot_error;

// A fixed tolerance: |d - e| <= atol + rtol |e| (torch.testing.assert_close's rule).
struct FixedRule {
  const char* name;
  double rtol, atol;
  bool passes(double err, double exact) const { return err <= atol + rtol * std::fabs(exact); }
};
constexpr FixedRule kBf16Rule{"bf16 default", 1.6e-2, 1e-5};
constexpr FixedRule kF16Rule{"f16 default", 1e-3, 1e-5};
constexpr FixedRule kF32Rule{"f32 default", 1.3e-6, 1e-5};
constexpr FixedRule kFp8Rule{"fp8 proposed", 1e-1, 1e-2};

// The rule a test would use for outputs of the input's type (a matmul's result has its
// inputs' dtype in PyTorch): fp8 and narrower take the rule proposed for fp8.
const FixedRule& rule_for(const Format& in) {
  if (in.width() <= 8) return kFp8Rule;
  if (in.name == "bf16") return kBf16Rule;
  if (in.name == "f16") return kF16Rule;
  return kF32Rule;
}

// The wrong kernel: a sequential chain of fmas rounded to bf16 (RNE) from d = 0, the result
// widened to f32 (exactly).
std::uint64_t bf16_chain(const Format& in, std::span<const std::uint64_t> a,
                         std::span<const std::uint64_t> b, const Format& bf16, const Format& f32) {
  Rounding rne;
  std::uint64_t d = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    d = round_to_format(exact_fma(decode(a[i], in), decode(b[i], in), decode(d, bf16)), bf16, rne).bits;
  return convert(d, bf16, f32, rne).bits;
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}
std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Random dot products per cell: fewer at large K (each costs K exact products, the model and
// the wrong kernel's K fmas).
int random_count(int k) { return k <= 128 ? 32 : k <= 1024 ? 16 : k <= 4096 ? 8 : 4; }

}  // namespace

std::vector<int> tolerance_ks() { return {32, 128, 1024, 4096, 16384}; }

reports::Section tolerances_section(const ReportRun& run) {
  const Format f32 = parse_format("f32"), bf16 = parse_format("bf16");
  const std::vector<int> ks = tolerance_ks();
  reports::Section s;
  s.id = "tolerances";
  s.title = "Tolerances: the model's bound against fixed rtol/atol";
  reports::Table t{"tolerances",
                   "Bound and errors reached per preset and K (results in f32, C = 0)",
                   {"preset", "input", "K", "alpha", "ulp term (+ beta)", "random: max err/S",
                    "random: max err/bound", "adversarial: err/S", "adversarial: err/bound",
                    "fixed rule (rtol, atol)", "fixed rule fails the correct model?",
                    "fixed rule passes a wrong kernel (bf16 accumulation)?"},
                   {}, ""};
  nlohmann::json results = nlohmann::json::array();
  std::vector<std::string> refused;
  std::set<std::string> seen;
  std::string failure;
  // Each preset's first input format (its main one), and its fp8 one (e4m3, e4m3fnuz) too,
  // fp8 being where fixed tolerances are argued about.
  std::vector<const MatrixUnitEntry*> entries;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    if (seen.insert(std::string(e.preset)).second) {
      entries.push_back(&e);
    } else if ((e.input == "e4m3" || e.input == "e4m3fnuz") && entries.back()->preset == e.preset) {
      entries.push_back(&e);
    }
  }
  for (const MatrixUnitEntry* ep : entries) {
    const MatrixUnitEntry& e = *ep;
    const std::string preset(e.preset);
    const Format in = parse_format(e.input);
    if (run.step) run.step("tolerances: " + preset + " " + std::string(e.input), true);
    FdpaParams p;
    try {
      p = find_matrix_unit(e.preset, in, f32);
    } catch (const Error& err) {
      refused.push_back(preset + " " + std::string(e.input) + " -> f32: no such output (" + err.what() + ")");
      continue;
    }
    const FixedRule& rule = rule_for(in);
    const tolerance::ErrorOf oracle = [&](std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                          std::uint64_t c, std::uint64_t d) -> std::optional<double> {
      const Exact x = exact_error(in, a, b, f32, c, f32, d);
      if (x.overflow) return std::nullopt;
      return x.err;
    };
    std::vector<tolerance::Adversarial> patterns;
    for (int k : ks) {
      tolerance::Bound bound;
      try {
        bound = tolerance::model_bound(p, in, f32, k);
      } catch (const Error& err) {
        refused.push_back(preset + " " + std::string(e.input) + " -> f32, K = " + std::to_string(k) +
                          ": the bound refuses it (" + err.what() + ")");
        break;  // the same refusal at every K
      }
      // Random inputs: standard normal values rounded to the input format (saturating).
      std::uint64_t name_hash = 14695981039346656037ull;  // FNV-1a: the same inputs on every build
      for (char ch : preset + " " + std::string(e.input)) name_hash = (name_hash ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
      std::mt19937_64 rng(run.seed * 1000003 + name_hash % 100003 + static_cast<unsigned>(k));
      std::normal_distribution<float> normal(0.0f, 1.0f);
      Rounding sat;
      sat.sat = Saturation::finite;
      double rand_rel = 0, rand_ratio = 0;
      int n = random_count(k), model_fails = 0, wrong_passes = 0, dots = 0;
      std::vector<std::uint64_t> a(k), b(k);
      for (int r = 0; r < n; ++r) {
        for (int i = 0; i < k; ++i) {
          a[i] = convert(std::bit_cast<std::uint32_t>(normal(rng)), f32, in, sat).bits;
          b[i] = convert(std::bit_cast<std::uint32_t>(normal(rng)), f32, in, sat).bits;
        }
        std::uint64_t d;
        try {
          d = fdpa(p, in, f32, a, b, 0);
        } catch (const Error&) {
          continue;
        }
        const Exact x = exact_error(in, a, b, f32, 0, f32, d);
        if (x.overflow || f32.is_nan_code(d) || f32.is_inf_code(d)) continue;
        double sm, sf;
        tolerance::magnitudes(bound, a.data(), 1, b.data(), 1, a.size(), 0, true, sm, sf);
        const double bd = bound.at(sm, sf, to_double(d, f32));
        ++dots;
        if (sm + sf > 0) rand_rel = std::max(rand_rel, x.err / (sm + sf));
        if (bd > 0) rand_ratio = std::max(rand_ratio, x.err / bd);
        if (x.err > bd) failure = preset + " K = " + std::to_string(k) + ": a random input's error exceeds the bound";
        if (!rule.passes(x.err, x.value)) ++model_fails;
        const std::uint64_t w = bf16_chain(in, a, b, bf16, f32);
        const Exact xw = exact_error(in, a, b, f32, 0, f32, w);
        if (!xw.overflow && rule.passes(xw.err, xw.value)) ++wrong_passes;
      }
      // Adversarial inputs: the uniform construction searched at K = 32 and 128 (at most K),
      // the better one, stretched to K beyond.
      tolerance::Adversarial adv;
      if (k <= 128) {
        adv = tolerance::adversarial_input(p, in, f32, k, oracle, 0);
        patterns.push_back(adv);
      } else {
        for (const auto& pat : patterns) {
          tolerance::Adversarial x = tolerance::stretch(pat, p, in, f32, k, oracle);
          if (adv.a.empty() || x.ratio > adv.ratio) adv = std::move(x);
        }
      }
      double adv_rel = 0, adv_exact = 0;
      bool adv_fails = false, have_adv = !adv.a.empty() && adv.bound > 0;
      if (have_adv) {
        double sm, sf;
        tolerance::magnitudes(bound, adv.a.data(), 1, adv.b.data(), 1, adv.a.size(), adv.c, true, sm, sf);
        const Exact x = exact_error(in, adv.a, adv.b, f32, adv.c, f32, adv.d);
        adv_rel = sm + sf > 0 ? x.err / (sm + sf) : 0;
        adv_exact = x.value;
        adv_fails = !rule.passes(x.err, x.value);
        if (adv.err > adv.bound) failure = preset + " K = " + std::to_string(k) + ": an adversarial input's error exceeds the bound";
      }
      char rule_text[64], ulp_text[64];
      std::snprintf(rule_text, sizeof rule_text, "%s (%g, %g)", rule.name, rule.rtol, rule.atol);
      std::snprintf(ulp_text, sizeof ulp_text, "%g ulp (%d bits)", bound.ulp_factor, bound.ulp_frac_bits);
      if (bound.beta > 0) std::snprintf(ulp_text + std::strlen(ulp_text), sizeof ulp_text - std::strlen(ulp_text), " + %.2g", bound.beta);
      std::string fails = have_adv ? (adv_fails ? "yes (adversarial)" : "no (adversarial)") : "n/a (adversarial)";
      fails += "; random: " + std::to_string(model_fails) + "/" + std::to_string(dots);
      const std::string passes = std::string(wrong_passes > 0 ? "yes: " : "no: ") + std::to_string(wrong_passes) +
                                 "/" + std::to_string(dots) + " random";
      t.rows.push_back({preset, std::string(e.input), std::to_string(k), sci(bound.alpha), ulp_text,
                        sci(rand_rel), fixed2(rand_ratio), have_adv ? sci(adv_rel) : "n/a",
                        have_adv ? fixed2(adv.ratio) : "n/a", rule_text, fails, passes});
      results.push_back({{"preset", preset}, {"input", std::string(e.input)}, {"output", "f32"}, {"k", k},
                         {"alpha", bound.alpha}, {"ulp_factor", bound.ulp_factor},
                         {"ulp_frac_bits", bound.ulp_frac_bits}, {"beta", bound.beta},
                         {"random_dots", dots}, {"random_max_err_over_s", rand_rel},
                         {"random_max_err_over_bound", rand_ratio}, {"adversarial", have_adv},
                         {"adversarial_err_over_s", adv_rel}, {"adversarial_err_over_bound", have_adv ? adv.ratio : 0.0},
                         {"adversarial_exact", adv_exact}, {"rule", rule.name}, {"rtol", rule.rtol},
                         {"atol", rule.atol}, {"rule_fails_model_adversarial", have_adv && adv_fails},
                         {"rule_fails_model_random", model_fails}, {"rule_passes_wrong_kernel_random", wrong_passes}});
    }
  }
  s.paragraphs.push_back(
      "For each preset (its first input format, and its fp8 e4m3 one where it has one; results in f32) and K, the bound derived from the "
      "model (`fpconform tolerance`): |D - exact| <= alpha S + ulp term (+ S_flushed), S = sum |a_i b_i| (+ |c|; a fused unit's "
      "subnormal input counts as 2^emin; S_flushed: the products a unit with DAZ flushes, which it "
      "loses whole; the err/S columns divide by S + S_flushed). Beside it "
      "the worst error the model reaches, against the MPFR/GMP exact dot product, on random inputs "
      "(standard normal values rounded to the input format, a fixed seed; 32 dot products per cell "
      "up to K = 128, 16 to K = 1024, 8 at K = 4096, 4 at K = 16384) and on an adversarial input "
      "(one large term, every other product just below one of the model's grids, searched at K = 32 "
      "and 128, the better stretched to larger K), as error / S and as error / bound. The ulp term is ulp_factor ulp_t(D), "
      "ulp_t(D) = 2^(floor(log2 |D|) - t) with t the bits shown (13: Hopper's e8m13 cut); beta, "
      "the underflow floors, where there are any (an adversarial input near the underflow range "
      "can then lose more than alpha S).");
  s.paragraphs.push_back(
      "The fixed tolerances, judged as |d - e| <= atol + rtol |e| with the rule for the input's "
      "dtype: torch.testing.assert_close's defaults (PyTorch documentation, torch.testing: "
      "bf16 rtol 1.6e-2, atol 1e-5; f16 rtol 1e-3, atol 1e-5; f32 (here also tf32 and f64) rtol "
      "1.3e-6, atol 1e-5) and, for fp8 and narrower inputs, rtol 1e-1, atol 1e-2 as proposed for "
      "float8 in pytorch/pytorch pull request #152647. \"Fails the correct model\": the model's own "
      "result on the adversarial input (and how many random ones) against the exact value. "
      "\"Passes a wrong kernel\": how many random inputs a kernel that accumulates in bf16 (a "
      "sequential chain of bf16 fmas, round to nearest even) gets through the same rule.");
  {
    // What the table shows, counted from it.
    int cells = 0, fail_model = 0, pass_wrong = 0;
    std::string first_fail;
    for (const auto& r : results) {
      ++cells;
      if (r["rule_fails_model_adversarial"].get<bool>() || r["rule_fails_model_random"].get<int>() > 0) {
        if (fail_model++ == 0) first_fail = r["preset"].get<std::string>() + " " + r["input"].get<std::string>() +
                                            " at K = " + std::to_string(r["k"].get<int>());
      }
      if (r["rule_passes_wrong_kernel_random"].get<int>() > 0) ++pass_wrong;
    }
    s.paragraphs.push_back(
        "In this table the fixed rule fails the correct model in " + std::to_string(fail_model) + " of " +
        std::to_string(cells) + " cells" + (first_fail.empty() ? "" : " (the first: " + first_fail + ")") +
        ", and lets the bf16-accumulating kernel through on at least one random input in " +
        std::to_string(pass_wrong) + " of " + std::to_string(cells) +
        " cells; " + (failure.empty() ? std::string("the model's bound holds every error reached (error / bound <= 1).")
                                      : "an error exceeds the model's bound: " + failure + "."));
  }
  if (!refused.empty()) {
    std::string text = "Not in the table: ";
    for (std::size_t i = 0; i < refused.size(); ++i) text += (i ? "; " : "") + refused[i];
    s.paragraphs.push_back(text + ".");
  }
  if (!failure.empty()) {
    s.ok = false;
    s.failure = failure;
  }
  s.tables.push_back(std::move(t));
  s.results = results;
  return s;
}

}  // namespace fpconform::report
