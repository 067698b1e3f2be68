// A report as data: sections of text, tables, plots and heat maps. One document is written as
// a self-contained index.html (inline SVG, no network), report.md, results.json and one CSV per
// table, so every writer shows the same numbers.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fpconform::reports {

struct Table {
  std::string id;  // file name of its CSV (tables/<id>.csv) and HTML anchor
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::string note;
  // A long table kept for the record: written to tables/<id>.csv and results.json; the HTML and
  // Markdown link to the CSV instead of showing it.
  bool detail = false;
};

struct Series {
  std::string name;
  std::vector<double> x, y;
};

struct Plot {
  enum class Kind { lines, bars };
  std::string id, title, x_label, y_label;
  Kind kind = Kind::lines;
  bool log_x = false, log_y = false;
  std::vector<Series> series;     // bars: one series, x are category indices
  std::vector<std::string> x_categories;  // bars: labels of the bars
  std::string note;
};

struct HeatMap {
  std::string id, title;
  std::vector<std::string> row_labels, col_labels;
  std::vector<std::vector<double>> values;  // rows x cols, in [0, 1] (fraction), NaN: n/a
  std::string value_label;                  // "fraction of inputs that differ"
  std::string note;
};

struct Section {
  std::string id, title;
  std::vector<std::string> paragraphs;
  std::vector<Table> tables;
  std::vector<Plot> plots;
  std::vector<HeatMap> heatmaps;
  nlohmann::json results;  // the section's machine-readable results (results.json)
  bool ok = true;          // false: something in it failed a check
  std::string failure;     // when !ok: what failed, in one line (the report's header repeats it)
  std::string skipped;     // not empty: the section was not run, and why ("--skip-section ...")
};

struct Document {
  std::string title;
  std::vector<std::string> header;  // lines under the title: version, machine, seed, time taken
  std::vector<Section> sections;
};

// The schema version of results.json (reports/SCHEMA.md).
inline constexpr const char* kResultsSchema = "fpconform.report/1";

std::string to_markdown(const Document& d);
std::string to_html(const Document& d);
nlohmann::json to_json(const Document& d);
// One section as results.json holds it, with every field (so that it reads back unchanged);
// NaN is null and infinities are "inf" / "-inf".
nlohmann::json section_to_json(const Section& s);
// The inverse; throws Error naming `where` (and the section and key) when j is not such a section.
Section section_from_json(const nlohmann::json& j, const std::string& where);
std::string to_csv(const Table& t);
// One cell of a Markdown table: newlines as spaces, '|' escaped.
std::string markdown_cell(std::string_view s);

// Writes index.html, report.md, results.json and tables/<id>.csv into `dir` (created), each
// atomically. Throws Error naming "--out" when the directory cannot be written.
void write_report(const Document& d, const std::string& dir);

}  // namespace fpconform::reports
