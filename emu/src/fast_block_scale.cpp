// F32BlockQuantizer (fast_block_scale.hpp): streaming MX quantization, bit-identical to
// quantize_block. The per-chunk kernel (amax, scale exponent, x * 2^-k, clamp) is compiled
// for the baseline ISA and for AVX2 and picked at run time; the element rounding is F32Converter.
#include "fpconform/fast_block_scale.hpp"
#include "fpconform/core/cpu_features.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

constexpr std::size_t kChunk = 4096;  // values per chunk: 16 KiB of scaled fp32, L1-resident
constexpr std::uint32_t kAbs = 0x7FFFFFFFu, kInf = 0x7F800000u;

std::size_t bytes_for(int width) { return width <= 8 ? 1 : width <= 16 ? 2 : 4; }

void store(void* base, std::size_t bytes, std::size_t i, std::uint64_t v) {
  switch (bytes) {
    case 1: static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(v); break;
    case 2: static_cast<std::uint16_t*>(base)[i] = static_cast<std::uint16_t>(v); break;
    default: static_cast<std::uint32_t*>(base)[i] = static_cast<std::uint32_t>(v); break;
  }
}

// The constants of the chunk kernel.
struct FastParams {
  int block, k_min, k_max, scale_bias, elem_emax;
  bool ceil;                  // ceil_pow2_of_ratio (else floor_log2_minus_emax)
  std::uint32_t maxf_bits;    // element max finite as fp32
  float clamp;                // maxf when elements saturate to +-maxf, else +inf (no clamp)
  std::uint8_t nan_scale;
};

// One chunk: nb blocks from `in` to scaled fp32 values in `tmp` and scale codes in `scales`;
// the indices of blocks holding an fp32 subnormal go to `slow` (their tmp and scale are left
// as +0 / NaN scale and are redone by quantize_block). Returns the number of slow blocks.
// B is the block size when it is a compile-time constant (32, 16: loops fully unrolled), else 0.
template <int B>
__attribute__((always_inline)) inline std::size_t chunk_kernel(
    const float* __restrict in, std::size_t nb, float* __restrict tmp,
    std::uint8_t* __restrict scales, std::size_t* __restrict slow, const FastParams& p) {
  std::size_t nslow = 0;
  const std::size_t n = B > 0 ? static_cast<std::size_t>(B) : static_cast<std::size_t>(p.block);
  for (std::size_t j = 0; j < nb; ++j) {
    const float* x = in + j * n;
    float* t = tmp + j * n;
    std::uint32_t amax = 0, sub = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t a = std::bit_cast<std::uint32_t>(x[i]) & kAbs;
      amax = amax > a ? amax : a;
      sub |= (a - 1u) < 0x007FFFFFu;  // 0 < a < 2^-126: an fp32 subnormal
    }
    int k;
    bool special = amax >= kInf;
    if (amax == 0) {
      k = p.k_min;
    } else {
      const int ea = static_cast<int>(amax >> 23) - 127;
      if (p.ceil) {
        // 2^k >= amax / maxf for the least k: compare the significands (both normal fp32).
        k = ea - (static_cast<int>(p.maxf_bits >> 23) - 127) +
            ((amax & 0x007FFFFFu) > (p.maxf_bits & 0x007FFFFFu) ? 1 : 0);
        k = std::clamp(k, p.k_min, p.k_max);  // round up, saturating at the largest scale
      } else {
        k = std::max(ea - p.elem_emax, p.k_min);
        special |= k > p.k_max;  // scale overflow: NaN scale, as quantize_block
      }
    }
    if (special || sub) [[unlikely]] {
      scales[j] = p.nan_scale;
      for (std::size_t i = 0; i < n; ++i) t[i] = 0.0f;  // +0: the special block's element codes
      if (sub && !special) slow[nslow++] = j;
      continue;
    }
    scales[j] = static_cast<std::uint8_t>(k + p.scale_bias);
    // x / 2^k as x * 2^-k (2^-k is normal: k <= 126 for every element format here): exact
    // while the product is normal. A product below 2^-126 may be rounded or flushed by the
    // host (MXCSR), but it stays below 2^-124 with x's sign, where every element format the fast
    // path takes rounds it (rne, rna, rtz) to the zero of that sign, as the exact value does.
    const float mul = std::bit_cast<float>(static_cast<std::uint32_t>(127 - k) << 23);
    // Above maxf the saturating rule gives maxf in every mode the fast path takes: clamp, so
    // that the converter's cheapest tier serves the block (OCP scales leave up to 2 * maxf).
    for (std::size_t i = 0; i < n; ++i) {
      const float q = x[i] * mul;
      t[i] = q > p.clamp ? p.clamp : (q < -p.clamp ? -p.clamp : q);
    }
  }
  return nslow;
}

using ChunkFn = std::size_t (*)(const float*, std::size_t, float*, std::uint8_t*, std::size_t*,
                                const FastParams&);

template <int B>
std::size_t chunk_portable(const float* in, std::size_t nb, float* tmp, std::uint8_t* scales,
                           std::size_t* slow, const FastParams& p) {
  return chunk_kernel<B>(in, nb, tmp, scales, slow, p);
}

#if defined(__x86_64__) || defined(__i386__)
template <int B>
__attribute__((target("avx2"))) std::size_t chunk_avx2(const float* in, std::size_t nb,
                                                       float* tmp, std::uint8_t* scales,
                                                       std::size_t* slow, const FastParams& p) {
  return chunk_kernel<B>(in, nb, tmp, scales, slow, p);
}

#define FPC_AVX2_INLINE inline __attribute__((target("avx2"), always_inline))

// Lane b of the result: the largest (signed) lane of m[b]. Three levels of unpack and max, so
// eight blocks share one reduction instead of one each.
FPC_AVX2_INLINE __m256i max_epi32_pair(__m256i a, __m256i b) {
  return _mm256_max_epi32(_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
}
FPC_AVX2_INLINE __m256i max_epi64_pair(__m256i a, __m256i b) {
  return _mm256_max_epi32(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
}
FPC_AVX2_INLINE __m256i reduce8_max(const __m256i* m) {
  const __m256i r0123 = max_epi64_pair(max_epi32_pair(m[0], m[1]), max_epi32_pair(m[2], m[3]));
  const __m256i r4567 = max_epi64_pair(max_epi32_pair(m[4], m[5]), max_epi32_pair(m[6], m[7]));
  return _mm256_max_epi32(_mm256_permute2x128_si256(r0123, r4567, 0x20),
                          _mm256_permute2x128_si256(r0123, r4567, 0x31));
}

// Blocks of 32, eight at a time: the eight amaxes in one vector, the scale exponents computed
// lane-wise, then x * 2^-k and the clamp per block. A group holding an fp32 subnormal, NaN,
// infinity or a scale beyond the format goes through chunk_kernel (same results, per block).
__attribute__((target("avx2"))) std::size_t chunk_avx2_b32(const float* in, std::size_t nb,
                                                           float* tmp, std::uint8_t* scales,
                                                           std::size_t* slow,
                                                           const FastParams& p) {
  const __m256i abs_mask = _mm256_set1_epi32(static_cast<int>(kAbs));
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i sub_lim = _mm256_set1_epi32(0x007FFFFE);  // a - 1 <= this (unsigned): subnormal
  const __m256i inf = _mm256_set1_epi32(static_cast<int>(kInf));
  const __m256i man_mask = _mm256_set1_epi32(0x007FFFFF);
  const __m256i maxf_man = _mm256_set1_epi32(static_cast<int>(p.maxf_bits & 0x007FFFFFu));
  const __m256i ef = _mm256_set1_epi32(static_cast<int>(p.maxf_bits >> 23) - 127);
  const __m256i emax = _mm256_set1_epi32(p.elem_emax);
  const __m256i kmin = _mm256_set1_epi32(p.k_min), kmax = _mm256_set1_epi32(p.k_max);
  const __m256i bias127 = _mm256_set1_epi32(127);
  const __m256 hi = _mm256_set1_ps(p.clamp), lo = _mm256_set1_ps(-p.clamp);
  std::size_t nslow = 0, j = 0;
  for (; j + 8 <= nb; j += 8) {
    const float* x = in + j * 32;
    __m256i m[8];
    __m256i submin = _mm256_set1_epi32(-1);
    for (int b = 0; b < 8; ++b) {
      __m256i v[4];
      for (int i = 0; i < 4; ++i) {
        v[i] = _mm256_and_si256(
            _mm256_castps_si256(_mm256_loadu_ps(x + b * 32 + i * 8)), abs_mask);
        submin = _mm256_min_epu32(submin, _mm256_sub_epi32(v[i], one));
      }
      m[b] = _mm256_max_epi32(_mm256_max_epi32(v[0], v[1]), _mm256_max_epi32(v[2], v[3]));
    }
    const __m256i amax = reduce8_max(m);
    __m256i k;
    const __m256i ea = _mm256_sub_epi32(_mm256_srli_epi32(amax, 23), bias127);
    if (p.ceil) {
      const __m256i up = _mm256_cmpgt_epi32(_mm256_and_si256(amax, man_mask), maxf_man);
      k = _mm256_sub_epi32(_mm256_sub_epi32(ea, ef), up);  // up is -1 where amax's significand is larger
      k = _mm256_min_epi32(_mm256_max_epi32(k, kmin), kmax);
    } else {
      k = _mm256_max_epi32(_mm256_sub_epi32(ea, emax), kmin);
    }
    // Anything unusual in the group: subnormal input, NaN/inf (amax >= inf), k above the scale
    // format (floor: the NaN scale). Then the per-block kernel decides, block by block.
    const __m256i odd = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpgt_epi32(amax, _mm256_sub_epi32(inf, one)),
                        _mm256_cmpgt_epi32(k, kmax)),
        _mm256_cmpeq_epi32(_mm256_min_epu32(submin, sub_lim), submin));
    if (!_mm256_testz_si256(odd, odd)) [[unlikely]] {
      const std::size_t before = nslow;
      nslow += chunk_kernel<32>(x, 8, tmp + j * 32, scales + j, slow + nslow, p);
      for (std::size_t s = before; s < nslow; ++s) slow[s] += j;
      continue;
    }
    alignas(32) std::int32_t ks[8], muls[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(ks), k);
    _mm256_store_si256(reinterpret_cast<__m256i*>(muls),
                       _mm256_slli_epi32(_mm256_sub_epi32(bias127, k), 23));
    for (int b = 0; b < 8; ++b) {
      scales[j + b] = static_cast<std::uint8_t>(ks[b] + p.scale_bias);
      const __m256 mul = _mm256_castsi256_ps(_mm256_set1_epi32(muls[b]));
      for (int i = 0; i < 4; ++i) {
        const __m256 q = _mm256_mul_ps(_mm256_loadu_ps(x + b * 32 + i * 8), mul);
        _mm256_storeu_ps(tmp + (j + b) * 32 + i * 8, _mm256_max_ps(_mm256_min_ps(q, hi), lo));
      }
    }
  }
  if (j < nb) {
    const std::size_t before = nslow;
    nslow += chunk_kernel<32>(in + j * 32, nb - j, tmp + j * 32, scales + j, slow + nslow, p);
    for (std::size_t s = before; s < nslow; ++s) slow[s] += j;
  }
  return nslow;
}
#endif

ChunkFn pick_chunk_kernel(int block) {
#if defined(__x86_64__) || defined(__i386__)
  if (cpu_features().avx2)
    return block == 32 ? &chunk_avx2_b32 : block == 16 ? &chunk_avx2<16> : &chunk_avx2<0>;
#endif
  return block == 32 ? &chunk_portable<32> : block == 16 ? &chunk_portable<16> : &chunk_portable<0>;
}

}  // namespace

F32BlockQuantizer::F32BlockQuantizer(const Format& element, const ScaleRule& rule, int block)
    : element_(element),
      f32_(parse_format("f32")),
      scale_format_(rule_scale_format(rule)),
      rule_(rule),
      block_(block) {
  if (block < 1) throw Error("block", "block size must be at least 1");
  if (element.width() > 16) throw Error("element", "element formats are at most 16 bits wide");
  code_bytes_ = bytes_for(element.width());
  scale_bytes_ = bytes_for(scale_format_.width());

  const Format& sf = scale_format_;
  const int tiniest = element.emin() - (element.subnormals ? element.man_bits : 0);
  if (rule.choice == ScaleChoice::ratio)
    why_generic_ = "the scale is amax / maxf rounded into " + rule.scale_format +
                   " (not a power of two)";
  else if (!(sf.man_bits == 0 && !sf.is_signed && !sf.has_zero && sf.has_nan() &&
             sf.width() <= 8))
    why_generic_ = "scale format " + rule.scale_format + " is not an exponent-only byte (ue8m0)";
  else if (!rule.tensor_scale_format.empty())
    why_generic_ = "the rule has a per-tensor scale";
  else if (element.width() > 8)
    why_generic_ = "element format " + element.name + " is wider than 8 bits";
  else if (!element.has_zero)
    why_generic_ = "element format " + element.name + " has no zero";
  else if (tiniest <= -124)
    why_generic_ = "element format " + element.name + " reaches below 2^-124";
  else if (element.emax() < 2)
    why_generic_ = "element format " + element.name + " has maxf below 4 (scale 2^-k not normal)";
  else if (!(rule.element_mode == RoundingMode::rne || rule.element_mode == RoundingMode::rna ||
             rule.element_mode == RoundingMode::rtz))
    why_generic_ = "element rounding " + std::string(to_string(rule.element_mode)) +
                   " (the fast path takes rne, rna, rtz)";
  fast_ = why_generic_.empty();
  if (!fast_) return;

  Rounding r;
  r.mode = rule.element_mode;
  r.sat = rule.element_sat;
  converter_.emplace(element, r);
  k_min_ = sf.emin();
  k_max_ = sf.emax();
  scale_bias_ = sf.bias;
  elem_emax_ = element.emax();
  maxf_bits_ = static_cast<std::uint32_t>(
      convert(element.max_finite_code(), element, f32_, Rounding{}).bits);  // exact: <= 8 bits
  nan_scale_ = static_cast<std::uint8_t>(sf.nan_code(false));
}

void F32BlockQuantizer::quantize(const float* in, std::size_t n, void* codes, void* scales,
                                 std::optional<std::uint64_t> tensor_scale) const {
  const std::size_t b = static_cast<std::size_t>(block_);
  if (n % b != 0)
    throw Error("n", std::to_string(n) + " values are not a whole number of blocks of " +
                         std::to_string(b) + " (no padding is done)");
  if (fast_ && !tensor_scale)
    quantize_fast(in, n / b, static_cast<std::uint8_t*>(codes), static_cast<std::uint8_t*>(scales));
  else
    quantize_generic(in, n / b, codes, scales, tensor_scale);
}

void F32BlockQuantizer::generic_block(const float* in, std::size_t b, void* codes, void* scales,
                                      std::optional<std::uint64_t> tensor_scale) const {
  const std::size_t n = static_cast<std::size_t>(block_);
  std::vector<std::uint64_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = std::bit_cast<std::uint32_t>(in[b * n + i]);
  const QuantizedBlock q = quantize_block(values, f32_, element_, rule_, tensor_scale);
  store(scales, scale_bytes_, b, q.scale);
  for (std::size_t i = 0; i < n; ++i) store(codes, code_bytes_, b * n + i, q.elements[i]);
}

void F32BlockQuantizer::quantize_generic(const float* in, std::size_t nblocks, void* codes,
                                         void* scales,
                                         std::optional<std::uint64_t> tensor_scale) const {
  for (std::size_t b = 0; b < nblocks; ++b) generic_block(in, b, codes, scales, tensor_scale);
}

void F32BlockQuantizer::quantize_fast(const float* in, std::size_t nblocks, std::uint8_t* codes,
                                      std::uint8_t* scales) const {
  const ChunkFn kernel = pick_chunk_kernel(block_);
  const FastParams p{block_,
                     k_min_,
                     k_max_,
                     scale_bias_,
                     elem_emax_,
                     rule_.choice == ScaleChoice::ceil_pow2_of_ratio,
                     maxf_bits_,
                     rule_.element_sat == Saturation::finite ? std::bit_cast<float>(maxf_bits_)
                                                             : std::bit_cast<float>(kInf),
                     nan_scale_};
  const std::size_t n = static_cast<std::size_t>(block_);
  const std::size_t per_chunk = std::max<std::size_t>(1, kChunk / n);  // blocks per chunk
  // Chunk buffers on the stack for ordinary blocks (a chunk of 4096 values).
  std::array<float, kChunk> tmp_small;
  std::array<std::size_t, kChunk> slow_small;
  std::vector<float> tmp_big;
  std::vector<std::size_t> slow_big;
  float* tmp = tmp_small.data();
  std::size_t* slow = slow_small.data();
  if (per_chunk * n > kChunk) {
    tmp_big.resize(per_chunk * n);
    slow_big.resize(per_chunk);
    tmp = tmp_big.data();
    slow = slow_big.data();
  }
  for (std::size_t b0 = 0; b0 < nblocks; b0 += per_chunk) {
    const std::size_t nb = std::min(per_chunk, nblocks - b0);
    const float* x = in + b0 * n;
    const std::size_t nslow = kernel(x, nb, tmp, scales + b0, slow, p);
    converter_->convert(tmp, codes + b0 * n, nb * n);
    for (std::size_t s = 0; s < nslow; ++s)
      generic_block(x, slow[s], codes + b0 * n, scales + b0, std::nullopt);
  }
}

}  // namespace fpconform
