// Streaming block-scaled quantization of fp32 data: the fast path beside quantize_block
// (block_scale.hpp), bit-identical to it in scales and element codes (flags are not computed).
//
// Blocks are `block` consecutive values (1 x block blocks along a row-major matrix's rows, or
// any 1-D tensor). The input is processed in chunks of a few KiB, so memory use does not grow
// with the tensor and the output can be written straight into the caller's buffers.
//
// Served by the fast path (`fast()`): rules whose scale is a power of two (ScaleChoice
// floor_log2_minus_emax and ceil_pow2_of_ratio) in a format of exponent bits only (ue8m0),
// element formats of at most 8 bits rounded rne, rna or rtz, no per-tensor scale. Why it is
// exact: amax is the largest |bit pattern| (finite fp32 order), the scale exponent k comes from
// amax's exponent and significand fields, and x / 2^k is the fp32 product x * 2^-k, exact
// whenever it is an fp32 normal; when it is smaller than 2^-126 (whatever the host's rounding
// or flushing makes of it) the element format, whose smallest value is far above 2^-126,
// rounds it to the zero of x's sign, as it does the exact quotient. Scaled values above the element's
// maxf (OCP's scale leaves up to 2 * maxf) are clamped to maxf when the rule saturates, which
// gives the same code in these modes and keeps the converter in its cheapest tier. The element
// conversion is F32Converter (fast_convert.hpp) with the rule's mode and saturation. Blocks holding an fp32
// subnormal go through quantize_block; blocks holding NaN or infinity get the special block
// quantize_block defines (NaN scale, +0 elements).
// Everything else (ratio scales: nvfp4, tile; wider elements; other modes) runs quantize_block
// block by block: same results, generic speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fpconform/block_scale.hpp"
#include "fpconform/fast_convert.hpp"
#include "fpconform/core/format.hpp"

namespace fpconform {

class F32BlockQuantizer {
 public:
  // Throws Error naming "block" for block < 1, "element" for an element format wider than 16
  // bits.
  F32BlockQuantizer(const Format& element, const ScaleRule& rule, int block);

  bool fast() const { return fast_; }
  // Why the fast path does not serve this (rule, element); empty when it does.
  const std::string& why_generic() const { return why_generic_; }
  // Bytes per element code (1 for width <= 8, else 2) and per scale code (1 for width <= 8,
  // 2 for <= 16, else 4), native byte order.
  std::size_t code_bytes() const { return code_bytes_; }
  std::size_t scale_bytes() const { return scale_bytes_; }
  int block() const { return block_; }

  // n values (n a multiple of block(), else Error naming "n") to n element codes at `codes`
  // and n / block() scale codes at `scales`. `tensor_scale` as in quantize_block (only the
  // generic path takes one). Buffers must not overlap.
  void quantize(const float* in, std::size_t n, void* codes, void* scales,
                std::optional<std::uint64_t> tensor_scale = std::nullopt) const;

 private:
  void quantize_generic(const float* in, std::size_t nblocks, void* codes, void* scales,
                        std::optional<std::uint64_t> tensor_scale) const;
  void quantize_fast(const float* in, std::size_t nblocks, std::uint8_t* codes,
                     std::uint8_t* scales) const;
  // One block through quantize_block, codes and scale stored at index `b`.
  void generic_block(const float* in, std::size_t b, void* codes, void* scales,
                     std::optional<std::uint64_t> tensor_scale) const;

  Format element_, f32_, scale_format_;
  ScaleRule rule_;
  int block_;
  std::size_t code_bytes_, scale_bytes_;
  bool fast_ = false;
  std::string why_generic_;
  std::optional<F32Converter> converter_;
  // Fast-path constants: scale exponent range, scale codes, element-format data.
  int k_min_ = 0, k_max_ = 0, scale_bias_ = 0, elem_emax_ = 0;
  std::uint32_t maxf_bits_ = 0;       // the element format's max finite as an fp32 pattern
  std::uint8_t nan_scale_ = 0, special_code_ = 0;
};

}  // namespace fpconform
