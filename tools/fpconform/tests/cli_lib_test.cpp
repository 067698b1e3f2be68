// The CLI's library parts: argument preparation, convert's value handling, the format listing.
#include <gtest/gtest.h>

#include "cli_args.hpp"
#include "fpconform/files/convert_values.hpp"
#include "eval_once.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/files/format_listing.hpp"

namespace fpconform::cli {
using namespace fpconform::files;
namespace {

using Args = std::vector<std::string>;

TEST(CliArgs, NegativeNumbers) {
  for (const char* s : {"-1", "-1.5e-3", "-.5", "-0x1p-3", "-inf", "-Infinity", "-nan", "-snan(0x1)"})
    EXPECT_TRUE(looks_like_negative_number(s)) << s;
  for (const char* s : {"-n", "--to", "-", "-rmin", "-seed", "1", "--"})
    EXPECT_FALSE(looks_like_negative_number(s)) << s;
}

TEST(CliArgs, PositionalsLast) {
  const std::set<std::string> vals = {"--to", "--round", "--random"};
  // Nothing to move: unchanged.
  EXPECT_EQ(positionals_last({"convert", "--to", "e4m3", "1", "2"}, vals, 0),
            (Args{"convert", "--to", "e4m3", "1", "2"}));
  // Negative numbers go after "--", in order; option values stay with their option.
  EXPECT_EQ(positionals_last({"convert", "1", "--to", "e4m3", "-2", "--ftz", "3", "--random", "-5"},
                             vals, 0),
            (Args{"convert", "--to", "e4m3", "--ftz", "--random", "-5", "--", "1", "-2", "3"}));
  // An explicit "--" is merged.
  EXPECT_EQ(positionals_last({"convert", "-1", "--", "-2"}, vals, 0),
            (Args{"convert", "--", "-1", "-2"}));
}

ConvertRequest request(const char* to, const char* from = nullptr) {
  ConvertRequest r;
  r.to = parse_format(to);
  if (from) r.from = parse_format(from);
  return r;
}

TEST(ConvertValues, Lines) {
  const auto out = convert_values(request("e4m3"), {"500", "464", "-431.99999999999994", "0x1p-10"});
  ASSERT_TRUE(out.errors.empty());
  EXPECT_EQ(out.lines, (Args{"0x7f nan overflow inexact", "0x7e 448 inexact", "0xfd -416 inexact",
                             "0x00 0 underflow inexact"}));
}

TEST(ConvertValues, RawBitsAndNotes) {
  auto out = convert_values(request("bf16", "f64"), {"0x3FF0100000001000", "0.1"});
  ASSERT_TRUE(out.errors.empty());
  EXPECT_EQ(out.lines[0], "0x3f81 1.0078125 inexact");
  EXPECT_EQ(out.lines[1], "0x3dcd 0.10009765625 inexact");
  ASSERT_EQ(out.notes.size(), 1u);  // 0.1 is not a double
  EXPECT_NE(out.notes[0].find("0x3fb999999999999a"), std::string::npos) << out.notes[0];
  // Without --from, 0x7e is the number 126.
  out = convert_values(request("e4m3"), {"0x7e"});
  EXPECT_EQ(out.lines[0], "0x70 128 inexact");  // 126: between 120 and 128
}

TEST(ConvertValues, ErrorsNameTheValue) {
  const auto out = convert_values(request("f32", "e4m3"), {"0x1ff", "abc", "0x7e"});
  ASSERT_EQ(out.errors.size(), 2u);
  EXPECT_NE(out.errors[0].find("value '0x1ff'"), std::string::npos) << out.errors[0];
  EXPECT_NE(out.errors[1].find("value 'abc'"), std::string::npos) << out.errors[1];
}

TEST(ConvertValues, IsRawBits) {
  EXPECT_TRUE(is_raw_bits("0x7e"));
  EXPECT_TRUE(is_raw_bits("0X7E"));
  EXPECT_FALSE(is_raw_bits("0x1.8p0"));
  EXPECT_FALSE(is_raw_bits("0x1p3"));
  EXPECT_FALSE(is_raw_bits("-0x7e"));
  EXPECT_FALSE(is_raw_bits("0x"));
}

TEST(ConvertValues, CodeOfValue) {
  const Format e4m3 = parse_format("e4m3");
  bool exact = false;
  EXPECT_EQ(code_of_value("0x7e", e4m3, "v", "--from", exact), 0x7eu);  // raw bits
  EXPECT_TRUE(exact);
  EXPECT_EQ(code_of_value("448", e4m3, "v", "--from", exact), 0x7eu);
  EXPECT_TRUE(exact);
  EXPECT_EQ(code_of_value("-1.5", e4m3, "v", "--from", exact), 0xbcu);
  EXPECT_EQ(code_of_value("0.3", e4m3, "v", "--from", exact), 0x2au);  // 0.3 -> 0.3125 = 1.25*2^-2
  EXPECT_FALSE(exact);
  try {
    code_of_value("0x100", e4m3, "operand a '0x100'", "operand a of e4m3_add", exact);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "operand a '0x100'");
    EXPECT_NE(std::string(e.what()).find("(operand a of e4m3_add)"), std::string::npos) << e.what();
  }
}

TEST(EvalOnce, Lines) {
  const auto f = testfloat::make_operation(Op::mul_add, parse_format("e4m3"));
  // 1.5 * 2 + 2^-9 = 3 + 2^-9: rounds to 3.
  const auto out = eval_once(*f, testfloat::Options{}, {"1.5", "2", "0x01"});
  EXPECT_EQ(out.lines, (Args{"a: 0x3c 1.5", "b: 0x40 2", "c: 0x01 0.001953125",
                             "result: 0x44 3 inexact", "testfloat: 3C 40 01 44 01"}));
  EXPECT_TRUE(out.notes.empty());
  const auto lt = testfloat::parse_function("bf16_lt");
  EXPECT_EQ(eval_once(*lt, testfloat::Options{}, {"-1", "-0"}).lines,
            (Args{"a: 0xbf80 -1", "b: 0x8000 -0", "result: 1 true -", "testfloat: BF80 8000 1 00"}));
}

TEST(EvalOnce, NotesAndErrors) {
  const auto f = testfloat::parse_function("bf16_add");
  const auto out = eval_once(*f, testfloat::Options{}, {"1", "0.1"});
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("operand b '0.1': not exact in bf16"), std::string::npos) << out.notes[0];
  auto where = [&](std::vector<std::string> values) {
    try {
      eval_once(*f, testfloat::Options{}, values);
    } catch (const Error& e) {
      return e.where();
    }
    return std::string("no error");
  };
  EXPECT_EQ(where({"1"}), "OPERAND");
  EXPECT_EQ(where({"1", "2", "3"}), "OPERAND");
  EXPECT_EQ(where({"1", "1.2.3"}), "operand b '1.2.3'");
  EXPECT_EQ(where({"0x10000", "1"}), "operand a '0x10000'");
}

TEST(FormatListing, Rows) {
  const auto rows = describe_builtin_formats();
  ASSERT_EQ(rows.size(), builtin_formats().size());
  const FormatInfo e4m3 = describe_format(parse_format("e4m3"));
  EXPECT_EQ(e4m3.max_finite.exact, "448");
  EXPECT_EQ(e4m3.max_finite.code, "0x7e");
  EXPECT_EQ(e4m3.min_normal.exact, "0.015625");
  ASSERT_TRUE(e4m3.min_subnormal);
  EXPECT_EQ(e4m3.min_subnormal->exact, "0.001953125");
  EXPECT_EQ(e4m3.nan_codes, (Args{"0x7f", "0xff"}));
  EXPECT_TRUE(e4m3.inf_codes.empty());
  EXPECT_TRUE(e4m3.negative_zero);
  const FormatInfo f16 = describe_format(parse_format("f16"));
  EXPECT_EQ(f16.inf_codes, (Args{"0x7c00", "0xfc00"}));
  EXPECT_EQ(f16.nan_codes, (Args{"0x7c01-0x7fff", "0xfc01-0xffff"}));
  const FormatInfo ue8m0 = describe_format(parse_format("ue8m0"));
  EXPECT_FALSE(ue8m0.min_subnormal);
  EXPECT_EQ(ue8m0.nan_codes, (Args{"0xff"}));
  const std::string table = formats_table(rows);
  EXPECT_NE(table.find("binary<K>p<P><s|u><e|f>"), std::string::npos);
  const auto j = formats_json(rows);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j.size(), rows.size());
}

}  // namespace
}  // namespace fpconform::cli
