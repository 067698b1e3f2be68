// The oracle: correctly rounded results computed with MPFR. It reads only the data fields of
// a Format (exp_bits, man_bits, bias, is_signed, subnormals, has_zero, inf, nan) and shares no
// code path with emu/ (no decode, no round_to_format, no derived-limit helpers from emu).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <mpfr.h>

#include "fpconform/format.hpp"
#include "fpconform/rounding.hpp"

namespace fpconform::reference {

struct OracleResult {
  std::uint64_t bits = 0;
  std::uint8_t flags = 0;  // Flags bit values (TestFloat's mask)
  bool operator==(const OracleResult&) const = default;
};

// Value of a code, exactly, as MPFR sees it: `out` gets enough precision. Returns false for
// NaN (out is set to NaN). Sets *signaling for signaling NaNs when non-null.
bool decode(mpfr_t out, std::uint64_t bits, const Format& f, bool daz, bool* signaling = nullptr);

// Correctly rounded result of the exact value `x` (any precision; must be exact) in format f
// under r, per emu/SEMANTICS.md. NaN inputs: pass through `nan_source` (bits+format of the NaN
// operand, for payload and sign) or nullptr for a default NaN.
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

// Error metrics between a computed code and an exact value.
// ulp_error: |computed - exact| / ulp(exact) where ulp is that of f at the exact value's binade
// (subnormal ulp below emin). Returns +inf if computed is NaN/inf and exact is finite, 0 if both
// are the same special.
double ulp_error(std::uint64_t computed, mpfr_srcptr exact, const Format& f);
double relative_error(std::uint64_t computed, mpfr_srcptr exact, const Format& f);
// Distance in codes between two finite codes (number of representable values between, signed).
std::int64_t code_distance(std::uint64_t a, std::uint64_t b, const Format& f);

}  // namespace fpconform::reference
