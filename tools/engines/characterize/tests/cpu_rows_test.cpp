// The x86 presets against rows recorded on the units themselves (suites/data/cpu-units, a Xeon
// of family 6, model 207): every row of every file, NaN payloads and zero signs included. These
// run on any CPU, so the models of units a machine lacks are still checked against hardware.
// Where this CPU has a unit, the rows' inputs also run on it and must give the recorded answers.
// Then the fit without the presets: the rows alone must lead to the unit's reduction tree.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/characterize/fit.hpp"
#include "fpconform/characterize/rows.hpp"
#include "fpconform/characterize/target.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/sum_tree.hpp"

namespace fpconform::characterize {
namespace {

// A file name as a gtest name: every character not a letter or digit becomes '_'.
std::string test_name(std::string n) {
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

struct RowsFile {
  const char* file;
  const char* preset;
  const char* target;  // the unit that recorded them, as a cpu: target
};

class CpuRows : public ::testing::TestWithParam<RowsFile> {};

TEST_P(CpuRows, PresetReproducesEveryRow) {
  const std::string path = std::string(FPCONFORM_CPU_ROWS) + "/" + GetParam().file;
  const RecordedRows rows = read_rows(path);
  ASSERT_FALSE(rows.cases.empty());
  const Format& in = rows.in;
  const Format& out = rows.out;
  const FdpaParams model = parse_model(GetParam().preset, in, out);
  const std::vector<std::size_t> bad = disagreements(model, {in, out}, rows.cases);
  std::printf("%s: %s reproduces %zu of %zu rows\n", GetParam().file, GetParam().preset,
              rows.cases.size() - bad.size(), rows.cases.size());
  for (std::size_t i = 0; i < bad.size() && i < 5; ++i) ADD_FAILURE() << rows.where[bad[i]];
  EXPECT_TRUE(bad.empty());
}

// The rows' inputs run again on this CPU's unit, where it has one: a unit of another make or
// generation (AMD's VDPBF16PS, say) must give the Xeon's answers bit for bit, or the preset that
// reproduces them does not model it.
TEST_P(CpuRows, ThisCpuGivesTheRecordedAnswers) {
  auto t = make_target(GetParam().target);
  if (const std::string why = t->unavailable(); !why.empty())
    GTEST_SKIP() << GetParam().target << ": " << why;
  const RecordedRows rows = read_rows(std::string(FPCONFORM_CPU_ROWS) + "/" + GetParam().file);
  ASSERT_FALSE(rows.cases.empty());
  std::vector<DotCase> here = rows.cases;
  observe(*t, here);
  std::vector<std::size_t> bad;
  for (std::size_t i = 0; i < here.size(); ++i)
    if (here[i].d != rows.cases[i].d) bad.push_back(i);
  std::printf("%s: this CPU's %s gives %zu of %zu recorded answers\n", GetParam().file,
              GetParam().target, here.size() - bad.size(), here.size());
  for (std::size_t i = 0; i < bad.size() && i < 5; ++i)
    ADD_FAILURE() << rows.where[bad[i]] << ": recorded " << std::hex << rows.cases[bad[i]].d
                  << ", this CPU " << here[bad[i]].d;
  EXPECT_TRUE(bad.empty());
}

// The tree of one instruction as the README of suites/data/cpu-units describes it: VFMADD231PH
// in a loop is d = fma(a_k, b_k, d) from d = c; the others are the presets' trees, recovered
// by FPRev on the CPU.
std::string expected_tree(const FdpaParams& preset, int k) {
  if (preset.structure == FdpaStructure::tree) return std::string(preset.tree);
  std::string t = "c";
  for (int i = 0; i < k; ++i) t = "(" + t + " " + std::to_string(i) + ")";
  return t;
}

// A unit's three files together, random rows first (they reject most members at once).
struct UnitRows {
  const char* stem;  // "amx-bf16-k32": the files stem-random, stem-special, stem-sparse
  const char* preset;
};

class CpuUnitFit : public ::testing::TestWithParam<UnitRows> {};

// The grid at one fraction width (its other axes whole) keeps the fit to seconds; the tree
// templates are all there. The rows alone must pin the unit's tree.
TEST_P(CpuUnitFit, FitWithoutPresetsFindsTheTree) {
  std::vector<DotCase> cases;
  Format in, out;
  for (const char* kind : {"random", "special", "sparse"}) {
    const RecordedRows rows = read_rows(std::string(FPCONFORM_CPU_ROWS) + "/" + GetParam().stem +
                                        "-" + kind + ".txt");
    ASSERT_FALSE(rows.cases.empty());
    in = rows.in;
    out = rows.out;
    cases.insert(cases.end(), rows.cases.begin(), rows.cases.end());
  }
  FitOptions options;
  options.family.presets = false;
  options.family.min_frac_bits = options.family.max_frac_bits = 24;
  options.probe_budget = 0;
  options.threads = 2;
  const FitResult r = fit({in, out}, cases, options);
  const FdpaParams preset = parse_model(GetParam().preset, in, out);
  const int k = static_cast<int>(cases.front().a.size());
  const SumTree want = chain_instructions(parse_sum_tree(expected_tree(preset, k)), k);
  std::size_t trees = 0, with_want = 0;
  for (const FamilyMember& m : r.matching) {
    EXPECT_TRUE(m.preset.empty()) << m.preset;
    if (m.params.structure != FdpaStructure::tree) continue;
    ++trees;
    if (chain_instructions(parse_sum_tree(m.params.tree), k) == want) ++with_want;
  }
  std::printf("%s: %zu of %zu members match all %zu rows (%zu trees, %zu of them the unit's)\n",
              GetParam().stem, r.matching.size(), r.family_size, cases.size(), trees, with_want);
  for (const auto& [field, values] : field_values(r.matching))
    if (values.size() > 1) std::printf("  open: %s\n", field.c_str());
  EXPECT_GT(with_want, 0u);
  EXPECT_EQ(with_want, r.matching.size()) << "a member of another shape reproduces every row";
}

constexpr UnitRows kUnits[] = {
    {"amx-bf16-k32", "x86-amx-bf16"},
    {"amx-bf16-k64", "x86-amx-bf16"},
    {"avx512-bf16-vdpbf16ps", "x86-avx512-bf16"},
    {"avx512-fp16-fma-chain-k16", "x86-avx512-fp16"},
};

INSTANTIATE_TEST_SUITE_P(Recorded, CpuUnitFit, ::testing::ValuesIn(kUnits),
                         [](const ::testing::TestParamInfo<UnitRows>& i) {
                           return test_name(i.param.stem);
                         });

constexpr RowsFile kFiles[] = {
    {"amx-bf16-k32-random.txt", "x86-amx-bf16", "cpu:amx-bf16"},
    {"amx-bf16-k32-sparse.txt", "x86-amx-bf16", "cpu:amx-bf16"},
    {"amx-bf16-k32-special.txt", "x86-amx-bf16", "cpu:amx-bf16"},
    {"amx-bf16-k64-random.txt", "x86-amx-bf16", "cpu:amx-bf16"},
    {"amx-bf16-k64-sparse.txt", "x86-amx-bf16", "cpu:amx-bf16"},
    {"amx-bf16-k64-special.txt", "x86-amx-bf16", "cpu:amx-bf16"},
    {"avx512-bf16-vdpbf16ps-random.txt", "x86-avx512-bf16", "cpu:avx512-bf16"},
    {"avx512-bf16-vdpbf16ps-sparse.txt", "x86-avx512-bf16", "cpu:avx512-bf16"},
    {"avx512-bf16-vdpbf16ps-special.txt", "x86-avx512-bf16", "cpu:avx512-bf16"},
    {"avx512-fp16-fma-chain-k16-random.txt", "x86-avx512-fp16", "cpu:avx512-fp16"},
    {"avx512-fp16-fma-chain-k16-sparse.txt", "x86-avx512-fp16", "cpu:avx512-fp16"},
    {"avx512-fp16-fma-chain-k16-special.txt", "x86-avx512-fp16", "cpu:avx512-fp16"},
};

INSTANTIATE_TEST_SUITE_P(Recorded, CpuRows, ::testing::ValuesIn(kFiles),
                         [](const ::testing::TestParamInfo<RowsFile>& i) {
                           return test_name(i.param.file);
                         });

}  // namespace
}  // namespace fpconform::characterize
