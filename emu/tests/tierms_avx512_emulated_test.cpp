// Tier MS on AVX-512 (emu/src/tierms_avx512.hpp, the kernel ConvertKernel::avx512 runs) under
// SIMDe's portable emulation of the AVX-512 intrinsics, against the clear path `convert`. This
// checks the kernel's arithmetic on CPUs without AVX-512, where the native kernel cannot run;
// where the CPU has AVX-512, the FastConvertFormat sweeps run the native kernel as well
// (FastConvert.Avx512KernelNative says which happened).
//
// Two intrinsics are emulated here from Intel's definitions rather than taken from SIMDe:
// vpmovdb (_mm512_cvtepi32_epi8, missing from SIMDe 0.7.4) and vfmadd (_mm512_fmadd_ps, which
// SIMDe computes as a product and a sum, two roundings; here std::fma per lane, one rounding in
// MXCSR's mode, as the instruction does). And SIMDe 0.7.4's alias for _mm512_madd_epi16 is
// wrong (four arguments), so its function is called directly.
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/fast_convert.hpp"
#include "fpconform/core/format.hpp"

#include "../src/fast_convert_params.hpp"

#if (defined(__x86_64__) || defined(__i386__)) && __has_include(<simde/x86/avx512.h>)
#define FPC_HAVE_SIMDE 1
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

namespace {
simde__m128i emulated_cvtepi32_epi8(simde__m512i a) {  // vpmovdb: each dword's low byte
  std::uint32_t d[16];
  simde_mm512_storeu_si512(d, a);
  std::uint8_t b[16];
  for (int i = 0; i < 16; ++i) b[i] = static_cast<std::uint8_t>(d[i]);
  return simde_mm_loadu_si128(b);
}
simde__m512 emulated_fmadd_ps(simde__m512 a, simde__m512 b, simde__m512 c) {  // one rounding
  float x[16], y[16], z[16];
  simde_mm512_storeu_ps(x, a);
  simde_mm512_storeu_ps(y, b);
  simde_mm512_storeu_ps(z, c);
  for (int i = 0; i < 16; ++i) x[i] = std::fma(x[i], y[i], z[i]);
  return simde_mm512_loadu_ps(x);
}
}  // namespace
#undef _mm512_cvtepi32_epi8
#define _mm512_cvtepi32_epi8(a) emulated_cvtepi32_epi8(a)
#undef _mm512_fmadd_ps
#define _mm512_fmadd_ps(a, b, c) emulated_fmadd_ps(a, b, c)
#undef _mm512_madd_epi16  // SIMDe 0.7.4's alias passes four arguments to its two-operand function
#define _mm512_madd_epi16(a, b) simde_mm512_madd_epi16(a, b)
#define FPC_AVX512_FN
#define FPC_AVX512VBMI_FN
#include "../src/tierms_avx512.hpp"
#define FPC_TIERS_FN
#include "../src/tiers_avx512.hpp"
#else
#define FPC_HAVE_SIMDE 0
#endif

namespace fpconform {
namespace {

using RM = RoundingMode;

#if FPC_HAVE_SIMDE
// MXCSR as run_tierm sets it around the kernel: exceptions masked, DAZ/FTZ off, rounding = mode.
class ScopedCsr {
 public:
  explicit ScopedCsr(RM m) : saved_(_mm_getcsr()) {
    const unsigned rc = m == RM::rne ? 0x0000u : m == RM::down ? 0x2000u : 0x4000u;
    _mm_setcsr(0x1F80u | rc);
  }
  ~ScopedCsr() { _mm_setcsr(saved_); }

 private:
  unsigned saved_;
};

// Every fp32 pattern with |x| below 2^emax of the format (the tier's domain), as its top 16 bits
// with low halves that matter for rounding (0, 1, half, just below and above half, all ones) and
// two random ones, padded to whole blocks of 64 with +0.
std::vector<std::uint32_t> inputs_below_top(const Format& f, std::mt19937& rng) {
  const std::uint32_t lim = static_cast<std::uint32_t>(f.emax() - 1 + 127) << 23;
  std::vector<std::uint32_t> v;
  for (std::uint32_t hi = 0; hi < 0x10000u; ++hi) {
    const std::uint32_t base = hi << 16;
    if ((base & 0x7F800000u) > lim) continue;
    for (std::uint32_t lo : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu})
      v.push_back(base | lo);
    v.push_back(base | (rng() & 0xFFFFu));
    v.push_back(base | (rng() & 0xFFFFu));
  }
  while (v.size() % 64) v.push_back(0);
  return v;
}

struct Case {
  const char* format;
  RM mode;
  Saturation sat;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.format << ' ' << to_string(c.mode) << " sat=" << to_string(c.sat);
}

class TierMsAvx512Emulated : public ::testing::TestWithParam<Case> {};

TEST_P(TierMsAvx512Emulated, MatchesConvertBelowTopBinade) {
  const Case c = GetParam();
  const Format f = *find_builtin(c.format);
  Rounding r;
  r.mode = c.mode;
  r.sat = c.sat;
  const detail::F32Params p = detail::make_f32_params(f, r);
  ASSERT_TRUE(p.mg_ok && p.ms_ok) << c.format << ": tier MS expected to serve this format";
  std::mt19937 rng(7);
  const std::vector<std::uint32_t> in = inputs_below_top(f, rng);
  std::vector<std::uint8_t> out(in.size(), 0xA5);
  const std::size_t nblocks = in.size() / 64;
  std::vector<std::uint8_t> out_vbmi(in.size(), 0x5A);
  std::size_t done, done_vbmi;
  {
    const ScopedCsr csr(c.mode);
    done = detail::tierms_groups_avx512(reinterpret_cast<const float*>(in.data()), out.data(),
                                        nblocks, 8, p);
    done_vbmi = detail::tierms_groups_avx512_vbmi(reinterpret_cast<const float*>(in.data()),
                                                  out_vbmi.data(), nblocks, 8, p);
  }
  ASSERT_EQ(done, nblocks) << "every input lies below the top binade";
  ASSERT_EQ(done_vbmi, nblocks);
  // The VBMI form (codes in byte 1, gathered by vpermt2b) writes the same bytes.
  EXPECT_EQ(out_vbmi, out);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Rounded want = convert(in[i], *find_builtin("f32"), f, r);
    if (out[i] != want.bits && ++bad <= 5)
      ADD_FAILURE() << c.format << " input 0x" << std::hex << in[i] << ": kernel 0x"
                    << unsigned{out[i]} << ", convert 0x" << want.bits;
  }
  EXPECT_EQ(bad, 0u) << in.size() << " inputs";
  std::printf("[ avx512~  ] %s %s sat=%s: %zu inputs, all equal to convert\n", c.format,
              std::string(to_string(c.mode)).c_str(), c.sat == Saturation::none ? "none" : "finite",
              in.size());
}

// A group that reaches the top binade is not counted, and the groups before it are.
TEST(TierMsAvx512EmulatedGroups, StopsAtTheGroupThatReachesTheTopBinade) {
  const Format f = *find_builtin("e4m3");
  Rounding r;
  const detail::F32Params p = detail::make_f32_params(f, r);
  ASSERT_TRUE(p.ms_ok);
  std::vector<float> in(64 * 20, 1.0f);
  in[64 * 11 + 5] = -300.0f;  // block 11, in the group of blocks 8..15; 2^8 <= 300 < 448
  std::vector<std::uint8_t> out(in.size());
  const ScopedCsr csr(RM::rne);
  for (auto groups : {detail::tierms_groups_avx512, detail::tierms_groups_avx512_vbmi}) {
    in[64 * 11 + 5] = -300.0f;
    EXPECT_EQ(groups(in.data(), out.data(), 20, 8, p), 8u);
    in[64 * 11 + 5] = std::nanf("");
    EXPECT_EQ(groups(in.data(), out.data(), 20, 8, p), 8u);
    in[64 * 11 + 5] = 255.0f;  // below 2^8: in the domain
    EXPECT_EQ(groups(in.data(), out.data(), 20, 8, p), 20u);
    for (std::size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(out[i], convert(std::bit_cast<std::uint32_t>(in[i]), *find_builtin("f32"), f, r).bits)
          << "index " << i;
  }
}

// Tier S on AVX-512 (tiers_avx512.hpp) for bf16 in every mode: each block of finite values
// within range gives convert's codes; a block with NaN, inf or a value above max finite says so.
TEST(TierSAvx512Emulated, Bf16MatchesConvertInEveryMode) {
  const Format f = *find_builtin("bf16");
  std::mt19937 rng(5);
  std::vector<std::uint32_t> in;
  for (std::uint32_t hi = 0; hi < 0x10000u; ++hi) {
    if ((hi & 0x7F80u) == 0x7F80u) continue;  // inf and NaN: below
    for (std::uint32_t lo : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu})
      in.push_back(hi << 16 | lo);
    in.push_back(hi << 16 | (rng() & 0xFFFFu));
    in.push_back(hi << 16 | (rng() & 0xFFFFu));
  }
  while (in.size() % 64) in.push_back(0);
  std::size_t checked = 0;
  for (RM mode : {RM::rne, RM::rna, RM::rtz, RM::up, RM::down, RM::odd}) {
    Rounding r;
    r.mode = mode;
    const detail::F32Params p = detail::make_f32_params(f, r);
    ASSERT_TRUE(p.sign_aligned && p.s0 == 16);
    std::vector<std::uint16_t> out(in.size());
    std::size_t bad = 0;
    for (std::size_t b = 0; b < in.size(); b += 64) {
      // Blocks whose values all round within range (max finite 0x7F7F...; the top of its binade
      // may round up to inf, which the block check catches, not this test).
      bool in_range = true;
      for (std::size_t j = b; j < b + 64; ++j) in_range = in_range && (in[j] & 0x7FFFFFFFu) <= p.lo + p.range;
      bool ok;
      switch (mode) {
        case RM::rne: ok = detail::tiers_block_avx512<RM::rne>(reinterpret_cast<const float*>(&in[b]), &out[b], p); break;
        case RM::rna: ok = detail::tiers_block_avx512<RM::rna>(reinterpret_cast<const float*>(&in[b]), &out[b], p); break;
        case RM::rtz: ok = detail::tiers_block_avx512<RM::rtz>(reinterpret_cast<const float*>(&in[b]), &out[b], p); break;
        case RM::up: ok = detail::tiers_block_avx512<RM::up>(reinterpret_cast<const float*>(&in[b]), &out[b], p); break;
        case RM::down: ok = detail::tiers_block_avx512<RM::down>(reinterpret_cast<const float*>(&in[b]), &out[b], p); break;
        default: ok = detail::tiers_block_avx512<RM::odd>(reinterpret_cast<const float*>(&in[b]), &out[b], p); break;
      }
      ASSERT_EQ(ok, in_range) << "block at " << b;
      if (!ok) continue;
      for (std::size_t j = b; j < b + 64; ++j, ++checked) {
        const Rounded want = convert(in[j], *find_builtin("f32"), f, r);
        if (out[j] != want.bits && ++bad <= 5)
          ADD_FAILURE() << to_string(mode) << " input 0x" << std::hex << in[j] << ": kernel 0x"
                        << out[j] << ", convert 0x" << want.bits;
      }
    }
    EXPECT_EQ(bad, 0u) << to_string(mode);
  }
  // NaN and inf make the block fail.
  for (std::uint32_t special : {0x7FC00000u, 0xFF800000u, 0x7F800001u}) {
    std::vector<std::uint32_t> block(64, 0x3F800000u);
    block[17] = special;
    std::vector<std::uint16_t> out(64);
    EXPECT_FALSE(detail::tiers_block_avx512<RM::rne>(reinterpret_cast<const float*>(block.data()), out.data(),
                                                     detail::make_f32_params(f, Rounding{})));
  }
  std::printf("[ avx512~  ] bf16 tier S: %zu codes in 6 modes, all equal to convert\n", checked);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, TierMsAvx512Emulated,
    ::testing::Values(Case{"e4m3", RM::rne, Saturation::finite}, Case{"e4m3", RM::rne, Saturation::none},
                      Case{"e4m3", RM::up, Saturation::finite}, Case{"e4m3", RM::down, Saturation::none},
                      Case{"e5m2", RM::rne, Saturation::finite}, Case{"e5m2", RM::rne, Saturation::none},
                      Case{"e5m2", RM::up, Saturation::none}, Case{"e5m2", RM::down, Saturation::finite},
                      Case{"e2m1", RM::rne, Saturation::finite}, Case{"e2m1", RM::up, Saturation::finite},
                      Case{"e2m1", RM::down, Saturation::finite}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return std::string(info.param.format) + "_" + std::string(to_string(info.param.mode)) +
             (info.param.sat == Saturation::none ? "_none" : "_finite");
    });
#else
TEST(TierMsAvx512Emulated, NeedsSimde) {
  GTEST_SKIP() << "SIMDe (Debian libsimde-dev) is not installed or this is not x86: the AVX-512 "
                  "tier is not checked by emulation here (tools/install-deps.sh installs it)";
}
#endif

}  // namespace
}  // namespace fpconform
