// section_to_json / section_from_json: a section read back is the section written (resumed
// `report` runs rebuild their document from it), and malformed JSON is refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fpconform/core/error.hpp"
#include "fpconform/reports/document.hpp"

namespace fpconform::reports {
namespace {

Section sample() {
  Section s;
  s.id = "conversions";
  s.title = "Conversions, \"quoted\" and\nsplit";
  s.ok = false;
  s.failure = "1 of 12 conversions disagree";
  s.paragraphs = {"one", "two, with a | pipe"};
  s.results = {{"cases", 12}, {"mismatches", 1}, {"seconds", 0.1}};
  s.tables.push_back({"t1", "Table", {"a", "b"}, {{"1", "x,y"}, {"2", ""}}, "a note", true});
  Plot p;
  p.id = "p1";
  p.title = "err";
  p.x_label = "K";
  p.y_label = "error";
  p.kind = Plot::Kind::bars;
  p.log_x = false;
  p.log_y = true;
  const double inf = std::numeric_limits<double>::infinity();
  p.series.push_back({"s", {0, 1, 2}, {0.1, inf, -inf}});
  p.x_categories = {"a", "b", "c"};
  p.note = "plot note";
  s.plots.push_back(p);
  HeatMap h;
  h.id = "h1";
  h.title = "map";
  h.row_labels = {"r"};
  h.col_labels = {"c1", "c2"};
  h.values = {{0.25, std::numeric_limits<double>::quiet_NaN()}};
  h.value_label = "fraction";
  h.note = "map note";
  s.heatmaps.push_back(h);
  return s;
}

TEST(SectionJson, ReadsBackASkippedSection) {
  Section s;
  s.id = "matrix-units";
  s.title = "units";
  s.skipped = "--skip-section matrix-units";
  const Section r = section_from_json(nlohmann::json::parse(section_to_json(s).dump()), "test");
  EXPECT_EQ(r.skipped, s.skipped);
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.failure.empty());
}

TEST(SectionJson, ReadsBackWhatItWrote) {
  const Section s = sample();
  // Through text, as the checkpoint stores it.
  const Section r = section_from_json(nlohmann::json::parse(section_to_json(s).dump()), "test");
  EXPECT_EQ(r.id, s.id);
  EXPECT_EQ(r.title, s.title);
  EXPECT_EQ(r.ok, s.ok);
  EXPECT_EQ(r.failure, s.failure);
  EXPECT_EQ(r.skipped, s.skipped);
  EXPECT_EQ(r.paragraphs, s.paragraphs);
  EXPECT_EQ(r.results, s.results);
  ASSERT_EQ(r.tables.size(), 1u);
  EXPECT_EQ(r.tables[0].id, "t1");
  EXPECT_EQ(r.tables[0].columns, s.tables[0].columns);
  EXPECT_EQ(r.tables[0].rows, s.tables[0].rows);
  EXPECT_EQ(r.tables[0].note, "a note");
  EXPECT_TRUE(r.tables[0].detail);
  ASSERT_EQ(r.plots.size(), 1u);
  const Plot& p = r.plots[0];
  EXPECT_EQ(p.kind, Plot::Kind::bars);
  EXPECT_FALSE(p.log_x);
  EXPECT_TRUE(p.log_y);
  EXPECT_EQ(p.x_label, "K");
  EXPECT_EQ(p.note, "plot note");
  EXPECT_EQ(p.x_categories, s.plots[0].x_categories);
  ASSERT_EQ(p.series.size(), 1u);
  EXPECT_EQ(p.series[0].x, s.plots[0].series[0].x);
  EXPECT_EQ(p.series[0].y, s.plots[0].series[0].y);  // infinities included
  ASSERT_EQ(r.heatmaps.size(), 1u);
  EXPECT_EQ(r.heatmaps[0].values[0][0], 0.25);
  EXPECT_TRUE(std::isnan(r.heatmaps[0].values[0][1]));
  EXPECT_EQ(r.heatmaps[0].row_labels, s.heatmaps[0].row_labels);
  EXPECT_EQ(r.heatmaps[0].note, "map note");
  // Written again, byte for byte the same JSON.
  EXPECT_EQ(section_to_json(r).dump(), section_to_json(s).dump());
}

TEST(SectionJson, DoublesSurviveText) {
  Section s;
  s.id = "x";
  Plot p;
  p.series.push_back({"s", {0.1, 1.0 / 3, 5e-324, 1.7976931348623157e308}, {-0.0, 2.5e-10, 1e300, 3}});
  s.plots.push_back(p);
  const Section r = section_from_json(nlohmann::json::parse(section_to_json(s).dump()), "t");
  EXPECT_EQ(r.plots[0].series[0].x, s.plots[0].series[0].x);
  EXPECT_EQ(r.plots[0].series[0].y, s.plots[0].series[0].y);
  EXPECT_TRUE(std::signbit(r.plots[0].series[0].y[0]));
}

TEST(SectionJson, ResultsJsonUsesTheSameForm) {
  Document d;
  d.title = "t";
  d.sections.push_back(sample());
  EXPECT_EQ(to_json(d)["sections"][0], section_to_json(d.sections[0]));
  EXPECT_EQ(to_json(d)["schema"], kResultsSchema);
}

TEST(SectionJson, RefusesMalformedSectionsByName) {
  const auto expect_error = [](const nlohmann::json& j, const std::string& part) {
    try {
      section_from_json(j, "ckpt:3");
      ADD_FAILURE() << "accepted " << j.dump();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("ckpt:3"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  nlohmann::json good = section_to_json(sample());
  expect_error(nlohmann::json::array(), "'id'");
  expect_error(nlohmann::json{{"id", 3}}, "'id' is not a string");
  auto j = good;
  j.erase("tables");
  expect_error(j, "'tables' is missing");
  j = good;
  j["plots"][0]["series"][0]["y"][0] = "many";
  expect_error(j, "'y' holds something that is not a number");
  j = good;
  j["plots"][0]["kind"] = "pie";
  expect_error(j, "'kind' is neither");
  j = good;
  j["tables"][0]["rows"][0][0] = 7;
  expect_error(j, "section 'conversions'");
  j = good;
  j["heatmaps"][0]["values"] = nlohmann::json::array({1});
  expect_error(j, "'values' holds a row that is not an array");
}

}  // namespace
}  // namespace fpconform::reports
