// Emulated matrix units: MACs per second per core (one thread, CPU time) of FdpaKernel, the
// fast path of the dot-product-add model, for every preset: one line per preset, its leading
// input format (fp8 for Hopper, whose fused blocks with the e8m13 cut are the case that matters;
// bf16 for the reference units; otherwise the preset's first listed input) with its usual output (f32 where the preset writes
// it, else f16 or f64). K = 4096 per dot product with the operands decoded once, as gemm runs
// them: kRows rows of A against kCols columns of B through one dot_many (the kernel interleaves
// the dot products' block chains; with B row-major, rows share its loads), kRows * kCols * K
// MACs per iteration. Block-scaled units run with unit scales
// (their datapath is the same). Baseline: native fp32 GEMM on one core, the fastest of the
// register-blocked tiles this CPU runs (fp32_gemm.hpp: AVX2 4 x 16, AVX-512 8 x 32), what a
// user's vectorized fp32 matmul reaches. Target: 1/6 of it.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cases.hpp"
#include "fp32_gemm.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/splitmix.hpp"
#include "fpconform/matrix_presets.hpp"
#include "gbench.hpp"
#include "mma_data.hpp"

namespace fpconform::bench {

namespace {

constexpr std::size_t kK = 4096;
constexpr std::size_t kRows = 16;  // rows of A per iteration (gemm hands the kernel 16 rows of D)
constexpr std::size_t kCols = 16;  // columns of B per iteration

// One iteration's operands as gemm hands them to the kernel: A row-major; B row-major where the
// kernel takes it so (FdpaKernel::row_major_b), else by columns. Outputs row by row.
struct Tile {
  DecodedOperands a, b;
  std::vector<std::size_t> offset_a, offset_b;
  std::size_t stride_b;
  Tile(const FdpaKernel& k, const DotData& rows, const DotData& cols) {
    a = k.decode(std::vector<std::uint64_t>(rows.b_cols.begin(),
                                            rows.b_cols.begin() + static_cast<std::ptrdiff_t>(kRows * kK)),
                 Operand::a);
    const bool row_major = k.row_major_b();
    std::vector<std::uint64_t> b_codes(kK * kCols);
    for (std::size_t j = 0; j < kCols; ++j)
      for (std::size_t i = 0; i < kK; ++i)
        b_codes[row_major ? i * kCols + j : j * kK + i] = cols.b_cols[j * kK + i];
    b = k.decode(b_codes, Operand::b);
    stride_b = row_major ? kCols : 1;
    for (std::size_t r = 0; r < kRows; ++r)
      for (std::size_t j = 0; j < kCols; ++j) {
        offset_a.push_back(r * kK);
        offset_b.push_back(row_major ? j : j * kK);
      }
  }
};

struct BenchUnit {
  std::string label;  // hopper_e4m3, x86_amx_bf16, ...
  std::string preset, in;
  Format out;
};

// Where a preset's first listed input is not the one its line should time: Hopper's fp8 blocks
// (the e8m13 cut), and the reference units in the format users validate with.
constexpr std::pair<std::string_view, std::string_view> kLeadingInput[] = {
    {"hopper", "e4m3"}, {"exact", "bf16"}, {"fp32-sequential", "bf16"}};

// One unit per preset: its leading input format and the first output it writes of f32, f16, f64.
std::vector<BenchUnit> bench_units() {
  std::vector<BenchUnit> units;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const std::string preset(e.preset);
    bool seen = false;
    for (const BenchUnit& u : units) seen = seen || u.preset == preset;
    if (seen) continue;
    std::string in(e.input);
    for (const auto& [name, format] : kLeadingInput)
      if (preset == name) in = format;
    for (const char* out : {"f32", "f16", "f64"}) {
      try {
        find_matrix_unit(preset, parse_format(in), parse_format(out));
      } catch (const Error&) {
        continue;
      }
      std::string label = preset;
      for (char& ch : label)
        if (ch == '-') ch = '_';
      if (!label.ends_with("_" + in)) label += "_" + in;
      units.push_back({label, preset, in, parse_format(out)});
      break;
    }
  }
  return units;
}

}  // namespace

void mma_cases(const Settings& s, Sink& sink) {
  const std::vector<BenchUnit> models = bench_units();
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
  static std::vector<DotData> data;  // outlives the cases: per unit, B's columns, then A's rows
  data.clear();
  data.reserve(2 * models.size());
  for (const BenchUnit& m : models) {
    const DotData& d = data.emplace_back(m.in.c_str(), kK, 42, kCols);
    const DotData& rows = data.emplace_back(m.in.c_str(), kK, 43, kRows);
    const Format out = m.out;
    const FdpaParams p = find_matrix_unit(m.preset, d.in, out);
    const FdpaKernel k(p, d.in, out);
    if (!k.fast()) s.note(std::string("mma ") + m.label + ": FdpaKernel has no fast path here");
    // Sanity: the fast path agrees with the clear model on these operands, output by output.
    {
      const Tile t(k, rows, d);
      const std::vector<std::uint64_t> c(kRows * kCols, 0);
      std::vector<std::uint64_t> got(kRows * kCols);
      k.dot_many(t.a, t.offset_a, t.b, t.offset_b, t.stride_b, kK, c, got);
      for (std::size_t o = 0; o < got.size(); ++o) {
        const auto row = rows.b_cols.begin() + static_cast<std::ptrdiff_t>((o / kCols) * kK);
        const auto col = d.b_cols.begin() + static_cast<std::ptrdiff_t>((o % kCols) * kK);
        if (got[o] != fdpa(p, d.in, out, std::vector<std::uint64_t>(row, row + kK),
                           std::vector<std::uint64_t>(col, col + kK), 0)) {
          s.note(std::string("mma ") + m.label +
                 ": FdpaKernel DISAGREES with fdpa on the bench data");
          break;
        }
      }
    }
    cases.push_back({"mma_" + m.label, [&d, &rows, p, out](benchmark::State& st) {
                       const FdpaKernel k(p, d.in, out);
                       const Tile t(k, rows, d);
                       const std::vector<std::uint64_t> c(kRows * kCols, 0);
                       std::vector<std::uint64_t> res(kRows * kCols);
                       for (auto _ : st) {
                         k.dot_many(t.a, t.offset_a, t.b, t.offset_b, t.stride_b, kK, c, res);
                         benchmark::DoNotOptimize(res.data());
                         benchmark::ClobberMemory();
                       }
                       st.SetItemsProcessed(st.iterations() *
                                            static_cast<std::int64_t>(kRows * kCols * kK));
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
  for (const BenchUnit& m : models) {
    Comparison c;
    c.name = "mma_" + m.label + "_per_core";
    c.ours = get("mma_" + m.label);
    c.baseline_name = fastest->name;
    c.baseline = get(fastest->name);
    c.unit = "MAC/s";
    c.target = 1.0 / 6;
    sink.add(c);
  }
}

}  // namespace fpconform::bench
