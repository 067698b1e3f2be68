// The matrix and FMA units of this machine, characterized as black boxes (cpu: targets);
// units the CPU lacks are listed with the reason.
#include <cstdio>

#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/target.hpp"
#include "fpconform/report/report_content.hpp"

namespace fpconform::report {

reports::Section matrix_units_section(const ReportRun& run) {
  reports::Section s;
  s.id = "matrix-units";
  s.title = "This machine's units, characterized";
  reports::Table units{"matrix-units", "cpu: targets", {"target", "in -> out", "model", "agreed / validated", "queries", "seconds", "verdict"}, {}, ""};
  nlohmann::json results = nlohmann::json::array();
  for (const std::string& name : characterize::cpu_target_names()) {
    auto t = characterize::make_target(name);
    const std::string io = t->in().name + " -> " + t->out().name;
    if (const std::string why = t->unavailable(); !why.empty()) {
      units.rows.push_back({name, io, "", "", "", "", "not here: " + why});
      results.push_back({{"target", name}, {"available", false}, {"reason", why}});
      continue;
    }
    characterize::CharacterizeOptions o;
    o.seed = run.seed;
    o.validation_cases = run.quick ? 20000 : 1000000;
    const auto c = characterize::characterize(*t, o);
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", c.seconds);
    units.rows.push_back({name, io, c.model_spec, std::to_string(c.agreed) + " / " + std::to_string(c.validated),
                          std::to_string(c.queries), secs, c.verdict});
    results.push_back({{"target", name}, {"available", true}, {"model", c.model_spec},
                       {"agreed", c.agreed}, {"validated", c.validated}, {"deterministic", c.deterministic}});
    if (c.agreed != c.validated || !c.expressible) s.ok = false;
  }
  s.paragraphs.push_back("Each available unit is probed through its own instructions, a model of the "
                         "fused dot-product family is synthesized from the evidence, and the model is "
                         "validated on fresh random and adversarial cases (`fpconform probe --target "
                         "cpu:...` gives the full evidence).");
  s.tables.push_back(std::move(units));
  s.results = results;
  return s;
}

}  // namespace fpconform::report
