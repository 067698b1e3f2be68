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

}  // namespace fpconform::detail
