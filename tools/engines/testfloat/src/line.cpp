// Reading and writing TestFloat lines.
#include "fpconform/testfloat/line.hpp"

namespace fpconform::testfloat {

namespace {

constexpr char kHexUpper[] = "0123456789ABCDEF";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// A field as a message shows it: control bytes as \xNN, since a NUL would end the message there.
std::string shown(std::string_view field) {
  std::string out;
  for (char c : field) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) {
      static const char* const kHex = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::string count_of(int n, const char* unit) {
  return std::to_string(n) + " " + unit + (n == 1 ? "" : "s");
}

std::string field_names(const Signature& sig) {
  std::string s = sig.arity() == 1 ? "operand" : "";
  if (sig.arity() > 1)
    for (int i = 0; i < sig.arity(); ++i) s += (i ? " op" : "op") + std::to_string(i + 1);
  return s;
}

}  // namespace

const Format& bool_format() {
  static const Format f = [] {
    Format b;
    b.name = "bool";
    b.exp_bits = 0;
    b.man_bits = 1;
    b.is_signed = false;
    b.subnormals = false;
    b.inf = InfEncoding::none;
    b.nan = NanEncoding::none;
    return b;
  }();
  return f;
}

char* put_hex(char* out, std::uint64_t v, int digits) {
  for (int i = digits - 1; i >= 0; --i) {
    out[i] = kHexUpper[v & 15];
    v >>= 4;
  }
  return out + digits;
}

std::string to_hex(std::uint64_t v, int digits) {
  std::string s(static_cast<std::size_t>(digits), '0');
  put_hex(s.data(), v, digits);
  return s;
}

bool parse_hex_field(std::string_view field, int digits, int bits, std::uint64_t& out,
                     std::string& error, std::string_view format_name) {
  std::string quoted(1, '\'');  // built by appending: GCC 12 warns (-Wrestrict) on "'" + s
  quoted.append(shown(field)).push_back('\'');
  if (static_cast<int>(field.size()) != digits) {
    error = quoted + ": expected " + count_of(digits, "hex digit");
    if (!format_name.empty())
      error += " for " + std::string(format_name) + " (" + count_of(bits, "bit") + ")";
    error += ", got " + std::to_string(field.size());
    return false;
  }
  std::uint64_t v = 0;
  for (char c : field) {
    const int d = hex_value(c);
    if (d < 0) {
      error = quoted + ": not a hex number";
      return false;
    }
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  if (bits < 64 && (v >> bits) != 0) {
    error = quoted + ": does not fit in " + count_of(bits, "bit");
    if (!format_name.empty()) error += " (" + std::string(format_name) + ")";
    return false;
  }
  out = v;
  return true;
}

std::string parse_line(std::string_view text, const Signature& sig, LineKind kind, Line& out) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  std::string_view fields[kMaxArity + 3];
  int count = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size()) break;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (count < kMaxArity + 3) fields[count] = text.substr(start, i - start);
    ++count;
  }
  const int n = sig.arity();
  const bool complete = count == n + 2;
  if (!(complete || (kind == LineKind::operands_or_complete && count == n))) {
    std::string want = std::to_string(n + 2) + " fields (" + field_names(sig) + " result flags)";
    if (kind == LineKind::operands_or_complete)
      want = std::to_string(n) + " or " + want;
    return "expected " + want + ", got " + std::to_string(count);
  }
  std::string error;
  for (int k = 0; k < n; ++k) {
    const Format& f = sig.operands[static_cast<std::size_t>(k)];
    if (!parse_hex_field(fields[k], f.hex_digits(), f.width(), out.operands[static_cast<std::size_t>(k)],
                         error, f.name))
      return "field " + std::to_string(k + 1) + " " + error;
  }
  out.has_result = complete;
  if (!complete) return {};
  if (!parse_hex_field(fields[n], sig.result_hex_digits(), sig.result.width(), out.result, error,
                       sig.result.name))
    return "field " + std::to_string(n + 1) + " (result) " + error;
  std::uint64_t flags = 0;
  if (!parse_hex_field(fields[n + 1], kFlagDigits, 8, flags, error))
    return "field " + std::to_string(n + 2) + " (flags) " + error;
  if (flags & ~std::uint64_t{kFlagMask})
    return "field " + std::to_string(n + 2) + " (flags) '" + shown(fields[n + 1]) +
           "': bits outside TestFloat's mask 1F";
  out.flags = static_cast<std::uint8_t>(flags);
  return {};
}

std::size_t format_capacity(const Signature& sig) {
  std::size_t c = static_cast<std::size_t>(sig.result_hex_digits() + 1 + kFlagDigits);
  for (const auto& f : sig.operands) c += static_cast<std::size_t>(f.hex_digits() + 1);
  return c;
}

char* format_line(char* out, const Signature& sig, const std::uint64_t* operands,
                  std::uint64_t result, std::uint8_t flags) {
  for (int k = 0; k < sig.arity(); ++k) {
    out = put_hex(out, operands[k], sig.operands[static_cast<std::size_t>(k)].hex_digits());
    *out++ = ' ';
  }
  out = put_hex(out, result, sig.result_hex_digits());
  *out++ = ' ';
  return put_hex(out, flags, kFlagDigits);
}

std::string format_line(const Signature& sig, const std::uint64_t* operands,
                        std::uint64_t result, std::uint8_t flags) {
  std::string s(format_capacity(sig), ' ');
  char* end = format_line(s.data(), sig, operands, result, flags);
  s.resize(static_cast<std::size_t>(end - s.data()));
  return s;
}

}  // namespace fpconform::testfloat
