// Emulated matrix units: MACs per second per core (one thread, CPU time) of FdpaKernel, the
// fast path of the dot-product-add model: its integer path for the fused blocks of `hopper`
// e4m3 (L = 32, F = 13, e8m13) and `ampere` f16 (L = 8, F = 24), its host path (the host's own
// fp32 fma and add) for the fma chain `fp32-sequential` bf16, the reduction tree `x86-amx-bf16`
// (two chains of FMAs, their sum, C; flushing) and the pairwise `cdna1` f16 (groups of 4); fp32
// output, K = 4096 per dot product with the operands decoded
// once, as gemm runs them: one row of A against kCols columns of B through dot_many (the kernel
// interleaves the columns' block chains), kCols * K MACs per iteration. Baseline: native fp32
// GEMM on one core, a register-blocked AVX2/FMA tile (fp32_gemm.hpp: 4 x 16 outputs, 8
// accumulators), what a user's vectorized fp32 matmul reaches. Target: 1/6 of it.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "cases.hpp"
#include "fp32_gemm.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/core/splitmix.hpp"
#include "fpconform/matrix_presets.hpp"
#include "gbench.hpp"
#include "mma_data.hpp"

namespace fpconform::bench {

namespace {

constexpr std::size_t kK = 4096;
constexpr std::size_t kCols = 8;  // output elements (columns of one GEMM row) per iteration

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
  static const Model models[] = {{"hopper_e4m3", "hopper", "e4m3"},
                                 {"ampere_f16", "ampere", "f16"},
                                 {"fp32_sequential_bf16", "fp32-sequential", "bf16"},
                                 {"amx_bf16", "x86-amx-bf16", "bf16"},
                                 {"cdna1_f16", "cdna1", "f16"}};
  if (!fp32_gemm_vectorized())
    s.note("mma: no AVX2+FMA here; the fp32 GEMM baseline is the scalar fma() chain");
  std::vector<Case> cases;
  // The baseline's operands: fp32 values uniform in [-1, 1), packed as the tile reads them.
  static std::vector<float> ta, tb;
  ta.resize(kK * kTileRows);
  tb.resize(kK * kTileCols);
  SplitMix64 rng(42);
  for (auto* v : {&ta, &tb})
    for (float& f : *v) f = static_cast<float>(static_cast<double>(rng.below(1u << 24)) / (1 << 23) - 1);
  {
    float vec[kTileRows * kTileCols], ref[kTileRows * kTileCols];
    fp32_gemm_tile(ta.data(), tb.data(), kK, vec);
    fp32_gemm_tile_scalar(ta.data(), tb.data(), kK, ref);
    for (std::size_t i = 0; i < kTileRows * kTileCols; ++i)
      if (std::memcmp(&vec[i], &ref[i], 4) != 0) {
        s.note("mma: the vector fp32 GEMM tile DISAGREES with its scalar chain");
        break;
      }
  }
  cases.push_back({"fp32_gemm_tile", [](benchmark::State& st) {
                     float c[kTileRows * kTileCols];
                     for (auto _ : st) {
                       fp32_gemm_tile(ta.data(), tb.data(), kK, c);
                       benchmark::DoNotOptimize(c);
                       benchmark::ClobberMemory();
                     }
                     st.SetItemsProcessed(st.iterations() *
                                          static_cast<std::int64_t>(kTileRows * kTileCols * kK));
                   }});
  static std::vector<DotData> data;  // outlives the cases
  data.clear();
  data.reserve(std::size(models));
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
    c.baseline_name = fp32_gemm_vectorized() ? "fp32-gemm-avx2" : "fp32-gemm-scalar";
    c.baseline = get("fp32_gemm_tile");
    c.unit = "MAC/s";
    c.target = 1.0 / 6;
    sink.add(c);
  }
}

}  // namespace fpconform::bench
