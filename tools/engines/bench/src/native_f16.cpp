#include "native_f16.hpp"

#include "fpconform/core/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform::bench {

#if defined(__x86_64__)
namespace {

// MXCSR with every exception masked, round to nearest, no FTZ/DAZ, flags clear.
constexpr std::uint32_t kCleanMxcsr = 0x1F80;

// Every b with a, one pair at a time: pair(va, vb, csr) runs the instruction and reads MXCSR into
// csr in one asm block (so that the compiler cannot move the operation across the MXCSR
// accesses) and returns the result's register; MXCSR is cleared after each pair. The asm needs
// no target attribute: only the CPU has to know the instructions.
template <class Pair>
void each_pair_with_flags(std::uint16_t a, std::uint32_t* out, const Pair& pair) {
  const std::uint32_t saved = _mm_getcsr();
  _mm_setcsr(kCleanMxcsr);
  const __m128i va = _mm_cvtsi32_si128(a);
  for (std::uint32_t b = 0; b < 65536; ++b) {
    std::uint32_t csr;
    const __m128i r = pair(va, _mm_cvtsi32_si128(static_cast<int>(b)), csr);
    out[b] = (static_cast<std::uint32_t>(_mm_cvtsi128_si32(r)) & 0xFFFF) | (csr & 0x3F) << 16;
  }
  _mm_setcsr(saved);
}

template <bool Mul>
void flags_avx512fp16(std::uint16_t a, std::uint32_t* out) {
  each_pair_with_flags(a, out, [](__m128i va, __m128i vb, std::uint32_t& csr) {
    static const std::uint32_t clean = kCleanMxcsr;
    __m128i r;
    if constexpr (Mul)
      asm volatile("vmulsh %[b], %[a], %[r]\n\tvstmxcsr %[csr]\n\tvldmxcsr %[clean]"
                   : [r] "=v"(r), [csr] "=m"(csr)
                   : [a] "v"(va), [b] "v"(vb), [clean] "m"(clean));
    else
      asm volatile("vaddsh %[b], %[a], %[r]\n\tvstmxcsr %[csr]\n\tvldmxcsr %[clean]"
                   : [r] "=v"(r), [csr] "=m"(csr)
                   : [a] "v"(va), [b] "v"(vb), [clean] "m"(clean));
    return r;
  });
}

// vaddph / vmulph in asm too: compilers without the AVX512-FP16 intrinsics (clang 14) build it.
template <bool Mul>
__attribute__((target("avx512f,avx512bw"))) void values_avx512fp16(std::uint16_t a,
                                                                  std::uint16_t* out) {
  const __m512i va = _mm512_set1_epi16(static_cast<short>(a));
  __m512i b = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15,
                               14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i step = _mm512_set1_epi16(32);
  for (int i = 0; i < 65536; i += 32) {
    __m512i r;
    if constexpr (Mul)
      asm("vmulph %[b], %[a], %[r]" : [r] "=v"(r) : [a] "v"(va), [b] "v"(b));
    else
      asm("vaddph %[b], %[a], %[r]" : [r] "=v"(r) : [a] "v"(va), [b] "v"(b));
    _mm512_storeu_si512(out + i, r);
    b = _mm512_add_epi16(b, step);
  }
}

template <bool Mul>
void flags_f16c(std::uint16_t a, std::uint32_t* out) {
  each_pair_with_flags(a, out, [](__m128i va, __m128i vb, std::uint32_t& csr) {
    static const std::uint32_t clean = kCleanMxcsr;
    __m128i r;
    __m128 x, y;
    if constexpr (Mul)
      asm volatile(
          "vcvtph2ps %[a], %[x]\n\tvcvtph2ps %[b], %[y]\n\tvmulss %[y], %[x], %[x]\n\t"
          "vcvtps2ph $0, %[x], %[r]\n\tvstmxcsr %[csr]\n\tvldmxcsr %[clean]"
          : [r] "=x"(r), [csr] "=m"(csr), [x] "=&x"(x), [y] "=&x"(y)
          : [a] "x"(va), [b] "x"(vb), [clean] "m"(clean));
    else
      asm volatile(
          "vcvtph2ps %[a], %[x]\n\tvcvtph2ps %[b], %[y]\n\tvaddss %[y], %[x], %[x]\n\t"
          "vcvtps2ph $0, %[x], %[r]\n\tvstmxcsr %[csr]\n\tvldmxcsr %[clean]"
          : [r] "=x"(r), [csr] "=m"(csr), [x] "=&x"(x), [y] "=&x"(y)
          : [a] "x"(va), [b] "x"(vb), [clean] "m"(clean));
    return r;
  });
}

template <bool Mul>
__attribute__((target("avx2,f16c"))) void values_f16c(std::uint16_t a, std::uint16_t* out) {
  const __m256 va = _mm256_cvtph_ps(_mm_set1_epi16(static_cast<short>(a)));
  __m128i b = _mm_set_epi16(7, 6, 5, 4, 3, 2, 1, 0);
  const __m128i step = _mm_set1_epi16(8);
  for (int i = 0; i < 65536; i += 8) {
    const __m256 vb = _mm256_cvtph_ps(b);
    const __m256 r = Mul ? _mm256_mul_ps(va, vb) : _mm256_add_ps(va, vb);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    b = _mm_add_epi16(b, step);
  }
}

}  // namespace

NativeF16Row native_f16_row(Op op) {
  if (op != Op::add && op != Op::mul) return {};
  const bool mul = op == Op::mul;
  const CpuFeatures& f = cpu_features();
  if (f.avx512_fp16)
    return mul ? NativeF16Row{"vmulsh", flags_avx512fp16<true>, values_avx512fp16<true>}
               : NativeF16Row{"vaddsh", flags_avx512fp16<false>, values_avx512fp16<false>};
  if (f.avx2 && f.f16c)
    return mul ? NativeF16Row{"f16c-vmulss", flags_f16c<true>, values_f16c<true>}
               : NativeF16Row{"f16c-vaddss", flags_f16c<false>, values_f16c<false>};
  return {};
}
#else
NativeF16Row native_f16_row(Op) { return {}; }
#endif

}  // namespace fpconform::bench
