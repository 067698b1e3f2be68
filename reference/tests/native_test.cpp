// The oracle against this machine's own floating point: F16C (VCVTPS2PH / VCVTPH2PS, with the
// four immediate rounding controls and the MXCSR flags), SSE conversions between float and
// double under the four MXCSR rounding modes, and the native values of f32/f64 codes.
#include <cfenv>
#include <cmath>
#include <random>
#include <vector>

#include <immintrin.h>

#include "test_util.hpp"

using namespace reftest;
namespace ref = fpconform::reference;
using M = RoundingMode;

namespace {

// MXCSR flag bits: IE 0x01, DE 0x02, ZE 0x04, OE 0x08, UE 0x10, PE 0x20.
std::uint8_t flags_from_mxcsr(std::uint32_t csr) {
  std::uint8_t f = 0;
  if (csr & 0x01) f |= INV;
  if (csr & 0x08) f |= OF;
  if (csr & 0x10) f |= UF;
  if (csr & 0x20) f |= IX;
  return f;
}

// One VCVTPS2PH with immediate rounding control Imm (0 nearest, 1 down, 2 up, 3 toward zero),
// run with MXCSR = all exceptions masked, no FTZ/DAZ; returns the f16 bits and the flags.
template <int Imm>
OracleResult f16c_from_f32(std::uint32_t in) {
  std::uint32_t csr_in = 0x1F80, csr_out = 0;
  __m128 x = _mm_castsi128_ps(_mm_cvtsi32_si128(static_cast<int>(in)));
  __m128i res;
  asm volatile(
      "ldmxcsr %[cin]\n\t"
      "vcvtps2ph %[imm], %[x], %[res]\n\t"
      "stmxcsr %[cout]\n\t"
      : [res] "=x"(res), [cout] "=m"(csr_out)
      : [x] "x"(x), [imm] "i"(Imm), [cin] "m"(csr_in)
      : "memory");
  return {static_cast<std::uint16_t>(_mm_cvtsi128_si32(res)), flags_from_mxcsr(csr_out)};
}

OracleResult f16c_to_f32(std::uint16_t in) {
  std::uint32_t csr_in = 0x1F80, csr_out = 0;
  __m128i x = _mm_cvtsi32_si128(in);
  __m128 res;
  asm volatile(
      "ldmxcsr %[cin]\n\t"
      "vcvtph2ps %[x], %[res]\n\t"
      "stmxcsr %[cout]\n\t"
      : [res] "=x"(res), [cout] "=m"(csr_out)
      : [x] "x"(x), [cin] "m"(csr_in)
      : "memory");
  return {static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_castps_si128(res))),
          flags_from_mxcsr(csr_out)};
}

struct CsrSaver {
  std::uint32_t saved = _mm_getcsr();
  ~CsrSaver() { _mm_setcsr(saved); }
};

// f32 inputs that exercise f16: every f16 value, the f32 values around it and around each
// midpoint; random f32 codes concentrated on the f16 range; specials.
std::vector<std::uint32_t> f16_probe_inputs() {
  std::vector<std::uint32_t> v;
  const Format H = fmt("f16");
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    // f16 values, their midpoints, and the f32 neighbours of both (all exact in double/f32).
    const double a = val(h, H);
    const double b = h + 1 < 0x7C00 ? val(h + 1, H) : 65536.0;
    const std::uint32_t c = f2u(static_cast<float>(a));
    const std::uint32_t mid = f2u(static_cast<float>((a + b) / 2));
    for (std::uint32_t base : {c, mid})
      for (int d = -1; d <= 1; ++d)
        if (base + d < 0x7F800000u) v.push_back(base + d);
  }
  std::mt19937_64 rng(0xF16C);
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t exp = 127 - 30 + static_cast<std::uint32_t>(rng() % 48);
    v.push_back((exp << 23) | static_cast<std::uint32_t>(rng() & 0x7FFFFF));
  }
  for (int i = 0; i < 50000; ++i) v.push_back(static_cast<std::uint32_t>(rng()));
  for (std::uint32_t s : {0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00800000u, 0x7F7FFFFFu,
                          0x7F800000u, 0x7F800001u, 0x7FA00000u, 0x7FBFFFFFu, 0x7FC00000u,
                          0x7FC00001u, 0x7FFFFFFFu, 0x7FE00000u, 0x7F802000u, 0x7F801FFFu})
    v.push_back(s);
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] ^ 0x80000000u);
  return v;
}

bool have_f16c() { return __builtin_cpu_supports("f16c"); }

}  // namespace

TEST(Native, F32ToF16MatchesF16C) {
  if (!have_f16c()) GTEST_SKIP() << "this CPU has no F16C (VCVTPS2PH); native f16 check skipped";
  CsrSaver keep;
  const Format F32 = fmt("f32");
  const Format H = fmt("f16");
  const auto inputs = f16_probe_inputs();
  const M modes[4] = {M::rne, M::down, M::up, M::rtz};
  long bad = 0, checked = 0;
  for (int mi = 0; mi < 4; ++mi) {
    const Rounding r = mode(modes[mi]);
    for (std::uint32_t in : inputs) {
      OracleResult hw;
      switch (mi) {
        case 0: hw = f16c_from_f32<0>(in); break;
        case 1: hw = f16c_from_f32<1>(in); break;
        case 2: hw = f16c_from_f32<2>(in); break;
        default: hw = f16c_from_f32<3>(in); break;
      }
      const OracleResult o = ref::convert(in, F32, H, r);
      ++checked;
      if (!(o == hw)) {
        if (++bad <= 10)
          ADD_FAILURE() << "f32 0x" << std::hex << in << " mode " << mi << ": oracle 0x" << o.bits
                        << " flags 0x" << int(o.flags) << ", F16C 0x" << hw.bits << " flags 0x"
                        << int(hw.flags);
      }
    }
  }
  EXPECT_EQ(bad, 0) << "of " << checked;
  RecordProperty("checked", static_cast<int>(checked));
}

TEST(Native, F16ToF32MatchesF16CExhaustive) {
  if (!have_f16c()) GTEST_SKIP() << "this CPU has no F16C (VCVTPH2PS); native f16 check skipped";
  CsrSaver keep;
  const Format F32 = fmt("f32");
  const Format H = fmt("f16");
  long bad = 0;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const OracleResult hw = f16c_to_f32(static_cast<std::uint16_t>(h));
    const OracleResult o = ref::convert(h, H, F32, {});
    if (!(o == hw) && ++bad <= 10)
      ADD_FAILURE() << "f16 0x" << std::hex << h << ": oracle 0x" << o.bits << " flags 0x"
                    << int(o.flags) << ", F16C 0x" << hw.bits << " flags 0x" << int(hw.flags);
  }
  EXPECT_EQ(bad, 0);
}

TEST(Native, F16NanPayloadsByHand) {
  const Format F32 = fmt("f32");
  const Format H = fmt("f16");
  // f32 sNaN 0x7F800001: payload is the lowest of 22 bits; f16 keeps the top 9 -> 0, quiet set.
  EXPECT_EQ(ref::convert(0x7F800001, F32, H, {}), R(0x7E00, INV));
  EXPECT_EQ(ref::convert(0x7FC00001, F32, H, {}), R(0x7E00, 0));
  // 0xFFA00000: sign, sNaN, top payload bit -> f16 0x8000 | 0x7C00 | 0x200 | 0x100.
  EXPECT_EQ(ref::convert(0xFFA00000, F32, H, {}), R(0xFF00, INV));
  // f16 sNaN 0x7C01 -> f32: payload bit 0 of 9 lands at bit 13 of f32's 22: 0x7FC02000.
  EXPECT_EQ(ref::convert(0x7C01, H, F32, {}), R(0x7FC02000, INV));
  // f32 -> e5m2: one payload bit.
  EXPECT_EQ(ref::convert(0x7FA00000, F32, fmt("e5m2"), {}), R(0x7F, INV));
  EXPECT_EQ(ref::convert(0x7F800001, F32, fmt("e5m2"), {}), R(0x7E, INV));
  EXPECT_EQ(ref::convert(0xFFC00000, F32, fmt("e5m2"), {}), R(0xFE, 0));
  // Into single-NaN formats the payload goes; the sign stays where the encoding has one.
  EXPECT_EQ(ref::convert(0xFFC00000, F32, fmt("e4m3"), {}), R(0xFF, 0));
  EXPECT_EQ(ref::convert(0xFF800001, F32, fmt("e4m3"), {}), R(0xFF, INV));
  EXPECT_EQ(ref::convert(0xFFC00000, F32, fmt("e4m3fnuz"), {}), R(0x80, 0));
  EXPECT_EQ(ref::convert(0x7FC00000, F32, fmt("ue8m0"), {}), R(0xFF, 0));
  EXPECT_EQ(ref::convert(0x7F800001, F32, fmt("e2m1"), {}), R(0x0, INV));
  EXPECT_EQ(ref::convert(0x7FC00000, F32, fmt("e2m1"), {}), R(0x0, INV));
  // Out of single-NaN formats: quiet, default payload; all_ones NaNs keep their sign bit.
  EXPECT_EQ(ref::convert(0x7F, fmt("e4m3"), H, {}), R(0x7E00, 0));
  EXPECT_EQ(ref::convert(0xFF, fmt("e4m3"), H, {}), R(0xFE00, 0));
  EXPECT_EQ(ref::convert(0xFF, fmt("ue8m0"), F32, {}), R(0x7FC00000, 0));
  // The single NaN 0x80 of fnuz / P3109 has no sign (its sign bit is part of the encoding).
  EXPECT_EQ(ref::convert(0x80, fmt("e4m3fnuz"), H, {}), R(0x7E00, 0));
  EXPECT_EQ(ref::convert(0x80, fmt("binary8p4se"), fmt("e4m3"), {}), R(0x7F, 0));
  // bf16 sNaN -> f32: payload (6 bits) left-aligned into 22.
  EXPECT_EQ(ref::convert(0x7F81, fmt("bf16"), F32, {}), R(0x7FC10000, INV));
  EXPECT_EQ(ref::convert(0xFFC1, fmt("bf16"), F32, {}), R(0xFFC10000, 0));
}

TEST(Native, F32DecodeMatchesFloat) {
  const Format F32 = fmt("f32");
  std::mt19937_64 rng(32);
  std::vector<std::uint32_t> codes = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF,
                                      0x00800000, 0x3F800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000,
                                      0xFF800000, 0x7F800001, 0x7FC00000, 0xFFFFFFFF, 0x7FBFFFFF};
  for (int i = 0; i < 200000; ++i) codes.push_back(static_cast<std::uint32_t>(rng()));
  Mp m;
  for (std::uint32_t c : codes) {
    const float x = u2f(c);
    bool sig = false;
    const bool ok = ref::decode(m, c, F32, false, &sig);
    if (std::isnan(x)) {
      EXPECT_FALSE(ok);
      EXPECT_EQ(sig, (c & 0x00400000u) == 0) << std::hex << c;
      EXPECT_EQ(ref::classify(c, F32), ref::CodeClass::nan);
      continue;
    }
    ASSERT_TRUE(ok);
    const float back = mpfr_get_flt(m, MPFR_RNDN);
    EXPECT_EQ(f2u(back), c) << std::hex << c;  // sign of zero included
    EXPECT_EQ(mpfr_cmp_d(m, static_cast<double>(x)), 0) << std::hex << c;
    if (std::isinf(x)) EXPECT_EQ(ref::classify(c, F32), ref::CodeClass::inf);
    else if (x == 0) EXPECT_EQ(ref::classify(c, F32), ref::CodeClass::zero);
    else EXPECT_EQ(ref::classify(c, F32), ref::CodeClass::finite);
  }
  // f64 codes too
  const Format F64 = fmt("f64");
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t c = rng();
    const double x = u2d(c);
    if (std::isnan(x)) continue;
    ASSERT_TRUE(ref::decode(m, c, F64, false));
    EXPECT_EQ(d2u(mpfr_get_d(m, MPFR_RNDN)), c);
  }
}

TEST(Native, F32F64RoundTrip) {
  // f32 -> f64 matches the native widening (CVTSS2SD: quiets sNaN, payload left-aligned) and
  // f64 -> f32 brings every f32 back unchanged.
  const Format F32 = fmt("f32");
  const Format F64 = fmt("f64");
  std::mt19937_64 rng(6432);
  std::vector<std::uint32_t> codes = {0x7F800001, 0xFFA00000, 0x7FC00000, 0x00000001, 0x80000000};
  for (int i = 0; i < 200000; ++i) codes.push_back(static_cast<std::uint32_t>(rng()));
  for (std::uint32_t c : codes) {
    volatile float xf = u2f(c);
    volatile double xd = xf;
    const OracleResult up = ref::convert(c, F32, F64, {});
    const bool snan = std::isnan(u2f(c)) && (c & 0x00400000u) == 0;
    ASSERT_EQ(up, R(d2u(xd), snan ? INV : 0)) << std::hex << c;
    const OracleResult down = ref::convert(up.bits, F64, F32, {});
    const std::uint32_t want = snan ? (c | 0x00400000u) : c;
    ASSERT_EQ(down, R(want, 0)) << std::hex << c;
  }
}

TEST(Native, F64ToF32MatchesSse) {
  // CVTSD2SS under the four MXCSR rounding modes, flags from fetestexcept. x86 detects
  // tininess after rounding.
  const Format F32 = fmt("f32");
  const Format F64 = fmt("f64");
  std::mt19937_64 rng(0x5d2f);
  std::vector<std::uint64_t> codes;
  for (int i = 0; i < 60000; ++i) {
    // exponents around the f32 range (normal, subnormal, overflow), random significands
    const std::uint64_t e = 1023 - 160 + rng() % 300;
    std::uint64_t t = rng() & 0xFFFFFFFFFFFFFull;
    if (i % 4 == 0) t &= ~0x1FFFFFFFull, t |= (rng() % 3 == 0 ? 0x10000000ull : 0);  // ties
    codes.push_back((e << 52) | t | (rng() & 1 ? 0x8000000000000000ull : 0));
  }
  for (int i = 0; i < 20000; ++i) codes.push_back(rng());
  const int fe[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  const M modes[4] = {M::rne, M::down, M::up, M::rtz};
  const int saved = std::fegetround();
  long bad = 0;
  for (int mi = 0; mi < 4; ++mi) {
    for (std::uint64_t c : codes) {
      volatile double in = u2d(c);
      std::fesetround(fe[mi]);
      std::feclearexcept(FE_ALL_EXCEPT);
      volatile float out = in;
      const int ex = std::fetestexcept(FE_ALL_EXCEPT);
      std::fesetround(saved);
      std::uint8_t fl = 0;
      if (ex & FE_INEXACT) fl |= IX;
      if (ex & FE_UNDERFLOW) fl |= UF;
      if (ex & FE_OVERFLOW) fl |= OF;
      if (ex & FE_INVALID) fl |= INV;
      const OracleResult hw{f2u(out), fl};
      const OracleResult o = ref::convert(c, F64, F32, mode(modes[mi]));
      if (!(o == hw) && ++bad <= 10)
        ADD_FAILURE() << "f64 0x" << std::hex << c << " mode " << mi << ": oracle 0x" << o.bits
                      << "/" << int(o.flags) << " native 0x" << hw.bits << "/" << int(hw.flags);
    }
  }
  EXPECT_EQ(bad, 0);
}
