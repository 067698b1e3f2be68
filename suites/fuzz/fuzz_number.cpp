// parse_number (decimal, hex float, inf/nan with payloads), its printers, and one rounding of
// the value into a format of the pool. Properties: an exact value (no sticky) reads back the
// same from hex_float's text, and from exact_decimal's text where that is within the range
// parse_number keeps exact (|exp| < 50000).
#include <cstring>

#include "fpconform/convert.hpp"
#include "fuzz_common.hpp"

using namespace fpconform;

namespace {

bool same(const ExactValue& a, const ExactValue& b) {
  if (a.kind != b.kind || a.negative != b.negative) return false;
  if (a.is_nan()) return a.nan_payload == b.nan_payload && a.signaling == b.signaling;
  if (a.is_finite_nonzero()) return a.sig == b.sig && a.exp == b.exp && a.sticky == b.sticky;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fpfuzz::Bytes in(data, size);
  const Format& f = fpfuzz::pick_format(in.u8());
  const std::uint8_t knobs = in.u8();
  const std::string_view text = in.rest();
  ExactValue x;
  if (!fpfuzz::guarded("number", [&] { x = parse_number(text, "value"); })) return 0;
  std::string dec, hex;
  fpfuzz::guarded("number", [&] {
    hex = hex_float(x);
    dec = exact_decimal(x);
  });
  if (!x.sticky) {
    ExactValue back;
    fpfuzz::require(fpfuzz::guarded("number", [&] { back = parse_number(hex, "hex"); }) &&
                        same(x, back),
                    "number", "hex_float text '" + hex.substr(0, 200) + "' does not read back");
    if (!x.is_finite_nonzero() || (x.exp < 50000 && x.exp > -50000)) {
      fpfuzz::require(fpfuzz::guarded("number", [&] { back = parse_number(dec, "dec"); }) &&
                          same(x, back),
                      "number",
                      "exact_decimal text '" + dec.substr(0, 200) + "' does not read back");
    }
  }
  Rounding r;
  r.mode = static_cast<RoundingMode>(knobs % 10);
  r.sat = static_cast<Saturation>((knobs >> 4) % 3);
  r.ftz = (knobs >> 6) & 1;
  r.tininess = (knobs >> 7) ? Tininess::before_rounding : Tininess::after_rounding;
  if (is_stochastic(r.mode)) {
    r.stochastic_bits = 1 + knobs % 64;
    r.random = 0x9E3779B97F4A7C15ull * knobs;
  }
  fpfuzz::guarded("number", [&] {
    const Rounded out = round_to_format(x, f, r);
    fpfuzz::require((out.bits & ~f.code_mask()) == 0, "number",
                    "round_to_format gave a code wider than " + f.name);
  });
  return 0;
}
