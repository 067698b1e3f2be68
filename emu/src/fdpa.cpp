// The dot-product-add family (emu/include/fpconform/fdpa.hpp). Four structures, one set of
// parameters; every result ends in round_to_format (fused, exact) or apply_op (pairwise,
// sequential: IEEE operations of the output format).
#include "fpconform/fdpa.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <optional>
#include <vector>

#include "fpconform/arith.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/exact_ops.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fdpa_tree.hpp"
#include "wide_sum.hpp"

namespace fpconform {

namespace {

using detail::WideSum;

using i128 = __int128;

u128 magnitude(i128 v) { return v < 0 ? -static_cast<u128>(v) : static_cast<u128>(v); }

// v * 2^from written as an integer multiple of 2^to, cut as `mode` says (`down`: floor of the
// signed value). Refining (to < from) is exact; throws when it would not fit the adder.
i128 realign(i128 v, int from, int to, AlignRounding mode) {
  if (v == 0) return 0;
  if (to <= from) {
    const long s = static_cast<long>(from) - to;
    if (s + bit_length(magnitude(v)) > 125)
      throw Error("frac_bits", "alignment needs more than the model's 126-bit adder");
    return static_cast<i128>(static_cast<u128>(v) << s);
  }
  const long s = static_cast<long>(to) - from;
  const bool neg = v < 0;
  const u128 m = magnitude(v);
  u128 q = 0;
  bool dropped = true, half = false, above = false;
  if (s < 128) {
    q = m >> s;
    const u128 rem = m & ((u128(1) << s) - 1), h = u128(1) << (s - 1);
    dropped = rem != 0;
    half = rem == h;
    above = rem > h;
  }
  switch (mode) {
    case AlignRounding::truncate: break;
    case AlignRounding::nearest_even:
      if (above || (half && (q & 1))) ++q;
      break;
    case AlignRounding::down:
      if (dropped && neg) ++q;
      break;
  }
  return neg ? -static_cast<i128>(q) : static_cast<i128>(q);
}

// A finite non-zero term: (-1)^negative * sig * 2^lsb, with the exponent `lead` the alignment
// sees (a product: ea + eb; C: its own exponent, emin when subnormal).
struct Term {
  bool negative = false;
  u128 sig = 0;  // 0: a zero term
  int lsb = 0;
  int lead = 0;
  bool zero_keeps_lead = false;  // a zero (a cancelled sub-sum) whose `lead` still counts
  i128 signed_sig() const { return negative ? -static_cast<i128>(sig) : static_cast<i128>(sig); }
};

// Decoded with the parameters' input flushing: a subnormal becomes a zero of its sign, or +0
// (with flushed_inputs_positive, zeros too: MMA-Sim sets every |x| < 2^emin to +0).
ExactValue read(std::uint64_t code, const Format& f, const FdpaParams& p) {
  ExactValue v = decode(code, f);
  if (!p.flush_subnormal_inputs) return v;
  if (v.is_finite_nonzero() && f.subnormals && v.sig < (u128(1) << f.man_bits))
    return ExactValue::zero(p.flushed_inputs_positive ? false : v.negative);
  if (v.is_zero() && p.flushed_inputs_positive) return ExactValue::zero(false);
  return v;
}

Term term_of(const ExactValue& v, const Format& f) {
  Term t;
  if (!v.is_finite_nonzero()) return t;
  t.negative = v.negative;
  t.sig = v.sig;
  t.lsb = v.exp;
  t.lead = v.exp + f.man_bits;
  return t;
}

std::uint64_t default_nan(const FdpaParams& p, const Format& out) {
  const NanPolicy& policy = find_nan_policy(p.nan, "nan");
  return round_to_format(
             ExactValue::quiet_nan(policy.default_negative, policy.default_payload_ones ? ~0ull : 0),
             out, Rounding{})
      .bits;
}

// The IEEE sign of an exact zero sum: -0 when every addend is -0 (or mode down and they are
// mixed), else +0.
ExactValue zero_sum(bool all_negative, bool any_negative, const Rounding& r) {
  if (all_negative) return ExactValue::zero(true);
  return ExactValue::zero(any_negative && r.mode == RoundingMode::down);
}

// A block scale, read with its sign ignored: 1 (sig 1, exponent 0) unless read from a code.
struct ScaleValue {
  bool nan = false, zero = false;
  u128 sig = 1;
  int lsb = 0;   // weight of sig's least significant bit
  int lead = 0;  // the exponent alignment sees (emin for a subnormal scale)
};

ScaleValue read_scale(std::uint64_t code, const Format& f) {
  const ExactValue v = decode(code & ~f.sign_mask(), f);
  ScaleValue s;
  if (v.is_nan()) s.nan = true;
  else if (v.is_zero()) s.zero = true;
  else {
    s.sig = v.sig;
    s.lsb = v.exp;
    s.lead = v.exp + f.man_bits;
  }
  return s;
}

// The scales of a whole call; a step sees them through its first element's index.
struct Scales {
  std::vector<ScaleValue> a, b;  // empty: unit scales (fdpa)
  std::size_t block = 1;         // elements per scale
  std::size_t first = 0;         // index of the current step's first element
  const ScaleValue& sa(std::size_t i) const { return a.empty() ? unit() : a[(first + i) / block]; }
  const ScaleValue& sb(std::size_t i) const { return b.empty() ? unit() : b[(first + i) / block]; }
  static const ScaleValue& unit() {
    static const ScaleValue one{};
    return one;
  }
};

// Products and C of one step of the fused or exact structures, specials settled.
struct Step {
  std::vector<Term> products;  // one per product, zero terms included (sig == 0)
  Term c;
  ExactValue cv;
  bool all_zero = true;        // every product and C is zero
  bool all_negative_zero = true, any_negative_zero = false;
  bool special = false;        // result decided by the specials: `special_bits`
  std::uint64_t special_bits = 0;
};

// Products are exact; without sub-sums each is scaled here (significands multiplied, exponents
// added); with sub-sums they stay unscaled for step_terms. A zero scale makes a zero product.
Step read_step(const FdpaParams& p, const FdpaFormats& f, std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
               std::uint64_t c_code, const Scales& sc) {
  const Format& out = f.d;
  Step s;
  s.products.resize(a.size());
  bool any_nan = false, pos_inf = false, neg_inf = false;
  auto note_zero = [&](bool negative) {
    s.all_negative_zero = s.all_negative_zero && negative;
    s.any_negative_zero = s.any_negative_zero || negative;
  };
  for (std::size_t i = 0; i < a.size(); ++i) {
    const ExactValue x = read(a[i], f.a, p), y = read(b[i], f.b, p);
    const ScaleValue& ka = sc.sa(i);
    const ScaleValue& kb = sc.sb(i);
    const bool negative = x.negative != y.negative, scale_zero = ka.zero || kb.zero;
    if (x.is_nan() || y.is_nan() || ka.nan || kb.nan) {
      any_nan = true;
      continue;
    }
    if (x.is_inf() || y.is_inf()) {
      if (x.is_zero() || y.is_zero() || scale_zero) any_nan = true;
      else (negative ? neg_inf : pos_inf) = true;
      continue;
    }
    if (x.is_zero() || y.is_zero() || scale_zero) {
      note_zero(negative);
      continue;
    }
    Term t;
    t.negative = negative;
    t.sig = x.sig * y.sig;  // both below 2^64: exact
    t.lsb = x.exp + y.exp;
    t.lead = (x.exp + f.a.man_bits) + (y.exp + f.b.man_bits);
    if (p.structure == FdpaStructure::fused) {
      if (p.product_bits >= 1 && bit_length(t.sig) > p.product_bits) {
        const int to = t.lsb + bit_length(t.sig) - p.product_bits;
        const i128 r = realign(t.signed_sig(), t.lsb, to, p.product_rounding);
        t.sig = magnitude(r);
        t.lsb = to;
      }
    }
    if (p.subsum <= 0 && !sc.a.empty()) {
      t.sig *= ka.sig * kb.sig;
      t.lsb += ka.lsb + kb.lsb;
      t.lead += ka.lead + kb.lead;
    }
    if (p.structure == FdpaStructure::fused) {
      if (p.product_overflow && t.lsb + bit_length(t.sig) - 1 >= out.emax() + 1) {
        (negative ? neg_inf : pos_inf) = true;
        continue;
      }
    }
    s.all_zero = false;
    s.products[i] = t;
  }
  s.cv = read(c_code, f.c, p);
  if (s.cv.is_nan()) any_nan = true;
  if (s.cv.is_inf()) (s.cv.negative ? neg_inf : pos_inf) = true;
  if (any_nan || (pos_inf && neg_inf)) {
    s.special = true;
    s.special_bits = default_nan(p, out);
  } else if (pos_inf || neg_inf) {
    s.special = true;
    s.special_bits = out.inf_code(false) | (neg_inf ? out.sign_mask() : 0);
  }
  if (s.cv.is_zero()) note_zero(s.cv.negative);
  else s.all_zero = false;
  s.c = term_of(s.cv, f.c);
  return s;
}

// With sub-sums: the step's terms are exact sums of `subsum` consecutive products, each times
// its scale pair (significands), with the scales' exponents alone as alignment exponent; a sum
// that is exactly zero (or has a zero scale) is a zero term. Without: the scaled products.
const std::vector<Term>& step_terms(const FdpaParams& p, const Step& s, const Scales& sc,
                                    std::vector<Term>& storage) {
  if (p.subsum <= 0) return s.products;
  const std::size_t g = static_cast<std::size_t>(p.subsum), n = s.products.size();
  storage.assign((n + g - 1) / g, Term{});
  for (std::size_t j = 0; j < n; j += g) {
    const std::size_t end = std::min(n, j + g);
    int lo = INT_MAX;
    for (std::size_t k = j; k < end; ++k)
      if (s.products[k].sig) lo = std::min(lo, s.products[k].lsb);
    if (lo == INT_MAX) continue;
    i128 v = 0;
    for (std::size_t k = j; k < end; ++k) {
      const Term& t = s.products[k];
      if (!t.sig) continue;
      const long shift = static_cast<long>(t.lsb) - lo;
      if (shift + bit_length(t.sig) > 118)
        throw Error("subsum", "a sub-sum needs more than the model's 126-bit adder");
      v += static_cast<i128>(t.sig << shift) * (t.negative ? -1 : 1);
    }
    const ScaleValue& ka = sc.sa(j);
    const ScaleValue& kb = sc.sb(j);
    if (v == 0) {  // cancelled: its scales' exponent still counts (MMA-Sim 2.1.1)
      storage[j / g].zero_keeps_lead = true;
      storage[j / g].lead = ka.lead + kb.lead;
      continue;
    }
    const u128 m = magnitude(v);
    if (bit_length(m) + bit_length(ka.sig) + bit_length(kb.sig) > 126)
      throw Error("subsum", "a scaled sub-sum needs more than the model's 126-bit adder");
    Term& t = storage[j / g];
    t.negative = v < 0;
    t.sig = m * ka.sig * kb.sig;
    t.lsb = lo + ka.lsb + kb.lsb;
    t.lead = ka.lead + kb.lead;
  }
  return storage;
}

Rounding output_rounding(const FdpaParams& p) {
  Rounding r = p.out_rounding;
  r.ftz = p.flush_subnormal_outputs;
  return r;
}

// Final rounding of a step's exact result (zero results by the IEEE rule).
std::uint64_t finish(const FdpaParams& p, const Format& out, const Step& s, ExactValue total) {
  const Rounding r = output_rounding(p);
  if (s.all_zero)
    return round_to_format(zero_sum(s.all_negative_zero, s.any_negative_zero, r), out, r).bits;
  if (total.is_zero()) return round_to_format(zero_sum(false, true, r), out, r).bits;
  if (p.acc_frac_bits >= 0) {
    // The accumulator: the output's exponent range with acc_frac_bits fraction bits, RZ.
    Format acc = out;
    acc.man_bits = p.acc_frac_bits;
    acc.name = out.name + "-acc";
    Rounding rz = r;
    rz.mode = RoundingMode::rtz;
    total = decode(round_to_format(total, acc, rz).bits, acc);
  }
  const std::uint64_t bits = round_to_format(total, out, r).bits;
  return p.underflow_zero_positive && bits == out.sign_mask() ? 0 : bits;
}

ExactValue value_of(i128 v, int unit) {
  return ExactValue::finite(v < 0, magnitude(v), unit);
}

// ---- fused ----

struct GroupSum {
  i128 sum = 0;     // in units of 2^(e - F)
  int e = INT_MIN;  // INT_MIN: no term counted
};

std::uint64_t fused_step(const FdpaParams& p, const FdpaFormats& f,
                         std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                         std::uint64_t c_code, const Scales& sc) {
  const Step s = read_step(p, f, a, b, c_code, sc);
  if (s.special) return s.special_bits;
  std::vector<Term> grouped;
  const std::vector<Term>& terms = step_terms(p, s, sc, grouped);
  const int F = p.frac_bits;
  const bool c_in = p.c_in_block;

  // Groups (interleave 1: the whole block, with C when it is in the block).
  std::vector<GroupSum> groups(p.interleave);
  for (int g = 0; g < p.interleave; ++g) {
    GroupSum& G = groups[g];
    bool any_zero = false;
    for (std::size_t i = g; i < terms.size(); i += p.interleave) {
      if (terms[i].sig || terms[i].zero_keeps_lead) G.e = std::max(G.e, terms[i].lead);
      else any_zero = true;
    }
    if (c_in) {
      if (s.c.sig) G.e = std::max(G.e, s.c.lead);
      else any_zero = true;
    }
    if (any_zero) G.e = std::max(G.e, p.zero_exp);
    if (G.e == INT_MIN) continue;
    const int u = G.e - F;
    for (std::size_t i = g; i < terms.size(); i += p.interleave)
      if (terms[i].sig) G.sum += realign(terms[i].signed_sig(), terms[i].lsb, u, p.align);
    if (c_in && s.c.sig) G.sum += realign(s.c.signed_sig(), s.c.lsb, u, p.align);
    if (p.carry_bits >= 0) {
      const int keep = F + 1 + p.carry_bits, have = bit_length(magnitude(G.sum));
      if (have > keep)
        G.sum = realign(realign(G.sum, 0, have - keep, AlignRounding::truncate), have - keep, 0,
                        AlignRounding::truncate);
    }
  }
  int es = INT_MIN;
  for (const GroupSum& G : groups) es = std::max(es, G.e);
  i128 sum = 0;
  for (const GroupSum& G : groups)
    if (G.e != INT_MIN)
      sum += p.interleave == 1 ? G.sum : realign(G.sum, G.e - F, es - F, p.group_align);

  ExactValue total;
  if (c_in) {
    if (es != INT_MIN) total = value_of(sum, es - F);
  } else if (!p.late_c) {
    total = exact_add(es == INT_MIN ? ExactValue::zero(false) : value_of(sum, es - F),
                      s.cv.is_finite_nonzero() ? s.cv : ExactValue::zero(false));
  } else {
    const int ec = s.c.sig ? s.c.lead : INT_MIN;
    const int e = std::max(es, ec);
    if (e != INT_MIN) {
      const int us = e - p.late_sum_frac_bits, uc = e - p.late_c_frac_bits, u = std::min(us, uc);
      i128 t = 0;
      if (es != INT_MIN) t += realign(realign(sum, es - F, us, p.late_align), us, u, p.late_align);
      const bool dropped = p.late_c_drop_below >= 0 && s.c.sig &&
                           static_cast<long>(ec) < static_cast<long>(e) - p.late_c_drop_below;
      if (s.c.sig && !dropped)
        t += realign(realign(s.c.signed_sig(), s.c.lsb, uc, p.late_align), uc, u, p.late_align);
      total = value_of(t, u);
    }
  }
  return finish(p, f.d, s, total);
}

// ---- exact (Kulisch) ----

std::uint64_t exact_step(const FdpaParams& p, const FdpaFormats& f,
                         std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                         std::uint64_t c_code, const Scales& sc) {
  const Step s = read_step(p, f, a, b, c_code, sc);
  if (s.special) return s.special_bits;
  std::vector<Term> grouped;
  const std::vector<Term>& terms = step_terms(p, s, sc, grouped);
  long lo = LONG_MAX, hi = LONG_MIN;
  std::size_t n = 0;
  auto span_of = [&](const Term& t) {
    if (!t.sig) return;
    lo = std::min<long>(lo, t.lsb);
    hi = std::max<long>(hi, static_cast<long>(t.lsb) + bit_length(t.sig));
    ++n;
  };
  for (const Term& t : terms) span_of(t);
  span_of(s.c);
  ExactValue total;
  if (n > 0) {
    WideSum acc(static_cast<int>(lo), static_cast<int>(hi - lo) + bit_length(n) + 2);
    for (const Term& t : terms)
      if (t.sig) acc.add(t.negative, t.sig, t.lsb);
    if (s.c.sig) acc.add(s.c.negative, s.c.sig, s.c.lsb);
    total = acc.value();
  }
  return finish(p, f.d, s, total);
}

// ---- pairwise and sequential: IEEE operations in `out` ----

struct Ieee {
  const FdpaParams& p;
  const FdpaFormats& formats;
  const Format& out;
  OpOptions o;

  Ieee(const FdpaParams& params, const FdpaFormats& f) : p(params), formats(f), out(f.d) {
    o.rounding = params.out_rounding;
    o.rounding.ftz = false;
    o.rounding.daz = false;
    o.nan = &find_nan_policy(params.nan, "nan");
  }
  // A subnormal result becomes the zero of its sign (|x| < 2^emin), when asked.
  std::uint64_t flush(std::uint64_t code) const {
    const std::uint64_t mag = code & out.magnitude_mask();
    if (p.flush_subnormal_outputs && out.subnormals && mag != 0 && (mag >> out.man_bits) == 0 &&
        !out.is_nan_code(code))
      return code & out.sign_mask();
    return code;
  }
  std::uint64_t input(std::uint64_t code, const Format& f) const {
    const ExactValue v = read(code, f, p);
    if (v.is_nan()) return convert(code, f, out, Rounding{}).bits;
    return round_to_format(v, out, Rounding{}).bits;  // exact: holds_exactly was checked
  }
  std::uint64_t fma(std::uint64_t x, std::uint64_t y, std::uint64_t z) const {
    // x * y = y * x; the order only says whose NaN comes first.
    const std::uint64_t ops[3] = {p.nan_b_first ? y : x, p.nan_b_first ? x : y, z};
    return flush(apply_op(Op::mul_add, out, ops, o).bits);
  }
  std::uint64_t add(std::uint64_t x, std::uint64_t y) const {
    const std::uint64_t ops[3] = {x, y, 0};
    return flush(apply_op(Op::add, out, ops, o).bits);
  }
};

std::uint64_t pairwise_tree(const Ieee& f, std::span<const std::uint64_t> a,
                            std::span<const std::uint64_t> b) {
  if (a.size() == 1)
    return f.fma(f.input(a[0], f.formats.a), f.input(b[0], f.formats.b), f.out.zero_code(false));
  const std::size_t m = a.size() / 2;
  const std::uint64_t left = pairwise_tree(f, a.first(m), b.first(m));
  const std::uint64_t right = pairwise_tree(f, a.subspan(m), b.subspan(m));
  return f.add(left, right);
}

void check_fits(const Format& in, const Format& out, const char* what) {
  if (!holds_exactly(in, out))
    throw Error(what, "this structure computes in " + out.name + ", which cannot hold every " +
                          in.name + " value exactly");
}

void check_fits(const FdpaFormats& f) {
  const bool one_input = f.a == f.b;
  check_fits(f.a, f.d, one_input ? "in" : "a");
  if (!one_input) check_fits(f.b, f.d, "b");
  if (!(f.c == f.d)) check_fits(f.c, f.d, "c");
}

// The formats of the steps after the first: C is then the previous step's D.
FdpaFormats chained(const FdpaFormats& f) { return FdpaFormats(f.a, f.b, f.d, f.d); }

// The same for a chain of steps: f itself where C is already in D's format (no copy per call),
// else the chained formats, kept in `storage`.
const FdpaFormats& chained(const FdpaFormats& f, std::optional<FdpaFormats>& storage) {
  if (f.c == f.d) return f;
  return storage.emplace(f.a, f.b, f.d, f.d);
}

// fdpa and fdpa_scaled: `sc` holds the scales (empty: unit scales).
std::uint64_t run(const FdpaParams& p, const FdpaFormats& f,
                  std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                  Scales& sc, std::uint64_t c);

}  // namespace

bool holds_exactly(const Format& in, const Format& out) {
  if (in.precision() > out.precision() || in.emax() > out.emax()) return false;
  const int in_min_lsb = in.emin() - in.man_bits;  // smallest unit of any finite in value
  const int in_min_exp = in.subnormals ? in_min_lsb : in.emin();
  if (out.subnormals) return in_min_lsb >= out.emin() - out.man_bits;
  return in_min_exp >= out.emin();
}

int max_acc_frac_bits(const Format& out) { return 64 - out.width() + out.man_bits; }

std::uint64_t fdpa(const FdpaParams& p, const Format& in, const Format& out,
                   std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                   std::uint64_t c) {
  return fdpa(p, FdpaFormats(in, out), a, b, c);
}

std::uint64_t fdpa(const FdpaParams& p, const FdpaFormats& f, std::span<const std::uint64_t> a,
                   std::span<const std::uint64_t> b, std::uint64_t c) {
  Scales unit;
  if (p.instr_k == 0 && p.k_order == KOrder::natural && !p.c_last)
    return run(p, f, a, b, unit, c);
  // Instruction by instruction: reorder its k, run its blocks (from +0 with c_last), add C.
  if (a.size() != b.size())
    throw Error("b", "a has " + std::to_string(a.size()) + " elements, b has " +
                         std::to_string(b.size()));
  if (p.instr_k < 0) throw Error("instr_k", "instr_k must be 0 (all K) or positive");
  FdpaParams inner = p;
  inner.instr_k = 0;
  inner.k_order = KOrder::natural;
  inner.c_last = false;
  OpOptions add_options;
  add_options.rounding.mode = RoundingMode::rne;
  add_options.nan = &find_nan_policy(p.nan, "nan");
  const std::size_t chunk = p.instr_k > 0 ? static_cast<std::size_t>(p.instr_k) : a.size();
  std::vector<std::uint64_t> av, bv;
  std::uint64_t d = c;
  if (p.c_last && !(f.c == f.d)) {  // C joins by an IEEE addition in D's format
    check_fits(f.c, f.d, "c");
    d = convert(c, f.c, f.d, Rounding{}).bits;
  }
  FdpaFormats step = p.c_last ? chained(f) : f;
  std::size_t k0 = 0;
  do {
    const std::size_t k1 = std::min(a.size(), k0 + chunk);
    av.clear();
    bv.clear();
    for (int pass = 0; pass < (p.k_order == KOrder::pairs_mod4 ? 2 : 1); ++pass)
      for (std::size_t k = k0; k < k1; ++k) {
        if (p.k_order == KOrder::pairs_mod4 && ((k - k0) % 4 < 2) != (pass == 0)) continue;
        av.push_back(a[k]);
        bv.push_back(b[k]);
      }
    if (p.c_last) {
      const std::uint64_t t = run(inner, step, av, bv, unit, 0);
      const std::uint64_t ops[3] = {t, d, 0};
      d = apply_op(Op::add, f.d, ops, add_options).bits;
    } else {
      d = run(inner, step, av, bv, unit, d);
      step = chained(f);
    }
    k0 = k1;
  } while (k0 < a.size());
  return d;
}

std::uint64_t fdpa_scaled(const FdpaParams& p, const Format& in, const Format& out,
                          std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                          const Format& scale_format, std::span<const std::uint64_t> scale_a,
                          std::span<const std::uint64_t> scale_b, std::uint64_t c) {
  return fdpa_scaled(p, FdpaFormats(in, out), a, b, scale_format, scale_a, scale_b, c);
}

std::uint64_t fdpa_scaled(const FdpaParams& p, const FdpaFormats& f,
                          std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                          const Format& scale_format, std::span<const std::uint64_t> scale_a,
                          std::span<const std::uint64_t> scale_b, std::uint64_t c) {
  if (p.structure != FdpaStructure::fused && p.structure != FdpaStructure::exact)
    throw Error("structure", "block scales need the fused or exact structure");
  if (p.scale_block < 1)
    throw Error("scale_block", "this unit takes no block scales (scale_block is 0)");
  const std::size_t blocks = (a.size() + static_cast<std::size_t>(p.scale_block) - 1) /
                             static_cast<std::size_t>(p.scale_block);
  if (scale_a.size() != blocks || scale_b.size() != blocks)
    throw Error("scale_a", std::to_string(a.size()) + " elements in blocks of " +
                               std::to_string(p.scale_block) + " need " + std::to_string(blocks) +
                               " scales each, got " + std::to_string(scale_a.size()) + " and " +
                               std::to_string(scale_b.size()));
  if (p.subsum > 0 && (p.scale_block % p.subsum != 0 || (p.block > 0 && p.block % p.subsum != 0)))
    throw Error("subsum", "scale_block and block must be multiples of subsum");
  if (scale_format.has_inf())
    throw Error("scale_format", "scale formats with infinities are not modelled");
  if (f.a.precision() + f.b.precision() + 2 * scale_format.precision() > 126)
    throw Error("scale_format", "scaled products need more than the model's 126-bit terms");
  Scales sc;
  sc.block = static_cast<std::size_t>(p.scale_block);
  for (std::size_t i = 0; i < blocks; ++i) {
    sc.a.push_back(read_scale(scale_a[i], scale_format));
    sc.b.push_back(read_scale(scale_b[i], scale_format));
  }
  return run(p, f, a, b, sc, c);
}

namespace {

// The largest significand field of a, b and C (the model's integer widths bound them).
int widest_input(const FdpaFormats& f) { return std::max({f.a.man_bits, f.b.man_bits, f.c.man_bits}); }

std::uint64_t run(const FdpaParams& p, const FdpaFormats& f, std::span<const std::uint64_t> a,
                  std::span<const std::uint64_t> b, Scales& sc, std::uint64_t c) {
  const Format& out = f.d;
  if (a.size() != b.size())
    throw Error("b", "a has " + std::to_string(a.size()) + " elements, b has " +
                         std::to_string(b.size()));
  find_nan_policy(p.nan, "nan");
  if (p.scale_block < 0) throw Error("scale_block", "scale_block must be 0 (none) or positive");
  if (p.subsum < 0 || p.subsum > 64) throw Error("subsum", "subsum must be 0 (none) or 1..64");
  if (p.acc_frac_bits > max_acc_frac_bits(out))
    throw Error("acc_frac_bits", "an accumulator with " + out.name + "'s exponent range holds at most " +
                                     std::to_string(max_acc_frac_bits(out)) + " fraction bits, not " +
                                     std::to_string(p.acc_frac_bits));
  if (p.subsum > 0 && (p.structure == FdpaStructure::sequential ||
                       p.structure == FdpaStructure::pairwise))
    throw Error("subsum", "sub-sums need the fused or exact structure");
  switch (p.structure) {
    case FdpaStructure::sequential: {
      check_fits(f);
      const Ieee ieee(p, f);
      std::uint64_t d = ieee.input(c, f.c);
      for (std::size_t i = 0; i < a.size(); ++i)
        d = ieee.fma(ieee.input(a[i], f.a), ieee.input(b[i], f.b), d);
      return d;
    }
    case FdpaStructure::pairwise: {
      if (p.block < 1) throw Error("block", "pairwise group size must be at least 1");
      check_fits(f);
      const Ieee ieee(p, f);
      std::uint64_t d = ieee.input(c, f.c);
      for (std::size_t k = 0; k < a.size(); k += static_cast<std::size_t>(p.block)) {
        const std::size_t len = std::min<std::size_t>(p.block, a.size() - k);
        d = ieee.add(d, pairwise_tree(ieee, a.subspan(k, len), b.subspan(k, len)));
      }
      return d;
    }
    case FdpaStructure::exact: {
      if (p.block < 0) throw Error("block", "exact block size must be 0 (all) or positive");
      if (widest_input(f) > 63 || out.man_bits > 63)
        throw Error("in", "formats of up to 64-bit significands");
      const std::size_t step = p.block == 0 ? std::max<std::size_t>(a.size(), 1) : p.block;
      std::optional<FdpaFormats> storage;
      const FdpaFormats& later = chained(f, storage);
      std::uint64_t d = c;
      std::size_t k = 0;
      do {
        const std::size_t len = std::min(step, a.size() - k);
        sc.first = k;
        d = exact_step(p, k == 0 ? f : later, a.subspan(k, len), b.subspan(k, len), d, sc);
        k += len;
      } while (k < a.size());
      return d;
    }
    case FdpaStructure::tree: return detail::tree_dot(p, f, a, b, c);
    case FdpaStructure::fused: break;
  }
  if (p.block < 1 || p.block > 64) throw Error("block", "block size must be 1..64");
  if (p.frac_bits < 0 || p.frac_bits > 100) throw Error("frac_bits", "F must be 0..100");
  if (p.interleave < 1 || p.interleave > p.block)
    throw Error("interleave", "interleave must be 1..block");
  if (p.interleave > 1 && p.c_in_block)
    throw Error("interleave", "interleaved groups need C added after the block (exact or late)");
  if (!p.c_in_block && p.late_c &&
      (p.late_sum_frac_bits < 0 || p.late_sum_frac_bits > 100 || p.late_c_frac_bits < 0 ||
       p.late_c_frac_bits > 100))
    throw Error("late_sum_frac_bits", "late fraction bits must be 0..100");
  if (std::max(f.a.man_bits, f.b.man_bits) > 52 || f.c.man_bits > 63 || out.man_bits > 63)
    throw Error("in", "the fused structure takes inputs of up to 53-bit significands");
  std::optional<FdpaFormats> storage;
  const FdpaFormats& later = chained(f, storage);
  std::uint64_t d = c;
  std::size_t k = 0;
  do {
    const std::size_t len = std::min<std::size_t>(p.block, a.size() - k);
    sc.first = k;
    d = fused_step(p, k == 0 ? f : later, a.subspan(k, len), b.subspan(k, len), d, sc);
    k += len;
  } while (k < a.size());
  return d;
}

}  // namespace

}  // namespace fpconform
