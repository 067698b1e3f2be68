// Every row recorded on V100, A100 and H100 tensor cores (Khattak & Mikaitis; README in
// suites/data/tensorcore-dumps) against the presets: bit for bit.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform {
namespace {

const std::string kDir = FPCONFORM_TENSORCORE_DUMPS;

// Lines of whitespace-separated words in `base` (2 = binary, 16 = hex); fails the test naming
// file:line on anything else.
std::vector<std::vector<std::uint32_t>> read_words(const std::string& path, int base) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<std::vector<std::uint32_t>> rows;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::vector<std::uint32_t> row;
    for (std::string w; words >> w;) {
      std::size_t used = 0;
      const unsigned long v = std::stoul(w, &used, base);
      EXPECT_EQ(used, w.size()) << path << ":" << n << ": bad word '" << w << "'";
      row.push_back(static_cast<std::uint32_t>(v));
    }
    rows.push_back(row);
  }
  return rows;
}

struct Dump {
  const char* gpu;
  const char* dir;    // input-format folder
  const char* input;  // our format name
  const char* out;    // f32 | f16
  const char* preset;
  bool c_is_zero;     // H100 fp8 rows were recorded with C = 0 (README)
};

class TensorCoreDump : public ::testing::TestWithParam<Dump> {};

TEST_P(TensorCoreDump, EveryRowBitExact) {
  const Dump& d = GetParam();
  const std::string dir = kDir + "/" + d.gpu + "/" + d.dir + "/";
  const std::string out_tag = std::string(d.out) == "f32" ? "fp32" : "fp16";
  const auto a = read_words(dir + "a_" + d.gpu + "_" + d.dir + ".txt", 16);
  const auto b = read_words(dir + "b_" + d.gpu + "_" + d.dir + ".txt", 16);
  const auto c = read_words(dir + "c_" + d.gpu + "_fp32.txt", 2);
  const auto want = read_words(dir + "d_" + d.gpu + "_" + out_tag + ".txt", 2);
  ASSERT_EQ(a.size(), 5000u);
  ASSERT_TRUE(b.size() == a.size() && c.size() == a.size() && want.size() == a.size());

  const Format f32 = parse_format("f32"), in = parse_format(d.input), out = parse_format(d.out);
  const FdpaParams p = find_matrix_unit(d.preset, in, out);
  const FdpaKernel kernel(p, in, out);
  // Inputs are fp32 patterns of exactly representable values; tf32 rows hold fp32 values the
  // hardware truncates to tf32 (README). fp16-output rows used C rounded to fp16 (RNE).
  Rounding rz;
  rz.mode = RoundingMode::rtz;
  int matched = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size()) << "row " << i + 1;
    std::vector<std::uint64_t> av, bv;
    for (std::uint32_t x : a[i]) av.push_back(convert(x, f32, in, rz).bits);
    for (std::uint32_t x : b[i]) bv.push_back(convert(x, f32, in, rz).bits);
    const std::uint64_t cv = d.c_is_zero ? 0 : convert(c[i][0], f32, out, Rounding{}).bits;
    const std::uint64_t got = fdpa(p, in, out, av, bv, cv);
    const std::uint64_t got32 = convert(got, out, f32, Rounding{}).bits;
    // The fast path (what dot and gemm run) against the same recorded row.
    const std::uint64_t fast32 = convert(kernel.dot(av, bv, cv), out, f32, Rounding{}).bits;
    if (fast32 != want[i][0])
      ADD_FAILURE() << d.gpu << " " << d.dir << " row " << i + 1 << ": FdpaKernel " << std::hex
                    << fast32 << ", hardware " << want[i][0];
    if (got32 == want[i][0]) ++matched;
    else ADD_FAILURE() << d.gpu << " " << d.dir << " row " << i + 1 << ": model " << std::hex
                       << got32 << ", hardware " << want[i][0];
    if (i + 1 - matched > 5) break;
  }
  EXPECT_EQ(matched, 5000);
  std::printf("%s %s -> %s: %d/5000 rows bit-exact\n", d.gpu, d.dir, d.out, matched);
}

INSTANTIATE_TEST_SUITE_P(
    Recorded, TensorCoreDump,
    ::testing::Values(Dump{"V100", "fp16", "f16", "f32", "volta", false},
                      Dump{"V100", "fp16", "f16", "f16", "volta", false},
                      Dump{"A100", "fp16", "f16", "f32", "ampere", false},
                      Dump{"A100", "fp16", "f16", "f16", "ampere", false},
                      Dump{"A100", "bf16", "bf16", "f32", "ampere", false},
                      Dump{"A100", "tf32", "tf32", "f32", "ampere", false},
                      Dump{"H100", "fp16", "f16", "f32", "hopper", false},
                      Dump{"H100", "fp16", "f16", "f16", "hopper", false},
                      Dump{"H100", "bf16", "bf16", "f32", "hopper", false},
                      Dump{"H100", "tf32", "tf32", "f32", "hopper", false},
                      Dump{"H100", "E4M3", "e4m3", "f32", "hopper", true},
                      Dump{"H100", "E5M2", "e5m2", "f32", "hopper", true},
                      // Recorded with fp8 mma.sync and an f16 accumulator, which ptxas
                      // emulates on Hopper (see hopper-mma in matrix_presets.cpp).
                      Dump{"H100", "E4M3", "e4m3", "f16", "hopper-mma", false},
                      Dump{"H100", "E5M2", "e5m2", "f16", "hopper-mma", false}),
    [](const auto& info) {
      return std::string(info.param.gpu) + "_" + info.param.dir + "_to_" + info.param.out;
    });

TEST(MatrixUnitPresets, UnknownNamesAndFormatsAreErrors) {
  const Format f16 = parse_format("f16"), f32 = parse_format("f32");
  EXPECT_THROW(find_matrix_unit("hoper", f16, f32), Error);
  EXPECT_THROW(find_matrix_unit("volta", parse_format("bf16"), f32), Error);
  EXPECT_THROW(find_matrix_unit("hopper", f16, parse_format("e4m3")), Error);
  // fp8 into bf16 is no instruction of these units; into f16 the 13-bit accumulator cut is gone
  // (Hopper wgmma: measured on an H200; Ada mma.sync: MMA-Sim 2.1.1).
  EXPECT_THROW(find_matrix_unit("ada", parse_format("e4m3"), parse_format("bf16")), Error);
  EXPECT_THROW(find_matrix_unit("hopper", parse_format("e5m2"), parse_format("bf16")), Error);
  EXPECT_EQ(find_matrix_unit("hopper", parse_format("e4m3"), f16).acc_frac_bits, -1);
  EXPECT_EQ(find_matrix_unit("ada", parse_format("e4m3"), f16).acc_frac_bits, -1);
}

}  // namespace
}  // namespace fpconform
