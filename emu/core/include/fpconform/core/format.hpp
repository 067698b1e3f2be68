// Formats are data (after LLVM's fltSemantics): one descriptor per format, one generic
// algorithm per operation. Nothing in emu/ branches on a format's name.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fpconform {

// How the infinities are encoded, if the format has them.
enum class InfEncoding : std::uint8_t {
  none,      // finite only (e4m3fn, fnuz, fp6, fp4, P3109 *f)
  ieee,      // exponent field all ones, fraction zero (f32, e5m2, e4m3ieee)
  top_code,  // the largest magnitude code that is not NaN (P3109 extended: 0x7F / 0xFE)
};

// How NaN is encoded, if the format has one.
enum class NanEncoding : std::uint8_t {
  none,           // no NaN at all (fp6, fp4)
  ieee,           // exponent field all ones, fraction non-zero; quiet bit = top fraction bit
  all_ones,       // only the all-ones magnitude code, either sign (OCP e4m3fn: S.1111.111)
  negative_zero,  // the code 1000...0 (fnuz, P3109 signed): one NaN, one zero
  max_code,       // the all-ones code of an unsigned format (ue8m0, P3109 unsigned)
};

// A binary floating-point format as data. Value of a finite code with exponent field E and
// fraction field F:  (-1)^s * 2^(E - bias) * (1 + F/2^man_bits)          if E > 0 or !subnormals
//                    (-1)^s * 2^(1 - bias) * (F/2^man_bits)              if E = 0 and subnormals
// Codes are unsigned integers of `width` bits; the sign (if any) is the top bit.
struct Format {
  std::string name;  // canonical name ("e4m3"), or the spec a custom format was parsed from
  int exp_bits = 0;
  int man_bits = 0;  // stored fraction bits (precision p = man_bits + 1)
  int bias = 0;
  bool is_signed = true;
  bool subnormals = true;  // false: exponent field 0 is an ordinary normal exponent (ue8m0)
  bool has_zero = true;    // false: no zero code at all (ue8m0)
  InfEncoding inf = InfEncoding::ieee;
  NanEncoding nan = NanEncoding::ieee;
  // Encoding width in bits. Codes are stored right-aligned in a uint64: tf32 is its 19-bit
  // code (0x3F800000 as f32 is 0x1FC00 as tf32), not the 32-bit container the GPU uses.
  int width() const { return (is_signed ? 1 : 0) + exp_bits + man_bits; }
  int precision() const { return man_bits + 1; }

  // ---- derived limits (exponents are unbiased, of the leading bit) ----
  std::uint64_t code_mask() const { return width() >= 64 ? ~0ull : (1ull << width()) - 1; }
  std::uint64_t sign_mask() const { return is_signed ? 1ull << (width() - 1) : 0; }
  std::uint64_t magnitude_mask() const { return code_mask() & ~sign_mask(); }
  int emin() const { return (subnormals ? 1 : 0) - bias; }            // exponent of min normal
  int min_normal_field() const { return subnormals ? 1 : 0; }        // exponent field of min normal
  bool is_nan_code(std::uint64_t code) const;
  bool is_inf_code(std::uint64_t code) const;
  // A code in an all-ones exponent field reserved by an IEEE-style inf or NaN that the format
  // gives no meaning (custom formats such as inf=ieee,nan=ones); it decodes as a quiet NaN.
  bool is_reserved_code(std::uint64_t code) const;
  // The largest magnitude code that is not NaN (where inf=top puts its infinity).
  std::uint64_t top_non_nan_magnitude() const;
  bool has_inf() const { return inf != InfEncoding::none; }
  bool has_nan() const { return nan != NanEncoding::none; }
  bool has_negative_zero() const { return is_signed && has_zero && nan != NanEncoding::negative_zero; }
  // Largest magnitude code that encodes a finite value.
  std::uint64_t max_finite_code() const;
  // Smallest magnitude code that encodes a non-zero finite value (1 if subnormals, else 0 or 1<<m).
  std::uint64_t min_positive_code() const;
  std::uint64_t min_normal_code() const;
  int emax() const;  // exponent of the leading bit of max finite
  // Canonical codes (positive sign where there is a choice).
  std::uint64_t inf_code(bool negative) const;   // requires has_inf()
  std::uint64_t nan_code(bool negative) const;   // default (quiet) NaN; requires has_nan()
  std::uint64_t zero_code(bool negative) const;  // requires has_zero
  // Quiet bit for IEEE-encoded NaNs (0 when the format has a single NaN code).
  std::uint64_t quiet_bit() const {
    return nan == NanEncoding::ieee && man_bits > 0 ? 1ull << (man_bits - 1) : 0;
  }
  // Number of hex digits TestFloat-style lines use (2 for <= 8 bits, 4, 5 for tf32, 8, 16).
  int hex_digits() const { return (width() + 3) / 4 < 2 ? 2 : (width() + 3) / 4; }
  // A short description of the layout for listings ("1+4+3 bias 7").
  std::string describe() const;
  bool operator==(const Format& o) const;
};

// Built-in formats, in listing order.
const std::vector<Format>& builtin_formats();

// Aliases accepted by parse_format ("fp16", "half", "binary16", "float8_e4m3fn", ...).
struct FormatAlias {
  std::string_view alias;
  std::string_view canonical;
};
std::span<const FormatAlias> format_aliases();

// Parses a format name: a built-in name or alias, `e<E>m<M>` (IEEE-style), a P3109 name
// `binary{K}p{P}{s|u}{e|f}`, or a custom spec
// `custom:e=<E>,m=<M>[,bias=<B>][,inf=none|ieee|top][,nan=none|ieee|ones|negzero|max][,signed=0|1][,subnormals=0|1][,zero=0|1]`.
// Throws fpconform::Error naming `what` (e.g. "--to") on anything it cannot parse or that is
// not a consistent format.
Format parse_format(std::string_view text, std::string_view what = "format");
std::optional<Format> find_builtin(std::string_view name);

// Checks a descriptor for consistency (bits fit in 64, encodings make sense); throws Error.
void validate_format(const Format& f, std::string_view what = "format");

}  // namespace fpconform
