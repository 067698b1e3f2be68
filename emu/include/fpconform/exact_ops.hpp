// Exact arithmetic on finite ExactValues: each returns the exact result, or (for results that
// need more than 128 bits) the leading 128 bits with a sticky bit, which is always enough for
// one correct rounding into a format of <= 64 bits. Specials are the caller's business.
#pragma once

#include "fpconform/exact.hpp"

namespace fpconform {

// a + b for finite or zero a, b. A zero sum is +0 (the caller applies IEEE's sign-of-zero
// rule, which depends on the rounding direction).
ExactValue exact_add(const ExactValue& a, const ExactValue& b);
// a * b for finite or zero a, b (exact when both significands fit in 64 bits).
ExactValue exact_mul(const ExactValue& a, const ExactValue& b);
// a * b + c with a single exact step (a, b, c finite or zero; significands of <= 64 bits).
ExactValue exact_fma(const ExactValue& a, const ExactValue& b, const ExactValue& c);
// a / b for finite non-zero b: 128 quotient bits with sticky.
ExactValue exact_div(const ExactValue& a, const ExactValue& b);
// sqrt(a) for finite a >= 0: 64 or more root bits with sticky.
ExactValue exact_sqrt(const ExactValue& a);

}  // namespace fpconform
