// The report's sections on small runs: each is built, carries its results, and the document
// written from them parses (results.json against the schema's required keys) and is
// self-contained HTML (no external references).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fpconform/fdpa_spec.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/report/report_content.hpp"

namespace fpconform::report {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ReportSections, AccumulationShowsTheFp8AccumulatorAndPromotion) {
  ReportRun run;
  const auto s = accumulation_section(run);
  ASSERT_EQ(s.plots.size(), 2u);
  // The ulp histogram at K = 4096: 64 outputs per model; the fp32 chain within a few ulp of the
  // correctly rounded result, the e8m13 accumulator far from it.
  const auto& hist = s.plots[1].series;
  ASSERT_EQ(hist.size(), 4u);
  for (const auto& h : hist) {
    double total = 0;
    for (double v : h.y) total += v;
    EXPECT_EQ(total, 64) << h.name;
  }
  EXPECT_EQ(hist[3].y[0] + hist[3].y[1] + hist[3].y[2] + hist[3].y[3], 64);  // < 8 ulp
  EXPECT_GT(hist[0].y[10] + hist[0].y[11] + hist[0].y[12] + hist[0].y[13] + hist[0].y[14] + hist[0].y[15], 32);
  const auto& series = s.plots[0].series;
  ASSERT_EQ(series.size(), 4u);
  // The e8m13 accumulator's relative error grows with K (its truncation is a fixed fraction of
  // sum |a b|, ~K, while |exact| ~ sqrt(K)); promotion to fp32 every 128 products lowers it;
  // units with 25 fraction bits and fp32 chains stay near 2^-24.
  ASSERT_EQ(series[0].x[0], 128);
  ASSERT_EQ(series[0].x[5], 4096);
  EXPECT_GT(series[0].y[5], 2 * series[0].y[0]);
  EXPECT_GT(series[0].y[5], std::ldexp(1.0, -13));
  EXPECT_LT(series[1].y[5], series[0].y[5] / 4);
  EXPECT_LT(series[2].y[5], std::ldexp(1.0, -18));
  EXPECT_LT(series[3].y[5], std::ldexp(1.0, -18));
  std::printf("K=4096 median relative error: hopper e8m13 %.3g, promoted %.3g, blackwell %.3g, fp32 chain %.3g\n",
              series[0].y[5], series[1].y[5], series[2].y[5], series[3].y[5]);
}

TEST(ReportSections, EcosystemHeatMapCoversEveryProfile) {
  ReportRun run;
  const auto s = ecosystem_section(run);
  ASSERT_EQ(s.heatmaps.size(), 1u);
  const auto& h = s.heatmaps[0];
  EXPECT_GE(h.row_labels.size(), 3u);
  EXPECT_EQ(h.values.size(), h.row_labels.size());
  bool some_differ = false;
  for (const auto& row : h.values) {
    EXPECT_EQ(row.size(), h.col_labels.size());
    for (double v : row) some_differ |= v > 0;
  }
  EXPECT_TRUE(some_differ) << "saturating fp8 profiles must differ from plain RNE on overflow";
  EXPECT_FALSE(s.tables[0].rows.empty());
}

TEST(ReportSections, DocumentFilesParseAndAreSelfContained) {
  reports::Document d;
  d.title = "t";
  ReportRun run;
  run.devices_dir = FPCONFORM_DEVICES_DIR;
  d.sections.push_back(arithmetic_section(run));
  d.sections.push_back(devices_section(run));
  EXPECT_TRUE(d.sections[0].ok) << "emu and the oracle disagree on sampled arithmetic";
  const auto dir = std::filesystem::temp_directory_path() / "fpconform_report_sections_test";
  std::filesystem::remove_all(dir);
  reports::write_report(d, dir.string());
  const auto j = nlohmann::json::parse(slurp(dir / "results.json"));
  EXPECT_EQ(j["schema"], reports::kResultsSchema);
  ASSERT_EQ(j["sections"].size(), 2u);
  for (const auto& s : j["sections"]) {
    for (const char* key : {"id", "title", "ok", "results", "tables", "plots", "heatmaps"})
      EXPECT_TRUE(s.contains(key)) << key;
  }
  EXPECT_GT(j["sections"][0]["results"]["cases"].get<int>(), 10000);
  const std::string html = slurp(dir / "index.html");
  EXPECT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "report.md"));
  EXPECT_TRUE(std::filesystem::exists(dir / "tables" / "arithmetic.csv"));
  std::filesystem::remove_all(dir);
}

// The units section lists the cases a unit's model does not reproduce: the unit's d next to
// the model's, and the case as `fpconform dot --check` reads it.
TEST(ReportSections, CounterexampleRowsShowUnitAndModel) {
  characterize::Characterization c;
  c.target = "cpu:fp32-fma";
  c.in = c.out = parse_format("f32");
  c.model = parse_model("custom:structure=sequential,c_in_block=0,out_round=rne", c.in, c.out);
  // 1 * 2 + 0.5 = 2.5 (0x40200000); the unit "answered" 3 (0x40400000).
  c.counterexamples.push_back({{0x3f800000}, {0x40000000}, 0x3f000000, 0x40400000});
  const auto rows = counterexample_rows(c);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "cpu:fp32-fma");
  EXPECT_EQ(rows[0][1], "1");
  EXPECT_EQ(rows[0][3], "0x40400000 (3)");
  EXPECT_EQ(rows[0][4], "0x40200000 (2.5)");
  EXPECT_EQ(rows[0][5], "3f800000 40000000 3f000000 40400000");
}

}  // namespace
}  // namespace fpconform::report
