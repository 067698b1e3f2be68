// fp32 -> IEEE binary16 by the F16C instruction vcvtps2ph (ConvertKernel::f16c), and which
// (format, rounding) it serves exactly as the clear path does.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fast_convert_params.hpp"

#if FPC_X86
#include <immintrin.h>
#endif

namespace fpconform::detail {

using RM = RoundingMode;

#if FPC_X86
// fp32 -> IEEE binary16 by the instruction, 8 values per step, the rounding in the immediate.
template <int Imm>
__attribute__((target("avx2,f16c"))) void vcvtps2ph_n(const float* in, std::uint16_t* out,
                                                      std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i lo = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), Imm);
    const __m128i hi = _mm256_cvtps_ph(_mm256_loadu_ps(in + i + 8), Imm);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_set_m128i(hi, lo));
  }
  if (i + 8 <= n) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), Imm));
    i += 8;
  }
  if (i < n) {  // the tail through a zero-padded buffer (no reads past the input)
    alignas(32) float t[8] = {};
    alignas(16) std::uint16_t o[8];
    std::memcpy(t, in + i, (n - i) * sizeof(float));
    _mm_store_si128(reinterpret_cast<__m128i*>(o), _mm256_cvtps_ph(_mm256_load_ps(t), Imm));
    std::memcpy(out + i, o, (n - i) * sizeof(std::uint16_t));
  }
}

void vcvtps2ph_imm(int imm, const float* in, std::uint16_t* out, std::size_t n) {
  switch (imm) {
    case 0: return vcvtps2ph_n<0>(in, out, n);
    case 1: return vcvtps2ph_n<1>(in, out, n);
    case 2: return vcvtps2ph_n<2>(in, out, n);
    default: return vcvtps2ph_n<3>(in, out, n);
  }
}
#endif

// Whether `to` is IEEE binary16 by its data (any name) and r is a rounding vcvtps2ph performs
// exactly as the clear path does: its immediate (0 rne, 1 down, 2 up, 3 rtz) or -1.
int native_f16_immediate(const Format& to, const Rounding& r) {
  const bool binary16 = to.exp_bits == 5 && to.man_bits == 10 && to.bias == 15 && to.is_signed &&
                        to.subnormals && to.has_zero && to.inf == InfEncoding::ieee &&
                        to.nan == NanEncoding::ieee && to.width() == 16;
  if (!binary16 || r.sat != Saturation::none || r.ftz || r.daz) return -1;
  switch (r.mode) {
    case RM::rne: return 0;
    case RM::down: return 1;
    case RM::up: return 2;
    case RM::rtz: return 3;
    default: return -1;
  }
}


}  // namespace fpconform::detail
