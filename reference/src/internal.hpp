// Internals shared by the oracle's source files (not installed, not used outside reference/).
#pragma once

#include <cstdint>

#include <gmp.h>
#include <mpfr.h>

#include "fpconform/reference/oracle.hpp"

namespace fpconform::reference::detail {

using u64 = std::uint64_t;
static_assert(sizeof(unsigned long) == 8, "the oracle assumes LP64 (unsigned long = 64 bits)");
static_assert(GMP_NUMB_BITS == 64, "the oracle reads 64-bit limbs");

inline u64 low_mask(int n) { return n >= 64 ? ~u64{0} : (u64{1} << n) - 1; }

// A format as the oracle sees it: the data fields plus what it derived from them.
struct Geometry {
  // The Format's data fields (the cache key).
  int exp_bits = 0, man_bits = 0, bias = 0;
  bool is_signed = true, subnormals = true, has_zero = true;
  InfEncoding inf = InfEncoding::none;
  NanEncoding nan = NanEncoding::none;
  // Derived here.
  int width = 0;
  u64 code_all = 0;  // all-ones code of `width` bits
  u64 mag_all = 0;   // all-ones magnitude
  u64 sign_bit = 0;  // 0 for unsigned formats
  u64 exp_all = 0;   // all-ones exponent field (unshifted)
  bool reserve_top_binade = false;
  u64 inf_mag = 0, max_mag = 0, min_pos_mag = 0;
  long emin = 0, emax = 0;
  u64 maxf_aligned = 0;  // maxf's significand shifted so that its leading bit is bit 63
  mpfr_t maxf;
};

// Per-thread scratch MPFR variables (never shared between threads).
struct Scratch {
  mpfr_t s, fr, g, t, c, yv, tmp, dec, num;
  mpfr_t k;  // 64 bits: integer parts
  Scratch();
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};
Scratch& scratch();

// Per-thread cache of a few geometries. The reference stays valid until geometry() is called
// with kCacheSize other formats.
const Geometry& geometry(const Format& f);
CodeClass classify_code(const Geometry& g, u64 code);
// Value of a finite magnitude code (zero included); out must have >= man_bits + 1 bits.
void set_magnitude_value(mpfr_ptr out, const Geometry& g, u64 mag);

// Widens MPFR's (thread-local) exponent range for the scope if a caller narrowed it.
class RangeGuard {
 public:
  RangeGuard();
  ~RangeGuard();
  RangeGuard(const RangeGuard&) = delete;
  RangeGuard& operator=(const RangeGuard&) = delete;

 private:
  bool saved_ = false;
  mpfr_exp_t emin_ = 0, emax_ = 0;
};

OracleResult round_with_nan(mpfr_srcptr x, const Format& f, const Rounding& r, const NanInfo* n);

}  // namespace fpconform::reference::detail
