// The x86 presets against rows recorded on the units themselves (suites/data/cpu-units, a Xeon
// of family 6, model 207): every row of every file, NaN payloads and zero signs included. These
// run on any CPU, so the models of units a machine lacks are still checked against hardware.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/characterize/rows.hpp"
#include "fpconform/fdpa_spec.hpp"

namespace fpconform::characterize {
namespace {

struct RowsFile {
  const char* file;
  const char* preset;
};

class CpuRows : public ::testing::TestWithParam<RowsFile> {};

TEST_P(CpuRows, PresetReproducesEveryRow) {
  const std::string path = std::string(FPCONFORM_CPU_ROWS) + "/" + GetParam().file;
  const RecordedRows rows = read_rows(path);
  ASSERT_FALSE(rows.cases.empty());
  const Format& in = rows.in;
  const Format& out = rows.out;
  const FdpaParams model = parse_model(GetParam().preset, in, out);
  const std::vector<std::size_t> bad = disagreements(model, in, out, rows.cases);
  std::printf("%s: %s reproduces %zu of %zu rows\n", GetParam().file, GetParam().preset,
              rows.cases.size() - bad.size(), rows.cases.size());
  for (std::size_t i = 0; i < bad.size() && i < 5; ++i) ADD_FAILURE() << rows.where[bad[i]];
  EXPECT_TRUE(bad.empty());
}

constexpr RowsFile kFiles[] = {
    {"amx-bf16-k32-random.txt", "x86-amx-bf16"},
    {"amx-bf16-k32-sparse.txt", "x86-amx-bf16"},
    {"amx-bf16-k32-special.txt", "x86-amx-bf16"},
    {"amx-bf16-k64-random.txt", "x86-amx-bf16"},
    {"amx-bf16-k64-sparse.txt", "x86-amx-bf16"},
    {"amx-bf16-k64-special.txt", "x86-amx-bf16"},
    {"avx512-bf16-vdpbf16ps-random.txt", "x86-avx512-bf16"},
    {"avx512-bf16-vdpbf16ps-sparse.txt", "x86-avx512-bf16"},
    {"avx512-bf16-vdpbf16ps-special.txt", "x86-avx512-bf16"},
    {"avx512-fp16-fma-chain-k16-random.txt", "x86-avx512-fp16"},
    {"avx512-fp16-fma-chain-k16-sparse.txt", "x86-avx512-fp16"},
    {"avx512-fp16-fma-chain-k16-special.txt", "x86-avx512-fp16"},
};

INSTANTIATE_TEST_SUITE_P(Recorded, CpuRows, ::testing::ValuesIn(kFiles),
                         [](const ::testing::TestParamInfo<RowsFile>& i) {
                           std::string n = i.param.file;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace fpconform::characterize
