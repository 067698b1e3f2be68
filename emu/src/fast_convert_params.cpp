// The constants of the fast conversion kernels (F32Params) from (Format, Rounding), and which
// (format, rounding) the vectorized kernels serve.
#include "fast_convert_params.hpp"

#include <cstdint>

#include "fpconform/core/cpu_features.hpp"
#include "fast_convert_kernel.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform::detail {

using RM = RoundingMode;

namespace {

bool overflow_to_infinity(RM m, bool negative) {
  switch (m) {
    case RM::rtz:
    case RM::odd: return false;
    case RM::up: return !negative;
    case RM::down: return negative;
    default: return true;
  }
}


// Tier MS (see v_tierms), on top of tier M: rne/up/down, |x| below 2^emax.
void make_tierms_params(F32Params& p, const Format& f, const Rounding& r) {
  p.ms_ok = false;
  const int m = f.man_bits, emin = f.emin(), emax = f.emax();
  // m >= 1: the formats its test covers (tier M serves the rest)
  if (r.mode == RM::rtz || emax - 1 < emin || m < 1) return;
  const std::uint32_t h = p.sign_mask >> 1;  // half the code's sign bit: 1 << (width - 2)
  // The high half of y + ms_nq is (E - emin) << 7 plus h << (7 - m) (plus 1 where r >= h), a
  // positive int16 for every E < emax.
  const std::uint32_t sign_term = (h << 7) >> m;  // exact: h << 7 = 2^(width + 5), m < width
  if (h == 0 || (static_cast<std::uint32_t>(emax - 1 - emin) << 7) + sign_term + 1 > 0x7FFFu)
    return;
  p.ms_k = static_cast<std::uint32_t>(150 - m) << 23 | (0x400000u - h);
  const std::uint32_t q_hi = (static_cast<std::uint32_t>(emin + 150 - m) << 7) + 0x3Fu - sign_term;
  p.ms_nq = 0u - (q_hi << 16);
  p.ms_w[0] = 1u << (16 + m) | 0x0080u;  // x >= 0: the low half times 2^7
  p.ms_w[1] = 1u << (16 + m) | 0xFF80u;  // x < 0: the low half times -2^7
  p.ms_lim = static_cast<std::uint32_t>(emax - 1 + 127) << 23;
  p.ms_ok = true;
}

// Tier M (see v_tierm): signed 1-byte formats with subnormals, zero and -0, 2^emin a normal
// fp32, rne/rtz/up/down, and an overflow result that is the code reached by clamping |x| to
// mg_hi: the value of max finite (saturating results) or of the code after it (inf or NaN next to
// max finite, as in e5m2 and e4m3). The clamp also keeps every C = 2^(E+23-m) a normal fp32.
void make_tierm_params(F32Params& p, const Format& f, const Rounding& r) {
  p.mg_ok = false;
  const int m = f.man_bits, emin = f.emin();
  const bool mode_ok = r.mode == RM::rne || r.mode == RM::rtz || r.mode == RM::up ||
                       r.mode == RM::down;
  if (!cpu_features().fma) return;
  if (!mode_ok || f.width() > 8 || !f.is_signed || !f.subnormals || !f.has_zero ||
      !f.has_negative_zero() || f.bias > 127 || emin < -126 || m > 6)
    return;
  // fp32 bits of the value of magnitude code c (>= the first normal code), 0 if not a normal fp32.
  auto value_bits = [&](std::uint32_t c) -> std::uint32_t {
    const int e = static_cast<int>(c >> m) - f.bias + 127;
    if ((c >> m) == 0 || e < 1 || e > 254) return 0;
    return static_cast<std::uint32_t>(e) << 23 | (c & ((1u << m) - 1)) << (23 - m);
  };
  std::uint32_t clamp_code[2];
  for (int neg = 0; neg < 2; ++neg) {
    const std::uint32_t sign = neg ? p.sign_mask : 0;
    const std::uint32_t ovf = p.ovf_code[neg];
    if (ovf == (p.maxf | sign)) clamp_code[neg] = p.maxf;
    else if (p.maxf + 1 <= p.mag_mask && ovf == ((p.maxf + 1) | sign)) clamp_code[neg] = p.maxf + 1;
    else return;
    p.mg_hi[neg] = value_bits(clamp_code[neg]);
    // C = 2^(E + 23 - m) for E up to the clamp's exponent must stay below 2^128.
    if (p.mg_hi[neg] == 0 || (p.mg_hi[neg] >> 23) + 23 - m > 254) return;
  }
  p.mg_lo = static_cast<std::uint32_t>(emin + 127) << 23;
  p.mg_k = static_cast<std::uint32_t>(23 - m) << 23;
  p.mg_cmin = p.mg_lo + p.mg_k;
  // pmaddwd weights: low half (k) times 2^7, high half (dE << 7 and the code's sign bit) times 2^m.
  p.mg_w = 1u << (16 + m) | 1u << 7;
  // The code's sign bit goes into the high half as sign_mask << (23 - m), which must lie in
  // bits 24..30 (true for widths m + 2 .. m + 8: every format that gets here).
  const std::uint64_t sign_hi = static_cast<std::uint64_t>(p.sign_mask) << (23 - m);
  if (sign_hi % (1u << 24) != 0 || sign_hi >= (1u << 31)) return;
  // Inputs the clamp gets right by itself: inf, and NaN too where its code carries no payload.
  bool inf_ok = true, nan_ok = p.nan_paymask == 0;
  for (int neg = 0; neg < 2; ++neg) {
    const std::uint32_t c = clamp_code[neg] | (neg ? p.sign_mask : 0);
    inf_ok = inf_ok && p.inf_code[neg] == c;
    nan_ok = nan_ok && p.nan_code[neg] == c;
  }
  p.mg_track = !(inf_ok && nan_ok);
  p.mg_lim = inf_ok ? kInf : kInf - 1;  // the largest |x| pattern tier M serves
  p.mg_ok = true;
  make_tierms_params(p, f, r);
}

F32Params make_params(const Format& f, const Rounding& r) {
  F32Params p{};
  const int m = f.man_bits;
  const int w = f.width();
  const std::uint32_t sm = static_cast<std::uint32_t>(f.sign_mask());
  p.tiny_after = r.tininess == Tininess::after_rounding;
  p.daz_lim = r.daz ? kHidden : 0;
  p.ftz_m = r.ftz ? ~0u : 0u;
  p.has_zero_m = f.has_zero ? ~0u : 0u;
  p.unsigned_m = f.is_signed ? 0u : ~0u;
  p.below_lim = f.subnormals ? -(1 << 30) : 0;
  p.absmask = f.is_signed ? kAbs : 0xFFFFFFFFu;
  p.bias = f.bias;
  p.rebias = static_cast<std::uint32_t>(f.bias - 127) << 23;
  p.s0 = static_cast<std::uint32_t>(23 - m);
  p.maxf = static_cast<std::uint32_t>(f.max_finite_code());
  p.sign_mask = sm;
  p.mag_mask = static_cast<std::uint32_t>(f.magnitude_mask());
  p.sign_shift = static_cast<std::uint32_t>(32 - w);
  p.sub_lo = f.min_normal_field();
  p.sub_c = p.sub_lo + 127 - f.bias;

  const int emin = f.emin();
  // fp32 subnormal M * 2^-149 is tiny iff M < 2^(emin + 149).
  p.sub_tiny_lim = emin + 149 >= 31 ? kNever : 1u << (emin + 149);
  // ... and has exponent emin - 1 iff M << (-125 - emin) has its top bit at 2^23.
  p.tz_shift = static_cast<std::uint32_t>(-125 - emin > 0 ? -125 - emin : 0);
  const std::uint32_t top = 1u << 24;
  const std::uint32_t near_half = top - (1u << (p.s0 - 1));      // rne, rna: carry at >= half
  const std::uint32_t near_any = top - (1u << p.s0) + 1;          // directed: carry if inexact
  // A tie rounds away under rne when the all-ones p-bit significand's code, in the unbounded
  // encoding (tiny_after_rounding), is odd: always for m >= 1; for m = 0 the exponent field's
  // parity, even (0) with subnormals and odd (-1) without.
  const bool tie_odd = !(f.subnormals && m == 0);
  switch (r.mode) {
    case RM::rne: p.thresh_pos = p.thresh_neg = near_half + (tie_odd ? 0 : 1); break;
    case RM::rna: p.thresh_pos = p.thresh_neg = near_half; break;
    case RM::up: p.thresh_pos = near_any, p.thresh_neg = kNever; break;
    case RM::down: p.thresh_pos = kNever, p.thresh_neg = near_any; break;
    // Round to odd moves the all-ones significand up only from an even code (m = 0 with
    // subnormals), and then whenever it is inexact.
    case RM::odd: p.thresh_pos = p.thresh_neg = tie_odd ? kNever : near_any; break;
    default: p.thresh_pos = p.thresh_neg = kNever; break;
  }
  if (!p.tiny_after) p.thresh_pos = p.thresh_neg = kNever;
  // An fp32 subnormal into a format without subnormals whose emin is below -126: its exponent
  // is not fixed by the fp32 exponent field, so `convert` does those lanes.
  p.may_slow = !f.subnormals && emin <= -127;
  p.fine_m = f.subnormals && f.bias == 128 ? ~0u : 0u;
  // Tier F (AVX2) needs every 2^-q, q in [emin - m, emax - m], to be a normal fp32, and
  // 2^-125 <= half the smallest subnormal (for its stand-in for fp32 subnormal inputs).
  // With emin <= m, |x| * 2^-q >= min(|x|, 2^-126) stays a normal fp32: no FP operation in the
  // tier sees or makes a subnormal, so MXCSR's DAZ/FTZ cannot change it.
  p.float_tier = f.subnormals && m >= 1 && emin - m >= -124 && emin <= m;
  p.slow_m = p.may_slow ? ~0u : 0u;
  // fp32's own exponent range (e = 8, bias 127: bf16 and the like): the code of every |x| <= max
  // finite is the fp32 pattern, sign and all, rounded at s0 (the sign lands on the format's sign
  // bit, subnormals on subnormals, a carry moves into the exponent), with -0 kept (AVX2 tier S).
  p.sign_aligned = f.is_signed && f.exp_bits == 8 && f.bias == 127 && f.subnormals &&
                   f.has_zero && f.has_negative_zero() && f.inf == InfEncoding::ieee && m >= 1;

  for (int neg = 0; neg < 2; ++neg) {
    const bool ng = neg != 0;
    const std::uint32_t sign = ng ? sm : 0;
    const std::uint32_t maxf_code = p.maxf | sign;
    // overflow_result
    std::uint32_t ovf = maxf_code;
    if (r.sat == Saturation::infinite || (r.sat == Saturation::none && overflow_to_infinity(r.mode, ng))) {
      if (f.has_inf()) ovf = static_cast<std::uint32_t>(f.inf_code(false)) | sign;
      else if (f.has_nan()) ovf = static_cast<std::uint32_t>(f.nan_code(ng) & f.code_mask());
    }
    p.ovf_code[neg] = ovf;
    // infinite input
    if (f.has_inf() && r.sat != Saturation::finite) {
      p.inf_code[neg] = static_cast<std::uint32_t>(f.inf_code(false)) | sign;
      p.inf_flags = 0;
    } else if (r.sat != Saturation::finite && f.has_nan()) {
      p.inf_code[neg] = static_cast<std::uint32_t>(f.nan_code(ng) & f.code_mask());
      p.inf_flags = Flags::invalid;
    } else {
      p.inf_code[neg] = maxf_code;
      p.inf_flags = Flags::overflow | Flags::inexact;
    }
    // zero inputs, and rounded results of magnitude 0 where the format has a zero: zero_result
    // with the sign where it has a zero, zero_result(false) where it has none.
    const std::uint32_t minpos = static_cast<std::uint32_t>(f.min_positive_code());
    p.zero_code[neg] = f.has_zero ? (ng && f.has_negative_zero() ? sm : 0) : minpos;
    // ftz: zero_result(negative).
    p.ftz_code[neg] = f.has_zero ? p.zero_code[neg] : minpos | sign;
    p.nan_code[neg] = f.has_nan() ? static_cast<std::uint32_t>(f.nan_code(ng) & f.code_mask()) : 0;
  }
  p.zero_flags = f.has_zero ? 0 : Flags::underflow | Flags::inexact;
  p.nan_paymask = f.nan == NanEncoding::ieee && m > 1
                      ? static_cast<std::uint32_t>(f.quiet_bit() - 1)
                      : 0;
  p.nan_flags_quiet = f.has_nan() ? 0 : Flags::invalid;
  p.uns_neg_code = f.has_nan() ? static_cast<std::uint32_t>(f.nan_code(false) & f.code_mask()) : 0;
  p.minnorm_code = static_cast<std::uint32_t>(f.min_normal_code());

  // The normal-range shortcut: [2^emin, maxf] as fp32 patterns (only fp32 normals).
  const std::uint64_t mf = f.max_finite_code();
  const int field = static_cast<int>(mf >> m);
  const std::uint32_t tfrac = static_cast<std::uint32_t>(mf & ((1ull << m) - 1));
  const int fe = field - f.bias + 127;  // fp32 exponent field of maxf
  std::uint32_t hi = 0;
  if (field >= p.sub_lo && fe >= 1) hi = fe >= 255 ? 0x7F7FFFFFu : (static_cast<std::uint32_t>(fe) << 23) | (tfrac << p.s0);
  std::uint32_t lo = emin + 127 <= 1 ? kHidden : static_cast<std::uint32_t>(emin + 127) << 23;
  // Tier 1 adds up to 2^s0 - 1 to |x| + rebias; that must stay below bit 31 (the sign).
  const bool tier1_fits = hi != 0 && static_cast<std::int64_t>(hi) + static_cast<std::int32_t>(p.rebias) +
                                             (std::int64_t{1} << p.s0) <= (std::int64_t{1} << 31);
  if (hi != 0 && lo <= hi && tier1_fits) {
    p.lo = lo;
    p.range = hi - lo;
  } else {
    p.lo = 0;
    p.range = 0;  // no shortcut
  }
  make_tierm_params(p, f, r);
  return p;
}


}  // namespace

// Whether the vectorized kernels model (to, r); otherwise every element goes to `convert`.
bool fast_convert_supports(const Format& to, const Rounding& r) {
  if (is_stochastic(r.mode)) return false;
  if (to.width() > 16 || to.man_bits > 22 || to.exp_bits < 1) return false;
  if (to.bias < -128 || to.bias > 128) return false;
  return true;
}

F32Params make_f32_params(const Format& to, const Rounding& r) { return make_params(to, r); }

}  // namespace fpconform::detail
