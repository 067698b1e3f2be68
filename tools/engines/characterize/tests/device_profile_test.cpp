// The device profile writer: the JSON parses, follows the documented schema and carries the
// model spec that parse_model reads back; the Markdown names the model and the counts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fpconform/fdpa_spec.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/characterize/device_profile.hpp"

namespace fpconform::characterize {
namespace {

Characterization sample() {
  Characterization c;
  c.target = "emu:hopper";
  c.in = parse_format("e4m3");
  c.out = parse_format("f32");
  c.model = find_matrix_unit("hopper", c.in, c.out);
  c.model_spec = model_text(c.model);
  c.evidence.push_back({"frac_bits", "frac_bits = 13", "2^-14 next to 1 is lost | 2^-13 is kept",
                        {{{0x38, 0x38}, {0x38, 0x08}, 0, 0x3f800000}}});
  c.validated = 100000;
  c.agreed = 99999;
  c.counterexamples.push_back({{0x38}, {0x38}, 0x1, 0x3f800000});
  c.verdict = "A fused unit.";
  c.queries = 123;
  return c;
}

TEST(DeviceProfile, JsonFollowsTheSchemaAndTheSpecReadsBack) {
  const auto c = sample();
  const auto j = device_profile_json(c, "9.9");
  EXPECT_EQ(j["schema"], "fpconform.device-profile/1");
  EXPECT_EQ(j["target"], "emu:hopper");
  EXPECT_EQ(j["formats"]["in"], "e4m3");
  EXPECT_EQ(j["validation"]["agreed"], 99999);
  EXPECT_EQ(j["evidence"][0]["cases"][0]["a"][0], "0x38");
  EXPECT_EQ(j["evidence"][0]["cases"][0]["d"], "0x3f800000");
  EXPECT_EQ(j["model"]["params"]["frac_bits"], "13");
  // The staged unit's stages, typed: the fused block of 32, the accumulator's cut, the output.
  ASSERT_EQ(j["model"]["stages"].size(), 3u);
  EXPECT_EQ(j["model"]["stages"][0]["stage"], "fused");
  EXPECT_EQ(j["model"]["stages"][0]["block"], 32);
  EXPECT_EQ(j["model"]["stages"][1]["stage"], "acc");
  EXPECT_EQ(j["model"]["stages"][1]["frac_bits"], 13);
  EXPECT_EQ(j["model"]["stages"][2]["mode"], "rtz");
  EXPECT_EQ(j["model"]["stages"][2]["underflow_positive"], true);
  const FdpaParams back = parse_model(j["model"]["spec"].get<std::string>(), c.in, c.out);
  EXPECT_TRUE(same_params(back, c.model));
}

TEST(DeviceProfile, WritesJsonAndMarkdownAtomically) {
  const auto dir = std::filesystem::temp_directory_path() / "fpconform_profile_test";
  std::filesystem::remove_all(dir);
  const auto c = sample();
  const std::string json_path = write_device_profile(c, dir.string(), "9.9");
  EXPECT_EQ(std::filesystem::path(json_path).filename(), "emu-hopper.e4m3-f32.json");
  std::ifstream in(json_path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["queries"], 123);
  std::ifstream md_in(dir / "emu-hopper.e4m3-f32.md");
  std::string md((std::istreambuf_iterator<char>(md_in)), {});
  EXPECT_NE(md.find(c.model_spec), std::string::npos);
  EXPECT_NE(md.find("99999/100000"), std::string::npos);
  EXPECT_NE(md.find("38 38 1 3f800000"), std::string::npos);  // the counterexample as a dot line
  // A '|' inside a table cell (the staged model text has several) is escaped, not a new column.
  EXPECT_NE(md.find("| frac_bits | frac_bits = 13 | 2^-14 next to 1 is lost \\| 2^-13 is kept |"),
            std::string::npos)
      << md;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fpconform::characterize
