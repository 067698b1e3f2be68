#include "fpconform/characterize/device_profile.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "fpconform/characterize/unit_json.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "fpconform/reports/document.hpp"

namespace fpconform::characterize {
namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

nlohmann::json case_json(const DotCase& c) {
  nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array();
  for (std::uint64_t x : c.a) a.push_back(hex(x));
  for (std::uint64_t x : c.b) b.push_back(hex(x));
  return {{"a", a}, {"b", b}, {"c", hex(c.c)}, {"d", hex(c.d)}};
}

// One case as a line `fpconform dot` reads (a..., b..., c, expected d).
std::string case_line(const DotCase& c) {
  std::string s;
  for (std::uint64_t x : c.a) s += hex(x).substr(2) + " ";
  for (std::uint64_t x : c.b) s += hex(x).substr(2) + " ";
  return s + hex(c.c).substr(2) + " " + hex(c.d).substr(2);
}

}  // namespace

nlohmann::json device_profile_json(const Characterization& c,
                                   std::string_view fpconform_version) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : describe_params(c.model)) params[k] = v;
  nlohmann::json evidence = nlohmann::json::array();
  for (const auto& e : c.evidence) {
    nlohmann::json cases = nlohmann::json::array();
    for (const auto& x : e.cases) cases.push_back(case_json(x));
    evidence.push_back(
        {{"probe", e.probe}, {"finding", e.finding}, {"proves", e.proves}, {"cases", cases}});
  }
  nlohmann::json counter = nlohmann::json::array();
  for (const auto& x : c.counterexamples) counter.push_back(case_json(x));
  nlohmann::json formats = {{"in", c.in.name}, {"out", c.out.name}};
  if (c.b) formats["b"] = c.b->name;
  return {{"schema", "fpconform.device-profile/1"},
          {"fpconform_version", fpconform_version},
          {"target", c.target},
          {"formats", formats},
          {"model",
           {{"spec", c.model_spec},
            {"stages", unit_stages_json<nlohmann::json>(raise(c.model))},
            {"params", params}}},
          {"verdict", c.verdict},
          {"expressible", c.expressible},
          {"deterministic", c.deterministic},
          {"validation", {{"cases", c.validated}, {"agreed", c.agreed}, {"counterexamples", counter}}},
          {"queries", c.queries},
          {"seconds", c.seconds},
          {"evidence", evidence}};
}

std::string device_profile_markdown(const Characterization& c,
                                    std::string_view fpconform_version) {
  std::ostringstream md;
  md << "# " << c.target << ": " << c.formats_text() << "\n\n";
  md << c.verdict << "\n\n";
  md << "- Model: `" << c.model_spec << "`\n";
  md << "- Validation: the model agrees on " << c.agreed << "/" << c.validated
     << " fresh random and adversarial cases\n";
  md << "- Deterministic: " << (c.deterministic ? "yes" : "no (identical calls differed)") << "\n";
  md << "- Queries: " << c.queries << " dot products, " << c.seconds << " s\n";
  md << "- fpconform " << fpconform_version << "\n\n";
  md << "## Evidence\n\n| probe | finding | why |\n|---|---|---|\n";
  for (const auto& e : c.evidence)
    md << "| " << reports::markdown_cell(e.probe) << " | " << reports::markdown_cell(e.finding) << " | "
       << reports::markdown_cell(e.proves) << " |\n";
  if (!c.counterexamples.empty()) {
    md << "\n## Cases the model does not reproduce\n\nEach line is `a... b... c d` (hex codes), "
          "as `fpconform dot --check` reads it:\n\n```\n";
    for (const auto& x : c.counterexamples) md << case_line(x) << "\n";
    md << "```\n";
  }
  md << "\nReproduce any row: `fpconform dot --model '" << c.model_spec << "' --in " << c.in.name
     << (c.b ? " --b-format " + c.b->name : "") << " --out " << c.out.name
     << " --check` with lines `a... b... c d` from the JSON's "
        "evidence.\n";
  return md.str();
}

std::string device_profile_stem(const Characterization& c) {
  std::string stem =
      c.target + "." + c.in.name + (c.b ? "x" + c.b->name : "") + "-" + c.out.name;
  for (char& ch : stem) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
    if (!ok) ch = '-';
  }
  return stem;
}

std::string write_device_profile(const Characterization& c, const std::string& dir,
                                 std::string_view fpconform_version) {
  reports::prepare_output_dir(dir, "--out-dir");
  const std::string stem = (std::filesystem::path(dir) / device_profile_stem(c)).string();
  reports::write_file_atomically(stem + ".json", device_profile_json(c, fpconform_version).dump(2) + "\n",
                        "--out-dir");
  reports::write_file_atomically(stem + ".md", device_profile_markdown(c, fpconform_version), "--out-dir");
  return stem + ".json";
}

}  // namespace fpconform::characterize
