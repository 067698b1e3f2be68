// Markdown, JSON and CSV writers of a report Document.
#include <filesystem>

#include "fpconform/core/error.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "fpconform/reports/document.hpp"

namespace fpconform::reports {
namespace {


std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void table_md(std::string& md, const Table& t) {
  if (t.detail) {
    md += "### " + t.title + "\n\n" + std::to_string(t.rows.size()) + " rows: [tables/" + t.id +
          ".csv](tables/" + t.id + ".csv)\n\n";
    return;
  }
  md += "### " + t.title + "\n\n|";
  for (const auto& c : t.columns) {
    md += ' ';
    md += markdown_cell(c);
    md += " |";
  }
  md += "\n|";
  for (std::size_t i = 0; i < t.columns.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& r : t.rows) {
    md += "|";
    for (const auto& c : r) {
      md += ' ';
      md += markdown_cell(c);
      md += " |";
    }
    md += "\n";
  }
  if (!t.note.empty()) md += "\n" + t.note + "\n";
  md += "\n";
}

}  // namespace

std::string markdown_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string to_markdown(const Document& d) {
  std::string md = "# " + d.title + "\n\n";
  for (const auto& h : d.header) md += "- " + h + "\n";
  md += "\n";
  for (const auto& s : d.sections) {
    md += "## " + s.title + (s.ok ? "" : " (FAILED)") + (s.skipped.empty() ? "" : " (not run)") + "\n\n";
    if (!s.ok && !s.failure.empty()) md += "**Failed:** " + s.failure + "\n\n";
    if (!s.skipped.empty()) md += "Not run: " + s.skipped + "\n\n";
    for (const auto& p : s.paragraphs) md += p + "\n\n";
    for (const auto& t : s.tables) table_md(md, t);
    for (const auto& p : s.plots) {
      // Markdown has no plots: the data as a table, so nothing is lost.
      Table t{p.id, p.title + " (plot data)", {p.x_label}, {}, p.note};
      for (const auto& ser : p.series) t.columns.push_back(ser.name);
      const std::size_t n = p.series.empty() ? 0 : p.series[0].x.size();
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<std::string> row{p.x_categories.size() > i ? p.x_categories[i]
                                                               : nlohmann::json(p.series[0].x[i]).dump()};
        for (const auto& ser : p.series)
          row.push_back(i < ser.y.size() ? nlohmann::json(ser.y[i]).dump() : "");
        t.rows.push_back(row);
      }
      table_md(md, t);
    }
    for (const auto& h : s.heatmaps) {
      Table t{h.id, h.title + " (" + h.value_label + ")", {""}, {}, h.note};
      for (const auto& c : h.col_labels) t.columns.push_back(c);
      for (std::size_t r = 0; r < h.row_labels.size(); ++r) {
        std::vector<std::string> row{h.row_labels[r]};
        for (double v : h.values[r]) {
          char buf[32];
          std::snprintf(buf, sizeof buf, v != v ? "n/a" : "%.3f", v);
          row.push_back(buf);
        }
        t.rows.push_back(row);
      }
      table_md(md, t);
    }
  }
  return md;
}

nlohmann::json to_json(const Document& d) {
  nlohmann::json sections = nlohmann::json::array();
  for (const auto& s : d.sections) sections.push_back(section_to_json(s));
  return {{"schema", kResultsSchema}, {"title", d.title}, {"header", d.header}, {"sections", sections}};
}

std::string to_csv(const Table& t) {
  std::string out;
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    if (i) out += ',';
    out += csv_cell(t.columns[i]);
  }
  out += "\n";
  for (const auto& r : t.rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (i) out += ',';
      out += csv_cell(r[i]);
    }
    out += "\n";
  }
  return out;
}

void write_report(const Document& d, const std::string& dir) {
  prepare_output_dir(dir, "--out");
  prepare_output_dir((std::filesystem::path(dir) / "tables").string(), "--out");
  const std::filesystem::path p(dir);
  for (const auto& s : d.sections)
    for (const auto& t : s.tables) write_file_atomically((p / "tables" / (t.id + ".csv")).string(), to_csv(t), "--out");
  write_file_atomically((p / "results.json").string(), to_json(d).dump(2) + "\n", "--out");
  write_file_atomically((p / "report.md").string(), to_markdown(d), "--out");
  // index.html last: its presence means the report is complete.
  write_file_atomically((p / "index.html").string(), to_html(d), "--out");
}

}  // namespace fpconform::reports
