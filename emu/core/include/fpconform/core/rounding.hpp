// Rounding, saturation, subnormal handling and the IEEE flags. Everything travels explicitly
// in a `Rounding` value and comes back in `Flags`: no global state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fpconform {

enum class RoundingMode : std::uint8_t {
  rne,  // to nearest, ties to even
  rna,  // to nearest, ties away from zero
  rtz,  // toward zero
  up,   // toward +inf
  down, // toward -inf
  odd,  // round to odd (jamming): truncate, then set the last bit if inexact
  // Stochastic modes use Rounding::random (the low `stochastic_bits` bits). Let f in [0,1) be
  // the exact fraction of an ulp that rounding toward zero drops, n = stochastic_bits, r the
  // random bits. Definitions as in P3109's interim report (and graphcore gfloat):
  stochastic_a,  // round f to n bits (ties to even), away iff that + r >= 2^n
  stochastic_b,  // away iff f + (r + 1/2) 2^-n >= 1
  stochastic_c,  // away iff f + r 2^-n >= 1   (truncate f to n bits first)
  stochastic_exact,  // CPFloat-style, probability exactly f: away iff r 2^-n < f
};

enum class Saturation : std::uint8_t {
  none,       // IEEE overflow: +-inf, or +-max finite where the direction says so; in a format
              // without infinities NaN (NVIDIA NOSAT), and max finite if it has no NaN either
  finite,     // every overflow, infinite inputs included, goes to +-max finite (SATFINITE)
  propagate,  // finite overflow goes to +-max finite; infinities stay infinite where possible
  infinite,   // every overflow is +-inf, whatever the direction: NVIDIA tensor cores truncate
              // (rtz) yet overflow to infinity (seen on an H200; reports/devices/nvidia-h200)
};

enum class Tininess : std::uint8_t { before_rounding, after_rounding };

struct Rounding {
  RoundingMode mode = RoundingMode::rne;
  Saturation sat = Saturation::none;
  bool ftz = false;  // flush tiny (subnormal) results to zero, raising underflow and inexact
  bool daz = false;  // treat subnormal inputs as zero
  Tininess tininess = Tininess::after_rounding;
  int stochastic_bits = 0;     // n, for the stochastic modes (1..64)
  std::uint64_t random = 0;    // the caller's random bits for this one rounding
};

// The five IEEE exception flags, with TestFloat's bit values.
struct Flags {
  enum : std::uint8_t {
    inexact = 0x01,
    underflow = 0x02,
    overflow = 0x04,
    infinite = 0x08,  // divide by zero
    invalid = 0x10,
  };
  std::uint8_t bits = 0;
  void raise(std::uint8_t f) { bits |= f; }
  bool has(std::uint8_t f) const { return (bits & f) != 0; }
  bool operator==(const Flags&) const = default;
  std::string to_string() const;  // "ix uf", "-" when none
};

bool is_stochastic(RoundingMode m);
std::string_view to_string(RoundingMode m);
std::string_view to_string(Saturation s);
// Parse names as the CLI spells them; throw Error naming `what`.
// Rounding: rne|rna|rtz|up|down|odd|sr-a|sr-b|sr-c|sr (and nearest_even, nearest_away,
// minMag, min, max, toward_zero, ...). Saturation: none|finite|propagate|infinite (and satfinite, nosat).
RoundingMode parse_rounding_mode(std::string_view text, std::string_view what = "--round");
Saturation parse_saturation(std::string_view text, std::string_view what = "--sat");

}  // namespace fpconform
