// Batch fp32 -> narrow-format conversion: the fast path.
//
// `F32Converter` is built once per (target format, rounding) and precomputes every constant the
// kernel needs; `convert` then turns an array of fp32 values into codes of 1 byte (width <= 8) or
// 2 bytes (width <= 16). Results are bit-identical to the clear path
// `convert(bits, f32, to, r)` (emu/src/convert.cpp, emu/SEMANTICS.md) for every input; the
// flags variants also return that path's flags.
//
// How: one branch-free scalar kernel on the 32-bit pattern, generic over the Format data (no
// format names), written so that GCC vectorizes it; it is compiled twice, for the baseline ISA
// and for AVX2 (chosen at run time with __builtin_cpu_supports). Blocks of 64 values take the
// cheapest tier that serves them all: all in the target's normal range (one fixed-shift
// rounding), all at most max finite (subnormal results too), or anything (the whole kernel).
// With AVX2 the first two tiers are hand-written intrinsics; for rne/rtz/up/down the second one
// rounds with vroundps and an explicit rounding immediate on exact, normal fp32 values only, so
// MXCSR (rounding mode, DAZ, FTZ) plays no part and no MXCSR flag is raised. For 1-byte formats
// (e4m3, e5m2, e2m1, ...) in rne/rtz/up/down the AVX2 kernel sets MXCSR itself for the call
// (rounding = the mode, DAZ/FTZ off, exceptions masked) and puts the caller's MXCSR back after.
// Where the CPU has AVX-512 F/BW/DQ (ConvertKernel::avx512), the tier that serves 1-byte formats
// below their top binade in rne/up/down runs 16 lanes wide (emu/src/tierms_avx512.hpp).
// Coverage:
//   - vectorized: formats of width <= 16 with -128 <= bias <= 128 and m <= 22, modes rne, rna,
//     rtz, up, down, odd; saturation none, finite, propagate; ftz, daz; both tininess rules;
//     with or without flags.
//   - element by element through `convert`: the stochastic modes (each element with the same
//     `Rounding::random`, exactly as `convert` would be called), formats with a bias outside that
//     range (exponent fields of 9+ bits), and fp32 subnormal inputs into a format without
//     subnormals whose emin is below -126 (ue8m0): those lanes only.
// A converter is immutable after construction; convert() may run concurrently from threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "fpconform/core/format.hpp"
#include "fpconform/core/rounding.hpp"

namespace fpconform {

// Which implementation a converter runs. `best` picks avx512 where the CPU has AVX2, F16C and
// AVX-512 F/BW/DQ, else f16c where it has AVX2 and F16C, else avx2 where it has AVX2, else
// portable.
enum class ConvertKernel : std::uint8_t {
  best,
  portable,   // the same kernel compiled for the baseline ISA (what the compiler vectorizes)
  avx2,       // compiled with target("avx2"); throws Error where the CPU lacks AVX2
  reference,  // `convert` element by element (the clear path; for tests and benchmarks)
  f16c,       // avx2, and for IEEE binary16 targets (rne, rtz, up, down; saturation none; no
              // ftz/daz; no flags requested) the native vcvtps2ph, whose results are the clear
              // path's on every input (emu/tests: MatchesF16C, and the F16C kernel in every
              // sweep). Only while MXCSR has DAZ and FTZ off (they change vcvtps2ph on
              // subnormals; checked per call, else avx2); MXCSR's flags are restored after it.
              // Throws Error where the CPU lacks AVX2 or F16C.
  avx512,     // f16c, and for 1-byte formats in rne/up/down the tier that serves values below
              // the format's top binade (most data) on AVX-512 F/BW/DQ, 16 lanes
              // (emu/src/tierms_avx512.hpp; its results are checked against `convert` under
              // SIMDe's emulation on any CPU, and natively in every sweep where the CPU has
              // AVX-512). Throws Error where the CPU lacks AVX2, F16C or AVX-512 F/BW/DQ.
};

std::string_view to_string(ConvertKernel k);
// Whether this build and CPU can run kernel k (best, portable and reference always can).
bool kernel_available(ConvertKernel k);

namespace detail {
struct F32Params;  // the kernels' constants (private to emu/src)
}  // namespace detail

class F32Converter {
 public:
  // Throws Error if `to` is wider than 16 bits or kernel k is not available here.
  F32Converter(const Format& to, const Rounding& r, ConvertKernel k = ConvertKernel::best);
  // Copies share the (immutable) constants; a move copies, so the source stays usable.
  F32Converter(const F32Converter&) = default;
  F32Converter& operator=(const F32Converter&) = default;

  const Format& format() const { return to_; }
  const Rounding& rounding() const { return r_; }
  // Bytes per output code: 1 for formats of width <= 8, else 2 (native byte order).
  std::size_t code_bytes() const { return code_bytes_; }
  // The implementation in use: portable, avx2 or f16c (vectorized), or reference (element by
  // element).
  ConvertKernel kernel() const { return kernel_; }
  bool vectorized() const { return kernel_ != ConvertKernel::reference; }

  // n values from `in` to n codes of code_bytes() bytes at `out` (uint8_t[n] or uint16_t[n]).
  // `in` and `out` must not overlap.
  void convert(const float* in, void* out, std::size_t n) const;
  // Same, and returns the OR of every element's flags (the IEEE sticky flags of the batch).
  Flags convert_flags(const float* in, void* out, std::size_t n) const;
  // Same, and writes each element's flags (Flags::bits) to flags_out[i].
  Flags convert_flags(const float* in, void* out, std::uint8_t* flags_out, std::size_t n) const;

  // Span forms; throw Error when the sizes differ or the element type does not match
  // code_bytes().
  void convert(std::span<const float> in, std::span<std::uint8_t> out) const;
  void convert(std::span<const float> in, std::span<std::uint16_t> out) const;
  Flags convert_flags(std::span<const float> in, std::span<std::uint8_t> out) const;
  Flags convert_flags(std::span<const float> in, std::span<std::uint16_t> out) const;

  // One value (the code right-aligned), with its flags in *flags when non-null.
  std::uint32_t convert_one(float x, Flags* flags = nullptr) const;

 private:
  void run(const float* in, void* out, std::uint8_t* flags_out, std::size_t n,
           std::uint8_t* acc) const;
  void run_reference(const float* in, void* out, std::uint8_t* flags_out, std::size_t n,
                     std::uint8_t* acc) const;

  Format to_;
  Format f32_;
  Rounding r_;
  ConvertKernel kernel_;
  std::size_t code_bytes_;
  std::shared_ptr<const detail::F32Params> p_;  // null for the reference kernel
  // Vectorized entry points (null for the reference kernel): lean = no flags, no ftz/daz, signed
  // format with subnormals and zero; full = everything else, with per-element flags.
  using LeanFn = void (*)(const float*, void*, std::size_t, const detail::F32Params&);
  using FullFn = void (*)(const float*, void*, std::uint8_t*, std::size_t,
                          const detail::F32Params&);
  LeanFn lean_ = nullptr;
  FullFn full_ = nullptr;
  bool use_lean_ = false;
  int native_f16_imm_ = -1;  // >= 0: vcvtps2ph with this rounding immediate serves lean calls
};

// One-shot helpers (build a converter and run it); out.size() must equal in.size().
void convert_f32_batch(std::span<const float> in, std::span<std::uint8_t> out, const Format& to,
                       const Rounding& r);
void convert_f32_batch(std::span<const float> in, std::span<std::uint16_t> out, const Format& to,
                       const Rounding& r);

}  // namespace fpconform
