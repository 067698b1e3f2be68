// A report Section as JSON and back. results.json is written from section_to_json, and resumable
// `report` runs keep each finished section in its checkpoint as the same JSON: reading it back
// must give the section that was written, so every field is kept (notes, detail flags, plot
// kinds and scales), and numbers that JSON cannot spell are written as null (NaN) or the
// strings "inf" / "-inf".
#include <cmath>
#include <limits>

#include "fpconform/core/error.hpp"
#include "fpconform/reports/document.hpp"

namespace fpconform::reports {

using nlohmann::json;

namespace {

json number(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json numbers(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(number(x));
  return a;
}

// Reading: every access names the place (the section's id and the key) in its error.
struct Reader {
  std::string where;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(where, "'" + key + "' " + what);
  }
  const json& get(const json& o, const std::string& key) const {
    if (!o.is_object()) fail(key, "is in something that is not an object");
    const auto it = o.find(key);
    if (it == o.end()) fail(key, "is missing");
    return *it;
  }
  std::string text(const json& o, const std::string& key, bool optional = false) const {
    if (optional && (!o.is_object() || !o.contains(key))) return {};
    const json& v = get(o, key);
    if (!v.is_string()) fail(key, "is not a string");
    return v.get<std::string>();
  }
  bool flag(const json& o, const std::string& key, bool fallback) const {
    if (!o.is_object() || !o.contains(key)) return fallback;
    const json& v = get(o, key);
    if (!v.is_boolean()) fail(key, "is not true or false");
    return v.get<bool>();
  }
  std::vector<std::string> texts(const json& o, const std::string& key) const {
    const json& v = get(o, key);
    if (!v.is_array()) fail(key, "is not an array");
    std::vector<std::string> out;
    for (const json& x : v) {
      if (!x.is_string()) fail(key, "holds something that is not a string");
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  double num(const json& x, const std::string& key) const {
    if (x.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (x.is_number()) return x.get<double>();
    if (x == "inf") return std::numeric_limits<double>::infinity();
    if (x == "-inf") return -std::numeric_limits<double>::infinity();
    fail(key, "holds something that is not a number, null, \"inf\" or \"-inf\"");
  }
  std::vector<double> nums(const json& o, const std::string& key) const {
    const json& v = get(o, key);
    if (!v.is_array()) fail(key, "is not an array");
    std::vector<double> out;
    for (const json& x : v) out.push_back(num(x, key));
    return out;
  }
  const json& array(const json& o, const std::string& key) const {
    const json& v = get(o, key);
    if (!v.is_array()) fail(key, "is not an array");
    return v;
  }
};

}  // namespace

json section_to_json(const Section& s) {
  json tables = json::array();
  for (const auto& t : s.tables)
    tables.push_back({{"id", t.id}, {"title", t.title}, {"columns", t.columns}, {"rows", t.rows},
                      {"note", t.note}, {"detail", t.detail}});
  json plots = json::array();
  for (const auto& p : s.plots) {
    json series = json::array();
    for (const auto& ser : p.series)
      series.push_back({{"name", ser.name}, {"x", numbers(ser.x)}, {"y", numbers(ser.y)}});
    plots.push_back({{"id", p.id}, {"title", p.title}, {"x_label", p.x_label}, {"y_label", p.y_label},
                     {"kind", p.kind == Plot::Kind::bars ? "bars" : "lines"}, {"log_x", p.log_x},
                     {"log_y", p.log_y}, {"series", series}, {"x_categories", p.x_categories},
                     {"note", p.note}});
  }
  json heatmaps = json::array();
  for (const auto& h : s.heatmaps) {
    json values = json::array();
    for (const auto& row : h.values) values.push_back(numbers(row));
    heatmaps.push_back({{"id", h.id}, {"title", h.title}, {"rows", h.row_labels},
                        {"columns", h.col_labels}, {"values", values}, {"value_label", h.value_label},
                        {"note", h.note}});
  }
  return {{"id", s.id}, {"title", s.title}, {"ok", s.ok}, {"failure", s.failure},
          {"skipped", s.skipped}, {"paragraphs", s.paragraphs},
          {"results", s.results.is_null() ? json::object() : s.results},
          {"tables", tables}, {"plots", plots}, {"heatmaps", heatmaps}};
}

Section section_from_json(const json& j, const std::string& where) {
  Reader r{where};
  Section s;
  s.id = r.text(j, "id");
  r.where = where + ": section '" + s.id + "'";
  s.title = r.text(j, "title");
  s.ok = r.flag(j, "ok", true);
  s.failure = r.text(j, "failure", true);
  s.skipped = r.text(j, "skipped", true);
  s.paragraphs = r.texts(j, "paragraphs");
  s.results = r.get(j, "results");
  if (s.results.is_object() && s.results.empty()) s.results = json();  // as written from null
  for (const json& t : r.array(j, "tables")) {
    Table x;
    x.id = r.text(t, "id");
    x.title = r.text(t, "title");
    x.columns = r.texts(t, "columns");
    for (const json& row : r.array(t, "rows")) {
      if (!row.is_array()) r.fail("rows", "holds a row that is not an array");
      auto& out = x.rows.emplace_back();
      for (const json& c : row) {
        if (!c.is_string()) r.fail("rows", "holds a cell that is not a string");
        out.push_back(c.get<std::string>());
      }
    }
    x.note = r.text(t, "note", true);
    x.detail = r.flag(t, "detail", false);
    s.tables.push_back(std::move(x));
  }
  for (const json& p : r.array(j, "plots")) {
    Plot x;
    x.id = r.text(p, "id");
    x.title = r.text(p, "title");
    x.x_label = r.text(p, "x_label");
    x.y_label = r.text(p, "y_label");
    const std::string kind = r.text(p, "kind", true);
    if (kind != "" && kind != "lines" && kind != "bars") r.fail("kind", "is neither lines nor bars");
    x.kind = kind == "bars" ? Plot::Kind::bars : Plot::Kind::lines;
    x.log_x = r.flag(p, "log_x", false);
    x.log_y = r.flag(p, "log_y", false);
    for (const json& ser : r.array(p, "series"))
      x.series.push_back({r.text(ser, "name"), r.nums(ser, "x"), r.nums(ser, "y")});
    x.x_categories = r.texts(p, "x_categories");
    x.note = r.text(p, "note", true);
    s.plots.push_back(std::move(x));
  }
  for (const json& h : r.array(j, "heatmaps")) {
    HeatMap x;
    x.id = r.text(h, "id");
    x.title = r.text(h, "title");
    x.row_labels = r.texts(h, "rows");
    x.col_labels = r.texts(h, "columns");
    for (const json& row : r.array(h, "values")) {
      if (!row.is_array()) r.fail("values", "holds a row that is not an array");
      auto& out = x.values.emplace_back();
      for (const json& v : row) out.push_back(r.num(v, "values"));
    }
    x.value_label = r.text(h, "value_label", true);
    x.note = r.text(h, "note", true);
    s.heatmaps.push_back(std::move(x));
  }
  return s;
}

}  // namespace fpconform::reports
