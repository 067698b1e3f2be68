// `fpconform formats`: what each built-in format is, as rows for a table or JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fpconform/core/format.hpp"

namespace fpconform::files {

struct LimitValue {
  std::string code;   // "0x7e"
  std::string exact;  // exact decimal, "448"
  std::string hex;    // hex float, "0x1.cp+8"
};

struct FormatInfo {
  Format format;
  int width = 0;
  int emin = 0, emax = 0;
  LimitValue max_finite, min_normal;
  std::optional<LimitValue> min_subnormal;  // none without subnormals
  std::string inf_encoding;                 // none | ieee | top_code
  std::vector<std::string> inf_codes;       // "0x7c", "0xfc"
  std::string nan_encoding;                 // none | ieee | all_ones | negative_zero | max_code
  std::vector<std::string> nan_codes;       // codes or ranges "0x7c01-0x7fff"
  bool negative_zero = false;
  std::vector<std::string> aliases;
};

FormatInfo describe_format(const Format& f);
std::vector<FormatInfo> describe_builtin_formats();

// "0x7e": lower-case hex with the format's hex_digits().
std::string code_text(std::uint64_t code, const Format& f);

// The aligned table, followed by a note on the format families parse_format accepts.
std::string formats_table(const std::vector<FormatInfo>& rows);
nlohmann::json formats_json(const std::vector<FormatInfo>& rows);

}  // namespace fpconform::files
