// characterize(): probes, synthesis, validation and refinement (see characterize.hpp).
#include "fpconform/characterize/characterize.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "fpconform/characterize/order.hpp"
#include "fpconform/characterize/probes.hpp"
#include "fpconform/characterize/synthesize.hpp"
#include "fpconform/characterize/validate.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/sum_tree.hpp"

namespace fpconform::characterize {

namespace {

std::string structure_words(const FdpaParams& p) {
  const std::string L = std::to_string(p.block);
  switch (p.structure) {
    case FdpaStructure::sequential: return "a chain of fused multiply-adds in the output format";
    case FdpaStructure::pairwise:
      return "groups of " + L + " products summed as balanced trees of IEEE additions in the output format";
    case FdpaStructure::exact:
      return p.block == 0 ? "an exact (Kulisch) sum with one rounding"
                          : "exact sums of " + L + " products and C, each rounded once";
    case FdpaStructure::tree:
      return "the reduction tree " + std::string(p.tree) + " per instruction of " +
             std::to_string(product_count(parse_sum_tree(p.tree))) +
             " products, each ( ) node one rounding into the output format, chained over longer k";
    case FdpaStructure::fused: break;
  }
  std::string s = "fused blocks of " + L + " products, aligned to " + std::to_string(p.frac_bits) +
                  " fraction bits below the largest exponent";
  s += p.c_in_block ? ", C in the block" : p.late_c ? ", C added late (two-stage)" : ", C added after the block";
  if (p.acc_frac_bits >= 0) s += ", a " + std::to_string(p.acc_frac_bits) + "-fraction-bit accumulator";
  return s;
}

std::vector<DotCase> all_cases(const std::vector<ProbeEvidence>& evidence) {
  std::vector<DotCase> v;
  for (const ProbeEvidence& e : evidence) v.insert(v.end(), e.cases.begin(), e.cases.end());
  return v;
}

}  // namespace

std::string Characterization::formats_text() const {
  return in.name + (b ? " x " + b->name : "") + " -> " + out.name;
}

Characterization characterize(Target& t, const CharacterizeOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t queries_before = t.queries();
  if (const std::string why = t.unavailable(); !why.empty()) throw Error(t.name(), why);
  auto progress = [&](std::string_view stage, const std::string& detail) {
    if (!o.progress) return;
    const double t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char at[32];
    std::snprintf(at, sizeof at, " [%.1f s]", t_s);
    o.progress(stage, detail + at);
  };
  Characterization r;
  r.target = t.name();
  r.in = t.in();
  if (t.in_b() != t.in()) r.b = t.in_b();
  r.out = t.out();
  auto finish = [&]() -> Characterization& {
    r.model_spec = model_text(r.model);
    r.queries = t.queries() - queries_before;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  };
  Prober p(t, o.seed, o.max_k);
  if (p.k_at_least(1) == 0) throw Error(t.name(), "accepts no dot-product length up to " + std::to_string(o.max_k));

  SanityResult sanity = probe_sanity(p);
  r.evidence.push_back(sanity.evidence);
  progress("probe", "sanity: " + sanity.evidence.finding);
  if (!sanity.ok) {
    r.expressible = false;
    r.verdict = sanity.reason;
    r.counterexamples = sanity.evidence.cases;
    return finish();
  }
  DeterminismResult det = probe_determinism(p);
  r.evidence.push_back(det.evidence);
  progress("probe", "determinism: " + det.evidence.finding);
  if (!det.deterministic) {
    r.deterministic = false;
    r.expressible = false;
    r.verdict = "the target is non-deterministic: " + det.evidence.finding +
                "; no model of the family (all deterministic) can reproduce it";
    r.counterexamples = det.evidence.cases;
    return finish();
  }

  // Probes, each starting from what the earlier ones found.
  FdpaParams guess;
  guess.out_rounding.mode = RoundingMode::rtz;
  FdpaParams direct;  // the guess after the direct probes (block size, F)
  for (ProbeEvidence& ev : run_feature_probes(
           p, guess, [&](const ProbeEvidence& ev) { progress("probe", ev.probe + ": " + ev.finding); },
           &direct))
    r.evidence.push_back(std::move(ev));

  // Synthesis: the search over the family on everything observed, plus random cases.
  std::vector<DotCase> training = all_cases(r.evidence);
  {
    CaseGenerator gen(t, o.seed ^ 0x7A11ull, o.max_k);
    std::vector<DotCase> extra = gen.batch(3000);
    observe(t, extra);
    training.insert(training.end(), extra.begin(), extra.end());
  }
  // Starts: the probes' model, and a fused block with what the direct probes found (the
  // discriminating probes can lead away from it when the formats are too coarse to show F).
  std::vector<FdpaParams> starts{guess};
  {
    FdpaParams fused = guess;
    fused.structure = FdpaStructure::fused;
    fused.c_in_block = true;
    fused.late_c = false;
    fused.interleave = 1;
    fused.block = std::clamp(direct.block, 1, 64);
    fused.frac_bits = direct.frac_bits;
    if (!same_params(fused, guess)) starts.push_back(fused);
  }
  SearchResult found;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    SearchResult s = search_params(starts[i], r.formats(), training);
    if (i == 0 || s.disagreements < found.disagreements) found = s;
    if (found.disagreements == 0) break;
  }
  // Beyond the fixed structures: the summation tree FPRev recovers, its nodes typed by search.
  // FPRev's tree, and its other reading where the counts fit two shapes (empty: not recovered)
  std::vector<SumTree> readings;
  bool order_tried = false;
  auto try_tree = [&](SearchResult& current) {
    if (current.disagreements == 0 || current.params.structure == FdpaStructure::tree) return;
    if (!order_tried) {
      order_tried = true;
      ProbeEvidence ev;
      ev.probe = "summation tree";
      ev.finding = "not recovered";
      // A shorter k where a longer one fails: narrow outputs have room for fewer units beside
      // M's ulp steps (rounding toward zero), and one instruction is often enough.
      for (int k = std::min(32, o.max_k); k >= 2 && readings.empty(); k /= 2) {
        while (k > 1 && !t.supports_k(k)) --k;
        if (k < 2) break;
        try {
          OrderStats stats;
          readings = recover_checked_readings(t, k, &stats);
          ev.finding = readings.front().text();
          ev.proves += (ev.proves.empty() ? "" : "; ") + std::string("FPRev with k = ") +
                       std::to_string(k) + " (" + std::to_string(stats.queries) +
                       " queries), asked because the fixed structures leave cases unexplained";
          for (const std::string& n : stats.notes) ev.proves += "; " + n;
        } catch (const Error& e) {
          ev.proves += (ev.proves.empty() ? "" : "; ") + std::string("k = ") + std::to_string(k) +
                       ": " + e.what();
        }
      }
      progress("probe", "summation tree: " + ev.finding);
      r.evidence.push_back(std::move(ev));
    }
    if (readings.empty()) return;
    SearchResult s = search_tree(current.params, readings, r.formats(), training);
    if (s.disagreements < current.disagreements) {
      s.changes.insert(s.changes.begin(), current.changes.begin(), current.changes.end());
      current = std::move(s);
    }
  };
  try_tree(found);
  progress("synthesize", model_text(found.params) + " (" + std::to_string(found.disagreements) +
                             " of " + std::to_string(training.size()) + " cases wrong)");
  r.model = found.params;
  if (const FdpaParams c = canonical_params(found.params);
      found.disagreements == 0 && count_disagreements(c, r.formats(), training, 0) == 0)
    r.model = c;
  if (!found.changes.empty()) {
    ProbeEvidence ev;
    ev.probe = "synthesis";
    ev.finding = "search changed: ";
    for (std::size_t i = 0; i < found.changes.size(); ++i) ev.finding += (i ? "; " : "") + found.changes[i];
    ev.proves = "the changes that reduce the disagreements on the " + std::to_string(training.size()) +
                " cases observed (probe cases and 3000 random ones)";
    r.evidence.push_back(ev);
  }

  // Validation on fresh cases; refinement on every failure.
  for (int round = 0;; ++round) {
    ValidationResult v = validate(t, r.model, o.validation_cases, o.seed + 1000 + static_cast<std::uint64_t>(round), o.max_k);
    r.validated = v.validated;
    r.agreed = v.agreed;
    r.counterexamples = v.failures;
    progress("validate", std::to_string(v.agreed) + " of " + std::to_string(v.validated) + " fresh cases agree");
    if (v.failures.empty() || round >= o.max_refinements) break;
    // Refine: the failures and new random cases join the evidence; search again.
    training.insert(training.begin(), v.failures.begin(), v.failures.end());
    CaseGenerator gen(t, o.seed ^ (0xF00Dull + static_cast<std::uint64_t>(round)), o.max_k);
    std::vector<DotCase> extra = gen.batch(2000);
    observe(t, extra);
    training.insert(training.end(), extra.begin(), extra.end());
    SearchResult refined = search_params(r.model, r.formats(), training);
    try_tree(refined);
    ProbeEvidence ev;
    ev.probe = "refinement " + std::to_string(round + 1);
    ev.cases = v.failures;
    ev.finding = refined.changes.empty() ? "no change reduces the disagreements" : "changed: ";
    for (std::size_t i = 0; i < refined.changes.size(); ++i) ev.finding += (i ? "; " : "") + refined.changes[i];
    ev.proves = "the model disagreed with the target on these " + std::to_string(v.failures.size()) +
                " fresh cases; searching the family on all " + std::to_string(training.size()) +
                " cases seen leaves " + std::to_string(refined.disagreements) + " wrong";
    r.evidence.push_back(ev);
    progress("refine", ev.finding);
    if (refined.changes.empty()) break;  // the search is exhausted
    r.model = refined.params;
    if (const FdpaParams c = canonical_params(refined.params);
        refined.disagreements == 0 && count_disagreements(c, r.formats(), training, 0) == 0)
      r.model = c;
  }
  if (r.counterexamples.empty()) {
    r.verdict = "reproduced: " + structure_words(r.model) + "; agrees on " + std::to_string(r.agreed) +
                " of " + std::to_string(r.validated) + " fresh random and adversarial cases";
  } else {
    r.expressible = false;
    r.verdict = "the family cannot express this unit as far as the search reaches: the best model found (" +
                model_text(r.model) + ") disagrees on " + std::to_string(r.validated - r.agreed) + " of " +
                std::to_string(r.validated) + " fresh cases, and no change of its parameters (single or "
                "paired) reproduces all cases seen; the failing cases are listed";
  }
  return finish();
}

}  // namespace fpconform::characterize
