// The formats the conformance tests sweep.
#pragma once

#include <cctype>
#include <string>
#include <vector>

#include "fpconform/core/format.hpp"

namespace conftest {

// P3109 formats and a custom spec used both as sources and as targets.
inline std::vector<std::string> extra_format_names() {
  return {"binary8p1se", "binary8p3se", "binary8p4sf", "binary8p5se", "binary8p7sf",
          "binary6p3sf", "binary4p2se", "binary8p4ue", "binary8p1uf",
          "custom:e=4,m=3,bias=5,inf=ieee,nan=ieee"};
}

// Every source of <= 16 bits: the built-ins of <= 16 bits plus the extras.
inline std::vector<std::string> narrow_source_names() {
  std::vector<std::string> v;
  for (const auto& f : fpconform::builtin_formats())
    if (f.width() <= 16) v.push_back(f.name);
  for (auto& s : extra_format_names()) v.push_back(s);
  return v;
}

// Sources of <= 8 bits (everything narrow but f16 and bf16).
inline std::vector<std::string> byte_source_names() {
  std::vector<std::string> v;
  for (auto& s : narrow_source_names())
    if (fpconform::parse_format(s).width() <= 8) v.push_back(s);
  return v;
}

// Every target: all built-ins plus the extras.
inline std::vector<std::string> all_target_names() {
  std::vector<std::string> v;
  for (const auto& f : fpconform::builtin_formats()) v.push_back(f.name);
  for (auto& s : extra_format_names()) v.push_back(s);
  return v;
}

// Targets of <= 16 bits.
inline std::vector<std::string> narrow_target_names() { return narrow_source_names(); }

// A gtest-safe name for a format ("custom:e=4,..." -> "custom_e4m3b5").
inline std::string test_name(const std::string& s) {
  std::string o;
  for (char c : s) o += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return o;
}

}  // namespace conftest
