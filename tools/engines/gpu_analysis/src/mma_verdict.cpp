// MMA results against the matrix-unit presets (mma_verdict.hpp): rows regenerated from the
// result headers, every NVIDIA preset run on them through FdpaKernel, digests of generated jobs
// checked against the best preset, and the passive fit when no preset explains every row.
#include <algorithm>
#include <stdexcept>

#include "fpconform/characterize/cuda_target.hpp"
#include "fpconform/characterize/fit.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gpu/analysis.hpp"
#include "fpconform/gpu/cases.hpp"
#include "fpconform/gpu/mma_verdict.hpp"
#include "fpconform/gpu/splitmix.hpp"
#include "fpconform/gemm.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform::gpu {

namespace {

// NVIDIA presets in the order `fpconform models` lists them (AMD units have no CUDA kernels).
constexpr std::string_view kNvidiaPresets[] = {"volta", "turing", "ampere", "ada", "hopper", "hopper-mma",
                                               "hopper-wgmma", "blackwell", "blackwell-mma", "rtx-blackwell"};

bool tf32_kernel(const KernelInfo& k) { return k.in_format == "f32"; }

// The first `n` cases of a job, as DotCases without d (a generated job's stream is sequential,
// so a job with a smaller count yields the same first cases).
std::vector<characterize::DotCase> job_cases(const Result& r, const KernelInfo& k, std::uint64_t n) {
  std::vector<std::uint32_t> inputs;
  Job job = job_from_header(r);
  if (job.input == InputMode::generated) {
    job.count = std::min(job.count, n);
    inputs = job_inputs(job, k);
  } else if (const ResultBlock* b = r.block(kBlockInputs)) {
    for (auto x : b->data) inputs.push_back(static_cast<std::uint32_t>(x));
  }
  const std::size_t per = static_cast<std::size_t>(2 * k.k + 1);
  if (inputs.size() < n * per)
    throw std::invalid_argument(r.get("job") + ": inputs for " + std::to_string(inputs.size() / per) +
                                " cases, " + std::to_string(n) + " needed");
  const int shift = tf32_kernel(k) ? 13 : 0;  // the unit reads a tf32 code's 19 bits
  std::vector<characterize::DotCase> cases(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t* row = &inputs[i * per];
    auto& c = cases[i];
    for (int j = 0; j < k.k; ++j) c.a.push_back(row[j] >> shift);
    for (int j = 0; j < k.k; ++j) c.b.push_back(row[k.k + j] >> shift);
    c.c = row[2 * k.k];
  }
  return cases;
}

std::uint64_t run_one(const FdpaKernel& kernel, const characterize::DotCase& c, bool* failed) {
  try {
    return kernel.dot(c.a, c.b, c.c);
  } catch (const Error&) {
    *failed = true;
    return 0;
  }
}

// A preset's unit as the kernel uses it: the unit itself (FdpaKernel's fast paths), or composed
// over k as cuda_kernel_composition says (gemm: split-K slices, promotion, C in the epilogue).
class KernelModel {
 public:
  KernelModel(const FdpaParams& p, const Format& in, const Format& out, const characterize::KernelComposition& comp)
      : kernel_(p, in, out), composed_(comp.composed()), in_(in), out_(out) {
    gemm_.unit = p;
    gemm_.acc = out;
    gemm_.out = out;
    gemm_.split_k = comp.split_k;
    gemm_.reduction = SplitReduction::pairwise;
    gemm_.promote_every = comp.promote_every;
    gemm_.c_in_epilogue = comp.c_in_epilogue;
  }
  std::uint64_t run(const characterize::DotCase& c, bool* failed) const {
    if (!composed_) return run_one(kernel_, c, failed);
    try {
      const int k = static_cast<int>(c.a.size());
      const Matrix a{1, k, in_, c.a}, b{k, 1, in_, c.b}, cm{1, 1, out_, {c.c}};
      return gemm(gemm_, a, b, &cm).codes[0];
    } catch (const Error&) {
      *failed = true;
      return 0;
    }
  }

 private:
  FdpaKernel kernel_;
  bool composed_;
  Format in_, out_;
  GemmOptions gemm_;
};

const KernelInfo& dot_kernel(const Result& r) {
  const KernelInfo* k = find_kernel(r.get("kernel"));
  if (!k || k->kind != KernelKind::dot) throw std::invalid_argument(r.get("job") + ": not a dot result");
  return *k;
}

}  // namespace

// One table for the probe engine's stand-in and these verdicts (tools/engines/characterize cuda_target).
std::vector<std::string> expected_presets(const KernelInfo& k, int cc) { return characterize::cuda_expected_presets(k, cc); }

Format dot_in_format(const KernelInfo& k) { return parse_format(tf32_kernel(k) ? "tf32" : std::string(k.in_format)); }
Format dot_out_format(const KernelInfo& k) { return parse_format(std::string(k.out_format)); }

std::vector<characterize::DotCase> dot_result_rows(const Result& r) {
  const KernelInfo& k = dot_kernel(r);
  const ResultBlock* out = r.block(kBlockOutputs);
  if (!out) return {};
  auto cases = job_cases(r, k, out->data.size());
  for (std::size_t i = 0; i < cases.size(); ++i) cases[i].d = out->data[i];
  return cases;
}

bool MmaVerdict::matches_expected() const {
  if (rows == 0 || digest_mismatched != 0) return false;
  for (const auto& p : presets)
    if (p.expected && p.agreed == rows) return best_exact();
  return false;
}

MmaVerdict mma_verdict(std::span<const Result> results, const MmaOptions& o) {
  if (results.empty()) throw std::invalid_argument("mma_verdict: no results");
  MmaVerdict v;
  const KernelInfo& k = dot_kernel(results[0]);
  v.kernel = std::string(k.name);
  v.device = results[0].get("device");
  v.cc = results[0].get("cc");
  v.in = dot_in_format(k);
  v.out = dot_out_format(k);
  int cc = 0;
  try {
    cc = std::stoi(v.cc);
  } catch (const std::exception&) {
    throw std::invalid_argument(results[0].get("job") + ": header cc '" + v.cc + "' is not a number");
  }
  v.expected = expected_presets(k, cc);
  const auto composition = characterize::cuda_kernel_composition(k);
  v.composition = composition.text();
  std::vector<characterize::DotCase> rows;
  for (const auto& r : results) {
    if (r.get("kernel") != v.kernel) throw std::invalid_argument(r.get("job") + ": kernel differs from " + v.kernel);
    v.jobs.push_back(r.get("job"));
    auto more = dot_result_rows(r);
    rows.insert(rows.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  v.rows = rows.size();

  // Every preset with a model for these formats, counted on every row.
  std::vector<FdpaParams> params;
  for (std::string_view name : kNvidiaPresets) {
    const bool expected = std::find(v.expected.begin(), v.expected.end(), name) != v.expected.end();
    FdpaParams p;
    try {
      p = find_matrix_unit(name, v.in, v.out);
    } catch (const Error&) {
      if (expected) v.expected_missing.emplace_back(name);
      continue;
    }
    PresetAgreement a{std::string(name), model_text(p), "", expected, 0};
    for (std::size_t i = 0; i < params.size() && a.same_as.empty(); ++i)  // the first such preset
      if (same_params(params[i], p)) a.same_as = v.presets[i].same_as.empty() ? v.presets[i].preset : v.presets[i].same_as;
    const KernelModel kernel(p, v.in, v.out, composition);
    for (const auto& c : rows) {
      bool failed = false;
      const auto d = kernel.run(c, &failed);
      a.agreed += !failed && d == c.d;
    }
    v.presets.push_back(a);
    params.push_back(p);
  }
  if (v.presets.empty()) return v;

  // Best: most rows; ties go to an expected preset, then to the listing order.
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.presets.size(); ++i) {
    const auto& a = v.presets[i];
    const auto& b = v.presets[best];
    if (a.agreed > b.agreed || (a.agreed == b.agreed && a.expected && !b.expected)) best = i;
  }
  v.best = v.presets[best].preset;
  v.best_agreed = v.presets[best].agreed;
  const KernelModel best_kernel(params[best], v.in, v.out, composition);
  std::vector<std::size_t> failing;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    bool failed = false;
    if (best_kernel.run(rows[i], &failed) != rows[i].d || failed) {
      failing.push_back(i);
      if (v.counterexamples.size() < 8) v.counterexamples.push_back(rows[i]);
    }
  }

  // Digests of generated jobs: the cases beyond the raw outputs, against the best preset.
  for (const auto& r : results) {
    const ResultBlock* dig = r.block(kBlockDigests);
    if (!dig || dig->data.empty()) continue;
    const Job job = job_from_header(r);
    const std::uint64_t chunk = 1ull << job.chunk_log2;
    const std::uint64_t chunks = std::min<std::uint64_t>(dig->data.size(), o.max_digest_chunks);
    const auto cases = job_cases(r, k, std::min(job.count, chunks * chunk));
    for (std::uint64_t ch = 0; ch < chunks; ++ch) {
      std::uint64_t sum = 0;
      for (std::uint64_t i = ch * chunk; i < std::min<std::uint64_t>(cases.size(), (ch + 1) * chunk); ++i) {
        bool failed = false;
        sum += digest_term(i, best_kernel.run(cases[i], &failed));
      }
      ++v.digest_chunks;
      v.digest_mismatched += sum != dig->data[ch];
    }
  }

  // The passive fit, on the failing rows first (they carry the information), then the others.
  // Not for composed kernels: the fit's family is one unit chained over k.
  if (o.fit && !failing.empty() && !composition.composed()) {
    std::vector<characterize::DotCase> given;
    for (std::size_t i : failing)
      if (given.size() < o.fit_rows / 2) given.push_back(rows[i]);
    for (std::size_t i = 0; i < rows.size() && given.size() < o.fit_rows; ++i)
      if (!std::binary_search(failing.begin(), failing.end(), i)) given.push_back(rows[i]);
    characterize::FitOptions fo;
    fo.threads = o.threads;
    fo.probe_budget = 0;  // proposing a model needs no splitting probes
    const auto fit = characterize::fit({v.in, v.out}, given, fo);
    v.fitted = true;
    v.fit_rows = given.size();
    v.fit_matching = fit.matching.size();
    std::size_t agreed_given = 0;
    if (const auto* m = characterize::fit_answer(fit, given.size(), &agreed_given)) {
      v.fit_spec = model_text(m->params);
      v.fit_agreed = rows.size() - characterize::disagreements(m->params, {v.in, v.out}, rows).size();
    }
  }
  return v;
}

}  // namespace fpconform::gpu
