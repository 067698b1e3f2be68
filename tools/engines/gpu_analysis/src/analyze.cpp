// Compares one result file with emu (expected.cpp), and exports MMA rows for fitting.
#include <algorithm>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "fpconform/gpu/analysis.hpp"
#include "fpconform/gpu/cases.hpp"
#include "fpconform/gpu/plan.hpp"

namespace fpconform::gpu {

Job job_from_header(const Result& r) {
  std::ostringstream p;
  p << "fpconform-gpu-plan 1\njob " << r.get("job") << "\nkernel " << r.get("kernel") << "\ninput "
    << r.get("input") << "\n";
  if (r.get("input") == "generated")
    p << "count " << r.get("cases") << "\nseed " << r.get("seed") << "\ndist_a " << r.get("dist_a")
      << "\ndist_b " << r.get("dist_b") << "\ndist_c " << r.get("dist_c") << "\nchunk_log2 "
      << r.get("chunk_log2") << "\n";
  if (r.get("input") == "explicit") {
    // cases come from the inputs block; the parser wants at least one
    const KernelInfo* k = find_kernel(r.get("kernel"));
    p << "case";
    for (int i = 0; i < operands_per_case(*k); ++i) p << " 0";
    p << "\n";
  }
  p << "end\n";
  return parse_plan(p.str(), r.get("job") + ".res header").jobs.at(0);
}

namespace {

const std::vector<std::uint64_t>& block_or_empty(const Result& r, const char* name) {
  static const std::vector<std::uint64_t> empty;
  const ResultBlock* b = r.block(name);
  return b ? b->data : empty;
}

struct Checker {
  const KernelInfo& k;
  Verdict& v;
  // Compares one case; returns whether it agreed.
  bool check(const std::uint32_t* ops, std::uint64_t gpu) {
    const auto e = expected_output(k, ops);
    if (!e) throw std::invalid_argument("no emu model for kernel " + std::string(k.name));
    ++v.checked;
    if (*e == gpu) return true;
    ++v.mismatched;
    if (v.examples.size() < 8)
      v.examples.push_back(Mismatch{std::vector<std::uint32_t>(ops, ops + operands_per_case(k)),
                                    static_cast<std::uint32_t>(gpu), *e});
    return false;
  }
};

}  // namespace

Verdict analyze_result(const Result& r, const AnalysisOptions& o) {
  Verdict v;
  v.job = r.get("job");
  v.kernel = r.get("kernel");
  v.status = r.get("status");
  const KernelInfo* k = find_kernel(v.kernel);
  if (!k) throw std::invalid_argument(v.job + ": unknown kernel '" + v.kernel + "'");
  if (v.status != "ok") {
    v.method = "not run";
    return v;
  }
  if (k->kind == KernelKind::dot) {
    v.method = "rows for fitting (fpconform fit --rows)";
    return v;
  }
  Checker c{*k, v};
  const Job job = job_from_header(r);
  const auto& outputs = block_or_empty(r, kBlockOutputs);
  const int per = operands_per_case(*k);
  if (job.input == InputMode::explicit_cases || job.input == InputMode::generated) {
    std::vector<std::uint32_t> inputs;
    if (job.input == InputMode::generated) {
      inputs = job_inputs(job, *k);
    } else {
      for (auto x : block_or_empty(r, kBlockInputs)) inputs.push_back(static_cast<std::uint32_t>(x));
    }
    if (inputs.size() < outputs.size() * static_cast<std::size_t>(per))
      throw std::invalid_argument(v.job + ": " + std::to_string(outputs.size()) + " outputs but inputs for " +
                                  std::to_string(inputs.size() / per) + " cases");
    v.method = "every raw output";
    for (std::size_t i = 0; i < outputs.size(); ++i) c.check(&inputs[i * per], outputs[i]);
    const auto& digests = block_or_empty(r, kBlockDigests);
    if (!digests.empty()) {
      v.method += ", digests of the first chunks";
      const std::uint64_t chunk = 1ull << job.chunk_log2;
      const std::uint64_t cases = inputs.size() / per;
      for (std::uint64_t ch = 0; ch < std::min<std::uint64_t>(digests.size(), o.max_digest_chunks); ++ch) {
        std::uint64_t sum = 0;
        for (std::uint64_t i = ch * chunk; i < std::min(cases, (ch + 1) * chunk); ++i)
          sum += digest_term(i, *expected_output(*k, &inputs[i * per]));
        ++v.digest_chunks;
        v.digest_mismatched += sum != digests[ch];
      }
    }
    return v;
  }
  if (k->kind == KernelKind::convert) {
    Runs runs{block_or_empty(r, kBlockRunStart), block_or_empty(r, kBlockRunValue)};
    if (runs.start.empty() || runs.start.size() != runs.value.size() || runs.start[0] != 0)
      throw std::invalid_argument(v.job + ": runs blocks missing or malformed");
    const std::uint64_t inputs = 1ull << k->in_bits;
    v.method = "first and last input of every run, and " + std::to_string(o.run_samples) + " random inputs";
    for (std::size_t i = 0; i < runs.start.size(); ++i) {
      const std::uint64_t last = (i + 1 < runs.start.size() ? runs.start[i + 1] : inputs) - 1;
      for (std::uint64_t x : {runs.start[i], last}) {
        const auto x32 = static_cast<std::uint32_t>(x);
        c.check(&x32, runs.value[i]);
      }
    }
    SplitMix64 rng(1);
    for (std::uint64_t s = 0; s < o.run_samples; ++s) {
      const auto x = static_cast<std::uint32_t>(rng.next() & (inputs - 1));
      c.check(&x, run_lookup(runs, x));
    }
    return v;
  }
  // scalar sweep
  const int chunk_log2 = std::stoi(r.get("chunk_log2"));
  const std::uint64_t chunk = 1ull << chunk_log2;
  auto check_range = [&](std::uint64_t first, const std::vector<std::uint64_t>& out, std::size_t offset, std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto ops = sweep_case(*k, first + i);
      c.check(ops.data(), out[offset + i]);
    }
  };
  if (!outputs.empty()) {
    v.method = "every output";
    check_range(0, outputs, 0, outputs.size());
    return v;
  }
  const auto& sampled = block_or_empty(r, kBlockSampleChunks);
  const auto& sample_out = block_or_empty(r, kBlockSampleOutputs);
  v.method = "every output of " + std::to_string(sampled.size()) + " sampled chunks, digests of the first chunks";
  for (std::size_t s = 0; s < sampled.size(); ++s) check_range(sampled[s] * chunk, sample_out, s * chunk, chunk);
  const auto& digests = block_or_empty(r, kBlockDigests);
  for (std::uint64_t ch = 0; ch < std::min<std::uint64_t>(digests.size(), o.max_digest_chunks); ++ch) {
    std::uint64_t sum = 0;
    for (std::uint64_t i = ch * chunk; i < (ch + 1) * chunk; ++i) {
      const auto ops = sweep_case(*k, i);
      sum += digest_term(i, *expected_output(*k, ops.data()));
    }
    ++v.digest_chunks;
    v.digest_mismatched += sum != digests[ch];
  }
  return v;
}

void write_dot_rows(const Result& r, std::ostream& out) {
  const KernelInfo* k = find_kernel(r.get("kernel"));
  if (!k || k->kind != KernelKind::dot) throw std::invalid_argument(r.get("job") + ": not a dot result");
  const Job job = job_from_header(r);
  std::vector<std::uint32_t> inputs;
  if (job.input == InputMode::generated) inputs = job_inputs(job, *k);
  else
    for (auto x : block_or_empty(r, kBlockInputs)) inputs.push_back(static_cast<std::uint32_t>(x));
  const bool tf32 = k->in_format == "f32";
  out << "# in=" << (tf32 ? "tf32" : std::string(k->in_format)) << " out=" << k->out_format << "\n";
  out << "# " << r.get("job") << ": " << r.get("instruction") << " on " << r.get("device") << " (cc " << r.get("cc")
      << ")" << (tf32 ? "; tf32 codes are the top 19 bits of the f32 codes fed to the unit" : "") << "\n";
  const auto& outputs = block_or_empty(r, kBlockOutputs);
  const int per = operands_per_case(*k);
  if (inputs.size() < outputs.size() * static_cast<std::size_t>(per))
    throw std::invalid_argument(r.get("job") + ": more outputs than input rows");
  out << std::hex;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::uint32_t* row = &inputs[i * per];
    for (int j = 0; j < k->k; ++j) out << (tf32 ? row[j] >> 13 : row[j]) << ' ';
    out << '|';
    for (int j = 0; j < k->k; ++j) out << ' ' << (tf32 ? row[k->k + j] >> 13 : row[k->k + j]);
    out << " | " << row[2 * k->k] << " | " << outputs[i] << '\n';
  }
  out << std::dec;
}

std::string to_string(const Verdict& v) {
  std::ostringstream s;
  s << v.job << " (" << v.kernel << "): ";
  if (v.status != "ok") return s.str() + v.status;
  if (v.checked == 0 && v.digest_chunks == 0) return s.str() + v.method;
  // the count that names the verdict: agreeing cases when it agrees, differing ones when not
  if (v.agrees())
    s << "agrees with emu on " << v.checked << "/" << v.checked << " cases";
  else
    s << "DIFFERS from emu on " << v.mismatched << " of " << v.checked << " cases (" << (v.checked - v.mismatched)
      << " agree)";
  if (v.digest_chunks) s << ", " << (v.digest_chunks - v.digest_mismatched) << "/" << v.digest_chunks << " chunk digests";
  s << " [" << v.method << "]";
  for (const auto& m : v.examples) {
    s << "\n  ";
    for (auto x : m.operands) s << std::hex << "0x" << x << ' ';
    s << "-> gpu 0x" << m.gpu << ", emu 0x" << m.emu << std::dec;
  }
  return s.str();
}

}  // namespace fpconform::gpu
