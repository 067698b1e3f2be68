#include "mma_data.hpp"

#include <cstring>
#include <random>

#include "fpconform/convert.hpp"

namespace fpconform::bench {

DotData::DotData(const char* format, std::size_t k, unsigned seed, std::size_t columns)
    : in(parse_format(format)) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  auto draw = [&](std::mt19937_64& r) {
    const double x = normal(r);
    std::uint64_t bits;
    std::memcpy(&bits, &x, 8);
    return convert(bits, f64, in, sat).bits;
  };
  for (std::size_t i = 0; i < k; ++i)
    for (auto* v : {&a, &b}) v->push_back(draw(rng));
  b_cols = b;
  std::mt19937_64 more(seed + 1);
  for (std::size_t i = k; i < columns * k; ++i) b_cols.push_back(draw(more));
  for (std::size_t i = 0; i < k; ++i) {
    fa.push_back(static_cast<float>(to_double(a[i], in)));
    fb.push_back(static_cast<float>(to_double(b[i], in)));
  }
}

}  // namespace fpconform::bench
