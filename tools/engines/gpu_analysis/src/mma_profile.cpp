// How an MMA verdict reads: the sentence, the per-preset table, and the Characterization that
// reports::write_device_profile turns into reports/devices/<gpu>/cuda-<kernel>.*.json/.md.
#include <cctype>
#include <sstream>

#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gpu/mma_verdict.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform::gpu {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string frac(std::uint64_t a, std::uint64_t n) { return std::to_string(a) + "/" + std::to_string(n); }

const PresetAgreement* find(const MmaVerdict& v, const std::string& preset) {
  for (const auto& p : v.presets)
    if (p.preset == preset) return &p;
  return nullptr;
}

}  // namespace

std::string verdict_sentence(const MmaVerdict& v) {
  std::ostringstream s;
  const std::string on = v.kernel + " (" + v.in.name + " -> " + v.out.name + ") on " + v.device + " (cc " + v.cc + ")" +
                         (v.composition.empty() ? "" : ", each preset's unit composed as the kernel is (" + v.composition + ")");
  if (v.rows == 0) return on + ": no raw rows to compare";
  if (v.presets.empty()) return on + ": no preset models " + v.in.name + " -> " + v.out.name;
  const std::string digests = v.digest_chunks ? ", " + frac(v.digest_chunks - v.digest_mismatched, v.digest_chunks) +
                                                    " chunk digests"
                                              : "";
  if (v.matches_expected()) {
    s << on << " matches " << v.best << " bit for bit (" << frac(v.best_agreed, v.rows) << " rows" << digests << ")";
  } else if (v.best_exact()) {
    s << on << " matches " << v.best << " bit for bit (" << frac(v.best_agreed, v.rows) << " rows" << digests << ")";
    if (!v.expected.empty()) s << ", NOT the expected " << join(v.expected, ", ");
  } else {
    s << on << ": no preset reproduces every row; best " << v.best << " (" << frac(v.best_agreed, v.rows) << " rows"
      << digests << ")";
  }
  for (const auto& e : v.expected)
    if (const auto* p = find(v, e); p && e != v.best && p->spec != find(v, v.best)->spec)
      s << "; expected " << e << ": " << frac(p->agreed, v.rows);
  for (const auto& m : v.expected_missing)
    s << "; expected " << m << " has no model for " << v.in.name << " -> " << v.out.name;
  if (v.fitted) {
    if (v.fit_spec.empty())
      s << ". The passive fit on " << v.fit_rows << " rows found no parameter set of the family";
    else
      s << ". The passive fit on " << v.fit_rows << " rows (" << v.fit_matching << " matching sets) proposes "
        << v.fit_spec << ", which agrees on " << frac(v.fit_agreed, v.rows) << " rows";
  }
  return s.str() + ".";
}

std::string to_string(const MmaVerdict& v) {
  std::ostringstream s;
  s << verdict_sentence(v) << "\n  jobs: " << join(v.jobs, ", ") << "\n";
  for (const auto& p : v.presets) {
    s << "  " << (p.expected ? "* " : "  ") << p.preset;
    for (std::size_t i = p.preset.size(); i < 14; ++i) s << ' ';
    s << frac(p.agreed, v.rows) << (p.agreed == v.rows ? "  bit-exact" : "");
    if (!p.same_as.empty()) s << "  (= " << p.same_as << ")";
    s << "\n";
  }
  for (const auto& c : v.counterexamples) {
    s << "  differs from " << v.best << ":" << std::hex;
    for (auto x : c.a) s << ' ' << x;
    s << " |";
    for (auto x : c.b) s << ' ' << x;
    s << " | " << c.c << " | gpu " << c.d << std::dec << "\n";
  }
  return s.str();
}

characterize::Characterization mma_characterization(const MmaVerdict& v) {
  characterize::Characterization c;
  c.target = "cuda:" + v.kernel;
  c.in = v.in;
  c.out = v.out;
  c.validated = v.rows;
  c.counterexamples = v.counterexamples;
  const bool use_fit = !v.best_exact() && !v.fit_spec.empty();
  if (use_fit) {
    c.model = parse_model(v.fit_spec, v.in, v.out, "fit");
    c.model_spec = v.fit_spec;
    c.agreed = v.fit_agreed;
  } else if (!v.best.empty()) {
    c.model = find_matrix_unit(v.best, v.in, v.out);
    c.model_spec = v.best;
    c.agreed = v.best_agreed;
  }
  if (use_fit) c.counterexamples.clear();  // they were the best preset's, not the fit's
  c.expressible = c.agreed == c.validated && c.validated > 0;
  c.verdict = verdict_sentence(v);
  for (const auto& p : v.presets) {
    characterize::ProbeEvidence e;
    e.probe = "preset " + p.preset;
    e.finding = frac(p.agreed, v.rows) + " rows" + (p.agreed == v.rows ? " (bit-exact)" : "");
    e.proves = std::string(p.expected ? "expected for this instruction on cc " + v.cc + "; " : "") + p.spec +
               (p.same_as.empty() ? "" : " (= " + p.same_as + ")") + "; jobs " + join(v.jobs, ", ") + " on " +
               v.device;
    c.evidence.push_back(std::move(e));
  }
  if (!v.composition.empty())
    c.evidence.push_back({"composition", v.composition,
                          "how the kernel uses the unit over k (cuda_kernel_composition): every preset above "
                          "was run so composed, and the model is the unit inside it",
                          {}});
  if (v.digest_chunks) {
    c.evidence.push_back({"digests", frac(v.digest_chunks - v.digest_mismatched, v.digest_chunks) + " chunks agree",
                          "chunk digests of generated cases beyond the raw rows, recomputed with " + v.best, {}});
  }
  if (v.fitted)
    c.evidence.push_back({"passive fit", v.fit_spec.empty() ? "no parameter set" : v.fit_spec,
                          std::to_string(v.fit_rows) + " rows (failing rows of " + v.best + " first), " +
                              std::to_string(v.fit_matching) + " matching sets; the answer agrees on " +
                              frac(v.fit_agreed, v.rows) + " rows",
                          {}});
  return c;
}

std::string mma_summary_markdown(std::span<const MmaVerdict> verdicts) {
  std::ostringstream md;
  md << "# MMA verdicts" << (verdicts.empty() ? "" : ": " + verdicts[0].device + " (cc " + verdicts[0].cc + ")")
     << "\n\nEach kernel's raw rows run through every NVIDIA preset of `fpconform models` (bit-exact "
        "agreement counted per row); `*` marks the preset expected for the instruction on this compute "
        "capability. Written by `fpconform gpu-analyze`.\n\n"
     << "| kernel | formats | rows | expected | best | agreed | verdict |\n|---|---|---|---|---|---|---|\n";
  for (const auto& v : verdicts) {
    const std::string verdict = v.matches_expected() ? "matches the expected preset"
                                : v.best_exact()     ? "matches another preset"
                                : v.fit_agreed == v.rows && !v.fit_spec.empty() ? "fit: `" + v.fit_spec + "`"
                                                                                  : "no model";
    md << "| " << v.kernel << " | " << v.in.name << " -> " << v.out.name << " | " << v.rows << " | "
       << (v.expected.empty() ? "-" : join(v.expected, ", ")) << " | " << (v.best.empty() ? "-" : v.best + (v.composition.empty() ? "" : " (" + v.composition + ")")) << " | "
       << frac(v.best_agreed, v.rows) << " | " << verdict << " |\n";
  }
  md << "\n";
  for (const auto& v : verdicts) md << "- " << verdict_sentence(v) << "\n";
  return md.str();
}

std::string device_folder_name(std::string_view device) {
  std::string s;
  for (char ch : device) {
    const auto u = static_cast<unsigned char>(ch);
    if (std::isalnum(u) || (ch == '.' && !s.empty())) s += static_cast<char>(std::tolower(u));  // never '..'
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "unknown-gpu" : s;
}

}  // namespace fpconform::gpu
