// list_scale_rules and compare_rules (see quantize_lib.hpp).
#include "quantize_lib.hpp"

#include <nlohmann/json.hpp>

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

}  // namespace

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
