// Ecosystem profiles against the documented (and observed, see suites/peers/) facts.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <map>

#include "fpconform/core/error.hpp"
#include "fpconform/profile.hpp"

using namespace fpconform;

namespace {

const Format& fmt(const char* n) {
  static std::map<std::string, Format> cache;  // references stay valid as it grows
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, parse_format(n)).first;
  return it->second;
}

std::uint64_t f32(float x) { return std::bit_cast<std::uint32_t>(x); }
std::uint64_t f64(double x) { return std::bit_cast<std::uint64_t>(x); }

UserOptions opts(std::optional<RoundingMode> m = {}, std::optional<Saturation> s = {}) {
  UserOptions u;
  u.mode = m;
  u.sat = s;
  return u;
}

std::uint64_t from_f32(float x, const char* to, const char* profile, UserOptions u = {}) {
  return convert_with_profile(f32(x), fmt("f32"), fmt(to), find_profile(profile), u).bits;
}
std::uint64_t from_f64(double x, const char* to, const char* profile, UserOptions u = {}) {
  return convert_with_profile(f64(x), fmt("f64"), fmt(to), find_profile(profile), u).bits;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::bit_cast<float>(0x7FC00000u);

}  // namespace

TEST(Profiles, NamesAreUniqueAndEndWithACatchAll) {
  const auto& all = builtin_profiles();
  ASSERT_GE(all.size(), 9u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_FALSE(all[i].summary.empty()) << all[i].name;
    EXPECT_FALSE(all[i].source.empty()) << all[i].name;
    ASSERT_FALSE(all[i].rules.empty()) << all[i].name;
    EXPECT_TRUE(all[i].rules.back().to.empty() && all[i].rules.back().from.empty())
        << all[i].name << ": the last rule must match every pair";
    for (std::size_t j = i + 1; j < all.size(); ++j) EXPECT_NE(all[i].name, all[j].name);
  }
  for (const char* n : {"ieee", "nvidia", "ml_dtypes", "ml_dtypes-0.7", "ml_dtypes-0.6", "torch",
                        "torch-2.11", "torch-2.12", "ocp", "p3109", "x86-f16c", "x86-avx512bf16"})
    EXPECT_EQ(find_profile(n).name, n);
}

TEST(Profiles, UnknownProfileNamesTheOption) {
  try {
    find_profile("cuda");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "--profile");
    EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("nvidia"), std::string::npos);  // lists the names
  }
}

// e4m3 of 500: NaN without saturation, 448 with it.
TEST(Profiles, E4m3Of500) {
  EXPECT_EQ(from_f32(500, "e4m3", "nvidia", opts({}, Saturation::none)), 0x7Fu);
  EXPECT_EQ(from_f32(500, "e4m3", "nvidia", opts({}, Saturation::finite)), 0x7Eu);
  EXPECT_EQ(from_f32(500, "e4m3", "nvidia"), 0x7Eu);  // constructors use __NV_SATFINITE
  EXPECT_EQ(from_f32(500, "e4m3", "ml_dtypes"), 0x7Fu);  // observed with 0.7.0 and 0.6.0
  EXPECT_EQ(from_f32(500, "e4m3", "ml_dtypes-0.6"), 0x7Fu);
  EXPECT_EQ(from_f32(500, "e4m3", "torch-2.11"), 0x7Fu);
  EXPECT_EQ(from_f32(500, "e4m3", "torch-2.12"), 0x7Eu);
  EXPECT_EQ(from_f32(500, "e4m3", "torch"), 0x7Eu);
  EXPECT_EQ(from_f32(500, "e4m3", "ocp"), 0x7Eu);
  EXPECT_EQ(from_f32(500, "e4m3", "ieee"), 0x7Fu);
  // 464 is the tie between 448 and 480: even, so 448 everywhere; 465 overflows.
  for (const char* p : {"nvidia", "ml_dtypes", "ml_dtypes-0.6", "torch", "torch-2.11", "ocp", "ieee"})
    EXPECT_EQ(from_f32(464, "e4m3", p), 0x7Eu) << p;
  EXPECT_EQ(from_f32(465, "e4m3", "torch-2.11"), 0x7Fu);
  EXPECT_EQ(from_f32(-465, "e4m3", "torch-2.11"), 0xFFu);
  EXPECT_EQ(from_f32(-465, "e4m3", "torch"), 0xFEu);
}

TEST(Profiles, E4m3OfInfinity) {
  EXPECT_EQ(from_f32(kInf, "e4m3", "nvidia", opts({}, Saturation::none)), 0x7Fu);
  EXPECT_EQ(from_f32(-kInf, "e4m3", "nvidia", opts({}, Saturation::none)), 0xFFu);
  EXPECT_EQ(from_f32(kInf, "e4m3", "nvidia", opts({}, Saturation::finite)), 0x7Eu);
  EXPECT_EQ(from_f32(-kInf, "e4m3", "ml_dtypes"), 0xFFu);  // observed with 0.7.0 and 0.6.0
  EXPECT_EQ(from_f32(-kInf, "e4m3", "ml_dtypes-0.6"), 0xFFu);
  EXPECT_EQ(from_f32(kInf, "e4m3", "torch-2.11"), 0x7Fu);
  EXPECT_EQ(from_f32(kInf, "e4m3", "torch"), 0x7Eu);  // observed with torch 2.15
  EXPECT_EQ(from_f32(-kInf, "e4m3", "torch"), 0xFEu);
  EXPECT_EQ(from_f32(kInf, "e5m2", "nvidia", opts({}, Saturation::none)), 0x7Cu);
  EXPECT_EQ(from_f32(kInf, "e5m2", "nvidia", opts({}, Saturation::finite)), 0x7Bu);
}

TEST(Profiles, NvidiaNaNs) {
  // Float (and half/bf16) inputs: NaN is replaced by 0x7FFFFFFF first, sign dropped.
  const float neg_nan = std::bit_cast<float>(0xFFC00000u);
  EXPECT_EQ(from_f32(neg_nan, "e4m3", "nvidia"), 0x7Fu);
  EXPECT_EQ(from_f32(neg_nan, "e5m2", "nvidia"), 0x7Fu);
  EXPECT_EQ(from_f32(neg_nan, "f16", "nvidia"), 0x7FFFu);
  EXPECT_EQ(from_f32(neg_nan, "bf16", "nvidia"), 0x7FFFu);
  // Double inputs into fp8 keep the sign; e5m2 keeps payload bit 50.
  EXPECT_EQ(from_f64(-std::nan(""), "e4m3", "nvidia"), 0xFFu);
  EXPECT_EQ(from_f64(std::bit_cast<double>(0x7FF8000000000000ull), "e5m2", "nvidia"), 0x7Eu);
  EXPECT_EQ(from_f64(std::bit_cast<double>(0xFFFC000000000000ull), "e5m2", "nvidia"), 0xFFu);
  // fp6/fp4: NaN -> +max, inf -> +-max.
  EXPECT_EQ(from_f32(neg_nan, "e2m3", "nvidia"), 0x1Fu);
  EXPECT_EQ(from_f32(kNaN, "e2m1", "nvidia"), 0x7u);
  EXPECT_EQ(from_f32(-kInf, "e3m2", "nvidia"), 0x3Fu);
  // fp8 -> half: canonical 0x7FFF whatever the sign.
  const Profile& nv = find_profile("nvidia");
  EXPECT_EQ(convert_with_profile(0xFF, fmt("e4m3"), fmt("f16"), nv, {}).bits, 0x7FFFu);
  EXPECT_EQ(convert_with_profile(0xFD, fmt("e5m2"), fmt("f16"), nv, {}).bits, 0x7FFFu);
  EXPECT_EQ(convert_with_profile(0xFF, fmt("ue8m0"), fmt("bf16"), nv, {}).bits, 0x7FFFu);
  EXPECT_EQ(convert_with_profile(0x00, fmt("ue8m0"), fmt("bf16"), nv, {}).bits, 0x0040u);
}

TEST(Profiles, NvidiaE8m0) {
  using M = RoundingMode;
  // Default: the __nv_fp8_e8m0(float) constructor, cudaRoundPosInf + __NV_SATFINITE.
  EXPECT_EQ(from_f32(3.0f, "ue8m0", "nvidia"), 0x81u);  // 4
  EXPECT_EQ(from_f32(3.0f, "ue8m0", "nvidia", opts(M::rtz)), 0x80u);  // 2
  EXPECT_EQ(from_f32(-3.0f, "ue8m0", "nvidia", opts(M::rtz)), 0x80u);  // sign ignored
  EXPECT_EQ(from_f32(0.0f, "ue8m0", "nvidia"), 0x00u);
  EXPECT_EQ(from_f32(kInf, "ue8m0", "nvidia"), 0xFEu);
  EXPECT_EQ(from_f32(kInf, "ue8m0", "nvidia", opts(M::up, Saturation::none)), 0xFFu);
  EXPECT_EQ(from_f32(3.0e38f, "ue8m0", "nvidia", opts(M::up, Saturation::none)), 0xFFu);
  EXPECT_EQ(from_f32(3.0e38f, "ue8m0", "nvidia", opts(M::up, Saturation::finite)), 0xFEu);
}

TEST(Profiles, NvidiaRefusesWhatTheHeadersCannotDo) {
  using M = RoundingMode;
  auto refuses = [](auto&& f, const char* what_in_message) {
    try {
      f();
      ADD_FAILURE() << "no exception";
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), "--profile");
      EXPECT_NE(std::string(e.what()).find(what_in_message), std::string::npos) << e.what();
    }
  };
  refuses([] { from_f32(1.0f, "e4m3", "nvidia", opts(M::rtz)); }, "--round rtz");
  refuses([] { from_f32(1.0f, "e2m1", "nvidia", opts(M::up)); }, "--round up");
  refuses([] { from_f32(1.0f, "e2m1", "nvidia", opts({}, Saturation::none)); }, "--sat none");
  refuses([] { from_f32(1.0f, "ue8m0", "nvidia", opts(M::rne)); }, "--round rne");
  refuses([] { from_f32(1.0f, "f16", "nvidia", opts({}, Saturation::finite)); }, "--sat finite");
  refuses([] { from_f64(1.0, "f16", "nvidia", opts(M::rtz)); }, "--round rtz");
  refuses([] { from_f32(1.0f, "e4m3", "ml_dtypes", opts({}, Saturation::finite)); }, "--sat");
  refuses([] { from_f32(1.0f, "e4m3", "ml_dtypes-0.6", opts({}, Saturation::finite)); }, "--sat");
  UserOptions ftz;
  ftz.ftz = true;
  refuses([&] { from_f32(1.0f, "f16", "nvidia", ftz); }, "--ftz");
  refuses([&] { from_f32(1.0f, "f16", "x86-f16c", ftz); }, "--ftz");
  refuses([] { from_f32(1.0f, "bf16", "x86-f16c"); }, "cannot convert");
  UserOptions no_daz;
  no_daz.daz = false;
  refuses([&] { from_f32(1.0f, "bf16", "x86-avx512bf16", no_daz); }, "--daz");
  // The four f16/bf16 modes are there.
  EXPECT_EQ(from_f32(1.0f / 3, "f16", "nvidia", opts(M::rtz)), 0x3555u);
  EXPECT_EQ(from_f32(1.0f / 3, "bf16", "nvidia", opts(M::up)), 0x3EABu);
  EXPECT_EQ(from_f32(100.0f, "e2m3", "nvidia", opts(M::rtz)), 0x1Fu);
}

// ml_dtypes 0.6 casts float64 through float32 first: a double rounding (fixed in 0.7 by
// jax-ml/ml_dtypes PR #401). The ml_dtypes-0.6 expectations were observed with ml_dtypes
// 0.6.0 + numpy 2.4.6.
TEST(Profiles, DoubleRoundingThroughFloat) {
  EXPECT_EQ(from_f64(-431.99999999999994, "e4m3", "ml_dtypes-0.6"), 0xFEu);  // -448
  EXPECT_EQ(from_f64(-431.99999999999994, "e4m3", "ieee"), 0xFDu);           // -416
  EXPECT_EQ(from_f64(-431.99999999999994, "e4m3", "nvidia"), 0xFDu);  // direct from double
  EXPECT_EQ(from_f64(-431.99999999999994, "e4m3", "torch"), 0xFEu);
  const double x = 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(from_f64(x, "bf16", "ml_dtypes-0.6"), 0x3F80u);
  EXPECT_EQ(from_f64(x, "bf16", "ieee"), 0x3F81u);
  EXPECT_EQ(from_f64(x, "bf16", "nvidia"), 0x3F81u);  // round to odd into float, then RNE
  EXPECT_EQ(from_f64(x, "bf16", "torch"), 0x3F80u);
  EXPECT_EQ(from_f64(std::bit_cast<double>(0x3EE0100000000001ull), "bf16", "ml_dtypes-0.6"),
            0x3700u);
  EXPECT_EQ(from_f64(3 - std::ldexp(1.0, -40), "ue8m0", "ml_dtypes-0.6"), 0x81u);  // via 3.0f
  EXPECT_EQ(from_f64(std::ldexp(1.0, -1074), "ue8m0", "ml_dtypes-0.6"), 0xFFu);  // 0.0f: NaN
  // numpy's own float16 cast rounds the double directly; PyTorch's Half goes through float.
  const double y = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(from_f64(y, "f16", "ml_dtypes-0.6"), 0x3C01u);
  EXPECT_EQ(from_f64(y, "f16", "torch"), 0x3C00u);
  EXPECT_EQ(from_f64(y, "f16", "nvidia"), 0x3C01u);
}

// ml_dtypes 0.7 narrows float64 to float32 by round to odd (RoundToOddFloat), then rounds:
// one rounding. Expectations observed with ml_dtypes 0.7.0 + numpy 2.4.6 (numpy casts of
// float64 arrays), not taken from emu.
TEST(Profiles, MlDtypes07RoundsFloat64Once) {
  EXPECT_EQ(from_f64(-431.99999999999994, "e4m3", "ml_dtypes"), 0xFDu);  // -416
  EXPECT_EQ(from_f64(1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40), "bf16", "ml_dtypes"),
            0x3F81u);
  EXPECT_EQ(from_f64(std::bit_cast<double>(0x3EE0100000000001ull), "bf16", "ml_dtypes"),
            0x3701u);
  EXPECT_EQ(from_f64(std::ldexp(1.0, -10) * (1 + std::ldexp(1.0, -30)), "e4m3", "ml_dtypes"),
            0x01u);  // just above the tie with zero: the min subnormal (0.6: +0)
  EXPECT_EQ(from_f64(0.25 + std::ldexp(1.0, -40), "e2m1", "ml_dtypes"), 0x1u);  // 0.6: 0x0
  EXPECT_EQ(from_f64(3 - std::ldexp(1.0, -40), "ue8m0", "ml_dtypes"), 0x80u);   // 2
  EXPECT_EQ(from_f64(std::ldexp(1.0, -1074), "ue8m0", "ml_dtypes"), 0x00u);     // 2^-127
  EXPECT_EQ(from_f64(0.0, "ue8m0", "ml_dtypes"), 0xFFu);
  EXPECT_EQ(from_f64(1e300, "e4m3", "ml_dtypes"), 0x7Fu);
  EXPECT_EQ(from_f64(1e300, "e2m1", "ml_dtypes"), 0x7u);
  EXPECT_EQ(from_f64(-std::nan(""), "e4m3", "ml_dtypes"), 0xFFu);
  EXPECT_EQ(from_f64(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), "f16", "ml_dtypes"),
            0x3C01u);  // numpy's float16 cast, unchanged
  EXPECT_EQ(from_f64(-431.99999999999994, "e4m3", "ml_dtypes-0.7"), 0xFDu);
  EXPECT_FALSE(find_rule(find_profile("ml_dtypes"), fmt("f64"), fmt("e4m3")).via_f32);
}

// What 0.6 and 0.7 agree on (observed with both).
TEST(Profiles, MlDtypesSpecials) {
  for (const char* p : {"ml_dtypes", "ml_dtypes-0.6"}) {
    // fp6/fp4: saturate; NaN -> -0 and -NaN -> +0.
    EXPECT_EQ(from_f32(1e6f, "e2m3", p), 0x1Fu) << p;
    EXPECT_EQ(from_f32(-kInf, "e2m1", p), 0xFu) << p;
    EXPECT_EQ(from_f32(kNaN, "e2m3", p), 0x20u) << p;
    EXPECT_EQ(from_f32(-kNaN, "e2m1", p), 0x0u) << p;
    // NaN payloads dropped, sign kept.
    EXPECT_EQ(from_f32(std::bit_cast<float>(0xFFC00001u), "bf16", p), 0xFFC0u) << p;
    EXPECT_EQ(from_f32(std::bit_cast<float>(0x7FE00000u), "e5m2", p), 0x7Eu) << p;
    // e8m0: 0 -> NaN, negative -> NaN, ties up, overflow -> NaN.
    EXPECT_EQ(from_f32(0.0f, "ue8m0", p), 0xFFu) << p;
    EXPECT_EQ(from_f32(-1.0f, "ue8m0", p), 0xFFu) << p;
    EXPECT_EQ(from_f32(3.0f, "ue8m0", p), 0x81u) << p;   // 4, not 2
    EXPECT_EQ(from_f32(0.75f, "ue8m0", p), 0x7Fu) << p;  // 1
    EXPECT_EQ(from_f32(0x1.8p127f, "ue8m0", p), 0xFFu) << p;
    EXPECT_EQ(from_f32(0x1p-127f, "ue8m0", p), 0x00u) << p;
    EXPECT_EQ(from_f32(0x1.8p-127f, "ue8m0", p), 0x01u) << p;  // the tie: up to 2^-126
    // numpy float16 keeps a signaling NaN signaling.
    EXPECT_EQ(from_f32(std::bit_cast<float>(0x7FA00000u), "f16", p), 0x7D00u) << p;
    EXPECT_EQ(from_f32(std::bit_cast<float>(0x7F800001u), "f16", p), 0x7C01u) << p;
    // An fnuz NaN is negative.
    EXPECT_EQ(convert_with_profile(0x80, fmt("e4m3fnuz"), fmt("f32"), find_profile(p), {}).bits,
              0xFFC00000u)
        << p;
  }
  EXPECT_EQ(from_f32(3.0f, "ue8m0", "ieee"), 0x80u);  // ties to even exponent
  EXPECT_EQ(from_f32(std::bit_cast<float>(0x7FA00000u), "f16", "ieee"), 0x7F00u);
}

// e8m0's lowest binade [2^-127, 2^-126): 0.6 rounds everything above 2^-127 up; 0.7 (PR #434)
// rounds to nearest, ties up. Each expectation observed with that release (numpy casts).
TEST(Profiles, MlDtypesE8m0LowestBinade) {
  EXPECT_EQ(from_f32(0x1.4p-127f, "ue8m0", "ml_dtypes-0.6"), 0x01u);  // 2^-126
  EXPECT_EQ(from_f32(std::bit_cast<float>(0x400001u), "ue8m0", "ml_dtypes-0.6"), 0x01u);
  EXPECT_EQ(convert_with_profile(0x41, fmt("bf16"), fmt("ue8m0"), find_profile("ml_dtypes-0.6"),
                                 {})
                .bits,
            0x01u);
  EXPECT_EQ(from_f32(0x1.4p-127f, "ue8m0", "ml_dtypes"), 0x00u);  // 2^-127
  EXPECT_EQ(from_f32(std::bit_cast<float>(0x400001u), "ue8m0", "ml_dtypes"), 0x00u);
  EXPECT_EQ(from_f32(std::bit_cast<float>(1u), "ue8m0", "ml_dtypes"), 0x00u);
  EXPECT_EQ(convert_with_profile(0x41, fmt("bf16"), fmt("ue8m0"), find_profile("ml_dtypes"), {})
                .bits,
            0x00u);
  // 0.7 casts e8m0 to and from the 8/6/4-bit types (0.6 refuses them).
  const Profile& p = find_profile("ml_dtypes");
  EXPECT_EQ(convert_with_profile(0x08, fmt("e4m3"), fmt("ue8m0"), p, {}).bits, 0x79u);
  EXPECT_EQ(convert_with_profile(0x00, fmt("e4m3"), fmt("ue8m0"), p, {}).bits, 0xFFu);
  EXPECT_EQ(convert_with_profile(0xFF, fmt("ue8m0"), fmt("e2m1"), p, {}).bits, 0x8u);
  EXPECT_EQ(convert_with_profile(0x7F, fmt("ue8m0"), fmt("e4m3"), p, {}).bits, 0x38u);
}

TEST(Profiles, TorchSpecials) {
  EXPECT_EQ(from_f32(kNaN, "e5m2", "torch"), 0x7Fu);
  EXPECT_EQ(from_f32(-kNaN, "e5m2", "torch"), 0xFFu);
  EXPECT_EQ(from_f32(kNaN, "bf16", "torch"), 0xFFFFu);
  EXPECT_EQ(from_f32(-500.0f, "ue8m0", "torch"), 0x88u);  // sign ignored: 512
  EXPECT_EQ(from_f32(0.0f, "ue8m0", "torch"), 0x00u);
  EXPECT_EQ(from_f32(kInf, "ue8m0", "torch"), 0xFFu);
  const Profile& t = find_profile("torch");
  EXPECT_EQ(convert_with_profile(0xFF, fmt("e4m3"), fmt("f32"), t, {}).bits, 0xFFF00000u);
  EXPECT_EQ(convert_with_profile(0x80, fmt("e4m3fnuz"), fmt("f32"), t, {}).bits, 0x7F800001u);
}

TEST(Profiles, X86) {
  using M = RoundingMode;
  // VCVTPS2PH honours MXCSR.DAZ (measured) and its immediate rounding.
  UserOptions up_daz = opts(M::up);
  up_daz.daz = true;
  EXPECT_EQ(from_f32(std::bit_cast<float>(1u), "f16", "x86-f16c", opts(M::up)), 0x0001u);
  EXPECT_EQ(from_f32(std::bit_cast<float>(1u), "f16", "x86-f16c", up_daz), 0x0000u);
  // VCVTNEPS2BF16: input denormals are zero, whatever the user says nothing else.
  EXPECT_EQ(from_f32(std::bit_cast<float>(0x807FFFFFu), "bf16", "x86-avx512bf16"), 0x8000u);
  EXPECT_EQ(from_f32(std::bit_cast<float>(0x807FFFFFu), "bf16", "ieee"), 0x8080u);
  EXPECT_EQ(from_f32(std::bit_cast<float>(0x7F800001u), "bf16", "x86-avx512bf16"), 0x7FC0u);
}

TEST(Profiles, P3109AndOcp) {
  using M = RoundingMode;
  // P3109 allows every mode; stochastic needs the number of random bits.
  UserOptions sr = opts(M::stochastic_a);
  sr.stochastic_bits = 4;
  sr.random = 0xF;
  EXPECT_EQ(from_f32(1.0f + 1.0f / 64, "binary8p4sf", "p3109", sr), from_f32(1.125f, "binary8p4sf", "ieee"));
  EXPECT_THROW(from_f32(1.0f, "binary8p4sf", "p3109", opts(M::stochastic_a)), Error);
  EXPECT_EQ(from_f32(1e9f, "binary8p4se", "p3109", opts({}, Saturation::propagate)),
            from_f32(224.0f, "binary8p4se", "ieee"));
  // OCP: saturating by default; MX elements clamp; the e8m0 scale floors.
  EXPECT_EQ(from_f32(1e6f, "e5m2", "ocp"), 0x7Bu);
  EXPECT_EQ(from_f32(1e6f, "e5m2", "ocp", opts({}, Saturation::none)), 0x7Cu);
  EXPECT_EQ(from_f32(3.9f, "ue8m0", "ocp"), 0x80u);
  EXPECT_THROW(from_f32(1e6f, "e2m1", "ocp", opts({}, Saturation::none)), Error);
}

TEST(Profiles, ResolveRoundingReportsTheEffectiveOptions) {
  const Rounding r = resolve_rounding(find_profile("nvidia"), fmt("f32"), fmt("ue8m0"), {});
  EXPECT_EQ(r.mode, RoundingMode::up);
  EXPECT_EQ(r.sat, Saturation::finite);
  const Rounding b = resolve_rounding(find_profile("x86-avx512bf16"), fmt("f32"), fmt("bf16"), {});
  EXPECT_TRUE(b.daz);
  EXPECT_TRUE(b.ftz);
  const ConversionRule& rule = find_rule(find_profile("ml_dtypes-0.6"), fmt("f64"), fmt("e4m3"));
  EXPECT_TRUE(rule.via_f32);
}
