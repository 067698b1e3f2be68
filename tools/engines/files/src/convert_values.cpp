#include "fpconform/files/convert_values.hpp"

#include <cctype>
#include <charconv>

#include "fpconform/core/error.hpp"
#include "fpconform/profile.hpp"
#include "fpconform/files/format_listing.hpp"

namespace fpconform::files {

namespace {

std::uint64_t parse_raw(const std::string& text, const Format& from, const std::string& where,
                        const std::string& role) {
  std::string_view digits = std::string_view(text).substr(2);
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  std::uint64_t v = 0;
  const bool too_long = digits.size() > 16;
  if (!too_long) std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
  if (too_long || (v & ~from.code_mask()) != 0)
    throw Error(where, text + " does not fit in " + std::to_string(from.width()) +
                           "-bit format " + from.name + " (" + role +
                           "); raw bits must be at most " + code_text(from.code_mask(), from));
  return v;
}

// A NaN literal as a code of `f`, keeping sign, payload and signaling where f can.
std::uint64_t nan_code_of(const ExactValue& x, const Format& f, const std::string& where,
                          const std::string& role) {
  if (!f.has_nan()) throw Error(where, f.name + " (" + role + ") has no NaN");
  if (f.nan != NanEncoding::ieee) return f.nan_code(x.negative);
  std::uint64_t frac = f.man_bits > 1 ? x.nan_payload >> (64 - (f.man_bits - 1)) : 0;
  if (!x.signaling) frac |= f.quiet_bit();
  if (frac == 0) frac = 1;  // a signaling NaN needs a non-zero fraction
  return (f.nan_code(x.negative) & ~f.quiet_bit()) | frac;
}

// The literal as a code of `f` by round-to-nearest-even; `exact` tells whether it was.
std::uint64_t literal_code(const ExactValue& x, const Format& f, const std::string& where,
                           const std::string& role, bool& exact) {
  if (x.is_nan()) {
    exact = true;
    return nan_code_of(x, f, where, role);
  }
  const Rounded r = round_to_format(x, f, Rounding{});
  exact = r.flags.bits == 0;
  return r.bits;
}

}  // namespace

std::uint64_t code_of_value(const std::string& text, const Format& f, const std::string& where,
                            const std::string& role, bool& exact) {
  exact = true;
  if (is_raw_bits(text)) return parse_raw(text, f, where, role);
  return literal_code(parse_number(text, where), f, where, role, exact);
}

std::string inexact_note(const std::string& where, std::uint64_t bits, const Format& f) {
  return where + ": not exact in " + f.name + "; using the nearest " + f.name +
         ", " + code_text(bits, f) + " = " + exact_decimal(decode(bits, f));
}

bool is_raw_bits(const std::string& text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  for (std::size_t i = 2; i < text.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

std::string result_line(const Rounded& r, const Format& to) {
  return code_text(r.bits, to) + " " + exact_decimal(decode(r.bits, to)) + " " + r.flags.to_string();
}

ConvertOutput convert_values(const ConvertRequest& req, const std::vector<std::string>& values) {
  ConvertOutput out;
  const testfloat::Options& o = req.options;
  auto from_code = [&](std::uint64_t bits, const Format& from) {
    return o.profile ? convert_with_profile(bits, from, req.to, *o.profile, o.user, "--profile")
                     : convert(bits, from, req.to, o.rounding);
  };
  for (const std::string& v : values) {
    const std::string where = "value '" + v + "'";
    try {
      Rounded r;
      if (req.from) {
        bool exact = true;
        const std::uint64_t bits = code_of_value(v, *req.from, where, "--from", exact);
        if (!exact) out.notes.push_back(inexact_note(where, bits, *req.from));
        r = from_code(bits, *req.from);
      } else {
        const ExactValue x = parse_number(v, where);
        if (o.profile) {
          const Format f64 = *find_builtin("f64");
          bool exact = true;
          const std::uint64_t bits = literal_code(x, f64, where, "f64", exact);
          if (!exact)
            throw Error(where, "--profile converts codes of a source format, and " + v +
                                   " is not exactly a f64; give --from FMT with raw bits "
                                   "(0x...) or a value exact in that format");
          r = from_code(bits, f64);
        } else {
          r = round_to_format(x, req.to, o.rounding);
        }
      }
      out.lines.push_back(result_line(r, req.to));
    } catch (const Error& e) {
      out.errors.push_back(e.what());
    }
  }
  return out;
}

}  // namespace fpconform::files
