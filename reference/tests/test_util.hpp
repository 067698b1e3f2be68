// Helpers for the oracle's tests. Expected values in these tests come from the format specs
// (OCP OFP8, OCP MX, IEEE 754, P3109 interim report) worked out by hand, or from the native
// hardware/libm of this machine; never from emu/.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include <mpfr.h>

#include "fpconform/core/error.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/reference/oracle.hpp"
#include "fpconform/core/rounding.hpp"

namespace reftest {

using fpconform::Format;
using fpconform::Rounding;
using fpconform::RoundingMode;
using fpconform::Saturation;
using fpconform::Tininess;
using fpconform::reference::OracleResult;

constexpr std::uint8_t IX = 0x01, UF = 0x02, OF = 0x04, INV = 0x10;

inline Format fmt(const char* name) { return fpconform::parse_format(name); }

struct Mp {
  mpfr_t v;
  explicit Mp(mpfr_prec_t p = 200) { mpfr_init2(v, p); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  operator mpfr_ptr() { return v; }
};

inline Rounding mode(RoundingMode m, Saturation s = Saturation::none) {
  Rounding r;
  r.mode = m;
  r.sat = s;
  return r;
}

// The exact value of a double, rounded once to f.
inline OracleResult rd(double x, const Format& f, const Rounding& r = {}) {
  Mp m(53);
  mpfr_set_d(m, x, MPFR_RNDN);
  return fpconform::reference::round_exact(m, f, r);
}

// sig * 2^exp exactly (sig up to 64 bits).
inline OracleResult rq(bool neg, std::uint64_t sig, long exp, const Format& f,
                       const Rounding& r = {}) {
  Mp m(64);
  mpfr_set_ui_2exp(m, sig, exp, MPFR_RNDN);
  if (neg) mpfr_neg(m, m, MPFR_RNDN);
  return fpconform::reference::round_exact(m, f, r);
}

// Value of a code as a double (exact for the small formats used here).
inline double val(std::uint64_t code, const Format& f) {
  Mp m;
  fpconform::reference::decode(m, code, f, false);
  return mpfr_get_d(m, MPFR_RNDN);
}

inline OracleResult R(std::uint64_t bits, std::uint8_t flags) { return {bits, flags}; }

inline std::uint32_t f2u(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
inline float u2f(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}
inline std::uint64_t d2u(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
}
inline double u2d(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, 8);
  return x;
}

}  // namespace reftest

// Printing for failures: bits in hex and flags.
namespace fpconform::reference {
inline void PrintTo(const OracleResult& r, std::ostream* os) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "{0x%llx, flags 0x%02x}", (unsigned long long)r.bits, r.flags);
  *os << buf;
}
}  // namespace fpconform::reference
