// x86 conversion instructions against their profiles.
//   x86_hardware_test f16c [--exhaustive]   VCVTPS2PH (imm8 0..3, and 4 = MXCSR.RC) and
//                                            VCVTPH2PS vs profile x86-f16c, with MXCSR.DAZ and
//                                            MXCSR.FTZ set and clear
//   x86_hardware_test avx512bf16 [--exhaustive]  VCVTNEPS2BF16 vs profile x86-avx512bf16
// Default: the deterministic f32 sample (>= 10^6 inputs); --exhaustive: all 2^32 f32 inputs.
// Exits 77 (skipped) with the reason when the CPU lacks the instructions, 1 on any mismatch.
// The instructions are reached through target attributes, so this builds with any x86-64
// compiler flags; on other architectures it only reports the skip.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "fpconform/core/error.hpp"
#include "fpconform/profile.hpp"
#include "peer_inputs.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FPC_X86 1
#else
#define FPC_X86 0
#endif

using namespace fpconform;
using namespace fpconform::peers;

namespace {

constexpr int kSkip = 77;
constexpr unsigned kMxcsrDefault = 0x1F80;  // all exceptions masked, RC = nearest
constexpr unsigned kDaz = 0x0040, kFtz = 0x8000;

#if FPC_X86
template <int Imm>
__attribute__((target("f16c"))) void cvtps2ph4(const std::uint32_t* in, std::uint16_t* out) {
  __m128 v;
  std::memcpy(&v, in, 16);
  const __m128i r = _mm_cvtps_ph(v, Imm);
  std::uint64_t lo = static_cast<std::uint64_t>(_mm_cvtsi128_si64(r));
  std::memcpy(out, &lo, 8);
}

__attribute__((target("f16c"))) void cvtph2ps4(const std::uint16_t* in, std::uint32_t* out) {
  std::uint64_t lo;
  std::memcpy(&lo, in, 8);
  const __m128 r = _mm_cvtph_ps(_mm_cvtsi64_si128(static_cast<long long>(lo)));
  std::memcpy(out, &r, 16);
}

__attribute__((target("avx512f,avx512vl,avx512bf16"))) void cvtneps2bf16_4(
    const std::uint32_t* in, std::uint16_t* out) {
  __m128 v;
  std::memcpy(&v, in, 16);
  const __m128bh r = _mm_cvtneps_pbh(v);
  std::memcpy(out, &r, 8);
}

void (*const kPs2Ph[5])(const std::uint32_t*, std::uint16_t*) = {
    cvtps2ph4<0>, cvtps2ph4<1>, cvtps2ph4<2>, cvtps2ph4<3>, cvtps2ph4<4>};
#endif

struct Variant {
  std::string name;
  unsigned mxcsr;
  UserOptions user;  // what the profile is asked for
  int imm;           // VCVTPS2PH immediate; -1: VCVTPH2PS; -2: VCVTNEPS2BF16
};

struct Tally {
  std::atomic<std::uint64_t> total{0}, match{0};
  std::mutex mu;
  FirstLines first;
};

// Runs one variant over n f32 inputs given by input(i); 4 at a time through the instruction.
template <class Input>
void run_f32(const Variant& v, const Profile& p, const Format& from, const Format& to,
             std::uint64_t n, Input input, Tally& t) {
#if FPC_X86
  parallel_for(n, [&](std::uint64_t b, std::uint64_t e) {
    _mm_setcsr(v.mxcsr);  // MXCSR is per thread
    std::uint64_t m = 0;
    std::uint32_t in[4];
    std::uint16_t out[4];
    for (std::uint64_t i = b; i < e; i += 4) {
      const int k = static_cast<int>(std::min<std::uint64_t>(4, e - i));
      for (int j = 0; j < 4; ++j) in[j] = input(i + (j < k ? j : 0));
      if (v.imm >= 0) kPs2Ph[v.imm](in, out);
      else cvtneps2bf16_4(in, out);
      for (int j = 0; j < k; ++j) {
        const std::uint64_t got = convert_with_profile(in[j], from, to, p, v.user).bits;
        if (got == out[j]) {
          ++m;
          continue;
        }
        char buf[128];
        std::snprintf(buf, sizeof buf, "  input 0x%08x: hardware 0x%04x, emu 0x%04llx", in[j],
                      out[j], (unsigned long long)got);
        std::lock_guard<std::mutex> lock(t.mu);
        keep_first(t.first, 10, in[j], buf);
      }
    }
    _mm_setcsr(kMxcsrDefault);
    t.match += m;
    t.total += e - b;
  });
#else
  (void)v, (void)p, (void)from, (void)to, (void)n, (void)input, (void)t;
#endif
}

void run_ph2ps(const Variant& v, const Profile& p, const Format& from, const Format& to, Tally& t) {
#if FPC_X86
  _mm_setcsr(v.mxcsr);
  for (std::uint32_t i = 0; i < 65536; i += 4) {
    std::uint16_t in[4] = {std::uint16_t(i), std::uint16_t(i + 1), std::uint16_t(i + 2),
                           std::uint16_t(i + 3)};
    std::uint32_t out[4];
    cvtph2ps4(in, out);
    for (int j = 0; j < 4; ++j) {
      ++t.total;
      const std::uint64_t got = convert_with_profile(in[j], from, to, p, v.user).bits;
      if (got == out[j]) {
        ++t.match;
      } else {
        char buf[128];
        std::snprintf(buf, sizeof buf, "  input 0x%04x: hardware 0x%08x, emu 0x%08llx", in[j],
                      out[j], (unsigned long long)got);
        keep_first(t.first, 10, in[j], buf);
      }
    }
  }
  _mm_setcsr(kMxcsrDefault);
#else
  (void)v, (void)p, (void)from, (void)to, (void)t;
#endif
}

UserOptions with(std::optional<RoundingMode> m, std::optional<bool> daz) {
  UserOptions u;
  u.mode = m;
  u.daz = daz;
  return u;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s f16c|avx512bf16 [--exhaustive]\n", argv[0]);
    return 2;
  }
  const std::string which = argv[1];
  const bool exhaustive = argc > 2 && std::string(argv[2]) == "--exhaustive";
#if !FPC_X86
  std::printf("SKIPPED: not an x86 machine\n");
  return kSkip;
#else
  using M = RoundingMode;
  std::vector<Variant> variants;
  std::string profile_name;
  Format from = parse_format("f32"), to;
  if (which == "f16c") {
    if (!__builtin_cpu_supports("f16c")) {
      std::printf("SKIPPED: this CPU has no F16C (VCVTPS2PH)\n");
      return kSkip;
    }
    profile_name = "x86-f16c";
    to = parse_format("f16");
    const M modes[4] = {M::rne, M::down, M::up, M::rtz};  // imm8 0..3
    const unsigned rc[4] = {0x0000, 0x2000, 0x4000, 0x6000};
    for (int imm = 0; imm < 4; ++imm) {
      const std::string mn(to_string(modes[imm]));
      variants.push_back({"f32->f16 imm=" + std::to_string(imm) + " (" + mn + ")", kMxcsrDefault,
                          with(modes[imm], {}), imm});
      if (exhaustive) continue;
      variants.push_back({"f32->f16 imm=" + std::to_string(imm) + " (" + mn + "), MXCSR.DAZ",
                          kMxcsrDefault | kDaz, with(modes[imm], true), imm});
      // FTZ is ignored: the profile is asked for no flushing.
      variants.push_back({"f32->f16 imm=" + std::to_string(imm) + " (" + mn +
                              "), MXCSR.FTZ (ignored)",
                          kMxcsrDefault | kFtz, with(modes[imm], {}), imm});
      variants.push_back({"f32->f16 imm=4, MXCSR.RC=" + mn, kMxcsrDefault | rc[imm],
                          with(modes[imm], {}), 4});
    }
    if (!exhaustive) {
      variants.push_back({"f16->f32", kMxcsrDefault, {}, -1});
      variants.push_back({"f16->f32, MXCSR.DAZ (ignored)", kMxcsrDefault | kDaz, {}, -1});
    }
  } else if (which == "avx512bf16") {
    if (!__builtin_cpu_supports("avx512bf16") || !__builtin_cpu_supports("avx512vl")) {
      std::printf("SKIPPED: this CPU has no AVX512-BF16 (VCVTNEPS2BF16): "
                  "__builtin_cpu_supports(\"avx512bf16\") is false\n");
      return kSkip;
    }
    profile_name = "x86-avx512bf16";
    to = parse_format("bf16");
    variants.push_back({"f32->bf16", kMxcsrDefault, {}, -2});
    if (!exhaustive) {
      // MXCSR is not consulted: the same results whatever it holds.
      variants.push_back({"f32->bf16, MXCSR.RC=rtz DAZ=0 FTZ=0 (ignored)",
                          kMxcsrDefault | 0x6000, {}, -2});
    }
  } else {
    std::fprintf(stderr, "unknown peer '%s' (f16c, avx512bf16)\n", which.c_str());
    return 2;
  }
  const Profile& p = find_profile(profile_name);
  std::vector<std::uint32_t> sample;
  if (!exhaustive) sample = f32_sample({to});
  int failures = 0;
  for (const Variant& v : variants) {
    Tally t;
    if (v.imm == -1) {
      run_ph2ps(v, p, to, from, t);
    } else if (exhaustive) {
      run_f32(v, p, from, to, 1ull << 32,
              [](std::uint64_t i) { return static_cast<std::uint32_t>(i); }, t);
    } else {
      run_f32(v, p, from, to, sample.size(), [&](std::uint64_t i) { return sample[i]; }, t);
    }
    const bool ok = t.match == t.total;
    std::printf("%s %s: %llu/%llu match%s\n", profile_name.c_str(), v.name.c_str(),
                (unsigned long long)t.match.load(), (unsigned long long)t.total.load(),
                ok ? "" : "  MISMATCH");
    for (const auto& l : t.first) std::printf("%s\n", l.second.c_str());
    std::fflush(stdout);
    if (!ok) ++failures;
  }
  std::printf("%zu variants, %d with mismatches\n", variants.size(), failures);
  return failures ? 1 : 0;
#endif
}
