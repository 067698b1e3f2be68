// Rounding cases worked out by hand from the specs (and from the libraries' published behaviour,
// as emu/SEMANTICS.md records it). Each comment shows the arithmetic.
#include <cmath>
#include <thread>
#include <vector>

#include "test_util.hpp"

using namespace reftest;
namespace ref = fpconform::reference;
using M = RoundingMode;
using S = Saturation;

TEST(Round, E4M3Overflow) {
  const Format F = fmt("e4m3");
  // Above 256 the quantum is 32: 448 = 14*32 (code 0x7E, even), 480 = 15*32.
  EXPECT_EQ(rd(448, F), R(0x7E, 0));
  EXPECT_EQ(rd(464, F), R(0x7E, IX));                    // tie 448|480 -> even 448
  EXPECT_EQ(rd(465, F), R(0x7F, OF | IX));               // -> 480 > maxf, NOSAT: NaN
  EXPECT_EQ(rd(-465, F), R(0xFF, OF | IX));              // NaN keeps the sign
  EXPECT_EQ(rd(465, F, mode(M::rne, S::finite)), R(0x7E, OF | IX));
  EXPECT_EQ(rd(-465, F, mode(M::rne, S::finite)), R(0xFE, OF | IX));
  EXPECT_EQ(rd(465, F, mode(M::rne, S::propagate)), R(0x7E, OF | IX));
  EXPECT_EQ(rd(1e30, F, mode(M::rne, S::finite)), R(0x7E, OF | IX));
  // Directed modes: rtz never leaves maxf (but still overflows when the rounded value is > maxf).
  EXPECT_EQ(rd(449, F, mode(M::rtz)), R(0x7E, IX));
  EXPECT_EQ(rd(480, F, mode(M::rtz)), R(0x7E, OF | IX));
  EXPECT_EQ(rd(449, F, mode(M::up)), R(0x7F, OF | IX));   // up, x > 0: away -> NaN
  EXPECT_EQ(rd(-449, F, mode(M::up)), R(0xFE, IX));       // up, x < 0: toward zero
  EXPECT_EQ(rd(449, F, mode(M::down)), R(0x7E, IX));
  EXPECT_EQ(rd(-449, F, mode(M::down)), R(0xFF, OF | IX));
  EXPECT_EQ(rd(-1000, F, mode(M::up)), R(0xFE, OF | IX));
  // Infinities: none in e4m3; NaN exists -> NaN with invalid unless SATFINITE.
  const double inf = INFINITY;
  EXPECT_EQ(rd(inf, F), R(0x7F, INV));
  EXPECT_EQ(rd(-inf, F), R(0xFF, INV));
  EXPECT_EQ(rd(inf, F, mode(M::rne, S::propagate)), R(0x7F, INV));
  EXPECT_EQ(rd(inf, F, mode(M::rne, S::finite)), R(0x7E, OF | IX));
  EXPECT_EQ(rd(-inf, F, mode(M::rtz, S::finite)), R(0xFE, OF | IX));
  // NaN (a default NaN from MPFR): quiet, no flag.
  EXPECT_EQ(rd(NAN, F), R(0x7F, 0));
}

TEST(Round, E4M3DoubleRoundingCases) {
  const Format F = fmt("e4m3");
  // f64 -431.99999999999994 (= -(432 - 2^-44)): just below the tie 432 = 13.5 * 32, so the
  // nearest is 416 = 1.101b * 2^8: E = 8 + 7 = 15, T = 101b -> 0x7D, negative -> 0xFD.
  // (ml_dtypes via f32 gets -448: f32 rounds it to 432 first.)
  const double x = -431.99999999999994;
  ASSERT_EQ(x, -(432 - 0x1p-44));
  EXPECT_EQ(rd(x, F), R(0xFD, IX));
  EXPECT_EQ(val(0xFD, F), -416);
  EXPECT_EQ(rd(-432, F), R(0xFE, IX));  // exact tie: 13 odd, 14 even -> 448
  // bf16 of 1 + 2^-8 + 2^-40: above the half-ulp (2^-8) of 1.0 -> 1 + 2^-7 = 0x3F81.
  const Format B = fmt("bf16");
  EXPECT_EQ(rd(1 + 0x1p-8 + 0x1p-40, B), R(0x3F81, IX));
  EXPECT_EQ(rd(1 + 0x1p-8, B), R(0x3F80, IX));       // tie -> even 0x3F80
  EXPECT_EQ(rd(1 + 3 * 0x1p-8, B), R(0x3F82, IX));   // tie 0x3F81|0x3F82 -> even
  EXPECT_EQ(rd(-(1 + 0x1p-8 + 0x1p-40), B), R(0xBF81, IX));
}

TEST(Round, E5M2AndF16Overflow) {
  const Format E = fmt("e5m2");
  // Top binade 2^15: quantum 2^13 = 8192; 57344 = 7*8192 (T = 11b, odd), 65536 = 8*8192.
  EXPECT_EQ(rd(57344, E), R(0x7B, 0));
  EXPECT_EQ(rd(61439, E), R(0x7B, IX));
  EXPECT_EQ(rd(61440, E), R(0x7C, OF | IX));  // tie -> even (65536) > maxf -> inf
  EXPECT_EQ(rd(61440, E, mode(M::rne, S::finite)), R(0x7B, OF | IX));
  EXPECT_EQ(rd(61440, E, mode(M::rne, S::propagate)), R(0x7B, OF | IX));
  EXPECT_EQ(rd(1e6, E, mode(M::rtz)), R(0x7B, OF | IX));
  EXPECT_EQ(rd(-1e6, E, mode(M::up)), R(0xFB, OF | IX));
  EXPECT_EQ(rd(-1e6, E, mode(M::down)), R(0xFC, OF | IX));
  EXPECT_EQ(rd(INFINITY, E), R(0x7C, 0));
  EXPECT_EQ(rd(-INFINITY, E, mode(M::rne, S::propagate)), R(0xFC, 0));
  EXPECT_EQ(rd(INFINITY, E, mode(M::rne, S::finite)), R(0x7B, OF | IX));
  const Format H = fmt("f16");
  // 65520 = 65504 + 16, the tie between 65504 (0x7BFF, odd) and 65536.
  EXPECT_EQ(rd(65520, H), R(0x7C00, OF | IX));
  EXPECT_EQ(rd(65519.99, H), R(0x7BFF, IX));
  EXPECT_EQ(rd(65520, H, mode(M::rtz)), R(0x7BFF, IX));  // rtz result 65504: no overflow
  EXPECT_EQ(rd(65536, H, mode(M::rtz)), R(0x7BFF, OF | IX));
  EXPECT_EQ(rd(-65520, H, mode(M::rna)), R(0xFC00, OF | IX));
}

TEST(Round, Fnuz) {
  const Format F = fmt("e4m3fnuz");
  EXPECT_EQ(rd(-0.0, F), R(0x00, 0));      // single zero
  EXPECT_EQ(rd(-1e-10, F), R(0x00, UF | IX));
  EXPECT_EQ(rd(240, F), R(0x7F, 0));
  EXPECT_EQ(rd(1000, F), R(0x80, OF | IX));  // NaN, sign not encodable
  EXPECT_EQ(rd(-1000, F), R(0x80, OF | IX));
  EXPECT_EQ(rd(-1000, F, mode(M::rne, S::finite)), R(0xFF, OF | IX));
  EXPECT_EQ(rd(INFINITY, F), R(0x80, INV));
  EXPECT_EQ(rd(-INFINITY, F, mode(M::rne, S::finite)), R(0xFF, OF | IX));
  EXPECT_EQ(rd(NAN, F), R(0x80, 0));
  // 248 = 240 + 8 (quantum 16 at 2^7): tie 240 (k = 15 odd) | 256 -> 256 > maxf.
  EXPECT_EQ(rd(248, F), R(0x80, OF | IX));
  EXPECT_EQ(rd(247, F), R(0x7F, IX));
}

TEST(Round, E2M1) {
  const Format F = fmt("e2m1");
  const double v[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(rd(v[c], F), R(c, 0));
    if (c) {
      EXPECT_EQ(rd(-v[c], F), R(c | 8, 0));
    }
  }
  EXPECT_EQ(rd(5, F), R(0x6, IX));         // tie 4 (code 6) | 6 (code 7) -> 4
  EXPECT_EQ(rd(5, F, mode(M::rna)), R(0x7, IX));
  EXPECT_EQ(rd(2.5, F), R(0x4, IX));       // tie 2 | 3 -> 2 (code 4 even)
  EXPECT_EQ(rd(6.5, F), R(0x7, IX));
  EXPECT_EQ(rd(7, F), R(0x7, OF | IX));    // tie 6 | 8 -> 8 > 6; no inf, no NaN -> 6
  EXPECT_EQ(rd(-100, F), R(0xF, OF | IX));
  EXPECT_EQ(rd(0.25, F), R(0x0, UF | IX)); // tie 0 | 0.5 -> 0
  EXPECT_EQ(rd(0.26, F), R(0x1, UF | IX));
  // 0.75: tie 0.5 (code 1) | 1 (code 2) -> 1. Tiny after rounding too: 0.75 = 1.1b * 2^-1 fits
  // p = 2 bits exactly, and is < 2^emin = 1, so inexact + tiny = underflow.
  EXPECT_EQ(rd(0.75, F), R(0x2, UF | IX));
  EXPECT_EQ(rd(0.875, F), R(0x2, IX));     // unbounded p = 2: 0.875 -> 1.0, not tiny
  EXPECT_EQ(rd(-0.1, F), R(0x8, UF | IX)); // -0
  EXPECT_EQ(rd(NAN, F), R(0x0, INV));      // no NaN: +0 and invalid
  EXPECT_EQ(rd(INFINITY, F), R(0x7, OF | IX));
  EXPECT_EQ(rd(-INFINITY, F), R(0xF, OF | IX));
  EXPECT_EQ(rd(-0.0, F), R(0x8, 0));
  // FP6 maxima
  EXPECT_EQ(rd(7.5, fmt("e2m3")), R(0x1F, 0));
  EXPECT_EQ(rd(7.75, fmt("e2m3")), R(0x1F, OF | IX));  // tie 7.5 (odd) | 8 -> 8 > 7.5
  EXPECT_EQ(rd(28, fmt("e3m2")), R(0x1F, 0));
  EXPECT_EQ(rd(30, fmt("e3m2")), R(0x1F, OF | IX));
}

TEST(Round, Ue8m0) {
  const Format F = fmt("ue8m0");
  EXPECT_EQ(rd(1, F), R(0x7F, 0));
  EXPECT_EQ(rd(0x1p127, F), R(0xFE, 0));
  EXPECT_EQ(rd(0x1p-127, F), R(0x00, 0));
  // m = 0: "even" is the exponent field's low bit. 1.5: tie 1 (E=127 odd) | 2 (E=128) -> 2.
  EXPECT_EQ(rd(1.5, F), R(0x80, IX));
  EXPECT_EQ(rd(3, F), R(0x80, IX));        // tie 2 (E=128 even) | 4 -> 2
  EXPECT_EQ(rd(3.5, F), R(0x81, IX));
  EXPECT_EQ(rd(0.75, F), R(0x7E, IX));     // tie 0.5 (E=126 even) | 1 -> 0.5
  EXPECT_EQ(rd(3, F, mode(M::rna)), R(0x81, IX));
  EXPECT_EQ(rd(3.99, F, mode(M::rtz)), R(0x80, IX));
  EXPECT_EQ(rd(2.01, F, mode(M::up)), R(0x81, IX));
  EXPECT_EQ(rd(3, F, mode(M::odd)), R(0x81, IX));  // truncated 2 has E even -> 4 (E = 129)
  EXPECT_EQ(rd(5, F, mode(M::odd)), R(0x81, IX));  // truncated 4 has E odd -> stays
  // Overflow: no inf, NaN 0xFF.
  EXPECT_EQ(rd(0x1p128, F), R(0xFF, OF | IX));
  EXPECT_EQ(rd(0x1.8p127, F), R(0xFE, IX));        // tie 2^127 (E = 254, even) | 2^128 -> 2^127
  EXPECT_EQ(rd(0x1.9p127, F), R(0xFF, OF | IX));   // -> 2^128 > maxf, no inf -> NaN
  EXPECT_EQ(rd(0x1p128, F, mode(M::rne, S::finite)), R(0xFE, OF | IX));
  EXPECT_EQ(rd(0x1p128, F, mode(M::rtz)), R(0xFE, OF | IX));
  // Below 2^-127 the neighbours are "0" (not encodable -> minpos) and 2^-127.
  EXPECT_EQ(rd(0x1p-128, F), R(0x00, UF | IX));
  EXPECT_EQ(rd(0x1p-200, F), R(0x00, UF | IX));
  EXPECT_EQ(rd(0.0, F), R(0x00, UF | IX));       // no zero: minpos
  EXPECT_EQ(rd(-0.0, F), R(0x00, UF | IX));
  EXPECT_EQ(rd(-1, F), R(0xFF, INV));            // negative into unsigned
  EXPECT_EQ(rd(-INFINITY, F), R(0xFF, INV));
  EXPECT_EQ(rd(INFINITY, F), R(0xFF, INV));      // no inf, has NaN
  EXPECT_EQ(rd(INFINITY, F, mode(M::rne, S::finite)), R(0xFE, OF | IX));
  EXPECT_EQ(rd(NAN, F), R(0xFF, 0));
}

TEST(Round, P3109) {
  const Format SE = fmt("binary8p4se");
  // maxf 224 = 14 * 16 (k even); 240 = 15 * 16 is the infinity's place.
  EXPECT_EQ(rd(224, SE), R(0x7E, 0));
  EXPECT_EQ(rd(232, SE), R(0x7E, IX));               // tie -> 224
  EXPECT_EQ(rd(233, SE), R(0x7F, OF | IX));          // -> 240 > 224 -> +inf
  EXPECT_EQ(rd(-233, SE), R(0xFF, OF | IX));
  EXPECT_EQ(rd(233, SE, mode(M::rne, S::finite)), R(0x7E, OF | IX));
  EXPECT_EQ(rd(INFINITY, SE), R(0x7F, 0));
  EXPECT_EQ(rd(INFINITY, SE, mode(M::rne, S::propagate)), R(0x7F, 0));
  EXPECT_EQ(rd(INFINITY, SE, mode(M::rne, S::finite)), R(0x7E, OF | IX));
  EXPECT_EQ(rd(NAN, SE), R(0x80, 0));
  EXPECT_EQ(rd(-0.0, SE), R(0x00, 0));
  const Format SF = fmt("binary8p4sf");
  EXPECT_EQ(rd(240, SF), R(0x7F, 0));
  EXPECT_EQ(rd(248, SF), R(0x80, OF | IX));  // tie 240 | 256 (even) -> overflow -> NaN
  EXPECT_EQ(rd(INFINITY, SF), R(0x80, INV));
  EXPECT_EQ(rd(57344, fmt("binary8p3sf")), R(0x7F, 0));
  const Format UE = fmt("binary8p4ue");
  EXPECT_EQ(rd(53248, UE), R(0xFD, 0));
  EXPECT_EQ(rd(1e9, UE), R(0xFE, OF | IX));
  EXPECT_EQ(rd(INFINITY, UE), R(0xFE, 0));
  EXPECT_EQ(rd(-1, UE), R(0xFF, INV));
  EXPECT_EQ(rd(-0.0, UE), R(0x00, 0));
  EXPECT_EQ(rd(-INFINITY, UE), R(0xFF, INV));
}

TEST(Round, Tininess) {
  const Format H = fmt("f16");
  Rounding before;
  before.tininess = Tininess::before_rounding;
  Rounding after;  // default
  // x = 2^-14 - 2^-26: subnormal grid (2^-24): 1023.75 -> 1024 -> 2^-14 (0x0400).
  // Unbounded 11 bits (binade 2^-15, quantum 2^-25): 2047.5 -> tie -> 2048 = 2^-14: not tiny.
  EXPECT_EQ(rq(false, (1u << 12) - 1, -26, H, before), R(0x0400, UF | IX));
  EXPECT_EQ(rq(false, (1u << 12) - 1, -26, H, after), R(0x0400, IX));
  // x = 2^-14 - 2^-25: grid 1023.5 -> tie -> 1024 (even); unbounded 2047 exactly, < 2^-14:
  // tiny in both.
  EXPECT_EQ(rq(false, (1u << 11) - 1, -25, H, before), R(0x0400, UF | IX));
  EXPECT_EQ(rq(false, (1u << 11) - 1, -25, H, after), R(0x0400, UF | IX));
  // x = 2^-14 - 2^-27: rounds up in both; after rounding not tiny.
  EXPECT_EQ(rq(true, (1u << 13) - 1, -27, H, after), R(0x8400, IX));
  // rtz: 2^-14 - 2^-26 -> 1023 * 2^-24 = 0x03FF, tiny either way.
  Rounding rtz_after = mode(M::rtz);
  EXPECT_EQ(rq(false, (1u << 12) - 1, -26, H, rtz_after), R(0x03FF, UF | IX));
  // Exact subnormal: tiny but exact: no underflow.
  EXPECT_EQ(rd(0x1p-20, H, before), R(0x0010, 0));
  EXPECT_EQ(rd(0x1p-24, H), R(0x0001, 0));
  EXPECT_EQ(rd(0x1p-25, H), R(0x0000, UF | IX));  // tie 0 | minpos -> 0
  EXPECT_EQ(rd(0x1.000001p-25, H), R(0x0001, UF | IX));
  EXPECT_EQ(rd(-0x1p-26, H), R(0x8000, UF | IX));
  EXPECT_EQ(rd(-0x1p-26, H, mode(M::down)), R(0x8001, UF | IX));
  // m = 0 (binary8p1se: bias 64, emin = -63, codes 2^(c-64)): "even" in the unbounded
  // rounding is the exponent field's low bit. x = 1.5 * 2^-64: grid 2^-63 (quantum) -> 0.75
  // -> 1 (code 0x01); unbounded p = 1: tie between 2^-64 (E = 0, even) and 2^-63 -> stays
  // 2^-64 -> tiny.
  const Format P1 = fmt("binary8p1se");
  EXPECT_EQ(rd(0x1.8p-64, P1), R(0x01, UF | IX));
  EXPECT_EQ(rd(0x1.9p-64, P1), R(0x01, IX));           // unbounded rounds up to 2^-63
  EXPECT_EQ(rd(0x1.4p-64, P1, mode(M::odd)), R(0x01, IX));  // unbounded odd: E = 0 even -> up
  EXPECT_EQ(rd(0x1.8p-65, P1, mode(M::odd)), R(0x01, UF | IX));  // E = -1 odd: stays tiny
  // Stochastic, after rounding, same random bits on both grids.
  // x = 2^-14 - 2^-26: grid fraction 0.75, unbounded fraction 0.5; n = 2.
  Rounding sr = mode(M::stochastic_exact);
  sr.stochastic_bits = 2;
  sr.random = 2;  // grid: 2 < 3 away; unbounded: 2 < 2 no -> tiny
  EXPECT_EQ(rq(false, (1u << 12) - 1, -26, H, sr), R(0x0400, UF | IX));
  sr.random = 1;  // both away -> not tiny
  EXPECT_EQ(rq(false, (1u << 12) - 1, -26, H, sr), R(0x0400, IX));
  sr.random = 3;  // grid: stays 0x03FF
  EXPECT_EQ(rq(false, (1u << 12) - 1, -26, H, sr), R(0x03FF, UF | IX));
}

TEST(Round, FlushToZero) {
  const Format H = fmt("f16");
  Rounding r;
  r.ftz = true;
  EXPECT_EQ(rd(0x1p-15, H, r), R(0x0000, UF | IX));  // exact subnormal, flushed
  EXPECT_EQ(rd(-0x1p-15, H, r), R(0x8000, UF | IX));
  EXPECT_EQ(rd(0x1p-14, H, r), R(0x0400, 0));
  EXPECT_EQ(rq(false, (1u << 13) - 1, -27, H, r), R(0x0400, IX));  // not tiny after rounding
  Rounding rb = r;
  rb.tininess = Tininess::before_rounding;
  EXPECT_EQ(rq(false, (1u << 13) - 1, -27, H, rb), R(0x0000, UF | IX));
  Rounding rz = r;
  rz.mode = M::rtz;
  EXPECT_EQ(rq(false, (1u << 12) - 1, -26, H, rz), R(0x0000, UF | IX));
  EXPECT_EQ(rd(-1e-6, fmt("e4m3fnuz"), r), R(0x00, UF | IX));  // no negative zero
  EXPECT_EQ(rd(0x1p-130, fmt("ue8m0"), r), R(0x00, UF | IX));   // no zero: minpos
  EXPECT_EQ(rd(0x1p-127, fmt("ue8m0"), r), R(0x00, 0));         // min normal: not tiny
}

TEST(Round, Odd) {
  const Format H = fmt("f16");
  const Rounding o = mode(M::odd);
  EXPECT_EQ(rd(1 + 0x1p-11, H, o), R(0x3C01, IX));
  EXPECT_EQ(rd(1 + 0x1p-10, H, o), R(0x3C01, 0));
  EXPECT_EQ(rd(1 + 0x1p-10 + 0x1p-12, H, o), R(0x3C01, IX));
  EXPECT_EQ(rd(1 + 0x1p-9 + 0x1p-30, H, o), R(0x3C03, IX));
  EXPECT_EQ(rd(-(1 + 0x1p-11), H, o), R(0xBC01, IX));
  EXPECT_EQ(rd(0x1p-30, H, o), R(0x0001, UF | IX));     // 0 is even -> minpos
  EXPECT_EQ(rd(1.0, H, o), R(0x3C00, 0));
  // 70000: quantum 64, 1093.75 -> 1093 (odd) -> 69952 > 65504: overflow; odd -> maxf.
  EXPECT_EQ(rd(70000, H, o), R(0x7BFF, OF | IX));
  EXPECT_EQ(rd(65504 + 1, H, o), R(0x7BFF, IX));        // truncated 0x7BFF is odd: stays
  const Format E = fmt("e4m3");
  EXPECT_EQ(rd(450, E, o), R(0x7E, OF | IX));  // 448 even -> 480 > maxf -> maxf
  EXPECT_EQ(rd(1.01, E, o), R(0x39, IX));
  EXPECT_EQ(rd(1.26, E, o), R(0x3B, IX));
}

TEST(Round, Stochastic) {
  const Format E = fmt("e4m3");
  // x = 1 + 13/256: ulp 1/8, f = 13/32; n = 4: f * 16 = 6.5.
  //   A: RNE(6.5) = 6, away iff 6 + r >= 16 -> r >= 10
  //   B: 6.5 + r + 0.5 >= 16 -> r >= 9
  //   C: floor(6.5) + r >= 16 -> r >= 10
  //   exact: r < 6.5 -> r <= 6
  auto sr = [](M m, int n, std::uint64_t r) {
    Rounding x = mode(m);
    x.stochastic_bits = n;
    x.random = r;
    return x;
  };
  const double x = 1 + 13.0 / 256;
  struct Case { M m; std::uint64_t first_away; bool away_below; };
  for (auto c : {Case{M::stochastic_a, 10, false}, Case{M::stochastic_b, 9, false},
                 Case{M::stochastic_c, 10, false}, Case{M::stochastic_exact, 7, true}}) {
    for (std::uint64_t r = 0; r < 16; ++r) {
      const bool away = c.away_below ? r < c.first_away : r >= c.first_away;
      EXPECT_EQ(rd(x, E, sr(c.m, 4, r)), R(away ? 0x39 : 0x38, IX)) << int(c.m) << " r=" << r;
      EXPECT_EQ(rd(-x, E, sr(c.m, 4, r | 0xF0)), R(away ? 0xB9 : 0xB8, IX)) << int(c.m);
    }
  }
  // x = 1 + 15/256: f * 16 = 7.5. A: RNE(7.5) = 8 -> r >= 8; B: r >= 8; C: r >= 9; exact: r <= 7.
  const double y = 1 + 15.0 / 256;
  EXPECT_EQ(rd(y, E, sr(M::stochastic_a, 4, 8)), R(0x39, IX));
  EXPECT_EQ(rd(y, E, sr(M::stochastic_a, 4, 7)), R(0x38, IX));
  EXPECT_EQ(rd(y, E, sr(M::stochastic_b, 4, 8)), R(0x39, IX));
  EXPECT_EQ(rd(y, E, sr(M::stochastic_b, 4, 7)), R(0x38, IX));
  EXPECT_EQ(rd(y, E, sr(M::stochastic_c, 4, 9)), R(0x39, IX));
  EXPECT_EQ(rd(y, E, sr(M::stochastic_c, 4, 8)), R(0x38, IX));
  EXPECT_EQ(rd(y, E, sr(M::stochastic_exact, 4, 7)), R(0x39, IX));
  EXPECT_EQ(rd(y, E, sr(M::stochastic_exact, 4, 8)), R(0x38, IX));
  // n = 0: A away iff f > 1/2; B iff f >= 1/2; C never; exact iff f > 0.
  const double half = 1 + 16.0 / 256;  // f = 1/2
  EXPECT_EQ(rd(half, E, sr(M::stochastic_a, 0, 5)), R(0x38, IX));
  EXPECT_EQ(rd(half, E, sr(M::stochastic_b, 0, 5)), R(0x39, IX));
  EXPECT_EQ(rd(y, E, sr(M::stochastic_b, 0, 0)), R(0x38, IX));
  EXPECT_EQ(rd(1 + 31.0 / 256, E, sr(M::stochastic_c, 0, 0)), R(0x38, IX));
  EXPECT_EQ(rd(1 + 1.0 / 256, E, sr(M::stochastic_exact, 0, 0)), R(0x39, IX));
  // n = 64 extremes (f = 13/32).
  const std::uint64_t all = ~std::uint64_t{0};
  EXPECT_EQ(rd(x, E, sr(M::stochastic_exact, 64, all)), R(0x38, IX));
  EXPECT_EQ(rd(x, E, sr(M::stochastic_exact, 64, 0)), R(0x39, IX));
  EXPECT_EQ(rd(x, E, sr(M::stochastic_c, 64, all)), R(0x39, IX));
  EXPECT_EQ(rd(x, E, sr(M::stochastic_c, 64, 0)), R(0x38, IX));
  EXPECT_EQ(rd(x, E, sr(M::stochastic_a, 64, all)), R(0x39, IX));
  EXPECT_EQ(rd(x, E, sr(M::stochastic_b, 64, 0)), R(0x38, IX));
  // Exact values never move.
  EXPECT_EQ(rd(1.125, E, sr(M::stochastic_exact, 4, 0)), R(0x39, 0));
  EXPECT_EQ(rd(1.125, E, sr(M::stochastic_b, 4, 15)), R(0x39, 0));
  // Overflow: 460 = 448 + 12 -> f = 12/32, f*16 = 6: exact away iff r < 6.
  EXPECT_EQ(rd(460, E, sr(M::stochastic_exact, 4, 5)), R(0x7F, OF | IX));
  EXPECT_EQ(rd(460, E, sr(M::stochastic_exact, 4, 6)), R(0x7E, IX));
  EXPECT_EQ(rd(460, E, Rounding{M::stochastic_exact, S::finite, false, false,
                                Tininess::after_rounding, 4, 5}),
            R(0x7E, OF | IX));
  Rounding bad = sr(M::stochastic_a, 65, 0);
  EXPECT_THROW(rd(x, E, bad), fpconform::Error);
}

TEST(Round, Zeros) {
  EXPECT_EQ(rd(-0.0, fmt("f16")), R(0x8000, 0));
  EXPECT_EQ(rd(0.0, fmt("f16")), R(0x0000, 0));
  EXPECT_EQ(rd(-0.0, fmt("e4m3")), R(0x80, 0));
  EXPECT_EQ(rd(-0.0, fmt("binary8p4sf")), R(0x00, 0));
  EXPECT_EQ(rd(-1e-30, fmt("e4m3")), R(0x80, UF | IX));
  EXPECT_EQ(rd(-1e-30, fmt("e4m3"), mode(M::down)), R(0x81, UF | IX));
  EXPECT_EQ(rd(1e-30, fmt("e4m3"), mode(M::up)), R(0x01, UF | IX));
  EXPECT_EQ(rd(1e-30, fmt("e4m3"), mode(M::down)), R(0x00, UF | IX));
}

TEST(Round, SignedFormatWithoutZero) {
  // custom: 1+4+2, no zero, no subnormals, no inf/NaN: bias 7, codes 0x00 = +2^-7,
  // 0x40 = -2^-7. A -0 input is "+0" (no negative zero), i.e. +minpos; a negative finite that
  // rounds to "zero" keeps its sign (-minpos), flushed or not.
  const Format F = fmt("custom:e=4,m=2,signed=1,subnormals=0,zero=0,inf=none,nan=none");
  EXPECT_EQ(val(0x00, F), 0x1p-7);
  EXPECT_EQ(val(0x40, F), -0x1p-7);
  EXPECT_EQ(rd(0.0, F), R(0x00, UF | IX));
  EXPECT_EQ(rd(-0.0, F), R(0x00, UF | IX));
  EXPECT_EQ(rd(-1e-10, F), R(0x40, UF | IX));
  EXPECT_EQ(rd(-1e-10, F, mode(M::up)), R(0x40, UF | IX));
  Rounding ftz;
  ftz.ftz = true;
  EXPECT_EQ(rd(-1e-10, F, ftz), R(0x40, UF | IX));
  // Neighbours below 2^-7 are "0" and 2^-7. x = 1.876 * 2^-8 is tiny before rounding; rounded
  // to 3 bits with an unbounded exponent (quantum 2^-10: 7.504 -> 8, a carry) it is 2^-7, so
  // not tiny after rounding.
  EXPECT_EQ(rd(0x1.e04p-8, F), R(0x00, IX));
  Rounding before;
  before.tininess = Tininess::before_rounding;
  EXPECT_EQ(rd(0x1.e04p-8, F, before), R(0x00, UF | IX));
  EXPECT_EQ(rd(0x1.e04p-8, F, mode(M::rtz)), R(0x00, UF | IX));
  EXPECT_EQ(rd(0x1.cp-8, F), R(0x00, UF | IX));  // 7 * 2^-10 exactly in 3 bits: tiny
}

TEST(Round, WideFormats) {
  // 64-bit codes: an f64 layout read as a custom format is the identity on f64 codes.
  const Format F64 = fmt("f64");
  const Format C64 = fmt("custom:e=11,m=52");
  for (std::uint64_t c : {0x0000000000000001ull, 0x3FF0000000000000ull, 0x7FEFFFFFFFFFFFFFull,
                          0x8010000000000000ull, 0xFFF0000000000000ull, 0x000FFFFFFFFFFFFFull})
    EXPECT_EQ(ref::convert(c, F64, C64, {}), R(c, 0)) << std::hex << c;
  // 2 exponent bits, 61 fraction bits (64 bits with the sign), bias 1: 1.0 = E 1, T 0.
  const Format W = fmt("custom:e=2,m=61,inf=none,nan=none");
  const std::uint64_t one = std::uint64_t{1} << 61;
  EXPECT_EQ(rd(1.0, W), R(one, 0));
  EXPECT_EQ(rq(false, (std::uint64_t{1} << 62) + 1, -62, W), R(one, IX));         // tie -> even
  EXPECT_EQ(rq(false, (std::uint64_t{1} << 62) + 3, -62, W), R(one + 2, IX));     // tie -> even
  EXPECT_EQ(rq(true, (std::uint64_t{1} << 62) + 1, -62, W, mode(M::odd)), R((std::uint64_t{1} << 63) | (one + 1), IX));
  // maxf = 2^2 * (2 - 2^-61); anything from 8 - 2^-60 up overflows to maxf (no inf, no NaN).
  EXPECT_EQ(rd(8.0, W), R(0x7FFFFFFFFFFFFFFFull, OF | IX));
  EXPECT_EQ(rd(-8.0, W, mode(M::rtz)), R(0xFFFFFFFFFFFFFFFFull, OF | IX));
  EXPECT_EQ(rq(false, (std::uint64_t{1} << 62) - 1, -59, W), R(0x7FFFFFFFFFFFFFFFull, 0));
  Mp m;
  ASSERT_TRUE(ref::decode(m, 0x7FFFFFFFFFFFFFFFull, W, false));
  Mp want(64);
  mpfr_set_ui_2exp(want, ~std::uint64_t{0} >> 2, -59, MPFR_RNDN);  // (2^62 - 1) * 2^-59
  EXPECT_EQ(mpfr_cmp(m, want), 0);
  EXPECT_EQ(ref::limits(W).emax, 2);
}

TEST(Round, TF32) {
  const Format T = fmt("tf32");
  EXPECT_EQ(rd(1.0, T), R(0x1FC00, 0));
  EXPECT_EQ(rd(-1.0, T), R(0x5FC00, 0));
  EXPECT_EQ(rd(1 + 0x1p-11, T), R(0x1FC00, IX));  // tie -> even
  EXPECT_EQ(rd(1 + 0x1p-11, T, mode(M::rna)), R(0x1FC01, IX));
  EXPECT_EQ(rd(INFINITY, T), R(0x3FC00, 0));
}

TEST(Round, ThreadsAndRange) {
  // The same results from several threads, and with a narrowed MPFR exponent range.
  const Format H = fmt("f16");
  const Format F32 = fmt("f32");
  std::vector<OracleResult> want;
  for (std::uint32_t c = 0; c < 0x10000; c += 7) want.push_back(ref::convert(c, H, F32, {}));
  std::vector<int> bad(2, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < 2; ++t)
    ts.emplace_back([&, t] {
      size_t i = 0;
      for (std::uint32_t c = 0; c < 0x10000; c += 7, ++i)
        if (!(ref::convert(c, H, F32, {}) == want[i])) ++bad[t];
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad[0] + bad[1], 0);
  const mpfr_exp_t lo = mpfr_get_emin(), hi = mpfr_get_emax();
  mpfr_set_emin(-10);
  mpfr_set_emax(10);
  EXPECT_EQ(ref::convert(0x0001, H, F32, {}), R(0x33800000, 0));
  EXPECT_EQ(ref::convert(0x7BFF, H, F32, {}), R(0x477FE000, 0));
  EXPECT_EQ(mpfr_get_emin(), -10);
  EXPECT_EQ(mpfr_get_emax(), 10);
  mpfr_set_emin(lo);
  mpfr_set_emax(hi);
}
