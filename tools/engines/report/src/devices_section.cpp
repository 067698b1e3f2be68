// Every device profile recorded under reports/devices/ (fpconform probe writes them).
#include <filesystem>
#include <fstream>

#include "fpconform/report/report_content.hpp"

namespace fpconform::report {

reports::Section devices_section(const ReportRun& run) {
  reports::Section s;
  s.id = "devices";
  s.title = "Device profiles";
  reports::Table t{"devices", "Characterized matrix units (reports/devices)",
                   {"profile", "target", "in -> out", "model", "agreed / validated", "deterministic"}, {}, ""};
  nlohmann::json results = nlohmann::json::array();
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!run.devices_dir.empty() && std::filesystem::is_directory(run.devices_dir, ec))
    for (const auto& e : std::filesystem::recursive_directory_iterator(run.devices_dir, ec))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string rel = std::filesystem::relative(path, run.devices_dir, ec).string();
    std::ifstream in(path);
    const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "fpconform.device-profile/1") {
      // Raw results and other files live beside the profiles; only profiles are tabulated.
      continue;
    }
    const auto& v = j["validation"];
    // A profile that says no model reproduces its unit claims no agreement: it is tabulated as a
    // finding about the unit, not checked as a model.
    const bool claims_model = j.value("expressible", true) && j.value("deterministic", false);
    t.rows.push_back({rel, j.value("target", "?"),
                      j["formats"].value("in", "?") + " -> " + j["formats"].value("out", "?"),
                      claims_model ? j["model"].value("spec", "?")
                                   : "none (best: " + j["model"].value("spec", "?") + ")",
                      std::to_string(v.value("agreed", 0ull)) + " / " + std::to_string(v.value("cases", 0ull)),
                      j.value("deterministic", false) ? "yes" : "no"});
    results.push_back({{"file", rel}, {"target", j.value("target", "")}, {"model", j["model"].value("spec", "")},
                       {"agreed", v.value("agreed", 0ull)}, {"validated", v.value("cases", 0ull)}});
    if (claims_model && v.value("agreed", 0ull) != v.value("cases", 0ull)) {
      s.ok = false;
      s.failure += (s.failure.empty() ? "" : "; ") + rel + ": model " + j["model"].value("spec", "?") +
                   " agrees on " + std::to_string(v.value("agreed", 0ull)) + " of " +
                   std::to_string(v.value("cases", 0ull)) + " recorded cases";
    }
  }
  s.paragraphs.push_back(t.rows.empty() ? "No device profiles recorded under " + run.devices_dir + " yet."
                                        : std::to_string(t.rows.size()) + " profiles under " + run.devices_dir + ".");
  s.tables.push_back(std::move(t));
  s.results = results;
  return s;
}

}  // namespace fpconform::report
