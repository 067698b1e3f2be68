// The HTML writer: one self-contained page (inline CSS and SVG, no scripts, no network).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fpconform/reports/document.hpp"

namespace fpconform::reports {
namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

// Maps data to pixels on one axis, linear or log10.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double px0 = 0, px1 = 1;
  double map(double v) const {
    const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                         : (v - lo) / (hi - lo);
    return px0 + t * (px1 - px0);
  }
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      for (double e = std::floor(std::log10(lo)); e <= std::ceil(std::log10(hi)); ++e) {
        const double v = std::pow(10.0, e);
        if (v >= lo * 0.999 && v <= hi * 1.001) t.push_back(v);
      }
    } else {
      for (int i = 0; i <= 4; ++i) t.push_back(lo + (hi - lo) * i / 4);
    }
    return t;
  }
};

Axis make_axis(std::vector<double> values, bool log, double px0, double px1) {
  Axis a;
  a.log = log;
  a.px0 = px0;
  a.px1 = px1;
  values.erase(std::remove_if(values.begin(), values.end(),
                              [&](double v) { return !std::isfinite(v) || (log && v <= 0); }),
               values.end());
  if (values.empty()) return a;
  a.lo = *std::min_element(values.begin(), values.end());
  a.hi = *std::max_element(values.begin(), values.end());
  if (log) {
    a.lo = std::pow(10.0, std::floor(std::log10(a.lo)));
    a.hi = std::pow(10.0, std::ceil(std::log10(a.hi)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
  } else {
    if (a.lo > 0) a.lo = 0;
    if (a.hi <= a.lo) a.hi = a.lo + 1;
  }
  return a;
}

std::string plot_svg(const Plot& p) {
  const bool bars = p.kind == Plot::Kind::bars;
  const double w = 680, left = 70, right = 170, top = 20, bottom = bars ? 110 : 50;
  const double h = 290 + bottom;
  std::vector<double> xs, ys;
  for (const auto& s : p.series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  Axis ax = make_axis(xs, p.log_x && !bars, left, w - right);
  if (bars) {
    ax.lo = -0.5;
    ax.hi = std::max<double>(0.5, static_cast<double>(p.x_categories.size()) - 0.5);
  }
  Axis ay = make_axis(ys, p.log_y, h - bottom, top);
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" +
                  num(h) + "\" role=\"img\" aria-label=\"" + esc(p.title) + "\">\n";
  s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(w - left - right) +
       "\" height=\"" + num(h - top - bottom) + "\" fill=\"#fff\" stroke=\"#888\"/>\n";
  for (double t : ay.ticks()) {
    const double y = ay.map(t);
    s += "<line x1=\"" + num(left) + "\" x2=\"" + num(w - right) + "\" y1=\"" + num(y) + "\" y2=\"" +
         num(y) + "\" stroke=\"#eee\"/><text x=\"" + num(left - 4) + "\" y=\"" + num(y + 4) +
         "\" text-anchor=\"end\" font-size=\"11\">" + num(t) + "</text>\n";
  }
  if (bars) {
    for (std::size_t i = 0; i < p.x_categories.size(); ++i)
      s += "<text transform=\"translate(" + num(ax.map(static_cast<double>(i)) + 3) + "," +
           num(h - bottom + 10) + ") rotate(-45)\" text-anchor=\"end\" font-size=\"10\">" +
           esc(p.x_categories[i]) + "</text>\n";
  } else {
    for (double t : ax.ticks())
      s += "<text x=\"" + num(ax.map(t)) + "\" y=\"" + num(h - bottom + 14) +
           "\" text-anchor=\"middle\" font-size=\"11\">" + num(t) + "</text>\n";
  }
  s += "<text x=\"" + num((left + w - right) / 2) + "\" y=\"" + num(h - 12) +
       "\" text-anchor=\"middle\" font-size=\"12\">" + esc(p.x_label) + "</text>\n";
  s += "<text transform=\"translate(14," + num((top + h - bottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" + esc(p.y_label) + "</text>\n";
  for (std::size_t k = 0; k < p.series.size(); ++k) {
    const Series& ser = p.series[k];
    const char* color = kColors[k % 8];
    if (bars) {
      // Several series: side by side within each category.
      const double group = (ax.map(1) - ax.map(0)) * 0.8;
      const double bw = group / static_cast<double>(p.series.size());
      for (std::size_t i = 0; i < ser.y.size(); ++i) {
        if (!(ser.y[i] > 0) && p.log_y) continue;
        const double y = ay.map(ser.y[i]), y0 = ay.map(p.log_y ? ay.lo : 0);
        const double x0 = ax.map(static_cast<double>(i)) - group / 2 + bw * static_cast<double>(k);
        s += "<rect x=\"" + num(x0) + "\" y=\"" + num(std::min(y, y0)) +
             "\" width=\"" + num(bw) + "\" height=\"" + num(std::fabs(y0 - y)) + "\" fill=\"" + color +
             "\"><title>" + esc(i < p.x_categories.size() ? p.x_categories[i] : "") + ": " + num(ser.y[i]) +
             "</title></rect>\n";
      }
    } else {
      std::string pts;
      for (std::size_t i = 0; i < ser.x.size() && i < ser.y.size(); ++i) {
        if (!std::isfinite(ser.y[i]) || (p.log_y && ser.y[i] <= 0) || (p.log_x && ser.x[i] <= 0)) continue;
        pts += num(ax.map(ser.x[i])) + "," + num(ay.map(ser.y[i])) + " ";
        s += "<circle cx=\"" + num(ax.map(ser.x[i])) + "\" cy=\"" + num(ay.map(ser.y[i])) +
             "\" r=\"2.5\" fill=\"" + color + "\"><title>" + esc(ser.name) + ": (" + num(ser.x[i]) +
             ", " + num(ser.y[i]) + ")</title></circle>\n";
      }
      s += "<polyline points=\"" + pts + "\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\"/>\n";
    }
    s += "<rect x=\"" + num(w - right + 10) + "\" y=\"" + num(top + 16 * k) +
         "\" width=\"10\" height=\"10\" fill=\"" + color + "\"/><text x=\"" + num(w - right + 24) +
         "\" y=\"" + num(top + 16 * k + 9) + "\" font-size=\"11\">" + esc(ser.name) + "</text>\n";
  }
  return s + "</svg>\n";
}

std::string heatmap_svg(const HeatMap& h) {
  const double cell = 26, left = 170, top = 110;
  const double w = left + cell * h.col_labels.size() + 20, ht = top + cell * h.row_labels.size() + 20;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" +
                  num(ht) + "\" role=\"img\" aria-label=\"" + esc(h.title) + "\">\n";
  for (std::size_t c = 0; c < h.col_labels.size(); ++c)
    s += "<text transform=\"translate(" + num(left + cell * c + cell / 2 + 4) + "," + num(top - 6) +
         ") rotate(-60)\" font-size=\"11\">" + esc(h.col_labels[c]) + "</text>\n";
  for (std::size_t r = 0; r < h.row_labels.size(); ++r) {
    s += "<text x=\"" + num(left - 6) + "\" y=\"" + num(top + cell * r + cell / 2 + 4) +
         "\" text-anchor=\"end\" font-size=\"11\">" + esc(h.row_labels[r]) + "</text>\n";
    for (std::size_t c = 0; c < h.col_labels.size() && c < h.values[r].size(); ++c) {
      const double v = h.values[r][c];
      std::string fill = "#ddd";
      if (v == v) {
        const int g = static_cast<int>(std::lround(255 * (1 - std::clamp(v, 0.0, 1.0))));
        char buf[16];
        std::snprintf(buf, sizeof buf, "#ff%02x%02x", g, g);
        fill = v == 0 ? "#f4fbf4" : buf;
      }
      s += "<rect x=\"" + num(left + cell * c) + "\" y=\"" + num(top + cell * r) + "\" width=\"" +
           num(cell - 1) + "\" height=\"" + num(cell - 1) + "\" fill=\"" + fill + "\"><title>" +
           esc(h.row_labels[r]) + " / " + esc(h.col_labels[c]) + ": " + (v == v ? num(v) : "n/a") +
           "</title></rect>\n";
    }
  }
  return s + "</svg>\n";
}

std::string table_html(const Table& t) {
  if (t.detail)
    return "<h3 id=\"" + esc(t.id) + "\">" + esc(t.title) + "</h3>\n<p>" + std::to_string(t.rows.size()) +
           " rows: <a href=\"tables/" + esc(t.id) + ".csv\">tables/" + esc(t.id) + ".csv</a></p>\n";
  std::string s = "<h3 id=\"" + esc(t.id) + "\">" + esc(t.title) + "</h3>\n<table><thead><tr>";
  for (const auto& c : t.columns) s += "<th>" + esc(c) + "</th>";
  s += "</tr></thead><tbody>\n";
  for (const auto& r : t.rows) {
    s += "<tr>";
    for (const auto& c : r) s += "<td>" + esc(c) + "</td>";
    s += "</tr>\n";
  }
  s += "</tbody></table>\n";
  if (!t.note.empty()) s += "<p class=\"note\">" + esc(t.note) + "</p>\n";
  return s;
}

}  // namespace

std::string to_html(const Document& d) {
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + esc(d.title) +
      "</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
      "table{border-collapse:collapse;margin:.5em 0;font-size:13px}td,th{border:1px solid #ccc;"
      "padding:2px 6px;text-align:left}th{background:#f3f3f3}.note{color:#555;font-size:13px}"
      ".fail{color:#b00}nav a{margin-right:1em}</style></head><body>\n<h1>" + esc(d.title) + "</h1>\n<ul>";
  for (const auto& h : d.header) s += "<li>" + esc(h) + "</li>";
  s += "</ul>\n<nav>";
  for (const auto& sec : d.sections) s += "<a href=\"#" + esc(sec.id) + "\">" + esc(sec.title) + "</a>";
  s += "</nav>\n";
  for (const auto& sec : d.sections) {
    s += "<section><h2 id=\"" + esc(sec.id) + "\"" + (sec.ok ? "" : " class=\"fail\"") + ">" +
         esc(sec.title) + (sec.ok ? "" : " (FAILED)") + (sec.skipped.empty() ? "" : " (not run)") + "</h2>\n";
    if (!sec.ok && !sec.failure.empty()) s += "<p class=\"fail\">Failed: " + esc(sec.failure) + "</p>\n";
    if (!sec.skipped.empty()) s += "<p class=\"note\">Not run: " + esc(sec.skipped) + "</p>\n";
    for (const auto& p : sec.paragraphs) s += "<p>" + esc(p) + "</p>\n";
    for (const auto& p : sec.plots) {
      s += "<h3 id=\"" + esc(p.id) + "\">" + esc(p.title) + "</h3>\n" + plot_svg(p);
      if (!p.note.empty()) s += "<p class=\"note\">" + esc(p.note) + "</p>\n";
    }
    for (const auto& h : sec.heatmaps) {
      s += "<h3 id=\"" + esc(h.id) + "\">" + esc(h.title) + "</h3>\n" + heatmap_svg(h);
      s += "<p class=\"note\">Cell colour: " + esc(h.value_label) + " (white 0, red 1). " + esc(h.note) + "</p>\n";
    }
    for (const auto& t : sec.tables) s += table_html(t);
    s += "</section>\n";
  }
  return s + "</body></html>\n";
}

}  // namespace fpconform::reports
