#include "fpconform/gpu/cases.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace fpconform::gpu {

int operands_per_case(const KernelInfo& k) {
  switch (k.kind) {
    case KernelKind::convert: return 1;
    case KernelKind::scalar: return k.arity;
    case KernelKind::dot: return 2 * k.k + 1;
  }
  return 0;
}

std::uint32_t draw_code(SplitMix64& rng, const Format& f, const Distribution& d) {
  using K = Distribution::Kind;
  if (d.kind == K::zero) return 0;
  for (;;) {  // redraw NaN/inf for finite and window; expected draws stay close to 1
    const std::uint64_t r = rng.next();
    std::uint32_t code = static_cast<std::uint32_t>(r & f.code_mask());
    if (d.kind == K::window) {
      // sign: bit 0; exponent field uniform in [bias-W, bias+W] clipped to the field;
      // fraction: bits 32.. of the same draw.
      const int max_field = (1 << f.exp_bits) - 1;
      const int lo = std::max(0, f.bias - d.window), hi = std::min(max_field, f.bias + d.window);
      const auto exp_field = static_cast<std::uint32_t>(lo + static_cast<int>((r >> 1) % static_cast<std::uint64_t>(hi - lo + 1)));
      const std::uint32_t frac = static_cast<std::uint32_t>(r >> 32) & ((1u << f.man_bits) - 1u);
      const std::uint32_t sign = f.is_signed ? static_cast<std::uint32_t>(r & 1) : 0u;
      code = (sign << (f.width() - 1)) | (exp_field << f.man_bits) | frac;
    }
    if (d.kind == K::uniform || !(f.is_nan_code(code) || f.is_inf_code(code))) return code;
  }
}

namespace {
Format format_or_throw(std::string_view name) {
  auto f = find_builtin(name);
  if (!f) throw std::invalid_argument("no code format '" + std::string(name) + "'");
  return *f;
}
}  // namespace

std::vector<std::uint32_t> job_inputs(const Job& job, const KernelInfo& k) {
  const auto per_case = static_cast<std::size_t>(operands_per_case(k));
  std::vector<std::uint32_t> codes;
  if (job.input == InputMode::sweep) throw std::invalid_argument("a sweep's inputs are enumerated, not stored");
  if (job.input == InputMode::explicit_cases) {
    codes.reserve(job.cases.size() * per_case);
    for (const auto& c : job.cases) codes.insert(codes.end(), c.begin(), c.end());
    return codes;
  }
  const Format in = format_or_throw(k.in_format);
  codes.reserve(job.count * per_case);
  SplitMix64 rng(job.seed);
  const Distribution* dists[3] = {&job.dist_a, &job.dist_b, &job.dist_c};
  for (std::uint64_t i = 0; i < job.count; ++i) {
    switch (k.kind) {
      case KernelKind::convert:
        if (k.packing == Packing::packed) {  // two lanes drawn high lane first
          const std::uint32_t hi = draw_code(rng, in, job.dist_a), lo = draw_code(rng, in, job.dist_a);
          codes.push_back((hi << in.width()) | lo);
        } else {
          codes.push_back(draw_code(rng, in, job.dist_a));
        }
        break;
      case KernelKind::scalar:
        for (int j = 0; j < k.arity; ++j) codes.push_back(draw_code(rng, in, *dists[j]));
        break;
      case KernelKind::dot: {
        const Format c = format_or_throw(k.c_format);
        for (int j = 0; j < k.k; ++j) codes.push_back(draw_code(rng, in, job.dist_a));
        for (int j = 0; j < k.k; ++j) codes.push_back(draw_code(rng, in, job.dist_b));
        codes.push_back(draw_code(rng, c, job.dist_c));
        break;
      }
    }
  }
  return codes;
}

std::vector<std::uint32_t> sweep_case(const KernelInfo& k, std::uint64_t index) {
  if (k.kind != KernelKind::scalar) return {static_cast<std::uint32_t>(index)};
  std::vector<std::uint32_t> ops(static_cast<std::size_t>(k.arity));
  const std::uint64_t mask = k.in_bits == 32 ? 0xFFFFFFFFull : ((1ull << k.in_bits) - 1);
  for (int i = 0; i < k.arity; ++i)
    ops[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>((index >> (k.in_bits * (k.arity - 1 - i))) & mask);
  return ops;
}

std::vector<std::uint64_t> chunk_digests(const std::vector<std::uint32_t>& outputs, int chunk_log2,
                                         std::uint64_t first_index) {
  const std::uint64_t chunk = 1ull << chunk_log2;
  std::vector<std::uint64_t> digests((outputs.size() + chunk - 1) / chunk, 0);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    digests[i >> chunk_log2] += digest_term(first_index + i, outputs[i]);
  return digests;
}

std::vector<std::uint64_t> sample_chunk_indices(std::uint64_t chunks, std::uint64_t count,
                                                std::uint64_t seed) {
  count = std::min(count, chunks);
  std::set<std::uint64_t> picked;
  SplitMix64 rng(seed);
  while (picked.size() < count) picked.insert(rng.next() % chunks);
  return {picked.begin(), picked.end()};
}

Runs run_length_encode(const std::vector<std::uint32_t>& outputs, std::uint64_t first_input) {
  Runs runs;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (i == 0 || outputs[i] != outputs[i - 1]) {
      runs.start.push_back(first_input + i);
      runs.value.push_back(outputs[i]);
    }
  return runs;
}

std::uint32_t run_lookup(const Runs& runs, std::uint64_t x) {
  auto it = std::upper_bound(runs.start.begin(), runs.start.end(), x);
  if (it == runs.start.begin()) throw std::out_of_range("input below the first run");
  return static_cast<std::uint32_t>(runs.value[static_cast<std::size_t>(it - runs.start.begin() - 1)]);
}

}  // namespace fpconform::gpu
