// Decode, the single round-and-pack, and conversions built on them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fpconform/exact.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform {

struct Rounded {
  std::uint64_t bits = 0;
  Flags flags;
};

// The exact value of a code. Bits above the format's width are an error (throws Error).
// With daz, subnormal codes decode as zero of the same sign (no flag, as x86 DAZ).
ExactValue decode(std::uint64_t bits, const Format& f, bool daz = false);

// The single round-and-pack (SoftFloat's discipline): every conversion, operation and
// matrix-unit output ends here. Special cases first, then one generic rounding on the code.
Rounded round_to_format(const ExactValue& x, const Format& f, const Rounding& r);

// x rounded to an integer by r's mode: the conversion rules' step 2 on the grid of integers
// (q = 0), stochastic modes and round-to-odd included. Specials and zeros come back unchanged;
// `inexact` tells whether the integer differs from x. A zero integer keeps x's sign.
ExactValue round_to_integral(const ExactValue& x, const Rounding& r, bool& inexact);

// bits in `from` -> `to`, one rounding of the exact value. A signaling NaN input raises invalid.
Rounded convert(std::uint64_t bits, const Format& from, const Format& to, const Rounding& r);

// Text <-> exact values. parse_number accepts decimal ("0.1", "-1e-5", "1e400"), hex-float
// ("0x1.8p-3", "-0x1p+0"), "inf"/"infinity", "nan"/"snan" (optionally signed) and yields the
// exact value (decimal strings that are not dyadic keep 128 significant bits plus sticky).
// Throws Error naming `what` on malformed input.
ExactValue parse_number(std::string_view text, std::string_view what = "value");
// The exact decimal expansion of a finite value (every dyadic rational has one): "-416",
// "0.0009765625", "inf", "nan". For very long expansions, scientific notation is used with
// all digits kept.
std::string exact_decimal(const ExactValue& x);
// Shortest hex-float form: "0x1.8p-3", "-0x0p+0", "inf", "nan".
std::string hex_float(const ExactValue& x);

// Convenience: the value of a code as a double (exact for every format of <= 53 bits of
// precision in range; used for display and tests, never for rounding decisions).
double to_double(std::uint64_t bits, const Format& f);

}  // namespace fpconform
