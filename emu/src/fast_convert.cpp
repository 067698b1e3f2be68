// F32Converter (fast_convert.hpp): picks a kernel for (format, rounding, CPU), runs it, and
// sends the lanes it cannot serve (and unsupported configurations) to `convert`. The kernels,
// their constants and the CPU checks live in the files fast_convert_params.hpp lists.
#include "fpconform/fast_convert.hpp"

#include <bit>
#include <memory>
#include <string>

#include "fpconform/core/cpu_features.hpp"
#include "fast_convert_kernel.hpp"
#include "fast_convert_params.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform {

using detail::F32Params;
using RM = RoundingMode;

std::string_view to_string(ConvertKernel k) {
  switch (k) {
    case ConvertKernel::best: return "best";
    case ConvertKernel::portable: return "portable";
    case ConvertKernel::avx2: return "avx2";
    case ConvertKernel::reference: return "reference";
    case ConvertKernel::f16c: return "f16c";
    case ConvertKernel::avx512: return "avx512";
  }
  return "?";
}

bool kernel_available(ConvertKernel k) {
  if (k == ConvertKernel::f16c) return cpu_features().f16c;
  if (k == ConvertKernel::avx512) return cpu_features().f16c && cpu_features().avx512;
  return k != ConvertKernel::avx2 || cpu_features().avx2;
}

F32Converter::F32Converter(const Format& to, const Rounding& r, ConvertKernel k)
    : to_(to), f32_(*find_builtin("f32")), r_(r) {
  if (to.width() > 16 || to.width() < 1)
    throw Error("format", "fast conversion writes codes of at most 16 bits; '" + to.name +
                              "' is " + std::to_string(to.width()) + " bits wide");
  code_bytes_ = to.width() <= 8 ? 1 : 2;
  if (k == ConvertKernel::avx2 && !cpu_features().avx2)
    throw Error("kernel", "avx2 requested but this CPU (or build) has no AVX2");
  if (k == ConvertKernel::f16c && !cpu_features().f16c)
    throw Error("kernel", "f16c requested but this CPU (or build) has no AVX2 and F16C");
  if (k == ConvertKernel::avx512 && !kernel_available(k))
    throw Error("kernel",
                "avx512 requested but this CPU (or build) lacks AVX2, F16C or AVX-512 F/BW/DQ");
  if (k == ConvertKernel::best)
    k = kernel_available(ConvertKernel::avx512) ? ConvertKernel::avx512
        : cpu_features().f16c                         ? ConvertKernel::f16c
        : cpu_features().avx2                         ? ConvertKernel::avx2
                                                 : ConvertKernel::portable;
  if (k != ConvertKernel::reference && !detail::fast_convert_supports(to, r))
    k = ConvertKernel::reference;
  kernel_ = k;
  if (k == ConvertKernel::reference) return;
  auto p = std::make_shared<F32Params>(detail::make_f32_params(to, r));
  const bool avx2 = k != ConvertKernel::portable;
  if (k == ConvertKernel::f16c || k == ConvertKernel::avx512)
    native_f16_imm_ = detail::native_f16_immediate(to, r);
  p->ms_avx512 = k == ConvertKernel::avx512 && p->ms_ok;
  p->ms_vbmi = p->ms_avx512 && cpu_features().avx512vbmi;
  p->s_avx512 = k == ConvertKernel::avx512 && cpu_features().avx512vbmi && p->sign_aligned &&
                p->s0 == 16;
  p_ = std::move(p);
  if (code_bytes_ == 1) detail::pick_portable<std::uint8_t>(r.mode, lean_, full_);
  else detail::pick_portable<std::uint16_t>(r.mode, lean_, full_);
#if FPC_X86
  if (avx2) {
    if (code_bytes_ == 1) detail::pick_avx2<std::uint8_t>(r.mode, lean_, full_);
    else detail::pick_avx2<std::uint16_t>(r.mode, lean_, full_);
  }
#endif
  use_lean_ = to.is_signed && to.subnormals && to.has_zero && to.bias <= 127 && !r.ftz && !r.daz;
}

void F32Converter::run_reference(const float* in, void* out, std::uint8_t* flags_out,
                                 std::size_t n, std::uint8_t* acc) const {
  std::uint8_t all = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Rounded res = fpconform::convert(std::bit_cast<std::uint32_t>(in[i]), f32_, to_, r_);
    if (code_bytes_ == 1) static_cast<std::uint8_t*>(out)[i] = static_cast<std::uint8_t>(res.bits);
    else static_cast<std::uint16_t*>(out)[i] = static_cast<std::uint16_t>(res.bits);
    if (flags_out) flags_out[i] = res.flags.bits;
    all |= res.flags.bits;
  }
  if (acc) *acc |= all;
}

void F32Converter::run(const float* in, void* out, std::uint8_t* flags_out, std::size_t n,
                       std::uint8_t* acc) const {
  if (kernel_ == ConvertKernel::reference) return run_reference(in, out, flags_out, n, acc);
#if FPC_X86
  if (native_f16_imm_ >= 0 && !flags_out && !acc) {
    // vcvtps2ph reads DAZ/FTZ and sets MXCSR's exception flags: only with DAZ and FTZ off, and
    // the flags put back as they were (the clear path touches no floating-point state).
    const unsigned csr = _mm_getcsr();
    if ((csr & 0x8040u) == 0) {
      detail::vcvtps2ph_imm(native_f16_imm_, in, static_cast<std::uint16_t*>(out), n);
      _mm_setcsr(csr);
      return;
    }
  }
#endif
  if (use_lean_ && !flags_out && !acc) return lean_(in, out, n, *p_);
  constexpr std::size_t kChunk = 2048;
  alignas(64) std::uint8_t buf[kChunk];
  std::uint8_t all = 0;
  for (std::size_t off = 0; off < n; off += kChunk) {
    const std::size_t len = n - off < kChunk ? n - off : kChunk;
    std::uint8_t* fl = flags_out ? flags_out + off : buf;
    void* o = static_cast<char*>(out) + off * code_bytes_;
    full_(in + off, o, fl, len, *p_);
    if (p_->may_slow) {
      for (std::size_t j = 0; j < len; ++j)
        if (fl[j] & detail::kSlow) run_reference(in + off + j, static_cast<char*>(o) + j * code_bytes_,
                                         fl + j, 1, nullptr);
    }
    if (acc) {
      std::uint8_t a = 0;
      for (std::size_t j = 0; j < len; ++j) a |= fl[j];
      all |= a;
    }
  }
  if (acc) *acc |= all;
}

void F32Converter::convert(const float* in, void* out, std::size_t n) const {
  run(in, out, nullptr, n, nullptr);
}

Flags F32Converter::convert_flags(const float* in, void* out, std::size_t n) const {
  Flags f;
  run(in, out, nullptr, n, &f.bits);
  return f;
}

Flags F32Converter::convert_flags(const float* in, void* out, std::uint8_t* flags_out,
                                  std::size_t n) const {
  Flags f;
  run(in, out, flags_out, n, &f.bits);
  return f;
}

namespace {
void check_spans(std::size_t in, std::size_t out, std::size_t want_bytes, std::size_t have_bytes,
                 const Format& f) {
  if (in != out)
    throw Error("out", "output has " + std::to_string(out) + " elements, input " +
                           std::to_string(in));
  if (want_bytes != have_bytes)
    throw Error("out", "format '" + f.name + "' needs " + std::to_string(want_bytes) +
                           "-byte codes, the output has " + std::to_string(have_bytes));
}
}  // namespace

void F32Converter::convert(std::span<const float> in, std::span<std::uint8_t> out) const {
  check_spans(in.size(), out.size(), code_bytes_, 1, to_);
  convert(in.data(), out.data(), in.size());
}
void F32Converter::convert(std::span<const float> in, std::span<std::uint16_t> out) const {
  check_spans(in.size(), out.size(), code_bytes_, 2, to_);
  convert(in.data(), out.data(), in.size());
}
Flags F32Converter::convert_flags(std::span<const float> in, std::span<std::uint8_t> out) const {
  check_spans(in.size(), out.size(), code_bytes_, 1, to_);
  return convert_flags(in.data(), out.data(), in.size());
}
Flags F32Converter::convert_flags(std::span<const float> in,
                                  std::span<std::uint16_t> out) const {
  check_spans(in.size(), out.size(), code_bytes_, 2, to_);
  return convert_flags(in.data(), out.data(), in.size());
}

std::uint32_t F32Converter::convert_one(float x, Flags* flags) const {
  std::uint16_t code16 = 0;
  std::uint8_t code8 = 0;
  std::uint8_t fl = 0;
  void* o = code_bytes_ == 1 ? static_cast<void*>(&code8) : static_cast<void*>(&code16);
  run(&x, o, &fl, 1, nullptr);
  if (flags) flags->bits = fl;
  return code_bytes_ == 1 ? code8 : code16;
}

void convert_f32_batch(std::span<const float> in, std::span<std::uint8_t> out, const Format& to,
                       const Rounding& r) {
  F32Converter(to, r).convert(in, out);
}
void convert_f32_batch(std::span<const float> in, std::span<std::uint16_t> out, const Format& to,
                       const Rounding& r) {
  F32Converter(to, r).convert(in, out);
}

}  // namespace fpconform
