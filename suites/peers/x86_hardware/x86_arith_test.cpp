// x86 arithmetic instructions on f16 against emu's apply_op with the x86 NaN policy.
//
//   x86_arith_test avx512fp16 [--exhaustive]
//     AVX512-FP16 VADDPH, VSUBPH, VMULPH, VDIVPH, VSQRTPH, VFMADD231PH with embedded rounding
//     {rn,rd,ru,rz}-sae (32 lanes per instruction) vs emu in rne/down/up/rtz. Results are
//     compared bit for bit (NaN payloads and signs included); with SAE no flags are raised, so
//     flags are not compared. FP16 instructions ignore MXCSR.DAZ/FTZ: emu runs without them.
//     The instructions are written as inline asm with a fixed operand order, so the compiler
//     cannot commute the operands (that would change which NaN propagates). x86's FMA takes
//     the first NaN in the order its formula names the operands, not in register order:
//     VFMADD213PH xmm1, xmm2, xmm3 is xmm2*xmm1 + xmm3 (xmm2's NaN first), VFMADD231PH
//     xmm1, xmm2, xmm3 is xmm2*xmm3 + xmm1. The test runs VFMADD231PH with xmm1 = c, xmm2 = a,
//     xmm3 = b: a*b + c, whose NaN is the first of a, b, c (emu's x86 policy for fma(a, b, c)).
//     (On a Xeon 6/207: fma(0x7C01, 0x7E00, +0) is 0x7E01 in this form, 0x7E00 in the 213
//     form with xmm1 = a.)
//   x86_arith_test f16c-sse [--exhaustive]
//     f16 -> f32 by VCVTPH2PS (exact), the f32 operation (VADDPS, VSUBPS, VMULPS, VDIVPS,
//     VSQRTPS) under MXCSR.RC, and back by VCVTPS2PH with the same rounding in its immediate.
//     Correct for rne by Figueroa's double-rounding theorem (f32's 24 bits >= 2*11 + 2 for
//     +, -, *, /, sqrt), and for rtz/up/down because directed roundings compose: every f16
//     value is an f32 value, so rounding f32's directed result again in the same direction
//     gives the direct directed rounding. No f32 intermediate overflows or underflows
//     (|a*b| <= 2^32, |a/b| <= 2^40, >= 2^-48). No fma: f32's 24 bits do not suffice for it.
//     NaNs: VCVTPH2PS quiets and keeps the payload, VEX VADDPS takes the first NaN source
//     (src1 = a), VCVTPS2PH keeps the payload's top bits: the x86 policy.
//
// Default ("peers"): 2^22 operand tuples per (op, mode): every pair (fma: triple) of 64
// special/boundary codes, then random codes, a quarter of add/sub pairs near cancellation;
// sqrt: all 2^16 inputs. --exhaustive: all 2^32 pairs (fma: the 2^18 special triples and
// random ones up to 2^30). Exit 77 with the reason when the CPU lacks the
// instructions; 1 on any mismatch (the first ones are printed with operands and both results).
// FPCONFORM_THREADS sets the threads (default: all cores); FPCONFORM_SEED the seed (printed).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fpconform/core/splitmix.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/arith.hpp"
#include "fpconform/core/format.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FPC_X86 1
#else
#define FPC_X86 0
#endif

using namespace fpconform;

namespace {

constexpr int kSkip = 77;
using u64 = std::uint64_t;
using u16 = std::uint16_t;

u64 env_u64(const char* name, u64 fallback) {
  if (const char* e = std::getenv(name)) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 0);
    if (end != e) return v;
  }
  return fallback;
}

unsigned threads() { return fpconform::default_thread_count(); }

enum class HwOp { add, sub, mul, div, sqrt, fma };
constexpr const char* kOpName[] = {"add", "sub", "mul", "div", "sqrt", "fma"};
Op emu_op(HwOp o) {
  switch (o) {
    case HwOp::add: return Op::add;
    case HwOp::sub: return Op::sub;
    case HwOp::mul: return Op::mul;
    case HwOp::div: return Op::div;
    case HwOp::sqrt: return Op::sqrt;
    case HwOp::fma: return Op::mul_add;
  }
  return Op::add;
}
int arity(HwOp o) { return o == HwOp::sqrt ? 1 : o == HwOp::fma ? 3 : 2; }

// rounding index: 0 rne, 1 down, 2 up, 3 rtz (the VCVTPS2PH immediate and MXCSR.RC order)
constexpr RoundingMode kModes[4] = {RoundingMode::rne, RoundingMode::down, RoundingMode::up,
                                    RoundingMode::rtz};

// ---- the instructions ----------------------------------------------------------------------------
// Each kernel computes `lanes` results from a[], b[], c[] (u16 codes) into out[].
using Kernel = void (*)(HwOp, int mode, const u16* a, const u16* b, const u16* c, u16* out);

#if FPC_X86
#define FPC_FP16 __attribute__((target("avx512fp16,avx512f,avx512vl,avx512bw")))

template <int M>
FPC_FP16 void fp16_kernel_m(HwOp op, const u16* pa, const u16* pb, const u16* pc, u16* out) {
  __m512i ia = _mm512_loadu_si512(pa), ib = _mm512_loadu_si512(pb), ic = _mm512_loadu_si512(pc);
  __m512h a = _mm512_castsi512_ph(ia), b = _mm512_castsi512_ph(ib), c = _mm512_castsi512_ph(ic);
  __m512h r = a;
#define FPC_RC_0 "%{rn-sae%}"
#define FPC_RC_1 "%{rd-sae%}"
#define FPC_RC_2 "%{ru-sae%}"
#define FPC_RC_3 "%{rz-sae%}"
#define FPC_BIN(insn, RC) asm(insn " " RC ", %2, %1, %0" : "=v"(r) : "v"(a), "v"(b))
#define FPC_ALL(RC)                                                                 \
  switch (op) {                                                                     \
    case HwOp::add: FPC_BIN("vaddph", RC); break;                                   \
    case HwOp::sub: FPC_BIN("vsubph", RC); break;                                   \
    case HwOp::mul: FPC_BIN("vmulph", RC); break;                                   \
    case HwOp::div: FPC_BIN("vdivph", RC); break;                                   \
    case HwOp::sqrt: asm("vsqrtph " RC ", %1, %0" : "=v"(r) : "v"(a)); break;       \
    case HwOp::fma:                                                                 \
      r = c;                                                                        \
      asm("vfmadd231ph " RC ", %2, %1, %0" : "+v"(r) : "v"(a), "v"(b));             \
      break;                                                                        \
  }
  if constexpr (M == 0) { FPC_ALL(FPC_RC_0) }
  else if constexpr (M == 1) { FPC_ALL(FPC_RC_1) }
  else if constexpr (M == 2) { FPC_ALL(FPC_RC_2) }
  else { FPC_ALL(FPC_RC_3) }
  _mm512_storeu_si512(out, _mm512_castph_si512(r));
}

void fp16_kernel(HwOp op, int mode, const u16* a, const u16* b, const u16* c, u16* out) {
  switch (mode) {
    case 0: fp16_kernel_m<0>(op, a, b, c, out); break;
    case 1: fp16_kernel_m<1>(op, a, b, c, out); break;
    case 2: fp16_kernel_m<2>(op, a, b, c, out); break;
    default: fp16_kernel_m<3>(op, a, b, c, out); break;
  }
}

#define FPC_F16C __attribute__((target("f16c,avx")))
// 8 lanes: VCVTPH2PS, the VEX f32 op (fixed operand order, MXCSR.RC), VCVTPS2PH imm.
template <int M>
FPC_F16C void sse_kernel_m(HwOp op, const u16* pa, const u16* pb, u16* out) {
  const __m256 a = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(pa)));
  const __m256 b = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(pb)));
  __m256 r = a;
  switch (op) {
    case HwOp::add: asm("vaddps %2, %1, %0" : "=x"(r) : "x"(a), "x"(b)); break;
    case HwOp::sub: asm("vsubps %2, %1, %0" : "=x"(r) : "x"(a), "x"(b)); break;
    case HwOp::mul: asm("vmulps %2, %1, %0" : "=x"(r) : "x"(a), "x"(b)); break;
    case HwOp::div: asm("vdivps %2, %1, %0" : "=x"(r) : "x"(a), "x"(b)); break;
    case HwOp::sqrt: asm("vsqrtps %1, %0" : "=x"(r) : "x"(a)); break;
    case HwOp::fma: r = a; break;  // not offered
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_cvtps_ph(r, M));
}

void sse_kernel(HwOp op, int mode, const u16* a, const u16* b, const u16*, u16* out) {
  switch (mode) {
    case 0: sse_kernel_m<0>(op, a, b, out); break;
    case 1: sse_kernel_m<1>(op, a, b, out); break;
    case 2: sse_kernel_m<2>(op, a, b, out); break;
    default: sse_kernel_m<3>(op, a, b, out); break;
  }
}
#endif

// ---- operands --------------------------------------------------------------------------------------

// 64 special and boundary f16 codes (both signs): zeros, min/max subnormal, min normal, 1,
// 1 +- ulp, 2^10 and 2^11 (integer boundary), max finite, inf, quiet and signaling NaNs.
std::vector<u16> special_codes() {
  const u16 pos[] = {0x0000, 0x0001, 0x0002, 0x03FF, 0x0400, 0x0401, 0x3BFF, 0x3C00,
                     0x3C01, 0x3E00, 0x6400, 0x6800, 0x7BFF, 0x7C00, 0x7E00, 0x7C01,
                     0x7D55, 0x7FFF, 0x1000, 0x3555, 0x4200, 0x5640, 0x0155, 0x7A00,
                     0x2E66, 0x47FF, 0x4C00, 0x0200, 0x13FF, 0x7800, 0x3800, 0x77FF};
  std::vector<u16> v;
  for (u16 s : {u16{0}, u16{0x8000}})
    for (u16 p : pos) v.push_back(static_cast<u16>(p | s));
  return v;
}

struct Sample {
  HwOp op;
  bool exhaustive;
  u64 seed;
  std::vector<u16> specials = special_codes();
  u64 count() const {
    if (op == HwOp::sqrt) return u64{1} << 16;  // every input, sampled or not
    if (!exhaustive) return u64{1} << 22;
    if (op == HwOp::fma) return u64{1} << 30;
    return u64{1} << 32;
  }
  // Exhaustive: pair i = (a, b) = (i >> 16, i & 0xFFFF). Sampled (and fma): first every pair
  // (triple) of the special codes, then random codes, a quarter of them near cancellation.
  void operands(u64 i, u16& a, u16& b, u16& c) const {
    c = 0;
    if (op == HwOp::sqrt || (exhaustive && op != HwOp::fma)) {
      a = static_cast<u16>(op == HwOp::sqrt ? i : i >> 16);
      b = static_cast<u16>(i);
      return;
    }
    const u64 ns = specials.size();
    const u64 nspecial = op == HwOp::fma ? ns * ns * ns : ns * ns;
    if (i < nspecial) {
      a = specials[i % ns];
      b = specials[(i / ns) % ns];
      if (op == HwOp::fma) c = specials[i / (ns * ns)];
      return;
    }
    const u64 r = splitmix64(seed ^ (i * 0x9E3779B97F4A7C15ull));
    a = static_cast<u16>(r);
    b = static_cast<u16>(r >> 16);
    c = static_cast<u16>(r >> 32);
    const u16 d = static_cast<u16>(static_cast<int>((r >> 48) & 7) - 3);
    if (((r >> 56) & 3) == 0) {
      if (op == HwOp::add) b = static_cast<u16>((a ^ 0x8000) + d);
      else if (op == HwOp::sub) b = static_cast<u16>(a + d);
    }
  }
};

struct Tally {
  std::atomic<u64> total{0}, bad{0};
  std::mutex mu;
  std::vector<std::string> first;
};

void run(Kernel kernel, int lanes, HwOp op, int mode, const Sample& s, Tally& t) {
  const Format f16 = *find_builtin("f16");
  OpOptions o;
  o.rounding.mode = kModes[mode];
  o.nan = &find_nan_policy("x86");
  const Op eop = emu_op(op);
  const u64 n = s.count();
  const u64 chunk = 1u << 14;  // multiple of the lane count
  const u64 nchunks = (n + chunk - 1) / chunk;
  std::atomic<u64> next{0};
  auto work = [&] {
    std::vector<u16> a(chunk), b(chunk), c(chunk), hw(chunk);
    u64 total = 0, bad = 0;
    for (;;) {
      const u64 k = next.fetch_add(1);
      if (k >= nchunks) break;
      const u64 lo = k * chunk, cnt = std::min(chunk, n - lo);
      for (u64 j = 0; j < chunk; ++j) s.operands(lo + std::min(j, cnt - 1), a[j], b[j], c[j]);
      for (u64 j = 0; j < chunk; j += static_cast<u64>(lanes))
        kernel(op, mode, &a[j], &b[j], &c[j], &hw[j]);
      for (u64 j = 0; j < cnt; ++j) {
        const u64 ops[3] = {a[j], b[j], c[j]};
        const Rounded e = apply_op(eop, f16, ops, o);
        ++total;
        if (e.bits == hw[j]) continue;
        ++bad;
        std::lock_guard<std::mutex> g(t.mu);
        if (t.first.size() < 10) {
          char buf[160];
          if (arity(op) == 1)
            std::snprintf(buf, sizeof buf, "  %s(0x%04x): hardware 0x%04x, emu 0x%04llx",
                          kOpName[static_cast<int>(op)], a[j], hw[j], (unsigned long long)e.bits);
          else if (arity(op) == 2)
            std::snprintf(buf, sizeof buf, "  %s(0x%04x, 0x%04x): hardware 0x%04x, emu 0x%04llx",
                          kOpName[static_cast<int>(op)], a[j], b[j], hw[j],
                          (unsigned long long)e.bits);
          else
            std::snprintf(buf, sizeof buf,
                          "  %s(0x%04x, 0x%04x, 0x%04x): hardware 0x%04x, emu 0x%04llx",
                          kOpName[static_cast<int>(op)], a[j], b[j], c[j], hw[j],
                          (unsigned long long)e.bits);
          t.first.push_back(buf);
        }
      }
    }
    t.total += total;
    t.bad += bad;
  };
  // MXCSR (rounding control for the f16c-sse path) is per thread: set it in each worker.
  auto worker = [&] {
#if FPC_X86
    const unsigned rc[4] = {0x0000, 0x2000, 0x4000, 0x6000};
    _mm_setcsr(0x1F80 | rc[mode]);
#endif
    work();
#if FPC_X86
    _mm_setcsr(0x1F80);
#endif
  };
  std::vector<std::thread> pool;
  const unsigned nt = threads();
  for (unsigned i = 1; i < nt; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s avx512fp16|f16c-sse [--exhaustive] [--op NAME]\n", argv[0]);
    return 2;
  }
  const std::string which = argv[1];
  bool exhaustive = false;
  std::string only;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--exhaustive") exhaustive = true;
    else if (a == "--op" && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
#if !FPC_X86
  std::printf("SKIPPED: not an x86 machine\n");
  return kSkip;
#else
  Kernel kernel = nullptr;
  int lanes = 0;
  std::vector<HwOp> ops;
  if (which == "avx512fp16") {
    if (!__builtin_cpu_supports("avx512fp16")) {
      std::printf("SKIPPED: this CPU has no AVX512-FP16 (VADDPH ...): "
                  "__builtin_cpu_supports(\"avx512fp16\") is false\n");
      return kSkip;
    }
    kernel = fp16_kernel;
    lanes = 32;
    ops = {HwOp::add, HwOp::sub, HwOp::mul, HwOp::div, HwOp::sqrt, HwOp::fma};
  } else if (which == "f16c-sse") {
    if (!__builtin_cpu_supports("f16c") || !__builtin_cpu_supports("avx")) {
      std::printf("SKIPPED: this CPU has no F16C/AVX (VCVTPH2PS, VCVTPS2PH)\n");
      return kSkip;
    }
    kernel = sse_kernel;
    lanes = 8;
    ops = {HwOp::add, HwOp::sub, HwOp::mul, HwOp::div, HwOp::sqrt};
  } else {
    std::fprintf(stderr, "unknown peer '%s' (avx512fp16, f16c-sse)\n", which.c_str());
    return 2;
  }
  if (!only.empty()) {
    std::vector<HwOp> keep;
    for (HwOp o : ops)
      if (only == kOpName[static_cast<int>(o)]) keep.push_back(o);
    if (keep.empty()) {
      std::fprintf(stderr, "--op: '%s' is not one of this peer's operations\n", only.c_str());
      return 2;
    }
    ops = keep;
  }
  const u64 seed = env_u64("FPCONFORM_SEED", 1);
  std::printf("%s: f16 %s, emu with the x86 NaN policy; seed %llu, %u threads\n", which.c_str(),
              exhaustive ? "exhaustive" : "sampled", (unsigned long long)seed, threads());
  int failures = 0;
  u64 all = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (HwOp op : ops)
    for (int mode = 0; mode < 4; ++mode) {
      const auto t1 = std::chrono::steady_clock::now();
      Sample s{op, exhaustive, seed};
      Tally t;
      run(kernel, lanes, op, mode, s, t);
      const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
      const bool ok = t.bad == 0;
      all += t.total;
      std::printf("%s %s %s: %llu/%llu match (%.1f s)%s\n", which.c_str(),
                  kOpName[static_cast<int>(op)], std::string(to_string(kModes[mode])).c_str(),
                  (unsigned long long)(t.total - t.bad), (unsigned long long)t.total.load(), sec,
                  ok ? "" : "  MISMATCH");
      for (const auto& l : t.first) std::printf("%s\n", l.c_str());
      std::fflush(stdout);
      if (!ok) ++failures;
    }
  std::printf("%llu cases in %.1f s, %d (op, mode) variants with mismatches\n",
              (unsigned long long)all,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
              failures);
  return failures ? 1 : 0;
#endif
}
