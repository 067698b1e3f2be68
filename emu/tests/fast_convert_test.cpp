// The fast fp32 batch path (fast_convert.hpp) against the clear path `convert`, bit for bit and
// flag for flag:
//   - FastConvertFormat.*: every built-in format of <= 16 bits with 2^20 structured + random
//     inputs for each (mode, saturation, ftz) of rne/rna/rtz/up/down/odd x none/finite/propagate
//     x ftz on/off, plus daz and tininess-before variants; P3109 and custom layouts with 2^18;
//     the AVX2 kernel on every configuration, the portable one on every fifth;
//   - lengths/offsets, spans and errors, fallbacks, MXCSR independence;
//   - against the native F16C instruction (vcvtps2ph, 4 rounding immediates);
//   - FastConvertExhaustive.* (skipped unless FPCONFORM_EXHAUSTIVE is set; `ctest -R
//     fast_convert_exhaustive`, label "exhaustive"): all 2^32 fp32 inputs for f16, bf16, e4m3,
//     e5m2, e2m1 x rne/rtz/up/down x sat none/finite, plain and with flags.
#include "fpconform/fast_convert.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/core/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FPC_TEST_X86 1
#else
#define FPC_TEST_X86 0
#endif

namespace fpconform {
namespace {

using RM = RoundingMode;

const Format& f32() {
  static const Format f = *find_builtin("f32");
  return f;
}

float as_float(std::uint32_t b) { return std::bit_cast<float>(b); }

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string describe(const Format& f, const Rounding& r) {
  std::string s = f.name + " " + std::string(to_string(r.mode)) + " sat=" +
                  std::string(to_string(r.sat));
  if (r.ftz) s += " ftz";
  if (r.daz) s += " daz";
  if (r.tininess == Tininess::before_rounding) s += " tiny-before";
  return s;
}

// Formats the tests cover: every built-in of <= 16 bits, P3109 examples and custom layouts that
// exercise the generic paths (unsigned with IEEE specials, no zero, bias 128, ...).
std::vector<std::string> test_format_names() {
  std::vector<std::string> names;
  for (const auto& f : builtin_formats())
    if (f.width() <= 16) names.push_back(f.name);
  for (const char* extra : {
           "binary8p3se", "binary8p4sf", "binary8p1se", "binary8p3ue", "binary8p1uf",
           "binary6p3sf", "binary4p2se", "binary16p11se",
           "custom:e=5,m=3,signed=0",                                      // unsigned, IEEE specials
           "custom:e=4,m=2,signed=1,subnormals=0,zero=0,inf=none,nan=ones",  // signed, no zero
           "custom:e=8,m=4,bias=128,inf=none,nan=negzero",                 // bias 128, emin -127
           "custom:e=8,m=3,bias=128,signed=0,subnormals=0,zero=0,inf=none,nan=max",
           "custom:e=6,m=5,bias=-3",                                       // negative bias
           "custom:e=2,m=2,bias=0,inf=ieee,nan=ieee",  // max finite below 2^emin
           "e6m9", "e7m3", "e5m10", "e8m1",
       })
    names.push_back(extra);
  return names;
}

// ---------- inputs ----------

// Structured fp32 patterns independent of the target: every exponent field with mantissas that
// put a tie (and +-1 ulp around it) at every bit position with both parities, plus the ends.
void add_generic_structure(std::vector<std::uint32_t>& v, std::mt19937_64& rng) {
  for (std::uint32_t sign = 0; sign < 2; ++sign)
    for (std::uint32_t e = 0; e < 256; ++e) {
      const std::uint32_t top = sign << 31 | e << 23;
      for (std::uint32_t m : {0u, 1u, 2u, 3u, 0x7FFFFFu, 0x7FFFFEu, 0x400000u, 0x3FFFFFu})
        v.push_back(top | m);
      if (e == 255) continue;  // NaNs: below
      for (int k = 1; k <= 23; ++k) {
        const std::uint32_t half = 1u << (k - 1);
        const std::uint32_t highs[3] = {0u, 0xFFFFFFFFu, static_cast<std::uint32_t>(rng())};
        for (std::uint32_t hi : highs)
          for (std::uint32_t lsb = 0; lsb < 2; ++lsb) {
            const std::uint32_t base = ((hi << k) & ~(1u << k)) | (lsb << k);
            for (int delta = -1; delta <= 1; ++delta)
              v.push_back(top | ((base + half + static_cast<std::uint32_t>(delta)) & 0x7FFFFFu));
          }
      }
    }
  // NaNs: quiet and signaling, every payload bit, both signs.
  for (std::uint32_t sign = 0; sign < 2; ++sign) {
    const std::uint32_t s = sign << 31;
    for (std::uint32_t b = 0; b < 22; ++b) {
      v.push_back(s | 0x7FC00000u | 1u << b);
      v.push_back(s | 0x7F800000u | 1u << b);
      v.push_back(s | 0x7F800000u | (0x3FFFFFu >> b));
    }
    for (std::uint32_t m : {0x7FFFFFu, 0x400000u, 0x000001u, 0x200000u, 0x600000u})
      v.push_back(s | 0x7F800000u | m);
  }
}

void push_with_neighbours(std::vector<std::uint32_t>& v, double value, int spread) {
  if (!(value > 0) || !std::isfinite(value)) return;
  const float f = static_cast<float>(value);
  if (static_cast<double>(f) != value || !std::isfinite(f)) return;
  const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  for (int d = -spread; d <= spread; ++d) {
    const std::uint32_t x = b + static_cast<std::uint32_t>(d);
    if (x >= 0x7F800000u) continue;
    v.push_back(x);
    v.push_back(x | 0x80000000u);
  }
}

// Target-specific points: every finite code's value, the midpoints between neighbouring codes,
// +-1 and +-2 fp32 ulps around them; the overflow threshold; the tininess boundary.
void add_format_structure(std::vector<std::uint32_t>& v, const Format& f) {
  const std::uint64_t maxmag = f.magnitude_mask();
  double prev = NAN;
  for (std::uint64_t c = 0; c <= maxmag; ++c) {
    if (f.is_nan_code(c) || f.is_inf_code(c)) {
      prev = NAN;
      continue;
    }
    const double val = to_double(c, f);
    push_with_neighbours(v, val, 2);
    if (std::isfinite(prev)) push_with_neighbours(v, (prev + val) / 2, 2);
    prev = val;
  }
  const std::uint64_t mf = f.max_finite_code();
  const double maxf = to_double(mf, f);
  const double ulp = std::ldexp(1.0, f.emax() - f.man_bits);
  for (double x : {maxf + ulp / 2, maxf + ulp, maxf + 1.5 * ulp, 2 * maxf, 4 * maxf})
    push_with_neighbours(v, x, 2);
  const int emin = f.emin();
  for (int k = 0; k <= 4; ++k)
    push_with_neighbours(v, std::ldexp(1.0, emin) - std::ldexp(1.0, emin - f.man_bits - 1 - k), 2);
  push_with_neighbours(v, std::ldexp(1.0, emin - f.man_bits - 1), 2);  // half of minpos
  push_with_neighbours(v, std::ldexp(1.0, emin - 1), 2);
}

// >= `total` inputs: the structure above, then random ones (half uniform bit patterns, half in
// and around the target's range with tie-like low bits), shuffled in blocks so that runs of
// normal values (the block shortcut) and mixed blocks both occur.
std::vector<std::uint32_t> make_inputs(const Format& f, std::size_t total, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> v;
  v.reserve(total + 1024);
  add_generic_structure(v, rng);
  add_format_structure(v, f);
  const int lo = std::max(0, f.emin() - f.man_bits - 4 + 127);
  const int hi = std::min(254, f.emax() + 3 + 127);
  while (v.size() < total) {
    const std::uint64_t r = rng();
    std::uint32_t x = static_cast<std::uint32_t>(r);
    if (r >> 63) {
      const std::uint32_t e = static_cast<std::uint32_t>(lo + (r >> 32) % (hi - lo + 1));
      x = (x & 0x807FFFFFu) | e << 23;
      if ((r >> 40) & 1) {  // a tie, or one off, at the target's rounding position
        const int k = 23 - f.man_bits;
        const std::uint32_t half = 1u << (k - 1);
        x = (x & ~((1u << k) - 1)) | (half + static_cast<std::uint32_t>(((r >> 41) % 3)) - 1);
      }
    }
    v.push_back(x);
  }
  // Shuffle 64-element blocks (keeps runs intact, mixes their order).
  const std::size_t blocks = v.size() / 64;
  for (std::size_t i = blocks; i > 1; --i) {
    const std::size_t j = rng() % i;
    std::swap_ranges(v.begin() + static_cast<std::ptrdiff_t>((i - 1) * 64),
                     v.begin() + static_cast<std::ptrdiff_t>(i * 64),
                     v.begin() + static_cast<std::ptrdiff_t>(j * 64));
  }
  return v;
}

// ---------- comparison ----------

struct Expected {
  std::vector<std::uint16_t> code;
  std::vector<std::uint8_t> flags;
  std::uint8_t all_flags = 0;
};

Expected reference_results(const std::vector<std::uint32_t>& in, const Format& f,
                           const Rounding& r) {
  Expected e;
  e.code.resize(in.size());
  e.flags.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Rounded res = convert(in[i], f32(), f, r);
    e.code[i] = static_cast<std::uint16_t>(res.bits);
    e.flags[i] = res.flags.bits;
    e.all_flags |= res.flags.bits;
  }
  return e;
}

std::vector<std::uint16_t> read_codes(const std::vector<std::uint8_t>& raw, std::size_t bytes,
                                      std::size_t n) {
  std::vector<std::uint16_t> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = bytes == 1 ? raw[i] : static_cast<std::uint16_t>(raw[2 * i] | raw[2 * i + 1] << 8);
  return out;
}

// Runs converter c over `in` (plain, with per-element flags and, unless `quick`, with
// accumulated flags) and compares with e. Returns the number of mismatches.
std::size_t compare(const F32Converter& c, const std::vector<std::uint32_t>& in,
                    const Expected& e, const std::string& what, bool quick = false) {
  const std::size_t n = in.size();
  const float* src = reinterpret_cast<const float*>(in.data());
  std::vector<std::uint8_t> raw(n * c.code_bytes() + 1);
  std::vector<std::uint8_t> fl(n);
  std::size_t bad = 0;
  auto report = [&](std::size_t i, std::uint16_t got, std::uint8_t got_f, bool with_flags) {
    if (bad++ < 6)
      ADD_FAILURE() << what << " kernel=" << to_string(c.kernel()) << " input " << hex(in[i])
                    << " (" << as_float(in[i]) << "): got " << hex(got)
                    << (with_flags ? " flags " + Flags{got_f}.to_string() : std::string())
                    << ", convert gives " << hex(e.code[i])
                    << (with_flags ? " flags " + Flags{e.flags[i]}.to_string() : std::string());
  };
  c.convert(src, raw.data(), n);
  auto codes = read_codes(raw, c.code_bytes(), n);
  for (std::size_t i = 0; i < n; ++i)
    if (codes[i] != e.code[i]) report(i, codes[i], 0, false);
  std::fill(raw.begin(), raw.end(), 0xA5);
  const Flags all = c.convert_flags(src, raw.data(), fl.data(), n);
  codes = read_codes(raw, c.code_bytes(), n);
  for (std::size_t i = 0; i < n; ++i)
    if (codes[i] != e.code[i] || fl[i] != e.flags[i]) report(i, codes[i], fl[i], true);
  EXPECT_EQ(all.bits, e.all_flags) << what << ": OR of the flags";
  if (quick) return bad;
  const Flags acc = c.convert_flags(src, raw.data(), n);
  EXPECT_EQ(acc.bits, e.all_flags) << what << ": accumulated flags";
  return bad;
}

std::vector<ConvertKernel> kernels_to_test() {
  std::vector<ConvertKernel> k{ConvertKernel::portable};
  if (kernel_available(ConvertKernel::avx2)) k.push_back(ConvertKernel::avx2);
  if (kernel_available(ConvertKernel::f16c)) k.push_back(ConvertKernel::f16c);
  if (kernel_available(ConvertKernel::avx512)) k.push_back(ConvertKernel::avx512);
  return k;
}

constexpr RM kModes[] = {RM::rne, RM::rna, RM::rtz, RM::up, RM::down, RM::odd};
constexpr Saturation kSats[] = {Saturation::none, Saturation::finite, Saturation::propagate};

// ---------- the main sweep: one test per format ----------

class FastConvertFormat : public ::testing::TestWithParam<std::string> {};

TEST_P(FastConvertFormat, MatchesConvertEverywhere) {
  const Format f = parse_format(GetParam());
  // Built-in formats get 2^20 inputs per configuration; the extra P3109/custom layouts 2^18.
  const bool builtin = find_builtin(GetParam()).has_value();
  const auto in =
      make_inputs(f, std::size_t{1} << (builtin ? 20 : 18), std::hash<std::string>{}(f.name));
  if (builtin) {
    ASSERT_GE(in.size(), 1000000u);
  }
  std::size_t configs = 0;
  std::vector<Rounding> rs;
  for (RM mode : kModes)
    for (Saturation sat : kSats)
      for (bool ftz : {false, true}) {
        Rounding r;
        r.mode = mode;
        r.sat = sat;
        r.ftz = ftz;
        rs.push_back(r);
      }
  // daz and tininess before rounding, on fewer combinations.
  for (RM mode : {RM::rne, RM::up, RM::down, RM::odd})
    for (int variant = 0; variant < 3; ++variant) {
      Rounding r;
      r.mode = mode;
      r.daz = variant != 1;
      r.ftz = variant != 0;
      r.tininess = variant == 2 ? Tininess::before_rounding : Tininess::after_rounding;
      rs.push_back(r);
    }
  for (const Rounding& r : rs) {
    const std::string what = describe(f, r);
    const Expected e = reference_results(in, f, r);
    for (ConvertKernel k : kernels_to_test()) {
      F32Converter c(f, r, k);
      const bool expect_vec = f.bias >= -128 && f.bias <= 128;
      EXPECT_EQ(c.vectorized(), expect_vec) << what;
      // The portable kernel is scalar for mixed blocks (no variable shifts before AVX2): where
      // AVX2 is tested too, check it on every fifth configuration (5 is prime to the 6 (sat,
      // ftz) pairs per mode, so each pair comes up) to keep the test short.
      const bool portable = k == ConvertKernel::portable && kernels_to_test().size() > 1;
      if (portable && configs % 5 != 0) continue;
      if (compare(c, in, e, what, portable) != 0) return;  // one failing configuration is enough
    }
    ++configs;
  }
  std::printf("[ fast     ] %s: %zu configurations x %zu inputs\n", f.name.c_str(), configs,
              in.size());
}

INSTANTIATE_TEST_SUITE_P(Formats, FastConvertFormat, ::testing::ValuesIn(test_format_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string s = info.param;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

// ---------- API behaviour ----------

TEST(FastConvert, LengthsAndOffsets) {
  // Every length up to 300 and unaligned starts: the block loop, its tail and the chunking, for
  // each kind of tier (tier F: rne; integer tier 2: odd, and bf16) and both code sizes.
  std::mt19937 rng(7);
  std::vector<std::uint32_t> in(5000);
  std::normal_distribution<float> nd(0, 100);
  for (auto& x : in) x = std::bit_cast<std::uint32_t>(nd(rng));
  for (std::size_t i = 0; i < in.size(); i += 97) in[i] = 0x7FC00000u;  // some NaNs
  for (std::size_t i = 3000; i < 3300; ++i) in[i] = std::bit_cast<std::uint32_t>(1.0f);  // a run
  for (const char* name : {"e4m3", "f16", "bf16"})
    for (RM mode : {RM::rne, RM::odd}) {
      const Format f = *find_builtin(name);
      Rounding r;
      r.mode = mode;
      const Expected e = reference_results(in, f, r);
      for (ConvertKernel k : kernels_to_test()) {
        F32Converter c(f, r, k);
        const std::string what = describe(f, r) + " " + std::string(to_string(k));
        for (std::size_t off = 0; off < 5; ++off)
          for (std::size_t n = 0; n <= 300; n += (n < 140 ? 1 : 7)) {
            std::vector<std::uint8_t> raw(n * c.code_bytes() + 2, 0xEE);
            c.convert(reinterpret_cast<const float*>(in.data()) + off, raw.data(), n);
            const auto codes = read_codes(raw, c.code_bytes(), n);
            for (std::size_t i = 0; i < n; ++i)
              ASSERT_EQ(codes[i], e.code[off + i]) << what << " n=" << n << " off=" << off
                                                   << " i=" << i;
            ASSERT_EQ(raw[n * c.code_bytes()], 0xEE) << what << ": wrote past the end, n=" << n;
          }
        // A long run that crosses the internal chunk size (2048) of the flags path.
        EXPECT_EQ(compare(c, in, e, what), 0u);
      }
    }
}

TEST(FastConvert, SpansAndErrors) {
  const Format e4m3 = *find_builtin("e4m3");
  const Format f16 = *find_builtin("f16");
  Rounding r;
  std::vector<float> in{1.0f, -2.5f, 448.0f, 1e9f, std::nanf("")};
  std::vector<std::uint8_t> o8(in.size());
  std::vector<std::uint16_t> o16(in.size());
  convert_f32_batch(in, o8, e4m3, r);
  EXPECT_EQ(o8[0], 0x38);
  EXPECT_EQ(o8[1], 0xC2);
  EXPECT_EQ(o8[2], 0x7E);
  EXPECT_EQ(o8[3], 0x7F);  // overflow without saturation: NaN
  convert_f32_batch(in, o16, f16, r);
  EXPECT_EQ(o16[0], 0x3C00);
  EXPECT_EQ(o16[3], 0x7C00);
  EXPECT_THROW(convert_f32_batch(in, o16, e4m3, r), Error);  // 1-byte format, 2-byte span
  EXPECT_THROW(convert_f32_batch(in, o8, f16, r), Error);
  std::vector<std::uint8_t> short_out(2);
  EXPECT_THROW(convert_f32_batch(in, short_out, e4m3, r), Error);
  EXPECT_THROW(F32Converter(*find_builtin("tf32"), r), Error);
  EXPECT_THROW(F32Converter(*find_builtin("f32"), r), Error);
  F32Converter c(e4m3, r);
  Flags fl;
  EXPECT_EQ(c.convert_one(1e9f, &fl), 0x7Fu);
  EXPECT_EQ(fl.bits, Flags::overflow | Flags::inexact);
  Rounding sat = r;
  sat.sat = Saturation::finite;
  EXPECT_EQ(F32Converter(e4m3, sat).convert_one(1e9f), 0x7Eu);
  EXPECT_EQ(c.code_bytes(), 1u);
  EXPECT_EQ(F32Converter(f16, r).code_bytes(), 2u);
  EXPECT_TRUE(c.vectorized());
  if (!kernel_available(ConvertKernel::avx2)) {
    EXPECT_THROW(F32Converter(e4m3, r, ConvertKernel::avx2), Error);
  }
  if (!kernel_available(ConvertKernel::avx512)) {
    EXPECT_THROW(F32Converter(e4m3, r, ConvertKernel::avx512), Error);
  }
}

// The avx512 kernel natively: where the CPU has AVX-512 F/BW/DQ, `best` picks it and the
// FastConvertFormat sweeps run it (kernels_to_test); here, normal data whose groups mostly stay
// in tier MS, codes equal to `convert`'s. Elsewhere its tier is checked under emulation
// (tierms_avx512_emulated_test.cpp) and this test says it was skipped.
TEST(FastConvert, Avx512KernelNative) {
  if (!kernel_available(ConvertKernel::avx512))
    GTEST_SKIP() << "this CPU lacks AVX-512 F/BW/DQ (or AVX2/F16C): the avx512 kernel cannot run "
                    "here; TierMsAvx512Emulated checks its tier under SIMDe's emulation";
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> in(1 << 16);
  for (float& x : in) x = nd(rng);
  for (std::size_t i = 0; i < in.size(); i += 4099) in[i] *= 1e4f;  // a few groups in tier M
  for (const char* name : {"e4m3", "e5m2", "e2m1"})
    for (RM mode : {RM::rne, RM::up, RM::down}) {
      Rounding r;
      r.mode = mode;
      const Format f = *find_builtin(name);
      const F32Converter c(f, r, ConvertKernel::avx512);
      EXPECT_EQ(F32Converter(f, r).kernel(), ConvertKernel::avx512) << "best picks it";
      std::vector<std::uint8_t> out(in.size());
      c.convert(in.data(), out.data(), in.size());
      std::size_t bad = 0;
      for (std::size_t i = 0; i < in.size(); ++i)
        bad += out[i] != convert(std::bit_cast<std::uint32_t>(in[i]), f32(), f, r).bits;
      EXPECT_EQ(bad, 0u) << describe(f, r);
    }
}

TEST(FastConvert, FallbacksMatchConvert) {
  // Stochastic modes and out-of-range biases go through `convert` element by element.
  std::vector<std::uint32_t> in;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) in.push_back(static_cast<std::uint32_t>(rng()));
  for (const char* name : {"e4m3", "e9m6", "custom:e=10,m=5"}) {
    const Format f = parse_format(name);
    for (RM mode : {RM::stochastic_a, RM::stochastic_b, RM::stochastic_c,
                    RM::stochastic_exact, RM::rne}) {
      Rounding r;
      r.mode = mode;
      r.stochastic_bits = 5;
      r.random = 0x13;
      F32Converter c(f, r);
      if (is_stochastic(mode) || f.bias > 128) {
        EXPECT_FALSE(c.vectorized()) << name;
      }
      EXPECT_EQ(compare(c, in, reference_results(in, f, r), describe(f, r)), 0u);
    }
  }
}

TEST(FastConvert, ReferenceKernelMatches) {
  const Format f = *find_builtin("e5m2");
  Rounding r;
  r.mode = RM::up;
  F32Converter c(f, r, ConvertKernel::reference);
  EXPECT_FALSE(c.vectorized());
  std::vector<std::uint32_t> in = make_inputs(f, 100000, 5);
  EXPECT_EQ(compare(c, in, reference_results(in, f, r), "reference kernel"), 0u);
}

#if FPC_TEST_X86
TEST(FastConvert, MxcsrStateDoesNotMatter) {
  // The AVX2 kernel's floating-point tier rounds with explicit immediates on exact, normal
  // values: MXCSR's DAZ, FTZ and rounding mode must not change any result.
  if (!kernel_available(ConvertKernel::avx2)) GTEST_SKIP() << "no AVX2";
  struct Restore {
    unsigned csr = _mm_getcsr();
    ~Restore() { _mm_setcsr(csr); }
  } restore;
  for (const char* name : {"f16", "e4m3", "e2m1", "e5m2fnuz", "e3m4", "bf16"}) {
    const Format f = *find_builtin(name);
    const auto in = make_inputs(f, 1u << 18, 17);
    for (RM mode : {RM::rne, RM::rtz, RM::up, RM::down}) {
      Rounding r;
      r.mode = mode;
      const Expected e = reference_results(in, f, r);
      // f16c: vcvtps2ph must step aside while DAZ/FTZ are set (the AVX2 kernel serves then).
      for (ConvertKernel k : {ConvertKernel::avx2, ConvertKernel::f16c}) {
        if (!kernel_available(k)) continue;
        F32Converter c(f, r, k);
        for (unsigned bits : {0x8040u, 0x8040u | 0x4000u, 0x6000u, 0x0040u, 0x8000u}) {
          _mm_setcsr((restore.csr & ~0xE040u) | bits);
          const std::size_t bad =
              compare(c, in, e, describe(f, r) + " (MXCSR " + hex(bits) + ")", true);
          _mm_setcsr(restore.csr);
          EXPECT_EQ(bad, 0u);
        }
      }
    }
  }
}
#endif

#if FPC_TEST_X86
TEST(FastConvert, LeavesMxcsrFlagsAlone) {
  // The floating-point tier must not raise exception flags, whatever the inputs (sNaN, inf,
  // overflow share blocks with ordinary values in these inputs).
  struct Restore {
    unsigned csr = _mm_getcsr();
    ~Restore() { _mm_setcsr(csr); }
  } restore;
  for (const char* name : {"f16", "e4m3", "e5m2", "e2m1", "e4m3fnuz"}) {
    const Format f = *find_builtin(name);
    const auto in = make_inputs(f, 1u << 16, 23);
    std::vector<std::uint16_t> out(in.size());
    for (RM mode : {RM::rne, RM::rtz, RM::up, RM::down, RM::rna, RM::odd}) {
      Rounding r;
      r.mode = mode;
      const F32Converter c(f, r);
      _mm_setcsr(restore.csr & ~0x3Fu);  // clear the six exception flags
      c.convert(reinterpret_cast<const float*>(in.data()), out.data(), in.size());
      const unsigned flags = _mm_getcsr() & 0x3Fu;
      EXPECT_EQ(flags, 0u) << describe(f, r) << ": MXCSR flags " << hex(flags);
    }
  }
}
#endif

// ---------- against the native F16C instruction ----------

#if FPC_TEST_X86
// vcvtps2ph on 8 values with rounding immediate Imm (0 rne, 1 down, 2 up, 3 rtz).
template <int Imm>
__attribute__((target("avx,f16c"))) void native_f16(const std::uint32_t* in, std::uint16_t* out,
                                                    std::size_t n) {
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(reinterpret_cast<const float*>(in + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(v, Imm));
  }
}
#endif

TEST(FastConvert, MatchesF16C) {
#if FPC_TEST_X86
  if (!__builtin_cpu_supports("f16c") || !__builtin_cpu_supports("avx"))
    GTEST_SKIP() << "this CPU has no F16C (vcvtps2ph); native comparison skipped";
  // MXCSR DAZ/FTZ would change vcvtps2ph on subnormal inputs; the default has them off.
  if ((_mm_getcsr() & 0x8040u) != 0) GTEST_SKIP() << "MXCSR has DAZ or FTZ set";
  const Format f16 = *find_builtin("f16");
  // Structured inputs plus a stride walk over the whole fp32 space (2^25 points).
  std::vector<std::uint32_t> in = make_inputs(f16, 1u << 20, 11);
  const std::uint32_t stride = 127;  // odd: visits every residue class
  for (std::uint32_t i = 0, x = 12345; i < (1u << 25); ++i, x += stride) in.push_back(x);
  in.resize(in.size() / 8 * 8);
  const std::size_t n = in.size();
  std::vector<std::uint16_t> native(n), ours(n);
  struct M {
    RM mode;
    void (*fn)(const std::uint32_t*, std::uint16_t*, std::size_t);
  } modes[] = {{RM::rne, &native_f16<0>},
               {RM::down, &native_f16<1>},
               {RM::up, &native_f16<2>},
               {RM::rtz, &native_f16<3>}};
  for (const auto& m : modes) {
    m.fn(in.data(), native.data(), n);
    Rounding r;
    r.mode = m.mode;
    for (ConvertKernel k : kernels_to_test()) {
      F32Converter c(f16, r, k);
      // The portable kernel (scalar on mixed blocks) on the first 2^20 inputs only.
      const std::size_t len = k == ConvertKernel::portable ? std::min<std::size_t>(n, 1u << 20) : n;
      c.convert(reinterpret_cast<const float*>(in.data()), ours.data(), len);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < len; ++i)
        if (ours[i] != native[i] && bad++ < 5)
          ADD_FAILURE() << to_string(m.mode) << " " << to_string(k) << " input " << hex(in[i])
                        << ": ours " << hex(ours[i]) << ", vcvtps2ph " << hex(native[i]);
      EXPECT_EQ(bad, 0u);
    }
  }
  std::printf("[ f16c     ] %zu inputs x 4 rounding immediates agree with vcvtps2ph\n", n);
#else
  GTEST_SKIP() << "not an x86 build; no F16C";
#endif
}

#if FPC_TEST_X86
// The f16c kernel (vcvtps2ph) against the avx2 kernel (the integer path, itself checked against
// `convert` above and exhaustively): every fp32 input under rne, every 61st under rtz, up, down.
TEST(FastConvert, F16cKernelMatchesAvx2Kernel) {
  if (!kernel_available(ConvertKernel::f16c)) GTEST_SKIP() << "no AVX2 + F16C on this CPU";
  if ((_mm_getcsr() & 0x8040u) != 0) GTEST_SKIP() << "MXCSR has DAZ or FTZ set";
  const Format f16 = *find_builtin("f16");
  constexpr std::size_t kChunk = 1u << 16;
  std::vector<std::uint32_t> in(kChunk);
  std::vector<std::uint16_t> native(kChunk), ours(kChunk);
  for (RM mode : {RM::rne, RM::rtz, RM::up, RM::down}) {
    Rounding r;
    r.mode = mode;
    const F32Converter nat(f16, r, ConvertKernel::f16c), avx(f16, r, ConvertKernel::avx2);
    const std::uint64_t step = mode == RM::rne ? 1 : 61;
    std::size_t bad = 0;
    for (std::uint64_t start = 0; start < (1ull << 32); start += kChunk * step) {
      for (std::size_t i = 0; i < kChunk; ++i)
        in[i] = static_cast<std::uint32_t>(start + i * step);
      const float* src = reinterpret_cast<const float*>(in.data());
      nat.convert(src, native.data(), kChunk);
      avx.convert(src, ours.data(), kChunk);
      for (std::size_t i = 0; i < kChunk; ++i)
        if (native[i] != ours[i] && bad++ < 5)
          ADD_FAILURE() << to_string(mode) << " input " << hex(in[i]) << ": f16c " << hex(native[i])
                        << ", avx2 " << hex(ours[i]);
    }
    EXPECT_EQ(bad, 0u) << to_string(mode);
  }
}
#endif

// Tier S (formats with fp32's exponent range, AVX2) against the portable kernel (checked
// against `convert` in the sweeps): bf16 and a custom e8m3, every fp32 input under rne, every
// 61st under the other modes, saturation none and finite.
TEST(FastConvert, TierMBlockRunsMatchConvert) {
  // The AVX2 tier M (1-byte codes, rne/rtz/up/down) starts blocks without the overflow clamp,
  // redoes a block with it (and keeps it for the next blocks), and a block with NaN/inf in tier
  // 3: runs of 64-value blocks whose scale steps from tiny (subnormal results) to overflow, with
  // a NaN, an inf or a -0 dropped into some blocks. Expected codes come from `convert`.
  if (!kernel_available(ConvertKernel::avx2)) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(99);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<std::uint32_t> in;
  for (int blk = 0; blk < 600; ++blk) {
    const float scale = std::ldexp(1.0f, (blk / 7) % 48 - 24);  // runs of 7 blocks per scale
    for (int j = 0; j < 64; ++j) in.push_back(std::bit_cast<std::uint32_t>(nd(rng) * scale));
    const std::size_t at = in.size() - 1 - rng() % 64;
    switch (blk % 11) {
      case 3: in[at] = 0x7FC00000u | (rng() & 0x3FFFFFu) | (rng() & 1u) << 31; break;  // NaN
      case 5: in[at] = 0x7F800000u | (rng() & 1u) << 31; break;                       // inf
      case 7: in[at] = 0x80000000u; break;                                           // -0
      case 9: in[at] = rng() & 0x807FFFFFu; break;  // fp32 subnormal
      default: break;
    }
  }
  in.resize(in.size() - 13);  // and a tail
  for (const char* name : {"e4m3", "e5m2", "e2m1", "e3m2", "e2m3", "binary8p3se"}) {
    const Format f = parse_format(name);
    for (RM mode : {RM::rne, RM::rtz, RM::up, RM::down})
      for (Saturation sat : kSats) {
        Rounding r;
        r.mode = mode;
        r.sat = sat;
        const Expected e = reference_results(in, f, r);
        for (ConvertKernel k : {ConvertKernel::avx2, ConvertKernel::portable}) {
          const F32Converter c(f, r, k);
          EXPECT_EQ(compare(c, in, e, describe(f, r), true), 0u);
        }
      }
  }
}

TEST(FastConvert, TierMsHandsTopBinadeGroupsToTierM) {
  // rne/up/down go through tier MS (exact below 2^emax) in groups of 8 blocks; in a group with a
  // value in the top binade or beyond, the blocks with one are redone in tier M, and unless that
  // is a lone block after good groups, tier MS waits 1, 2, 4, ... groups while failures come in
  // a row. Inputs: stretches of small values (sigma 2^(emax-4)), single
  // top-binade, overflow, NaN and max-finite values at the start, middle and end of groups,
  // a long stretch where every block reaches the top binade (the wait grows to its limit), and
  // small values again. Expected codes come from `convert`.
  if (!kernel_available(ConvertKernel::avx2)) GTEST_SKIP() << "no AVX2";
  for (const char* name : {"e4m3", "e5m2", "e2m1", "e3m2", "e2m3", "e3m4", "e4m3ieee"}) {
    const Format f = parse_format(name);
    const float top = std::ldexp(1.0f, f.emax());
    const float maxf = static_cast<float>(to_double(f.max_finite_code(), f));
    std::mt19937 rng(7);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<std::uint32_t> in;
    auto small = [&](int blocks) {
      for (int i = 0; i < 64 * blocks; ++i)
        in.push_back(std::bit_cast<std::uint32_t>(nd(rng) * top / 16));
    };
    const float odd[] = {top, -top, maxf, -maxf, top * 1.99f, -top * 1.99f, maxf * 1.5f,
                         std::bit_cast<float>(0x7FC01234u), std::bit_cast<float>(0xFF800000u)};
    small(40);
    int k = 0;
    for (int at : {0, 63, 64 * 7 + 5, 64 * 15 + 63, 64 * 16, 64 * 33 + 1, 64 * 2 + 9, 64 * 20,
                   64 * 9 + 40}) {
      const std::size_t base = in.size();
      small(40);
      in[base + at] = std::bit_cast<std::uint32_t>(odd[k++]);
    }
    // Overflow inside the top binade (no exponent above emax): one value every 20 blocks,
    // between max finite and 2^(emax+1).
    for (int blk = 0; blk < 16 * 40; ++blk) {
      small(1);
      if (blk % 20 == 0)
        in[in.size() - 1 - rng() % 64] = std::bit_cast<std::uint32_t>(
            (blk & 32 ? -1.0f : 1.0f) * (maxf + (2 * top - maxf) * (rng() % 1000) / 1000.0f));
    }
    for (int blk = 0; blk < 16 * 3 * 64; ++blk) {  // every block reaches the top binade
      small(1);
      in[in.size() - 1 - rng() % 64] = std::bit_cast<std::uint32_t>(odd[rng() % 9]);
    }
    small(16 * 70);  // longer than the longest wait
    in[in.size() - 100] = std::bit_cast<std::uint32_t>(odd[4]);
    in.resize(in.size() - 5);  // and a tail
    for (RM mode : {RM::rne, RM::rtz, RM::up, RM::down})
      for (Saturation sat : kSats) {
        Rounding r;
        r.mode = mode;
        r.sat = sat;
        const F32Converter c(f, r, ConvertKernel::avx2);
        EXPECT_EQ(compare(c, in, reference_results(in, f, r), describe(f, r), true), 0u);
      }
  }
}

TEST(FastConvert, SignAlignedTierMatchesPortable) {
  if (!kernel_available(ConvertKernel::avx2)) GTEST_SKIP() << "no AVX2";
  constexpr std::size_t kChunk = 1u << 16;
  std::vector<std::uint32_t> in(kChunk);
  std::vector<std::uint16_t> fast(kChunk), plain(kChunk);
  for (const char* name : {"bf16", "custom:e=8,m=3,bias=127"}) {
    const Format f = parse_format(name);
    for (RM mode : kModes)
      for (Saturation sat : {Saturation::none, Saturation::finite}) {
        Rounding r;
        r.mode = mode;
        r.sat = sat;
        const F32Converter avx(f, r, ConvertKernel::avx2), port(f, r, ConvertKernel::portable);
        const std::uint64_t step = mode == RM::rne && sat == Saturation::none ? 1 : 61;
        std::size_t bad = 0;
        for (std::uint64_t start = 0; start < (1ull << 32); start += kChunk * step) {
          for (std::size_t i = 0; i < kChunk; ++i)
            in[i] = static_cast<std::uint32_t>(start + i * step);
          const float* src = reinterpret_cast<const float*>(in.data());
          avx.convert(src, fast.data(), kChunk);
          port.convert(src, plain.data(), kChunk);
          if (std::memcmp(fast.data(), plain.data(), kChunk * avx.code_bytes()) == 0) continue;
          for (std::size_t i = 0; i < kChunk; ++i) {
            const unsigned a = avx.code_bytes() == 1 ? reinterpret_cast<std::uint8_t*>(fast.data())[i] : fast[i];
            const unsigned b = avx.code_bytes() == 1 ? reinterpret_cast<std::uint8_t*>(plain.data())[i] : plain[i];
            if (a != b && bad++ < 5)
              ADD_FAILURE() << describe(f, r) << " input " << hex(in[i]) << ": avx2 " << hex(a)
                            << ", portable " << hex(b);
          }
        }
        EXPECT_EQ(bad, 0u) << describe(f, r);
      }
  }
}

// ---------- exhaustive: all 2^32 fp32 inputs ----------

class FastConvertExhaustive : public ::testing::TestWithParam<std::string> {};

TEST_P(FastConvertExhaustive, All32BitInputs) {
  if (!std::getenv("FPCONFORM_EXHAUSTIVE"))
    GTEST_SKIP() << "set FPCONFORM_EXHAUSTIVE=1 (ctest -L exhaustive) to run all 2^32 inputs";
  const Format f = *find_builtin(GetParam());
  const unsigned threads = default_thread_count();
  for (RM mode : {RM::rne, RM::rtz, RM::up, RM::down})
    for (Saturation sat : {Saturation::none, Saturation::finite}) {
      Rounding r;
      r.mode = mode;
      r.sat = sat;
      const std::string what = describe(f, r);
      const F32Converter c(f, r);
      const auto t0 = std::chrono::steady_clock::now();
      std::atomic<std::uint64_t> next{0}, bad{0};
      std::mutex mu;
      std::vector<std::string> messages;
      constexpr std::uint64_t kChunk = 1u << 16;
      auto worker = [&] {
        std::vector<std::uint32_t> in(kChunk);
        std::vector<std::uint16_t> out(kChunk), plain(kChunk);
        std::vector<std::uint8_t> fl(kChunk);
        auto code_at = [&](const std::vector<std::uint16_t>& v, std::uint64_t i) -> std::uint16_t {
          return c.code_bytes() == 1 ? reinterpret_cast<const std::uint8_t*>(v.data())[i] : v[i];
        };
        for (;;) {
          const std::uint64_t start = next.fetch_add(kChunk);
          if (start >= (1ull << 32)) return;
          for (std::uint64_t i = 0; i < kChunk; ++i) in[i] = static_cast<std::uint32_t>(start + i);
          const float* src = reinterpret_cast<const float*>(in.data());
          c.convert(src, plain.data(), kChunk);  // the lean kernel (tiers 1, F/2, 3)
          c.convert_flags(src, out.data(), fl.data(), kChunk);  // the flags kernel
          for (std::uint64_t i = 0; i < kChunk; ++i) {
            const std::uint16_t got = code_at(out, i);
            const Rounded want = convert(in[i], f32(), f, r);
            if (got != want.bits || fl[i] != want.flags.bits || code_at(plain, i) != want.bits) {
              if (bad.fetch_add(1) < 5) {
                std::lock_guard<std::mutex> lock(mu);
                messages.push_back(what + " input " + hex(in[i]) + ": got " + hex(got) + " " +
                                   Flags{fl[i]}.to_string() + ", convert gives " +
                                   hex(want.bits) + " " + want.flags.to_string());
              }
            }
          }
        }
      };
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
      for (auto& t : pool) t.join();
      for (const auto& m : messages) ADD_FAILURE() << m;
      EXPECT_EQ(bad.load(), 0u) << what;
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("[ exhaust  ] %s: 2^32 inputs, codes and flags, %.0f s\n", what.c_str(), s);
      std::fflush(stdout);
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, FastConvertExhaustive,
                         ::testing::Values(std::string("f16"), std::string("bf16"),
                                           std::string("e4m3"), std::string("e5m2"),
                                           std::string("e2m1")),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace fpconform
