#include "fpconform/characterize/target.hpp"

#include <string>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "cpu_targets.hpp"
#include "fpconform/characterize/cuda_target.hpp"

namespace fpconform::characterize {

void DotBatch::add(std::span<const std::uint64_t> row_a, std::span<const std::uint64_t> row_b,
                   std::uint64_t row_c) {
  if (row_a.size() != static_cast<std::size_t>(k) || row_b.size() != static_cast<std::size_t>(k))
    throw Error("DotBatch::add", "rows of a and b must have k = " + std::to_string(k) + " codes");
  a.insert(a.end(), row_a.begin(), row_a.end());
  b.insert(b.end(), row_b.begin(), row_b.end());
  c.push_back(row_c);
}

void Target::check_batch(const DotBatch& batch) const {
  const std::size_t n = batch.rows() * static_cast<std::size_t>(batch.k);
  if (batch.k < 1 || batch.a.size() != n || batch.b.size() != n)
    throw Error(name(), "malformed batch: k = " + std::to_string(batch.k) + ", " +
                            std::to_string(batch.rows()) + " rows, " +
                            std::to_string(batch.a.size()) + " a codes, " +
                            std::to_string(batch.b.size()) + " b codes");
  if (!supports_k(batch.k))
    throw Error(name(), "does not accept dot products of length " + std::to_string(batch.k));
  const std::string why = unavailable();
  if (!why.empty()) throw Error(name(), why);
}

EmuTarget::EmuTarget(std::string name, const FdpaParams& unit, const Format& in,
                     const Format& out, int split_k, SplitReduction reduction,
                     const Format* in_b)
    : name_(std::move(name)), unit_(unit), in_(in), in_b_(in_b ? *in_b : in), out_(out),
      split_k_(split_k), reduction_(reduction) {
  if (split_k < 1) throw Error(name_, "split-k must be at least 1");
}

std::vector<std::uint64_t> EmuTarget::run(const DotBatch& batch) {
  check_batch(batch);
  if (split_k_ > batch.k)
    throw Error(name_, "split-k " + std::to_string(split_k_) + " exceeds k = " +
                           std::to_string(batch.k));
  std::vector<std::uint64_t> d(batch.rows());
  const auto k = static_cast<std::size_t>(batch.k);
  if (split_k_ == 1) {
    const FdpaKernel kernel(unit_, formats());
    for (std::size_t r = 0; r < batch.rows(); ++r)
      d[r] = kernel.dot(std::span(batch.a).subspan(r * k, k),
                        std::span(batch.b).subspan(r * k, k), batch.c[r]);
  } else {
    GemmOptions o;
    o.unit = unit_;
    o.acc = out_;
    o.out = out_;
    o.split_k = split_k_;
    o.reduction = reduction_;
    for (std::size_t r = 0; r < batch.rows(); ++r) {
      const Matrix a{1, batch.k, in_, {batch.a.begin() + r * k, batch.a.begin() + (r + 1) * k}};
      const Matrix b{batch.k, 1, in_b_, {batch.b.begin() + r * k, batch.b.begin() + (r + 1) * k}};
      const Matrix c{1, 1, out_, {batch.c[r]}};
      d[r] = gemm(o, a, b, &c).codes[0];
    }
  }
  count(batch.rows());
  return d;
}

namespace {

// "split-k=4,reduction=pairwise"
void parse_emu_options(std::string_view text, int& split_k, SplitReduction& reduction,
                       std::string_view what) {
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto eq = item.find('=');
    const std::string key(item.substr(0, eq));
    const std::string value(eq == std::string_view::npos ? "" : item.substr(eq + 1));
    if (key == "split-k") {
      std::size_t used = 0;
      int v = 0;
      try {
        v = std::stoi(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || value.empty() || v < 1)
        throw Error(std::string(what), "split-k needs a positive integer, not '" + value + "'");
      split_k = v;
    } else if (key == "reduction") {
      if (value == "sequential") reduction = SplitReduction::sequential;
      else if (value == "pairwise") reduction = SplitReduction::pairwise;
      else throw Error(std::string(what), "reduction is sequential or pairwise, not '" + value + "'");
    } else {
      throw Error(std::string(what), "unknown emu target option '" + key +
                                         "' (split-k, reduction)");
    }
  }
}

}  // namespace

std::unique_ptr<Target> make_target(std::string_view spec, const Format* in, const Format* out,
                                     std::string_view what, const Format* in_b) {
  const std::string where(what);
  if (spec.substr(0, 4) == "emu:") {
    std::string_view model = spec.substr(4);
    int split_k = 1;
    SplitReduction reduction = SplitReduction::sequential;
    if (const auto at = model.find('@'); at != std::string_view::npos) {
      parse_emu_options(model.substr(at + 1), split_k, reduction, what);
      model = model.substr(0, at);
    }
    if (model.empty()) throw Error(where, "emu: needs a model (a preset, a staged unit or custom:...)");
    const Format fin = in ? *in : parse_format("f16");
    const Format fout = out ? *out : parse_format("f32");
    const FdpaParams p = parse_model(model, fin, fout, what);
    return std::make_unique<EmuTarget>(std::string(spec), p, fin, fout, split_k, reduction, in_b);
  }
  std::unique_ptr<Target> t;
  if (spec.substr(0, 4) == "cpu:") t = make_cpu_target(spec, in, out, what);
  else if (spec.substr(0, 5) == "cuda:") t = make_cuda_target(spec, in, out, what);  // cuda_target.cpp
  if (t && in_b && *in_b != t->in())
    throw Error(where, "'" + std::string(spec) + "' takes a and b in one format (" + t->in().name +
                           "), not b in " + in_b->name);
  if (t) return t;
  throw Error(where, "unknown target '" + std::string(spec) +
                         "' (emu:PRESET, emu:<staged unit>, emu:custom:..., cpu:fp32-fma, cpu:avx512-fp16, "
                         "cpu:avx512-bf16, cpu:amx-bf16)");
}

}  // namespace fpconform::characterize
