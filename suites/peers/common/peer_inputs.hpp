// Deterministic input sets for the peer comparisons: every exponent, the rounding boundaries of
// each target (ties, +-1 and 2 ulp around them, max finite +- ulp, the subnormal boundary),
// NaNs with several payloads, infinities, zeros, and random bits from a fixed seed.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "fpconform/core/parallel_for.hpp"
#include "fpconform/core/splitmix.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/format.hpp"

namespace fpconform::peers {

// splitmix64: a fixed, portable sequence.
using Rng = SplitMix64;

inline std::uint32_t f32_bits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline std::uint64_t f64_bits(double d) { return std::bit_cast<std::uint64_t>(d); }

// The finite non-negative values of a format, ascending, as doubles (every built-in narrow
// format is exact in double).
inline std::vector<double> positive_values(const Format& f) {
  std::vector<double> v;
  const std::uint64_t n = std::uint64_t(1) << (f.width() - (f.is_signed ? 1 : 0));
  for (std::uint64_t c = 0; c < n; ++c) {
    const ExactValue x = decode(c, f);
    if (x.is_finite_nonzero() || x.is_zero()) v.push_back(to_double(c, f));
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Rounding boundaries of `targets` seen from f32: every representable value, every midpoint,
// the point half an ulp above max finite, and +-1, +-2 f32 ulps around each; both signs.
inline void add_f32_boundaries(std::vector<std::uint32_t>& out, const std::vector<Format>& targets) {
  for (const Format& t : targets) {
    const auto vals = positive_values(t);
    std::vector<double> pts;
    for (std::size_t i = 0; i < vals.size(); ++i) {
      pts.push_back(vals[i]);
      if (i + 1 < vals.size()) pts.push_back((vals[i] + vals[i + 1]) / 2);
    }
    if (vals.size() >= 2) {
      const double top = vals.back(), gap = vals.back() - vals[vals.size() - 2];
      pts.push_back(top + gap / 2);
      pts.push_back(top + gap);
    }
    for (double p : pts) {
      const float f = static_cast<float>(p);
      if (!std::isfinite(f)) continue;
      const std::uint32_t b = f32_bits(f);
      for (int d = -2; d <= 2; ++d)
        for (std::uint32_t sign : {0u, 0x80000000u}) {
          const std::int64_t c = static_cast<std::int64_t>(b) + d;
          if (c >= 0 && c <= 0x7F800000) out.push_back(static_cast<std::uint32_t>(c) | sign);
        }
    }
  }
}

// The default f32 set: for every sign and exponent field, fixed mantissas, tie patterns at
// every drop position s = 1..23 (random high bits, then exactly half, half - 1, half + 1 and
// the exact grid point), and random mantissas; plus NaNs, infinities and zeros, plus the
// boundaries of `targets`. About 1.1 million + boundaries.
inline std::vector<std::uint32_t> f32_sample(const std::vector<Format>& targets,
                                             int random_per_exponent = 1300,
                                             std::uint64_t seed = 0x5EED0F32) {
  Rng rng(seed);
  std::vector<std::uint32_t> v;
  v.reserve(1u << 21);
  const std::uint32_t fixed[] = {0, 1, 2, 3, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF, 0x400001,
                                 0x200000, 0x600000, 0x100000};
  for (std::uint32_t sign : {0u, 0x80000000u})
    for (std::uint32_t e = 0; e < 256; ++e) {
      const std::uint32_t base = sign | (e << 23);
      for (std::uint32_t m : fixed) v.push_back(base | m);
      for (int s = 1; s <= 23; ++s)
        for (int k = 0; k < 8; ++k) {
          const std::uint32_t hi = static_cast<std::uint32_t>(rng.next()) << s & 0x7FFFFF;
          const std::uint32_t half = 1u << (s - 1);
          v.push_back(base | hi);
          v.push_back(base | ((hi | half) & 0x7FFFFF));
          v.push_back(base | ((hi | half) - 1));
          v.push_back(base | (((hi | half) + 1) & 0x7FFFFF));
        }
      for (int k = 0; k < random_per_exponent; ++k)
        v.push_back(base | (static_cast<std::uint32_t>(rng.next()) & 0x7FFFFF));
    }
  add_f32_boundaries(v, targets);
  return v;
}

// The default f64 set: target boundaries (values, midpoints) with nudges that straddle the
// f32 rounding of the same point (+-1..3 f64 ulps, +-half and +-one f32 ulp), every f64 exponent
// with random mantissas, specials. About 1 million.
inline std::vector<std::uint64_t> f64_sample(const std::vector<Format>& targets,
                                             std::uint64_t seed = 0x5EED0F64) {
  Rng rng(seed);
  std::vector<std::uint64_t> v;
  for (const Format& t : targets) {
    const auto vals = positive_values(t);
    // Formats with many values (f16, bf16): every 8th value and midpoint, plus the top ones.
    const std::size_t stride = vals.size() > 4096 ? 8 : 1;
    std::vector<double> pts;
    for (std::size_t i = 0; i < vals.size(); ++i) {
      if (i % stride != 0 && i + 4 < vals.size()) continue;
      pts.push_back(vals[i]);
      if (i + 1 < vals.size()) pts.push_back((vals[i] + vals[i + 1]) / 2);
    }
    if (vals.size() >= 2) pts.push_back(vals.back() + (vals.back() - vals[vals.size() - 2]) / 2);
    for (double p : pts) {
      const std::uint64_t b = f64_bits(p);
      const std::int64_t nudges[] = {0, 1, -1, 2, -2, 3, -3, 1ll << 28, -(1ll << 28),
                                     (1ll << 28) + 1, -(1ll << 28) - 1, (1ll << 28) - 1,
                                     -(1ll << 28) + 1, 1ll << 29, -(1ll << 29)};
      for (std::int64_t d : nudges)
        for (std::uint64_t sign : {0ull, 0x8000000000000000ull}) {
          const std::int64_t c = static_cast<std::int64_t>(b) + d;
          if (c >= 0 && c < 0x7FF0000000000000ll) v.push_back(static_cast<std::uint64_t>(c) | sign);
        }
    }
  }
  for (std::uint64_t sign : {0ull, 0x8000000000000000ull})
    for (std::uint64_t e = 0; e < 2048; ++e) {
      const std::uint64_t base = sign | (e << 52);
      const std::uint64_t mask = (1ull << 52) - 1;
      for (std::uint64_t m : {std::uint64_t{0}, std::uint64_t{1}, mask, std::uint64_t{1} << 51,
                             (std::uint64_t{1} << 51) + 1, std::uint64_t{1} << 50})
        v.push_back(base | m);
      // Near the f32 range the exponents matter most; elsewhere a few samples suffice.
      const int e_unb = static_cast<int>(e) - 1023;
      const int n = (e_unb >= -160 && e_unb <= 140) ? 1000 : 8;
      for (int k = 0; k < n; ++k) v.push_back(base | (rng.next() & mask));
    }
  return v;
}

// Runs body(begin, end) over [0, n) split across FPCONFORM_THREADS threads (else the machine's).
inline void parallel_for(std::uint64_t n, const std::function<void(std::uint64_t, std::uint64_t)>& body) {
  const unsigned t = n < (1u << 16) ? 1 : default_thread_count();
  const std::uint64_t chunk = (n + t - 1) / t;
  fpconform::parallel_for(t, t, [&](std::size_t i) {
    const std::uint64_t b = i * chunk, e = std::min(n, b + chunk);
    if (b < e) body(b, e);
  });
}

// The mismatch lines to print: the `k` with the smallest keys (input codes), so the list does not
// depend on which worker found which mismatch first. The caller holds the lock.
using FirstLines = std::vector<std::pair<std::uint64_t, std::string>>;
inline void keep_first(FirstLines& v, std::size_t k, std::uint64_t key, std::string line) {
  const auto it = std::upper_bound(v.begin(), v.end(), key,
                                   [](std::uint64_t a, const auto& p) { return a < p.first; });
  if (v.size() >= k && it == v.end()) return;
  v.insert(it, {key, std::move(line)});
  if (v.size() > k) v.pop_back();
}

}  // namespace fpconform::peers
