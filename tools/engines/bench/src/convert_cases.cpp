// fp32 -> narrow formats, in cache (16384 values, 64 KiB, normal with sigma 1: the shape of
// activations and weights). Ours: F32Converter (emu/src/fast_convert.cpp, best kernel).
// Baselines, same inputs, same run:
//   f16:  vcvtps2ph (F16C, 8 values per instruction, rne);
//   bf16: vcvtneps2bf16 (AVX512-BF16) where the CPU has it; else the AVX2 round-to-nearest-even
//         bit trick ((u + 0x7fff + lsb) >> 16, packed): what bf16 code does without that
//         instruction (c10::BFloat16, Eigen), 8 values per step, NaNs not handled;
//   fp8/fp4: ml_dtypes' numpy cast (mldtypes.cpp) and fp32 -> f16 by vcvtps2ph.
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cases.hpp"
#include "fpconform/fast_convert.hpp"
#include "fpconform/core/cpu_features.hpp"
#include "gbench.hpp"
#include "mldtypes.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FPC_BENCH_X86 1
#else
#define FPC_BENCH_X86 0
#endif

namespace fpconform::bench {

namespace {

constexpr std::size_t kN = 16384;

std::vector<float> make_inputs() {
  std::vector<float> x(kN);
  std::mt19937 rng(42);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (auto& f : x) f = nd(rng);
  return x;
}

#if FPC_BENCH_X86
// Two conversions per step and one 32-byte store: with one conversion and a 16-byte store per
// step, the baseline's speed depends on whether the heap puts the output 4 KiB-aliased with the
// input (load/store address aliasing; measurements in suites/bench/README.md).
__attribute__((target("avx,f16c"))) void vcvtps2ph(const float* in, std::uint16_t* out,
                                                   std::size_t n) {
  for (std::size_t i = 0; i + 16 <= n; i += 16) {
    const __m128i lo = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    const __m128i hi = _mm256_cvtps_ph(_mm256_loadu_ps(in + i + 8), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_set_m128i(hi, lo));
  }
}

// The same 16 values per instruction, a 32-byte store each (AVX-512 CPUs).
__attribute__((target("avx512f"))) void vcvtps2ph_zmm(const float* in, std::uint16_t* out,
                                                     std::size_t n) {
  for (std::size_t i = 0; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
}

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10
#define FPC_HAVE_AVX512BF16 1
__attribute__((target("avx512f,avx512vl,avx512bf16"))) void vcvtneps2bf16(const float* in,
                                                                          std::uint16_t* out,
                                                                          std::size_t n) {
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    const __m128bh h = _mm256_cvtneps_pbh(_mm256_loadu_ps(in + i));
    std::memcpy(out + i, &h, 16);
  }
}
__attribute__((target("avx512f,avx512bf16"))) void vcvtneps2bf16_zmm(const float* in,
                                                                   std::uint16_t* out,
                                                                   std::size_t n) {
  for (std::size_t i = 0; i + 16 <= n; i += 16) {
    const __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(in + i));
    std::memcpy(out + i, &h, 32);
  }
}
#endif

__attribute__((target("avx2"))) inline __m256i bf16_rne8(const float* p) {
  const __m256i u = _mm256_castps_si256(_mm256_loadu_ps(p));
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  return _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), lsb)), 16);
}

__attribute__((target("avx2"))) void bf16_rne_trick(const float* in, std::uint16_t* out,
                                                    std::size_t n) {
  const auto half = bf16_rne8;
  for (std::size_t i = 0; i + 16 <= n; i += 16) {
    const __m256i p = _mm256_packus_epi32(half(in + i), half(in + i + 8));  // lanes 0-3,8-11 | 4-7,12-15
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_permute4x64_epi64(p, 0xD8));
  }
}
#endif

bool have_f16c() {
#if FPC_BENCH_X86
  return cpu_features().f16c;
#else
  return false;
#endif
}

bool have_avx512bf16() {
#if FPC_BENCH_X86 && defined(FPC_HAVE_AVX512BF16)
  return cpu_features().avx512_bf16 && cpu_features().avx512vl;
#else
  return false;
#endif
}

using Kernel = void (*)(const float*, std::uint16_t*, std::size_t);

Case native_case(const std::string& name, Kernel k, const std::vector<float>& in) {
  return {name, [k, &in](benchmark::State& st) {
            std::vector<std::uint16_t> out(kN);
            for (auto _ : st) {
              k(in.data(), out.data(), kN);
              benchmark::DoNotOptimize(out.data());
              benchmark::ClobberMemory();
            }
            st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kN));
          }};
}

struct Target {
  const char* label;  // line name suffix and ml_dtypes key
  const char* format;
  Saturation sat;
};

constexpr Target kNarrow[] = {
    {"e4m3_satfinite", "e4m3", Saturation::finite}, {"e4m3_none", "e4m3", Saturation::none},
    {"e5m2_satfinite", "e5m2", Saturation::finite}, {"e5m2_none", "e5m2", Saturation::none},
    {"e2m1", "e2m1", Saturation::none},
};

Case ours_case(const std::string& name, const char* format, Saturation sat,
               const std::vector<float>& in) {
  return {name, [format, sat, &in](benchmark::State& st) {
            Rounding r;
            r.sat = sat;
            const F32Converter c(*find_builtin(format), r);
            std::vector<std::uint16_t> out(kN);
            for (auto _ : st) {
              c.convert(in.data(), out.data(), kN);
              benchmark::DoNotOptimize(out.data());
              benchmark::ClobberMemory();
            }
            st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kN));
          }};
}

}  // namespace

void convert_cases(const Settings& s, Sink& sink) {
  static const std::vector<float> in = make_inputs();
  std::vector<Case> cases;
  cases.push_back(ours_case("bf16", "bf16", Saturation::none, in));
  cases.push_back(ours_case("f16", "f16", Saturation::none, in));
  for (const Target& t : kNarrow) cases.push_back(ours_case(t.label, t.format, t.sat, in));
  std::string bf16_base = "none";
#if FPC_BENCH_X86
  // Each native instruction in ymm and, where the CPU has AVX-512, zmm form: the faster is the
  // baseline (the line names it).
  if (have_f16c()) cases.push_back(native_case("vcvtps2ph", &vcvtps2ph, in));
  if (have_f16c() && cpu_features().avx512) cases.push_back(native_case("vcvtps2ph-zmm", &vcvtps2ph_zmm, in));
#if defined(FPC_HAVE_AVX512BF16)
  if (have_avx512bf16()) {
    cases.push_back(native_case("vcvtneps2bf16", &vcvtneps2bf16, in));
    cases.push_back(native_case("vcvtneps2bf16-zmm", &vcvtneps2bf16_zmm, in));
    bf16_base = "vcvtneps2bf16";
  }
#endif
  if (bf16_base == "none" && cpu_features().avx2) {
    cases.push_back(native_case("avx2-bf16-rne-trick", &bf16_rne_trick, in));
    bf16_base = "avx2-bf16-rne-trick";
    s.note("f32_to_bf16_rne: this CPU has no AVX512-BF16, so vcvtneps2bf16 cannot run; the "
           "baseline is avx2-bf16-rne-trick, the AVX2 sequence (u + 0x7fff + lsb) >> 16 that bf16 "
           "code uses without the instruction (c10::BFloat16, Eigen), 16 values per step, NaNs "
           "not handled");
  }
#endif
  const auto rate = run_cases(cases, s.min_time, s.rounds);
  auto get = [&](const std::string& n) {
    const auto it = rate.find(n);
    return it == rate.end() ? 0.0 : it->second;
  };
  auto line = [&](const std::string& name, const std::string& ours, const std::string& base_name,
                  double base, double target) {
    Comparison c;
    c.name = name;
    c.ours = get(ours);
    c.baseline_name = base_name;
    c.baseline = base;
    c.unit = "values/s";
    c.target = target;
    sink.add(c);
  };
  auto faster = [&](const std::string& ymm) {
    const std::string zmm = ymm + "-zmm";
    return get(zmm) > get(ymm) ? zmm : ymm;
  };
  if (bf16_base == "vcvtneps2bf16") bf16_base = faster(bf16_base);
  if (bf16_base != "none") line("f32_to_bf16_rne", "bf16", bf16_base, get(bf16_base), 0.5);
  else s.note("f32_to_bf16_rne: skipped: neither AVX512-BF16 nor AVX2 on this CPU");
  const std::string f16_base = faster("vcvtps2ph");
  const bool f16c = get(f16_base) > 0;
  if (f16c) line("f32_to_f16_rne", "f16", f16_base, get(f16_base), 0.5);
  else s.note("f32_to_f16_rne and the fp8/fp4 lines against f32->f16: skipped: no F16C here");

  const MlDtypesRates ml = mldtypes_rates(s, in);
  for (const Target& t : kNarrow) {
    const std::string name = std::string("f32_to_") + t.label;
    const auto it = ml.rate.find(t.label);
    if (it != ml.rate.end())
      line(name, t.label, std::string("ml_dtypes-") + ml.dtype.at(t.label), it->second, 10);
    if (f16c) line(name, t.label, f16_base + "(f32->f16)", get(f16_base), 0.5);
  }
}

}  // namespace fpconform::bench
