// Text <-> exact values: parse_number, exact_decimal, hex_float (declared in convert.hpp).
//
// Standard library only. A small private big integer (little-endian uint32 limbs) does the
// exact work; nothing here goes through double or long double.
//
// parse_number
//   * Hex floats and dyadic decimals come out exact (sticky false) with an odd `sig` (trailing
//     zero bits moved into `exp`), unless they have more than 128 significant bits: then the
//     top 128 bits and sticky.
//   * Non-dyadic decimals ("0.1") give exactly 128 significant bits, truncated toward zero,
//     plus sticky: enough for one correct rounding into any format of <= 64 bits.
//   * Range: decimal values whose leading digit has a decimal exponent within +-100000, and hex
//     floats whose leading bit has a binary exponent within +-340000, are converted exactly.
//     Beyond that the value is clamped to (2^+-350000 with sticky), which is larger (smaller)
//     than anything converted exactly and overflows (underflows) every format whose exponent
//     range is below 2^18: "1e999999" -> inf/max, "1e-999999" -> zero/min, with the right flags.
//   * Decimal significands longer than 40000 significant digits are cut there and the
//     (non-zero) rest goes into sticky; the 128-bit truncation is still exact, since the cut
//     digits are far below its granularity. The only effect: an exact dyadic value written
//     with more than 40000 significant digits (below about 2^-57000, or an integer above about
//     2^132000) comes back as 128 bits + sticky instead of exactly. Every exact decimal of a
//     format of <= 64 bits with an exponent field of <= 15 bits (binary128-range subnormals
//     need about 11500 digits) is well inside.
//   * NaN payloads: "nan(0x...)" / "nan(<decimal>)" give `nan_payload` verbatim, i.e. the
//     stored left-aligned 64-bit field (0x8000000000000000 is the bit just below the quiet
//     bit); exact_decimal and hex_float print it the same way, so text round-trips.
// exact_decimal
//   * Plain notation when that is at most 60 characters (sign included), otherwise scientific
//     with every significant digit and a C-style exponent of at least two digits ("e-45",
//     "e+60"). A sticky (inexact) value shows the digits of sig*2^exp followed by "..." (placed
//     before the exponent in scientific notation). Values whose |exp| (after removing trailing
//     zero bits) exceeds 2^17 = 131072 would need about 40000 to millions of digits; they are
//     given in hex_float form instead (still exact). That covers every format with an exponent
//     field of up to 17 bits and keeps the cost bounded (about 0.25 s and 92000 characters at
//     worst).
// hex_float
//   * "0x1.8p-3", "-0x1p+0", "0x0p+0"; a sticky value gets "..." before the 'p'.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/exact.hpp"

namespace fpconform {
namespace {

constexpr std::int64_t kDecimalExactLimit = 100000;  // |decimal exponent of leading digit|
constexpr std::int64_t kBinaryExactLimit = 340000;   // |binary exponent of leading bit|
constexpr int kClampExponent = 350000;               // clamped values: 2^+-kClampExponent
constexpr std::size_t kMaxDecimalDigits = 40000;
constexpr std::size_t kMaxHexDigits = 40;            // 160 bits: more than 128 + slack
constexpr std::int64_t kExponentSaturation = 1000000000;
constexpr int kDecimalOutputLimit = 1 << 17;         // |exp| above this: hex_float instead
constexpr std::size_t kPlainWidth = 60;

constexpr std::uint32_t kPow5_13 = 1220703125u;  // 5^13 < 2^32
constexpr std::uint32_t kPow10_9 = 1000000000u;


int trailing_zeros(u128 v) {
  if (v == 0) return 0;
  int n = 0;
  while ((v & 1) == 0) {
    ++n;
    v >>= 1;
  }
  return n;
}

std::uint32_t pow_small(std::uint32_t base, int n) {
  std::uint32_t r = 1;
  for (int i = 0; i < n; ++i) r *= base;
  return r;
}

// Non-negative big integer, little-endian 32-bit limbs, no leading zero limbs.
class Big {
 public:
  Big() = default;
  explicit Big(u128 v) {
    while (v != 0) {
      w_.push_back(static_cast<std::uint32_t>(v));
      v >>= 32;
    }
  }

  bool is_zero() const { return w_.empty(); }

  // *this = *this * m + add
  void mul_add(std::uint32_t m, std::uint32_t add) {
    std::uint64_t carry = add;
    for (auto& limb : w_) {
      std::uint64_t t = static_cast<std::uint64_t>(limb) * m + carry;
      limb = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) w_.push_back(static_cast<std::uint32_t>(carry));
    trim();
  }

  // *this = floor(*this / d); returns the remainder.
  std::uint32_t div_small(std::uint32_t d) {
    std::uint64_t rem = 0;
    for (std::size_t i = w_.size(); i-- > 0;) {
      std::uint64_t cur = (rem << 32) | w_[i];
      w_[i] = static_cast<std::uint32_t>(cur / d);
      rem = cur % d;
    }
    trim();
    return static_cast<std::uint32_t>(rem);
  }

  // *this *= 5^n
  void mul_pow5(std::int64_t n) {
    for (; n >= 13; n -= 13) mul_add(kPow5_13, 0);
    if (n > 0) mul_add(pow_small(5, static_cast<int>(n)), 0);
  }

  // *this = floor(*this / 5^n); returns true iff the division was exact.
  bool div_pow5(std::int64_t n) {
    bool exact = true;
    for (; n >= 13; n -= 13) exact &= div_small(kPow5_13) == 0;
    if (n > 0) exact &= div_small(pow_small(5, static_cast<int>(n))) == 0;
    return exact;
  }

  void shift_left(std::size_t bits) {
    if (is_zero() || bits == 0) return;
    const std::size_t limbs = bits / 32;
    const unsigned rest = static_cast<unsigned>(bits % 32);
    std::vector<std::uint32_t> out(w_.size() + limbs + 1, 0);
    for (std::size_t i = 0; i < w_.size(); ++i) {
      std::uint64_t v = static_cast<std::uint64_t>(w_[i]) << rest;
      out[i + limbs] |= static_cast<std::uint32_t>(v);
      out[i + limbs + 1] |= static_cast<std::uint32_t>(v >> 32);
    }
    w_ = std::move(out);
    trim();
  }

  std::size_t bit_length() const {
    if (w_.empty()) return 0;
    std::size_t n = (w_.size() - 1) * 32;
    std::uint32_t top = w_.back();
    while (top != 0) {
      ++n;
      top >>= 1;
    }
    return n;
  }

  // True iff any bit below position n is set.
  bool any_below(std::size_t n) const {
    const std::size_t full = std::min(n / 32, w_.size());
    for (std::size_t i = 0; i < full; ++i)
      if (w_[i] != 0) return true;
    const unsigned rest = static_cast<unsigned>(n % 32);
    if (rest != 0 && full < w_.size() && (w_[full] & ((1u << rest) - 1)) != 0) return true;
    return false;
  }

  // Bits [pos, pos + 128) as an integer.
  u128 bits_at(std::size_t pos) const {
    u128 r = 0;
    for (int j = 0; j < 4; ++j) r |= static_cast<u128>(chunk32(pos + 32 * j)) << (32 * j);
    return r;
  }

  // Decimal digits, most significant first ("0" for zero). Destroys *this.
  std::string take_decimal() {
    if (is_zero()) return "0";
    std::vector<std::uint32_t> chunks;  // base 1e9, least significant first
    while (!is_zero()) chunks.push_back(div_small(kPow10_9));
    std::string s = std::to_string(chunks.back());
    for (std::size_t i = chunks.size() - 1; i-- > 0;) {
      std::string c = std::to_string(chunks[i]);
      s.append(9 - c.size(), '0');
      s += c;
    }
    return s;
  }

 private:
  std::uint32_t limb(std::size_t i) const { return i < w_.size() ? w_[i] : 0; }
  std::uint32_t chunk32(std::size_t pos) const {
    const std::size_t i = pos / 32;
    const unsigned r = static_cast<unsigned>(pos % 32);
    if (r == 0) return limb(i);
    return (limb(i) >> r) | (limb(i + 1) << (32 - r));
  }
  void trim() {
    while (!w_.empty() && w_.back() == 0) w_.pop_back();
  }
  std::vector<std::uint32_t> w_;
};

// The value B * 2^e2 (plus a sticky epsilon when `sticky`) as an ExactValue: at most 128
// significant bits, the rest folded into sticky; exact values get an odd significand.
ExactValue finish(bool neg, const Big& b, std::int64_t e2, bool sticky) {
  const std::size_t len = b.bit_length();
  if (len == 0) return ExactValue::zero(neg);  // callers never pass sticky with zero
  u128 sig;
  if (len > 128) {
    const std::size_t drop = len - 128;
    sig = b.bits_at(drop);
    sticky = sticky || b.any_below(drop);
    e2 += static_cast<std::int64_t>(drop);
  } else {
    sig = b.bits_at(0);
  }
  if (!sticky) {
    const int tz = trailing_zeros(sig);
    sig >>= tz;
    e2 += tz;
  }
  return ExactValue::finite(neg, sig, static_cast<int>(e2), sticky);
}

ExactValue clamp_huge(bool neg) {
  return ExactValue::finite(neg, u128{1} << 127, kClampExponent - 127, true);
}
ExactValue clamp_tiny(bool neg) {
  return ExactValue::finite(neg, u128{1} << 127, -kClampExponent - 127, true);
}

[[noreturn]] void malformed(std::string_view text, std::string_view what) {
  throw Error(std::string(what),
              "malformed number '" + std::string(text) +
                  "' (expected a decimal such as -1.5e-3, a hex float such as 0x1.8p-3, "
                  "inf or nan)");
}

bool is_dec(char c) { return c >= '0' && c <= '9'; }
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return r;
}

// "inf", "infinity", "nan", "qnan", "snan", optionally "nan(payload)". Returns false if `body`
// is not one of those words at all (so the caller reports malformed text).
bool parse_special(std::string_view body, bool neg, std::string_view text,
                   std::string_view what, ExactValue& out) {
  const std::string s = lower(body);
  if (s == "inf" || s == "infinity") {
    out = ExactValue::infinity(neg);
    return true;
  }
  std::string name = s;
  std::string payload_text;
  bool has_payload = false;
  if (const auto open = s.find('('); open != std::string::npos) {
    if (s.back() != ')') return false;
    name = s.substr(0, open);
    payload_text = s.substr(open + 1, s.size() - open - 2);
    has_payload = true;
  }
  if (name != "nan" && name != "qnan" && name != "snan") return false;
  std::uint64_t payload = 0;
  if (has_payload && !payload_text.empty()) {
    std::string_view p = payload_text;
    if (p.size() > 2 && p[0] == '0' && p[1] == 'x') {
      p.remove_prefix(2);
      for (char c : p) {
        const int v = hex_value(c);
        if (v < 0 || (payload >> 60) != 0) malformed(text, what);
        payload = (payload << 4) | static_cast<std::uint64_t>(v);
      }
    } else {
      for (char c : p) {
        if (!is_dec(c)) malformed(text, what);
        const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
        if (payload > (~std::uint64_t{0} - d) / 10) malformed(text, what);
        payload = payload * 10 + d;
      }
    }
  }
  out = ExactValue::quiet_nan(neg, payload);
  out.signaling = name == "snan";
  return true;
}

ExactValue parse_decimal_digits(bool neg, std::string digs, std::int64_t k) {
  // digs: the significand's digits (no point), value = digs * 10^k.
  const auto first = digs.find_first_not_of('0');
  if (first == std::string::npos) return ExactValue::zero(neg);
  digs.erase(0, first);
  const auto last = digs.find_last_not_of('0');
  k += static_cast<std::int64_t>(digs.size() - 1 - last);
  digs.resize(last + 1);
  const std::int64_t lead = k + static_cast<std::int64_t>(digs.size()) - 1;
  if (lead > kDecimalExactLimit) return clamp_huge(neg);
  if (lead < -kDecimalExactLimit) return clamp_tiny(neg);
  bool sticky = false;
  if (digs.size() > kMaxDecimalDigits) {
    // The cut-off tail is non-zero (digs ends in a non-zero digit).
    k += static_cast<std::int64_t>(digs.size() - kMaxDecimalDigits);
    digs.resize(kMaxDecimalDigits);
    sticky = true;
  }
  Big d;
  for (std::size_t i = 0; i < digs.size(); i += 9) {
    const std::size_t n = std::min<std::size_t>(9, digs.size() - i);
    std::uint32_t chunk = 0;
    for (std::size_t j = 0; j < n; ++j) chunk = chunk * 10 + static_cast<std::uint32_t>(digs[i + j] - '0');
    d.mul_add(pow_small(10, static_cast<int>(n)), chunk);
  }
  if (k >= 0) {
    // D * 10^k = (D * 5^k) * 2^k, an integer.
    d.mul_pow5(k);
    return finish(neg, d, k, sticky);
  }
  // D / 10^n = floor(D * 2^s / 5^n) * 2^-(n+s) (+ sticky when the division is inexact), with s
  // chosen so that the quotient has at least 129 bits: bits(D*2^s) - bits(5^n) >= 129.
  const std::int64_t n = -k;
  const std::int64_t pow5_bits = static_cast<std::int64_t>(static_cast<double>(n) * 2.321928094887362) + 2;
  std::int64_t s = pow5_bits + 130 - static_cast<std::int64_t>(d.bit_length());
  if (s < 0) s = 0;
  d.shift_left(static_cast<std::size_t>(s));
  if (!d.div_pow5(n)) sticky = true;
  return finish(neg, d, -n - s, sticky);
}

ExactValue parse_hex_digits(bool neg, std::string_view digs, std::int64_t e2) {
  // digs: hex digits (no point), value = digs * 2^e2.
  std::size_t first = 0;
  while (first < digs.size() && digs[first] == '0') ++first;
  digs.remove_prefix(first);
  if (digs.empty()) return ExactValue::zero(neg);
  bool sticky = false;
  if (digs.size() > kMaxHexDigits) {
    for (char c : digs.substr(kMaxHexDigits))
      if (c != '0') sticky = true;
    e2 += 4 * static_cast<std::int64_t>(digs.size() - kMaxHexDigits);
    digs = digs.substr(0, kMaxHexDigits);
  }
  Big b;
  for (char c : digs) b.mul_add(16, static_cast<std::uint32_t>(hex_value(c)));
  const std::int64_t lead = e2 + static_cast<std::int64_t>(b.bit_length()) - 1;
  if (lead > kBinaryExactLimit) return clamp_huge(neg);
  if (lead < -kBinaryExactLimit) return clamp_tiny(neg);
  return finish(neg, b, e2, sticky);
}

// Reads [+-]digits after an exponent letter; saturates the magnitude. Returns false if there
// is no digit.
bool read_exponent(std::string_view s, std::size_t& pos, std::int64_t& out) {
  bool neg = false;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    neg = s[pos] == '-';
    ++pos;
  }
  const std::size_t start = pos;
  std::int64_t v = 0;
  while (pos < s.size() && is_dec(s[pos])) {
    if (v < kExponentSaturation) v = v * 10 + (s[pos] - '0');
    ++pos;
  }
  if (pos == start) return false;
  out = neg ? -v : v;
  return true;
}

std::string hex_digits_of(std::uint64_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (v == 0) return "0";
  std::string s;
  while (v != 0) {
    s.insert(s.begin(), kHex[v & 15]);
    v >>= 4;
  }
  return s;
}

// Text for the non-finite kinds and zero-free specials shared by both printers.
std::string special_text(const ExactValue& x) {
  std::string s = x.negative ? "-" : "";
  if (x.is_inf()) return s + "inf";
  s += x.signaling ? "snan" : "nan";
  if (x.nan_payload != 0) s += "(0x" + hex_digits_of(x.nan_payload) + ")";
  return s;
}

std::string exponent_text(std::int64_t e, int min_digits) {
  std::string digits = std::to_string(e < 0 ? -e : e);
  if (static_cast<int>(digits.size()) < min_digits) digits.insert(0, min_digits - digits.size(), '0');
  return std::string(e < 0 ? "-" : "+") + digits;
}

}  // namespace

ExactValue parse_number(std::string_view text, std::string_view what) {
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) malformed(text, what);
  if (!is_dec(s[0]) && s[0] != '.') {
    ExactValue special;
    if (parse_special(s, neg, text, what, special)) return special;
    malformed(text, what);
  }
  const bool hex = s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  std::size_t pos = hex ? 2 : 0;
  std::string digs;
  std::int64_t frac_digits = 0;
  bool seen_point = false;
  for (; pos < s.size(); ++pos) {
    const char c = s[pos];
    if (c == '.') {
      if (seen_point) malformed(text, what);
      seen_point = true;
    } else if (hex ? hex_value(c) >= 0 : is_dec(c)) {
      digs += c;
      if (seen_point) ++frac_digits;
    } else {
      break;
    }
  }
  if (digs.empty()) malformed(text, what);
  std::int64_t exponent = 0;
  if (pos < s.size()) {
    const char c = s[pos];
    const bool letter = hex ? (c == 'p' || c == 'P') : (c == 'e' || c == 'E');
    if (!letter) malformed(text, what);
    ++pos;
    if (!read_exponent(s, pos, exponent)) malformed(text, what);
    if (pos != s.size()) malformed(text, what);
  }
  if (hex) return parse_hex_digits(neg, digs, exponent - 4 * frac_digits);
  return parse_decimal_digits(neg, std::move(digs), exponent - frac_digits);
}

std::string exact_decimal(const ExactValue& x) {
  if (x.is_nan() || x.is_inf()) return special_text(x);
  const std::string sign = x.negative ? "-" : "";
  if (x.is_zero()) return sign + "0";
  u128 sig = x.sig;
  std::int64_t exp = x.exp;
  if (sig == 0) {
    // Only a sticky epsilon (never produced here): show it as 0... .
    return sign + "0...";
  }
  const int tz = trailing_zeros(sig);
  sig >>= tz;
  exp += tz;
  if (exp > kDecimalOutputLimit || exp < -kDecimalOutputLimit) return hex_float(x);
  Big n(sig);
  std::int64_t frac = 0;  // value = n / 10^frac
  if (exp >= 0) {
    n.shift_left(static_cast<std::size_t>(exp));
  } else {
    frac = -exp;
    n.mul_pow5(frac);  // sig * 2^-f = sig * 5^f / 10^f
  }
  const std::string digits = n.take_decimal();
  const std::int64_t len = static_cast<std::int64_t>(digits.size());
  const std::string ellipsis = x.sticky ? "..." : "";

  std::string plain = sign;
  if (frac == 0) {
    plain += digits;
  } else if (len > frac) {
    plain += digits.substr(0, static_cast<std::size_t>(len - frac));
    plain += '.';
    plain += digits.substr(static_cast<std::size_t>(len - frac));
  } else {
    plain += "0.";
    plain.append(static_cast<std::size_t>(frac - len), '0');
    plain += digits;
  }
  if (plain.size() <= kPlainWidth) return plain + ellipsis;

  std::string sig_digits = digits;
  while (sig_digits.size() > 1 && sig_digits.back() == '0') sig_digits.pop_back();
  const std::int64_t dec_exp = len - 1 - frac;
  std::string sci = sign;
  sci += sig_digits[0];
  if (sig_digits.size() > 1) {
    sci += '.';
    sci += sig_digits.substr(1);
  }
  sci += ellipsis;
  sci += 'e';
  sci += exponent_text(dec_exp, 2);
  return sci;
}

std::string hex_float(const ExactValue& x) {
  if (x.is_nan() || x.is_inf()) return special_text(x);
  const std::string sign = x.negative ? "-" : "";
  if (x.is_zero()) return sign + "0x0p+0";
  if (x.sig == 0) return sign + "0x0...p+0";
  static constexpr char kHex[] = "0123456789abcdef";
  const int len = bit_length(x.sig);
  const std::int64_t lead = static_cast<std::int64_t>(x.exp) + len - 1;
  const int frac_bits = len - 1;
  const int ndigits = (frac_bits + 3) / 4;
  u128 frac = x.sig & ((u128{1} << frac_bits) - 1);  // frac_bits <= 127
  frac <<= (4 * ndigits - frac_bits);
  std::string digits;
  for (int i = ndigits - 1; i >= 0; --i) digits += kHex[static_cast<int>((frac >> (4 * i)) & 15)];
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  std::string s = sign + "0x1";
  if (!digits.empty()) s += "." + digits;
  if (x.sticky) s += "...";
  s += 'p';
  s += exponent_text(lead, 1);
  return s;
}

}  // namespace fpconform
