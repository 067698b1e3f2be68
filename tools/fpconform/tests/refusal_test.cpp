// What the CLI refuses, and how it says so: numeric options (one parser for every command),
// thread counts (--threads and FPCONFORM_THREADS alike), .npy dtypes and shapes, custom: model
// specs, and control bytes in TestFloat fields.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/testfloat/function.hpp"
#include "fpconform/testfloat/line.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/files/matrix_io.hpp"
#include "numeric_options.hpp"

namespace fpconform::cli {
using namespace fpconform::files;
namespace {

// The message of the Error `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NumericOptions, IntegersInRange) {
  EXPECT_EQ(parse_integer_in("0", "--worst", 0, 1000000), 0);
  EXPECT_EQ(parse_integer_in("1000000", "--worst", 0, 1000000), 1000000);
  EXPECT_EQ(parse_integer_in("-3", "--x", -5, 5), -3);
  EXPECT_EQ(error_of([] { parse_integer_in("-1", "--worst", 0, 1000000); }),
            "--worst: must be an integer in 0..1000000, got -1");
  // INT_MIN fits an int, and is still out of range; so is anything that wraps a 64-bit integer.
  for (const char* bad : {"-2147483648", "1000001", "99999999999999999999", "-99999999999999999999",
                          "1e3", "1.0", "", " 5", "5 ", "+", "-", "0x10", "nan", "inf", "5x"})
    EXPECT_NE(error_of([&] { parse_integer_in(bad, "--worst", 0, 1000000); }), "") << bad;
}

TEST(NumericOptions, TheTextIsShownEscapedAndCut) {
  EXPECT_EQ(error_of([] { parse_integer_in(std::string("1\x01", 2), "--worst", 0, 9); }),
            "--worst: must be an integer in 0..9, got 1\\x01");
  const std::string msg = error_of([] { parse_integer_in(std::string(100000, '9'), "--worst", 0, 9); });
  EXPECT_LT(msg.size(), 400u) << msg;
  EXPECT_NE(msg.find("(100000 characters)"), std::string::npos) << msg;
}

TEST(NumericOptions, UnsignedCountsAndSeeds) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(parse_unsigned_in("18446744073709551615", "--seed", 0, kMax), kMax);
  EXPECT_EQ(error_of([] { parse_unsigned_in("18446744073709551616", "--seed", 0, kMax); }),
            "--seed: must be an integer in 0..18446744073709551615, got 18446744073709551616");
  // A negative count is refused, not read as 2^64 - 5 (and not even "-0").
  for (const char* bad : {"-5", "-0", "-18446744073709551615"})
    EXPECT_NE(error_of([&] { parse_unsigned_in(bad, "--cases", 0, kMax); }), "") << bad;
  EXPECT_EQ(error_of([] { parse_unsigned_in("0", "--cases", 1, 10); }),
            "--cases: must be an integer in 1..10, got 0");
}

TEST(NumericOptions, ThresholdsAreFiniteAndInRange) {
  EXPECT_EQ(parse_real_in("0", "--max-ulp", 0, kMaxTolerance), 0.0);
  EXPECT_EQ(parse_real_in("2.5", "--max-ulp", 0, kMaxTolerance), 2.5);
  EXPECT_EQ(parse_real_in("0x1p-3", "--max-rel", 0, kMaxTolerance), 0.125);
  EXPECT_EQ(parse_real_in("1e18", "--max-ulp", 0, kMaxTolerance), 1e18);
  EXPECT_EQ(error_of([] { parse_real_in("nan", "--max-ulp", 0, kMaxTolerance); }),
            "--max-ulp: must be a finite number in 0..1e+18, got nan");
  for (const char* bad : {"nan", "-nan", "NaN", "inf", "-inf", "infinity", "1e300", "1e400", "-1",
                          "-1e-300", "", " 1", "1 ", "1,5", "abc"})
    EXPECT_NE(error_of([&] { parse_real_in(bad, "--max-kl", 0, kMaxTolerance); }), "") << bad;
}

// The validators are what every command attaches: CLI11 puts the option's name in front.
TEST(NumericOptions, ValidatorsRefuseAtParseTime) {
  auto parse = [](std::vector<std::string> args) -> std::string {
    CLI::App app;
    int worst = 10;
    double max_ulp = -1;
    unsigned threads = 0;
    app.add_option("--worst", worst)->check(integer_in(0, 1000000));
    app.add_option("--max-ulp", max_ulp)->check(real_in(0, kMaxTolerance));
    add_threads_option(&app, threads, "threads");
    std::reverse(args.begin(), args.end());
    try {
      app.parse(args);
    } catch (const CLI::ParseError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(parse({"--worst", "-1"}), "--worst: must be an integer in 0..1000000, got -1");
  EXPECT_EQ(parse({"--worst", "-2147483648"}),
            "--worst: must be an integer in 0..1000000, got -2147483648");
  EXPECT_EQ(parse({"--max-ulp", "nan"}), "--max-ulp: must be a finite number in 0..1e+18, got nan");
  EXPECT_EQ(parse({"--max-ulp", "1e300"}),
            "--max-ulp: must be a finite number in 0..1e+18, got 1e300");
  EXPECT_EQ(parse({"--threads", "100000"}),
            "--threads: must be an integer in 0.." + std::to_string(kMaxThreads) +
                " (0: FPCONFORM_THREADS, else all cores), got 100000");
  EXPECT_EQ(parse({"--worst", "3", "--max-ulp", "0.5", "--threads", "7"}), "");
}

// Sets FPCONFORM_THREADS for one test, and restores it.
class ThreadsEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* e = std::getenv("FPCONFORM_THREADS")) saved_ = e;
  }
  void TearDown() override {
    if (saved_) setenv("FPCONFORM_THREADS", saved_->c_str(), 1);
    else unsetenv("FPCONFORM_THREADS");
  }
  std::optional<std::string> saved_;
};

TEST_F(ThreadsEnv, OneRuleForTheOptionAndTheVariable) {
  unsetenv("FPCONFORM_THREADS");
  EXPECT_EQ(default_thread_count(), hardware_threads());
  EXPECT_EQ(resolve_threads(0), hardware_threads());
  EXPECT_EQ(resolve_threads(7), 7u);
  EXPECT_EQ(resolve_threads(kMaxThreads), kMaxThreads);
  EXPECT_EQ(error_of([] { resolve_threads(100000); }),
            "--threads: must be an integer in 0.." + std::to_string(kMaxThreads) +
                " (0: all cores), got 100000");
  setenv("FPCONFORM_THREADS", "3", 1);
  EXPECT_EQ(default_thread_count(), 3u);
  EXPECT_EQ(resolve_threads(0), 3u);
  EXPECT_EQ(resolve_threads(5), 5u);  // the option wins over the variable
  setenv("FPCONFORM_THREADS", "0", 1);
  EXPECT_EQ(default_thread_count(), hardware_threads());
  setenv("FPCONFORM_THREADS", "", 1);
  EXPECT_EQ(default_thread_count(), hardware_threads());
  // Never ignored, never handed to std::thread: refused, naming the variable.
  setenv("FPCONFORM_THREADS", "100000", 1);
  EXPECT_EQ(error_of([] { default_thread_count(); }),
            "FPCONFORM_THREADS: must be an integer in 0.." + std::to_string(kMaxThreads) +
                " (0: all cores), got 100000");
  EXPECT_NE(error_of([] { resolve_threads(0); }), "");
  for (const char* bad : {"-1", "4x", " 4", "1e3", "99999999999999999999"}) {
    setenv("FPCONFORM_THREADS", bad, 1);
    EXPECT_NE(error_of([] { default_thread_count(); }).find("FPCONFORM_THREADS"), std::string::npos)
        << bad;
  }
}

// A .npy file in a scratch directory: header for `descr` and `shape`, then `data`.
class Npy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fpconform_refusal_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& descr, const std::string& shape,
                    const std::string& data) {
    std::string h = "{'descr': " + descr + ", 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(h.size() & 0xFF);
    bytes += static_cast<char>(h.size() >> 8);
    bytes += h + data;
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(Npy, RawCodesOnlyInTheFormatsWidth) {
  const std::string u8 = write("ones_u8.npy", "'|u1'", "(2, 2)", std::string(4, '\x01'));
  // A uint8 matrix of ones is not four bf16 subnormals: refused, naming the file and the dtype.
  const std::string msg = error_of([&] { read_matrix(u8, parse_format("bf16"), "--a"); });
  EXPECT_NE(msg.find(u8), std::string::npos) << msg;
  EXPECT_NE(msg.find("'|u1'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bf16 codes are 2 bytes"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { read_matrix(u8, parse_format("f32"), "--a"); }), "");
  // The width fpconform itself writes codes in is read as codes.
  const Matrix e4m3 = read_matrix(u8, parse_format("e4m3"), "--a");
  EXPECT_EQ(e4m3.codes, (std::vector<std::uint64_t>{1, 1, 1, 1}));
  const std::string u16 = write("one_u16.npy", "'<u2'", "(1, 2)", std::string("\x80\x3f\x00\x40", 4));
  EXPECT_EQ(read_matrix(u16, parse_format("bf16"), "--a").codes,
            (std::vector<std::uint64_t>{0x3f80, 0x4000}));
  EXPECT_NE(error_of([&] { read_matrix(u16, parse_format("e4m3"), "--a"); }).find("'<u2'"),
            std::string::npos);
  // Values are values, whatever their width.
  const std::string f4 = write("ones_f4.npy", "'<f4'", "(1, 1)", std::string("\x00\x00\x80\x3f", 4));
  EXPECT_EQ(read_matrix(f4, parse_format("bf16"), "--a").codes, (std::vector<std::uint64_t>{0x3f80}));
}

TEST_F(Npy, StructuredAndEmptyArraysSayWhatTheyAre) {
  const std::string rec = write("rec.npy", "[('a', '<f4'), ('b', '<i4')]", "(2, 2)", std::string(32, '\0'));
  const std::string msg = error_of([&] { read_matrix(rec, parse_format("f32"), "--a"); });
  EXPECT_NE(msg.find("structured dtype"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("endian"), std::string::npos) << msg;
  const std::string cols0 = write("cols0.npy", "'<f4'", "(4, 0)", "");
  const std::string m1 = error_of([&] { read_matrix(cols0, parse_format("f32"), "--a"); });
  EXPECT_NE(m1.find("empty dimension (no columns)"), std::string::npos) << m1;
  EXPECT_EQ(m1.find("2-D"), std::string::npos) << m1;
  const std::string rows0 = write("rows0.npy", "'<f4'", "(0, 3)", "");
  EXPECT_NE(error_of([&] { read_matrix(rows0, parse_format("f32"), "--a"); }).find("(no rows)"),
            std::string::npos);
  const std::string d1 = write("d1.npy", "'<f4'", "(4,)", std::string(16, '\0'));
  EXPECT_NE(error_of([&] { read_matrix(d1, parse_format("f32"), "--a"); }).find("expected a 2-D array"),
            std::string::npos);
}

TEST(ModelSpec, DuplicateKeysAreRefused) {
  const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32");
  EXPECT_EQ(error_of([&] { parse_model("custom:block=4,block=8", e4m3, f32, "--model"); }),
            "--model: parameter 'block' given twice");
  EXPECT_EQ(error_of([&] { parse_model("custom:structure=exact,frac_bits=3,structure=fused", e4m3, f32, "--model"); }),
            "--model: parameter 'structure' given twice");
  EXPECT_EQ(error_of([&] { parse_model("custom:block=4,frac_bits=3", e4m3, f32, "--model"); }), "");
}

TEST(ModelSpec, OneRangeMessagePerKey) {
  const Format e4m3 = parse_format("e4m3"), f32 = parse_format("f32");
  const std::string fused =
      "--model: block must be 1..64 with structure=fused (fused 1..64, pairwise 1..4096, exact 0..4096 "
      "where 0 is all of K, sequential and tree 0..4096, unused), got ";
  // However far out of range, the same range.
  EXPECT_EQ(error_of([&] { parse_model("custom:block=100", e4m3, f32, "--model"); }), fused + "100");
  EXPECT_EQ(error_of([&] { parse_model("custom:block=1000000000", e4m3, f32, "--model"); }),
            fused + "1000000000");
  EXPECT_EQ(error_of([&] { parse_model("custom:block=0", e4m3, f32, "--model"); }), fused + "0");
  const std::string huge = error_of([&] { parse_model("custom:block=99999999999", e4m3, f32, "--model"); });
  EXPECT_EQ(huge.rfind(fused, 0), 0u) << huge;
  // What another structure takes.
  EXPECT_EQ(error_of([&] { parse_model("custom:structure=pairwise,block=100", e4m3, f32, "--model"); }), "");
  EXPECT_EQ(error_of([&] { parse_model("custom:structure=exact,block=0", e4m3, f32, "--model"); }), "");
  EXPECT_NE(error_of([&] { parse_model("custom:structure=exact,block=5000", e4m3, f32, "--model"); })
                .find("block must be 0..4096 with structure=exact"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_model("custom:frac_bits=150", e4m3, f32, "--model"); })
                .find("frac_bits must be 0..100 with structure=fused, got 150"),
            std::string::npos);
}

TEST(TestFloatLines, ControlBytesInAFieldAreShownEscaped) {
  const auto fn = testfloat::parse_function("bf16_add");
  testfloat::Line line;
  const std::string text("3F80 3F80\0 4000 00", 18);
  const std::string err = testfloat::parse_line(text, fn->signature(), testfloat::LineKind::complete, line);
  // The whole message survives a C string: nothing after the NUL is lost.
  EXPECT_EQ(std::strlen(err.c_str()), err.size()) << err;
  EXPECT_NE(err.find("'3F80\\x00'"), std::string::npos) << err;
  EXPECT_NE(err.find("expected 4 hex digits"), std::string::npos) << err;
}

}  // namespace
}  // namespace fpconform::cli
