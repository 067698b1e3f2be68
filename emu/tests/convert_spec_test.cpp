// Conversions against facts stated by the specs (OCP OFP8, IEEE 754, P3109) and NVIDIA's
// documented SATFINITE/NOSAT results. The exhaustive cross-check against MPFR is in suites/.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "fpconform/convert.hpp"

using namespace fpconform;

namespace {
std::uint64_t f32_bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
const Format& fmt(const char* n) {
  static std::map<std::string, Format> cache;  // node-based: references stay valid
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, parse_format(n)).first;
  return it->second;
}
Rounded from_f32(float x, const char* to, Rounding r = {}) {
  return convert(f32_bits(x), fmt("f32"), fmt(to), r);
}
Rounding sat(Saturation s, RoundingMode m = RoundingMode::rne) {
  Rounding r;
  r.sat = s;
  r.mode = m;
  return r;
}
}  // namespace

TEST(ConvertSpec, E4m3OverflowAsOcpAndNvidiaDefineIt) {
  // 464 is the midpoint of 448 (1.110b) and 480 (1.111b, not finite): ties to even give 448.
  EXPECT_EQ(from_f32(464.f, "e4m3").bits, 0x7Eu);
  EXPECT_EQ(from_f32(464.f, "e4m3").flags.bits, Flags::inexact);
  // Above it the rounded value 480 exceeds max: NaN without saturation (NVIDIA __NV_NOSAT) ...
  EXPECT_EQ(from_f32(465.f, "e4m3").bits, 0x7Fu);
  EXPECT_EQ(from_f32(465.f, "e4m3").flags.bits, Flags::overflow | Flags::inexact);
  EXPECT_EQ(from_f32(-500.f, "e4m3").bits, 0xFFu);
  // ... and +-448 with SATFINITE, infinities included.
  EXPECT_EQ(from_f32(500.f, "e4m3", sat(Saturation::finite)).bits, 0x7Eu);
  EXPECT_EQ(from_f32(-INFINITY, "e4m3", sat(Saturation::finite)).bits, 0xFEu);
  EXPECT_EQ(from_f32(INFINITY, "e4m3").bits, 0x7Fu);
  EXPECT_EQ(from_f32(INFINITY, "e4m3").flags.bits, Flags::invalid);
  // IEEE: round toward zero never overflows to infinity/NaN.
  EXPECT_EQ(from_f32(1e6f, "e4m3", sat(Saturation::none, RoundingMode::rtz)).bits, 0x7Eu);
}

TEST(ConvertSpec, E5m2IsIeeeLike) {
  EXPECT_EQ(from_f32(57344.f, "e5m2").bits, 0x7Bu);
  EXPECT_EQ(from_f32(61440.f, "e5m2").bits, 0x7Cu);  // tie to the (even) next binade: inf
  EXPECT_EQ(from_f32(61439.f, "e5m2").bits, 0x7Bu);
  EXPECT_EQ(from_f32(61440.f, "e5m2", sat(Saturation::finite)).bits, 0x7Bu);
  EXPECT_EQ(from_f32(INFINITY, "e5m2", sat(Saturation::propagate)).bits, 0x7Cu);
  EXPECT_EQ(from_f32(1e9f, "e5m2", sat(Saturation::propagate)).bits, 0x7Bu);
  // infinite: overflow is inf in every direction (NVIDIA's truncating tensor-core output)
  EXPECT_EQ(from_f32(1e9f, "e5m2", sat(Saturation::infinite, RoundingMode::rtz)).bits, 0x7Cu);
  EXPECT_EQ(from_f32(-1e9f, "e5m2", sat(Saturation::infinite, RoundingMode::up)).bits, 0xFCu);
  EXPECT_EQ(from_f32(57345.f, "e5m2", sat(Saturation::infinite, RoundingMode::rtz)).bits, 0x7Bu);  // no overflow
  EXPECT_EQ(from_f32(0x1p-16f, "e5m2").bits, 0x01u);
  EXPECT_EQ(from_f32(0x1p-17f, "e5m2").bits, 0x00u);           // tie to even: 0
  EXPECT_EQ(from_f32(0x1.8p-17f, "e5m2").bits, 0x01u);
  EXPECT_EQ(from_f32(-0x1p-18f, "e5m2").bits, 0x80u);          // -0
}

TEST(ConvertSpec, FnuzHasOneZero) {
  EXPECT_EQ(from_f32(-0.0f, "e4m3fnuz").bits, 0x00u);
  EXPECT_EQ(from_f32(-0x1p-20f, "e4m3fnuz").bits, 0x00u);
  EXPECT_EQ(from_f32(NAN, "e4m3fnuz").bits, 0x80u);
  EXPECT_EQ(from_f32(240.f, "e4m3fnuz").bits, 0x7Fu);
  EXPECT_EQ(from_f32(1000.f, "e4m3fnuz").bits, 0x80u);  // overflow without saturation: NaN
}

TEST(ConvertSpec, Fp4Values) {
  // OCP MX v1.0 e2m1: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
  const float values[] = {0.f, 0.5f, 1.f, 1.5f, 2.f, 3.f, 4.f, 6.f};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(from_f32(values[c], "e2m1").bits, c);
    EXPECT_EQ(from_f32(-values[c], "e2m1").bits, c | 8u);
  }
  EXPECT_EQ(from_f32(5.f, "e2m1").bits, 0x6u);   // tie between 4 and 6: even code (4 = 0b110)
  EXPECT_EQ(from_f32(7.f, "e2m1").bits, 0x7u);   // saturates: no inf, no NaN
  EXPECT_EQ(from_f32(1.25f, "e2m1").bits, 0x2u);
  EXPECT_EQ(from_f32(1.25f, "e2m1", sat(Saturation::none, RoundingMode::rna)).bits, 0x3u);
}

TEST(ConvertSpec, Ue8m0) {
  EXPECT_EQ(from_f32(1.f, "ue8m0").bits, 127u);
  EXPECT_EQ(from_f32(0x1p-127f, "ue8m0").bits, 0u);
  EXPECT_EQ(from_f32(-1.f, "ue8m0").bits, 0xFFu);
  EXPECT_EQ(from_f32(3.f, "ue8m0", sat(Saturation::none, RoundingMode::rtz)).bits, 128u);
  EXPECT_EQ(from_f32(3.f, "ue8m0", sat(Saturation::none, RoundingMode::up)).bits, 129u);
}

TEST(ConvertSpec, TininessBeforeAndAfterRounding) {
  // f16: the largest value below 2^-14 that rounds up to 2^-14 under RNE. It is tiny before
  // rounding but not after (IEEE 754 7.5).
  const float x = 0x1.FFFp-15f;  // 2^-14 - 2^-27
  Rounding before;
  before.tininess = Tininess::before_rounding;
  Rounding after;
  after.tininess = Tininess::after_rounding;
  EXPECT_EQ(from_f32(x, "f16", before).bits, 0x0400u);
  EXPECT_EQ(from_f32(x, "f16", before).flags.bits, Flags::underflow | Flags::inexact);
  EXPECT_EQ(from_f32(x, "f16", after).flags.bits, Flags::inexact);
  after.ftz = true;
  EXPECT_EQ(from_f32(x, "f16", after).bits, 0x0400u);
  before.ftz = true;
  EXPECT_EQ(from_f32(x, "f16", before).bits, 0x0000u);
}

TEST(ConvertSpec, RoundToOdd) {
  Rounding r;
  r.mode = RoundingMode::odd;
  EXPECT_EQ(from_f32(1.0f + 0x1p-20f, "f16", r).bits, 0x3C01u);
  EXPECT_EQ(from_f32(1.0f + 0x1p-9f, "f16", r).bits, 0x3C02u);  // exact: unchanged
  EXPECT_EQ(from_f32(1.0f + 0x1p-9f + 0x1p-20f, "f16", r).bits, 0x3C03u);
  EXPECT_EQ(from_f32(1.0f, "f16", r).bits, 0x3C00u);
}

TEST(ConvertSpec, StochasticModesFollowTheirDefinitions) {
  // 1 + 3/8 ulp of bf16 (ulp = 2^-7): f = 0.375.
  const float x = 1.0f + 0.375f * 0x1p-7f;
  auto sr = [&](RoundingMode m, int n, std::uint64_t rnd) {
    Rounding r;
    r.mode = m;
    r.stochastic_bits = n;
    r.random = rnd;
    return from_f32(x, "bf16", r).bits;
  };
  // stochastic_c: floor(0.375*8) = 3; away iff 3 + r >= 8 <=> r >= 5.
  EXPECT_EQ(sr(RoundingMode::stochastic_c, 3, 4), 0x3F80u);
  EXPECT_EQ(sr(RoundingMode::stochastic_c, 3, 5), 0x3F81u);
  // stochastic_exact: away iff r < 0.375*8 = 3.
  EXPECT_EQ(sr(RoundingMode::stochastic_exact, 3, 2), 0x3F81u);
  EXPECT_EQ(sr(RoundingMode::stochastic_exact, 3, 3), 0x3F80u);
  // stochastic_b: away iff 0.375 + (r + 0.5)/4 >= 1 <=> r >= 2 (n = 2).
  EXPECT_EQ(sr(RoundingMode::stochastic_b, 2, 1), 0x3F80u);
  EXPECT_EQ(sr(RoundingMode::stochastic_b, 2, 2), 0x3F81u);
  // stochastic_a: RNE(0.375*2) = RNE(0.75) = 1; away iff 1 + r >= 2 <=> r >= 1 (n = 1).
  EXPECT_EQ(sr(RoundingMode::stochastic_a, 1, 0), 0x3F80u);
  EXPECT_EQ(sr(RoundingMode::stochastic_a, 1, 1), 0x3F81u);
}

TEST(ConvertSpec, NanPayloadsMoveLeftAligned) {
  const Format& f32 = fmt("f32");
  const Format& f16 = fmt("f16");
  // f32 quiet NaN with payload 0x3FF << 13 keeps the top 9 payload bits in f16.
  EXPECT_EQ(convert(0x7FC00000u | (0x1FFu << 13), f32, f16, {}).bits, 0x7FFFu);
  // Signaling f32 NaN: quieted, invalid raised, sign kept.
  const Rounded s = convert(0xFF800001u, f32, f16, {});
  EXPECT_EQ(s.bits, 0xFE00u);
  EXPECT_EQ(s.flags.bits, Flags::invalid);
  // f16 -> f32 widens the payload on the right.
  EXPECT_EQ(convert(0x7E01u, f16, f32, {}).bits, 0x7FC02000u);
}
