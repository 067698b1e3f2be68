#include "numeric_options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli_args.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/threads.hpp"

namespace fpconform::cli {

namespace {

// A range bound as the message shows it: 86400, 0.5, 1e+18.
std::string real_text(double v) {
  char b[40];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
  }
  // The shortest spelling that reads back as v.
  for (int digits = 1; digits < 17; ++digits) {
    std::snprintf(b, sizeof b, "%.*g", digits, v);
    if (std::strtod(b, nullptr) == v) return b;
  }
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string with_note(const std::string& range, const std::string& note) {
  return note.empty() ? range : range + " (" + note + ")";
}

[[noreturn]] void refuse(std::string_view place, const std::string& range, std::string_view text) {
  // Escaped and cut: the text may be a 10^6-character or binary argument.
  throw Error(std::string(place), "must be " + range + ", got " + printable_message(text));
}

// Sign and decimal digits: the magnitude, saturated above 2^64 - 1 (then `overflow`).
bool decimal(std::string_view text, bool& negative, std::uint64_t& magnitude, bool& overflow) {
  negative = false;
  overflow = false;
  magnitude = 0;
  std::size_t i = 0;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (magnitude > (std::numeric_limits<std::uint64_t>::max() - d) / 10) overflow = true;
    else magnitude = magnitude * 10 + d;
  }
  return true;
}

// `parse` checks the text and returns it canonical (plain decimal; a real as %.17g), which
// CLI11 then converts: it would read "010" as octal 8 and may not read "0x1p-3" at all.
CLI::Validator checker(std::function<std::string(const std::string&)> parse, std::string description) {
  return CLI::Validator(
      [parse = std::move(parse)](std::string& text) -> std::string {
        try {
          text = parse(text);
        } catch (const Error& e) {
          return e.what();  // no place: CLI11 puts the option's name in front
        }
        return {};
      },
      std::move(description));
}

}  // namespace

std::int64_t parse_integer_in(std::string_view text, std::string_view place, std::int64_t lo,
                              std::int64_t hi, const std::string& note) {
  const std::string range = with_note("an integer in " + std::to_string(lo) + ".." + std::to_string(hi), note);
  bool negative = false, overflow = false;
  std::uint64_t mag = 0;
  if (!decimal(text, negative, mag, overflow) || overflow) refuse(place, range, text);
  constexpr auto kMinMag = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
  if ((negative && mag > kMinMag) ||
      (!negative && mag > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))
    refuse(place, range, text);
  const std::int64_t v = negative ? static_cast<std::int64_t>(0 - mag) : static_cast<std::int64_t>(mag);
  if (v < lo || v > hi) refuse(place, range, text);
  return v;
}

std::uint64_t parse_unsigned_in(std::string_view text, std::string_view place, std::uint64_t lo,
                                std::uint64_t hi, const std::string& note) {
  const std::string range = with_note("an integer in " + std::to_string(lo) + ".." + std::to_string(hi), note);
  bool negative = false, overflow = false;
  std::uint64_t mag = 0;
  if (!decimal(text, negative, mag, overflow) || overflow || negative || mag < lo ||
      mag > hi)
    refuse(place, range, text);
  return mag;
}

double parse_real_in(std::string_view text, std::string_view place, double lo, double hi,
                     const std::string& note) {
  const std::string range = with_note("a finite number in " + real_text(lo) + ".." + real_text(hi), note);
  const std::string s(text);
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) refuse(place, range, text);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || errno == ERANGE || v < lo || v > hi)
    refuse(place, range, text);
  return v;
}

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi, std::string note) {
  return checker([=](const std::string& t) { return std::to_string(parse_integer_in(t, "", lo, hi, note)); },
                 with_note(std::to_string(lo) + ".." + std::to_string(hi), note));
}

CLI::Validator unsigned_in(std::uint64_t lo, std::uint64_t hi, std::string note) {
  return checker([=](const std::string& t) { return std::to_string(parse_unsigned_in(t, "", lo, hi, note)); },
                 with_note(std::to_string(lo) + ".." + std::to_string(hi), note));
}

CLI::Validator real_in(double lo, double hi, std::string note) {
  return checker(
      [=](const std::string& t) {
        char b[40];
        std::snprintf(b, sizeof b, "%.17g", parse_real_in(t, "", lo, hi, note));
        return std::string(b);
      },
      with_note(real_text(lo) + ".." + real_text(hi), note));
}

CLI::Option* add_threads_option(CLI::App* sub, unsigned& threads, const std::string& help) {
  return sub->add_option("--threads", threads, help)
      ->check(unsigned_in(0, kMaxThreads, "0: FPCONFORM_THREADS, else all cores"));
}

}  // namespace fpconform::cli
