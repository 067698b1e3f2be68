// Numeric options of every command (counts, sizes, thresholds, thread counts): one parser and
// one range check, so every command refuses the same way, before any work, with
//   --worst: must be an integer in 0..1000000, got -1
// and exit 2. CLI11 alone would read "-5" into an int and hand it on, "nan" into a double, and
// 1e300 into a threshold that later overflows an integer conversion.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace fpconform::cli {

// The whole text as a decimal integer in lo..hi (no sign on a count, no exponent, no spaces).
// Throws Error(place, "must be an integer in LO..HI, got TEXT").
// `note` follows the range in the message ("0: all cores").
std::int64_t parse_integer_in(std::string_view text, std::string_view place, std::int64_t lo,
                              std::int64_t hi, const std::string& note = {});
std::uint64_t parse_unsigned_in(std::string_view text, std::string_view place, std::uint64_t lo,
                                std::uint64_t hi, const std::string& note = {});

// The whole text as a finite number in lo..hi (decimal or hex float; nan and inf refused).
// Throws Error(place, "must be a finite number in LO..HI, got TEXT").
double parse_real_in(std::string_view text, std::string_view place, double lo, double hi,
                     const std::string& note = {});

// CLI11 checks built on the parsers above (their message, prefixed with the option's name);
// the range and note also show in --help.
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi, std::string note = {});
CLI::Validator unsigned_in(std::uint64_t lo, std::uint64_t hi, std::string note = {});
CLI::Validator real_in(double lo, double hi, std::string note = {});

// --threads N: 0..kMaxThreads, 0 meaning FPCONFORM_THREADS, else all cores (fpconform/threads.hpp).
CLI::Option* add_threads_option(CLI::App* sub, unsigned& threads, const std::string& help);

// Longest K, group or block a matrix option may name (--split-k, --promote, ...).
inline constexpr int kMaxLength = 1 << 24;

// Largest finite tolerance: anything above behaves as "no limit" and is refused as a typo.
inline constexpr double kMaxTolerance = 1e18;

}  // namespace fpconform::cli
