// The exhaustive f16 binary-op sweep: for every pair (a, b) of f16 codes, the emulated op
// (SmallFormatOp, emu's fast path, identical to apply_op) and its check against the
// independent double-arithmetic oracle of reference/ (double_arith.hpp), codes and
// flags compared — what the `exhaustive` CTest sweeps do. Threads take rows (one a, all 65536 b);
// both sides run in their row forms (SmallFormatOp::row, dref::Context::apply_row: the same
// results as their pair-by-pair calls, with the per-pair dispatch and decoding of a hoisted).
// Full run: all 2^32 pairs. --quick: 1024 rows spread over the code space (specials included),
// and the time for 2^32 pairs extrapolated from them (labelled so in the line's name).
// The figure is the sweep's CPU seconds divided by the thread count: its duration on that many
// cores of its own (the wall time on the shared machine is in a note). The baseline is the CPU's
// native f16 instruction giving the same per pair (code and flags), timed the same way
// (native_f16.hpp: vaddsh / vmulsh, or F16C and f32 arithmetic); target: at most twice its time.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "cases.hpp"
#include "clock.hpp"
#include "fpconform/arith.hpp"
#include "fpconform/fast_arith.hpp"
#include "fpconform/reference/double_arith.hpp"
#include "native_f16.hpp"

namespace fpconform::bench {

namespace {

struct SweepResult {
  double cpu = 0, wall = 0;
  std::uint64_t pairs = 0, mismatches = 0;
};

// Threads take rows (one a, all 65536 b); row(a) returns the mismatches it found. The CPU time
// of every thread and the wall time are measured.
template <class Row>
SweepResult over_rows(const std::vector<std::uint16_t>& rows, unsigned threads, const Row& row) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> bad{0};
  std::vector<double> cpu(threads);
  auto worker = [&](unsigned t) {
    const double c0 = thread_seconds();
    std::uint64_t mism = 0;
    for (std::size_t i; (i = next++) < rows.size();) mism += row(rows[i]);
    bad += mism;
    cpu[t] = thread_seconds() - c0;
  };
  const double w0 = wall_seconds();
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();
  SweepResult r;
  r.wall = wall_seconds() - w0;
  for (double c : cpu) r.cpu += c;
  r.pairs = rows.size() * 65536ull;
  r.mismatches = bad;
  return r;
}

SweepResult sweep(Op op, const std::vector<std::uint16_t>& rows, unsigned threads) {
  const Format f16 = *find_builtin("f16");
  const OpOptions o;  // rne, the default NaN policy
  const SmallFormatOp fast(f16, op, o);
  const dref::Context ctx(f16, o);
  // Per chunk of a row: emu's row form (SmallFormatOp::row) and the oracle's
  // (dref::Context::apply_row), each the same results as its pair-by-pair call, as
  // code | flags << 16; compared.
  return over_rows(rows, threads, [&](std::uint64_t a) {
    constexpr std::size_t kChunk = 1024;
    std::uint32_t got[kChunk], want[kChunk];
    std::uint64_t mism = 0;
    for (std::uint64_t b0 = 0; b0 < 65536; b0 += kChunk) {
      fast.row(a, b0, kChunk, got);
      ctx.apply_row(op, a, b0, kChunk, want);
      for (std::size_t j = 0; j < kChunk; ++j) mism += got[j] != want[j];
    }
    return mism;
  });
}

// The rows' non-NaN results on which the native instruction (both forms) and emu differ in code:
// zero, or the baseline is not computing the operation.
std::uint64_t native_code_differences(Op op, const NativeF16Row& native,
                                      const std::vector<std::uint16_t>& rows) {
  const Format f16 = *find_builtin("f16");
  const SmallFormatOp fast(f16, op, OpOptions{});
  std::vector<std::uint32_t> emu(65536), with_flags(65536);
  std::vector<std::uint16_t> values(65536);
  std::uint64_t differ = 0;
  for (std::uint16_t a : rows) {
    fast.row(a, 0, 65536, emu.data());
    native.with_flags(a, with_flags.data());
    native.values(a, values.data());
    for (std::size_t b = 0; b < 65536; ++b) {
      const std::uint32_t code = emu[b] & 0xFFFF;
      if ((code & 0x7C00) == 0x7C00 && (code & 0x3FF) != 0) continue;  // NaN: payload rules differ
      differ += (with_flags[b] & 0xFFFF) != code || values[b] != code;
    }
  }
  return differ;
}

// The native instruction over the same rows, its results stored and nothing checked: per pair
// with its flags (what the sweep checks), or codes alone in vectors.
SweepResult native_sweep(const NativeF16Row& native, bool with_flags,
                         const std::vector<std::uint16_t>& rows, unsigned threads) {
  return over_rows(rows, threads, [&](std::uint16_t a) {
    thread_local std::vector<std::uint32_t> codes_flags(65536);
    thread_local std::vector<std::uint16_t> codes(65536);
    if (with_flags) {
      native.with_flags(a, codes_flags.data());
      benchmark::DoNotOptimize(codes_flags.data());
    } else {
      native.values(a, codes.data());
      benchmark::DoNotOptimize(codes.data());
    }
    benchmark::ClobberMemory();
    return std::uint64_t{0};
  });
}

}  // namespace

void sweep_cases(const Settings& s, Sink& sink) {
  const std::size_t nrows = s.level == Level::full ? 65536 : s.level == Level::quick ? 1024 : 32;
  std::vector<std::uint16_t> rows(nrows);
  const std::size_t stride = 65536 / nrows;
  // Evenly spread rows, the low bits varied too (row i: i * stride + (i * 40503) mod stride).
  for (std::size_t i = 0; i < nrows; ++i)
    rows[i] = static_cast<std::uint16_t>(i * stride + (i * 40503) % stride);
  const unsigned T = s.threads;
  for (auto [op, name] : {std::pair{Op::add, "add"}, std::pair{Op::mul, "mul"}}) {
    const SweepResult r = sweep(op, rows, T);
    const double scale = 4294967296.0 / static_cast<double>(r.pairs);
    const double secs = r.cpu / T * scale;  // on T cores of its own
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "f16 %s sweep: %llu pairs checked (emu SmallFormatOp vs the double oracle), "
                  "%llu mismatches, %u threads, %.2f CPU-s, %.2f s wall%s; 2^32 pairs: %.1f s on "
                  "%u cores of its own (CPU-s / threads%s)",
                  name, static_cast<unsigned long long>(r.pairs),
                  static_cast<unsigned long long>(r.mismatches), T, r.cpu, r.wall,
                  T > 1 ? " (shared machine)" : "", secs, T,
                  scale > 1 ? ", extrapolated linearly from the slice" : "");
    s.note(buf);
    Comparison c;
    c.name = std::string("f16_") + name + "_sweep_2^32_pairs_" + std::to_string(T) + "_threads" +
             (scale > 1 ? "_extrapolated_from_" + std::to_string(r.pairs) : "");
    c.ours = secs;
    if (r.mismatches) {
      // A sweep that finds the fast path wrong has no speed worth reporting: SHORT, named so.
      s.note(std::string("f16 ") + name + " sweep: MISMATCHES: the fast path is wrong");
      c.name += "_MISMATCHES";
      c.ours = 0;
    }
    // The baseline: the CPU's own f16 instruction over the same pairs on as many threads; where
    // it has none, the target's limit of 60 s.
    const NativeF16Row native = native_f16_row(op);
    if (native.name) {
      const std::vector<std::uint16_t> some(rows.begin(), rows.begin() + std::min<std::size_t>(rows.size(), 32));
      if (const std::uint64_t d = native_code_differences(op, native, some))
        s.note(std::string("f16 ") + name + " sweep baseline: " + native.name + " DISAGREES with emu on " +
               std::to_string(d) + " non-NaN codes of " + std::to_string(some.size()) + " rows");
      const SweepResult n = native_sweep(native, true, rows, T);
      const SweepResult v = native_sweep(native, false, rows, T);
      c.baseline_name = std::string(native.name) + "-flags-all-pairs";
      c.baseline = n.cpu / T * scale;
      c.target = 0.5;
      std::snprintf(buf, sizeof buf,
                    "f16 %s sweep baseline: %s and MXCSR per pair (code and flags, as the sweep "
                    "checks), results stored, nothing checked: %.2f CPU-s over %llu pairs; 2^32 "
                    "pairs: %.2f s on %u cores. Codes alone in vectors: %.3f s",
                    name, native.name, n.cpu, static_cast<unsigned long long>(n.pairs),
                    c.baseline, T, v.cpu / T * scale);
      s.note(buf);
    } else {
      s.note(std::string("f16 ") + name + " sweep: no native f16 " + name +
             " here (neither AVX512-FP16 nor F16C); the baseline is the limit of 60 s");
      c.baseline_name = "limit";
      c.baseline = 60;
      c.target = 1;
    }
    c.unit = "s";
    c.time_unit = true;
    sink.add(c);
  }
}

}  // namespace fpconform::bench
