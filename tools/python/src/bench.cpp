// Baselines for the Python package's benchmark (suites/bench/python_bench.py): the C++ calls
// that fpconform.convert and fpconform.gemm make, timed in C++ on the same inputs, best of
// `repeats`, so the Python overhead is the ratio of the two.
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "arrays.hpp"
#include "fpconform/fast_convert.hpp"
#include "fpconform/gemm.hpp"
#include "fpconform/gemm_setup.hpp"

namespace fpconform::python {
namespace {

using namespace nb::literals;

template <class F>
double best_seconds(int repeats, F&& f) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < std::max(1, repeats); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// F32Converter into codes of 1 or 2 bytes, as fpconform.convert does for f32 arrays.
double convert_f32_seconds(F32s x, std::string_view to, int repeats) {
  const F32Converter c(parse_format(to, "to"), Rounding{});
  const std::size_t n = x.shape(0);
  std::vector<std::uint8_t> out8(c.code_bytes() == 1 ? n : 0);
  std::vector<std::uint16_t> out16(c.code_bytes() == 2 ? n : 0);
  nb::gil_scoped_release unlocked;
  return best_seconds(repeats, [&] {
    if (c.code_bytes() == 1) c.convert(std::span(x.data(), n), std::span(out8));
    else c.convert(std::span(x.data(), n), std::span(out16));
  });
}

// gemm() on codes, as fpconform.gemm calls it.
double gemm_seconds(Codes2 a, Codes2 b, std::string_view model, std::string_view in, int repeats) {
  const Format fin = parse_format(in, "in_format");
  GemmSetup s;
  s.model = std::string(model);
  const GemmOptions g = gemm_options(s, fin, parse_format("f32"));
  const Matrix ma = matrix_of(a, fin), mb = matrix_of(b, fin);
  nb::gil_scoped_release unlocked;
  return best_seconds(repeats, [&] { (void)gemm(g, ma, mb, nullptr); });
}

}  // namespace

void bind_bench(nb::module_& m) {
  m.def("bench_convert_f32_seconds", &convert_f32_seconds, "x"_a, "to"_a, "repeats"_a);
  m.def("bench_gemm_seconds", &gemm_seconds, "a"_a, "b"_a, "model"_a, "in_format"_a, "repeats"_a);
}

}  // namespace fpconform::python
