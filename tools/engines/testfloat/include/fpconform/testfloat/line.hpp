// The TestFloat line protocol: one test case per line, fields separated by single spaces,
// every field upper-case hex zero-padded to its format's width (Format::hex_digits()), the
// flags field two hex digits of TestFloat's mask (invalid 10, infinite 08, overflow 04,
// underflow 02, inexact 01). A conversion line is `operand result flags`, e.g. `43E00000 7E 01`;
// an operation line `a b [c] result flags` (`3F80 3F80 4000 00` for bf16_add); a comparison's
// result is one digit, 0 or 1, as TestFloat writes it (`3F80 4000 1 00` for bf16_lt).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/core/format.hpp"

namespace fpconform::testfloat {

inline constexpr int kMaxArity = 3;     // fma
inline constexpr int kFlagDigits = 2;
inline constexpr std::uint8_t kFlagMask = 0x1F;

using Operands = std::array<std::uint64_t, kMaxArity>;

// The formats of a function's operands and of its result: enough to read and write lines.
struct Signature {
  std::vector<Format> operands;
  Format result;
  // Hex digits of the result field; 0: result.hex_digits(). Comparisons use 1 (bool_format).
  int result_digits = 0;
  int arity() const { return static_cast<int>(operands.size()); }
  int result_hex_digits() const { return result_digits > 0 ? result_digits : result.hex_digits(); }
};

// The result of a comparison: 1 bit (0 false, 1 true), no NaN, written as one hex digit.
const Format& bool_format();

// Writes `v` as exactly `digits` upper-case hex digits (1..16) at `out`; returns the end.
char* put_hex(char* out, std::uint64_t v, int digits);
std::string to_hex(std::uint64_t v, int digits);

// Parses one field of exactly `digits` hex digits (either case) whose value must fit in
// `bits` bits. On failure returns false and sets `error` (no "line N" prefix).
bool parse_hex_field(std::string_view field, int digits, int bits, std::uint64_t& out,
                     std::string& error, std::string_view format_name = {});

// A parsed line. `has_result` is false for an operands-only line (accepted by eval).
struct Line {
  Operands operands{};
  std::uint64_t result = 0;
  std::uint8_t flags = 0;
  bool has_result = false;
};

enum class LineKind {
  complete,       // operands result flags   (ver)
  operands_or_complete,  // operands [result flags]   (eval)
};

// Parses one line (without its newline; a trailing '\r' is ignored). Fields are separated by
// spaces or tabs. Returns an empty string on success, else a message such as
// "expected 3 fields (operand result flags), got 2".
std::string parse_line(std::string_view text, const Signature& sig, LineKind kind, Line& out);

// Formats a complete line (operands, result, flags) into `out`, without a newline. Returns
// the end pointer. `out` must have room for format_capacity(sig) characters.
char* format_line(char* out, const Signature& sig, const std::uint64_t* operands,
                  std::uint64_t result, std::uint8_t flags);
std::size_t format_capacity(const Signature& sig);
std::string format_line(const Signature& sig, const std::uint64_t* operands,
                        std::uint64_t result, std::uint8_t flags);

}  // namespace fpconform::testfloat
