// Emulated matrix units: MACs per second per core (one thread, CPU time) of FdpaKernel, the
// fast path of the fused dot-product-add model, for `hopper` e4m3 (L = 32, F = 13, e8m13) and
// `ampere` f16 (L = 8, F = 24), fp32 output, K = 4096 per dot product with the operands decoded
// once, as gemm runs them: one row of A against kCols columns of B through dot_many (the kernel
// interleaves the columns' block chains), kCols * K MACs per iteration. Baseline: a plain fp32
// FMA dot product of the same values, one accumulator (sum = fma(a, b, sum), the order a scalar
// fp32 loop has). The target is absolute, 10^9 MACs/s per core; the line states it as
// the ratio 10^9 / (baseline rate) so that it stays a comparison with something measured in the
// same run.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cases.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/core/cpu_features.hpp"
#include "fpconform/matrix_presets.hpp"
#include "gbench.hpp"
#include "mma_data.hpp"

namespace fpconform::bench {

namespace {

constexpr std::size_t kK = 4096;
constexpr std::size_t kCols = 8;  // output elements (columns of one GEMM row) per iteration

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("fma"))) float fma_dot(const float* a, const float* b, std::size_t n) {
  float s = 0;
  for (std::size_t i = 0; i < n; ++i) s = __builtin_fmaf(a[i], b[i], s);
  return s;
}
bool have_fma() { return cpu_features().fma; }
#else
float fma_dot(const float* a, const float* b, std::size_t n) {
  float s = 0;
  for (std::size_t i = 0; i < n; ++i) s = std::fma(a[i], b[i], s);
  return s;
}
bool have_fma() { return true; }
#endif

// Where each column of B starts in DotData::b_cols.
std::vector<std::size_t> col_offsets() {
  std::vector<std::size_t> o(kCols);
  for (std::size_t j = 0; j < kCols; ++j) o[j] = j * kK;
  return o;
}

}  // namespace

void mma_cases(const Settings& s, Sink& sink) {
  struct Model {
    const char* label;
    const char* preset;
    const char* format;
  };
  static const Model models[] = {{"hopper_e4m3", "hopper", "e4m3"}, {"ampere_f16", "ampere", "f16"}};
  if (!have_fma()) s.note("mma: this CPU has no FMA; the fp32 baseline is fma() from libm");
  std::vector<Case> cases;
  static std::vector<DotData> data;  // outlives the cases
  data.clear();
  data.reserve(2);
  const Format f32 = parse_format("f32");
  for (const Model& m : models) {
    const DotData& d = data.emplace_back(m.format, kK, 42, kCols);
    const FdpaParams p = find_matrix_unit(m.preset, d.in, f32);
    const FdpaKernel k(p, d.in, f32);
    if (!k.fast()) s.note(std::string("mma ") + m.label + ": FdpaKernel has no fast path here");
    // Sanity: the fast path agrees with the clear model on these operands, column by column.
    {
      const DecodedOperands da = k.decode(d.a), db = k.decode(d.b_cols);
      const std::vector<std::size_t> oa(kCols, 0), ob = col_offsets();
      const std::vector<std::uint64_t> c(kCols, 0);
      std::vector<std::uint64_t> got(kCols);
      k.dot_many(da, oa, db, ob, 1, kK, c, got);
      for (std::size_t j = 0; j < kCols; ++j) {
        const auto first = d.b_cols.begin() + static_cast<std::ptrdiff_t>(j * kK);
        const std::vector<std::uint64_t> col(first, first + static_cast<std::ptrdiff_t>(kK));
        if (got[j] != fdpa(p, d.in, f32, d.a, col, 0))
          s.note(std::string("mma ") + m.label +
                 ": FdpaKernel DISAGREES with fdpa on the bench data");
      }
    }
    cases.push_back({std::string("mma_") + m.label, [&d, p, f32](benchmark::State& st) {
                       const FdpaKernel k(p, d.in, f32);
                       const DecodedOperands da = k.decode(d.a), db = k.decode(d.b_cols);
                       const std::vector<std::size_t> oa(kCols, 0), ob = col_offsets();
                       const std::vector<std::uint64_t> c(kCols, 0);
                       std::vector<std::uint64_t> out(kCols);
                       for (auto _ : st) {
                         k.dot_many(da, oa, db, ob, 1, kK, c, out);
                         benchmark::DoNotOptimize(out.data());
                         benchmark::ClobberMemory();
                       }
                       st.SetItemsProcessed(st.iterations() *
                                            static_cast<std::int64_t>(kCols * kK));
                     }});
    cases.push_back({std::string("fp32_") + m.label, [&d](benchmark::State& st) {
                       for (auto _ : st) benchmark::DoNotOptimize(fma_dot(d.fa.data(), d.fb.data(), kK));
                       st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kK));
                     }});
  }
  const auto rate = run_cases(cases, s.min_time, s.rounds);
  auto get = [&](const std::string& n) {
    const auto it = rate.find(n);
    return it == rate.end() ? 0.0 : it->second;
  };
  for (const Model& m : models) {
    Comparison c;
    c.name = std::string("mma_") + m.label + "_per_core";
    c.ours = get(std::string("mma_") + m.label);
    c.baseline_name = "fp32-fma-dot";
    c.baseline = get(std::string("fp32_") + m.label);
    c.unit = "MAC/s";
    c.target = c.baseline > 0 ? 1e9 / c.baseline : 1;
    sink.add(c);
  }
  s.note("mma: target = 1e9 MAC/s / the fp32 FMA dot's rate (an absolute 10^9 MACs/s "
         "per core, as a ratio to this run's baseline)");
}

}  // namespace fpconform::bench
