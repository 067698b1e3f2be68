// SmallFormatOp: integer fast path for binary operations in formats of <= 16 bits.
#include "fpconform/fast_arith.hpp"

#include <bit>
#include <vector>

#include "fpconform/core/cpu_features.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform {

namespace {

// A result as the row form writes it: the code | its flags << 16.
std::uint32_t row_code(const Rounded& r) {
  return static_cast<std::uint32_t>(r.bits) | (static_cast<std::uint32_t>(r.flags.bits) << 16);
}

}  // namespace

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

// The row's add, sub and mul in vector lanes: each lane the result eval gives, computed without
// branches so that the loop runs in AVX-512 lanes (where the CPU has them; elsewhere the scalar
// row runs: AVX2 has no 64-bit lane compares or int64 -> double conversions). The exact sum or product is an integer mag * 2^exp; its length comes
// from mag as a double, exact while mag < 2^53, so sums of operands more than 36 binades apart
// (f16's are at most 29) are left to eval. The one grid both normal and tiny results round on
// is 2^(max(e, emin) - m). A lane these rules do not settle is kRedo: an operand that is not
// finite non-zero, an exact zero sum, a negative result in an unsigned format, a tiny result
// without a subnormal grid, tiny by more than 63 bits, or with tininess after rounding in doubt.
struct SmallFormatOp::Lanes {
  static constexpr std::uint32_t kRedo = 0xFFFFFFFFu;  // not a result (flags 0xFF)
  static constexpr int kMaxGap = 36;
  struct Params {
    std::int64_t sx, ex, na;  // a: significand, exponent of its last bit, sign (0, 1)
    std::uint64_t sign_mask;
    std::int64_t m, bias, emin, emax, max_finite;
    std::int64_t unsigned_format, no_grid, ftz, after_rounding;
    std::uint64_t overflow[2], ftz_result[2], zero[2];  // packed: code | flags << 16
  };

  // c ? a : b for c in {0, 1}.
  [[gnu::always_inline]] static inline std::uint64_t pick(std::uint64_t c, std::uint64_t a, std::uint64_t b) {
    return b ^ ((a ^ b) & (0 - c));
  }

  template <Op O, RoundingMode M>
  [[gnu::always_inline]] static inline void body(const Params& p, const Entry* y, std::uint64_t b0,
                                                 std::size_t n, std::uint32_t* out) {
    // Every parameter in a local: the loop reads no memory but y.
    const std::int64_t sx = p.sx, ex = p.ex, na = p.na, m = p.m, bias = p.bias, emin = p.emin;
    const std::int64_t emax = p.emax, max_finite = p.max_finite, unsigned_format = p.unsigned_format;
    const std::int64_t no_grid = p.no_grid, ftz = p.ftz, after_rounding = p.after_rounding;
    const std::uint64_t sign_mask = p.sign_mask;
    const std::uint64_t zero0 = p.zero[0], zero1 = p.zero[1], ov0 = p.overflow[0], ov1 = p.overflow[1];
    const std::uint64_t ftz0 = p.ftz_result[0], ftz1 = p.ftz_result[1];
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t sy = y[i].sig, ey = y[i].exp;
      const std::int64_t nb = static_cast<std::int64_t>(((b0 + i) & sign_mask) != 0) ^ (O == Op::sub ? 1 : 0);
      std::int64_t mag, exp, neg, redo = sy == 0 ? 1 : 0;
      if constexpr (O == Op::mul) {
        mag = sx * sy;
        exp = ex + ey;
        neg = na ^ nb;
      } else {
        exp = ex < ey ? ex : ey;
        const std::int64_t gx = ex - exp, gy = ey - exp;
        redo |= static_cast<std::int64_t>((gx > kMaxGap) | (gy > kMaxGap));
        // In unsigned two's complement: a lane to redo may shift bits out of range.
        const std::uint64_t X = static_cast<std::uint64_t>(sx) << (gx & 63);
        const std::uint64_t Y = static_cast<std::uint64_t>(sy) << (gy & 63);
        const std::uint64_t sum = (na ? 0 - X : X) + (nb ? 0 - Y : Y);
        redo |= sum == 0 ? 1 : 0;
        neg = static_cast<std::int64_t>(sum >> 63);
        mag = static_cast<std::int64_t>(neg ? 0 - sum : sum);
      }
      // e: the exponent of mag's leading bit, from mag as a double (exact below 2^53).
      const std::int64_t lead =
          static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(static_cast<double>(mag | 1)) >> 52) - 1023;
      const std::int64_t e = exp + lead;
      const std::int64_t tiny = e < emin ? 1 : 0;
      const std::int64_t q = (tiny ? emin : e) - m;  // the grid: 2^q
      const std::int64_t shift = q - exp;              // bits of mag below the grid
      redo |= unsigned_format & neg;
      redo |= tiny & (no_grid | static_cast<std::int64_t>(shift > 63) |
                      (after_rounding & static_cast<std::int64_t>(e == emin - 1)));
      const std::int64_t sh = shift < 0 ? 0 : shift & 63, up = shift < 0 ? -shift : 0;
      const std::uint64_t umag = static_cast<std::uint64_t>(mag);
      const std::uint64_t trunc = umag >> sh;
      const std::uint64_t kept = trunc << (up & 63);
      const std::uint64_t inexact = umag != (trunc << sh) ? 1 : 0;
      // umag < 2^53, so umag2's bit sh is the first bit below the grid and its bits under sh
      // are the rest (written so, not with masks 2^sh - 1: the vectorizer takes these).
      const std::uint64_t umag2 = umag << 1;
      const std::uint64_t round_bit = (umag2 >> sh) & 1;
      const std::uint64_t sticky = umag2 != ((umag2 >> sh) << sh) ? 1 : 0;
      // The code: the exponent field (e + bias - 1 for a normal e: kept carries the leading
      // bit) over the fraction; a carry out of the fraction moves into the exponent field.
      std::uint64_t code = (tiny ? 0 : static_cast<std::uint64_t>(e + bias - 1) << m) + kept;
      std::uint64_t away = 0;
      if constexpr (M == RoundingMode::rne) away = round_bit & (sticky | code);
      else if constexpr (M == RoundingMode::rna) away = round_bit;
      else if constexpr (M == RoundingMode::up) away = inexact & static_cast<std::uint64_t>(neg ^ 1);
      else if constexpr (M == RoundingMode::down) away = inexact & static_cast<std::uint64_t>(neg);
      else if constexpr (M == RoundingMode::odd) code |= inexact;
      code += away;
      const std::uint64_t flags = inexact * (tiny ? Flags::inexact | Flags::underflow : Flags::inexact);
      // The result by masks, not nested selects (which the vectorizer does not take).
      const std::uint64_t un = static_cast<std::uint64_t>(neg);
      const std::uint64_t signed_code = code | (sign_mask & (0 - un));
      const std::uint64_t packed = pick(code == 0, pick(un, zero1, zero0), signed_code) | flags << 16;
      const std::uint64_t overflows =
          static_cast<std::uint64_t>(e > emax) | static_cast<std::uint64_t>(static_cast<std::int64_t>(code) > max_finite);
      std::uint64_t r = pick(overflows, pick(un, ov1, ov0), packed);
      r = pick(static_cast<std::uint64_t>(tiny & ftz), pick(un, ftz1, ftz0), r);
      out[i] = static_cast<std::uint32_t>(pick(static_cast<std::uint64_t>(redo), kRedo, r));
    }
  }
#if defined(__x86_64__) && defined(__GNUC__)
  template <Op O, RoundingMode M>
  [[gnu::target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"), gnu::noinline]] static void avx512(
      const Params& p, const Entry* y, std::uint64_t b0, std::size_t n, std::uint32_t* out) {
    body<O, M>(p, y, b0, n, out);
  }
#endif
  static bool available() {
#if defined(__x86_64__) && defined(__GNUC__)
    return cpu_features().avx512 && cpu_features().avx512vl && !portable_dispatch();
#else
    return false;
#endif
  }
};

template <Op O, RoundingMode M>
void SmallFormatOp::row_impl(std::uint64_t a, std::uint64_t b0, std::size_t n,
                             std::uint32_t* out) const {
#if defined(__x86_64__) && defined(__GNUC__)
  const Entry x = table_[a];
  if (O != Op::div && x.sig != 0 && Lanes::available()) {  // a special a: every lane is eval's
    Lanes::Params p{x.sig, x.exp, (a & sign_mask_) != 0 ? 1 : 0, sign_mask_, m_, bias_, emin_, emax_,
                    static_cast<std::int64_t>(max_finite_), sign_mask_ == 0 ? 1 : 0,
                    subnormal_grid_ ? 0 : 1, options_.rounding.ftz ? 1 : 0,
                    options_.rounding.tininess == Tininess::after_rounding ? 1 : 0,
                    {row_code(overflow_[0]), row_code(overflow_[1])},
                    {row_code(ftz_[0]), row_code(ftz_[1])}, {zero_[0], zero_[1]}};
    Lanes::avx512<O, M>(p, table_.data() + b0, b0, n, out);
    for (std::size_t i = 0; i < n; ++i)
      if (out[i] == Lanes::kRedo) {
        const Rounded r = eval<O, M>(a, b0 + i);
        out[i] = row_code(r);
      }
    return;
  }
#endif
  for (std::size_t i = 0; i < n; ++i) {
    const Rounded r = eval<O, M>(a, b0 + i);
    out[i] = row_code(r);
  }
}

void SmallFormatOp::row(std::uint64_t a, std::uint64_t b0, std::size_t n,
                        std::uint32_t* out) const {
  const std::uint64_t mask = f_.code_mask();
  if (!fast_mode_ || a > mask || b0 > mask || n > mask + 1 - b0) {
    for (std::size_t i = 0; i < n; ++i) {
      const Rounded r = (*this)(a, b0 + i);
      out[i] = row_code(r);
    }
    return;
  }
  dispatch([&]<Op O, RoundingMode M>() { row_impl<O, M>(a, b0, n, out); });
}

}  // namespace fpconform
