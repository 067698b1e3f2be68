// `fpconform convert`: each VALUE (a number, or raw bits of --from) to one result line
// `<code> <exact decimal> <flags>`, e.g. `0x7e 448 inexact`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/testfloat/function.hpp"

namespace fpconform::files {

struct ConvertRequest {
  Format to;
  std::optional<Format> from;
  testfloat::Options options;  // rounding, and the profile with the explicitly set options
};

struct ConvertOutput {
  std::vector<std::string> lines;   // one per value, in order (meaningful only if no errors)
  std::vector<std::string> errors;  // "where: message", one per bad value
  std::vector<std::string> notes;   // e.g. a decimal that --from could not hold exactly
};

// Evaluates every value before anything is printed, so a caller can print nothing on stdout
// when any value is bad.
ConvertOutput convert_values(const ConvertRequest& request, const std::vector<std::string>& values);

// "0x" followed by hex digits only: raw bits when --from is given.
bool is_raw_bits(const std::string& text);

// VALUE as a code of `f`, for commands that take codes (convert --from, eval's operands):
// "0x<hex digits>" are raw bits (Error naming `where` and `role` if they do not fit); anything
// else is a number (decimal, hex float, inf, nan, snan) rounded to f to nearest even, with
// `exact` false when that changed it. NaN literals keep sign and payload where f can.
std::uint64_t code_of_value(const std::string& text, const Format& f, const std::string& where,
                            const std::string& role, bool& exact);
// "<where>: not exact in bf16; using the nearest bf16, 0x3dcd = 0.10009765625".
std::string inexact_note(const std::string& where, std::uint64_t bits, const Format& f);
// `<code> <exact decimal> <flags>`.
std::string result_line(const Rounded& r, const Format& to);

}  // namespace fpconform::files
