// The report writers' block-scale section: run_conversion_report (a tiny conversion sweep)
// with the scale-rule report, written by write_conversion_report; results.json carries the
// "scale_rules" key (every rule with its source, per distribution and rule the SQNR and the
// disagreement with ocp) and report.md the two tables. The figures are checked against what
// the rules imply, not against recorded output: ocp differs from itself nowhere; rceil picks a
// larger scale than ocp exactly when amax's significand exceeds maxf's (e4m3: 1.75), which
// normal data does in a sizeable share of blocks but not in most; e4m3's 3 fraction bits give
// an SQNR near 6.02 * 4 + 10.8 - (loss to the shared scale) dB, e2m1's far less.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fpconform/block_scale.hpp"
#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"

namespace {

using namespace fpconform;
using nlohmann::json;

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BlockScaleReport, ResultsJsonAndMarkdownCarryTheScaleRuleSection) {
  conformance::ReportOptions opt;
  opt.sources = {"f16"};
  opt.targets = {"e4m3"};
  opt.narrow_inputs = 256;
  opt.threads = 1;
  opt.seed = 7;
  const conformance::ConversionReport rep = conformance::run_conversion_report(opt);
  ASSERT_TRUE(rep.scale_rules.has_value());
  EXPECT_LT(rep.scale_rules->seconds, 5.0);
  std::printf("[blockscale-report] scale-rule section: %zu results in %.2f s\n",
              rep.scale_rules->results.size(), rep.scale_rules->seconds);

  const auto dir = std::filesystem::temp_directory_path() /
                   ("fpconform_blockscale_report_" + std::to_string(::getpid()));
  conformance::write_conversion_report(rep, dir.string());
  const json j = json::parse(slurp(dir / "results.json"));
  const std::string md = slurp(dir / "report.md");
  std::filesystem::remove_all(dir);

  ASSERT_TRUE(j.contains("scale_rules"));
  const json& sr = j["scale_rules"];
  ASSERT_EQ(sr["rules"].size(), scale_rules().size());
  for (const json& r : sr["rules"]) {
    EXPECT_FALSE(r["source"].get<std::string>().empty());
    EXPECT_GT(r["block"].get<int>(), 0);
  }
  // 2 distributions x (3 MXFP8 rules + tile + 3 MXFP4 rules + nvfp4).
  ASSERT_EQ(sr["results"].size(), 16u);
  for (const json& r : sr["results"]) {
    const std::string rule = r["rule"], geometry = r["geometry"], dist = r["distribution"];
    const double sqnr = r["sqnr_db"];
    const auto blocks = r["blocks"].get<long>();
    if (rule == "ocp") {
      EXPECT_EQ(r["scales_differing_from_ocp"].get<long>(), 0);
      EXPECT_EQ(r["values_differing_from_ocp"].get<long>(), 0);
    }
    if (rule == "rceil" && geometry == "mxfp8 1x32" && dist == "normal") {
      const long d = r["scales_differing_from_ocp"];
      EXPECT_GT(d, blocks / 50) << "rceil raises the scale whenever amax > 1.75 * 2^e";
      EXPECT_LT(d, blocks / 2);
    }
    if (rule == "microxcaling") {  // same scale as ocp; only ties of elements differ
      EXPECT_EQ(r["scales_differing_from_ocp"].get<long>(), 0);
    }
    if (rule == "nvfp4" || rule == "tile") {
      EXPECT_EQ(r["scales_differing_from_ocp"].get<long>(), -1);
    }
    // Normal data: e4m3's 3 fraction bits give about 31 dB, e2m1's 1 bit about 15-20 dB.
    // (Log-normal data is dominated by each block's largest values, which keep more bits.)
    const bool fp8 = geometry.rfind("mxfp8", 0) == 0 || geometry.rfind("tile", 0) == 0;
    if (dist == "normal") {
      EXPECT_GT(sqnr, fp8 ? 25.0 : 8.0) << rule << " " << dist;
      EXPECT_LT(sqnr, fp8 ? 40.0 : 25.0) << rule << " " << dist;
    } else {
      EXPECT_GT(sqnr, fp8 ? 25.0 : 8.0) << rule << " " << dist;
    }
  }
  std::printf("%s\n", md.substr(md.find("### What each rule costs")).c_str());
  EXPECT_NE(md.find("## Block-scale rules"), std::string::npos);
  EXPECT_NE(md.find("### What each rule costs on generated data"), std::string::npos);
  for (const ScaleRule& r : scale_rules()) EXPECT_NE(md.find("| " + r.name + " |"), std::string::npos) << r.name;
}

TEST(BlockScaleReport, RefusesBadGeometry) {
  EXPECT_THROW(conformance::run_scale_rule_report(1, 4, 100), Error);
}

}  // namespace
