// Boundary inputs for wide sources (f32, f64) against a target format.
//
// Generation only: which inputs are interesting. Nothing here decides a result, so it may use
// native float arithmetic freely. Target values are worked out from the Format's data fields.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "fpconform/core/splitmix.hpp"
#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::conformance {

namespace {

// A counter-based generator: value i of stream (seed, salt).
// (next() hashes the counter after the step: not SplitMix64's sequence, and kept so that the
// sampled inputs, and the report's figures, stay the same.)
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(splitmix64(seed)) {}
  std::uint64_t next() {
    state += kSplitMixGamma;
    return splitmix64(state);
  }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
};

// The source: an IEEE binary32/binary64 layout.
struct Source {
  int p = 0;        // precision
  int m = 0;        // fraction bits
  int bias = 0;
  int width = 0;
  bool is_double = false;
  std::uint64_t sign = 0, inf = 0;  // sign bit, +inf code
  int emin() const { return 1 - bias; }
  int emax() const { return bias; }
};

Source source_of(const Format& f) {
  const bool ieee = f.is_signed && f.subnormals && f.has_zero && f.inf == InfEncoding::ieee &&
                    f.nan == NanEncoding::ieee;
  Source s;
  if (ieee && f.exp_bits == 8 && f.man_bits == 23 && f.bias == 127) {
    s.is_double = false;
  } else if (ieee && f.exp_bits == 11 && f.man_bits == 52 && f.bias == 1023) {
    s.is_double = true;
  } else {
    throw Error("inputs", "boundary inputs need an f32 or f64 source, not " + f.name);
  }
  s.m = f.man_bits;
  s.p = s.m + 1;
  s.bias = f.bias;
  s.width = f.width();
  s.sign = std::uint64_t{1} << (s.width - 1);
  s.inf = ((std::uint64_t{1} << f.exp_bits) - 1) << f.man_bits;
  return s;
}

// Nearest source code to a non-negative long double (round to nearest even, as the cast does).
std::uint64_t nearest_code(const Source& s, long double v) {
  if (s.is_double) {
    const double d = static_cast<double>(v);
    return std::bit_cast<std::uint64_t>(d);
  }
  const float f = static_cast<float>(v);
  return std::bit_cast<std::uint32_t>(f);
}

long double source_value(const Source& s, std::uint64_t code) {
  if (s.is_double) return std::bit_cast<double>(code);
  return std::bit_cast<float>(static_cast<std::uint32_t>(code));
}

// Finite target magnitudes and their values, from the data fields: every magnitude code from
// 0 (or the smallest) to the largest finite one is finite, and codes order like values.
struct TargetGrid {
  std::vector<long double> values;  // ascending, positive finite (zero first where it exists)
  int m = 0, emin = 0, emax = 0;
  long double maxf = 0, minpos = 0;
  bool has_zero = true;
};

long double target_value(const Format& t, std::uint64_t mag) {
  const std::uint64_t E = mag >> t.man_bits;
  const std::uint64_t T = mag & ((std::uint64_t{1} << t.man_bits) - 1);
  if (t.has_zero && mag == 0) return 0.0L;
  if (E == 0 && t.subnormals)
    return std::ldexp(static_cast<long double>(T), 1 - t.bias - t.man_bits);
  return std::ldexp(static_cast<long double>((std::uint64_t{1} << t.man_bits) | T),
                    static_cast<int>(E) - t.bias - t.man_bits);
}

TargetGrid target_grid(const Format& t, std::uint64_t cap, std::uint64_t seed) {
  TargetGrid g;
  g.m = t.man_bits;
  g.has_zero = t.has_zero;
  const std::uint64_t top = t.max_finite_code();
  const std::uint64_t lo = 0;
  g.maxf = target_value(t, top);
  g.minpos = target_value(t, t.has_zero ? 1 : 0);
  g.emin = (t.subnormals ? 1 : 0) - t.bias;
  g.emax = std::ilogb(g.maxf);
  if (top - lo + 1 <= cap) {
    g.values.reserve(top - lo + 1);
    for (std::uint64_t c = lo; c <= top; ++c) g.values.push_back(target_value(t, c));
    return g;
  }
  // Wide target: per exponent field, the first and last few codes and some random ones; the
  // consecutive pairs (c, c+1) are what matters, so keep codes in adjacent pairs.
  Rng rng(seed ^ 0x7461726765747631ull);
  std::vector<std::uint64_t> codes;
  const std::uint64_t fr = std::uint64_t{1} << t.man_bits;
  const std::uint64_t fields = (top >> t.man_bits) + 1;
  for (std::uint64_t E = 0; E < fields; ++E) {
    const std::uint64_t base = E << t.man_bits;
    for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, fr / 2 - 1,
                            fr / 2, fr - 2, fr - 1}) {
      if (k >= fr) continue;
      codes.push_back(base + k);
      codes.push_back(base + k + 1);
    }
    for (int j = 0; j < 2; ++j) {
      const std::uint64_t k = rng.below(fr);
      codes.push_back(base + k);
      codes.push_back(base + k + 1);
    }
  }
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  for (std::uint64_t c : codes)
    if (c <= top) g.values.push_back(target_value(t, c));
  return g;
}

class Collector {
 public:
  explicit Collector(const Source& s) : s_(s) {}
  // v >= 0 (long double): the nearest source value and +-1, +-2 ulps, both signs.
  void around(long double v, int ulps = 2) {
    if (!(v >= 0) || std::isnan(v)) return;
    const std::uint64_t c = nearest_code(s_, v);
    for (int d = -ulps; d <= ulps; ++d) {
      const std::int64_t k = static_cast<std::int64_t>(c) + d;
      if (k < 0 || static_cast<std::uint64_t>(k) > s_.inf) continue;
      both(static_cast<std::uint64_t>(k));
    }
  }
  // Exactly v if representable (both signs), else nothing.
  void exact(long double v) {
    if (!(v >= 0)) return;
    const std::uint64_t c = nearest_code(s_, v);
    if (source_value(s_, c) == v) both(c);
  }
  void both(std::uint64_t mag) {
    out_.push_back(mag);
    out_.push_back(mag | s_.sign);
  }
  void raw(std::uint64_t code) { out_.push_back(code); }
  std::vector<std::uint64_t> take() {
    std::sort(out_.begin(), out_.end());
    out_.erase(std::unique(out_.begin(), out_.end()), out_.end());
    return std::move(out_);
  }

 private:
  const Source& s_;
  std::vector<std::uint64_t> out_;
};

void add_specials(Collector& c, const Source& s) {
  c.both(0);
  c.both(s.inf);
  const std::uint64_t q = std::uint64_t{1} << (s.m - 1);  // quiet bit
  const std::uint64_t pay = q - 1;                         // payload mask
  std::vector<std::uint64_t> fracs = {q, q | 1, q | pay, q | (q >> 1), q | (0x5555555555555555ull & pay),
                                      q | (0xAAAAAAAAAAAAAAAAull & pay), 1, pay, q >> 1, (q >> 1) | 1,
                                      0x5555555555555555ull & pay, 0xAAAAAAAAAAAAAAAAull & pay};
  // Every single payload bit, quiet and signaling: covers the truncation point of every
  // target's payload width.
  for (int j = 0; j < s.m - 1; ++j) {
    fracs.push_back(q | (std::uint64_t{1} << j));
    fracs.push_back(std::uint64_t{1} << j);
    fracs.push_back(q | (pay & ~((std::uint64_t{1} << j) - 1)));  // top payload bits down to j
  }
  for (std::uint64_t f : fracs)
    if (f != 0) c.both(s.inf | f);
}

void add_target_boundaries(Collector& c, const Source& s, const TargetGrid& g) {
  const auto& v = g.values;
  for (std::size_t i = 0; i < v.size(); ++i) {
    c.around(v[i]);
    if (i + 1 < v.size()) {
      const long double mid = (v[i] + v[i + 1]) / 2;
      c.around(mid);
      // a quarter and three quarters: RNE vs stochastic fractions
      c.around(v[i] + (v[i + 1] - v[i]) / 4, 1);
      c.around(v[i + 1] - (v[i + 1] - v[i]) / 4, 1);
    }
  }
  // Top of the range: maxf, the overflow threshold (maxf + half an ulp), the next value and
  // the next power of two.
  const long double ulp = std::ldexp(1.0L, g.emax - g.m);
  c.around(g.maxf, 3);
  c.around(g.maxf + ulp / 2, 3);
  c.around(g.maxf + ulp, 3);
  c.around(g.maxf + ulp * 3 / 2, 2);
  c.around(std::ldexp(1.0L, g.emax + 1), 3);
  c.around(std::ldexp(1.0L, g.emax + 2), 1);
  // Bottom: the subnormal boundary, minpos, its half point and below.
  const long double two_emin = std::ldexp(1.0L, g.emin);
  c.around(two_emin, 3);
  c.around(two_emin - g.minpos / 2, 3);
  c.around(g.minpos, 3);
  c.around(g.minpos / 2, 3);
  c.around(g.minpos * 3 / 4, 2);
  c.around(g.minpos / 4, 2);
  c.around(g.minpos * 3 / 2, 2);
  c.around(two_emin / 2, 2);
  c.around(two_emin * 3 / 4, 2);
  (void)s;
}

// For every binade of the source: its ends, a few points inside, and the target's first and
// last tie at that scale (also where every value overflows or underflows).
void add_source_binades(Collector& c, const Source& s, const TargetGrid& g) {
  for (int e = s.emin() - s.m; e <= s.emax(); ++e) {
    const long double b = std::ldexp(1.0L, e);
    c.around(b, 1);
    c.exact(b * 1.5L);
    c.exact(b * 1.25L);
    c.exact(b * 1.75L);
    c.around(std::ldexp(1.0L, e + 1), 1);  // the largest value of the binade is 1 ulp below
    const int q = std::max(e, g.emin) - g.m;  // target quantum at this scale
    if (q - 1 >= e - s.m && q - 1 < e) {
      const long double h = std::ldexp(1.0L, q - 1);
      c.around(b + h, 1);
      c.around(b + 3 * h, 1);
      c.around(2 * b - h, 1);
    }
  }
}

std::vector<long double> ties_of(const TargetGrid& g) {
  std::vector<long double> t;
  for (std::size_t i = 0; i + 1 < g.values.size(); ++i)
    t.push_back((g.values[i] + g.values[i + 1]) / 2);
  // Past maxf: the overflow threshold.
  t.push_back(g.maxf + std::ldexp(1.0L, g.emax - g.m - 1));
  return t;
}

struct RandomPart {
  Source s;
  std::shared_ptr<const std::vector<long double>> targets;  // values and ties
  int elo = 0, ehi = 0;
  std::uint64_t seed = 0;

  std::uint64_t code(std::uint64_t i) const {
    std::uint64_t h = splitmix64(seed * 0xD1B54A32D192ED03ull + i);
    const std::uint64_t kind = h % 3;
    h = splitmix64(h);
    const std::uint64_t mask = s.width >= 64 ? ~0ull : (std::uint64_t{1} << s.width) - 1;
    if (kind == 0 || targets->empty()) return h & mask;  // uniform over all codes
    const bool neg = (h >> 63) != 0;
    std::uint64_t mag;
    if (kind == 1) {
      // uniform exponent in the target's range (+- a few binades), random fraction
      const int e = elo + static_cast<int>((h >> 40) % static_cast<std::uint64_t>(ehi - elo + 1));
      const std::uint64_t h2 = splitmix64(h);
      const long double frac =
          std::ldexp(static_cast<long double>(h2 >> (64 - s.m)), -s.m);  // [0,1)
      mag = nearest_code(s, std::ldexp(1.0L + frac, e));
    } else {
      // a target value or tie, moved by a few source ulps
      const auto& t = *targets;
      const long double v = t[(h >> 8) % t.size()];
      mag = nearest_code(s, v);
      const int d = static_cast<int>((h >> 3) % 9) - 4;
      const std::int64_t k = static_cast<std::int64_t>(mag) + d;
      mag = k < 0 ? 0 : std::min<std::uint64_t>(static_cast<std::uint64_t>(k), s.inf);
    }
    return mag | (neg ? s.sign : 0);
  }
};

RandomPart make_random_part(const Source& s, const TargetGrid& g, std::uint64_t seed) {
  RandomPart r;
  r.s = s;
  r.seed = seed;
  auto t = std::make_shared<std::vector<long double>>(g.values);
  for (long double x : ties_of(g)) t->push_back(x);
  r.targets = t;
  r.elo = std::max(g.emin - g.m - 3, s.emin() - s.m);
  r.ehi = std::min(g.emax + 2, s.emax());
  if (r.ehi < r.elo) r.ehi = r.elo;
  return r;
}

}  // namespace

std::vector<std::uint64_t> boundary_inputs_core(const Format& from, const Format& to,
                                                const BoundaryOptions& opt) {
  const Source s = source_of(from);
  const TargetGrid g = target_grid(to, opt.max_target_values, opt.seed);
  Collector c(s);
  add_specials(c, s);
  add_target_boundaries(c, s, g);
  add_source_binades(c, s, g);
  std::vector<std::uint64_t> out = c.take();
  if (opt.double_rounding_traps && s.is_double) {
    std::vector<std::uint64_t> traps = double_rounding_traps(to, 1u << 16, opt.seed);
    out.insert(out.end(), traps.begin(), traps.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

InputSet boundary_input_set(const Format& from, const Format& to, const BoundaryOptions& opt) {
  auto core = std::make_shared<const std::vector<std::uint64_t>>(boundary_inputs_core(from, to, opt));
  const Source s = source_of(from);
  const TargetGrid g = target_grid(to, opt.max_target_values, opt.seed);
  const RandomPart rp = make_random_part(s, g, opt.seed);
  const std::uint64_t nc = core->size();
  const std::uint64_t total = std::max<std::uint64_t>(opt.min_total, nc + opt.min_random);
  std::string desc = std::to_string(nc) + " boundary + " + std::to_string(total - nc) +
                     " random (seed " + std::to_string(opt.seed) + ") " + from.name + " inputs";
  return InputSet(
      total,
      [core, rp, nc](std::uint64_t i) { return i < nc ? (*core)[i] : rp.code(i - nc); },
      std::move(desc));
}

std::vector<std::uint64_t> boundary_inputs(const Format& from, const Format& to,
                                           const BoundaryOptions& opt) {
  const InputSet in = boundary_input_set(from, to, opt);
  std::vector<std::uint64_t> out(in.size());
  for (std::uint64_t i = 0; i < in.size(); ++i) out[i] = in.code(i);
  return out;
}

std::vector<std::uint64_t> double_rounding_traps(const Format& to, std::uint64_t max_ties,
                                                 std::uint64_t seed) {
  const Source s = source_of(parse_format("f64"));
  const TargetGrid g = target_grid(to, 1u << 17, seed);
  std::vector<long double> ties = ties_of(g);
  // Keep at most max_ties, evenly spread, always including the first and last 64.
  std::vector<long double> pick;
  const std::size_t n = ties.size();
  const std::size_t stride = n > max_ties ? (n + max_ties - 1) / max_ties : 1;
  for (std::size_t i = 0; i < n; ++i)
    if (i < 64 || i + 64 >= n || i % stride == 0) pick.push_back(ties[i]);
  Collector c(s);
  const int p = g.m + 1;
  for (long double t : pick) {
    if (!(t > 0)) continue;
    const int et = static_cast<int>(std::floor(std::log2(t)));
    for (int k : {p + 2, p + 3, 9, 12, 17, 24, 25, 26, 29, 30, 40, 50, 52}) {
      if (k <= p + 1 || k > 52) continue;
      const long double d = std::ldexp(1.0L, et - k);
      c.exact(t + d);
      c.exact(t - d);
    }
    c.exact(t);
  }
  return c.take();
}

std::uint64_t seed_from_env(std::uint64_t fallback) {
  if (const char* e = std::getenv("FPCONFORM_SEED")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 0);
    if (end && end != e) return v;
  }
  return fallback;
}

}  // namespace fpconform::conformance
