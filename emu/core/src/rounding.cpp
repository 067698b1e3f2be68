// Names of rounding and saturation modes, and flag printing.
#include "fpconform/core/rounding.hpp"

#include <algorithm>
#include <cctype>

#include "fpconform/core/error.hpp"

namespace fpconform {

namespace {
struct ModeName {
  std::string_view name;
  RoundingMode mode;
};
// The first entry for each mode is its canonical name.
constexpr ModeName kModeNames[] = {
    {"rne", RoundingMode::rne},         {"rna", RoundingMode::rna},
    {"rtz", RoundingMode::rtz},         {"up", RoundingMode::up},
    {"down", RoundingMode::down},       {"odd", RoundingMode::odd},
    {"sr-a", RoundingMode::stochastic_a}, {"sr-b", RoundingMode::stochastic_b},
    {"sr-c", RoundingMode::stochastic_c}, {"sr", RoundingMode::stochastic_exact},
    {"near_even", RoundingMode::rne},   {"nearest_even", RoundingMode::rne},
    {"rn", RoundingMode::rne},          {"near_maxmag", RoundingMode::rna},
    {"nearest_away", RoundingMode::rna}, {"minmag", RoundingMode::rtz},
    {"rz", RoundingMode::rtz},          {"toward_zero", RoundingMode::rtz},
    {"max", RoundingMode::up},          {"rp", RoundingMode::up},
    {"ru", RoundingMode::up},           {"min", RoundingMode::down},
    {"rm", RoundingMode::down},         {"rd", RoundingMode::down},
    {"rto", RoundingMode::odd},         {"stochastica", RoundingMode::stochastic_a},
    {"stochasticb", RoundingMode::stochastic_b}, {"stochasticc", RoundingMode::stochastic_c},
    {"stochastic", RoundingMode::stochastic_exact},
};

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}
}  // namespace

bool is_stochastic(RoundingMode m) {
  return m == RoundingMode::stochastic_a || m == RoundingMode::stochastic_b ||
         m == RoundingMode::stochastic_c || m == RoundingMode::stochastic_exact;
}

std::string_view to_string(RoundingMode m) {
  for (const auto& n : kModeNames)
    if (n.mode == m) return n.name;
  return "?";
}

std::string_view to_string(Saturation s) {
  switch (s) {
    case Saturation::none: return "none";
    case Saturation::finite: return "finite";
    case Saturation::propagate: return "propagate";
    case Saturation::infinite: return "infinite";
  }
  return "?";
}

RoundingMode parse_rounding_mode(std::string_view text, std::string_view what) {
  const std::string t = lower(text);
  for (const auto& n : kModeNames)
    if (n.name == t) return n.mode;
  throw Error(std::string(what), "unknown rounding mode '" + std::string(text) +
                                     "' (rne, rna, rtz, up, down, odd, sr-a, sr-b, sr-c, sr)");
}

Saturation parse_saturation(std::string_view text, std::string_view what) {
  const std::string t = lower(text);
  if (t == "none" || t == "nosat" || t == "satnone") return Saturation::none;
  if (t == "finite" || t == "satfinite") return Saturation::finite;
  if (t == "propagate" || t == "satpropagate") return Saturation::propagate;
  if (t == "infinite" || t == "inf") return Saturation::infinite;
  throw Error(std::string(what),
              "unknown saturation '" + std::string(text) + "' (none, finite, propagate, infinite)");
}

std::string Flags::to_string() const {
  std::string s;
  auto add = [&](std::uint8_t f, const char* n) {
    if (bits & f) s += s.empty() ? n : std::string(" ") + n;
  };
  add(invalid, "invalid");
  add(infinite, "infinite");
  add(overflow, "overflow");
  add(underflow, "underflow");
  add(inexact, "inexact");
  return s.empty() ? "-" : s;
}

}  // namespace fpconform
