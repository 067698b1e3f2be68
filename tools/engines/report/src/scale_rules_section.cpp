// The block-scale rules: what each is (element, scale, block, rounding, source), and what it
// costs on generated data (SQNR, and how often it disagrees with OCP's rule).
#include <cstdio>

#include "fpconform/conformance/conversion.hpp"
#include "fpconform/report/report_content.hpp"

namespace fpconform::report {

reports::Section scale_rules_section(const ReportRun& run) {
  const auto rep = conformance::run_scale_rule_report(run.seed);
  reports::Section s;
  s.id = "scale-rules";
  s.title = "Block-scale rules (MX, NVFP4, tiles)";
  reports::Table rules{"scale-rules", "The rules, as data",
                       {"rule", "element", "scale format", "block", "scale", "element rounding",
                        "saturation", "source"}, {}, ""};
  for (const auto& r : rep.rules)
    rules.rows.push_back({r.name, r.element, r.scale_format, std::to_string(r.block), r.scale,
                          r.element_rounding, r.element_saturation, r.source});
  reports::Table cost{"scale-rule-cost",
                      "Each rule on " + std::to_string(rep.rows) + "x" + std::to_string(rep.cols) +
                          " generated f32 data (blocks along rows)",
                      {"distribution", "geometry", "rule", "element", "SQNR dB", "max rel err",
                       "scales differing from ocp", "values differing from ocp"}, {}, ""};
  reports::Plot sqnr{"scale-rule-sqnr", "SQNR per rule and element format, normal data", "", "SQNR (dB)",
                     reports::Plot::Kind::bars, false, false, {{"normal", {}, {}}}, {}, ""};
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : rep.results) {
    char db[32], rel[32];
    std::snprintf(db, sizeof db, "%.2f", r.sqnr_db);
    std::snprintf(rel, sizeof rel, "%.3e", r.max_rel_err);
    auto count = [](std::int64_t v, std::uint64_t of) {
      return v < 0 ? std::string("n/a") : std::to_string(v) + "/" + std::to_string(of);
    };
    cost.rows.push_back({r.distribution, r.geometry, r.rule, r.element, db, rel,
                         count(r.scales_differing, r.blocks), count(r.values_differing, r.values)});
    if (r.distribution == "normal") {
      sqnr.x_categories.push_back(r.rule + " " + r.element);
      sqnr.series[0].x.push_back(static_cast<double>(sqnr.series[0].x.size()));
      sqnr.series[0].y.push_back(r.sqnr_db);
    }
    results.push_back({{"distribution", r.distribution}, {"geometry", r.geometry}, {"rule", r.rule},
                       {"element", r.element}, {"sqnr_db", r.sqnr_db}, {"max_rel_err", r.max_rel_err},
                       {"scales_differing", r.scales_differing}, {"values_differing", r.values_differing}});
  }
  s.paragraphs.push_back(
      "Libraries pick the shared scale differently (OCP's floor(log2 amax) - emax, RCEIL's "
      "rounding up, NVFP4's e4m3 scales under an fp32 tensor scale); `fpconform quantize "
      "--compare` shows the same for your own tensors.");
  s.plots.push_back(std::move(sqnr));
  s.tables.push_back(std::move(rules));
  s.tables.push_back(std::move(cost));
  s.results = results;
  return s;
}

}  // namespace fpconform::report
