// SmallFormatOp: integer fast path for binary operations in formats of <= 16 bits.
#include "fpconform/fast_arith.hpp"

#include <bit>
#include <vector>

#include "fpconform/core/error.hpp"

namespace fpconform {

bool SmallFormatOp::supports(const Format& f, Op op) {
  return f.width() <= 16 && (op == Op::add || op == Op::sub || op == Op::mul || op == Op::div);
}

SmallFormatOp::SmallFormatOp(const Format& f, Op op, const OpOptions& options)
    : f_(f), op_(op), options_(options) {
  if (!supports(f, op))
    throw Error("op", "the small-format fast path serves add, sub, mul and div in formats of "
                      "at most 16 bits");
  const RoundingMode m = options.rounding.mode;
  fast_mode_ = m == RoundingMode::rne || m == RoundingMode::rna || m == RoundingMode::rtz ||
               m == RoundingMode::up || m == RoundingMode::down || m == RoundingMode::odd;
  sign_mask_ = f.sign_mask();
  max_finite_ = f.max_finite_code();
  emin_ = f.emin();
  emax_ = f.emax();
  m_ = f.man_bits;
  bias_ = f.bias;
  subnormal_grid_ = f.subnormals && f.has_zero;
  // Overflow, FTZ and zero results straight from the single round-and-pack.
  for (int ni = 0; ni < 2; ++ni) {
    const bool neg = ni == 1;
    overflow_[ni] = round_to_format(ExactValue::finite(neg, 1, emax_ + 1), f, options.rounding);
    zero_[ni] = round_to_format(ExactValue::zero(neg), f, options.rounding).bits;
    Rounding ftz = options.rounding;
    ftz.tininess = Tininess::before_rounding;
    ftz_[ni] = round_to_format(ExactValue::finite(neg, 1, emin_ - 1), f, ftz);
  }
  table_.resize(f.code_mask() + 1);
  for (std::uint64_t c = 0; c <= f.code_mask(); ++c) {
    const ExactValue v = decode(c, f, options.rounding.daz);
    if (v.is_finite_nonzero()) table_[c] = {static_cast<std::uint16_t>(v.sig),
                                            static_cast<std::int16_t>(v.exp)};
  }
  // NaN results from apply_op (see the header): probes are non-NaN operands of every kind.
  if (fast_mode_ && f.has_nan()) {
    std::vector<std::uint64_t> probes = {0, sign_mask_, 1, max_finite_, max_finite_ | sign_mask_,
                                         f.min_normal_code()};
    if (f.has_inf()) probes.push_back(f.inf_code(false)), probes.push_back(f.inf_code(true));
    std::erase_if(probes, [&](std::uint64_t c) { return c > f.code_mask() || f.is_nan_code(c); });
    is_nan_.assign(f.code_mask() + 1, 0);
    nan_result_[0].assign(f.code_mask() + 1, 0);
    nan_result_[1].assign(f.code_mask() + 1, 0);
    for (std::uint64_t c = 0; c <= f.code_mask(); ++c) {
      if (!f.is_nan_code(c)) continue;
      is_nan_[c] = 1;
      for (int side = 0; side < 2 && !probes.empty(); ++side) {
        auto result = [&](std::uint64_t other) {
          const std::uint64_t ops[3] = {side == 0 ? c : other, side == 0 ? other : c, 0};
          return apply_op(op_, f, ops, options_);
        };
        const Rounded first = result(probes[0]);
        bool same = first.bits <= 0xFFFF;
        for (std::size_t i = 1; i < probes.size() && same; ++i) {
          const Rounded r = result(probes[i]);
          same = r.bits == first.bits && r.flags.bits == first.flags.bits;
        }
        if (same)
          nan_result_[side][c] = (1u << 31) | (static_cast<std::uint32_t>(first.flags.bits) << 16) |
                                 static_cast<std::uint32_t>(first.bits);
      }
    }
  }
}

// The hot path inlines away() and round() into operator() and keeps slow() out of line: in an
// exhaustive sweep every call takes round(), and the calls cost as much as the arithmetic.
[[gnu::noinline, gnu::cold]] Rounded SmallFormatOp::slow(std::uint64_t a, std::uint64_t b) const {
  const std::uint64_t ops[3] = {a, b, 0};
  return apply_op(op_, f_, ops, options_);
}

template <RoundingMode M>
[[gnu::always_inline]] inline bool SmallFormatOp::away(std::uint64_t rem, std::uint64_t half,
                                                       bool sticky, bool odd_code,
                                                       bool negative) const {
  switch (M) {
    case RoundingMode::rne: return rem > half || (rem == half && (sticky || odd_code));
    case RoundingMode::rna: return rem >= half;
    case RoundingMode::up: return !negative;
    case RoundingMode::down: return negative;
    default: return false;  // rtz; odd is applied by the caller
  }
}

// |x| = (sig + sticky) * 2^exp with sig != 0: the same rules as round_to_format's finite
// path. Tiny results whose tininess after rounding is in doubt, and negative results in an
// unsigned format, go to apply_op.
template <RoundingMode M>
[[gnu::always_inline]] inline Rounded SmallFormatOp::round(bool negative, std::uint64_t sig,
                                                           int exp, bool sticky, std::uint64_t a,
                                                           std::uint64_t b) const {
  const int len = 64 - std::countl_zero(sig);
  const int e = exp + len - 1;
  const int ni = negative ? 1 : 0;
  if (negative && !sign_mask_) return slow(a, b);
  if (e > emax_) return overflow_[ni];
  Rounded r;
  std::uint64_t code;
  bool inexact = sticky;
  if (e >= emin_) {
    // The code of the value truncated to p bits is the exponent field over the fraction
    // (without subnormals field 0 is an ordinary exponent: the same layout); a carry out of
    // the fraction moves into the exponent field, as the encoding intends. Ties and round to
    // odd look at the code's last bit (the exponent field's when m = 0).
    const int shift = len - (m_ + 1);
    const std::uint64_t kept = shift > 0 ? sig >> shift : sig << -shift;
    code = (static_cast<std::uint64_t>(e + bias_) << m_) + (kept - (1ull << m_));
    if (shift > 0) {
      const std::uint64_t rem = sig & ((1ull << shift) - 1);
      inexact = inexact || rem != 0;
      if (inexact) {
        if (M == RoundingMode::odd) code |= 1;
        else code += away<M>(rem, 1ull << (shift - 1), sticky, code & 1, negative) ? 1 : 0;
      }
    }
    if (code > max_finite_) return overflow_[ni];
    r.flags.bits = inexact ? Flags::inexact : 0;
  } else {
    // Tiny. Before rounding it is tiny for sure; after rounding only below emin - 1 (at
    // emin - 1 the unbounded rounding may reach 2^emin: apply_op decides).
    if (!subnormal_grid_) return slow(a, b);
    if (options_.rounding.tininess == Tininess::after_rounding && e == emin_ - 1) return slow(a, b);
    if (options_.rounding.ftz) return ftz_[ni];
    const int shift = emin_ - m_ - exp;  // the subnormal grid is 2^(emin - m)
    if (shift <= 0) {
      code = sig << -shift;
    } else if (shift < 64) {
      code = sig >> shift;
      const std::uint64_t rem = sig & ((1ull << shift) - 1);
      inexact = inexact || rem != 0;
      if (inexact) {
        if (M == RoundingMode::odd) code |= 1;
        else code += away<M>(rem, 1ull << (shift - 1), sticky, code & 1, negative) ? 1 : 0;
      }
    } else {
      // Far below the grid: below half an ulp, never a tie.
      code = 0;
      inexact = true;
      if (M == RoundingMode::odd) code = 1;
      else code = away<M>(1, 2, false, false, negative) ? 1 : 0;
    }
    r.flags.bits = inexact ? (Flags::inexact | Flags::underflow) : 0;
    if (code == 0) {
      r.bits = zero_[ni];
      return r;
    }
  }
  r.bits = code | (negative ? sign_mask_ : 0);
  return r;
}

// The whole fast path for one op and mode (the caller has checked fast_mode_ and the codes).
template <Op O, RoundingMode M>
[[gnu::always_inline]] inline Rounded SmallFormatOp::eval(std::uint64_t a,
                                                          std::uint64_t b) const {
  const Entry x = table_[a], y = table_[b];
  if (x.sig == 0 || y.sig == 0) {  // a special or zero operand
    if (!is_nan_.empty() && is_nan_[a] != is_nan_[b]) {
      const std::uint32_t r = nan_result_[is_nan_[a] ? 0 : 1][is_nan_[a] ? a : b];
      if (r >> 31) {
        Rounded res;
        res.bits = r & 0xFFFF;
        res.flags.bits = static_cast<std::uint8_t>(r >> 16);
        return res;
      }
    }
    return slow(a, b);
  }
  const bool na = (a & sign_mask_) != 0;
  bool nb = (b & sign_mask_) != 0;
  switch (O) {
    case Op::sub:
      nb = !nb;
      [[fallthrough]];
    case Op::add: {
      int ex = x.exp, ey = y.exp;
      std::uint64_t sx = x.sig, sy = y.sig;
      bool nx = na, ny = nb;
      if (ex < ey) {
        std::swap(ex, ey);
        std::swap(sx, sy);
        std::swap(nx, ny);
      }
      // Significands have at most 16 bits: a gap of up to 47 aligns exactly in 63 bits.
      // Beyond it, the smaller operand is shifted in below 47 guard bits, its dropped bits
      // becoming a sticky bit (for a subtraction: borrow one unit, so that the sticky
      // remainder 1 - frac stays positive).
      constexpr int kGuard = 47;
      const int gap = ex - ey;
      std::uint64_t big, small;
      bool sticky = false;
      int exp;
      if (gap <= kGuard) {
        big = sx << gap;
        small = sy;
        exp = ey;
      } else {
        const int drop = gap - kGuard;
        big = sx << kGuard;
        small = drop >= 64 ? 0 : sy >> drop;
        sticky = drop >= 64 || (sy & ((1ull << drop) - 1)) != 0;
        exp = ex - kGuard;
      }
      std::uint64_t mag;
      bool neg = nx;
      if (nx == ny) {
        mag = big + small;
      } else if (big >= small) {
        mag = big - small - (sticky ? 1 : 0);  // big >= 2^47 > small when sticky
      } else {
        mag = small - big;
        neg = ny;
      }
      if (mag == 0) return slow(a, b);  // exact zero: the sign rule lives in apply_op
      return round<M>(neg, mag, exp, sticky, a, b);
    }
    case Op::mul:
      return round<M>(na != nb, std::uint64_t{x.sig} * y.sig, x.exp + y.exp, false, a, b);
    case Op::div: {
      const std::uint64_t num = std::uint64_t{x.sig} << 44;
      const std::uint64_t q = num / y.sig, rem = num % y.sig;
      return round<M>(na != nb, q, x.exp - 44 - y.exp, rem != 0, a, b);
    }
    default: return slow(a, b);
  }
}


template <class F>
[[gnu::always_inline]] inline auto SmallFormatOp::dispatch(F&& f) const {
  auto by_mode = [&]<Op O>() {
    switch (options_.rounding.mode) {
      case RoundingMode::rne: return f.template operator()<O, RoundingMode::rne>();
      case RoundingMode::rna: return f.template operator()<O, RoundingMode::rna>();
      case RoundingMode::rtz: return f.template operator()<O, RoundingMode::rtz>();
      case RoundingMode::up: return f.template operator()<O, RoundingMode::up>();
      case RoundingMode::down: return f.template operator()<O, RoundingMode::down>();
      default: return f.template operator()<O, RoundingMode::odd>();
    }
  };
  switch (op_) {
    case Op::add: return by_mode.template operator()<Op::add>();
    case Op::sub: return by_mode.template operator()<Op::sub>();
    case Op::mul: return by_mode.template operator()<Op::mul>();
    default: return by_mode.template operator()<Op::div>();
  }
}

Rounded SmallFormatOp::operator()(std::uint64_t a, std::uint64_t b) const {
  if (!fast_mode_ || ((a | b) & ~f_.code_mask())) return slow(a, b);
  return dispatch([&]<Op O, RoundingMode M>() { return eval<O, M>(a, b); });
}

template <Op O, RoundingMode M>
void SmallFormatOp::row_impl(std::uint64_t a, std::uint64_t b0, std::size_t n,
                             std::uint32_t* out) const {
  for (std::size_t i = 0; i < n; ++i) {
    const Rounded r = eval<O, M>(a, b0 + i);
    out[i] = static_cast<std::uint32_t>(r.bits) | (static_cast<std::uint32_t>(r.flags.bits) << 16);
  }
}

void SmallFormatOp::row(std::uint64_t a, std::uint64_t b0, std::size_t n,
                        std::uint32_t* out) const {
  const std::uint64_t mask = f_.code_mask();
  if (!fast_mode_ || a > mask || b0 > mask || n > mask + 1 - b0) {
    for (std::size_t i = 0; i < n; ++i) {
      const Rounded r = (*this)(a, b0 + i);
      out[i] = static_cast<std::uint32_t>(r.bits) | (static_cast<std::uint32_t>(r.flags.bits) << 16);
    }
    return;
  }
  dispatch([&]<Op O, RoundingMode M>() { row_impl<O, M>(a, b0, n, out); });
}

}  // namespace fpconform
