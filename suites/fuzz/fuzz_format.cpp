// parse_format: built-in names and aliases, e<E>m<M>, P3109 names, custom: specs. Properties of
// an accepted format: it passes validate_format, its name reads back to the same format, its
// special and limit codes fit its width, and every code that is not NaN (nor reserved) among
// the first and last few decodes and rounds back to itself without flags.
#include "fpconform/convert.hpp"
#include "fuzz_common.hpp"

using namespace fpconform;

namespace {

void check_code(const Format& f, std::uint64_t code) {
  if (f.is_nan_code(code) || f.is_reserved_code(code)) return;
  ExactValue x;
  Rounded r;
  const bool ok = fpfuzz::guarded("format", [&] {
    x = decode(code, f);
    r = round_to_format(x, f, Rounding{});
  });
  fpfuzz::require(ok, "format", f.name + ": decode/round of a valid code threw");
  fpfuzz::require(r.bits == code && r.flags.bits == 0, "format",
                  f.name + ": code " + std::to_string(code) + " does not round back to itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fpfuzz::Bytes in(data, size);
  const std::string_view text = in.rest();
  Format f;
  if (!fpfuzz::guarded("format", [&] { f = parse_format(text, "--to"); })) return 0;
  fpfuzz::require(fpfuzz::guarded("format", [&] { validate_format(f, "check"); }), "format",
                  "parse_format accepted '" + f.name + "' but validate_format refuses it");
  Format back;
  fpfuzz::require(fpfuzz::guarded("format", [&] { back = parse_format(f.name, "name"); }) &&
                      back == f,
                  "format", "the name '" + f.name + "' does not read back to the same format");
  const std::uint64_t mask = f.code_mask();
  auto fits = [&](std::uint64_t c) { return (c & ~mask) == 0; };
  fpfuzz::require(fits(f.max_finite_code()) && fits(f.min_positive_code()) &&
                      fits(f.min_normal_code()) && fits(f.sign_mask()),
                  "format", f.name + ": a limit code is wider than the format");
  if (f.has_inf())
    fpfuzz::require(fits(f.inf_code(false)) && fits(f.inf_code(f.is_signed)) &&
                        f.is_inf_code(f.inf_code(false)),
                    "format", f.name + ": bad infinity code");
  if (f.has_nan())
    fpfuzz::require(fits(f.nan_code(false)) && f.is_nan_code(f.nan_code(false)), "format",
                    f.name + ": bad NaN code");
  (void)f.emax();
  (void)f.describe();
  for (std::uint64_t c = 0; c < 16 && c <= mask; ++c) check_code(f, c);
  for (std::uint64_t k = 0; k < 16 && k <= mask; ++k) check_code(f, mask - k);
  check_code(f, f.max_finite_code());
  check_code(f, f.min_normal_code());
  return 0;
}
