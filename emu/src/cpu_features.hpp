// The x86 features emu's fast conversion dispatches on, read once per process (all false off
// x86).
#pragma once

namespace fpconform::detail {

bool cpu_has_avx2();
bool cpu_has_fma();
bool cpu_has_f16c();    // AVX2 and F16C
bool cpu_has_avx512();  // AVX2, FMA and AVX-512 F, BW and DQ

}  // namespace fpconform::detail
