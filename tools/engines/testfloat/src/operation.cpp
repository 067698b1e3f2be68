// <fmt>_<op>: scalar operations (add sub mul div sqrt mulAdd roundToInt, IEEE 754-2019 9.6
// minimum/maximum(Number), comparisons) on codes of one format, by emu's apply_op and the
// MPFR oracle's reference::apply_op.
//
// Patterns, TestFloat-style: per operand a duplicate-free code set (specials; exponent fields at
// the ends and middle of the range, plus those where this operation's results overflow,
// underflow, cancel or reach the integers; significand patterns), combined pairwise (a smaller
// set for three operands, with the addend chosen among specials and the values that cancel the
// product). Small formats are enumerated: every code of <= 8 bits for one operand (<= 16 at
// level 2), every pair of <= 6 bits (<= 8 at level 2), every triple of <= 4 bits (<= 6 at
// level 2). Random cases mix uniform codes with cases aimed at the operation's hard spots.
#include <algorithm>
#include <unordered_set>

#include "codes.hpp"
#include "fpconform/arith.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/reference/arith.hpp"
#include "fpconform/testfloat/function.hpp"
#include "fpconform/testfloat/generate.hpp"

namespace fpconform::testfloat {

namespace {

using detail::CodeSet;
using detail::low_mask;
using detail::make_code;

bool is_add_like(Op op) { return op == Op::add || op == Op::sub; }
bool is_mul_like(Op op) { return op == Op::mul || op == Op::div; }
// Operations whose result is one of the operands or a comparison: equal, adjacent and
// opposite operands and NaNs matter, not rounding.
bool is_selection(Op op) {
  return op_info(op).comparison || op == Op::minimum || op == Op::maximum ||
         op == Op::minimum_number || op == Op::maximum_number;
}

struct OperandsHash {
  std::size_t operator()(const Operands& o) const {
    std::uint64_t h = o[0] * 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 29) ^ o[1]) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 32) ^ o[2]) * 0x94D049BB133111EBull;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};

// Operand tuples in the order first added, each once.
class OperandSet {
 public:
  void add(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) {
    const Operands o{a, b, c};
    if (seen_.insert(o).second) out_.push_back(o);
  }
  std::vector<Operands> take() { return std::move(out_); }

 private:
  std::unordered_set<Operands, OperandsHash> seen_;
  std::vector<Operands> out_;
};

Signature signature_of(const OpInfo& info, const Format& f) {
  Signature s;
  s.operands.assign(static_cast<std::size_t>(info.arity), f);
  s.result = info.comparison ? bool_format() : f;
  s.result_digits = info.comparison ? 1 : 0;
  return s;
}

OpOptions op_options(const Options& o) {
  OpOptions x;
  x.rounding = o.rounding;
  x.nan = o.nan;
  x.exact_int = o.exact_int;
  return x;
}

// The code sets patterns are built from: every code up to all_bits wide; else specials and
// landmarks, and exponent fields x significand patterns x signs, where
//   fields 0: 0, 1, bias-1..bias+1, max finite's; 1: base_exponent_fields and the operation's
//   own (op_fields); 2: those and every max_field/12-th; 3: and every max_field/64-th;
//   sigs 0: 0, 1, top bit, all ones; 1: those, all ones - 1, alternating; 2:
//   significand_patterns level 1; 3: level 2.
struct Tier {
  int all_bits, fields, sigs;
};
enum TierName : int {
  kSmall,      // ~60 codes: mulAdd products at level 1, cubes at level 2
  kPairs1,     // <= ~300 codes: pairs at level 1, mulAdd (a, +-1, c) at level 2
  kPairs2,     // <= ~900 codes: pairs at level 2, single operands at level 1
  kSingles2,   // single operands at level 2
  kProducts2,  // ~120 codes: mulAdd products at level 2
};
constexpr Tier kTiers[] = {{4, 0, 0}, {6, 1, 1}, {8, 2, 2}, {16, 3, 3}, {6, 1, 0}};

class Operation final : public Function {
 public:
  Operation(const OpInfo& info, const Format& f)
      : Function(f.name + "_" + std::string(info.name), signature_of(info, f)),
        info_(info),
        f_(f),
        max_field_(detail::max_exponent_field(f)),
        maxf_(f.max_finite_code()) {
    CodeSet specials(f.code_mask());
    detail::add_special_codes(specials, f);
    specials_ = specials.codes();
    for (std::uint64_t c : specials_)
      if (f.is_nan_code(c)) nans_.push_back(c);
    small_ = codes(kSmall);
    medium_ = codes(kPairs1);
  }

  Result emu(const std::uint64_t* ops, const Options& o) const override {
    if (o.profile)
      throw Error("--profile",
                  "profiles model conversions; scalar operations follow "
                  "emu/SEMANTICS.md (choose the NaN results with --nan)");
    const Rounded r = apply_op(info_.op, f_, ops, op_options(o));
    return {r.bits, r.flags.bits};
  }

  Result oracle(const std::uint64_t* ops, const Options& o) const override {
    if (o.profile)
      throw Error("--profile",
                  "the MPFR oracle models emu/SEMANTICS.md, not a library's "
                  "behaviour; profiles model conversions only");
    const reference::OracleResult r = reference::apply_op(info_.op, f_, ops, op_options(o));
    return {r.bits, r.flags};
  }

  std::vector<Operands> patterns(int level) const override;
  void random_case(Rng& rng, int level, std::uint64_t* ops) const override;

 private:
  // Code sets of increasing size (see kTiers); every code when the format is narrow enough.
  std::vector<std::uint64_t> codes(int tier) const;
  std::vector<std::int64_t> op_fields(int field_set) const;
  // Addends for mulAdd patterns: specials, zeros, +-1, the extremes.
  std::vector<std::uint64_t> addends() const;
  // -round_toward_zero(a * b) and its neighbours, where a * b is finite and non-zero.
  void add_cancelling(std::uint64_t a, std::uint64_t b, std::vector<std::uint64_t>& out,
                      int reach) const;

  // ---- helpers on codes ----
  std::uint64_t magnitude(std::uint64_t c) const { return c & f_.magnitude_mask(); }
  std::uint64_t sign_of(std::uint64_t c) const { return c & f_.sign_mask(); }
  bool finite(std::uint64_t c) const { return !f_.is_nan_code(c) && !f_.is_inf_code(c); }
  std::uint64_t negate(std::uint64_t c) const {
    if (!f_.is_signed || (magnitude(c) == 0 && !f_.has_negative_zero())) return c;
    return c ^ f_.sign_mask();
  }
  std::uint64_t one_code() const {
    if (f_.bias < f_.min_normal_field() || f_.bias > max_field_) return maxf_;
    return make_code(f_, 0, f_.bias, 0);
  }
  // The finite code `delta` magnitude steps from c (clamped to 0..max finite), sign kept.
  std::uint64_t step(std::uint64_t c, std::int64_t delta) const {
    const auto m = static_cast<std::int64_t>(magnitude(c));
    const std::int64_t k = std::clamp<std::int64_t>(m + delta, 0, static_cast<std::int64_t>(maxf_));
    if (k == 0 && !f_.has_negative_zero()) return 0;
    return sign_of(c) | static_cast<std::uint64_t>(k);
  }
  std::uint64_t toward_zero(const ExactValue& x) const {
    Rounding r;
    r.mode = RoundingMode::rtz;
    r.sat = Saturation::finite;
    return round_to_format(x, f_, r).bits;
  }
  std::int64_t clamp_field(std::int64_t e) const {
    return std::clamp<std::int64_t>(e, 0, max_field_);
  }

  // ---- random pieces ----
  std::uint64_t random_sign(Rng& rng) const {
    return f_.is_signed && (rng.next() & 1) ? f_.sign_mask() : 0;
  }
  // A finite code with its exponent field in [lo, hi] (clamped), random fraction and sign.
  std::uint64_t random_finite(Rng& rng, std::int64_t lo, std::int64_t hi,
                              bool signed_ = true) const {
    lo = clamp_field(lo);
    hi = clamp_field(std::max(lo, hi));
    const std::uint64_t c =
        make_code(f_, signed_ ? random_sign(rng) : 0, rng.between(lo, hi), rng.next());
    return finite(c) ? c : (sign_of(c) | maxf_);
  }
  std::uint64_t random_finite(Rng& rng) const { return random_finite(rng, 0, max_field_); }
  std::uint64_t pick(Rng& rng, const std::vector<std::uint64_t>& v) const {
    return v[static_cast<std::size_t>(rng.below(v.size()))];
  }
  std::uint64_t near(Rng& rng, std::uint64_t c, int level) const {
    std::int64_t d = rng.between(-3, 3);
    if (level >= 2 && rng.below(4) == 0) d = rng.between(-64, 64);
    return step(c, d);
  }
  void add_sub_case(Rng& rng, int level, std::uint64_t* ops) const;
  void mul_div_case(Rng& rng, int level, std::uint64_t* ops) const;
  void sqrt_case(Rng& rng, int level, std::uint64_t* ops) const;
  void mul_add_case(Rng& rng, int level, std::uint64_t* ops) const;
  void round_to_int_case(Rng& rng, int level, std::uint64_t* ops) const;
  void selection_case(Rng& rng, int level, std::uint64_t* ops) const;

  const OpInfo& info_;
  Format f_;
  std::int64_t max_field_;
  std::uint64_t maxf_;
  std::vector<std::uint64_t> specials_, nans_, small_, medium_;
};

std::vector<std::int64_t> Operation::op_fields(int field_set) const {
  const Op op = info_.op;
  const std::int64_t b = f_.bias, m = f_.man_bits, mn = f_.min_normal_field();
  const std::int64_t emax = f_.emax(), emin = f_.emin();
  std::vector<std::int64_t> e;
  auto floor_half = [](std::int64_t x) { return x >= 0 ? x / 2 : -((-x + 1) / 2); };
  if (is_add_like(op) || op == Op::mul_add) {
    // Addends one precision apart (the sticky and round bits), and cancellations into the
    // subnormals.
    for (std::int64_t d : {m + 1, m + 2, m + 3}) e.push_back(b - d);
    e.push_back(mn + m);
    e.push_back(mn + m + 1);
    if (field_set >= 2)
      for (std::int64_t d : {m, m + 4}) {
        e.push_back(b - d);
        e.push_back(b + d);
      }
  }
  if (is_mul_like(op) || op == Op::mul_add || op == Op::sqrt) {
    // Squares (and quotients by the reciprocal's field) that reach max finite, min normal and
    // below the subnormals.
    for (std::int64_t x : {floor_half(emax), floor_half(emin), floor_half(emin - m)})
      for (std::int64_t d : {-1, 0, 1}) e.push_back(b + x + d);
    if (op == Op::div)
      for (std::int64_t x : {emax, emin}) e.push_back(b - x);
  }
  if (op == Op::sqrt) {
    e.push_back(b - 1);
    e.push_back(b + 1);
  }
  if (op == Op::round_to_int) {
    // Every binade that has both integer and fraction bits, and the one below 1.
    const std::int64_t span = m + 3;
    const std::int64_t stride = field_set >= 3 || span <= 32 ? 1 : (span + 31) / 32;
    for (std::int64_t x = -2; x <= m + 1; x += stride) e.push_back(b + x);
    e.push_back(b + m);
    e.push_back(b + m + 1);
  }
  if (field_set >= 2) {
    const std::int64_t stride = std::max<std::int64_t>(1, max_field_ / (field_set >= 3 ? 64 : 12));
    for (std::int64_t x = 0; x <= max_field_; x += stride) e.push_back(x);
  }
  return e;
}

std::vector<std::uint64_t> Operation::codes(int tier_name) const {
  const Format& f = f_;
  const Tier& tier = kTiers[tier_name];
  CodeSet set(f.code_mask());
  for (std::uint64_t c : specials_)
    if (tier.sigs > 0 || !f.is_nan_code(c)) set.add(c);
  if (tier.sigs == 0) {  // one quiet NaN of each sign, and a signaling one
    for (std::uint64_t s : detail::sign_codes(f))
      if (f.has_nan()) set.add(f.nan_code(s != 0));
    if (f.nan == NanEncoding::ieee && f.man_bits > 1) set.add(make_code(f, 0, max_field_, 1));
  }
  if (f.width() <= tier.all_bits) {
    for (std::uint64_t c = 0; c <= f.code_mask(); ++c) set.add(c);
    return set.codes();
  }
  const std::vector<std::uint64_t> signs = detail::sign_codes(f);
  // Landmarks: 1, max finite and its predecessor, min normal, min positive.
  for (std::uint64_t s : signs)
    for (std::uint64_t c :
         {one_code(), maxf_, maxf_ - 1, f.min_normal_code(), f.min_positive_code()})
      set.add(s | c);

  std::vector<std::int64_t> fields;
  if (tier.fields == 0) {
    for (std::int64_t e :
         {std::int64_t{0}, std::int64_t{1}, std::int64_t{f.bias} - 1, std::int64_t{f.bias},
          std::int64_t{f.bias} + 1, detail::exponent_field(f, maxf_)})
      if (e >= 0 && e <= max_field_) detail::add_unique(fields, e);
  } else {
    fields = detail::base_exponent_fields(f);
    for (std::int64_t e : op_fields(tier.fields))
      if (e >= 0 && e <= max_field_) detail::add_unique(fields, e);
  }
  std::vector<std::uint64_t> sigs;
  if (tier.sigs >= 2) {
    sigs = detail::significand_patterns(f.man_bits, tier.sigs == 3 ? 2 : 1);
  } else {
    const std::uint64_t all = low_mask(f.man_bits);
    const std::uint64_t top = f.man_bits > 0 ? std::uint64_t{1} << (f.man_bits - 1) : 0;
    for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, top, all})
      detail::add_unique(sigs, v & all);
    if (tier.sigs == 1)
      for (std::uint64_t v : {all - 1, std::uint64_t{0x5555555555555555}})
        detail::add_unique(sigs, v & all);
  }
  for (std::int64_t e : fields)
    for (std::uint64_t s : signs)
      for (std::uint64_t v : sigs) {
        const std::uint64_t c = make_code(f, s, e, v);
        if (finite(c)) set.add(c);
      }
  return set.codes();
}

std::vector<std::uint64_t> Operation::addends() const {
  std::vector<std::uint64_t> c;
  for (std::uint64_t s : specials_)
    if (!f_.is_nan_code(s) || s == nans_.front() || s == nans_.back()) detail::add_unique(c, s);
  for (std::uint64_t s : detail::sign_codes(f_))
    for (std::uint64_t m : {one_code(), f_.min_positive_code(), maxf_})
      detail::add_unique(c, s | m);
  return c;
}

void Operation::add_cancelling(std::uint64_t a, std::uint64_t b, std::vector<std::uint64_t>& out,
                               int reach) const {
  if (!f_.is_signed) return;
  const ExactValue x = decode(a, f_), y = decode(b, f_);
  if (!x.is_finite_nonzero() || !y.is_finite_nonzero()) return;
  const ExactValue p = ExactValue::finite(x.negative != y.negative, x.sig * y.sig, x.exp + y.exp);
  const std::uint64_t c = negate(toward_zero(p));
  for (int d = -reach; d <= reach; ++d) out.push_back(step(c, d));
}

std::vector<Operands> Operation::patterns(int level) const {
  // Products of code sets are duplicate-free by construction; only the extra cases are checked
  // against them (and each other).
  std::vector<Operands> out;
  OperandSet extra;
  const int arity = info_.arity;
  if (arity == 1) {
    for (std::uint64_t a : codes(level >= 2 ? kSingles2 : kPairs2)) out.push_back({a, 0, 0});
    return out;
  }
  if (arity == 2) {
    const std::vector<std::uint64_t> s = level >= 2 ? codes(kPairs2) : medium_;
    out.reserve(s.size() * s.size() + 5 * s.size());
    for (std::uint64_t a : s)
      for (std::uint64_t b : s) out.push_back({a, b, 0});
    if (is_add_like(info_.op) || is_selection(info_.op)) {
      const std::unordered_set<std::uint64_t> in_s(s.begin(), s.end());
      for (std::uint64_t a : s) {
        if (!finite(a)) continue;
        for (std::uint64_t b :
             {step(a, 1), step(a, -1), negate(a), negate(step(a, 1)), negate(step(a, -1))})
          if (!in_s.count(b)) extra.add(a, b);
      }
    }
  } else if (f_.width() <= (level >= 2 ? 6 : 4)) {  // mulAdd: every triple of a narrow format
    const std::uint64_t n = f_.code_mask() + 1;
    out.reserve(n * n * n);
    for (std::uint64_t a = 0; a < n; ++a)
      for (std::uint64_t b = 0; b < n; ++b)
        for (std::uint64_t c = 0; c < n; ++c) out.push_back({a, b, c});
    return out;
  } else {
    // Products a * b of a code set, each with the addends (specials, zeros, +-1, extremes)
    // and with the addends that cancel it; at level 2 of a format of <= 8 bits every product.
    const bool every_product = level >= 2 && f_.width() <= 8;
    const std::vector<std::uint64_t> ab = every_product ? codes(kPairs2)
                                          : level >= 2  ? codes(kProducts2)
                                                        : small_;
    const std::unordered_set<std::uint64_t> in_ab(ab.begin(), ab.end());
    const std::vector<std::uint64_t> cs = addends();
    std::vector<std::uint64_t> cancel, cl;
    auto addends_of = [&](std::uint64_t a, std::uint64_t b, std::vector<std::uint64_t>& v) {
      v = cs;
      cancel.clear();
      add_cancelling(a, b, cancel, 1);
      for (std::uint64_t c : cancel) detail::add_unique(v, c);
    };
    out.reserve(ab.size() * ab.size() * (cs.size() + 3));
    for (std::uint64_t a : ab)
      for (std::uint64_t b : ab) {
        addends_of(a, b, cl);
        for (std::uint64_t c : cl) out.push_back({a, b, c});
      }
    auto add_extra = [&](std::uint64_t a, std::uint64_t b, std::uint64_t c) {
      if (in_ab.count(a) && in_ab.count(b)) {
        addends_of(a, b, cl);
        if (std::find(cl.begin(), cl.end(), c) != cl.end()) return;
      }
      extra.add(a, b, c);
    };
    if (!every_product) {
      // Fused additions a * +-1 + c, and at level 2 the small set cubed.
      const std::vector<std::uint64_t>& u = level >= 2 ? medium_ : small_;
      for (std::uint64_t one : {one_code(), negate(one_code())})
        for (std::uint64_t a : u)
          for (std::uint64_t c : u) add_extra(a, one, c);
      if (level >= 2)
        for (std::uint64_t a : small_)
          for (std::uint64_t b : small_)
            for (std::uint64_t c : small_) add_extra(a, b, c);
    }
  }
  std::vector<Operands> more = extra.take();
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

void Operation::add_sub_case(Rng& rng, int level, std::uint64_t* ops) const {
  const std::int64_t m = f_.man_bits;
  const std::uint64_t a = random_finite(rng);
  const std::int64_t fa = detail::exponent_field(f_, a);
  std::uint64_t b = 0;
  switch (rng.below(4)) {
    case 0: {  // close exponents: cancellation when the effective operation subtracts
      const std::int64_t w = level >= 2 ? 2 * m + 4 : m + 2;
      const std::int64_t fb = fa + rng.between(-w, w);
      b = random_finite(rng, fb, fb);
      break;
    }
    case 1: {  // one precision apart: round, sticky and tie bits
      const std::int64_t fb = fa - m - rng.between(0, 3);
      const std::uint64_t top = m > 0 ? 1ull << (m - 1) : 0;
      const std::uint64_t fr[] = {0, 1, top, top | 1, low_mask(static_cast<int>(m)), top - 1};
      b = make_code(f_, random_sign(rng), clamp_field(fb), fr[rng.below(6)]);
      if (!finite(b)) b = a;
      break;
    }
    case 2: {  // near overflow
      const std::int64_t top_field = detail::exponent_field(f_, maxf_);
      b = random_finite(rng, top_field - 2, top_field);
      b = sign_of(a) | magnitude(b);
      break;
    }
    default: {  // subnormal and tiny results
      b = random_finite(rng, 0, f_.min_normal_field() + m + 1);
      ops[0] = random_finite(rng, 0, f_.min_normal_field() + m + 1);
      ops[1] = b;
      return;
    }
  }
  const bool swap = rng.next() & 1;
  ops[0] = swap ? b : a;
  ops[1] = swap ? a : b;
}

void Operation::mul_div_case(Rng& rng, int level, std::uint64_t* ops) const {
  const std::int64_t m = f_.man_bits, bias = f_.bias;
  const bool div = info_.op == Op::div;
  const std::uint64_t kind = rng.below(4);
  if (kind <= 1) {
    // The result's exponent near emax (overflow) or near emin and below (underflow).
    const std::int64_t e = kind == 0 ? f_.emax() + rng.between(-1, 1)
                                     : f_.emin() + rng.between(-(m + 2), level >= 2 ? 2 : 1);
    const std::uint64_t a = random_finite(rng, f_.min_normal_field(), max_field_);
    const std::int64_t ea = detail::exponent_field(f_, a) - bias;
    const std::int64_t eb = div ? ea - e : e - ea;
    ops[0] = a;
    ops[1] = random_finite(rng, eb + bias, eb + bias);
    return;
  }
  const std::vector<std::uint64_t> sig = detail::significand_patterns(f_.man_bits, 1);
  auto patterned = [&](std::int64_t lo, std::int64_t hi) {
    std::uint64_t fr = pick(rng, sig);
    if (rng.below(2)) fr ^= rng.below(4);
    const std::uint64_t c = make_code(f_, random_sign(rng), clamp_field(rng.between(lo, hi)), fr);
    return finite(c) ? c : maxf_;
  };
  if (kind == 2) {  // few significant bits: products and quotients near ties
    ops[0] = patterned(bias - 4, bias + 4);
    ops[1] = patterned(bias - 4, bias + 4);
  } else {  // a random x times or over a value near 1
    ops[0] = random_finite(rng);
    ops[1] = near(rng, one_code(), level) | random_sign(rng);
    if (!finite(ops[1])) ops[1] = one_code();
  }
}

void Operation::sqrt_case(Rng& rng, int level, std::uint64_t* ops) const {
  const std::uint64_t kind = rng.below(4);
  if (kind <= 1) {
    // Squares of a code's value (exact) or of the midpoint to its successor (the tie).
    const std::uint64_t y = random_finite(rng, f_.min_normal_field(), max_field_, false);
    const ExactValue v = decode(y, f_);
    if (v.is_finite_nonzero() && bit_length(v.sig) <= 62) {
      const u128 s = kind == 0 ? v.sig : 2 * v.sig + 1;
      const int e = kind == 0 ? 2 * v.exp : 2 * v.exp - 2;
      ops[0] = near(rng, toward_zero(ExactValue::finite(false, s * s, e)), level);
      return;
    }
  }
  if (kind == 2) {
    ops[0] = random_finite(rng, 0, max_field_, false);
    return;
  }
  ops[0] = random_finite(rng, 0, f_.min_normal_field() + f_.man_bits + 1);  // tiny, either sign
}

void Operation::mul_add_case(Rng& rng, int level, std::uint64_t* ops) const {
  const std::int64_t m = f_.man_bits, bias = f_.bias;
  const std::int64_t w = std::max<std::int64_t>(2, (f_.emax() - f_.emin()) / 4);
  const std::uint64_t kind = rng.below(4);
  std::uint64_t a = random_finite(rng, bias - w, bias + w),
                b = random_finite(rng, bias - w, bias + w);
  if (kind == 2 || kind == 3) {
    // The product near max finite or near min normal.
    const std::int64_t e =
        kind == 2 ? f_.emax() + rng.between(-1, 0) : f_.emin() + rng.between(-m, 1);
    a = random_finite(rng, f_.min_normal_field(), max_field_);
    const std::int64_t eb = e - (detail::exponent_field(f_, a) - bias);
    b = random_finite(rng, eb + bias, eb + bias);
  }
  std::vector<std::uint64_t> cancel;
  add_cancelling(a, b, cancel, 0);
  const std::uint64_t p = cancel.empty() ? random_finite(rng) : negate(cancel[0]);  // ~ a*b
  std::uint64_t c = 0;
  switch (rng.below(3)) {
    case 0:  // cancellation
      c = cancel.empty() ? random_finite(rng) : near(rng, cancel[0], level);
      break;
    case 1: {  // c a precision below or above the product: sticky bits, or the product is
      const std::int64_t fp = detail::exponent_field(f_, p);
      const std::int64_t d = m + rng.between(0, 3);
      const std::int64_t fc = rng.next() & 1 ? fp - d : fp + d;
      c = random_finite(rng, fc, fc);
      break;
    }
    default:  // c near the product with the same sign (carry into the next binade)
      c = near(rng, p, level);
      break;
  }
  ops[0] = a;
  ops[1] = b;
  ops[2] = c;
}

void Operation::round_to_int_case(Rng& rng, int level, std::uint64_t* ops) const {
  (void)level;
  const std::int64_t m = f_.man_bits, bias = f_.bias;
  switch (rng.below(4)) {
    case 0:  // integer and fraction bits both present
      ops[0] = random_finite(rng, bias - 1, bias + m + 1);
      return;
    case 1: {                                    // near a half-integer or an integer
      const std::int64_t e = rng.between(0, m);  // unbiased exponent: m - e fraction bits
      const int fb = static_cast<int>(m - e);
      std::uint64_t fr = rng.next() & ~low_mask(fb);
      if (fb > 0) {
        const std::uint64_t half = 1ull << (fb - 1);
        const std::uint64_t lows[] = {0, half, half - 1, half + 1, low_mask(fb), 1};
        fr |= lows[rng.below(6)] & low_mask(fb);
      }
      const std::uint64_t c = make_code(f_, random_sign(rng), clamp_field(e + bias), fr);
      ops[0] = finite(c) ? c : maxf_;
      return;
    }
    case 2:  // below 1/2
      ops[0] = random_finite(rng, 0, bias - 1);
      return;
    default:  // already integers
      ops[0] = random_finite(rng, bias + m, max_field_);
      return;
  }
}

void Operation::selection_case(Rng& rng, int level, std::uint64_t* ops) const {
  const std::uint64_t a = random_finite(rng);
  std::uint64_t b = a;
  switch (rng.below(4)) {
    case 0:
      break;  // equal
    case 1:
      b = near(rng, a, level);
      break;
    case 2:
      b = negate(rng.below(4) == 0 ? 0 : a);
      break;  // opposite signs, +-0
    default:
      b = nans_.empty() ? random_finite(rng) : pick(rng, nans_);
      break;
  }
  const bool swap = rng.next() & 1;
  ops[0] = swap ? b : a;
  ops[1] = swap ? a : b;
}

void Operation::random_case(Rng& rng, int level, std::uint64_t* ops) const {
  const int arity = info_.arity;
  const std::uint64_t kind = rng.below(level >= 2 ? 6 : 5);
  if (kind == 0) {  // uniform codes
    for (int k = 0; k < arity; ++k) ops[k] = rng.next() & f_.code_mask();
    return;
  }
  if (kind == 1) {  // from the pattern codes, specials included
    for (int k = 0; k < arity; ++k) ops[k] = pick(rng, medium_);
    return;
  }
  const Op op = info_.op;
  if (is_add_like(op)) return add_sub_case(rng, level, ops);
  if (is_mul_like(op)) return mul_div_case(rng, level, ops);
  if (op == Op::sqrt) return sqrt_case(rng, level, ops);
  if (op == Op::mul_add) return mul_add_case(rng, level, ops);
  if (op == Op::round_to_int) return round_to_int_case(rng, level, ops);
  selection_case(rng, level, ops);
}

std::string op_names() {
  std::string s;
  for (const OpInfo& i : all_ops()) s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}

}  // namespace

Op parse_op(std::string_view name, std::string_view what) {
  if (const auto op = find_op(name)) return *op;
  throw Error(std::string(what),
              "unknown operation '" + std::string(name) + "' (operations: " + op_names() + ")");
}

std::unique_ptr<Function> make_operation(Op op, const Format& f) {
  return std::make_unique<Operation>(op_info(op), f);
}

FunctionFamily operation_family() {
  FunctionFamily fam;
  fam.syntax = "<fmt>_<op>";
  fam.summary = "scalar operation in any format: " + op_names();
  fam.example = "bf16_add";
  fam.arity = 2;  // 1 for sqrt and roundToInt, 3 for mulAdd
  fam.parse = [](std::string_view name, std::string_view what) -> std::unique_ptr<Function> {
    const std::string where = std::string(what) + " '" + std::string(name) + "'";
    // Splits at each '_', longest operation suffix first.
    std::string first_error;
    for (std::size_t pos = name.find('_'); pos != std::string_view::npos;
         pos = name.find('_', pos + 1)) {
      if (pos == 0) continue;
      const auto op = find_op(name.substr(pos + 1));
      if (!op) continue;
      try {
        return make_operation(*op, parse_format(name.substr(0, pos), where));
      } catch (const Error& e) {
        if (first_error.empty()) first_error = e.what();
      }
    }
    if (!first_error.empty()) throw Error("", first_error);
    // A format followed by something that is not an operation: say which operations exist.
    for (std::size_t pos = name.find('_'); pos != std::string_view::npos;
         pos = name.find('_', pos + 1)) {
      if (pos == 0 || pos + 1 >= name.size()) continue;
      try {
        parse_format(name.substr(0, pos), where);
      } catch (const Error&) {
        continue;
      }
      throw Error(where, "unknown operation '" + std::string(name.substr(pos + 1)) +
                             "' (operations: " + op_names() + "; conversions: <fmt>_to_<fmt>)");
    }
    return nullptr;
  };
  return fam;
}

}  // namespace fpconform::testfloat
