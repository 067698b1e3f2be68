#include "mma_data.hpp"

#include <cstring>
#include <random>

#include "fpconform/convert.hpp"

namespace fpconform::bench {

DotData::DotData(const char* format, std::size_t k, unsigned seed) : in(parse_format(format)) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Format f64 = parse_format("f64");
  Rounding sat;
  sat.sat = Saturation::finite;
  for (std::size_t i = 0; i < k; ++i)
    for (auto* v : {&a, &b}) {
      const double x = normal(rng);
      std::uint64_t bits;
      std::memcpy(&bits, &x, 8);
      v->push_back(convert(bits, f64, in, sat).bits);
    }
  for (std::size_t i = 0; i < k; ++i) {
    fa.push_back(static_cast<float>(to_double(a[i], in)));
    fb.push_back(static_cast<float>(to_double(b[i], in)));
  }
}

}  // namespace fpconform::bench
