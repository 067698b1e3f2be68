// The x86 features fpconform dispatches on or tests, read once per process (all false off x86).
// One query for every fast path, CPU target and hardware test, so they agree on what a CPU has.
#pragma once

namespace fpconform {

struct CpuFeatures {
  bool avx = false;
  bool avx2 = false;
  bool fma = false;          // FMA3
  bool f16c = false;         // AVX2 and F16C (the f16c fast paths need both)
  bool avx512 = false;       // AVX2, FMA and AVX-512 F, BW and DQ
  bool avx512vl = false;
  bool avx512vbmi = false;   // AVX-512 (above) and VBMI's byte permutes
  bool avx512_fp16 = false;
  bool avx512_bf16 = false;
  bool amx_bf16 = false;     // AMX-BF16 and AMX-TILE (CPUID.7.0:EDX bits 22, 24); the OS must
                             // still grant the tile state (arch_prctl) before use
};

const CpuFeatures& cpu_features();

// FPCONFORM_DISPATCH=portable: the fast paths take their portable code whatever the CPU has, so
// that an AVX2 machine tests that code too (fdpa_kernel_portable in CTest).
bool portable_dispatch();
// Whether a path with both an AVX-512 and an AVX2 form takes the AVX-512 one: the CPU has
// AVX-512 and FPCONFORM_DISPATCH is neither portable nor avx2 (avx2: an AVX-512 machine tests
// the AVX2 form too, fdpa_kernel_avx2 in CTest).
bool avx512_dispatch();

}  // namespace fpconform
