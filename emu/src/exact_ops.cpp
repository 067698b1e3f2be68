// Exact add, multiply, fused multiply-add, divide and square root on ExactValues.
#include "fpconform/exact_ops.hpp"

#include <algorithm>
#include <bit>

namespace fpconform {

namespace {

// A 256-bit unsigned integer, just enough for exact alignment and products.
struct U256 {
  u128 hi = 0, lo = 0;
  static U256 of(u128 v) { return {0, v}; }
  int bit_length() const { return hi ? 128 + fpconform::bit_length(hi) : fpconform::bit_length(lo); }
  U256 shl(int n) const {
    if (n == 0) return *this;
    if (n >= 128) return {lo << (n - 128), 0};
    return {(hi << n) | (lo >> (128 - n)), lo << n};
  }
  // Shift right, returning whether any dropped bit was set.
  U256 shr(int n, bool& dropped) const {
    if (n == 0) return *this;
    if (n >= 256) {
      dropped = dropped || hi || lo;
      return {};
    }
    if (n >= 128) {
      dropped = dropped || lo || (n > 128 && (hi << (256 - n)) != 0);
      return {0, n == 128 ? hi : hi >> (n - 128)};
    }
    dropped = dropped || (lo << (128 - n)) != 0;
    return {hi >> n, (lo >> n) | (hi << (128 - n))};
  }
  friend bool operator<(const U256& a, const U256& b) {
    return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
  }
  friend U256 operator+(const U256& a, const U256& b) {
    U256 r{a.hi + b.hi, a.lo + b.lo};
    if (r.lo < a.lo) ++r.hi;
    return r;
  }
  friend U256 operator-(const U256& a, const U256& b) {
    U256 r{a.hi - b.hi, a.lo - b.lo};
    if (a.lo < b.lo) --r.hi;
    return r;
  }
  bool is_zero() const { return hi == 0 && lo == 0; }
};

U256 mul_128(u128 a, u128 b) {
  const u128 mask = ~std::uint64_t(0);
  const u128 a0 = a & mask, a1 = a >> 64, b0 = b & mask, b1 = b >> 64;
  const u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const u128 mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  U256 r;
  r.lo = (p00 & mask) | (mid << 64);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

// sig * 2^exp (+ sticky) -> ExactValue with at most 128 significant bits.
ExactValue compress(bool negative, U256 sig, int exp, bool sticky) {
  if (sig.is_zero() && !sticky) return ExactValue::zero(false);
  const int excess = sig.bit_length() - 128;
  if (excess > 0) {
    sig = sig.shr(excess, sticky);
    exp += excess;
  }
  return ExactValue::finite(negative, sig.lo, exp, sticky);
}

// A sticky operand (strictly between sig and sig+1 units) is replaced by the proxy
// sig + 1/2: it lies in the same open interval, so one rounding far above it is unchanged.
void unstick(const ExactValue& v, u128& sig, int& exp) {
  sig = v.sig;
  exp = v.exp;
  if (v.sticky) {
    if (bit_length(sig) == 128) {
      sig >>= 1;  // dropped bit folds into the proxy's half
      ++exp;
    }
    sig = (sig << 1) | 1;
    --exp;
  }
}

}  // namespace

ExactValue exact_add(const ExactValue& a, const ExactValue& b) {
  if (a.is_zero() && b.is_zero()) return ExactValue::zero(a.negative && b.negative);
  if (a.is_zero()) return b;
  if (b.is_zero()) return a;
  u128 sa, sb;
  int ea, eb;
  unstick(a, sa, ea);
  unstick(b, sb, eb);
  const bool sticky_in = a.sticky || b.sticky;
  // Order by the position of the leading bit: x is the larger.
  const bool a_first = ea + bit_length(sa) >= eb + bit_length(sb);
  u128 sx = a_first ? sa : sb, sy = a_first ? sb : sa;
  int ex = a_first ? ea : eb, ey = a_first ? eb : ea;
  const bool nx = a_first ? a.negative : b.negative, ny = a_first ? b.negative : a.negative;
  const int top = ex + bit_length(sx);
  // Keep y's bits down to top - 250: below that they can only be sticky (y is then far below
  // x, so no cancellation reaches them).
  U256 y = U256::of(sy);
  bool y_sticky = false;
  if (ey < top - 250) {
    y = y.shr(top - 250 - ey, y_sticky);
    ey = top - 250;
  }
  const int e0 = std::min(ex, ey);
  U256 x = U256::of(sx).shl(ex - e0);
  y = y.shl(ey - e0);
  U256 sum;
  bool negative = nx;
  if (nx == ny) {
    sum = x + y;
  } else if (y < x) {
    sum = x - y;
    if (y_sticky) sum = sum - U256::of(1);  // x - (y + eps) = (x - y - 1) + (1 - eps)
  } else {
    sum = y - x;  // only when no bits of y were dropped (then y_sticky is false)
    negative = ny;
  }
  return compress(negative, sum, e0, y_sticky || sticky_in);
}

ExactValue exact_mul(const ExactValue& a, const ExactValue& b) {
  const bool negative = a.negative != b.negative;
  if (a.is_zero() || b.is_zero()) return ExactValue::zero(negative);
  u128 sa, sb;
  int ea, eb;
  unstick(a, sa, ea);
  unstick(b, sb, eb);
  return compress(negative, mul_128(sa, sb), ea + eb, a.sticky || b.sticky);
}

ExactValue exact_fma(const ExactValue& a, const ExactValue& b, const ExactValue& c) {
  return exact_add(exact_mul(a, b), c);
}

ExactValue exact_div(const ExactValue& a, const ExactValue& b) {
  const bool negative = a.negative != b.negative;
  if (a.is_zero()) return ExactValue::zero(negative);
  // Restoring division producing 128 quotient bits; the divisor is normalised to <= 64 bits
  // (operands come from decoded codes; a wider divisor is rounded to odd, which keeps the
  // quotient's rounding information for formats well below 64 bits).
  u128 d = b.sig;
  int eb = b.exp;
  bool d_sticky = b.sticky;
  if (bit_length(d) > 64) {
    const int s = bit_length(d) - 64;
    d_sticky = d_sticky || (d & ((u128(1) << s) - 1)) != 0;
    d >>= s;
    eb += s;
  }
  if (d_sticky) d |= 1;
  u128 n = a.sig;
  int ea = a.exp;
  bool sticky = a.sticky || d_sticky;
  u128 q = n / d, r = n % d;
  // Extend the quotient up to 64 bits at a time until it has 128 bits: r < d <= 2^64, so
  // r << k stays below 2^128 for k <= 64.
  while (bit_length(q) < 128) {
    const int k = std::min(64, 128 - bit_length(q));
    r <<= k;
    q = (q << k) | (r / d);
    r %= d;
    ea -= k;
  }
  return ExactValue::finite(negative, q, ea - eb, sticky || r != 0);
}

ExactValue exact_sqrt(const ExactValue& a) {
  if (a.is_zero()) return a;
  // Scale to 255 or 256 bits with an even exponent, then take the 128-bit integer square root
  // digit by digit: 128 result bits, so stochastic rounding into a 64-bit format with 64
  // random bits still sees every bit of the fraction it needs (p + n <= 127), not only the
  // few that deterministic rounding needs.
  const int shift = [&] {
    int s = 256 - bit_length(a.sig);
    if (((a.exp - s) & 1) != 0) --s;
    return s;
  }();
  const U256 n = U256::of(a.sig).shl(shift);
  const int e = a.exp - shift;
  u128 root = 0;
  U256 rem;
  for (int i = 127; i >= 0; --i) {
    const int pos = 2 * i;  // bring down bits pos+1, pos
    const u128 two = (pos >= 128 ? n.hi >> (pos - 128) : n.lo >> pos) & 3;
    rem = rem.shl(2) + U256::of(two);
    const U256 trial = U256::of(root).shl(2) + U256::of(1);  // 4 root + 1
    root <<= 1;
    if (!(rem < trial)) {
      rem = rem - trial;
      root |= 1;
    }
  }
  return ExactValue::finite(false, root, e / 2, a.sticky || !rem.is_zero());
}

}  // namespace fpconform
