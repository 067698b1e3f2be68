// Functions under test, as a registry of families. A family recognises names of one shape
// (`<fmt>_to_<fmt>` for conversions, `<fmt>_<op>` for scalar operations such as `bf16_add`,
// `e4m3_mulAdd`, `f32_lt_quiet`; others can be registered) and builds a Function that knows
// its operand and result formats, how emu computes it, how the MPFR oracle computes it, and
// which operands make good tests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/arith.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fpconform/profile.hpp"
#include "fpconform/core/rounding.hpp"
#include "fpconform/testfloat/line.hpp"

namespace fpconform::testfloat {

// How a function is evaluated: the rounding attributes, and optionally an ecosystem profile
// (then only the options the user set explicitly override the profile's defaults).
struct Options {
  Rounding rounding;
  UserOptions user;                  // the options set explicitly
  const Profile* profile = nullptr;  // emu only: the oracle models SEMANTICS.md, not libraries
  bool exact_nan = false;            // ver: NaN results must match bit for bit
  // Scalar operations only (conversions have their own NaN rules and no roundToInt):
  const NanPolicy* nan = nullptr;    // which NaN a NaN result is; nullptr: ieee
  bool exact_int = true;             // roundToInt raises inexact (TestFloat -exact)
};

// The options as the user spelled them (unset: std::nullopt), turned into Options with
// make_options; errors (unknown mode, --sr-bits out of range, ...) throw fpconform::Error
// naming the option.
struct OptionText {
  std::optional<std::string> round;
  std::optional<std::string> sat;
  std::optional<std::string> tininess;  // before | after
  std::optional<bool> ftz;
  std::optional<bool> daz;
  std::optional<std::string> profile;
  std::optional<std::string> random;   // stochastic modes: the random bits (decimal or 0x hex)
  std::optional<int> sr_bits;          // stochastic modes: how many random bits (1..64)
  bool exact_nan = false;
  std::optional<std::string> nan;      // NaN policy: ieee | x86 | arm-default-nan | riscv | nvidia
  std::optional<bool> exact_int;       // roundToInt: inexact raised (default true)
};
Options make_options(const OptionText& text);
Tininess parse_tininess(std::string_view text, std::string_view what = "--tininess");

struct Result {
  std::uint64_t bits = 0;
  std::uint8_t flags = 0;
  bool operator==(const Result&) const = default;
};

class Rng;

class Function {
 public:
  virtual ~Function() = default;
  const std::string& name() const { return name_; }
  const Signature& signature() const { return sig_; }
  int arity() const { return sig_.arity(); }

  // fpconform's bit-exact model (emu/, or the profile when options.profile is set).
  virtual Result emu(const std::uint64_t* operands, const Options& options) const = 0;
  // The MPFR oracle (reference/). Throws Error if options.profile is set.
  virtual Result oracle(const std::uint64_t* operands, const Options& options) const = 0;
  // The deterministic, duplicate-free pattern set of a level (1 or 2), TestFloat-style.
  virtual std::vector<Operands> patterns(int level) const = 0;
  // One weighted random case (uniform codes, and values near the result format's rounding
  // boundaries).
  virtual void random_case(Rng& rng, int level, std::uint64_t* operands) const = 0;

  // Same bits and flags; any NaN matches any NaN of the result format unless exact_nan.
  bool matches(const Result& expected, const Result& got, bool exact_nan) const;

 protected:
  Function(std::string name, Signature sig) : name_(std::move(name)), sig_(std::move(sig)) {}

 private:
  std::string name_;
  Signature sig_;
};

struct FunctionFamily {
  std::string syntax;   // "<fmt>_to_<fmt>"
  std::string summary;  // "conversion between any two formats parse_format accepts"
  std::string example;  // "f32_to_e4m3"
  int arity = 1;
  // Returns nullptr when `name` is not of this family's shape; throws Error naming `what`
  // when it is, but a part is wrong (e.g. an unknown format).
  std::function<std::unique_ptr<Function>(std::string_view name, std::string_view what)> parse;
};

// The registered families (conversions are built in); register_family adds one.
const std::vector<FunctionFamily>& families();
void register_family(FunctionFamily family);
// Throws Error naming `what` if no family recognises the name.
std::unique_ptr<Function> parse_function(std::string_view name,
                                         std::string_view what = "FUNCTION");

// Conversions directly (used by the registry and by tests).
std::unique_ptr<Function> make_conversion(const Format& from, const Format& to);

// Scalar operations directly: `<fmt>_<op>` with op's TestFloat name (add, mulAdd, lt_quiet,
// ...); operands are codes of f, the result a code of f or, for comparisons, one bit written
// as one hex digit. Profiles model conversions only: emu throws Error("--profile") with one.
std::unique_ptr<Function> make_operation(Op op, const Format& f);
// The `<fmt>_<op>` family: the longest suffix `_<op>` naming a known operation, the rest the
// format (so `float8_e4m3fn_lt_quiet` and `custom:e=3,m=2_mulAdd` read as expected).
FunctionFamily operation_family();
// Throws Error naming `what` for a name that is not an operation (the message lists them).
Op parse_op(std::string_view name, std::string_view what = "OP");

}  // namespace fpconform::testfloat
