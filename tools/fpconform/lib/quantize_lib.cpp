// parse_block_spec and list_scale_rules (see quantize_lib.hpp).
#include "quantize_lib.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>

#include "fpconform/core/error.hpp"

namespace fpconform::cli {

namespace {

std::string_view choice_name(ScaleChoice c) {
  switch (c) {
    case ScaleChoice::floor_log2_minus_emax: return "2^(floor(log2 amax) - emax_elem)";
    case ScaleChoice::ceil_pow2_of_ratio: return "2^ceil(log2(amax / max_elem))";
    case ScaleChoice::ratio: return "amax / max_elem";
  }
  return "?";
}

int to_positive(std::string_view v, std::string_view what, const std::string& whole) {
  int n = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size() || n < 1)
    throw Error(std::string(what), "'" + whole + "': tile sizes are positive integers (tile:1x128)");
  return n;
}

}  // namespace

BlockSpec parse_block_spec(std::string_view text, std::string_view axis, std::string_view what) {
  BlockSpec b;
  const std::string t(text);
  if (t == "mxfp8") b = {"e4m3", 1, 32, "ocp", false};
  else if (t == "mxfp8-e5m2") b = {"e5m2", 1, 32, "ocp", false};
  else if (t == "mxfp6") b = {"e2m3", 1, 32, "ocp", false};
  else if (t == "mxfp6-e3m2") b = {"e3m2", 1, 32, "ocp", false};
  else if (t == "mxfp4") b = {"e2m1", 1, 32, "ocp", false};
  else if (t == "nvfp4") b = {"e2m1", 1, 16, "nvfp4", true};
  else if (t.rfind("tile:", 0) == 0) {
    const std::string_view dims = std::string_view(t).substr(5);
    const std::size_t x = dims.find('x');
    if (x == std::string_view::npos)
      throw Error(std::string(what), "'" + t + "': expected tile:RxC (tile:1x128, tile:128x128)");
    b = {"e4m3", to_positive(dims.substr(0, x), what, t), to_positive(dims.substr(x + 1), what, t),
         "tile", false};
    return b;  // a tile names both dimensions; --axis does not apply
  } else {
    throw Error(std::string(what), "unknown block '" + t +
                                       "' (known: mxfp8, mxfp8-e5m2, mxfp6, mxfp6-e3m2, mxfp4, "
                                       "nvfp4, tile:RxC)");
  }
  if (axis == "cols") std::swap(b.block_rows, b.block_cols);
  else if (axis != "rows") throw Error("--axis", "'" + std::string(axis) + "' is not rows or cols");
  return b;
}

std::string list_scale_rules(bool json) {
  if (json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const ScaleRule& r : scale_rules())
      arr.push_back({{"name", r.name},
                     {"scale_format", r.scale_format},
                     {"scale", choice_name(r.choice)},
                     {"scale_rounding", to_string(r.scale_mode)},
                     {"element", r.default_element},
                     {"block", r.default_block},
                     {"element_rounding", to_string(r.element_mode)},
                     {"element_saturation", to_string(r.element_sat)},
                     {"tensor_scale_format", r.tensor_scale_format},
                     {"source", r.source}});
    return arr.dump(2) + "\n";
  }
  std::string out;
  char line[1024];
  for (const ScaleRule& r : scale_rules()) {
    std::snprintf(line, sizeof line, "%-13s scale %-6s = %-34s elements %-5s x%-3d %-4s %s\n  %s\n",
                  r.name.c_str(), r.scale_format.c_str(), std::string(choice_name(r.choice)).c_str(),
                  r.default_element.c_str(), r.default_block,
                  std::string(to_string(r.element_mode)).c_str(),
                  r.tensor_scale_format.empty() ? "" : ("+ tensor scale " + r.tensor_scale_format).c_str(),
                  r.source.c_str());
    out += line;
  }
  return out;
}

std::string compare_rules(const Matrix& x, const BlockSpec& spec,
                          const std::vector<std::string>& rules) {
  if (rules.empty()) throw Error("--compare", "name at least one rule");
  const Format f32 = parse_format("f32");
  const Format elem = parse_format(spec.element);
  struct Row {
    std::string name;
    double sqnr_db = 0, max_rel = 0;
    std::size_t scale_diff = 0, value_diff = 0, blocks = 0;
  };
  std::vector<Row> rows;
  std::vector<double> first_values, first_scales;
  for (const std::string& name : rules) {
    const ScaleRule& rule = find_scale_rule(name, "--compare");
    const QuantizedMatrix q =
        quantize_matrix(x.codes, x.rows, x.cols, f32, elem, rule, spec.block_rows, spec.block_cols,
                        spec.tensor_scale && !rule.tensor_scale_format.empty());
    const DequantizedBlock d = dequantize_matrix(q, elem, rule, f32);
    Row r;
    r.name = name;
    r.blocks = q.scales.size();
    double signal = 0, noise = 0;
    std::vector<double> values(d.values.size()), scales(q.scales.size());
    for (std::size_t i = 0; i < d.values.size(); ++i) {
      const double v = to_double(x.codes[i], f32), y = to_double(d.values[i], f32);
      values[i] = y;
      if (std::isnan(v) || std::isinf(v)) continue;
      signal += v * v;
      noise += (v - y) * (v - y);
      if (v != 0) r.max_rel = std::max(r.max_rel, std::fabs((v - y) / v));
    }
    const Format sf = rule_scale_format(rule);
    for (std::size_t i = 0; i < q.scales.size(); ++i) scales[i] = to_double(q.scales[i], sf);
    r.sqnr_db = noise == 0 ? INFINITY : 10 * std::log10(signal / noise);
    if (rows.empty()) {
      first_values = values;
      first_scales = scales;
    } else {
      for (std::size_t i = 0; i < values.size(); ++i)
        if (!(values[i] == first_values[i] || (std::isnan(values[i]) && std::isnan(first_values[i]))))
          ++r.value_diff;
      for (std::size_t i = 0; i < scales.size() && i < first_scales.size(); ++i)
        if (!(scales[i] == first_scales[i] || (std::isnan(scales[i]) && std::isnan(first_scales[i]))))
          ++r.scale_diff;
    }
    rows.push_back(r);
  }
  std::string out = "rule           SQNR dB   max rel err   scales differing   values differing   (vs " +
                    rules[0] + ")\n";
  char line[256];
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "%-13s %8.2f   %11.3g   %8zu / %-7zu   %8zu / %zu\n", r.name.c_str(),
                  r.sqnr_db, r.max_rel, r.scale_diff, r.blocks, r.value_diff,
                  static_cast<std::size_t>(x.rows) * x.cols);
    out += line;
  }
  return out;
}

}  // namespace fpconform::cli
