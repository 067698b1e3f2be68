// Passive fitting: the recorded V100/A100/H100 rows with fp32 output give the published
// parameters; rows written by a custom model are fitted back to an equivalent model; rows
// files in both layouts are read, and bad ones are refused naming file:line. (fp16-output rows,
// which pin far less, are fitted in fit_exhaustive_test.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "fit_expect.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform::characterize {
namespace {

using fit_expect::Dataset;
using fit_expect::dataset;
using fit_expect::kAnyZeroExp;

class FitRecorded : public ::testing::TestWithParam<Dataset> {};

TEST_P(FitRecorded, GivesThePublishedParameters) {
  fit_expect::check_fit(GetParam(), 5000, 1000);
}

INSTANTIATE_TEST_SUITE_P(
    F32Output, FitRecorded,
    ::testing::Values(dataset("V100/fp16", "f32", false, 4, 23, kAnyZeroExp),
                      dataset("A100/fp16", "f32", false, 8, 24, -132),
                      dataset("A100/bf16", "f32", false, 8, 24, -132),
                      dataset("A100/tf32", "f32", false, 4, 24, -132),
                      dataset("H100/fp16", "f32", false, 16, 25, -133),
                      dataset("H100/bf16", "f32", false, 16, 25, -133),
                      dataset("H100/tf32", "f32", false, 8, 25, -133),
                      dataset("H100/E4M3", "f32", true, 32, 13, -133, 13),
                      dataset("H100/E5M2", "f32", true, 32, 13, -133, 13)),
    [](const auto& info) {
      std::string name = info.param.dir;
      std::replace(name.begin(), name.end(), '/', '_');
      return name + "_to_" + info.param.out;
    });

// ---------------------------------------------------------------- helpers

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The message of the Error read_rows throws (empty when it does not throw).
std::string read_error(const std::string& path, const RowsOptions& options = {}) {
  try {
    read_rows(path, options);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// ---------------------------------------------------------------- a custom model, round trip

// Random bf16 rows of K products with exponents in [-12, 12] and a C of the sums' size.
std::vector<DotCase> random_cases(const FdpaParams& p, const Format& in, const Format& out,
                                  std::size_t n, std::size_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<DotCase> cases(n);
  auto bf16 = [&] {
    const std::uint64_t exp = 127 - 12 + rng() % 25;
    return ((rng() & 1) << 15) | (exp << 7) | (rng() & 0x7F);
  };
  for (DotCase& dc : cases) {
    for (std::size_t i = 0; i < k; ++i) {
      dc.a.push_back(bf16());
      dc.b.push_back(bf16());
    }
    const std::uint64_t exp = 127 - 20 + rng() % 40;
    dc.c = ((rng() & 1) << 31) | (exp << 23) | (rng() & 0x7FFFFF);
    dc.d = fdpa(p, in, out, dc.a, dc.b, dc.c);
  }
  return cases;
}

TEST(FitRoundTrip, RowsOfACustomModelFitBackToAnEquivalentModel) {
  const Format in = parse_format("bf16"), out = parse_format("f32");
  // Not a preset: L = 4 chained over K = 8, F = 27, alignment to nearest, C added after the
  // block, RNE output.
  const FdpaParams model = parse_model(
      "custom:block=4,frac_bits=27,align=nearest_even,c_in_block=0,out_round=rne", in, out);
  const std::vector<DotCase> written = random_cases(model, in, out, 2000, 8, 11);
  std::stringstream text;
  write_plain_rows(text, {in, out}, written);
  const RecordedRows rows = read_plain_rows(text, "written.rows");
  ASSERT_EQ(rows.cases.size(), written.size());
  EXPECT_EQ(rows.in.name, "bf16");
  EXPECT_EQ(rows.out.name, "f32");
  EXPECT_EQ(rows.where[1], "written.rows:4");  // two header lines

  const FitResult r = fit(rows.formats(), rows.cases);
  std::printf("round trip: %zu matching of %zu, fit %.2f s\n", r.matching.size(), r.family_size, r.fit_seconds);
  ASSERT_FALSE(r.matching.empty());
  EXPECT_TRUE(std::any_of(r.matching.begin(), r.matching.end(), [&](const FamilyMember& m) {
    return fit_expect::differing_fields(m.params, model).empty();
  })) << "the writing model is not among the matching sets";
  // Equivalent: every matching set gives the writer's answers on fresh rows of the same kind
  // (and the first one, the CLI's answer, on longer ones too).
  const std::vector<DotCase> fresh = random_cases(model, in, out, 3000, 8, 12);
  for (const FamilyMember& m : r.matching)
    EXPECT_TRUE(disagreements(m.params, {in, out}, fresh).empty()) << model_text(m.params);
  EXPECT_TRUE(disagreements(r.matching.front().params, {in, out}, random_cases(model, in, out, 3000, 32, 13)).empty());
}

// a and b in different formats: the header's b= names b's format, the rows are read in it, and
// the fit finds the writer (hopper's e4m3 x e5m2 block) among the presets.
TEST(FitRoundTrip, MixedOperandFormatsAreWrittenReadAndFitted) {
  const Format a = parse_format("e4m3"), b = parse_format("e5m2"), out = parse_format("f32");
  const FdpaFormats f{a, b, out, out};
  const FdpaParams model = find_matrix_unit("hopper", f);
  std::mt19937_64 rng(21);
  std::vector<DotCase> written(1500);
  for (DotCase& dc : written) {
    for (int i = 0; i < 32; ++i) {
      // Finite codes only (e4m3's NaN is 0x7F/0xFF; e5m2's top exponent is inf and NaN).
      std::uint64_t x, y;
      do x = rng() & 0xFF; while ((x & 0x7F) == 0x7F);
      do y = rng() & 0xFF; while ((y & 0x7C) == 0x7C);
      dc.a.push_back(x);
      dc.b.push_back(y);
    }
    dc.c = rng() % 3 == 0 ? 0 : ((rng() & 1) << 31) | ((127 - 10 + rng() % 30) << 23) | (rng() & 0x7FFFFF);
    dc.d = fdpa(model, f, dc.a, dc.b, dc.c);
  }
  std::stringstream text;
  write_plain_rows(text, f, written);
  EXPECT_EQ(text.str().substr(0, text.str().find('\n')), "# in=e4m3 b=e5m2 out=f32");
  const RecordedRows rows = read_plain_rows(text, "mixed.rows");
  ASSERT_EQ(rows.cases.size(), written.size());
  EXPECT_EQ(rows.b_format().name, "e5m2");
  for (std::size_t i = 0; i < written.size(); ++i) ASSERT_EQ(rows.cases[i].b, written[i].b);
  // --b-format that contradicts the header is refused naming the header line.
  std::stringstream again(text.str());
  RowsOptions other;
  other.in_b = "e4m3";
  try {
    read_plain_rows(again, "mixed.rows", other);
    ADD_FAILURE() << "a contradicting --b-format was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mixed.rows:1"), std::string::npos) << e.what();
  }
  FitOptions options;
  options.probe_budget = 0;
  const FitResult r = fit(rows.formats(), rows.cases, options);
  ASSERT_FALSE(r.matching.empty());
  // Every matching set gives the writer's answers on the rows and is hopper's block (L = 32,
  // F = 13, e8m13 accumulator) in the parameters that the rows pin.
  for (const FamilyMember& m : r.matching)
    EXPECT_TRUE(disagreements(m.params, f, rows.cases).empty()) << model_text(m.params);
  EXPECT_TRUE(std::any_of(r.matching.begin(), r.matching.end(), [&](const FamilyMember& m) {
    return m.params.block == 32 && m.params.frac_bits == 13;
  }));
  // Read as e4m3 x e4m3, the same rows are another unit's: hopper no longer fits them all.
  EXPECT_FALSE(disagreements(model, {a, out}, rows.cases).empty());
}

// With a and b in different formats, a preset joins the family only where it models both alike
// (find_matrix_unit): CDNA1 groups f16 products by 4 and bf16 by 2, Hopper treats them alike.
TEST(FitFamily, APresetJoinsOnlyWhereItModelsBothOperandFormats) {
  const Format f16 = parse_format("f16"), bf16 = parse_format("bf16"), f32 = parse_format("f32");
  const auto has = [](const std::vector<FamilyMember>& family, const std::string& preset) {
    return std::any_of(family.begin(), family.end(), [&](const FamilyMember& m) {
      std::istringstream names(m.preset);
      for (std::string name; std::getline(names >> std::ws, name, ',');)
        if (name == preset) return true;
      return false;
    });
  };
  const std::vector<FamilyMember> same = fit_family({f16, f32}), mixed = fit_family({f16, bf16, f32, f32});
  EXPECT_TRUE(has(same, "cdna1"));
  EXPECT_FALSE(has(mixed, "cdna1"));
  EXPECT_TRUE(has(same, "hopper"));
  EXPECT_TRUE(has(mixed, "hopper"));
}

TEST(FitRoundTrip, SameSeedSameProbes) {
  // A small family (F in 22..26) keeps this quick; the probe search is what is compared.
  const Format in = parse_format("f16"), out = parse_format("f32");
  const FdpaParams volta = find_matrix_unit("volta", in, out);
  std::vector<DotCase> cases(300);
  std::mt19937_64 rng(5);
  for (DotCase& dc : cases) {
    for (int i = 0; i < 4; ++i) {
      dc.a.push_back(rng() & 0xBBFF);  // finite f16 of moderate size
      dc.b.push_back(rng() & 0xBBFF);
    }
    dc.c = rng() & 0xBF7FFFFF;
    dc.d = fdpa(volta, in, out, dc.a, dc.b, dc.c);
  }
  FitOptions options;
  options.family.min_frac_bits = 22;
  options.family.max_frac_bits = 26;
  options.probe_budget = 500;
  const FitResult one = fit({in, out}, cases, options), two = fit({in, out}, cases, options);
  ASSERT_EQ(one.probes.size(), two.probes.size());
  for (std::size_t i = 0; i < one.probes.size(); ++i) {
    EXPECT_EQ(one.probes[i].inputs.a, two.probes[i].inputs.a);
    EXPECT_EQ(one.probes[i].answers, two.probes[i].answers);
  }
  EXPECT_EQ(one.classes, two.classes);
  options.threads = 2;
  EXPECT_EQ(fit({in, out}, cases, options).matching.size(), one.matching.size());
}

TEST(FitRoundTrip, NoMatchReportsTheClosestAndTheRowsTheyFail) {
  const Format in = parse_format("f16"), out = parse_format("f32");
  const FdpaParams volta = find_matrix_unit("volta", in, out);
  std::vector<DotCase> cases(200);
  std::mt19937_64 rng(9);
  for (DotCase& dc : cases) {
    for (int i = 0; i < 4; ++i) {
      dc.a.push_back(rng() & 0xBBFF);
      dc.b.push_back(rng() & 0xBBFF);
    }
    dc.c = rng() & 0xBF7FFFFF;
    dc.d = fdpa(volta, in, out, dc.a, dc.b, dc.c);
  }
  cases[150].d ^= 0x00400000;  // a result no model in the family gives
  FitOptions options;
  options.family.min_frac_bits = 22;
  options.family.max_frac_bits = 24;
  const FitResult r = fit({in, out}, cases, options);
  EXPECT_TRUE(r.matching.empty());
  ASSERT_FALSE(r.closest.empty());
  EXPECT_EQ(r.closest.front().member.preset, "volta");
  EXPECT_EQ(r.closest.front().failed_rows, std::vector<std::size_t>{150});
  std::size_t agreed = 0;
  EXPECT_EQ(fit_answer(r, cases.size(), &agreed), &r.closest.front().member);
  EXPECT_EQ(agreed, 199u);
  RecordedRows rows;
  rows.in = in;
  rows.out = out;
  rows.cases = cases;
  rows.layout = "plain";
  for (std::size_t i = 0; i < cases.size(); ++i) rows.where.push_back("x.rows:" + std::to_string(i + 1));
  const std::string text = fit_report_text(r, rows, {});
  EXPECT_NE(text.find("no parameter set in the family reproduces every row"), std::string::npos);
  EXPECT_NE(text.find("fails 1 of 200 rows: x.rows:151"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.rfind('\n', text.size() - 2) + 1),
            "model fused(block=4, frac_bits=23) | out(rtz) agrees on 199/200 cases\n");
}

// ---------------------------------------------------------------- reading rows

TEST(Rows, TheDocumentedExampleIsReadAndHopperReproducesIt) {
  // The example of ROWS.md: e4m3 rows, fp32 results worked out by hand (2 and 3.25).
  const std::string path = write_file("example.rows",
                                      "# in=e4m3 out=f32\n"
                                      "# a_0 .. a_{K-1} | b_0 .. b_{K-1} | c | d\n"
                                      "38 40 b8 00 | 38 38 38 38 | 00000000 | 40000000\n"
                                      "3c 3c | 38 30 | 3f800000 | 40500000\n");
  const RecordedRows rows = read_rows(path);
  ASSERT_EQ(rows.cases.size(), 2u);
  EXPECT_EQ(rows.cases[1].a, (std::vector<std::uint64_t>{0x3c, 0x3c}));
  EXPECT_EQ(rows.cases[1].c, 0x3f800000u);
  EXPECT_EQ(rows.where[0], path + ":3");
  const FdpaParams hopper = find_matrix_unit("hopper", rows.in, rows.out);
  EXPECT_TRUE(disagreements(hopper, rows.formats(), rows.cases).empty());
}

TEST(Rows, DotCheckLinesAndOptionsAreRead) {
  // `fpconform dot --check` lines (no bars), formats from the options.
  const std::string path = write_file("dot.rows", "3c00 4000 3c00 3c00 00000000 40400000\n");
  RowsOptions options;
  options.in = "f16";
  options.out = "f32";
  const RecordedRows rows = read_rows(path, options);
  ASSERT_EQ(rows.cases.size(), 1u);
  EXPECT_EQ(rows.cases[0].b, (std::vector<std::uint64_t>{0x3c00, 0x3c00}));
  EXPECT_EQ(rows.cases[0].d, 0x40400000u);
  options.c_zero = true;
  EXPECT_EQ(read_rows(write_file("c.rows", "3c00 3c00 3f800000 3f800000\n"), options).cases[0].c, 0u);
  // A header and an option that disagree.
  const std::string both = write_file("both.rows", "# in=e4m3 out=f32\n38 38 0 0\n");
  EXPECT_NE(read_error(both, options).find(both + ":1: 'in=e4m3' but --in says f16"), std::string::npos)
      << read_error(both, options);
}

TEST(Rows, TensorCoreDumpIsReadAsTheMatrixSuiteReadsIt) {
  RowsOptions options;
  options.out = "f32";
  const RecordedRows tf32 = read_rows(fit_expect::kDumps + "/A100/tf32", options);
  ASSERT_EQ(tf32.cases.size(), 5000u);
  EXPECT_EQ(tf32.in.name, "tf32");  // from the folder's name
  EXPECT_EQ(tf32.cases[0].a.size(), 4u);
  for (const DotCase& dc : tf32.cases)
    for (std::uint64_t x : dc.a) ASSERT_LE(x, 0x7FFFFu);  // 19-bit tf32 codes
  options.out = "f16";
  const RecordedRows f16 = read_rows(fit_expect::kDumps + "/V100/fp16", options);
  EXPECT_EQ(f16.out.name, "f16");
  for (const DotCase& dc : f16.cases) ASSERT_LE(dc.c, 0xFFFFu);  // C rounded to f16
  EXPECT_NE(read_error(fit_expect::kDumps + "/V100/fp16").find("--out"), std::string::npos);
}

TEST(Rows, BadPlainRowsNameFileAndLine) {
  const std::string head = "# in=e4m3 out=f32\n";
  struct Bad {
    const char* name;
    std::string text, want;
  };
  for (const Bad& bad : {
           Bad{"ragged.rows", head + "38 38 | 38 | 0 | 0\n", ":2: ragged row"},
           Bad{"hex.rows", head + "38 zz | 38 38 | 0 | 0\n", ":2: 'zz' is not a hex"},
           Bad{"wide.rows", head + "38 138 | 38 38 | 0 | 0\n", ":2: 0x138 does not fit in 8-bit e4m3"},
           Bad{"widec.rows", head + "38 | 38 | 1ffffffff | 0\n", ":2: 0x1ffffffff does not fit"},
           Bad{"fields.rows", head + "38 | 38 | 0\n", ":2: 3 fields"},
           Bad{"format.rows", "# in=e9m9z out=f32\n38 | 38 | 0 | 0\n", ":1"},
           Bad{"late.rows", head + "38 | 38 | 0 | 0\n# out=f16\n", ":3: 'out=f16' after the first row"},
           Bad{"noformat.rows", "38 | 38 | 0 | 0\n", ":1: no formats"},
           Bad{"empty.rows", "", ": no rows"},
           Bad{"comments.rows", head + "\n# nothing\n", ": no rows"},
       }) {
    const std::string path = write_file(bad.name, bad.text);
    const std::string message = read_error(path);
    EXPECT_NE(message.find(path + bad.want), std::string::npos)
        << bad.name << ": '" << message << "' lacks '" << path + bad.want << "'";
  }
  EXPECT_NE(read_error(::testing::TempDir() + "/missing.rows").find("cannot open"), std::string::npos);
}

TEST(Rows, BadDumpsNameFileAndLine) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "fit_dump" / "fp16";
  fs::create_directories(dir);
  const auto put = [&](const char* name, const std::string& text) { std::ofstream(dir / name) << text; };
  const std::string one = "00111111100000000000000000000000\n";  // fp32 1.0 in binary
  put("a_X_fp16.txt", "3f800000 3f800000\n3f800000\n");
  put("b_X_fp16.txt", "3f800000 3f800000\n3f800000 3f800000\n");
  put("c_X_fp32.txt", one + one);
  put("d_X_fp32.txt", one + one);
  EXPECT_NE(read_error(dir.string()).find("a_X_fp16.txt:2: ragged rows"), std::string::npos)
      << read_error(dir.string());
  put("a_X_fp16.txt", "3f800000 3f800000\n3f800000 3f800001\n");  // not an f16 value
  EXPECT_NE(read_error(dir.string()).find("a_X_fp16.txt:2: fp32 0x3f800001 is not a value of f16"),
            std::string::npos)
      << read_error(dir.string());
  put("a_X_fp16.txt", "3f800000 3f800000\n3f800000 3f80000g\n");
  EXPECT_NE(read_error(dir.string()).find("a_X_fp16.txt:2: '3f80000g' is not a hex word"), std::string::npos);
  put("a_X_fp16.txt", "3f800000 3f800000\n3f800000 3f800000\n");
  put("c_X_fp32.txt", one + "0012\n");
  EXPECT_NE(read_error(dir.string()).find("c_X_fp32.txt:2"), std::string::npos) << read_error(dir.string());
  put("c_X_fp32.txt", one + one);
  RowsOptions options;
  EXPECT_EQ(read_rows(dir.string(), options).cases.size(), 2u);
  options.in = "e4m3x";
  EXPECT_NE(read_error(dir.string(), options).find("--in"), std::string::npos);
  options.in.clear();
  options.out = "f16";
  EXPECT_NE(read_error(dir.string(), options).find("no d_*_fp16.txt"), std::string::npos);
}

}  // namespace
}  // namespace fpconform::characterize
