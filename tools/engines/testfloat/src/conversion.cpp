// <fmt>_to_<fmt>: one rounding of a decoded code into another format. The pattern set follows
// TestFloat's idea (sign x special exponents x significand patterns, plus the specials) and
// adds what matters for narrowing into small formats: the exponents where the target's range
// ends and its subnormals begin, the tie points of the target's precision at each of them,
// and, for every chosen target code, the source codes around the code's value, the midpoint
// to its successor (the tie) and, past max finite, the overflow threshold.
#include <algorithm>

#include "codes.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/reference/oracle.hpp"
#include "fpconform/testfloat/function.hpp"
#include "fpconform/testfloat/generate.hpp"

namespace fpconform::testfloat {

namespace {

using detail::CodeSet;
using detail::low_mask;

// A non-negative dyadic value sig * 2^exp (sig may be 0).
struct Dyadic {
  u128 sig = 0;
  int exp = 0;
};

Dyadic dyadic_of(const ExactValue& v) {
  if (!v.is_finite_nonzero()) return {};
  return {v.sig, v.exp};
}

Dyadic midpoint(const Dyadic& a, const Dyadic& b) {
  if (a.sig == 0) return {b.sig, b.exp - 1};
  if (b.sig == 0) return {a.sig, a.exp - 1};
  const int e = std::min(a.exp, b.exp);
  // Adjacent codes differ in exponent by at most one: the shifts are tiny.
  return {(a.sig << (a.exp - e)) + (b.sig << (b.exp - e)), e - 1};
}

class Conversion final : public Function {
 public:
  Conversion(const Format& from, const Format& to)
      : Function(from.name + "_to_" + to.name, Signature{{from}, to}), from_(from), to_(to) {}

  Result emu(const std::uint64_t* ops, const Options& o) const override {
    const Rounded r = o.profile
                          ? convert_with_profile(ops[0], from_, to_, *o.profile, o.user, "--profile")
                          : convert(ops[0], from_, to_, o.rounding);
    return {r.bits, r.flags.bits};
  }

  Result oracle(const std::uint64_t* ops, const Options& o) const override {
    if (o.profile)
      throw Error("--profile", "the MPFR oracle models emu/SEMANTICS.md, not a library's "
                               "behaviour; use eval --profile for a profile's results");
    const reference::OracleResult r = reference::convert(ops[0], from_, to_, o.rounding);
    return {r.bits, r.flags};
  }

  std::vector<Operands> patterns(int level) const override;
  void random_case(Rng& rng, int level, std::uint64_t* ops) const override;

 private:
  void add_structured(CodeSet& set, int level) const;
  void add_target_points(CodeSet& set, int level) const;
  std::vector<std::uint64_t> target_codes(int level) const;
  // The source magnitude code at or below |v| (saturating at max finite; the smallest code for
  // values below the smallest).
  std::uint64_t source_code_below(const Dyadic& v) const;
  std::vector<std::uint64_t> signs() const { return detail::sign_codes(from_); }

  Format from_, to_;
};

void Conversion::add_structured(CodeSet& set, int level) const {
  const Format& s = from_;
  const Format& t = to_;
  const int m = s.man_bits;
  const std::int64_t max_field = detail::max_exponent_field(s);
  const std::uint64_t all = low_mask(m);

  std::vector<std::int64_t> fields = detail::base_exponent_fields(s);
  auto add_field = [&](std::int64_t f) {
    if (f >= 0 && f <= max_field) detail::add_unique(fields, f);
  };
  // Where the target's range ends, its normals begin, and its subnormals run out.
  const int temin = t.emin(), temax = t.emax();
  std::vector<std::int64_t> window;
  for (int d = -2; d <= 1; ++d) window.push_back(temin + d);
  for (int d = -1; d <= 2; ++d) window.push_back(temax + d);
  if (t.subnormals)
    for (int d = -3; d <= 1; ++d) window.push_back(temin - t.man_bits + d);
  for (std::int64_t e : window) add_field(e + s.bias);
  if (level >= 2) {
    for (std::int64_t e = temin - t.man_bits - 4; e <= temax + 3; ++e) add_field(e + s.bias);
    const std::int64_t step = std::max<std::int64_t>(1, max_field / 64);
    for (std::int64_t f = 0; f <= max_field; f += step) add_field(f);
  }

  // Significand patterns that do not depend on the exponent.
  const std::vector<std::uint64_t> general = detail::significand_patterns(m, level);

  const std::uint64_t tmax_frac = t.max_finite_code() & low_mask(t.man_bits);
  for (std::int64_t field : fields) {
    std::vector<std::uint64_t> sigs = general;
    auto add_sig = [&](std::uint64_t v) { detail::add_unique(sigs, v & all); };
    // Ties of the target's precision at this exponent (normal source codes only).
    if (field >= s.min_normal_field() && m > 0) {
      const std::int64_t e = field - s.bias;
      std::int64_t kept = t.man_bits;
      if (t.subnormals && e < temin) kept -= temin - e;
      const std::int64_t d = m - kept;  // source fraction bits the target drops
      if (kept >= 0 && d >= 1 && d <= m) {
        const int di = static_cast<int>(d);
        const std::uint64_t half = 1ull << (di - 1), lowm = low_mask(di);
        std::vector<std::uint64_t> lows = {0, 1, half - 1, half, half + 1, lowm};
        if (level >= 2)
          for (std::uint64_t v : {half - 2, half + 2, lowm - 1, half | (half >> 1)}) lows.push_back(v);
        const std::uint64_t kept_all = all & ~lowm;
        std::vector<std::uint64_t> highs = {0, kept_all};
        if (di < m) {
          const std::uint64_t lsb = 1ull << di;
          highs.push_back(lsb);
          highs.push_back(kept_all & ~lsb);
        }
        if (e == temax && m >= t.man_bits && di < 64) {
          // Around the target's max finite significand.
          const std::uint64_t mf = tmax_frac << di;
          highs.push_back(mf);
          if (tmax_frac > 0) highs.push_back((tmax_frac - 1) << di);
          highs.push_back((tmax_frac + 1) << di);
        }
        for (std::uint64_t h : highs)
          for (std::uint64_t l : lows) add_sig((h & ~lowm) | (l & lowm));
      }
    }
    for (std::uint64_t sign : signs())
      for (std::uint64_t sig : sigs)
        set.add(sign | (static_cast<std::uint64_t>(field) << m) | sig);
  }
}

std::vector<std::uint64_t> Conversion::target_codes(int level) const {
  const Format& t = to_;
  const std::uint64_t maxf = t.max_finite_code();
  std::vector<std::uint64_t> codes;
  if (t.width() <= (level >= 2 ? 16 : 8)) {
    for (std::uint64_t c = 0; c <= maxf; ++c) codes.push_back(c);
    return codes;
  }
  auto add = [&](std::int64_t c) {
    if (c >= 0 && static_cast<std::uint64_t>(c) <= maxf) codes.push_back(static_cast<std::uint64_t>(c));
  };
  const auto mn = static_cast<std::int64_t>(t.min_normal_code());
  // The code of 1.0 (exponent field = bias), where the format has it.
  const std::int64_t one = t.bias >= 0 && static_cast<std::uint64_t>(t.bias) <= low_mask(t.exp_bits)
                               ? static_cast<std::int64_t>(static_cast<std::uint64_t>(t.bias) << t.man_bits)
                               : -100;
  for (std::int64_t c : {0, 1, 2, 3}) add(c);
  for (std::int64_t d = -2; d <= 2; ++d) add(mn + d);
  for (std::int64_t d = -2; d <= 2; ++d) add(one + d);
  for (std::int64_t d = 3; d >= 0; --d) add(static_cast<std::int64_t>(maxf) - d);
  if (level >= 2) {
    const std::uint64_t fracs = low_mask(t.man_bits);
    for (std::uint64_t f = 0; f <= low_mask(t.exp_bits); ++f)
      for (std::uint64_t fr : {std::uint64_t{0}, std::uint64_t{1}, fracs >> 1, fracs})
        add(static_cast<std::int64_t>((f << t.man_bits) | fr));
  }
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  return codes;
}

std::uint64_t Conversion::source_code_below(const Dyadic& v) const {
  if (v.sig == 0) return 0;
  Rounding rtz;
  rtz.mode = RoundingMode::rtz;
  rtz.sat = Saturation::finite;
  const Rounded r = round_to_format(ExactValue::finite(false, v.sig, v.exp), from_, rtz);
  return r.bits & from_.magnitude_mask();
}

void Conversion::add_target_points(CodeSet& set, int level) const {
  const Format& t = to_;
  const std::uint64_t maxf = t.max_finite_code();
  const std::uint64_t smax = from_.max_finite_code();
  const int reach = level >= 2 ? 2 : 1;
  for (std::uint64_t c : target_codes(level)) {
    if (t.is_nan_code(c) || t.is_inf_code(c)) continue;
    const Dyadic vc = dyadic_of(decode(c, t));
    Dyadic vn;
    if (c < maxf) {
      vn = dyadic_of(decode(c + 1, t));
    } else {
      vn = {vc.sig + 1, vc.exp};  // one ulp past max finite: the overflow side
    }
    for (const Dyadic& p : {vc, midpoint(vc, vn), vn}) {
      if (p.sig == 0) continue;
      const auto k = static_cast<std::int64_t>(source_code_below(p));
      for (std::int64_t d = -reach; d <= reach; ++d) {
        const std::int64_t kk = k + d;
        if (kk < 0 || static_cast<std::uint64_t>(kk) > smax) continue;
        for (std::uint64_t sign : signs()) set.add(sign | static_cast<std::uint64_t>(kk));
      }
    }
  }
}

std::vector<Operands> Conversion::patterns(int level) const {
  CodeSet set(from_.code_mask());
  detail::add_special_codes(set, from_);
  if (from_.width() <= (level >= 2 ? 16 : 8)) {
    for (std::uint64_t c = 0; c <= from_.code_mask(); ++c) set.add(c);
  } else {
    add_structured(set, level);
    add_target_points(set, level);
  }
  std::vector<Operands> out;
  out.reserve(set.codes().size());
  for (std::uint64_t c : set.codes()) out.push_back(Operands{c, 0, 0});
  return out;
}

void Conversion::random_case(Rng& rng, int level, std::uint64_t* ops) const {
  const Format& s = from_;
  const Format& t = to_;
  const std::uint64_t sign = s.is_signed && (rng.next() & 1) ? s.sign_mask() : 0;
  const std::uint64_t kind = rng.below(level >= 2 ? 8 : 4);
  if (kind == 0) {  // uniform over all codes
    ops[0] = rng.next() & s.code_mask();
    return;
  }
  const std::uint64_t maxf = t.max_finite_code();
  const std::uint64_t smax = s.max_finite_code();
  if (kind == 1) {
    // Uniform exponent in the target's window, random significand.
    const std::int64_t lo = t.emin() - t.man_bits - 2 + s.bias, hi = t.emax() + 1 + s.bias;
    const std::int64_t flo = std::max<std::int64_t>(lo, 0);
    const std::int64_t fhi = std::min<std::int64_t>(hi, static_cast<std::int64_t>(low_mask(s.exp_bits)));
    if (flo <= fhi) {
      const auto field = static_cast<std::uint64_t>(rng.between(flo, fhi));
      ops[0] = sign | (((field << s.man_bits) | (rng.next() & low_mask(s.man_bits))) & s.magnitude_mask());
      return;
    }
    ops[0] = rng.next() & s.code_mask();
    return;
  }
  // Near a target code's value or the midpoint to its successor: the rounding boundaries.
  const std::uint64_t c = rng.below(maxf + 1);
  const Dyadic vc = dyadic_of(decode(c, t));
  const Dyadic vn = c < maxf ? dyadic_of(decode(c + 1, t)) : Dyadic{vc.sig + 1, vc.exp};
  const Dyadic p = (kind & 1) ? vc : midpoint(vc, vn);
  const auto k = static_cast<std::int64_t>(p.sig == 0 ? 0 : source_code_below(p));
  std::int64_t delta = rng.between(-3, 3);
  if (level >= 2 && rng.below(4) == 0) delta = rng.between(-64, 64);
  const std::int64_t kk = std::clamp<std::int64_t>(k + delta, 0, static_cast<std::int64_t>(smax));
  ops[0] = sign | static_cast<std::uint64_t>(kk);
}

}  // namespace

std::unique_ptr<Function> make_conversion(const Format& from, const Format& to) {
  return std::make_unique<Conversion>(from, to);
}

}  // namespace fpconform::testfloat
