// The exhaustive f16 binary-op sweep: for every pair (a, b) of f16 codes, the emulated op
// (SmallFormatOp, emu's fast path, identical to apply_op) and its check against the
// independent double-arithmetic oracle of reference/ (double_arith.hpp), codes and
// flags compared — what the `exhaustive` CTest sweeps do. Threads take rows (one a, all 65536 b);
// both sides run in their row forms (SmallFormatOp::row, dref::Context::apply_row: the same
// results as their pair-by-pair calls, with the per-pair dispatch and decoding of a hoisted).
// Full run: all 2^32 pairs. --quick: 1024 rows spread over the code space (specials included),
// and the time for 2^32 pairs extrapolated from them (labelled so in the line's name).
// The figure is the sweep's CPU seconds divided by the thread count: its duration on that many
// cores of its own (the wall time on the shared machine is in a note); the baseline is the
// target's limit of 60 s.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cases.hpp"
#include "clock.hpp"
#include "fpconform/arith.hpp"
#include "fpconform/fast_arith.hpp"
#include "fpconform/reference/double_arith.hpp"

namespace fpconform::bench {

namespace {

struct SweepResult {
  double cpu = 0, wall = 0;
  std::uint64_t pairs = 0, mismatches = 0;
};

SweepResult sweep(Op op, const std::vector<std::uint16_t>& rows, unsigned threads) {
  const Format f16 = *find_builtin("f16");
  const OpOptions o;  // rne, the default NaN policy
  const SmallFormatOp fast(f16, op, o);
  const dref::Context ctx(f16, o);
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> bad{0};
  std::vector<double> cpu(threads);
  auto worker = [&](unsigned t) {
    const double c0 = thread_seconds();
    std::uint64_t mism = 0;
    // Per chunk of a row: emu's row form (SmallFormatOp::row) and the oracle's
    // (dref::Context::apply_row), each the same results as its pair-by-pair call, as
    // code | flags << 16; compared.
    constexpr std::size_t kChunk = 1024;
    std::uint32_t got[kChunk], want[kChunk];
    for (std::size_t i; (i = next++) < rows.size();) {
      const std::uint64_t a = rows[i];
      for (std::uint64_t b0 = 0; b0 < 65536; b0 += kChunk) {
        fast.row(a, b0, kChunk, got);
        ctx.apply_row(op, a, b0, kChunk, want);
        for (std::size_t j = 0; j < kChunk; ++j) mism += got[j] != want[j];
      }
    }
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
    c.baseline_name = "limit";
    c.baseline = 60;
    c.unit = "s";
    c.time_unit = true;
    c.target = 1;
    sink.add(c);
  }
}

}  // namespace fpconform::bench
