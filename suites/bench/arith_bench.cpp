// Throughput of emu's scalar operations on f16 (add, mul, div), of the conformance check
// (emu + the double oracle of reference/double_arith.hpp + compare, as in the
// exhaustive f16 sweeps), and of native baselines over the same operand pairs in the same run:
//   native-f16c   VCVTPH2PS, VADDPS/VMULPS/VDIVPS, VCVTPS2PH (8 lanes; rne), where F16C exists
//   native-fp16   AVX512-FP16 VADDPH/VMULPH/VDIVPH (32 lanes), where the CPU has it
// Rates are operand pairs per CPU-second of one thread (robust on shared machines) and per
// second of wall time on 1 and T threads (default: all cores; FPCONFORM_THREADS), best of 3
// repetitions, over slices of the exhaustive sweep (a few a, every b). The target: all 2^32
// f16 pairs of one binary op checked in <= 60 s on 2 cores, 71.6 M pairs/s.
//
//   build/suites/bench/arith_bench [--pairs N] [--seconds S]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <time.h>

#include "fpconform/core/splitmix.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/arith.hpp"
#include "fpconform/fast_arith.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/reference/double_arith.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FPC_BENCH_X86 1
#else
#define FPC_BENCH_X86 0
#endif

namespace {

using namespace fpconform;
using u64 = std::uint64_t;
using u16 = std::uint16_t;

enum class BOp { add, mul, div };
constexpr const char* kName[] = {"add", "mul", "div"};
Op emu_op(BOp o) { return o == BOp::add ? Op::add : o == BOp::mul ? Op::mul : Op::div; }

// ---- native kernels: n pairs (n a multiple of the lane count) --------------------------------
#if FPC_BENCH_X86
__attribute__((target("f16c,avx"))) void native_f16c(BOp op, const u16* a, const u16* b, u16* out,
                                                     std::size_t n) {
  for (std::size_t i = 0; i < n; i += 8) {
    const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m256 y = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    const __m256 r = op == BOp::add ? _mm256_add_ps(x, y)
                     : op == BOp::mul ? _mm256_mul_ps(x, y)
                                      : _mm256_div_ps(x, y);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(r, 0));
  }
}

__attribute__((target("avx512fp16,avx512f,avx512bw"))) void native_fp16(BOp op, const u16* a,
                                                                         const u16* b, u16* out,
                                                                         std::size_t n) {
  for (std::size_t i = 0; i < n; i += 32) {
    const __m512h x = _mm512_castsi512_ph(_mm512_loadu_si512(a + i));
    const __m512h y = _mm512_castsi512_ph(_mm512_loadu_si512(b + i));
    const __m512h r = op == BOp::add ? _mm512_add_ph(x, y)
                      : op == BOp::mul ? _mm512_mul_ph(x, y)
                                       : _mm512_div_ph(x, y);
    _mm512_storeu_si512(out + i, _mm512_castph_si512(r));
  }
}
#endif

unsigned threads() { return fpconform::default_thread_count(); }

struct Pairs {
  std::vector<u16> a, b;
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Rate {
  double wall = 0;  // pairs per second of wall time, all threads together
  double cpu = 0;   // pairs per CPU-second of one thread (robust on a shared machine)
};

// Runs `body(thread, a, b, out, n)` over the pairs on `nt` threads (each thread its own slice)
// for >= min_seconds, best of 3 repetitions.
Rate rate(const Pairs& p, unsigned nt, double min_seconds,
          const std::function<void(unsigned, const u16*, const u16*, u16*, std::size_t)>& body) {
  const std::size_t n = p.a.size();
  Rate best;
  for (int rep = 0; rep < 3; ++rep) {
    std::atomic<u64> done{0};
    std::vector<double> cpu_rate(nt);
    const auto t0 = std::chrono::steady_clock::now();
    auto worker = [&](unsigned t) {
      std::vector<u16> out(n);
      const std::size_t lo = n * t / nt, hi = n * (t + 1) / nt;
      u64 pairs = 0;
      const double c0 = thread_cpu_seconds();
      do {
        body(t, &p.a[lo], &p.b[lo], &out[lo], hi - lo);
        pairs += hi - lo;
      } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <
               min_seconds);
      cpu_rate[t] = static_cast<double>(pairs) / (thread_cpu_seconds() - c0);
      done += pairs;
      volatile u16 sink = out[lo];
      (void)sink;
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < nt; ++t) pool.emplace_back(worker, t);
    worker(0);
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best.wall = std::max(best.wall, static_cast<double>(done.load()) / s);
    double c = 0;
    for (double r : cpu_rate) c += r / nt;
    best.cpu = std::max(best.cpu, c);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t npairs = 1u << 20;
  double min_seconds = 0.3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--pairs" && i + 1 < argc) npairs = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--seconds" && i + 1 < argc) min_seconds = std::atof(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--pairs N] [--seconds S]\n", argv[0]);
      return 2;
    }
  }
  npairs = (npairs + 65535) / 65536 * 65536;
  const Format f16 = *find_builtin("f16");
  // Slices of the exhaustive sweep: for npairs / 2^16 random a, every b in order (the access
  // pattern of the 2^32-pair sweeps).
  Pairs p;
  p.a.resize(npairs);
  p.b.resize(npairs);
  for (std::size_t i = 0; i < npairs; ++i) {
    p.a[i] = static_cast<u16>(splitmix64(i >> 16));
    p.b[i] = static_cast<u16>(i);
  }
  const unsigned T = threads();
#if FPC_BENCH_X86
  const bool have_f16c = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  const bool have_fp16 = __builtin_cpu_supports("avx512fp16");
#else
  const bool have_f16c = false, have_fp16 = false;
#endif
  std::printf("f16 scalar-op throughput: %zu pairs (%zu values of a, every b: slices of the "
              "2^32 sweep), rne, best of 3 x %.1f s; 1 and %u threads\n",
              npairs, npairs / 65536, min_seconds, T);
  std::printf("native-f16c: %s; native-fp16 (AVX512-FP16): %s\n", have_f16c ? "yes" : "not on this CPU",
              have_fp16 ? "yes" : "not on this CPU");
  std::printf("cpu: pairs per CPU-second of one thread (robust when the cores are shared); "
              "wall: pairs per second of wall time on 1 / %u threads; 2^32@%u: all pairs at "
              "%u x the cpu rate\n\n", T, T, T);
  std::printf("%-5s %-22s %10s %9s %12s %12s %11s\n", "op", "what", "cpu Mp/s", "ns/pair",
              "wall1 Mp/s", "wallT Mp/s", "2^32@T");
  const double target = 4294967296.0 / 60.0;
  for (BOp op : {BOp::add, BOp::mul, BOp::div}) {
    OpOptions o;  // rne, default NaN policy
    const Op eop = emu_op(op);
    struct Row {
      std::string what;
      double cpu, w1, wt;
    };
    std::vector<Row> rows;
    auto measure = [&](const std::string& what, const auto& body) {
      const Rate r1 = rate(p, 1, min_seconds, body);
      const Rate rt = T > 1 ? rate(p, T, min_seconds, body) : r1;
      const double cpu = std::max(r1.cpu, rt.cpu);
      rows.push_back({what, cpu, r1.wall, rt.wall});
      std::printf("%-5s %-22s %10.2f %9.2f %12.2f %12.2f %9.0f s\n", kName[static_cast<int>(op)],
                  what.c_str(), cpu / 1e6, 1e9 / cpu, r1.wall / 1e6, rt.wall / 1e6,
                  4294967296.0 / (cpu * T));
      std::fflush(stdout);
    };
#if FPC_BENCH_X86
    if (have_f16c)
      measure("native-f16c", [&](unsigned, const u16* a, const u16* b, u16* out, std::size_t n) {
        native_f16c(op, a, b, out, n);
      });
    if (have_fp16)
      measure("native-fp16", [&](unsigned, const u16* a, const u16* b, u16* out, std::size_t n) {
        native_fp16(op, a, b, out, n);
      });
#endif
    measure("emu apply_op", [&](unsigned, const u16* a, const u16* b, u16* out, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) {
        const u64 ops[3] = {a[i], b[i], 0};
        out[i] = static_cast<u16>(apply_op(eop, f16, ops, o).bits);
      }
    });
    const SmallFormatOp fast(f16, eop, o);
    measure("emu SmallFormatOp", [&](unsigned, const u16* a, const u16* b, u16* out, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<u16>(fast(a[i], b[i]).bits);
    });
    const dref::Context ctx(f16, o);
    measure("oracle (op_reference)", [&](unsigned, const u16* a, const u16* b, u16* out,
                                         std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) {
        const u64 ops[3] = {a[i], b[i], 0};
        out[i] = static_cast<u16>(ctx.apply(eop, ops).bits);
      }
    });
    std::atomic<u64> fast_mismatches{0};
    measure("check fast vs oracle", [&](unsigned, const u16* a, const u16* b, u16* out,
                                        std::size_t n) {
      u64 bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const u64 ops[3] = {a[i], b[i], 0};
        const Rounded e = fast(a[i], b[i]);
        const dref::Result q = ctx.apply(eop, ops);
        bad += (e.bits != q.bits) | (e.flags.bits != q.flags);
        out[i] = static_cast<u16>(e.bits);
      }
      fast_mismatches += bad;
    });
    std::atomic<u64> mismatches{0};
    measure("check emu vs oracle", [&](unsigned, const u16* a, const u16* b, u16* out,
                                       std::size_t n) {
      u64 bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const u64 ops[3] = {a[i], b[i], 0};
        const Rounded e = apply_op(eop, f16, ops, o);
        const dref::Result q = ctx.apply(eop, ops);
        bad += (e.bits != q.bits) | (e.flags.bits != q.flags);
        out[i] = static_cast<u16>(e.bits);
      }
      mismatches += bad;
    });
    const Row* native = nullptr;
    for (const Row& r : rows)
      if (r.what.rfind("native", 0) == 0) native = &r;  // the last (fastest kind) listed
    auto row = [&](const std::string& what) -> const Row& {
      for (const Row& r : rows)
        if (r.what == what) return r;
      return rows.back();
    };
    const Row& emu = row("emu apply_op");
    const Row& chk = row("check emu vs oracle");
    const Row& fchk = row("check fast vs oracle");
    const double fchk_t = fchk.cpu * T;
    std::printf("      fast path: check on %u cores %.1f M pairs/s = %.1f%% of the target; all 2^32 "
                "pairs in %.0f s (target 60 s); ratio to %s: 1/%.0f; mismatches seen: %llu\n",
                T, fchk_t / 1e6, 100 * fchk_t / target, 4294967296.0 / fchk_t,
                native ? native->what.c_str() : "-", native ? native->cpu / fchk.cpu : 0.0,
                (unsigned long long)fast_mismatches.load());
    if (native)
      std::printf("      ratios to %s (cpu rates): emu 1/%.0f, check 1/%.0f\n",
                  native->what.c_str(), native->cpu / emu.cpu, native->cpu / chk.cpu);
    const double chk_t = chk.cpu * T;
    std::printf("      check on %u cores: %.1f M pairs/s = %.1f%% of the 71.6 M pairs/s target "
                "(%.1fx short); all 2^32 pairs in %.0f s (target 60 s); the target leaves %.1f ns "
                "per pair per core for emu + oracle; mismatches seen: %llu\n\n",
                T, chk_t / 1e6, 100 * chk_t / target, target / chk_t, 4294967296.0 / chk_t,
                1e9 * T / target, (unsigned long long)mismatches.load());
  }
  return 0;
}
