// The TestFloat line format: widths, case, flags, and what counts as malformed.
#include <gtest/gtest.h>

#include "fpconform/testfloat/line.hpp"

namespace fpconform::testfloat {
namespace {

Signature conv(const char* from, const char* to) {
  return Signature{{parse_format(from)}, parse_format(to)};
}

TEST(Line, HexDigitsPerFormat) {
  EXPECT_EQ(parse_format("e2m1").hex_digits(), 2);
  EXPECT_EQ(parse_format("e3m2").hex_digits(), 2);
  EXPECT_EQ(parse_format("e4m3").hex_digits(), 2);
  EXPECT_EQ(parse_format("bf16").hex_digits(), 4);
  EXPECT_EQ(parse_format("tf32").hex_digits(), 5);
  EXPECT_EQ(parse_format("f32").hex_digits(), 8);
  EXPECT_EQ(parse_format("f64").hex_digits(), 16);
}

TEST(Line, PutHexIsUpperCaseAndZeroPadded) {
  EXPECT_EQ(to_hex(0x7e, 2), "7E");
  EXPECT_EQ(to_hex(0x1, 2), "01");
  EXPECT_EQ(to_hex(0x1fc00, 5), "1FC00");
  EXPECT_EQ(to_hex(0xabcdef, 8), "00ABCDEF");
  EXPECT_EQ(to_hex(0xfff0000000000000ull, 16), "FFF0000000000000");
}

TEST(Line, FormatConversionLines) {
  const std::uint64_t a = 0x43E00000;
  EXPECT_EQ(format_line(conv("f32", "e4m3"), &a, 0x7e, 0x01), "43E00000 7E 01");
  const std::uint64_t b = 0x3F800000;
  EXPECT_EQ(format_line(conv("f32", "tf32"), &b, 0x1fc00, 0), "3F800000 1FC00 00");
  const std::uint64_t c = 0x3FF0000000000000ull;
  EXPECT_EQ(format_line(conv("f64", "bf16"), &c, 0x3f80, 0), "3FF0000000000000 3F80 00");
  const std::uint64_t d = 0x7;
  EXPECT_EQ(format_line(conv("e2m1", "f16"), &d, 0x4600, 0x10), "07 4600 10");
  EXPECT_EQ(format_capacity(conv("f32", "e4m3")), std::string("43E00000 7E 01").size());
}

TEST(Line, ParseCompleteLine) {
  Line l;
  EXPECT_EQ(parse_line("43E80000 7E 01", conv("f32", "e4m3"), LineKind::complete, l), "");
  EXPECT_EQ(l.operands[0], 0x43E80000u);
  EXPECT_EQ(l.result, 0x7Eu);
  EXPECT_EQ(l.flags, 0x01);
  EXPECT_TRUE(l.has_result);
  // Lower case, tabs, repeated spaces and CRLF are read too.
  EXPECT_EQ(parse_line("43e88000\t7f  05\r", conv("f32", "e4m3"), LineKind::complete, l), "");
  EXPECT_EQ(l.operands[0], 0x43E88000u);
  EXPECT_EQ(l.result, 0x7Fu);
  EXPECT_EQ(l.flags, 0x05);
}

TEST(Line, ParseOperandsOnlyForEval) {
  Line l;
  EXPECT_EQ(parse_line("3F800000", conv("f32", "e4m3"), LineKind::operands_or_complete, l), "");
  EXPECT_FALSE(l.has_result);
  EXPECT_EQ(parse_line("3F800000 38 00", conv("f32", "e4m3"), LineKind::operands_or_complete, l), "");
  EXPECT_TRUE(l.has_result);
  EXPECT_NE(parse_line("3F800000 38", conv("f32", "e4m3"), LineKind::operands_or_complete, l), "");
}

TEST(Line, MalformedLines) {
  Line l;
  const auto sig = conv("f32", "e4m3");
  auto err = [&](const char* text) { return parse_line(text, sig, LineKind::complete, l); };
  EXPECT_NE(err("43E80000 7E").find("expected 3 fields"), std::string::npos);
  EXPECT_NE(err("").find("got 0"), std::string::npos);
  EXPECT_NE(err("43E80000 7E 01 00").find("got 4"), std::string::npos);
  // 3 hex digits for an 8-bit format.
  EXPECT_NE(err("43E80000 07E 01").find("expected 2 hex digits for e4m3"), std::string::npos);
  EXPECT_NE(err("3E80000 7E 01").find("expected 8 hex digits"), std::string::npos);
  EXPECT_NE(err("43E8000G 7E 01").find("not a hex number"), std::string::npos);
  EXPECT_NE(err("43E80000 7E 1").find("flags"), std::string::npos);
  EXPECT_NE(err("43E80000 7E 20").find("mask 1F"), std::string::npos);
  EXPECT_NE(err("+3E80000 7E 01").find("not a hex number"), std::string::npos);
  // Bits that do not fit the format: e2m1 is 4 bits, tf32 19.
  EXPECT_NE(parse_line("0F 1F 00", conv("e2m1", "e2m1"), LineKind::complete, l).find("does not fit in 4 bits"),
            std::string::npos);
  EXPECT_NE(parse_line("80000 00000 00", conv("tf32", "tf32"), LineKind::complete, l).find("19 bits"),
            std::string::npos);
}

TEST(Line, ParseHexField) {
  std::uint64_t v = 0;
  std::string e;
  EXPECT_TRUE(parse_hex_field("FFFFFFFFFFFFFFFF", 16, 64, v, e));
  EXPECT_EQ(v, ~0ull);
  EXPECT_FALSE(parse_hex_field("1FF", 2, 8, v, e));
  EXPECT_FALSE(parse_hex_field("", 2, 8, v, e));
}

}  // namespace
}  // namespace fpconform::testfloat
