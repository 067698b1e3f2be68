// libgcc's __builtin_cpu_supports reports AVX and AVX-512 only where the OS saves their register
// state. F16C, AVX512-FP16, AVX512-BF16 and AMX are read from CPUID (Intel SDM vol. 2A, CPUID
// leaves 1 and 7): clang's __builtin_cpu_supports lacks some of their names.
#include "fpconform/core/cpu_features.hpp"

#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#define FPC_X86 1
#include <cpuid.h>
#else
#define FPC_X86 0
#endif

namespace fpconform {

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    CpuFeatures c;
#if FPC_X86
    __builtin_cpu_init();
    c.avx = __builtin_cpu_supports("avx") != 0;
    c.avx2 = __builtin_cpu_supports("avx2") != 0;
    c.fma = __builtin_cpu_supports("fma") != 0;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    c.f16c = c.avx2 && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
    c.avx512 = c.avx2 && c.fma && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
    c.avx512vl = __builtin_cpu_supports("avx512vl") != 0;
    // AVX512-FP16 and AVX512-BF16 need the zmm state the avx512f check saw the OS save.
    const bool zmm = __builtin_cpu_supports("avx512f") != 0;
    eax = ebx = ecx = edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
      c.avx512_fp16 = zmm && (edx & (1u << 23));
      c.avx512vbmi = c.avx512 && (ecx & (1u << 1));
      c.amx_bf16 = (edx & (1u << 22)) && (edx & (1u << 24));
      if (eax >= 1) {  // the highest subleaf of leaf 7
        unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
        c.avx512_bf16 = zmm && __get_cpuid_count(7, 1, &a1, &b1, &c1, &d1) && (a1 & (1u << 5));
      }
    }
#endif
    return c;
  }();
  return f;
}

bool portable_dispatch() {
  static const bool portable = [] {
    const char* e = std::getenv("FPCONFORM_DISPATCH");
    return e != nullptr && std::string_view(e) == "portable";
  }();
  return portable;
}

bool avx512_dispatch() {
  static const bool avx512 = [] {
    const char* e = std::getenv("FPCONFORM_DISPATCH");
    return cpu_features().avx512 && !portable_dispatch() &&
           !(e != nullptr && std::string_view(e) == "avx2");
  }();
  return avx512;
}

}  // namespace fpconform
