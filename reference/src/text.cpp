// Text to MPFR values for the oracle: its own grammar check, then GMP integer arithmetic and
// one MPFR division (no locale-dependent parsing, no code from emu's parser).
#include <gmp.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "fpconform/core/error.hpp"
#include "internal.hpp"

namespace fpconform::reference {

using namespace detail;

namespace {

// Beyond these the value is outside every format the oracle accepts (|exponent| < 2^18 bits):
// decimal exponent 70000 is about 2^232535; such values are replaced by 2^(+-300000).
constexpr long long kDecimalCut = 70000;
constexpr long long kBinaryCut = 250000;
constexpr long kFar = 300000;
constexpr mpfr_prec_t kMinPrec = 320;

struct TextScratch {
  mpz_t n, d;
  std::string digits;
  TextScratch() {
    mpz_init(n);
    mpz_init(d);
    digits.reserve(64);
  }
  ~TextScratch() {
    mpz_clear(n);
    mpz_clear(d);
  }
};

TextScratch& text_scratch() {
  thread_local TextScratch t;
  return t;
}

[[noreturn]] void bad(std::string_view text, const char* why) {
  throw Error("value", "cannot read '" + std::string(text) + "' as a number: " + why);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

int digit_value(char c, bool hex) {
  if (c >= '0' && c <= '9') return c - '0';
  if (!hex) return -1;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads an optionally signed decimal exponent, saturating at +-10^12. Returns false on syntax.
bool read_exponent(std::string_view s, long long& out) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i >= s.size()) return false;
  long long v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (v < 1000000000000LL) v = v * 10 + (s[i] - '0');
  }
  out = neg ? -v : v;
  return true;
}

void set_far(mpfr_ptr out, bool neg, bool huge) {
  mpfr_set_prec(out, 2);
  mpfr_set_ui_2exp(out, 1, huge ? kFar : -kFar, MPFR_RNDN);
  if (neg) mpfr_neg(out, out, MPFR_RNDN);
}

// Moves a value truncated toward zero (ternary != 0) strictly inside its truncation interval.
void add_sticky(mpfr_ptr out) {
  mpfr_prec_round(out, mpfr_get_prec(out) + 1, MPFR_RNDN);  // exact
  if (mpfr_signbit(out)) mpfr_nextbelow(out);
  else mpfr_nextabove(out);
}

}  // namespace

TextKind parse_value(std::string_view text, mpfr_t out) {
  RangeGuard guard;
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) neg = text[i++] == '-';
  const std::string_view body = text.substr(i);
  if (body.empty()) bad(text, "empty");
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    mpfr_set_inf(out, neg ? -1 : 1);
    return TextKind::inf;
  }
  if (iequals(body, "nan") || iequals(body, "snan")) {
    mpfr_set_nan(out);
    mpfr_setsign(out, out, neg, MPFR_RNDN);
    return body.size() == 4 ? TextKind::snan : TextKind::nan;
  }

  const bool hex = body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  size_t j = hex ? 2 : 0;
  TextScratch& T = text_scratch();
  T.digits.clear();
  long long frac_digits = 0;
  bool seen_point = false, any_digit = false;
  for (; j < body.size(); ++j) {
    const char c = body[j];
    if (c == '.') {
      if (seen_point) bad(text, "two radix points");
      seen_point = true;
      continue;
    }
    if (digit_value(c, hex) < 0) break;
    any_digit = true;
    if (seen_point) ++frac_digits;
    if (T.digits.empty() && c == '0') continue;  // leading zeros
    T.digits.push_back(c);
  }
  if (!any_digit) bad(text, "no digits");
  long long exponent = 0;
  if (j < body.size()) {
    const char c = body[j];
    const bool marker = hex ? (c == 'p' || c == 'P') : (c == 'e' || c == 'E');
    if (!marker) bad(text, "unexpected character");
    if (!read_exponent(body.substr(j + 1), exponent)) bad(text, "malformed exponent");
  }

  if (T.digits.empty()) {  // all digits zero
    mpfr_set_zero(out, neg ? -1 : 1);
    return TextKind::number;
  }
  // value = N * base^scale with N the digit string as an integer.
  mpz_set_str(T.n, T.digits.c_str(), hex ? 16 : 10);
  const long long nd = static_cast<long long>(T.digits.size());
  const mpfr_prec_t nbits = static_cast<mpfr_prec_t>(mpz_sizeinbase(T.n, 2));

  if (hex) {
    const long long scale = exponent - 4 * frac_digits;
    const long long top = scale + nbits - 1;  // exponent of the leading bit
    if (top > kBinaryCut || top < -kBinaryCut) {
      set_far(out, neg, top > 0);
      return TextKind::number;
    }
    mpfr_set_prec(out, std::max<mpfr_prec_t>(2, nbits));
    mpfr_set_z_2exp(out, T.n, static_cast<long>(scale), MPFR_RNDN);  // exact
    if (neg) mpfr_neg(out, out, MPFR_RNDN);
    return TextKind::number;
  }

  const long long scale = exponent - frac_digits;  // value = N * 10^scale
  if (scale + nd - 1 > kDecimalCut) {
    set_far(out, neg, true);
    return TextKind::number;
  }
  if (scale + nd < -kDecimalCut) {
    set_far(out, neg, false);
    return TextKind::number;
  }
  if (scale >= 0) {
    mpz_ui_pow_ui(T.d, 10, static_cast<unsigned long>(scale));
    mpz_mul(T.n, T.n, T.d);
    mpfr_set_prec(out, std::max<mpfr_prec_t>(2, static_cast<mpfr_prec_t>(mpz_sizeinbase(T.n, 2))));
    mpfr_set_z(out, T.n, MPFR_RNDN);  // exact
  } else {
    // N / 10^-scale. A dyadic quotient has at most bits(N) significant bits, so with that
    // many it is exact; otherwise truncate and keep a sticky bit.
    mpz_ui_pow_ui(T.d, 10, static_cast<unsigned long>(-scale));
    Scratch& S = scratch();
    mpfr_set_prec(S.num, std::max<mpfr_prec_t>(2, nbits));
    mpfr_set_z(S.num, T.n, MPFR_RNDN);  // exact
    mpfr_set_prec(out, std::max(kMinPrec, nbits + 2));
    const int inexact = mpfr_div_z(out, S.num, T.d, MPFR_RNDZ);
    if (inexact != 0) add_sticky(out);
  }
  if (neg) mpfr_neg(out, out, MPFR_RNDN);
  return TextKind::number;
}

OracleResult from_string(std::string_view text, const Format& f, const Rounding& r) {
  thread_local struct Holder {
    mpfr_t v;
    Holder() { mpfr_init2(v, kMinPrec); }
    ~Holder() { mpfr_clear(v); }
  } h;
  const TextKind kind = parse_value(text, h.v);
  if (kind == TextKind::nan || kind == TextKind::snan) {
    NanInfo n;
    n.negative = mpfr_signbit(h.v) != 0;
    n.signaling = kind == TextKind::snan;
    return round_nan(n, f);
  }
  return round_with_nan(h.v, f, r, nullptr);
}

}  // namespace fpconform::reference
