// A second way to round, for formats of <= 12 bits: list every representable value (plus the
// grid continued past maxf, and a virtual 0 below minpos for formats without zero), find the
// two neighbours of |x| by search, and apply SEMANTICS.md's rules with plain double arithmetic
// (every quantity here is exact in a double). The oracle's grid arithmetic must agree on every
// point: the values, all midpoints and quarter points, points just off the midpoints, random
// points, and values far outside the range.
//
// Tininess after rounding is modelled with its own p-bit rounding in x's binade.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "test_util.hpp"

using namespace reftest;
namespace ref = fpconform::reference;
using M = RoundingMode;
using S = Saturation;

namespace {

struct Entry {
  double value;
  std::int64_t code;  // magnitude code; -1 for the virtual zero of a format without zero
};

struct Model {
  Format f;
  std::vector<Entry> ext;  // ascending: [0 or virtual 0], finite values, continued grid
  double maxf = 0, minnormal = 0;
  std::uint64_t maxcode = 0, sign = 0, nancode_pos = 0, nancode_neg = 0, infcode = 0;
  bool has_nan = false, has_inf = false, neg_zero = false;
};

// Value of magnitude code c with an unbounded exponent field (the grid past maxf).
double grid_value(const Format& f, std::uint64_t c) {
  const std::uint64_t e = c >> f.man_bits, t = c & ((std::uint64_t{1} << f.man_bits) - 1);
  if (e == 0 && f.subnormals) return std::ldexp(static_cast<double>(t), 1 - f.bias - f.man_bits);
  return std::ldexp(static_cast<double>((std::uint64_t{1} << f.man_bits) + t),
                    static_cast<int>(e) - f.bias - f.man_bits);
}

Model build(const char* name) {
  Model md;
  md.f = fmt(name);
  const Format& f = md.f;
  const int w = f.width();
  md.sign = f.is_signed ? std::uint64_t{1} << (w - 1) : 0;
  const std::uint64_t nmag = std::uint64_t{1} << (f.exp_bits + f.man_bits);
  // finite magnitudes (positive codes), by classification of every code
  std::vector<Entry> fin;
  for (std::uint64_t c = 0; c < nmag; ++c) {
    const auto k = ref::classify(c, f);
    if (k == ref::CodeClass::finite || k == ref::CodeClass::zero) fin.push_back({val(c, f), (std::int64_t)c});
    if (k == ref::CodeClass::inf) md.infcode = c, md.has_inf = true;
  }
  for (size_t i = 0; i < fin.size(); ++i) EXPECT_EQ(fin[i].code, (std::int64_t)i) << name;
  if (!f.has_zero) md.ext.push_back({0.0, -1});
  md.ext.insert(md.ext.end(), fin.begin(), fin.end());
  md.maxcode = fin.back().code;
  md.maxf = fin.back().value;
  for (std::uint64_t c = md.maxcode + 1; grid_value(f, c - 1) <= 8 * md.maxf; ++c)
    md.ext.push_back({grid_value(f, c), (std::int64_t)c});
  for (size_t i = 1; i < md.ext.size(); ++i) EXPECT_LT(md.ext[i - 1].value, md.ext[i].value);
  md.minnormal = grid_value(f, f.subnormals ? std::uint64_t{1} << f.man_bits : 0);
  // NaN codes, by classification
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << w); ++c) {
    if (ref::classify(c, f) != ref::CodeClass::nan) continue;
    md.has_nan = true;
  }
  md.neg_zero = f.is_signed && f.has_zero && f.nan != fpconform::NanEncoding::negative_zero;
  return md;
}

// The default quiet NaN of the model's format with sign `neg` (per the encodings).
std::uint64_t model_nan(const Model& md, bool neg) {
  const Format& f = md.f;
  const std::uint64_t s = neg ? md.sign : 0;
  switch (f.nan) {
    case fpconform::NanEncoding::ieee:
      return s | (((std::uint64_t{1} << f.exp_bits) - 1) << f.man_bits) |
             (std::uint64_t{1} << (f.man_bits - 1));
    case fpconform::NanEncoding::all_ones:
      return s | ((std::uint64_t{1} << (f.exp_bits + f.man_bits)) - 1);
    case fpconform::NanEncoding::negative_zero: return md.sign;
    case fpconform::NanEncoding::max_code: return (std::uint64_t{1} << f.width()) - 1;
    default: return 0;
  }
}

OracleResult expected(const Model& md, double x, const Rounding& r) {
  const Format& f = md.f;
  const bool neg = x < 0;
  const double ax = std::fabs(x);
  if (neg && !f.is_signed) return {md.has_nan ? model_nan(md, false) : 0, INV};
  // neighbours
  auto it = std::upper_bound(md.ext.begin(), md.ext.end(), ax,
                             [](double v, const Entry& e) { return v < e.value; });
  EXPECT_TRUE(it != md.ext.begin() && it != md.ext.end());
  const Entry hi = *it, lo = *(it - 1);
  const double f_ = (ax - lo.value) / (hi.value - lo.value);  // exact: the gap is 2^k
  const bool inexact = f_ != 0;
  const bool lo_odd = lo.code >= 0 && (lo.code & 1);
  bool away = false;
  if (inexact) {
    const int n = r.stochastic_bits;
    const double two_n = std::ldexp(1.0, n);
    const double rr = static_cast<double>(r.random & ((std::uint64_t{1} << n) - 1));
    switch (r.mode) {
      case M::rne: away = f_ > 0.5 || (f_ == 0.5 && lo_odd); break;
      case M::rna: away = f_ >= 0.5; break;
      case M::rtz: away = false; break;
      case M::up: away = !neg; break;
      case M::down: away = neg; break;
      case M::odd: away = !lo_odd; break;
      case M::stochastic_a: away = std::nearbyint(f_ * two_n) + rr >= two_n; break;
      case M::stochastic_b: away = f_ + (rr + 0.5) / two_n >= 1; break;
      case M::stochastic_c: away = std::floor(f_ * two_n) + rr >= two_n; break;
      case M::stochastic_exact: away = rr < f_ * two_n; break;
    }
  }
  const Entry y = away ? hi : lo;
  bool tiny = ax < md.minnormal;  // before rounding
  if (tiny && r.tininess == Tininess::after_rounding) {
    // |x| rounded to p bits, exponent unbounded: quantum 2^(e-m) in x's own binade.
    int e2;
    std::frexp(ax, &e2);
    const int e = e2 - 1;
    const double quantum = std::ldexp(1.0, e - f.man_bits);
    const double k = std::floor(ax / quantum), g = ax / quantum - k;  // exact
    const bool odd = f.man_bits == 0 ? ((e + f.bias) & 1) != 0 : std::fmod(k, 2) == 1;
    bool up = false;
    if (g != 0) {
      const int n = r.stochastic_bits;
      const double two_n = std::ldexp(1.0, n);
      const double rr = static_cast<double>(r.random & ((std::uint64_t{1} << n) - 1));
      switch (r.mode) {
        case M::rne: up = g > 0.5 || (g == 0.5 && odd); break;
        case M::rna: up = g >= 0.5; break;
        case M::rtz: break;
        case M::up: up = !neg; break;
        case M::down: up = neg; break;
        case M::odd: up = !odd; break;
        case M::stochastic_a: up = std::nearbyint(g * two_n) + rr >= two_n; break;
        case M::stochastic_b: up = g + (rr + 0.5) / two_n >= 1; break;
        case M::stochastic_c: up = std::floor(g * two_n) + rr >= two_n; break;
        case M::stochastic_exact: up = rr < g * two_n; break;
      }
    }
    tiny = (k + (up ? 1 : 0)) * quantum < md.minnormal;
  }
  auto zero_code = [&]() -> std::uint64_t {
    if (!f.has_zero) return neg ? md.sign : 0;  // minpos (magnitude code 0), sign kept
    return neg && md.neg_zero ? md.sign : 0;
  };
  if (r.ftz && tiny) return {zero_code(), UF | IX};
  std::uint8_t fl = 0;
  if (inexact) fl |= IX;
  if (tiny && inexact) fl |= UF;
  if (y.value > md.maxf) {
    fl |= OF | IX;
    std::uint64_t code = (neg ? md.sign : 0) | md.maxcode;
    const bool goes_away = r.mode == M::rne || r.mode == M::rna || r.mode >= M::stochastic_a ||
                           (r.mode == M::up && !neg) || (r.mode == M::down && neg);
    if (r.sat == S::none && goes_away) {
      if (md.has_inf) code = (neg ? md.sign : 0) | md.infcode;
      else if (md.has_nan) code = model_nan(md, neg);
    }
    return {code, fl};
  }
  if (y.value == 0) return {zero_code(), fl};
  return {(neg ? md.sign : 0) | static_cast<std::uint64_t>(y.code), fl};
}

void check_format(const char* name, long& checked) {
  const Model md = build(name);
  std::mt19937_64 rng(std::hash<std::string>{}(name));
  std::vector<double> pts;
  for (size_t i = 0; i + 1 < md.ext.size(); ++i) {
    const double lo = md.ext[i].value, gap = md.ext[i + 1].value - lo;
    for (double q : {0.0, 0.25, 0.5, 0.75}) pts.push_back(lo + gap * q);
    pts.push_back(lo + gap * (0.5 - 0x1p-40));
    pts.push_back(lo + gap * (0.5 + 0x1p-40));
    pts.push_back(lo + gap * 0x1p-40);
    pts.push_back(lo + gap * (1 - 0x1p-40));
    pts.push_back(lo + gap * std::ldexp(static_cast<double>(rng() >> 34), -30));
  }
  const double minpos = md.ext[md.f.has_zero ? 1 : 1].value;
  pts.push_back(minpos * 0x1p-30);
  pts.push_back(md.maxf * 7.5);
  long bad = 0;
  for (double p : pts) {
    if (p == 0) continue;
    for (double x : {p, -p}) {
      for (int mi = 0; mi < 10; ++mi) {
        Rounding r;
        r.mode = static_cast<M>(mi);
        r.sat = static_cast<S>(rng() % 3);
        r.ftz = rng() % 4 == 0;
        r.tininess = rng() & 1 ? Tininess::before_rounding : Tininess::after_rounding;
        r.stochastic_bits = static_cast<int>(rng() % 17);
        r.random = rng();
        const OracleResult want = expected(md, x, r);
        const OracleResult got = rd(x, md.f, r);
        ++checked;
        if (!(want == got) && ++bad <= 8)
          ADD_FAILURE() << name << " x=" << x << " mode " << mi << " sat " << int(r.sat)
                        << " ftz " << r.ftz << " n " << r.stochastic_bits << " r " << r.random
                        << ": oracle 0x" << std::hex << got.bits << "/" << int(got.flags)
                        << ", enumeration 0x" << want.bits << "/" << int(want.flags);
      }
    }
  }
  EXPECT_EQ(bad, 0) << name;
}

}  // namespace

TEST(Enumeration, SmallFormatsAgree) {
  long checked = 0;
  for (const char* name :
       {"e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e3m4", "e4m3ieee", "e3m2", "e2m3",
        "e2m1", "ue8m0", "binary8p1se", "binary8p1sf", "binary8p1ue", "binary8p1uf",
        "binary8p2se", "binary8p3sf", "binary8p3se", "binary8p4se", "binary8p4sf", "binary8p4ue",
        "binary8p4uf", "binary8p5se", "binary8p6sf", "binary8p7se", "binary8p7sf", "binary8p7uf",
        "binary6p3se", "binary4p2sf", "binary12p5se",
        "custom:e=3,m=0,inf=none,nan=none", "custom:e=3,m=0,inf=ieee,nan=none",
        "custom:e=4,m=2,signed=1,subnormals=0,zero=0,inf=none,nan=none",
        "custom:e=5,m=2,inf=none,nan=ones", "custom:e=3,m=3,signed=0,inf=ieee,nan=ieee",
        "custom:e=4,m=3,bias=3,inf=top,nan=negzero", "custom:e=2,m=2,bias=-3,inf=none,nan=none"})
    check_format(name, checked);
  RecordProperty("checked", static_cast<int>(checked));
  std::printf("enumeration: %ld cases\n", checked);
}
