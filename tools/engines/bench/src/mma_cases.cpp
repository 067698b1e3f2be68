// Emulated matrix units: MACs per second per core (one thread, CPU time) of FdpaKernel, the
// fast path of the dot-product-add model: its integer path for the fused blocks of `hopper`
// e4m3 (L = 32, F = 13, e8m13) and `ampere` f16 (L = 8, F = 24), its host path (the host's own
// fp32 fma and add) for the fma chain `fp32-sequential` bf16, the reduction tree `x86-amx-bf16`
// (two chains of FMAs, their sum, C; flushing) and the pairwise `cdna1` f16 (groups of 4); fp32
// output, K = 4096 per dot product with the operands decoded
// once, as gemm runs them: one row of A against kCols columns of B through dot_many (the kernel
// interleaves the columns' block chains), kCols * K MACs per iteration. Baseline: native fp32
// GEMM on one core, the fastest of the register-blocked tiles this CPU runs (fp32_gemm.hpp: AVX2
// 4 x 16, AVX-512 8 x 32), what a user's vectorized fp32 matmul reaches. Target: 1/6 of it.
#include <cmath>
#include <cstdio>
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
  // The baseline's operands: fp32 values uniform in [-1, 1), enough for the largest tile.
  static std::vector<float> ta, tb;
  ta.resize(kK * 8);
  tb.resize(kK * 32);
  SplitMix64 rng(42);
  for (auto* v : {&ta, &tb})
    for (float& f : *v) f = static_cast<float>(static_cast<double>(rng.below(1u << 24)) / (1 << 23) - 1);
  static std::vector<Fp32Tile> tiles;
  tiles = fp32_gemm_tiles();
  if (tiles.empty()) {
    s.note("mma: no AVX2+FMA here; the fp32 GEMM baseline is the scalar fma() chain");
    tiles.push_back({"fp32-gemm-scalar", 4, 16, [](const float* a, const float* b, std::size_t k, float* c) {
                       fp32_gemm_tile_scalar(a, b, 4, 16, k, c);
                     }});
  }
  std::vector<Case> cases;
  for (const Fp32Tile& t : tiles) {
    std::vector<float> vec(t.rows * t.cols), ref(t.rows * t.cols);
    t.run(ta.data(), tb.data(), kK, vec.data());
    fp32_gemm_tile_scalar(ta.data(), tb.data(), t.rows, t.cols, kK, ref.data());
    if (std::memcmp(vec.data(), ref.data(), vec.size() * sizeof(float)) != 0)
      s.note(std::string("mma: the fp32 GEMM tile ") + t.name + " DISAGREES with its scalar chain");
    cases.push_back({t.name, [&t](benchmark::State& st) {
                       std::vector<float> c(t.rows * t.cols);
                       for (auto _ : st) {
                         t.run(ta.data(), tb.data(), kK, c.data());
                         benchmark::DoNotOptimize(c.data());
                         benchmark::ClobberMemory();
                       }
                       st.SetItemsProcessed(st.iterations() *
                                            static_cast<std::int64_t>(t.rows * t.cols * kK));
                     }});
  }
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
  // The baseline is the fastest native tile measured (one line per emulated unit against it).
  const Fp32Tile* fastest = &tiles.front();
  for (const Fp32Tile& t : tiles) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "mma: native %s tile (%zu x %zu, K = %zu): %.4g MAC/s", t.name,
                  t.rows, t.cols, kK, get(t.name));
    s.note(buf);
    if (get(t.name) > get(fastest->name)) fastest = &t;
  }
  for (const Model& m : models) {
    Comparison c;
    c.name = std::string("mma_") + m.label + "_per_core";
    c.ours = get(std::string("mma_") + m.label);
    c.baseline_name = fastest->name;
    c.baseline = get(fastest->name);
    c.unit = "MAC/s";
    c.target = 1.0 / 6;
    sink.add(c);
  }
}

}  // namespace fpconform::bench
