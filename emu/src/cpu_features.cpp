// The x86 features the fast conversion dispatches on (cpu_features.hpp), read once. Tier M
// needs FMA besides AVX2 (every AVX2 CPU so far has it; checked all the same).
#include "cpu_features.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define FPC_X86 1
#include <cpuid.h>
#else
#define FPC_X86 0
#endif

namespace fpconform::detail {

namespace {

struct CpuFeatures {
  bool avx2 = false, fma = false, avx512 = false;  // avx512: F, BW and DQ
};

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    CpuFeatures c;
#if FPC_X86
    __builtin_cpu_init();
    c.avx2 = __builtin_cpu_supports("avx2") != 0;
    c.fma = __builtin_cpu_supports("fma") != 0;
    // (libgcc sets these only where the OS saves the zmm state, as it does for AVX)
    c.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq");
#endif
    return c;
  }();
  return f;
}

}  // namespace

bool cpu_has_f16c() {
#if FPC_X86
  static const bool has = [] {
    __builtin_cpu_init();
    // F16C is CPUID.1:ECX bit 29, read directly: clang's __builtin_cpu_supports lacks "f16c".
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
    return __builtin_cpu_supports("avx2") != 0 && f16c;
  }();
  return has;
#else
  return false;
#endif
}

bool cpu_has_avx2() { return cpu_features().avx2; }
bool cpu_has_fma() { return cpu_features().fma; }
bool cpu_has_avx512() { return cpu_features().avx2 && cpu_features().fma && cpu_features().avx512; }

}  // namespace fpconform::detail
