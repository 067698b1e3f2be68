// The oracle: correctly rounded results computed with MPFR. It reads only the data fields of
// a Format (exp_bits, man_bits, bias, is_signed, subnormals, has_zero, inf, nan) and shares no
// code path with emu/ (no decode, no round_to_format, no derived-limit helpers from emu).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <mpfr.h>

#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform::reference {

struct OracleResult {
  std::uint64_t bits = 0;
  std::uint8_t flags = 0;  // Flags bit values (TestFloat's mask)
  bool operator==(const OracleResult&) const = default;
};

// Value of a code, exactly, as MPFR sees it: `out` gets enough precision (max(2, m+1) bits).
// Returns false for NaN (out is set to NaN, with the code's sign bit). Sets *signaling for
// signaling NaNs when non-null. Throws Error("bits", ...) for bits above the width. Codes in a
// reserved all-ones exponent field that are neither NaN nor inf (custom formats only) read as
// quiet NaNs.
//
// Threading: every function here may be called from many threads at once (per-thread scratch
// and caches; MPFR's exponent range is widened for the call's duration, per thread, if the
// caller narrowed it, and restored).
bool decode(mpfr_t out, std::uint64_t bits, const Format& f, bool daz, bool* signaling = nullptr);

// Correctly rounded result of the exact value `x` (any precision; must be exact) in format f
// under r, per emu/SEMANTICS.md. NaN inputs: pass through `nan_source` (bits+format of the NaN
// operand, for payload and sign) or nullptr for a default NaN (positive, quiet, payload 0).
// Where SEMANTICS.md leaves room, the oracle decides:
//  - a NaN's sign is its code's sign bit for the ieee and all_ones encodings; the single NaN
//    of negative_zero / max_code formats counts as positive;
//  - in a signed format without zero, -0 becomes +minpos (step 4: "+0 where F has no negative
//    zero"), while a negative finite x that rounds or flushes to "zero" gives -minpos;
//  - r.stochastic_bits must be 0..64 (Error("rounding", ...) otherwise); with n = 0 the rules
//    read: A away iff f > 1/2, B iff f >= 1/2, C never, exact iff f > 0.
struct NanSource {
  std::uint64_t bits;
  const Format* format;
};
OracleResult round_exact(mpfr_srcptr x, const Format& f, const Rounding& r,
                         const NanSource* nan_source = nullptr);

// Conversion between formats: decode (with r.daz) then round_exact.
OracleResult convert(std::uint64_t bits, const Format& from, const Format& to, const Rounding& r);

// A decimal or hex-float string (also inf, nan) rounded once to f. Throws fpconform::Error on
// malformed text.
OracleResult from_string(std::string_view text, const Format& f, const Rounding& r);

// ---- extensions: the oracle's own view of a format (derived from the data fields only) ----

// What a code encodes. Codes that a format reserves but gives no meaning (an IEEE-style
// all-ones exponent field that is neither the NaN nor the infinity of a custom format) count
// as NaN.
enum class CodeClass : std::uint8_t { zero, finite, inf, nan };
// Throws fpconform::Error("bits", ...) for bits above the format's width.
CodeClass classify(std::uint64_t bits, const Format& f);

// The oracle's limits of a format, found from the encoding rules (not from emu's helpers).
struct Limits {
  std::uint64_t max_finite_magnitude = 0;  // magnitude code of maxf
  std::uint64_t min_positive_magnitude = 0;
  std::uint64_t inf_magnitude = 0;  // meaningful when f.inf != none
  long emin = 0;  // exponent (of the leading bit) of the smallest normal value
  long emax = 0;  // exponent of maxf
};
Limits limits(const Format& f);
// maxf and minpos as MPFR values (out gets enough precision).
void max_finite(mpfr_t out, const Format& f);
void min_positive(mpfr_t out, const Format& f);

// The NaN operand's description in a form independent of its format: sign, signalling, and
// the payload bits below the quiet bit left-aligned in 64 bits (bit 63 = the bit just below
// the quiet bit).
struct NanInfo {
  bool negative = false;
  bool signaling = false;
  std::uint64_t payload = 0;
};
NanInfo nan_info(std::uint64_t bits, const Format& f);  // bits must be a NaN code of f
// Step 1 of SEMANTICS.md alone: the NaN result (and flags) for a NaN operand.
OracleResult round_nan(const NanInfo& nan, const Format& f);

// Text to an MPFR value: `out` gets the exact value when the text is dyadic (hex-floats,
// 0.375, ...). Otherwise `out` is the value truncated to >= 320 significant bits with one more
// bit set below them (a sticky bit), so it lies strictly inside the same interval between two
// truncation points as the true value: every rounding decision into a format of <= 64 bits,
// including stochastic modes with up to 64 random bits, comes out as for the true value.
// Values far outside every format's range (|exponent| beyond ~130000 bits) are replaced by
// +-2^(+-300000), which rounds the same way. Throws Error("value", ...) on malformed text.
enum class TextKind : std::uint8_t { number, inf, nan, snan };
TextKind parse_value(std::string_view text, mpfr_t out);

// Error metrics between a computed code and an exact value.
// ulp_error: |computed - exact| / ulp(exact) where ulp is that of f at the exact value's binade
// (subnormal ulp below emin). Returns +inf if computed is NaN/inf and exact is finite, 0 if both
// are the same special.
double ulp_error(std::uint64_t computed, mpfr_srcptr exact, const Format& f);
double relative_error(std::uint64_t computed, mpfr_srcptr exact, const Format& f);
// ulp_error: the ulp is 2^(max(e, emin) - m) with e = floor(log2|exact|) (2^(emin - m) when
// exact is zero), for formats without subnormals too. relative_error: |computed - exact| /
// |exact|; exact zero gives 0 if computed is a zero, else +inf. Both computed in MPFR at 128
// bits and returned rounded to double.
// Distance in codes between two finite codes (number of representable values between, signed).
// code_distance(a, b) = index(a) - index(b), where index numbers the distinct finite values in
// increasing order (+0 and -0 are the same value, distance 0). Throws Error("bits", ...) for a
// NaN or infinite code.
std::int64_t code_distance(std::uint64_t a, std::uint64_t b, const Format& f);

}  // namespace fpconform::reference
