// Formatting and checking of the bench lines (see line.hpp). Values are printed with 4
// significant digits, enough to read a ratio and short enough to scan.
#include "fpconform/bench/line.hpp"

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>

namespace fpconform::bench {

double Comparison::ratio() const {
  if (ours <= 0 || baseline <= 0) return 0;
  return time_unit ? baseline / ours : ours / baseline;
}

namespace {
std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
double printed(double v) { return std::strtod(num(v).c_str(), nullptr); }
}  // namespace

// Decided on the printed figures, so that a reader (and check_output) reaches the same verdict.
bool Comparison::ok() const { return printed(ratio()) >= printed(target); }

std::string format_line(const Comparison& c) {
  return c.name + " ours=" + num(c.ours) + " " + c.unit + " baseline=" + c.baseline_name + " " +
         num(c.baseline) + " " + c.unit + " ratio=" + num(c.ratio()) + " target=" +
         num(c.target) + " " + (c.ok() ? "ok" : "SHORT");
}

std::string format_summary(const std::vector<Comparison>& all) {
  std::size_t ok = 0;
  for (const Comparison& c : all) ok += c.ok() ? 1 : 0;
  return std::to_string(ok) + " ok, " + std::to_string(all.size() - ok) + " short";
}

std::string check_output(std::string_view text) {
  static const std::regex line(
      R"(^(\S+) ours=(\S+) (\S+) baseline=(\S+) (\S+) (\S+) ratio=(\S+) target=(\S+) (ok|SHORT)$)");
  static const std::regex last(R"(^(\d+) ok, (\d+) short$)");
  std::istringstream in{std::string(text)};
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  if (lines.empty()) return "no output";
  std::size_t ok = 0, shortfall = 0;
  auto number = [](const std::string& s, double& v) {
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size();
  };
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    std::smatch m;
    const std::string where = "line " + std::to_string(i + 1) + ": ";
    if (!std::regex_match(lines[i], m, line)) return where + "does not match the grammar: " + lines[i];
    double ours, base, ratio, target;
    if (!number(m[2], ours) || !number(m[5], base) || !number(m[7], ratio) || !number(m[8], target))
      return where + "a value is not a number: " + lines[i];
    if (m[3] != m[6]) return where + "ours and the baseline differ in unit: " + lines[i];
    // The verdict follows the printed ratio and target (both rounded the same way).
    const bool is_ok = m[9] == "ok";
    if (is_ok != (ratio >= target)) return where + "verdict disagrees with ratio and target";
    (is_ok ? ok : shortfall) += 1;
  }
  std::smatch m;
  if (!std::regex_match(lines.back(), m, last)) return "last line is not 'N ok, M short': " + lines.back();
  if (std::stoul(m[1]) != ok || std::stoul(m[2]) != shortfall)
    return "last line counts " + lines.back() + ", the lines above give " + std::to_string(ok) +
           " ok, " + std::to_string(shortfall) + " short";
  return "";
}

}  // namespace fpconform::bench
