// Format descriptors: the built-in table, derived limits, and the name/spec parser.
#include "fpconform/core/format.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include "fpconform/core/error.hpp"

namespace fpconform {

namespace {

Format make(std::string name, int e, int m, int bias, InfEncoding inf, NanEncoding nan,
            bool is_signed = true, bool subnormals = true, bool has_zero = true) {
  Format f;
  f.name = std::move(name);
  f.exp_bits = e;
  f.man_bits = m;
  f.bias = bias;
  f.inf = inf;
  f.nan = nan;
  f.is_signed = is_signed;
  f.subnormals = subnormals;
  f.has_zero = has_zero;
  return f;
}

Format ieee_like(std::string name, int e, int m) {
  return make(std::move(name), e, m, (1 << (e - 1)) - 1, InfEncoding::ieee, NanEncoding::ieee);
}

// IEEE P3109 binary{K}p{P}{s|u}{e|f} (interim report): one zero, one NaN, bias 2^(K-P-1)
// signed or 2^(K-P) unsigned, extended domain has +-inf at the top codes.
Format p3109(int k, int p, bool is_signed, bool extended) {
  std::string name = "binary" + std::to_string(k) + "p" + std::to_string(p) +
                     (is_signed ? "s" : "u") + (extended ? "e" : "f");
  const int e = k - p + (is_signed ? 0 : 1);
  const int bias = is_signed ? 1 << (k - p - 1) : 1 << (k - p);
  return make(std::move(name), e, p - 1, bias,
              extended ? InfEncoding::top_code : InfEncoding::none,
              is_signed ? NanEncoding::negative_zero : NanEncoding::max_code, is_signed);
}

std::vector<Format> build_table() {
  using I = InfEncoding;
  using N = NanEncoding;
  std::vector<Format> t;
  t.push_back(ieee_like("f64", 11, 52));
  t.push_back(ieee_like("f32", 8, 23));
  t.push_back(ieee_like("tf32", 8, 10));
  t.push_back(ieee_like("f16", 5, 10));
  t.push_back(ieee_like("bf16", 8, 7));
  t.push_back(make("e4m3", 4, 3, 7, I::none, N::all_ones));
  t.push_back(ieee_like("e5m2", 5, 2));
  t.push_back(make("e4m3fnuz", 4, 3, 8, I::none, N::negative_zero));
  t.push_back(make("e5m2fnuz", 5, 2, 16, I::none, N::negative_zero));
  t.push_back(make("e4m3b11fnuz", 4, 3, 11, I::none, N::negative_zero));
  t.push_back(ieee_like("e3m4", 3, 4));
  t.push_back(ieee_like("e4m3ieee", 4, 3));
  t.push_back(make("e3m2", 3, 2, 3, I::none, N::none));
  t.push_back(make("e2m3", 2, 3, 1, I::none, N::none));
  t.push_back(make("e2m1", 2, 1, 1, I::none, N::none));
  t.push_back(make("ue8m0", 8, 0, 127, I::none, N::max_code, false, false, false));
  return t;
}

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}

[[noreturn]] void fail(std::string_view what, const std::string& msg) {
  throw Error(std::string(what), msg);
}

// e<E>m<M>: IEEE-style with infinities and NaNs.
std::optional<Format> parse_emx(const std::string& s) {
  if (s.size() < 4 || s[0] != 'e') return std::nullopt;
  auto mpos = s.find('m');
  if (mpos == std::string::npos) return std::nullopt;
  int e = 0, m = 0;
  if (!parse_int(std::string_view(s).substr(1, mpos - 1), e) ||
      !parse_int(std::string_view(s).substr(mpos + 1), m))
    return std::nullopt;
  // Out-of-range exponent widths are refused by validate_format; computing their bias here
  // would shift by a negative or too large amount.
  if (e < 1 || e > 30) return make(s, e, m, 0, InfEncoding::ieee, NanEncoding::ieee);
  return ieee_like(s, e, m);
}

std::optional<Format> parse_p3109(const std::string& s, std::string_view what) {
  if (s.rfind("binary", 0) != 0 || s.size() < 10) return std::nullopt;
  auto ppos = s.find('p', 6);
  if (ppos == std::string::npos || s.size() < ppos + 4) return std::nullopt;
  int k = 0, p = 0;
  if (!parse_int(std::string_view(s).substr(6, ppos - 6), k) ||
      !parse_int(std::string_view(s).substr(ppos + 1, s.size() - ppos - 3), p))
    return std::nullopt;
  const char sg = s[s.size() - 2], dom = s[s.size() - 1];
  if ((sg != 's' && sg != 'u') || (dom != 'e' && dom != 'f')) return std::nullopt;
  if (k < 3 || k > 16) fail(what, "P3109 width K must be 3..16 in '" + s + "'");
  if (p < 1 || p > k - 1 || (sg == 's' && p > k - 1) || (sg == 's' && k - p < 1))
    fail(what, "P3109 precision P must be 1..K-1 in '" + s + "'");
  if (sg == 'u' && p > k - 1) fail(what, "P3109 precision too large in '" + s + "'");
  if (sg == 's' && k - p - 1 < 0) fail(what, "P3109 signed format needs K > P in '" + s + "'");
  return p3109(k, p, sg == 's', dom == 'e');
}

Format parse_custom(const std::string& s, std::string_view what) {
  // custom:e=4,m=3,bias=7,inf=none,nan=ones,signed=1,subnormals=1,zero=1
  Format f;
  f.name = s;
  bool have_e = false, have_m = false, have_bias = false;
  std::string body = s.substr(7);
  std::stringstream ss(body);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) fail(what, "expected key=value, got '" + item + "' in '" + s + "'");
    std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    int iv = 0;
    auto need_int = [&]() {
      if (!parse_int(val, iv)) fail(what, "'" + key + "' needs an integer, got '" + val + "'");
      return iv;
    };
    auto need_bool = [&]() {
      if (val == "1" || val == "true" || val == "yes") return true;
      if (val == "0" || val == "false" || val == "no") return false;
      fail(what, "'" + key + "' needs 0 or 1, got '" + val + "'");
    };
    if (key == "e") f.exp_bits = need_int(), have_e = true;
    else if (key == "m") f.man_bits = need_int(), have_m = true;
    else if (key == "bias") f.bias = need_int(), have_bias = true;
    else if (key == "signed") f.is_signed = need_bool();
    else if (key == "subnormals") f.subnormals = need_bool();
    else if (key == "zero") f.has_zero = need_bool();
    else if (key == "inf") {
      if (val == "none") f.inf = InfEncoding::none;
      else if (val == "ieee") f.inf = InfEncoding::ieee;
      else if (val == "top") f.inf = InfEncoding::top_code;
      else fail(what, "inf must be none|ieee|top, got '" + val + "'");
    } else if (key == "nan") {
      if (val == "none") f.nan = NanEncoding::none;
      else if (val == "ieee") f.nan = NanEncoding::ieee;
      else if (val == "ones") f.nan = NanEncoding::all_ones;
      else if (val == "negzero") f.nan = NanEncoding::negative_zero;
      else if (val == "max") f.nan = NanEncoding::max_code;
      else fail(what, "nan must be none|ieee|ones|negzero|max, got '" + val + "'");
    } else {
      fail(what, "unknown key '" + key + "' in '" + s +
                     "' (keys: e, m, bias, inf, nan, signed, subnormals, zero)");
    }
  }
  if (!have_e || !have_m) fail(what, "custom format needs e= and m= in '" + s + "'");
  if (!have_bias && f.exp_bits >= 1 && f.exp_bits <= 30) f.bias = (1 << (f.exp_bits - 1)) - 1;
  return f;
}

}  // namespace

const std::vector<Format>& builtin_formats() {
  static const std::vector<Format> table = build_table();
  return table;
}

std::span<const FormatAlias> format_aliases() {
  static constexpr FormatAlias aliases[] = {
      {"fp64", "f64"}, {"double", "f64"}, {"binary64", "f64"}, {"float64", "f64"},
      {"fp32", "f32"}, {"float", "f32"}, {"single", "f32"}, {"binary32", "f32"},
      {"float32", "f32"}, {"fp16", "f16"}, {"half", "f16"}, {"binary16", "f16"},
      {"float16", "f16"}, {"bfloat16", "bf16"}, {"tensorfloat32", "tf32"},
      {"float8_e4m3fn", "e4m3"}, {"e4m3fn", "e4m3"}, {"fp8e4m3", "e4m3"}, {"fp8_e4m3", "e4m3"},
      {"float8_e5m2", "e5m2"}, {"fp8e5m2", "e5m2"}, {"fp8_e5m2", "e5m2"},
      {"float8_e4m3fnuz", "e4m3fnuz"}, {"float8_e5m2fnuz", "e5m2fnuz"},
      {"float8_e4m3b11fnuz", "e4m3b11fnuz"}, {"float8_e3m4", "e3m4"},
      {"float8_e4m3", "e4m3ieee"}, {"float6_e3m2fn", "e3m2"}, {"float6_e2m3fn", "e2m3"},
      {"float4_e2m1fn", "e2m1"}, {"fp6e3m2", "e3m2"}, {"fp6e2m3", "e2m3"}, {"fp4", "e2m1"},
      {"fp4e2m1", "e2m1"}, {"e8m0", "ue8m0"}, {"float8_e8m0fnu", "ue8m0"}, {"e8m0fnu", "ue8m0"},
      {"e3m2fn", "e3m2"}, {"e2m3fn", "e2m3"}, {"e2m1fn", "e2m1"},
  };
  return aliases;
}

std::optional<Format> find_builtin(std::string_view name) {
  const std::string n = lower(name);
  std::string_view canonical = n;
  for (const auto& a : format_aliases())
    if (a.alias == n) canonical = a.canonical;
  for (const auto& f : builtin_formats())
    if (f.name == canonical) return f;
  return std::nullopt;
}

Format parse_format(std::string_view text, std::string_view what) {
  if (text.empty()) fail(what, "empty format name");
  if (auto f = find_builtin(text)) return *f;
  const std::string s = lower(text);
  std::optional<Format> f;
  if (s.rfind("custom:", 0) == 0) f = parse_custom(s, what);
  else if (!(f = parse_p3109(s, what))) f = parse_emx(s);
  if (!f)
    fail(what, "unknown format '" + std::string(text) +
                   "' (see `fpconform formats`; custom: e<E>m<M>, binary<K>p<P><s|u><e|f>, "
                   "custom:e=..,m=..,bias=..,inf=..,nan=..)");
  validate_format(*f, what);
  return *f;
}

void validate_format(const Format& f, std::string_view what) {
  const std::string n = "'" + f.name + "'";
  if (f.exp_bits < 1 || f.exp_bits > 15) fail(what, n + ": exponent bits must be 1..15");
  if (f.man_bits < 0 || f.man_bits > 62) fail(what, n + ": fraction bits must be 0..62");
  if (f.width() < 2 || f.width() > 64) fail(what, n + ": width must be 2..64 bits");
  if (f.bias < -(1 << 16) || f.bias > (1 << 16)) fail(what, n + ": bias out of range");
  if (!f.is_signed && (f.nan == NanEncoding::negative_zero || f.nan == NanEncoding::all_ones))
    fail(what, n + ": an unsigned format cannot use a signed NaN encoding");
  if (f.is_signed && f.nan == NanEncoding::max_code)
    fail(what, n + ": nan=max is for unsigned formats (use ones)");
  if (f.nan == NanEncoding::ieee && f.man_bits == 0)
    fail(what, n + ": IEEE NaNs need at least one fraction bit");
  if (!f.has_zero && f.subnormals) fail(what, n + ": a format without zero cannot have subnormals");
  // Without subnormals the exponent field 0 is an ordinary binade, so no code is left for zero.
  if (f.has_zero && !f.subnormals)
    fail(what, n + ": subnormals=0 needs zero=0 (exponent field 0 is then a normal binade)");
  if (f.nan == NanEncoding::negative_zero && !f.has_zero)
    fail(what, n + ": nan=negzero needs a zero");
  // Count the special magnitudes first: with one magnitude bit, a top-code infinity and an
  // all-ones NaN take both, and max_finite_code() would wrap below zero.
  const bool ieee_specials = f.inf == InfEncoding::ieee || f.nan == NanEncoding::ieee;
  const std::uint64_t top_specials =
      (f.nan == NanEncoding::all_ones || f.nan == NanEncoding::max_code ? 1 : 0) +
      (f.inf == InfEncoding::top_code ? 1 : 0);
  if ((!ieee_specials && top_specials > f.magnitude_mask()) ||
      f.max_finite_code() < f.min_positive_code())
    fail(what, n + ": no finite non-zero values left after the special codes");
}

bool Format::is_nan_code(std::uint64_t code) const {
  const std::uint64_t mag = code & magnitude_mask();
  switch (nan) {
    case NanEncoding::none: return false;
    case NanEncoding::ieee: {
      const std::uint64_t emask = ((1ull << exp_bits) - 1) << man_bits;
      return (mag & emask) == emask && (mag & ((1ull << man_bits) - 1)) != 0;
    }
    case NanEncoding::all_ones: return mag == magnitude_mask();
    case NanEncoding::negative_zero: return code == sign_mask();
    case NanEncoding::max_code: return code == code_mask();
  }
  return false;
}

bool Format::is_inf_code(std::uint64_t code) const {
  const std::uint64_t mag = code & magnitude_mask();
  switch (inf) {
    case InfEncoding::none: return false;
    case InfEncoding::ieee: return mag == ((1ull << exp_bits) - 1) << man_bits;
    case InfEncoding::top_code: return mag == top_non_nan_magnitude();
  }
  return false;
}

std::uint64_t Format::max_finite_code() const {
  std::uint64_t top = magnitude_mask();
  // An IEEE-style inf or NaN reserves the whole all-ones exponent field.
  if (inf == InfEncoding::ieee || nan == NanEncoding::ieee) return top - (1ull << man_bits);
  if (nan == NanEncoding::all_ones || nan == NanEncoding::max_code) --top;
  if (inf == InfEncoding::top_code) --top;
  return top;
}

std::uint64_t Format::min_positive_code() const { return has_zero ? 1 : 0; }
std::uint64_t Format::min_normal_code() const { return subnormals ? 1ull << man_bits : 0; }

int Format::emax() const {
  const std::uint64_t c = max_finite_code();
  return static_cast<int>(c >> man_bits) - bias;
}

std::uint64_t Format::top_non_nan_magnitude() const {
  switch (nan) {
    case NanEncoding::ieee: return ((1ull << exp_bits) - 1) << man_bits;
    case NanEncoding::all_ones:
    case NanEncoding::max_code: return magnitude_mask() - 1;
    default: return magnitude_mask();
  }
}

std::uint64_t Format::inf_code(bool negative) const {
  const std::uint64_t mag =
      inf == InfEncoding::ieee ? ((1ull << exp_bits) - 1) << man_bits : top_non_nan_magnitude();
  return mag | (negative ? sign_mask() : 0);
}

bool Format::is_reserved_code(std::uint64_t code) const {
  if (inf != InfEncoding::ieee && nan != NanEncoding::ieee) return false;
  const std::uint64_t emask = ((1ull << exp_bits) - 1) << man_bits;
  return (code & emask) == emask && !is_nan_code(code) && !is_inf_code(code);
}

std::uint64_t Format::nan_code(bool negative) const {
  switch (nan) {
    case NanEncoding::ieee:
      return (((1ull << exp_bits) - 1) << man_bits) | quiet_bit() | (negative ? sign_mask() : 0);
    case NanEncoding::all_ones: return magnitude_mask() | (negative ? sign_mask() : 0);
    case NanEncoding::negative_zero: return sign_mask();
    case NanEncoding::max_code: return code_mask();
    case NanEncoding::none: break;
  }
  return 0;
}

std::uint64_t Format::zero_code(bool negative) const {
  return negative && has_negative_zero() ? sign_mask() : 0;
}

std::string Format::describe() const {
  std::ostringstream o;
  o << (is_signed ? "1+" : "0+") << exp_bits << "+" << man_bits << " bias " << bias;
  return o.str();
}

bool Format::operator==(const Format& o) const {
  return exp_bits == o.exp_bits && man_bits == o.man_bits && bias == o.bias &&
         is_signed == o.is_signed && subnormals == o.subnormals && has_zero == o.has_zero &&
         inf == o.inf && nan == o.nan;
}

}  // namespace fpconform
