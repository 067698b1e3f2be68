// The host's floating-point mode held at IEEE 754's default for a scope (x86: MXCSR rounding to
// nearest even, no FTZ or DAZ, every exception masked; elsewhere the C default environment), and
// put back afterwards, flags and all. FdpaKernel's paths that compute in the host's binary32 and
// binary64 (the host path, the binary16 chain, late C, the exact steps) rely on it, whatever
// mode the caller runs in.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>
#else
#include <cfenv>
#endif

namespace fpconform::detail {

class DefaultHostFpMode {
 public:
#if defined(__x86_64__)
  DefaultHostFpMode() : saved_(_mm_getcsr()) { _mm_setcsr(0x1F80u); }
  ~DefaultHostFpMode() { _mm_setcsr(saved_); }
#else
  DefaultHostFpMode() {
    std::fegetenv(&saved_);
    std::fesetenv(FE_DFL_ENV);
  }
  ~DefaultHostFpMode() { std::fesetenv(&saved_); }
#endif
  DefaultHostFpMode(const DefaultHostFpMode&) = delete;
  DefaultHostFpMode& operator=(const DefaultHostFpMode&) = delete;

 private:
#if defined(__x86_64__)
  unsigned saved_;
#else
  std::fenv_t saved_;
#endif
};

#if defined(__x86_64__)
// MXCSR toward zero for a scope (no flushing, every exception masked), for the vector forms
// whose one rounding is toward zero and whose instructions have no embedded rounding (AVX2).
class TowardZeroFpMode {
 public:
  TowardZeroFpMode() : saved_(_mm_getcsr()) { _mm_setcsr(0x7F80u); }
  ~TowardZeroFpMode() { _mm_setcsr(saved_); }
  TowardZeroFpMode(const TowardZeroFpMode&) = delete;
  TowardZeroFpMode& operator=(const TowardZeroFpMode&) = delete;

 private:
  unsigned saved_;
};
#endif

}  // namespace fpconform::detail
