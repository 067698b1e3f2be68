#include "fpconform/files/report_checkpoint.hpp"

#include "fpconform/core/error.hpp"

namespace fpconform::files {

std::string report_args(bool full, std::uint64_t seed, const std::string& devices_dir,
                        const std::string& version, const std::string& selection) {
  return std::string("run=") + (full ? "full" : "quick") + " seed=" + std::to_string(seed) +
         " devices=" + escape_field(devices_dir) + " version=" + escape_field(version) +
         (selection.empty() ? "" : " " + escape_field(selection));
}

void write_report_checkpoint(const std::string& path, const std::string& args,
                             const std::vector<reports::Section>& finished) {
  Checkpoint c{"report", args, {}, {}};
  for (const auto& s : finished) c.add("section", escape_field(reports::section_to_json(s).dump()));
  write_checkpoint(path, c);
}

std::vector<reports::Section> read_report_checkpoint(const std::string& path, const std::string& args) {
  const auto c = read_checkpoint(path, "report", args);
  return c ? report_sections_of(*c, path) : std::vector<reports::Section>{};
}

std::vector<reports::Section> report_sections_of(const Checkpoint& c, const std::string& path) {
  std::vector<reports::Section> kept;
  for (std::size_t i = 0; i < c.fields.size(); ++i) {
    const auto& [key, value] = c.fields[i];
    const std::string& place = c.place(i, path);
    if (key != "section") throw Error(place, "'" + key + "' is not a field of a report checkpoint");
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(unescape_field(value, place));
    } catch (const nlohmann::json::exception& e) {
      throw Error(place, std::string("the section is not JSON: ") + e.what());
    }
    kept.push_back(reports::section_from_json(j, place));
  }
  return kept;
}

}  // namespace fpconform::files
