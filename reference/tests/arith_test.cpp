// The oracle's scalar operations (reference::apply_op), checked against independent sources:
//  1. this machine's SSE/AVX/FMA3 unit (f32, f64: bits and MXCSR flags, the four IEEE modes,
//     FTZ/DAZ, comparisons, roundss) with NaN policy x86;
//  2. f16 through F16C (f32 arithmetic, then one vcvtps2ph; double rounding innocuous, see
//     F16Hardware);
//  3. cases worked out by hand from IEEE 754-2019 and emu/SEMANTICS.md for the small formats,
//     the NaN policies, min/max, comparisons, roundToInt and the stochastic modes.
// Nothing here comes from emu/ or from the oracle's own output.
#include <immintrin.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fpconform/core/nan_policy.hpp"
#include "fpconform/reference/arith.hpp"
#include "test_util.hpp"

using namespace reftest;
namespace ref = fpconform::reference;
using fpconform::NanPolicy;
using fpconform::Op;
using fpconform::OpOptions;
using M = RoundingMode;
using S = Saturation;

namespace {

using u64 = std::uint64_t;
using u32 = std::uint32_t;
constexpr std::uint8_t DZ = 0x08;

const NanPolicy& policy(const char* name) { return fpconform::find_nan_policy(name); }

OpOptions opts(M m = M::rne, const char* pol = "ieee") {
  OpOptions o;
  o.rounding.mode = m;
  o.nan = &policy(pol);
  return o;
}

OracleResult op1(Op op, const Format& f, u64 a, const OpOptions& o = opts()) {
  const u64 v[3] = {a, 0, 0};
  return ref::apply_op(op, f, v, o);
}
OracleResult op2(Op op, const Format& f, u64 a, u64 b, const OpOptions& o = opts()) {
  const u64 v[3] = {a, b, 0};
  return ref::apply_op(op, f, v, o);
}
OracleResult op3(Op op, const Format& f, u64 a, u64 b, u64 c, const OpOptions& o = opts()) {
  const u64 v[3] = {a, b, c};
  return ref::apply_op(op, f, v, o);
}

// ---------------------------------------------------------------------------------------------
// The x86 SSE unit. Each asm block loads MXCSR, runs one instruction, stores MXCSR and puts
// the default back, so nothing can be reordered around the mode change or constant-folded,
// and no other code runs with FTZ/DAZ or a directed mode.

constexpr u32 kMxcsrDefault = 0x1F80;  // all exceptions masked, RNE, no FTZ/DAZ, flags clear
constexpr u32 kDaz = 0x0040, kFtz = 0x8000;

u32 mxcsr_rc(M m) {
  switch (m) {
    case M::rne: return 0x0000;
    case M::down: return 0x2000;
    case M::up: return 0x4000;
    case M::rtz: return 0x6000;
    default: break;
  }
  ADD_FAILURE() << "no MXCSR rounding control for this mode";
  return 0;
}

// MXCSR status bits (IE, DE, ZE, OE, UE, PE) to TestFloat's flags. DE (denormal operand) has
// no IEEE counterpart and is ignored.
std::uint8_t mxcsr_flags(u32 st) {
  std::uint8_t f = 0;
  if (st & 0x01) f |= INV;
  if (st & 0x04) f |= DZ;
  if (st & 0x08) f |= OF;
  if (st & 0x10) f |= UF;
  if (st & 0x20) f |= IX;
  return f;
}

#define FPC_HW2(NAME, INSN, T)                                                           \
  T NAME(T a, T b, u32 csr, u32* st) {                                                   \
    u32 s, def = kMxcsrDefault;                                                          \
    asm volatile("ldmxcsr %[csr]\n\t" INSN " %[b], %[a]\n\tstmxcsr %[s]\n\tldmxcsr %[def]" \
                 : [a] "+x"(a), [s] "=m"(s)                                              \
                 : [b] "x"(b), [csr] "m"(csr), [def] "m"(def));                          \
    *st = s;                                                                             \
    return a;                                                                            \
  }
FPC_HW2(hw_add_s, "addss", float)
FPC_HW2(hw_sub_s, "subss", float)
FPC_HW2(hw_mul_s, "mulss", float)
FPC_HW2(hw_div_s, "divss", float)
FPC_HW2(hw_add_d, "addsd", double)
FPC_HW2(hw_sub_d, "subsd", double)
FPC_HW2(hw_mul_d, "mulsd", double)
FPC_HW2(hw_div_d, "divsd", double)
#undef FPC_HW2

#define FPC_HW1(NAME, INSN, T)                                                            \
  T NAME(T a, T, u32 csr, u32* st) {                                                      \
    u32 s, def = kMxcsrDefault;                                                           \
    asm volatile("ldmxcsr %[csr]\n\t" INSN " %[a], %[a]\n\tstmxcsr %[s]\n\tldmxcsr %[def]" \
                 : [a] "+x"(a), [s] "=m"(s)                                               \
                 : [csr] "m"(csr), [def] "m"(def));                                       \
    *st = s;                                                                              \
    return a;                                                                             \
  }
FPC_HW1(hw_sqrt_s, "sqrtss", float)
FPC_HW1(hw_sqrt_d, "sqrtsd", double)
#undef FPC_HW1

// a*b + c. The form matters for NaN operands: measured on this machine, vfmadd231 (dest = c,
// src2 = a, src3 = b) and vfmadd132 return the first NaN of a, b, c; vfmadd213 with dest = a,
// src2 = b returns b's NaN before a's. The multiplicand written first in the instruction's
// formula wins, so _mm_fmadd_ss's NaN order depends on the form the compiler picks; the asm
// pins the form.
#define FPC_FMA(NAME, INSN, T)                                                                \
  T NAME(T a, T b, T c, u32 csr, u32* st) {                                                   \
    u32 s, def = kMxcsrDefault;                                                               \
    asm volatile("ldmxcsr %[csr]\n\t" INSN " %[b], %[a], %[c]\n\tstmxcsr %[s]\n\tldmxcsr %[def]" \
                 : [c] "+x"(c), [s] "=m"(s)                                                   \
                 : [a] "x"(a), [b] "x"(b), [csr] "m"(csr), [def] "m"(def));                   \
    *st = s;                                                                                  \
    return c;                                                                                 \
  }
FPC_FMA(hw_fma_s, "vfmadd231ss", float)
FPC_FMA(hw_fma_d, "vfmadd231sd", double)
#undef FPC_FMA

// vcmpss/vcmpsd with an immediate predicate: all ones (true) or zero.
template <int Imm, class T>
bool hw_cmp(T a, T b, u32 csr, u32* st) {
  u32 s, def = kMxcsrDefault;
  T r;
  if constexpr (sizeof(T) == 4)
    asm volatile("ldmxcsr %[csr]\n\tvcmpss %[imm], %[b], %[a], %[r]\n\tstmxcsr %[s]\n\tldmxcsr %[def]"
                 : [r] "=x"(r), [s] "=m"(s)
                 : [a] "x"(a), [b] "x"(b), [imm] "i"(Imm), [csr] "m"(csr), [def] "m"(def));
  else
    asm volatile("ldmxcsr %[csr]\n\tvcmpsd %[imm], %[b], %[a], %[r]\n\tstmxcsr %[s]\n\tldmxcsr %[def]"
                 : [r] "=x"(r), [s] "=m"(s)
                 : [a] "x"(a), [b] "x"(b), [imm] "i"(Imm), [csr] "m"(csr), [def] "m"(def));
  *st = s;
  u64 bits = 0;
  std::memcpy(&bits, &r, sizeof(T));
  return bits != 0;
}

// roundss/roundsd with MXCSR's rounding (imm bit 2); imm bit 3 suppresses inexact.
template <int Imm, class T>
T hw_round(T a, u32 csr, u32* st) {
  u32 s, def = kMxcsrDefault;
  if constexpr (sizeof(T) == 4)
    asm volatile("ldmxcsr %[csr]\n\troundss %[imm], %[a], %[a]\n\tstmxcsr %[s]\n\tldmxcsr %[def]"
                 : [a] "+x"(a), [s] "=m"(s)
                 : [imm] "i"(Imm), [csr] "m"(csr), [def] "m"(def));
  else
    asm volatile("ldmxcsr %[csr]\n\troundsd %[imm], %[a], %[a]\n\tstmxcsr %[s]\n\tldmxcsr %[def]"
                 : [a] "+x"(a), [s] "=m"(s)
                 : [imm] "i"(Imm), [csr] "m"(csr), [def] "m"(def));
  *st = s;
  return a;
}

// f16 through F16C: both operands to f32 (exact), the f32 instruction, then vcvtps2ph with
// MXCSR's rounding (imm 4), all under one MXCSR setting.
#define FPC_HW_H2(NAME, INSN)                                                              \
  std::uint16_t NAME(std::uint16_t a, std::uint16_t b, u32 csr, u32* st) {                 \
    u32 s, def = kMxcsrDefault;                                                            \
    __m128i va = _mm_cvtsi32_si128(a), vb = _mm_cvtsi32_si128(b), out;                     \
    __m128 fa, fb;                                                                         \
    asm volatile("ldmxcsr %[csr]\n\t"                                                      \
                 "vcvtph2ps %[va], %[fa]\n\t"                                              \
                 "vcvtph2ps %[vb], %[fb]\n\t" INSN                                         \
                 "\n\t"                                                                    \
                 "vcvtps2ph $4, %[fa], %[out]\n\t"                                         \
                 "stmxcsr %[s]\n\tldmxcsr %[def]"                                          \
                 : [fa] "=&x"(fa), [fb] "=&x"(fb), [out] "=x"(out), [s] "=m"(s)            \
                 : [va] "x"(va), [vb] "x"(vb), [csr] "m"(csr), [def] "m"(def));            \
    *st = s;                                                                               \
    return static_cast<std::uint16_t>(_mm_cvtsi128_si32(out));                             \
  }
FPC_HW_H2(hw_add_h, "vaddss %[fb], %[fa], %[fa]")
FPC_HW_H2(hw_sub_h, "vsubss %[fb], %[fa], %[fa]")
FPC_HW_H2(hw_mul_h, "vmulss %[fb], %[fa], %[fa]")
FPC_HW_H2(hw_div_h, "vdivss %[fb], %[fa], %[fa]")
FPC_HW_H2(hw_sqrt_h, "vsqrtss %[fa], %[fa], %[fa]")
#undef FPC_HW_H2

template <class T, class U>
U bits_of(T x) {
  U u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
template <class T, class U>
T from_bits(U u) {
  T x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

bool cpu_has(const char* what) {
  __builtin_cpu_init();
  if (std::string(what) == "fma") return __builtin_cpu_supports("fma");
  if (std::string(what) == "f16c") return __builtin_cpu_supports("f16c");
  if (std::string(what) == "avx") return __builtin_cpu_supports("avx");
  if (std::string(what) == "sse4.1") return __builtin_cpu_supports("sse4.1");
  return false;
}

#define FPC_REQUIRE_CPU(feature)                                             \
  do {                                                                       \
    if (!cpu_has(feature)) GTEST_SKIP() << "this CPU lacks " feature;        \
  } while (0)

// Random operands of an IEEE binary format (E exponent bits, M fraction bits), weighted toward
// the places where rounding is delicate: subnormals, the overflow threshold, specials, NaNs
// with payloads (quiet and signaling), operands a few ulps apart (cancellation).
struct OperandGen {
  std::mt19937_64 rng;
  int E, M;
  u64 sign, exp_all, frac_mask;
  OperandGen(u64 seed, int e, int m)
      : rng(seed), E(e), M(m), sign(u64{1} << (e + m)), exp_all((u64{1} << e) - 1),
        frac_mask((u64{1} << m) - 1) {}
  u64 below(u64 n) { return rng() % n; }
  u64 make(bool neg, u64 ef, u64 t) { return (neg ? sign : 0) | (ef << M) | (t & frac_mask); }
  u64 frac() {
    switch (below(5)) {
      case 0: return below(8);                   // few low bits
      case 1: return frac_mask - below(8);       // nearly all ones
      case 2: return (rng() & frac_mask) & ~((u64{1} << below(M)) - 1);  // short significand
      case 3: return (u64{1} << (M - 1)) | below(4);  // near 1.5
      default: return rng() & frac_mask;
    }
  }
  u64 special() {
    const bool neg = rng() & 1;
    switch (below(12)) {
      case 0: return make(neg, 0, 0);                      // zero
      case 1: return make(neg, exp_all, 0);                // inf
      case 2: return make(neg, 0, 1);                      // min subnormal
      case 3: return make(neg, 0, frac_mask);              // max subnormal
      case 4: return make(neg, 1, 0);                      // min normal
      case 5: return make(neg, exp_all - 1, frac_mask);    // max finite
      case 6: return make(neg, exp_all >> 1, 0);           // 1
      case 7:                                              // quiet NaN, random payload
      case 8: return make(neg, exp_all, (u64{1} << (M - 1)) | (rng() & (frac_mask >> 1)));
      case 9:                                              // signaling NaN
      case 10: return make(neg, exp_all, ((rng() & (frac_mask >> 1)) | 1) << below(2));
      default: return make(neg, exp_all - 1 - below(2), frac());
    }
  }
  u64 any() {
    const u64 r = below(100);
    const bool neg = rng() & 1;
    if (r < 8) return special();
    if (r < 20) return rng() & (sign | (sign - 1));      // any code
    if (r < 35) return make(neg, below(3), frac());      // subnormal and the lowest binades
    if (r < 45) return make(neg, exp_all - 1 - below(3), frac());  // near overflow
    // Mid range: within 30 binades of 1 (all normal binades for f16).
    const long spread = std::min<long>(30, static_cast<long>(exp_all >> 1) - 1);
    const long mid = static_cast<long>(exp_all >> 1) + static_cast<long>(below(2 * spread + 1)) - spread;
    return make(neg, static_cast<u64>(mid), frac());
  }
  // An operand close to a (a few ulps away, either sign, or a nearby binade).
  u64 near(u64 a) {
    u64 mag = a & (sign - 1);
    switch (below(3)) {
      case 0: mag += below(5); break;
      case 1: mag -= std::min<u64>(mag, below(5)); break;
      default: {
        const u64 shift = below(4) << M;
        mag = (rng() & 1) ? mag + shift : mag - std::min(mag, shift);
      }
    }
    if (mag >= (exp_all << M)) mag = (exp_all << M) - 1 - below(3);
    return mag | ((rng() & 1) ? sign : 0) | (a & sign);
  }
};

std::string hex(u64 v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string mode_name(M m) { return std::string(fpconform::to_string(m)); }

// Counts mismatches between hardware and oracle and reports the first few.
struct Mismatches {
  int count = 0;
  std::string first;
  void check(const std::string& what, const OracleResult& hw, const OracleResult& oracle) {
    if (hw == oracle) return;
    if (++count <= 8)
      first += what + ": hardware {" + hex(hw.bits) + ", flags " + hex(hw.flags) + "} oracle {" +
               hex(oracle.bits) + ", flags " + hex(oracle.flags) + "}\n";
  }
  void expect_none(const std::string& label, int total) {
    EXPECT_EQ(count, 0) << label << ": " << count << " of " << total << " differ\n" << first;
  }
};

constexpr M kIeeeModes[] = {M::rne, M::rtz, M::up, M::down};

// The hardware f32/f64 binary operations with their oracle op.
template <class T>
struct HwBinary {
  Op op;
  T (*fn)(T, T, u32, u32*);
  const char* name;
};

template <class T, class U>
void check_x86_binary(const Format& F, int E, int Mb, const std::vector<HwBinary<T>>& ops,
                      int per_mode, u64 seed, bool ftz_daz) {
  OperandGen gen(seed, E, Mb);
  for (const auto& hw : ops) {
    Mismatches mm;
    int total = 0;
    for (M m : kIeeeModes) {
      for (int i = 0; i < per_mode; ++i) {
        const u64 a = gen.any();
        u64 b = gen.below(10) < 3 ? gen.near(a) : gen.any();
        if (hw.op == Op::sqrt) b = 0;
        OpOptions o = opts(m, "x86");
        u32 csr = kMxcsrDefault | mxcsr_rc(m);
        if (ftz_daz) {
          o.rounding.ftz = gen.rng() & 1;
          o.rounding.daz = gen.rng() & 1;
          if (o.rounding.ftz) csr |= kFtz;
          if (o.rounding.daz) csr |= kDaz;
        }
        u32 st = 0;
        const T r = hw.fn(from_bits<T, U>(static_cast<U>(a)), from_bits<T, U>(static_cast<U>(b)),
                          csr, &st);
        const OracleResult want{bits_of<T, U>(r), mxcsr_flags(st)};
        const OracleResult got = op2(hw.op, F, a, b, o);
        mm.check(std::string(hw.name) + " " + mode_name(m) + (o.rounding.ftz ? " ftz" : "") +
                     (o.rounding.daz ? " daz" : "") + " (" + hex(a) + ", " + hex(b) + ")",
                 want, got);
        ++total;
      }
    }
    mm.expect_none(F.name + " " + hw.name, total);
  }
}

template <class T, class U>
void check_x86_fma(const Format& F, int E, int Mb, T (*fn)(T, T, T, u32, u32*), int per_mode,
                   u64 seed, bool ftz_daz) {
  OperandGen gen(seed, E, Mb);
  Mismatches mm;
  int total = 0;
  for (M m : kIeeeModes) {
    for (int i = 0; i < per_mode; ++i) {
      const u64 a = gen.any();
      const u64 b = gen.any();
      u64 c;
      if (gen.below(10) < 4) {
        // c near -(a*b): heavy cancellation (the product rounded by the compiler, then nudged).
        const T p = from_bits<T, U>(static_cast<U>(a)) * from_bits<T, U>(static_cast<U>(b));
        c = gen.near(bits_of<T, U>(p) ^ gen.sign);
        if (gen.below(2)) c = bits_of<T, U>(p) ^ gen.sign;
      } else {
        c = gen.any();
      }
      OpOptions o = opts(m, "x86");
      u32 csr = kMxcsrDefault | mxcsr_rc(m);
      if (ftz_daz) {
        o.rounding.ftz = gen.rng() & 1;
        o.rounding.daz = gen.rng() & 1;
        if (o.rounding.ftz) csr |= kFtz;
        if (o.rounding.daz) csr |= kDaz;
      }
      u32 st = 0;
      const T r = fn(from_bits<T, U>(static_cast<U>(a)), from_bits<T, U>(static_cast<U>(b)),
                     from_bits<T, U>(static_cast<U>(c)), csr, &st);
      const OracleResult want{bits_of<T, U>(r), mxcsr_flags(st)};
      const OracleResult got = op3(Op::mul_add, F, a, b, c, o);
      mm.check("fma " + mode_name(m) + (o.rounding.ftz ? " ftz" : "") +
                   (o.rounding.daz ? " daz" : "") + " (" + hex(a) + ", " + hex(b) + ", " +
                   hex(c) + ")",
               want, got);
      ++total;
    }
  }
  mm.expect_none(F.name + " fma", total);
}

const std::vector<HwBinary<float>> kF32Ops = {{Op::add, hw_add_s, "add"},
                                              {Op::sub, hw_sub_s, "sub"},
                                              {Op::mul, hw_mul_s, "mul"},
                                              {Op::div, hw_div_s, "div"},
                                              {Op::sqrt, hw_sqrt_s, "sqrt"}};
const std::vector<HwBinary<double>> kF64Ops = {{Op::add, hw_add_d, "add"},
                                               {Op::sub, hw_sub_d, "sub"},
                                               {Op::mul, hw_mul_d, "mul"},
                                               {Op::div, hw_div_d, "div"},
                                               {Op::sqrt, hw_sqrt_d, "sqrt"}};

constexpr int kPerMode = 50000;  // 200k cases per op and format across the four modes

}  // namespace

// ---- 1. x86 SSE / FMA3 ------------------------------------------------------------------

TEST(ArithX86, F32Basic) {
  check_x86_binary<float, u32>(fmt("f32"), 8, 23, kF32Ops, kPerMode, 0xA11CE01, false);
}
TEST(ArithX86, F64Basic) {
  check_x86_binary<double, u64>(fmt("f64"), 11, 52, kF64Ops, kPerMode, 0xA11CE02, false);
}
TEST(ArithX86, F32Fma) {
  FPC_REQUIRE_CPU("fma");
  check_x86_fma<float, u32>(fmt("f32"), 8, 23, hw_fma_s, kPerMode, 0xA11CE03, false);
}
TEST(ArithX86, F64Fma) {
  FPC_REQUIRE_CPU("fma");
  check_x86_fma<double, u64>(fmt("f64"), 11, 52, hw_fma_d, kPerMode, 0xA11CE04, false);
}
// MXCSR.FTZ / DAZ against Rounding::ftz / daz (tininess after rounding, as x86 detects it).
TEST(ArithX86, FtzDaz) {
  check_x86_binary<float, u32>(fmt("f32"), 8, 23, kF32Ops, 10000, 0xA11CE05, true);
  check_x86_binary<double, u64>(fmt("f64"), 11, 52, kF64Ops, 10000, 0xA11CE06, true);
  if (cpu_has("fma")) {
    check_x86_fma<float, u32>(fmt("f32"), 8, 23, hw_fma_s, 10000, 0xA11CE07, true);
    check_x86_fma<double, u64>(fmt("f64"), 11, 52, hw_fma_d, 10000, 0xA11CE08, true);
  }
}

namespace {
template <class T, class U>
void check_x86_compare(const Format& F, int E, int Mb, u64 seed) {
  struct Pred {
    Op op;
    bool (*fn)(T, T, u32, u32*);
    const char* name;
  };
  // AVX predicates: EQ_OQ 0x00, LT_OS 0x01, LE_OS 0x02, EQ_OS 0x10, LT_OQ 0x11, LE_OQ 0x12.
  const Pred preds[] = {{Op::eq, hw_cmp<0x00, T>, "eq"},
                        {Op::lt, hw_cmp<0x01, T>, "lt"},
                        {Op::le, hw_cmp<0x02, T>, "le"},
                        {Op::eq_signaling, hw_cmp<0x10, T>, "eq_signaling"},
                        {Op::lt_quiet, hw_cmp<0x11, T>, "lt_quiet"},
                        {Op::le_quiet, hw_cmp<0x12, T>, "le_quiet"}};
  OperandGen gen(seed, E, Mb);
  for (const Pred& p : preds) {
    Mismatches mm;
    const int n = 40000;
    for (int i = 0; i < n; ++i) {
      const u64 a = gen.any();
      const u64 b = gen.below(3) == 0 ? a : gen.below(3) == 0 ? gen.near(a) : gen.any();
      OpOptions o = opts(M::rne, "x86");
      o.rounding.daz = gen.rng() & 1;
      u32 st = 0;
      const bool r = p.fn(from_bits<T, U>(static_cast<U>(a)), from_bits<T, U>(static_cast<U>(b)),
                          kMxcsrDefault | (o.rounding.daz ? kDaz : 0), &st);
      mm.check(std::string(p.name) + (o.rounding.daz ? " daz" : "") + " (" + hex(a) + ", " +
                   hex(b) + ")",
               OracleResult{r ? 1u : 0u, mxcsr_flags(st)}, op2(p.op, F, a, b, o));
    }
    mm.expect_none(F.name + " " + p.name, n);
  }
}

template <class T, class U>
void check_x86_round_to_int(const Format& F, int E, int Mb, u64 seed) {
  OperandGen gen(seed, E, Mb);
  Mismatches mm;
  int total = 0;
  for (M m : kIeeeModes) {
    for (int i = 0; i < 25000; ++i) {
      u64 a = gen.any();
      if (gen.below(2)) {  // values with a fraction near the integers (the interesting part)
        const long ef = static_cast<long>(gen.exp_all >> 1) + static_cast<long>(gen.below(Mb + 2)) - 1;
        a = gen.make(gen.rng() & 1, static_cast<u64>(ef), gen.frac());
      }
      OpOptions o = opts(m, "x86");
      o.exact_int = gen.rng() & 1;
      o.rounding.daz = gen.rng() & 1;
      const u32 csr = kMxcsrDefault | mxcsr_rc(m) | (o.rounding.daz ? kDaz : 0);
      u32 st = 0;
      const T x = from_bits<T, U>(static_cast<U>(a));
      const T r = o.exact_int ? hw_round<4, T>(x, csr, &st) : hw_round<12, T>(x, csr, &st);
      mm.check("roundToInt " + mode_name(m) + (o.exact_int ? " exact" : "") +
                   (o.rounding.daz ? " daz" : "") + " (" + hex(a) + ")",
               OracleResult{bits_of<T, U>(r), mxcsr_flags(st)}, op1(Op::round_to_int, F, a, o));
      ++total;
    }
  }
  mm.expect_none(F.name + " roundToInt", total);
}
}  // namespace

TEST(ArithX86, Comparisons) {
  FPC_REQUIRE_CPU("avx");
  check_x86_compare<float, u32>(fmt("f32"), 8, 23, 0xC0A1);
  check_x86_compare<double, u64>(fmt("f64"), 11, 52, 0xC0A2);
}

TEST(ArithX86, RoundToInt) {
  FPC_REQUIRE_CPU("sse4.1");
  check_x86_round_to_int<float, u32>(fmt("f32"), 8, 23, 0x2017);
  check_x86_round_to_int<double, u64>(fmt("f64"), 11, 52, 0x2018);
}

// A few x86 facts the random sweeps rely on, pinned as single cases.
TEST(ArithX86, Facts) {
  FPC_REQUIRE_CPU("fma");
  const Format F = fmt("f32");
  u32 st = 0;
  // FTZ flushes an exact subnormal result too (2^-126 * 0.5), raising underflow and inexact.
  float r = hw_mul_s(u2f(0x00800000), 0.5f, kMxcsrDefault | kFtz, &st);
  EXPECT_EQ(f2u(r), 0u);
  EXPECT_EQ(mxcsr_flags(st), UF | IX);
  OpOptions o = opts(M::rne, "x86");
  o.rounding.ftz = true;
  EXPECT_EQ(op2(Op::mul, F, 0x00800000, 0x3F000000, o), R(0, UF | IX));
  // FTZ decides tininess after rounding: 2^-126 (1 - 2^-46) rounds to 2^-126 at 24 bits.
  r = hw_mul_s(u2f(0x3F000001), u2f(0x00FFFFFE), kMxcsrDefault | kFtz, &st);
  EXPECT_EQ(f2u(r), 0x00800000u);
  EXPECT_EQ(mxcsr_flags(st), IX);
  EXPECT_EQ(op2(Op::mul, F, 0x3F000001, 0x00FFFFFE, o), R(0x00800000, IX));
  // fma(0, inf, qNaN): no invalid on x86; the qNaN comes back.
  r = hw_fma_s(0.0f, INFINITY, u2f(0x7FC00003), kMxcsrDefault, &st);
  EXPECT_EQ(f2u(r), 0x7FC00003u);
  EXPECT_EQ(mxcsr_flags(st), 0);
  EXPECT_EQ(op3(Op::mul_add, F, 0, 0x7F800000, 0x7FC00003, opts(M::rne, "x86")), R(0x7FC00003, 0));
  // NaN order of fma: a, then b, then c.
  r = hw_fma_s(u2f(0x7FC00001), u2f(0x7FC00002), u2f(0x7FC00003), kMxcsrDefault, &st);
  EXPECT_EQ(f2u(r), 0x7FC00001u);
  r = hw_fma_s(1.0f, u2f(0x7F800002), u2f(0x7FC00003), kMxcsrDefault, &st);
  EXPECT_EQ(f2u(r), 0x7FC00002u);
  EXPECT_EQ(mxcsr_flags(st), INV);
  EXPECT_EQ(op3(Op::mul_add, F, 0x3F800000, 0x7F800002, 0x7FC00003, opts(M::rne, "x86")),
            R(0x7FC00002, INV));
}

// ---- 2. f16 through F16C ----------------------------------------------------------------
//
// f16 operands are exact in f32; the f32 instruction rounds once to 24 bits, vcvtps2ph rounds
// again to 11. No f32 result here is subnormal or overflows (f16 magnitudes lie in
// [2^-24, 65504], so products, quotients and sums stay within [2^-49, 2^33]), so both
// roundings act on unbounded-exponent significands plus the f16 grid.
//  - rne: double rounding is innocuous for +, -, *, /, sqrt when p' >= 2p + 2 (Figueroa,
//    "When is double rounding innocuous?", 1995): 24 >= 2 * 11 + 2.
//  - rtz, up, down: directed rounding composes. Every f16 value is an f32 value; for up,
//    RU32(x) is the least f32 value >= x, and since no f16 value lies in [x, RU32(x)) (it
//    would be an f32 value >= x below RU32(x)), RU16(RU32(x)) = RU16(x). Likewise for down
//    and toward zero (mirror images).
// The flags agree as well: inexact (some step inexact iff the f16 result differs from x, as
// f16 values are f32 values), overflow and after-rounding tininess (decided by the same
// 11-bit roundings of the f32 value, which round like x by the arguments above).
TEST(ArithF16, AgainstF16c) {
  FPC_REQUIRE_CPU("f16c");
  const Format H = fmt("f16");
  struct HOp {
    Op op;
    std::uint16_t (*fn)(std::uint16_t, std::uint16_t, u32, u32*);
    const char* name;
  };
  const HOp ops[] = {{Op::add, hw_add_h, "add"},
                     {Op::sub, hw_sub_h, "sub"},
                     {Op::mul, hw_mul_h, "mul"},
                     {Op::div, hw_div_h, "div"},
                     {Op::sqrt, hw_sqrt_h, "sqrt"}};
  OperandGen gen(0xF16, 5, 10);
  for (const HOp& h : ops) {
    Mismatches mm;
    int total = 0;
    for (M m : kIeeeModes) {
      // sqrt: every f16 code; the binary ops: 40k pairs (a running through the codes two at
      // a time against random b, then the weighted generator).
      const int n = h.op == Op::sqrt ? 65536 : 40000;
      for (int i = 0; i < n; ++i) {
        u64 a, b = 0;
        if (h.op == Op::sqrt) {
          a = static_cast<u64>(i);
        } else if (i < 32768) {
          a = static_cast<u64>(i * 2 + (gen.rng() & 1));
          b = gen.below(4) == 0 ? gen.near(a) : gen.rng() & 0xFFFF;
        } else {
          a = gen.any();
          b = gen.below(3) == 0 ? gen.near(a) : gen.any();
        }
        u32 st = 0;
        const std::uint16_t r = h.fn(static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(b),
                                     kMxcsrDefault | mxcsr_rc(m), &st);
        mm.check(std::string(h.name) + " " + mode_name(m) + " (" + hex(a) + ", " + hex(b) + ")",
                 OracleResult{r, mxcsr_flags(st)}, op2(h.op, H, a, b, opts(m, "x86")));
        ++total;
      }
    }
    mm.expect_none(std::string("f16 ") + h.name, total);
  }
}

// ---- 3. cases by hand ---------------------------------------------------------------------

// e2m1 (OCP MX FP4): 1 sign, 2 exponent, 1 fraction bit, bias 1, no inf, no NaN.
// Codes 0..7: 0, 0.5, 1, 1.5, 2, 3, 4, 6; sign 0x8.
TEST(ArithSpec, E2M1) {
  const Format F = fmt("e2m1");
  EXPECT_EQ(op2(Op::add, F, 0x2, 0x1), R(0x3, 0));          // 1 + 0.5 = 1.5
  EXPECT_EQ(op2(Op::add, F, 0x3, 0x3), R(0x5, 0));          // 1.5 + 1.5 = 3
  EXPECT_EQ(op2(Op::add, F, 0x5, 0x3), R(0x6, IX));         // 4.5 -> 4 (nearest)
  EXPECT_EQ(op2(Op::add, F, 0x5, 0x3, opts(M::up)), R(0x7, IX));  // 4.5 up -> 6
  EXPECT_EQ(op2(Op::add, F, 0x6, 0x2), R(0x6, IX));         // 5: tie 4 (0x6 even) | 6
  EXPECT_EQ(op2(Op::add, F, 0x6, 0x2, opts(M::rna)), R(0x7, IX));  // tie away -> 6
  EXPECT_EQ(op2(Op::add, F, 0x6, 0x2, opts(M::odd)), R(0x7, IX));  // 4 (even) -> odd code 6
  // 12 > maxf 6; no inf and no NaN: +-maxf with overflow (SEMANTICS step 6, "F with neither").
  EXPECT_EQ(op2(Op::add, F, 0x7, 0x7), R(0x7, OF | IX));
  EXPECT_EQ(op2(Op::add, F, 0xF, 0xF), R(0xF, OF | IX));
  // 0.25 = 0.5 * 0.5: tie between 0 (even) and 0.5 on the subnormal grid; tiny and inexact.
  EXPECT_EQ(op2(Op::mul, F, 0x1, 0x1), R(0x0, UF | IX));
  EXPECT_EQ(op2(Op::mul, F, 0x1, 0x9), R(0x8, UF | IX));    // -0.25 -> -0
  EXPECT_EQ(op2(Op::mul, F, 0x1, 0x1, opts(M::rna)), R(0x1, UF | IX));
  // 0.75 = 0.5 * 1.5: tie 0.5 (0x1, odd) | 1 (0x2, even) -> 1. After-rounding tininess rounds
  // 0.75 to p = 2 bits with unbounded exponent: exact, 0.75 < 1 = 2^emin -> tiny; inexact.
  EXPECT_EQ(op2(Op::mul, F, 0x1, 0x3), R(0x2, UF | IX));
  // Division: 1 / 0 = inf, which e2m1 lacks and has no NaN either: maxf with overflow.
  EXPECT_EQ(op2(Op::div, F, 0x2, 0x0), R(0x7, DZ | OF | IX));
  EXPECT_EQ(op2(Op::div, F, 0x2, 0x8), R(0xF, DZ | OF | IX));
  EXPECT_EQ(op2(Op::div, F, 0x0, 0x0), R(0x0, INV));        // DN without NaN: +0, invalid
  EXPECT_EQ(op2(Op::div, F, 0x7, 0x6), R(0x3, 0));          // 6 / 4 = 1.5
  EXPECT_EQ(op2(Op::div, F, 0x2, 0x5), R(0x1, UF | IX));    // 1/3 -> 0.5 (0.333 > 0.25)
  EXPECT_EQ(op1(Op::sqrt, F, 0xA), R(0x0, INV));            // sqrt(-1)
  EXPECT_EQ(op1(Op::sqrt, F, 0x4), R(0x3, IX));             // sqrt 2 = 1.414 > 1.25 -> 1.5
  EXPECT_EQ(op1(Op::sqrt, F, 0x5), R(0x3, IX));             // sqrt 3 = 1.732 < 1.75 -> 1.5
  EXPECT_EQ(op1(Op::sqrt, F, 0x5, opts(M::up)), R(0x4, IX));
  EXPECT_EQ(op1(Op::sqrt, F, 0x6), R(0x4, 0));              // sqrt 4 = 2
  EXPECT_EQ(op1(Op::sqrt, F, 0x1), R(0x1, UF | IX));        // sqrt 0.5 = 0.707 < 0.75 -> 0.5
  EXPECT_EQ(op1(Op::sqrt, F, 0x8), R(0x8, 0));              // sqrt(-0) = -0
  // fma: 1.5 * 1.5 - 2 = 0.25 -> +0; -1.5 * 1.5 + 2 = -0.25 -> -0 (sign of the exact result).
  EXPECT_EQ(op3(Op::mul_add, F, 0x3, 0x3, 0xC), R(0x0, UF | IX));
  EXPECT_EQ(op3(Op::mul_add, F, 0xB, 0x3, 0x4), R(0x8, UF | IX));
  EXPECT_EQ(op3(Op::mul_add, F, 0x3, 0x3, 0x4), R(0x6, IX));  // 4.25 -> 4
  // Exact zeros: x - x = +0, -0 under down.
  EXPECT_EQ(op2(Op::sub, F, 0x5, 0x5), R(0x0, 0));
  EXPECT_EQ(op2(Op::sub, F, 0x5, 0x5, opts(M::down)), R(0x8, 0));
  // roundToInt: 1.5 -> 2; 0.5 -> 0 (rne), 1 (rna); -0.5 -> -0; down -0.5 -> -1.
  EXPECT_EQ(op1(Op::round_to_int, F, 0x3), R(0x4, IX));
  EXPECT_EQ(op1(Op::round_to_int, F, 0x1), R(0x0, IX));
  EXPECT_EQ(op1(Op::round_to_int, F, 0x9), R(0x8, IX));
  EXPECT_EQ(op1(Op::round_to_int, F, 0x1, opts(M::rna)), R(0x2, IX));
  EXPECT_EQ(op1(Op::round_to_int, F, 0x9, opts(M::down)), R(0xA, IX));
  EXPECT_EQ(op1(Op::round_to_int, F, 0x7), R(0x7, 0));
}

// OCP e4m3 (fn): bias 7, maxf 448 = 0x7E, NaN 0x7F / 0xFF, no inf; quantum 32 above 256.
TEST(ArithSpec, E4M3) {
  const Format F = fmt("e4m3");
  // 448 + 16 = 464: tie 448 (0x7E, even) | 480 -> 448.
  EXPECT_EQ(op2(Op::add, F, 0x7E, 0x50), R(0x7E, IX));  // 0x50 = 2^(10-7) = 8: 456 -> 448
  EXPECT_EQ(op2(Op::add, F, 0x7E, 0x58), R(0x7E, IX));  // 0x58 = 2^4 = 16: the tie 464
  // 448 + 18 = 466 > 464 -> 480 > maxf: rne overflows away -> NaN (no inf), sign kept.
  EXPECT_EQ(op2(Op::add, F, 0x7E, 0x59), R(0x7F, OF | IX));  // 0x59 = 18
  EXPECT_EQ(op2(Op::add, F, 0xFE, 0xD9), R(0xFF, OF | IX));
  OpOptions sat = opts();
  sat.rounding.sat = S::finite;
  EXPECT_EQ(op2(Op::add, F, 0x7E, 0x59, sat), R(0x7E, OF | IX));
  EXPECT_EQ(op2(Op::mul, F, 0x7E, 0x40, opts(M::rtz)), R(0x7E, OF | IX));  // 896 rtz -> maxf
  // 1 / 0: inf, which e4m3 lacks; it has a NaN: NaN with invalid (and divide-by-zero).
  EXPECT_EQ(op2(Op::div, F, 0x38, 0x00), R(0x7F, DZ | INV));
  EXPECT_EQ(op2(Op::div, F, 0xB8, 0x00), R(0xFF, DZ | INV));
  EXPECT_EQ(op2(Op::div, F, 0x38, 0x00, sat), R(0x7E, DZ | OF | IX));
  // NaN operands: every e4m3 NaN is quiet; propagate keeps the sign.
  EXPECT_EQ(op2(Op::add, F, 0x7F, 0x38), R(0x7F, 0));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0xFF), R(0xFF, 0));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0xFF, opts(M::rne, "nvidia")), R(0x7F, 0));
  EXPECT_EQ(op2(Op::div, F, 0x00, 0x00, opts(M::rne, "x86")), R(0xFF, INV));  // DN negative
  EXPECT_EQ(op2(Op::div, F, 0x00, 0x00), R(0x7F, INV));
  // Subnormals: min 2^-9 (0x01). 2^-9 * 0.5 = 2^-10: tie 0 (even) | 2^-9 -> +0, underflow.
  EXPECT_EQ(op2(Op::mul, F, 0x01, 0x30), R(0x00, UF | IX));  // 0x30 = 2^(6-7) = 0.5
  EXPECT_EQ(op2(Op::mul, F, 0x03, 0x30), R(0x02, UF | IX));  // 1.5 * 2^-9: tie 1|2 -> 2 (even)
  EXPECT_EQ(op2(Op::mul, F, 0x02, 0x30), R(0x01, 0));        // exact subnormal: no flag
  // roundToInt: 1.125 (0x39) -> 1; 448 stays.
  EXPECT_EQ(op1(Op::round_to_int, F, 0x39), R(0x38, IX));
  EXPECT_EQ(op1(Op::round_to_int, F, 0x7E), R(0x7E, 0));
  EXPECT_EQ(op1(Op::round_to_int, F, 0x7F), R(0x7F, 0));
}

// e4m3fnuz: bias 8, maxf 240 (0x7F), the code 0x80 is the NaN, no -0, no inf.
TEST(ArithSpec, E4M3Fnuz) {
  const Format F = fmt("e4m3fnuz");
  EXPECT_EQ(op2(Op::sub, F, 0x40, 0x40, opts(M::down)), R(0x00, 0));  // -0 does not exist
  EXPECT_EQ(op2(Op::mul, F, 0xC0, 0x00), R(0x00, 0));                 // -1 * 0 = -0 -> +0
  EXPECT_EQ(op2(Op::div, F, 0x00, 0x00), R(0x80, INV));
  EXPECT_EQ(op2(Op::div, F, 0x00, 0x00, opts(M::rne, "x86")), R(0x80, INV));
  // 240 + 16 = 256 > maxf (quantum 16 in [128, 256)): NaN, overflow.
  EXPECT_EQ(op2(Op::add, F, 0x7F, 0x60), R(0x80, OF | IX));  // 0x60 = 2^(12-8) = 16
  EXPECT_EQ(op2(Op::add, F, 0x80, 0x40), R(0x80, 0));        // NaN operand (quiet)
  EXPECT_EQ(op1(Op::sqrt, F, 0xC0), R(0x80, INV));           // sqrt(-1)
  EXPECT_EQ(op2(Op::lt, F, 0x80, 0x00), R(0, INV));
  EXPECT_EQ(op2(Op::eq, F, 0x80, 0x80), R(0, 0));
  // A tiny negative result that rounds to zero: +0 (no -0 here).
  EXPECT_EQ(op2(Op::mul, F, 0x81, 0x40), R(0x81, 0));        // -2^-10 * 1 exact
  EXPECT_EQ(op2(Op::mul, F, 0x81, 0x38), R(0x00, UF | IX));  // -2^-10 * 0.5: tie -> 0 -> +0
}

// ue8m0 (OCP MX scale): unsigned, 8 exponent bits, no fraction, bias 127, no zero, no
// subnormals, NaN 0xFF. Code E is 2^(E - 127).
TEST(ArithSpec, UE8M0) {
  const Format F = fmt("ue8m0");
  EXPECT_EQ(op2(Op::mul, F, 0x80, 0x81), R(0x82, 0));   // 2 * 4 = 8
  EXPECT_EQ(op2(Op::add, F, 0x7F, 0x7F), R(0x80, 0));   // 1 + 1 = 2
  // 1 + 2 = 3: tie 2 | 4; "even" is the exponent field's last bit: 2 is E = 128 (even).
  EXPECT_EQ(op2(Op::add, F, 0x7F, 0x80), R(0x80, IX));
  EXPECT_EQ(op2(Op::add, F, 0x7F, 0x80, opts(M::rna)), R(0x81, IX));
  EXPECT_EQ(op2(Op::add, F, 0x80, 0x81), R(0x82, IX));  // 6: tie 4 (E 129) | 8 (E 130) -> 8
  // 1 - 1 = 0: a zero result in a format without zero is minpos (2^-127, code 0) with
  // underflow|inexact (conversion rules, step 4).
  EXPECT_EQ(op2(Op::sub, F, 0x7F, 0x7F), R(0x00, UF | IX));
  EXPECT_EQ(op2(Op::sub, F, 0x7F, 0x80), R(0xFF, INV));  // -1: negative into unsigned
  EXPECT_EQ(op2(Op::div, F, 0x7F, 0x80), R(0x7E, 0));   // 1/2
  EXPECT_EQ(op1(Op::sqrt, F, 0x81), R(0x80, 0));        // sqrt 4 = 2
  EXPECT_EQ(op1(Op::sqrt, F, 0x80), R(0x7F, IX));       // sqrt 2 = 1.41 -> 1 (grid 1 in [1,2))
  EXPECT_EQ(op2(Op::mul, F, 0xFE, 0x80), R(0xFF, OF | IX));  // 2^128: NaN (no inf)
  OpOptions sat = opts();
  sat.rounding.sat = S::finite;
  EXPECT_EQ(op2(Op::mul, F, 0xFE, 0x80, sat), R(0xFE, OF | IX));
  // 2^-127 * 2^-1: below minpos, tie 0 | 2^-127: "zero" result -> minpos with underflow.
  EXPECT_EQ(op2(Op::mul, F, 0x00, 0x7E), R(0x00, UF | IX));
  EXPECT_EQ(op2(Op::add, F, 0xFF, 0x7F), R(0xFF, 0));
}

// Signs of zero (IEEE 754-2019 6.3) in f32.
TEST(ArithSpec, SignOfZero) {
  const Format F = fmt("f32");
  const u64 P0 = 0, N0 = 0x80000000, ONE = 0x3F800000, MONE = 0xBF800000;
  EXPECT_EQ(op2(Op::add, F, P0, N0), R(P0, 0));
  EXPECT_EQ(op2(Op::add, F, P0, N0, opts(M::down)), R(N0, 0));
  EXPECT_EQ(op2(Op::add, F, N0, N0), R(N0, 0));
  EXPECT_EQ(op2(Op::add, F, N0, N0, opts(M::up)), R(N0, 0));
  EXPECT_EQ(op2(Op::add, F, ONE, MONE), R(P0, 0));
  EXPECT_EQ(op2(Op::add, F, ONE, MONE, opts(M::down)), R(N0, 0));
  EXPECT_EQ(op2(Op::add, F, ONE, MONE, opts(M::rtz)), R(P0, 0));
  EXPECT_EQ(op2(Op::sub, F, P0, P0), R(P0, 0));
  EXPECT_EQ(op2(Op::sub, F, P0, P0, opts(M::down)), R(N0, 0));
  EXPECT_EQ(op2(Op::sub, F, N0, P0), R(N0, 0));
  EXPECT_EQ(op2(Op::sub, F, ONE, ONE, opts(M::down)), R(N0, 0));
  EXPECT_EQ(op2(Op::mul, F, N0, 0x40A00000), R(N0, 0));
  EXPECT_EQ(op2(Op::mul, F, N0, MONE), R(P0, 0));
  EXPECT_EQ(op2(Op::div, F, N0, 0x40A00000), R(N0, 0));
  EXPECT_EQ(op2(Op::div, F, 0x40A00000, 0xFF800000), R(N0, 0));  // 5 / -inf
  EXPECT_EQ(op1(Op::sqrt, F, N0), R(N0, 0));
  // mulAdd: the product's sign (xor) against c's.
  EXPECT_EQ(op3(Op::mul_add, F, P0, MONE, P0), R(P0, 0));
  EXPECT_EQ(op3(Op::mul_add, F, P0, MONE, P0, opts(M::down)), R(N0, 0));
  EXPECT_EQ(op3(Op::mul_add, F, N0, ONE, N0), R(N0, 0));
  EXPECT_EQ(op3(Op::mul_add, F, N0, MONE, N0), R(P0, 0));
  EXPECT_EQ(op3(Op::mul_add, F, ONE, ONE, MONE), R(P0, 0));
  EXPECT_EQ(op3(Op::mul_add, F, ONE, ONE, MONE, opts(M::down)), R(N0, 0));
  // A product that is tiny but not zero decides the sign: 2^-149 * 2^-149 + (-0) = 2^-298.
  EXPECT_EQ(op3(Op::mul_add, F, 1, 1, N0), R(P0, UF | IX));
  EXPECT_EQ(op3(Op::mul_add, F, 1, 0x80000001, P0), R(N0, UF | IX));
  EXPECT_EQ(op3(Op::mul_add, F, 1, 1, N0, opts(M::up)), R(1, UF | IX));
  // DAZ: subnormal operands read as zeros of their sign.
  OpOptions daz = opts();
  daz.rounding.daz = true;
  EXPECT_EQ(op2(Op::add, F, 0x00000001, N0, daz), R(P0, 0));
  EXPECT_EQ(op2(Op::add, F, 0x80000001, N0, daz), R(N0, 0));
  daz.rounding.mode = M::down;
  EXPECT_EQ(op2(Op::add, F, 0x00000001, N0, daz), R(N0, 0));
  // FTZ does not touch an exact zero; it flushes an exact subnormal result.
  OpOptions ftz = opts();
  ftz.rounding.ftz = true;
  EXPECT_EQ(op2(Op::sub, F, ONE, ONE, ftz), R(P0, 0));
  EXPECT_EQ(op2(Op::mul, F, 0x80800000, 0x3F000000, ftz), R(N0, UF | IX));  // -2^-127
  // Tininess before rounding: 2^-126 (1 - 2^-46) rounds to 2^-126 but is tiny before.
  OpOptions before = opts();
  before.rounding.tininess = Tininess::before_rounding;
  EXPECT_EQ(op2(Op::mul, F, 0x3F000001, 0x00FFFFFE, before), R(0x00800000, UF | IX));
  before.rounding.ftz = true;
  EXPECT_EQ(op2(Op::mul, F, 0x3F000001, 0x00FFFFFE, before), R(P0, UF | IX));
}

// Infinities and invalid operations (IEEE 754-2019 7.2, 7.3) in f32.
TEST(ArithSpec, InfinitiesAndInvalid) {
  const Format F = fmt("f32");
  const u64 INF = 0x7F800000, NINF = 0xFF800000, ONE = 0x3F800000, DN = 0x7FC00000;
  EXPECT_EQ(op2(Op::add, F, INF, NINF), R(DN, INV));
  EXPECT_EQ(op2(Op::sub, F, INF, INF), R(DN, INV));
  EXPECT_EQ(op2(Op::add, F, INF, INF), R(INF, 0));
  EXPECT_EQ(op2(Op::sub, F, ONE, INF), R(NINF, 0));
  EXPECT_EQ(op2(Op::mul, F, 0, NINF), R(DN, INV));
  EXPECT_EQ(op2(Op::mul, F, NINF, 0x80000001), R(INF, 0));
  EXPECT_EQ(op2(Op::div, F, 0, 0x80000000), R(DN, INV));
  EXPECT_EQ(op2(Op::div, F, INF, NINF), R(DN, INV));
  EXPECT_EQ(op2(Op::div, F, ONE, 0x80000000), R(NINF, DZ));
  EXPECT_EQ(op2(Op::div, F, 0x00000001, 0), R(INF, DZ));
  EXPECT_EQ(op2(Op::div, F, INF, 0), R(INF, 0));         // inf / 0: no divide-by-zero
  EXPECT_EQ(op2(Op::div, F, NINF, ONE), R(NINF, 0));
  EXPECT_EQ(op1(Op::sqrt, F, NINF), R(DN, INV));
  EXPECT_EQ(op1(Op::sqrt, F, 0x80000001), R(DN, INV));
  EXPECT_EQ(op1(Op::sqrt, F, INF), R(INF, 0));
  EXPECT_EQ(op3(Op::mul_add, F, INF, ONE, NINF), R(DN, INV));
  EXPECT_EQ(op3(Op::mul_add, F, INF, 0xBF800000, NINF), R(NINF, 0));
  EXPECT_EQ(op3(Op::mul_add, F, 0, INF, ONE), R(DN, INV));
  EXPECT_EQ(op3(Op::mul_add, F, ONE, ONE, INF), R(INF, 0));
  // Overflow: maxf + maxf; rtz keeps maxf; the e5m2 divide-by-zero gives its infinity.
  EXPECT_EQ(op2(Op::add, F, 0x7F7FFFFF, 0x7F7FFFFF), R(INF, OF | IX));
  EXPECT_EQ(op2(Op::add, F, 0x7F7FFFFF, 0x7F7FFFFF, opts(M::rtz)), R(0x7F7FFFFF, OF | IX));
  EXPECT_EQ(op2(Op::div, fmt("e5m2"), 0x3C, 0x00), R(0x7C, DZ));
  // SEMANTICS.md step 3 rounds an infinite result "like any infinity": with sat = finite the
  // conversion rules turn it into maxf with overflow|inexact, even in f32.
  OpOptions sat = opts();
  sat.rounding.sat = S::finite;
  EXPECT_EQ(op2(Op::add, F, INF, ONE, sat), R(0x7F7FFFFF, OF | IX));
  EXPECT_EQ(op2(Op::div, F, ONE, 0, sat), R(0x7F7FFFFF, DZ | OF | IX));
  sat.rounding.sat = S::propagate;
  EXPECT_EQ(op2(Op::add, F, INF, ONE, sat), R(INF, 0));
  EXPECT_EQ(op2(Op::add, F, 0x7F7FFFFF, 0x7F7FFFFF, sat), R(0x7F7FFFFF, OF | IX));
}

// The NaN policies (SEMANTICS.md table).
TEST(ArithSpec, NanPolicies) {
  const Format F = fmt("f32"), H = fmt("f16"), B = fmt("bf16");
  const u64 ONE = 0x3F800000, INF = 0x7F800000;
  const u64 QA = 0x7FC00001, QB = 0xFFC00002, QC = 0x7FC00005, SA = 0xFF800011;
  // Default NaNs of an invalid operation.
  EXPECT_EQ(op2(Op::div, F, 0, 0, opts(M::rne, "ieee")), R(0x7FC00000, INV));
  EXPECT_EQ(op2(Op::div, F, 0, 0, opts(M::rne, "x86")), R(0xFFC00000, INV));
  EXPECT_EQ(op2(Op::div, F, 0, 0, opts(M::rne, "arm-default-nan")), R(0x7FC00000, INV));
  EXPECT_EQ(op2(Op::div, F, 0, 0, opts(M::rne, "riscv")), R(0x7FC00000, INV));
  EXPECT_EQ(op2(Op::div, F, 0, 0, opts(M::rne, "nvidia")), R(0x7FFFFFFF, INV));
  EXPECT_EQ(op2(Op::div, H, 0, 0, opts(M::rne, "nvidia")), R(0x7FFF, INV));
  EXPECT_EQ(op2(Op::div, B, 0, 0, opts(M::rne, "nvidia")), R(0x7FFF, INV));
  EXPECT_EQ(op2(Op::div, H, 0, 0, opts(M::rne, "x86")), R(0xFE00, INV));
  // The default (nullptr) policy is ieee.
  OpOptions none;
  EXPECT_EQ(op2(Op::div, F, 0, 0, none), R(0x7FC00000, INV));
  EXPECT_EQ(op2(Op::add, F, ONE, QB, none), R(QB, 0));
  // NaN operands: propagate the first, quieted, sign and payload kept; else the default NaN.
  EXPECT_EQ(op2(Op::add, F, QA, QB), R(QA, 0));
  EXPECT_EQ(op2(Op::add, F, ONE, QB), R(QB, 0));
  EXPECT_EQ(op2(Op::add, F, SA, QB), R(0xFFC00011, INV));
  EXPECT_EQ(op2(Op::add, F, QA, SA), R(QA, INV));  // a signaling b raises invalid, a returns
  EXPECT_EQ(op2(Op::add, F, QB, ONE, opts(M::rne, "x86")), R(QB, 0));
  EXPECT_EQ(op2(Op::add, F, QB, ONE, opts(M::rne, "riscv")), R(0x7FC00000, 0));
  EXPECT_EQ(op2(Op::add, F, QB, ONE, opts(M::rne, "arm-default-nan")), R(0x7FC00000, 0));
  EXPECT_EQ(op2(Op::add, F, QB, ONE, opts(M::rne, "nvidia")), R(0x7FFFFFFF, 0));
  EXPECT_EQ(op2(Op::add, F, SA, ONE, opts(M::rne, "nvidia")), R(0x7FFFFFFF, INV));
  // sub keeps a NaN b's sign (no negation).
  EXPECT_EQ(op2(Op::sub, F, ONE, QB), R(QB, 0));
  EXPECT_EQ(op2(Op::sub, F, ONE, QA), R(QA, 0));
  // f16: the payload below the quiet bit stays; the quiet bit is set (0x7D01 -> 0x7F01).
  EXPECT_EQ(op1(Op::sqrt, H, 0x7D01), R(0x7F01, INV));
  EXPECT_EQ(op1(Op::sqrt, H, 0xFE55), R(0xFE55, 0));
  // fma(0, inf, qNaN): invalid only for arm and riscv; the qNaN under propagate.
  EXPECT_EQ(op3(Op::mul_add, F, 0, INF, QC, opts(M::rne, "ieee")), R(QC, 0));
  EXPECT_EQ(op3(Op::mul_add, F, INF, 0, QC, opts(M::rne, "x86")), R(QC, 0));
  EXPECT_EQ(op3(Op::mul_add, F, 0, INF, QC, opts(M::rne, "arm-default-nan")), R(0x7FC00000, INV));
  EXPECT_EQ(op3(Op::mul_add, F, 0, INF, QC, opts(M::rne, "riscv")), R(0x7FC00000, INV));
  EXPECT_EQ(op3(Op::mul_add, F, 0, INF, QC, opts(M::rne, "nvidia")), R(0x7FFFFFFF, 0));
  // fma(0, inf, sNaN): invalid for everyone (a signaling operand).
  EXPECT_EQ(op3(Op::mul_add, F, 0, INF, 0x7F800005), R(QC, INV));
  EXPECT_EQ(op3(Op::mul_add, F, 0, INF, 0x7F800005, opts(M::rne, "nvidia")), R(0x7FFFFFFF, INV));
  // A NaN among a, b decides before c; any signaling operand raises invalid.
  EXPECT_EQ(op3(Op::mul_add, F, ONE, QB, 0x7F800005), R(QB, INV));
  EXPECT_EQ(op3(Op::mul_add, F, QA, 0, INF), R(QA, 0));
  EXPECT_EQ(op3(Op::mul_add, F, ONE, ONE, QB), R(QB, 0));
}

TEST(ArithSpec, MinMax) {
  const Format F = fmt("f32");
  const u64 P0 = 0, N0 = 0x80000000, ONE = 0x3F800000, THREE = 0x40400000, NINF = 0xFF800000;
  const u64 QA = 0x7FC00001, QB = 0xFFC00002, SA = 0x7F800011;
  EXPECT_EQ(op2(Op::minimum, F, P0, N0), R(N0, 0));
  EXPECT_EQ(op2(Op::minimum, F, N0, P0), R(N0, 0));
  EXPECT_EQ(op2(Op::maximum, F, N0, P0), R(P0, 0));
  EXPECT_EQ(op2(Op::maximum, F, P0, N0), R(P0, 0));
  EXPECT_EQ(op2(Op::minimum_number, F, P0, N0), R(N0, 0));
  EXPECT_EQ(op2(Op::maximum_number, F, N0, P0), R(P0, 0));
  EXPECT_EQ(op2(Op::minimum, F, NINF, ONE), R(NINF, 0));
  EXPECT_EQ(op2(Op::maximum, F, THREE, ONE), R(THREE, 0));
  EXPECT_EQ(op2(Op::minimum, F, THREE, ONE), R(ONE, 0));
  // minimum/maximum: a NaN wins (per policy), invalid only for a signaling one.
  EXPECT_EQ(op2(Op::minimum, F, ONE, QA), R(QA, 0));
  EXPECT_EQ(op2(Op::maximum, F, QB, QA), R(QB, 0));
  EXPECT_EQ(op2(Op::minimum, F, ONE, SA), R(0x7FC00011, INV));
  EXPECT_EQ(op2(Op::minimum, F, ONE, QA, opts(M::rne, "nvidia")), R(0x7FFFFFFF, 0));
  // minimumNumber/maximumNumber: a number wins over a NaN (invalid if it was signaling).
  EXPECT_EQ(op2(Op::minimum_number, F, ONE, QA), R(ONE, 0));
  EXPECT_EQ(op2(Op::maximum_number, F, QB, THREE), R(THREE, 0));
  EXPECT_EQ(op2(Op::minimum_number, F, ONE, SA), R(ONE, INV));
  EXPECT_EQ(op2(Op::minimum_number, F, QA, QB), R(QA, 0));
  EXPECT_EQ(op2(Op::maximum_number, F, SA, QB), R(0x7FC00011, INV));
  EXPECT_EQ(op2(Op::maximum_number, F, QA, QB, opts(M::rne, "riscv")), R(0x7FC00000, 0));
  // DAZ: a subnormal returns as the zero of its sign; without DAZ as itself. FTZ: no effect.
  OpOptions daz = opts();
  daz.rounding.daz = true;
  EXPECT_EQ(op2(Op::minimum, F, 0x00000001, N0, daz), R(N0, 0));
  EXPECT_EQ(op2(Op::maximum, F, 0x00000001, N0, daz), R(P0, 0));
  EXPECT_EQ(op2(Op::maximum, F, 0x80000005, N0, daz), R(N0, 0));
  EXPECT_EQ(op2(Op::maximum, F, 0x00000001, N0), R(0x00000001, 0));
  OpOptions ftz = opts();
  ftz.rounding.ftz = true;
  EXPECT_EQ(op2(Op::minimum, F, 0x00000001, ONE, ftz), R(0x00000001, 0));
  // A small format: e4m3 (NaN 0x7F), e2m1 (no NaN).
  EXPECT_EQ(op2(Op::maximum, fmt("e4m3"), 0x7F, 0x38), R(0x7F, 0));
  EXPECT_EQ(op2(Op::maximum_number, fmt("e4m3"), 0x7F, 0xB8), R(0xB8, 0));
  EXPECT_EQ(op2(Op::minimum, fmt("e2m1"), 0x8, 0x0), R(0x8, 0));
}

TEST(ArithSpec, Comparisons) {
  const Format F = fmt("f32");
  const u64 P0 = 0, N0 = 0x80000000, ONE = 0x3F800000, INF = 0x7F800000, NINF = 0xFF800000;
  const u64 Q = 0x7FC00001, SN = 0x7F800001;
  // With a NaN: all false; invalid for le, lt, eq_signaling always, for the quiet ones only
  // with a signaling NaN.
  EXPECT_EQ(op2(Op::eq, F, Q, ONE), R(0, 0));
  EXPECT_EQ(op2(Op::eq, F, SN, ONE), R(0, INV));
  EXPECT_EQ(op2(Op::eq, F, Q, Q), R(0, 0));
  EXPECT_EQ(op2(Op::eq_signaling, F, Q, ONE), R(0, INV));
  EXPECT_EQ(op2(Op::le, F, ONE, Q), R(0, INV));
  EXPECT_EQ(op2(Op::lt, F, Q, ONE), R(0, INV));
  EXPECT_EQ(op2(Op::le_quiet, F, Q, ONE), R(0, 0));
  EXPECT_EQ(op2(Op::le_quiet, F, ONE, SN), R(0, INV));
  EXPECT_EQ(op2(Op::lt_quiet, F, Q, ONE), R(0, 0));
  EXPECT_EQ(op2(Op::lt_quiet, F, SN, ONE), R(0, INV));
  // -0 = +0.
  EXPECT_EQ(op2(Op::eq, F, P0, N0), R(1, 0));
  EXPECT_EQ(op2(Op::le, F, P0, N0), R(1, 0));
  EXPECT_EQ(op2(Op::lt, F, N0, P0), R(0, 0));
  EXPECT_EQ(op2(Op::lt, F, NINF, INF), R(1, 0));
  EXPECT_EQ(op2(Op::le, F, ONE, ONE), R(1, 0));
  EXPECT_EQ(op2(Op::lt, F, ONE, ONE), R(0, 0));
  EXPECT_EQ(op2(Op::eq_signaling, F, INF, INF), R(1, 0));
  // DAZ.
  OpOptions daz = opts();
  daz.rounding.daz = true;
  EXPECT_EQ(op2(Op::eq, F, 0x00000001, N0, daz), R(1, 0));
  EXPECT_EQ(op2(Op::eq, F, 0x00000001, N0), R(0, 0));
  EXPECT_EQ(op2(Op::lt, F, N0, 0x00000001), R(1, 0));
  // e4m3: its NaN is quiet.
  EXPECT_EQ(op2(Op::eq, fmt("e4m3"), 0x7F, 0x7F), R(0, 0));
  EXPECT_EQ(op2(Op::le, fmt("e4m3"), 0x7F, 0x7F), R(0, INV));
}

TEST(ArithSpec, RoundToInt) {
  const Format F = fmt("f32");
  const u64 X25 = 0x40200000, NX25 = 0xC0200000, TWO = 0x40000000, THREE = 0x40400000;
  const u64 NTWO = 0xC0000000, NTHREE = 0xC0400000;
  struct Case {
    M m;
    u64 x, want;
  };
  const Case cases[] = {
      {M::rne, X25, TWO},    {M::rna, X25, THREE},   {M::rtz, X25, TWO},    {M::up, X25, THREE},
      {M::down, X25, TWO},   {M::odd, X25, THREE},   {M::rne, NX25, NTWO},  {M::rna, NX25, NTHREE},
      {M::rtz, NX25, NTWO},  {M::up, NX25, NTWO},    {M::down, NX25, NTHREE}, {M::odd, NX25, NTHREE},
      {M::rne, 0x40600000, 0x40800000},  // 3.5 -> 4
      {M::odd, 0x40600000, THREE},       // 3.5 -> 3 (odd)
      {M::odd, 0x40500000, THREE},       // 3.25 -> 3
      {M::odd, 0x40100000, THREE},       // 2.25 -> 3
      {M::rne, 0x3E99999A, 0},           // 0.3 -> +0
      {M::rne, 0xBE99999A, 0x80000000},  // -0.3 -> -0
      {M::up, 0xBE99999A, 0x80000000},   // up -0.3 -> -0
      {M::down, 0x3E99999A, 0},
      {M::up, 0x3E99999A, 0x3F800000},
      {M::odd, 0x3E99999A, 0x3F800000},
      {M::odd, 0xBE99999A, 0xBF800000},
      {M::rne, 0x4A800001, 0x4A800000},  // 4194304.5 -> 4194304 (even)
      {M::rna, 0x4A800001, 0x4A800002},  // -> 4194305
  };
  for (const Case& c : cases) {
    EXPECT_EQ(op1(Op::round_to_int, F, c.x, opts(c.m)), R(c.want, IX)) << mode_name(c.m) << " " << hex(c.x);
    OpOptions quiet = opts(c.m);
    quiet.exact_int = false;
    EXPECT_EQ(op1(Op::round_to_int, F, c.x, quiet), R(c.want, 0)) << mode_name(c.m) << " " << hex(c.x);
  }
  for (M m : {M::rne, M::rna, M::rtz, M::up, M::down, M::odd}) {
    EXPECT_EQ(op1(Op::round_to_int, F, TWO, opts(m)), R(TWO, 0));          // 2.0 exact
    EXPECT_EQ(op1(Op::round_to_int, F, 0x4B000001, opts(m)), R(0x4B000001, 0));  // 2^23 + 1
    EXPECT_EQ(op1(Op::round_to_int, F, 0xFF800000, opts(m)), R(0xFF800000, 0));
    EXPECT_EQ(op1(Op::round_to_int, F, 0x80000000, opts(m)), R(0x80000000, 0));
  }
  EXPECT_EQ(op1(Op::round_to_int, F, 0x7F800001), R(0x7FC00001, INV));
  EXPECT_EQ(op1(Op::round_to_int, F, 0x7F800001, opts(M::rne, "nvidia")), R(0x7FFFFFFF, INV));
  OpOptions daz = opts(M::up);
  daz.rounding.daz = true;
  EXPECT_EQ(op1(Op::round_to_int, F, 0x80000001, daz), R(0x80000000, 0));  // -0, no flag
  EXPECT_EQ(op1(Op::round_to_int, F, 0x00000001, opts(M::up)), R(0x3F800000, IX));
}

// Stochastic modes worked out by hand (SEMANTICS.md conversion step 2). Random bits above n
// are ignored.
TEST(ArithSpec, Stochastic) {
  const Format F = fmt("e4m3");
  auto sr = [](M m, int n, u64 r) {
    OpOptions o = opts(m);
    o.rounding.stochastic_bits = n;
    o.rounding.random = r;
    return o;
  };
  // 1 + 3*2^-6 = 1.046875 (0x38 + 0x14): quantum 1/8 at 1, f = 0.375; n = 2: f*4 = 1.5.
  //  a: RNE(1.5) = 2, away iff 2 + r >= 4; b: away iff 0.375 + (r + 1/2)/4 >= 1 (r >= 2);
  //  c: floor(1.5) + r >= 4 (r = 3); exact: r < 1.5 (r = 0, 1).
  const bool want[4][4] = {{false, false, true, true},    // a
                           {false, false, true, true},    // b
                           {false, false, false, true},   // c
                           {true, true, false, false}};   // exact
  const M modes[4] = {M::stochastic_a, M::stochastic_b, M::stochastic_c, M::stochastic_exact};
  for (int mi = 0; mi < 4; ++mi)
    for (u64 r = 0; r < 4; ++r)
      EXPECT_EQ(op2(Op::add, F, 0x38, 0x14, sr(modes[mi], 2, r | 0xF0)),
                R(want[mi][r] ? 0x39 : 0x38, IX))
          << mode_name(modes[mi]) << " r=" << r;
  // n = 1, f = 0.375: f*2 = 0.75. a: RNE = 1, r = 1 away; b: 0.375 + (r+.5)/2 >= 1 iff r = 1;
  // c: 0 + r >= 2 never; exact: r < 0.75 iff r = 0.
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x14, sr(M::stochastic_a, 1, 1)), R(0x39, IX));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x14, sr(M::stochastic_a, 1, 0)), R(0x38, IX));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x14, sr(M::stochastic_b, 1, 1)), R(0x39, IX));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x14, sr(M::stochastic_c, 1, 1)), R(0x38, IX));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x14, sr(M::stochastic_exact, 1, 0)), R(0x39, IX));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x14, sr(M::stochastic_exact, 1, 1)), R(0x38, IX));
  // f = 0.25 (1 + 2^-5, 0x10 = 2^-5), n = 1: g = 0.5, RNE(0.5) = 0 -> a never away;
  // b: 0.25 + (r + .5)/2 >= 1 iff r = 1.
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x10, sr(M::stochastic_a, 1, 1)), R(0x38, IX));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x10, sr(M::stochastic_b, 1, 1)), R(0x39, IX));
  // f = 0.75 (1 + 3*2^-5, 0x1C), n = 1: g = 1.5, RNE = 2 -> a away even for r = 0.
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x1C, sr(M::stochastic_a, 1, 0)), R(0x39, IX));
  // Overflow: 448 + 16 = 464, f = 0.5; exact, n = 1: away iff r < 1 -> 480 -> NaN.
  EXPECT_EQ(op2(Op::add, F, 0x7E, 0x58, sr(M::stochastic_exact, 1, 0)), R(0x7F, OF | IX));
  EXPECT_EQ(op2(Op::add, F, 0x7E, 0x58, sr(M::stochastic_exact, 1, 1)), R(0x7E, IX));
  // n = 0: a away iff f > 1/2, b iff f >= 1/2, c never, exact iff f > 0.
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x1C, sr(M::stochastic_c, 0, 0)), R(0x38, IX));
  EXPECT_EQ(op2(Op::add, F, 0x38, 0x10, sr(M::stochastic_exact, 0, 0)), R(0x39, IX));

  // f32 1/3: 4/3 = 1.0101...b, 23 fraction bits 0101...010, then f = 0.1010...b = 2/3.
  // Truncated 0x3EAAAAAA, away 0x3EAAAAAB. n = 2: g = 8/3 = 2.67.
  //  exact: r < 2.67 (r <= 2); c: 2 + r >= 4 (r >= 2); a: RNE = 3, r >= 1;
  //  b: 2/3 + (r + .5)/4 >= 1 iff r >= 5/6 (r >= 1).
  const Format G = fmt("f32");
  const u64 ONE = 0x3F800000, THREE = 0x40400000, T = 0x3EAAAAAA, A = 0x3EAAAAAB;
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_exact, 2, 2)), R(A, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_exact, 2, 3)), R(T, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_c, 2, 1)), R(T, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_c, 2, 2)), R(A, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_a, 2, 0)), R(T, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_a, 2, 1)), R(A, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_b, 2, 0)), R(T, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_b, 2, 1)), R(A, IX));
  // n = 64: g = 2^65 / 3 = 12297829382473034410.67 (the quotient's sticky bits matter).
  //  exact: away iff r <= 12297829382473034410; c: r >= 2^64 - 12297829382473034410 =
  //  6148914691236517206; a: RNE(g) = ...411, r >= 6148914691236517205;
  //  b: g + r + 1/2 >= 2^64 iff r >= 6148914691236517204.83, so r >= ...205.
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_exact, 64, 12297829382473034410ull)), R(A, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_exact, 64, 12297829382473034411ull)), R(T, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_c, 64, 6148914691236517206ull)), R(A, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_c, 64, 6148914691236517205ull)), R(T, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_a, 64, 6148914691236517205ull)), R(A, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_a, 64, 6148914691236517204ull)), R(T, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_b, 64, 6148914691236517205ull)), R(A, IX));
  EXPECT_EQ(op2(Op::div, G, ONE, THREE, sr(M::stochastic_b, 64, 6148914691236517204ull)), R(T, IX));
  // The sticky bit: f64 1 / (1 - 2^-50) = 1 + 2^-50 + 2^-100 + 2^-150 + ...; truncated to
  // 53 bits 0x3FF0000000000004, f = (2^-100 + 2^-150 + ...) / 2^-52, so g = f 2^64 =
  // 2^16 + 2^-34 + ...: just above the integer 65536. exact, n = 64: away iff r < g, so
  // r = 65536 goes away (a value truncated 70 bits below the ulp without a sticky bit would
  // read g = 65536 and stay) and r = 65537 stays.
  const Format D = fmt("f64");
  const u64 ONE_D = 0x3FF0000000000000, DEN = 0x3FEFFFFFFFFFFFF8;  // 1 - 2^-50
  EXPECT_EQ(op2(Op::div, D, ONE_D, DEN, sr(M::stochastic_exact, 64, 65536)), R(0x3FF0000000000005, IX));
  EXPECT_EQ(op2(Op::div, D, ONE_D, DEN, sr(M::stochastic_exact, 64, 65537)), R(0x3FF0000000000004, IX));
  // sqrt 2 in f32: floor(sqrt(2) * 2^87) = isqrt(2^175) = 0xB504F3 * 2^64 + 3745269088433831305,
  // so the truncation is 0x3FB504F3 and floor(f 2^64) = 3745269088433831305 (f irrational).
  //  exact: away iff r <= 3745269088433831305; c: r >= 2^64 - that = 14701474985275720311.
  const u64 TWOF = 0x40000000;
  EXPECT_EQ(op1(Op::sqrt, G, TWOF, sr(M::stochastic_exact, 64, 3745269088433831305ull)), R(0x3FB504F4, IX));
  EXPECT_EQ(op1(Op::sqrt, G, TWOF, sr(M::stochastic_exact, 64, 3745269088433831306ull)), R(0x3FB504F3, IX));
  EXPECT_EQ(op1(Op::sqrt, G, TWOF, sr(M::stochastic_c, 64, 14701474985275720311ull)), R(0x3FB504F4, IX));
  EXPECT_EQ(op1(Op::sqrt, G, TWOF, sr(M::stochastic_c, 64, 14701474985275720310ull)), R(0x3FB504F3, IX));
  // roundToInt: 2.25, n = 2, f = 0.25, g = 1: exact r < 1; c, a: r = 3; b: r >= 2.5.
  const u64 X = 0x40100000;  // 2.25
  EXPECT_EQ(op1(Op::round_to_int, G, X, sr(M::stochastic_exact, 2, 0)), R(THREE, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, X, sr(M::stochastic_exact, 2, 1)), R(0x40000000, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, X, sr(M::stochastic_c, 2, 2)), R(0x40000000, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, X, sr(M::stochastic_c, 2, 3)), R(THREE, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, X, sr(M::stochastic_a, 2, 2)), R(0x40000000, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, X, sr(M::stochastic_a, 2, 3)), R(THREE, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, X, sr(M::stochastic_b, 2, 2)), R(0x40000000, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, X, sr(M::stochastic_b, 2, 3)), R(THREE, IX));
  // -2.75, n = 2: f = 0.75, g = 3: exact away iff r < 3.
  EXPECT_EQ(op1(Op::round_to_int, G, 0xC0300000, sr(M::stochastic_exact, 2, 2)), R(0xC0400000, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, 0xC0300000, sr(M::stochastic_exact, 2, 3)), R(0xC0000000, IX));
  // 0.25 with n = 64, exact: away iff r < 2^62.
  EXPECT_EQ(op1(Op::round_to_int, G, 0x3E800000, sr(M::stochastic_exact, 64, (1ull << 62) - 1)), R(ONE, IX));
  EXPECT_EQ(op1(Op::round_to_int, G, 0x3E800000, sr(M::stochastic_exact, 64, 1ull << 62)), R(0, IX));
  // stochastic_bits outside 0..64 is an error.
  EXPECT_THROW(op2(Op::add, F, 0x38, 0x14, sr(M::stochastic_a, 65, 0)), fpconform::Error);
}

TEST(ArithSpec, Errors) {
  EXPECT_THROW(op2(Op::add, fmt("e4m3"), 0x100, 0), fpconform::Error);
  EXPECT_THROW(op2(Op::add, fmt("e4m3"), 0, 0x1FF), fpconform::Error);
  EXPECT_THROW(op1(Op::sqrt, fmt("f16"), 0x10000), fpconform::Error);
  // Operands beyond the arity are ignored.
  EXPECT_EQ(op3(Op::sqrt, fmt("f16"), 0x4400, ~0ull, ~0ull), R(0x4000, 0));
}

// The oracle may be called from several threads at once (per-thread scratch).
TEST(ArithSpec, Threads) {
  const Format F = fmt("f32");
  std::vector<std::thread> ts;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (u32 i = 0; i < 2000; ++i) {
        const u32 a = 0x3F800000 + i * 977 + t;
        const float want = std::sqrt(u2f(a));  // correctly rounded sqrt, rne
        const bool exact = double(want) * double(want) == double(u2f(a));  // 48 bits: exact
        if (op1(Op::sqrt, F, a) != R(f2u(want), exact ? 0 : IX)) ++bad[t];
      }
    });
  for (auto& th : ts) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0);
}

// A caller that narrowed MPFR's exponent range (per thread) gets the same answers, and its
// range back.
TEST(ArithSpec, NarrowedMpfrRange) {
  const mpfr_exp_t lo = mpfr_get_emin(), hi = mpfr_get_emax();
  mpfr_set_emin(-60);
  mpfr_set_emax(60);
  const Format D = fmt("f64");
  // 2^-1074 / 2 = 2^-1075: tie between 0 and 2^-1074 -> +0, underflow; 2^1023 * 2: overflow.
  const OracleResult r1 = op2(Op::div, D, 1, 0x4000000000000000);
  const OracleResult r2 = op2(Op::mul, D, 0x7FE0000000000000, 0x4000000000000000);
  const OracleResult r3 = op3(Op::mul_add, D, 0x7FE0000000000000, 0x4000000000000000, 0xFFF0000000000000);
  const mpfr_exp_t lo2 = mpfr_get_emin(), hi2 = mpfr_get_emax();
  mpfr_set_emin(lo);
  mpfr_set_emax(hi);
  EXPECT_EQ(r1, R(0, UF | IX));
  EXPECT_EQ(r2, R(0x7FF0000000000000, OF | IX));
  EXPECT_EQ(r3, R(0xFFF0000000000000, 0));  // 2^1024 (exact, finite) + (-inf) = -inf
  EXPECT_EQ(lo2, -60);
  EXPECT_EQ(hi2, 60);
}
