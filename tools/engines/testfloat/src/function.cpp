// Options, the function registry and result matching.
#include "fpconform/testfloat/function.hpp"

#include <charconv>

#include "fpconform/core/error.hpp"

namespace fpconform::testfloat {

namespace {

bool parse_u64(std::string_view s, std::uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

std::vector<FunctionFamily>& registry() {
  static std::vector<FunctionFamily> r = [] {
    std::vector<FunctionFamily> v;
    FunctionFamily conv;
    conv.syntax = "<fmt>_to_<fmt>";
    conv.summary = "conversion between any two formats parse_format accepts";
    conv.example = "f32_to_e4m3";
    conv.arity = 1;
    conv.parse = [](std::string_view name, std::string_view what) -> std::unique_ptr<Function> {
      // Try every "_to_" split (format names such as float8_e4m3fn contain underscores).
      std::string first_error;
      for (std::size_t pos = name.find("_to_"); pos != std::string_view::npos;
           pos = name.find("_to_", pos + 1)) {
        const std::string where = std::string(what) + " '" + std::string(name) + "'";
        try {
          const Format from = parse_format(name.substr(0, pos), where);
          const Format to = parse_format(name.substr(pos + 4), where);
          return make_conversion(from, to);
        } catch (const Error& e) {
          if (first_error.empty()) first_error = e.what();
        }
      }
      if (!first_error.empty()) throw Error("", first_error);
      return nullptr;
    };
    v.push_back(std::move(conv));
    v.push_back(operation_family());
    return v;
  }();
  return r;
}

}  // namespace

Tininess parse_tininess(std::string_view text, std::string_view what) {
  if (text == "before" || text == "before_rounding" || text == "tininessbefore")
    return Tininess::before_rounding;
  if (text == "after" || text == "after_rounding" || text == "tininessafter")
    return Tininess::after_rounding;
  throw Error(std::string(what), "unknown tininess '" + std::string(text) + "' (before, after)");
}

Options make_options(const OptionText& t) {
  Options o;
  if (t.round) o.rounding.mode = *(o.user.mode = parse_rounding_mode(*t.round, "--round"));
  if (t.sat) o.rounding.sat = *(o.user.sat = parse_saturation(*t.sat, "--sat"));
  if (t.tininess) o.rounding.tininess = *(o.user.tininess = parse_tininess(*t.tininess));
  if (t.ftz) o.rounding.ftz = *(o.user.ftz = *t.ftz);
  if (t.daz) o.rounding.daz = *(o.user.daz = *t.daz);
  o.exact_nan = t.exact_nan;
  if (t.nan) o.nan = &find_nan_policy(*t.nan, "--nan");
  if (t.exact_int) o.exact_int = *t.exact_int;
  if (t.profile) o.profile = &find_profile(*t.profile, "--profile");
  const bool stochastic = is_stochastic(o.rounding.mode);
  if (t.sr_bits) {
    if (*t.sr_bits < 1 || *t.sr_bits > 64)
      throw Error("--sr-bits", "must be 1..64, got " + std::to_string(*t.sr_bits));
    o.rounding.stochastic_bits = *t.sr_bits;
  }
  if (t.random) {
    if (!parse_u64(*t.random, o.rounding.random))
      throw Error("--random", "expected an unsigned integer (decimal or 0x hex), got '" +
                                  *t.random + "'");
  }
  if (t.profile) {
    // The profile decides whether its library can round stochastically.
    if (t.sr_bits) o.user.stochastic_bits = *t.sr_bits;
    if (t.random) o.user.random = o.rounding.random;
  }
  if (!t.profile) {
    if (stochastic && !t.sr_bits)
      throw Error("--round", "stochastic rounding '" + std::string(to_string(o.rounding.mode)) +
                                 "' needs --sr-bits N (1..64) and --random BITS");
    if (!stochastic && (t.random || t.sr_bits))
      throw Error(t.random ? "--random" : "--sr-bits",
                  "only used with a stochastic --round mode (sr-a, sr-b, sr-c, sr)");
    if (t.sr_bits && *t.sr_bits < 64 && (o.rounding.random >> *t.sr_bits) != 0)
      throw Error("--random", "'" + t.random.value_or("") + "' does not fit in --sr-bits " +
                                  std::to_string(*t.sr_bits) + " bits");
  }
  return o;
}

bool Function::matches(const Result& expected, const Result& got, bool exact_nan) const {
  if (expected.flags != got.flags) return false;
  if (expected.bits == got.bits) return true;
  const Format& r = signature().result;
  return !exact_nan && r.is_nan_code(expected.bits) && r.is_nan_code(got.bits);
}

const std::vector<FunctionFamily>& families() { return registry(); }

void register_family(FunctionFamily family) { registry().push_back(std::move(family)); }

std::unique_ptr<Function> parse_function(std::string_view name, std::string_view what) {
  for (const auto& fam : families())
    if (auto f = fam.parse(name, what)) return f;
  std::string shapes;
  for (const auto& fam : families())
    shapes += (shapes.empty() ? "" : ", ") + fam.syntax + " (e.g. " + fam.example + ")";
  throw Error(std::string(what), "unknown function '" + std::string(name) + "'; expected " + shapes);
}

}  // namespace fpconform::testfloat
