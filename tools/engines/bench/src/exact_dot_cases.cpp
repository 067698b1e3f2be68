// The exact (Kulisch) dot product: emu's exact structure (fdpa with FdpaStructure::exact, all K
// products and C summed without rounding, then one rounding to nearest even into fp32) against
// the oracle's exact sum (reference::exact_dot: codes read through tables the oracle's MPFR
// decode filled, products summed per exponent, GMP), the same K = 4096 operands, one thread,
// terms (products) per CPU-second, best of the rounds. The two results are compared first
// (they must be the same code). Target: the model's integer path at least twice the oracle.
#include <cstdint>
#include <string>

#include "cases.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/reference/dot.hpp"
#include "gbench.hpp"
#include "mma_data.hpp"

namespace fpconform::bench {

namespace {
constexpr std::size_t kK = 4096;

FdpaParams exact_params() {
  FdpaParams p;
  p.structure = FdpaStructure::exact;
  p.block = 0;  // one exact sum of all K products and C
  p.c_in_block = false;
  p.out_rounding = Rounding{RoundingMode::rne};
  p.nan = "ieee";
  return p;
}
}  // namespace

void exact_dot_cases(const Settings& s, Sink& sink) {
  static std::vector<DotData> data;
  data.clear();
  data.reserve(2);
  const Format f32 = parse_format("f32");
  const FdpaParams p = exact_params();
  std::vector<Case> cases;
  const char* formats[] = {"f16", "bf16"};
  for (const char* fmt : formats) {
    const DotData& d = data.emplace_back(fmt, kK, 7);
    const std::uint64_t ours = FdpaKernel(p, d.in, f32).dot(d.a, d.b, 0);
    const std::uint64_t ref =
        reference::exact_dot(d.a, d.in, d.b, d.in, 0, f32, f32, Rounding{RoundingMode::rne}).bits;
    if (ours != ref)
      s.note(std::string("exact dot ") + fmt + ": emu and the oracle DISAGREE on the bench data");
    cases.push_back({std::string("emu_") + fmt, [&d, p, f32](benchmark::State& st) {
                       const FdpaKernel k(p, d.in, f32);
                       const DecodedOperands da = k.decode(d.a), db = k.decode(d.b);
                       for (auto _ : st) benchmark::DoNotOptimize(k.dot(da, 0, db, 0, 1, kK, 0));
                       st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kK));
                     }});
    cases.push_back({std::string("mpfr_") + fmt, [&d, f32](benchmark::State& st) {
                       for (auto _ : st)
                         benchmark::DoNotOptimize(reference::exact_dot(
                             d.a, d.in, d.b, d.in, 0, f32, f32, Rounding{RoundingMode::rne}));
                       st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kK));
                     }});
  }
  const auto rate = run_cases(cases, s.min_time, s.rounds);
  auto get = [&](const std::string& n) {
    const auto it = rate.find(n);
    return it == rate.end() ? 0.0 : it->second;
  };
  for (const char* fmt : formats) {
    Comparison c;
    c.name = std::string("exact_dot_") + fmt + "_to_f32";
    c.ours = get(std::string("emu_") + fmt);
    c.baseline_name = "oracle-exact-sum";
    c.baseline = get(std::string("mpfr_") + fmt);
    c.unit = "terms/s";
    c.target = 2;
    sink.add(c);
  }
}

}  // namespace fpconform::bench
