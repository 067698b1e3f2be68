// The exact intermediate every conversion and operation produces before its single rounding.
#pragma once

#include <bit>
#include <cstdint>

namespace fpconform {

using u128 = unsigned __int128;

// Number of significant bits of v (0 for 0).
inline int bit_length(u128 v) {
  const auto hi = static_cast<std::uint64_t>(v >> 64);
  return hi ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(static_cast<std::uint64_t>(v));
}

// A real number (or special) as  (-1)^negative * (sig + sticky*epsilon) * 2^exp,
// where "sticky" means the exact value lies strictly between sig*2^exp and (sig+1)*2^exp.
// Producers keep at least (target precision + 2) significant bits in `sig` whenever `sticky`
// is set, so a later rounding is still correct; 128 bits suffice for every format of <= 64 bits.
struct ExactValue {
  enum class Kind : std::uint8_t { zero, finite, inf, nan };
  Kind kind = Kind::zero;
  bool negative = false;
  u128 sig = 0;     // kind == finite: non-zero
  int exp = 0;      // weight of sig's least significant bit
  bool sticky = false;
  // NaNs: payload as the leading bits below the quiet bit, left-aligned in 64 bits (bit 63 is
  // the bit just below the quiet bit), so payloads move between widths the way IEEE conversions
  // move them (truncating or zero-extending on the right).
  std::uint64_t nan_payload = 0;
  bool signaling = false;

  static ExactValue zero(bool neg) { return {Kind::zero, neg}; }
  static ExactValue infinity(bool neg) { return {Kind::inf, neg}; }
  static ExactValue quiet_nan(bool neg = false, std::uint64_t payload = 0) {
    ExactValue v{Kind::nan, neg};
    v.nan_payload = payload;
    return v;
  }
  static ExactValue finite(bool neg, u128 sig, int exp, bool sticky = false) {
    if (sig == 0 && !sticky) return zero(neg);
    ExactValue v{Kind::finite, neg};
    v.sig = sig;
    v.exp = exp;
    v.sticky = sticky;
    return v;
  }
  bool is_nan() const { return kind == Kind::nan; }
  bool is_inf() const { return kind == Kind::inf; }
  bool is_zero() const { return kind == Kind::zero; }
  bool is_finite_nonzero() const { return kind == Kind::finite; }
};

}  // namespace fpconform
