// list_models and run_dot (see matrix_cmds_lib.hpp).
#include "matrix_cmds_lib.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <cinttypes>
#include <string_view>
#include <vector>

#include "cli_args.hpp"
#include "fpconform/characterize/unit_json.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/unit_model.hpp"

namespace fpconform::cli {

namespace {

std::string_view rule_name(OutputRule r) {
  switch (r) {
    case OutputRule::nvidia: return "f32 (RZ), f16/bf16 (RNE)";
    case OutputRule::f32: return "f32";
    case OutputRule::f64: return "f64";
    case OutputRule::f16: return "f16";
    case OutputRule::any: return "any";
    case OutputRule::fp8_e8m13: return "f32 (RZ), f16 (RNE, no accumulator cut)";
  }
  return "?";
}

// One hex word (optional 0x) holding a code of f.
std::uint64_t parse_code(std::string_view w, const Format& f, const std::string& where) {
  if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) w.remove_prefix(2);
  // Escaped: a NUL in the word would end the message there.
  if (w.empty() || w.size() > 16) throw Error(where, "'" + printable_message(w) + "' is not a hex code");
  std::uint64_t v = 0;
  for (char ch : w) {
    if (!std::isxdigit(static_cast<unsigned char>(ch)))
      throw Error(where, "'" + printable_message(w) + "' is not a hex code");
    v = v * 16 + static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0' : (std::tolower(ch) - 'a' + 10));
  }
  if (v & ~f.code_mask())
    throw Error(where, "0x" + std::string(w) + " does not fit in " + std::to_string(f.width()) +
                           "-bit " + f.name);
  return v;
}

}  // namespace

std::string list_models(bool json) {
  if (json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const MatrixUnitEntry& e : matrix_unit_entries()) {
      nlohmann::ordered_json params = nlohmann::ordered_json::object();
      for (const auto& [k, v] : describe_params(e.params)) {
        // Integers as numbers (booleans print as 0/1); names as strings.
        long n = 0;
        const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
        if (r.ec == std::errc() && r.ptr == v.data() + v.size()) params[k] = n;
        else params[k] = v;
      }
      arr.push_back({{"preset", e.preset},
                     {"input", e.input},
                     {"output", rule_name(e.output)},
                     {"source", e.source},
                     {"unit", unit_text(raise(e.params))},
                     {"stages", characterize::unit_stages_json(raise(e.params))},
                     {"params", params}});
    }
    return arr.dump(2) + "\n";
  }
  std::string out = "preset          input       structure   L   F   zero  acc  output                    source\n";
  char line[512];
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const FdpaParams& p = e.params;
    const auto d = describe_params(p);
    auto get = [&](std::string_view k) {
      for (const auto& [name, v] : d)
        if (name == k) return v;
      return std::string();
    };
    std::snprintf(line, sizeof line, "%-15s %-11s %-10s %3d %3d %5s %4s  %-25s %s\n",
                  std::string(e.preset).c_str(), std::string(e.input).c_str(),
                  get("structure").c_str(), p.block, p.frac_bits, get("zero_exp").c_str(),
                  p.acc_frac_bits >= 0 ? std::to_string(p.acc_frac_bits).c_str() : "-",
                  std::string(rule_name(e.output)).c_str(), std::string(e.source).c_str());
    out += line;
    out += "    " + unit_text(raise(p)) + "\n";
  }
  return out;
}

DotSummary run_dot(const FdpaParams& p, const FdpaFormats& f, bool check, std::FILE* input,
                   std::FILE* output) {
  const FdpaKernel kernel(p, f);
  const Format& out = f.d;
  DotSummary s;
  std::vector<std::string_view> words;
  std::vector<std::uint64_t> a, b;
  std::string line;
  long k = -1;
  char buf[1 << 16];
  std::uint64_t line_no = 0;
  std::string pending;
  while (std::fgets(buf, sizeof buf, input)) {
    pending += buf;
    if (pending.empty() || (pending.back() != '\n' && !std::feof(input))) continue;
    line.swap(pending);
    pending.clear();
    ++line_no;
    const std::string where = "line " + std::to_string(line_no);
    words.clear();
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      const std::size_t j = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i > j) words.emplace_back(line.data() + j, i - j);
    }
    if (words.empty()) continue;
    const std::size_t extra = check ? 2 : 1;
    if (words.size() < extra + 2 || (words.size() - extra) % 2 != 0)
      throw Error(where, "expected 2K+" + std::to_string(extra) + " words (a_0..a_{K-1} b_0..b_{K-1} c" +
                             (check ? " d" : "") + "), got " + std::to_string(words.size()));
    const long kk = static_cast<long>((words.size() - extra) / 2);
    if (k >= 0 && kk != k)
      throw Error(where, "K = " + std::to_string(kk) + " but earlier lines have K = " + std::to_string(k));
    k = kk;
    a.resize(k);
    b.resize(k);
    for (long t = 0; t < k; ++t) {
      a[t] = parse_code(words[t], f.a, where + ", a_" + std::to_string(t));
      b[t] = parse_code(words[k + t], f.b, where + ", b_" + std::to_string(t));
    }
    const std::uint64_t c = parse_code(words[2 * k], f.c, where + ", c");
    const std::uint64_t d = kernel.dot(a, b, c);
    ++s.lines;
    const int digits = out.hex_digits();
    if (check) {
      const std::uint64_t want = parse_code(words[2 * k + 1], out, where + ", d");
      if (want == d) {
        ++s.passed;
      } else {
        ++s.failed;
        std::fprintf(output, "%s: got %0*" PRIX64 " expected %0*" PRIX64 "\n", where.c_str(),
                     digits, d, digits, want);
      }
    } else {
      std::fprintf(output, "%0*" PRIX64 "\n", digits, d);
    }
  }
  if (check)
    std::fprintf(output, "%" PRIu64 " passed, %" PRIu64 " failed\n", s.passed, s.failed);
  return s;
}

}  // namespace fpconform::cli
