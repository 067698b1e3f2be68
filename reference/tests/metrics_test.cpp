// ulp_error, relative_error, code_distance.
#include <cmath>

#include "test_util.hpp"

using namespace reftest;
namespace ref = fpconform::reference;

namespace {
double ulp(std::uint64_t code, double exact, const char* f) {
  Mp m(53);
  mpfr_set_d(m, exact, MPFR_RNDN);
  return ref::ulp_error(code, m, fmt(f));
}
double rel(std::uint64_t code, double exact, const char* f) {
  Mp m(53);
  mpfr_set_d(m, exact, MPFR_RNDN);
  return ref::relative_error(code, m, fmt(f));
}
}  // namespace

TEST(Metrics, UlpError) {
  EXPECT_EQ(ulp(0x3C00, 1 + 0x1p-11, "f16"), 0.5);
  EXPECT_EQ(ulp(0x3C01, 1.0, "f16"), 1.0);
  EXPECT_EQ(ulp(0x3BFF, 1.0, "f16"), 0.5);  // 1 - 2^-11, measured in the ulp of 1 (2^-10)
  EXPECT_EQ(ulp(0x3C00, 1 - 0x1p-12, "f16"), 0.5);  // exact in [0.5, 1): ulp 2^-11
  EXPECT_EQ(ulp(0x0001, 0.0, "f16"), 1.0);  // subnormal ulp 2^-24
  EXPECT_EQ(ulp(0x0002, 0x1p-24, "f16"), 1.0);
  EXPECT_EQ(ulp(0xBC00, -1.0, "f16"), 0.0);
  EXPECT_EQ(ulp(0x7E, 464, "e4m3"), 0.5);
  EXPECT_EQ(ulp(0x7F, 464, "e4m3"), INFINITY);     // NaN vs finite
  EXPECT_EQ(ulp(0x7C00, 65520, "f16"), INFINITY);  // inf vs finite
  EXPECT_EQ(ulp(0x7C00, INFINITY, "f16"), 0.0);
  EXPECT_EQ(ulp(0xFC00, INFINITY, "f16"), INFINITY);
  EXPECT_EQ(ulp(0x7E00, NAN, "f16"), 0.0);
  EXPECT_EQ(ulp(0x3C00, NAN, "f16"), INFINITY);
  EXPECT_EQ(ulp(0x7E, 448, "e4m3"), 0.0);
  EXPECT_EQ(ulp(0x00, 0x1p-128, "ue8m0"), 0.5);  // no subnormals: ulp 2^emin below emin
}

TEST(Metrics, RelativeError) {
  EXPECT_EQ(rel(0x3C01, 1.0, "f16"), 0x1p-10);
  EXPECT_EQ(rel(0x3C00, 2.0, "f16"), 0.5);
  EXPECT_EQ(rel(0x0000, 0.0, "f16"), 0.0);
  EXPECT_EQ(rel(0x8000, 0.0, "f16"), 0.0);
  EXPECT_EQ(rel(0x0001, 0.0, "f16"), INFINITY);
  EXPECT_EQ(rel(0x7C00, 1.0, "f16"), INFINITY);
  EXPECT_EQ(rel(0x7E00, NAN, "f16"), 0.0);
}

TEST(Metrics, CodeDistance) {
  const Format H = fmt("f16");
  EXPECT_EQ(ref::code_distance(0x3C01, 0x3C00, H), 1);
  EXPECT_EQ(ref::code_distance(0x3C00, 0x3C01, H), -1);
  EXPECT_EQ(ref::code_distance(0x0000, 0x8000, H), 0);  // +0 and -0: the same value
  EXPECT_EQ(ref::code_distance(0x0001, 0x8001, H), 2);
  EXPECT_EQ(ref::code_distance(0x7BFF, 0xFBFF, H), 2 * 0x7BFF);
  EXPECT_EQ(ref::code_distance(0x7E, 0xFE, fmt("e4m3")), 252);
  EXPECT_EQ(ref::code_distance(0x80, 0x7F, fmt("ue8m0")), 1);
  EXPECT_EQ(ref::code_distance(0x01, 0xFF, fmt("e4m3fnuz")), 128);
  // signed, no zero, no subnormals: -minpos and +minpos are neighbours
  const Format nz = fmt("custom:e=3,m=1,signed=1,subnormals=0,zero=0,inf=none,nan=none");
  EXPECT_EQ(ref::code_distance(0x00, 0x10, nz), 1);
  EXPECT_EQ(ref::code_distance(0x01, 0x11, nz), 3);
  EXPECT_THROW(ref::code_distance(0x7C00, 0x0000, H), fpconform::Error);
  EXPECT_THROW(ref::code_distance(0x80, 0x00, fmt("e4m3fnuz")), fpconform::Error);
}
