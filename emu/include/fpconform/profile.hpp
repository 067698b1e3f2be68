// Ecosystem profiles: what a library really does on conversion, as data (a default Rounding
// plus named quirks), not branches scattered through the code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/convert.hpp"

namespace fpconform {

// Options the user set explicitly; unset ones take the profile's defaults.
struct UserOptions {
  std::optional<RoundingMode> mode;
  std::optional<Saturation> sat;
  std::optional<bool> ftz;
  std::optional<bool> daz;
  std::optional<Tininess> tininess;
  // For the stochastic modes (profiles that allow them): n and the random bits.
  std::optional<int> stochastic_bits;
  std::optional<std::uint64_t> random;
};

// ---- the quirks a rule can name ----

// What a NaN input comes out as, in a target that has a NaN.
enum class NanConversion : std::uint8_t {
  ieee,           // SEMANTICS.md: sign kept, payload moved left-aligned, quiet bit set
  quiet_signed,   // quiet NaN with the input's sign, payload dropped (Eigen, ml_dtypes)
  ones_positive,  // +NaN with every payload bit set (NVIDIA host code: f16 0x7FFF, e4m3 0x7F)
  ones_signed,    // the input's sign, every payload bit set (PyTorch e5m2: 0x7F / 0xFF)
  ones_negative,  // -NaN with every payload bit set, whatever the input (PyTorch bf16: 0xFFFF)
  quiet_positive, // +quiet NaN, payload dropped, whatever the input (c10::BFloat16(float))
  raw_truncate,   // as ieee, but a signaling NaN stays signaling (the quiet bit is not set;
                  // a fraction that truncates to 0 becomes 1): numpy's float16 casts
                  // (npy_floatbits_to_halfbits), bit-shift widenings (bf16 -> f32)
};

// What a NaN input becomes in a target that has no NaN (fp6, fp4).
enum class NanToFinite : std::uint8_t {
  zero,          // SEMANTICS.md: +0 with invalid
  negated_zero,  // ml_dtypes: -0 for +NaN, +0 for -NaN (its "NaN" is -0, negated with the sign)
  max_finite,    // NVIDIA fp6/fp4 host code: +max finite, sign dropped
};

// Round-to-nearest into a target with no fraction bits, no subnormals and no zero (e8m0).
enum class M0Ties : std::uint8_t {
  even,  // SEMANTICS.md: a tie goes to the even code (the exponent field's last bit)
  // Ties are decided by the parity of the significand, whose last bit is the implicit 1, so
  // normal ties round away from zero; and [2^emin, 2^(emin+1)) is rounded as if code 0 were a
  // subnormal zero on the grid 2^(emin+1) (ties to even there: only 2^emin itself stays).
  // ml_dtypes 0.6's RoundBitsToNearestEven and PyTorch's fp8e8m0fnu_from_fp32_value
  // (lsb = exponent > 0) both do this.
  away_low_binade_even,
  // Every tie rounds away from zero, [2^emin, 2^(emin+1)) included (1.25 * 2^emin -> 2^emin,
  // 1.5 * 2^emin -> 2^(emin+1)), and anything below 2^emin -> 2^emin: rna on the real grid.
  // ml_dtypes 0.7 (jax-ml/ml_dtypes PR #434: ConvertImpl encodes e8m0 one binade lower).
  away,
};

// Whether an option can be switched on: only off, only on (forced), or either.
enum class Choice : std::uint8_t { off, on, either };

// One library function family: the formats it converts, what the user may choose, and how it
// departs from SEMANTICS.md. Rules are tried in order; the first that matches is used.
struct ConversionRule {
  // Target and source formats, as built-in format names (matched by layout, so an alias or an
  // equivalent custom spec matches too). Empty: any format.
  std::vector<std::string> to;
  std::vector<std::string> from;
  std::string function;  // the library function(s) modelled ("__nv_cvt_float_to_fp8")
  bool unsupported = false;  // the library has no such conversion: convert_with_profile throws
  // Allowed rounding modes (empty: every mode) and the default (nullopt: the user must say).
  std::vector<RoundingMode> modes;
  std::optional<RoundingMode> default_mode = RoundingMode::rne;
  std::vector<Saturation> sats;  // empty: every saturation
  Saturation default_sat = Saturation::none;
  Choice ftz = Choice::off;
  Choice daz = Choice::off;
  bool default_daz = false;  // when daz is Choice::either
  bool allow_stochastic_bits = false;
  // ---- quirks ----
  // Sources other than f32 are first rounded to f32 (RNE, IEEE), then converted: a double
  // rounding for f64 (ml_dtypes, PyTorch: their types are constructed from float).
  bool via_f32 = false;
  NanConversion nan = NanConversion::ieee;
  NanToFinite nan_to_finite = NanToFinite::zero;
  // A NaN read from a format whose NaN is the code 1000...0 (fnuz) is negative: its sign bit is
  // set (ml_dtypes: fnuz NaN -> f32 0xFFC00000, -> fp6 +0).
  bool fnuz_nan_negative = false;
  // How the source's NaN reads, before anything else: this payload (left-aligned, as
  // ExactValue::nan_payload) and signaling bit, the sign kept (PyTorch decodes an e4m3fn NaN as
  // the f32 0x7FF00000, and an fnuz or e8m0 NaN as the signaling f32 0x7F800001).
  std::optional<std::uint64_t> nan_in_payload;
  bool nan_in_signaling = false;
  // The input's sign is ignored: |x| is converted (NVIDIA and PyTorch e8m0).
  bool magnitude_only = false;
  // Zero into a target without a zero gives NaN instead of min positive (ml_dtypes e8m0).
  bool zero_to_nan = false;
  // How round-to-nearest breaks ties into a target with no fraction bits and no subnormals
  // (e8m0); see M0Ties.
  M0Ties m0_ties = M0Ties::even;
  std::string note;  // one line on anything a reader should know
};

struct Profile {
  std::string name;     // "nvidia", "ml_dtypes", "torch-2.11", "ocp", "p3109", ...
  std::string summary;  // one line: what it models
  std::string source;   // where the behaviour is documented or was observed
  std::vector<ConversionRule> rules;  // first match wins; the last one matches every pair
};

const std::vector<Profile>& builtin_profiles();
// Throws Error naming `what` for an unknown name.
const Profile& find_profile(std::string_view name, std::string_view what = "--profile");

// The rule of `p` that governs from -> to (every profile has a catch-all rule).
const ConversionRule& find_rule(const Profile& p, const Format& from, const Format& to);

// The Rounding the profile uses for from -> to given what the user set. Throws Error naming
// `what` if the user asked for something the library cannot do.
Rounding resolve_rounding(const Profile& p, const Format& from, const Format& to,
                          const UserOptions& user, std::string_view what = "--profile");

// The conversion as the profile's library performs it. Throws Error naming `what` if the user
// asked for something the library cannot do (e.g. --round rtz with NVIDIA's fp8 functions).
// Thread-safe; each thread remembers its last (profile, formats, options) resolution, so bulk
// calls with the same arguments cost one rounding each.
Rounded convert_with_profile(std::uint64_t bits, const Format& from, const Format& to,
                             const Profile& p, const UserOptions& user,
                             std::string_view what = "--profile");

}  // namespace fpconform
