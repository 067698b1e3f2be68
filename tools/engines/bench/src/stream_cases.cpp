// Streaming conversion of a large fp32 array (1 GiB; --quick 256 MiB) against memcpy of the
// same 1 GiB into another buffer. Ours runs F32Converter over fixed chunks of 64 Ki values:
// nothing is allocated per chunk or per input size beyond the caller's input and output
// buffers, which the peak RSS note shows. Every buffer is written before timing (no page
// faults inside), the values are normal (sigma 1) times 2^(j mod 40 - 20) for the j-th MiB so
// that the converter meets every tier; rates are fp32 bytes per CPU-second of the thread, best
// of the rounds, each round timing ours and memcpy back to back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include "cases.hpp"
#include "clock.hpp"
#include "fpconform/fast_convert.hpp"

namespace fpconform::bench {

namespace {

// VmRSS or VmHWM of this process in MiB (0 where /proc is absent).
double proc_status_mib(const char* key) {
  std::ifstream f("/proc/self/status");
  for (std::string l; std::getline(f, l);)
    if (l.rfind(key, 0) == 0) return std::atof(l.c_str() + std::strlen(key) + 1) / 1024.0;
  return 0;
}

// Linux: writing 5 to clear_refs resets VmHWM to the current RSS.
bool reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  return static_cast<bool>(f.flush());
}

constexpr std::size_t kChunk = std::size_t{1} << 16;

void convert_chunked(const F32Converter& c, const float* in, void* out, std::size_t n) {
  for (std::size_t off = 0; off < n; off += kChunk)
    c.convert(in + off, static_cast<char*>(out) + off * c.code_bytes(), std::min(kChunk, n - off));
}

}  // namespace

void stream_cases(const Settings& s, Sink& sink) {
  const std::size_t mib = s.level == Level::full ? 1024 : s.level == Level::quick ? 256 : 8;
  const std::size_t bytes = mib << 20, n = bytes / 4;
  const std::string size = mib == 1024 ? "1GiB" : std::to_string(mib) + "MiB";
  if (mib != 1024)
    s.note("stream: " + size + " array instead of 1 GiB (" +
           (s.level == Level::quick ? "--quick" : "smoke mode") +
           "); the full run (fpconform bench) uses 1 GiB");
  const bool rss_ok = reset_peak_rss();
  const double rss_before = proc_status_mib("VmRSS:");

  std::unique_ptr<float[]> in(new float[n]);
  {
    constexpr std::size_t kMiB = (std::size_t{1} << 20) / 4;
    std::vector<float> base(kMiB);
    std::mt19937 rng(42);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (auto& f : base) f = nd(rng);
    for (std::size_t i = 0; i < n; i += kMiB) {
      const float k = std::ldexp(1.0f, static_cast<int>((i / kMiB) % 40) - 20);
      for (std::size_t j = 0; j < kMiB && i + j < n; ++j) in[i + j] = base[j] * k;
    }
  }
  std::unique_ptr<std::uint16_t[]> out16(new std::uint16_t[n]);
  std::unique_ptr<std::uint8_t[]> out8(new std::uint8_t[n]);
  std::memset(out16.get(), 0, n * 2);
  std::memset(out8.get(), 0, n);
  Rounding rne, satf;
  satf.sat = Saturation::finite;
  const F32Converter bf16(*find_builtin("bf16"), rne), e4m3(*find_builtin("e4m3"), satf);

  auto timed = [](auto&& f) {
    const double t0 = thread_seconds();
    f();
    return thread_seconds() - t0;
  };
  double t_bf16 = 1e30, t_e4m3 = 1e30, t_copy = 1e30;
  t_bf16 = timed([&] { convert_chunked(bf16, in.get(), out16.get(), n); });
  t_e4m3 = timed([&] { convert_chunked(e4m3, in.get(), out8.get(), n); });
  const double peak = proc_status_mib("VmHWM:");
  std::unique_ptr<float[]> copy(new float[n]);
  std::memset(copy.get(), 0, bytes);
  const int rounds = std::max(s.rounds, 2);
  for (int r = 0; r < rounds; ++r) {
    t_copy = std::min(t_copy, timed([&] { std::memcpy(copy.get(), in.get(), bytes); }));
    t_bf16 = std::min(t_bf16, timed([&] { convert_chunked(bf16, in.get(), out16.get(), n); }));
    t_e4m3 = std::min(t_e4m3, timed([&] { convert_chunked(e4m3, in.get(), out8.get(), n); }));
  }
  volatile std::uint8_t sink_byte = out8[n / 2] ^ static_cast<std::uint8_t>(out16[n / 3]) ^
                                    reinterpret_cast<const std::uint8_t*>(copy.get())[bytes / 2];
  (void)sink_byte;
  char buf[400];
  if (rss_ok) {
    std::snprintf(buf, sizeof buf,
                  "stream %s: peak RSS %.0f MiB while converting (RSS before the buffers %.0f MiB; "
                  "the buffers: %zu MiB fp32 in + %zu MiB bf16 out + %zu MiB e4m3 out = %zu MiB; "
                  "the conversion adds nothing per chunk); with the memcpy target buffer %.0f MiB",
                  size.c_str(), peak, rss_before, mib, mib / 2, mib / 4, mib + mib / 2 + mib / 4,
                  proc_status_mib("VmHWM:"));
    s.note(buf);
  } else {
    s.note("stream: peak RSS not measured (no /proc/self/clear_refs)");
  }
  const double gb = static_cast<double>(bytes) / 1e9;
  for (auto [what, t] : {std::pair<const char*, double>{"bf16_rne", t_bf16}, {"e4m3_satfinite", t_e4m3}}) {
    Comparison c;
    c.name = "stream_" + size + "_f32_to_" + what;
    c.ours = gb / t;
    c.baseline_name = "memcpy-" + size;
    c.baseline = gb / t_copy;
    c.unit = "GB/s";
    c.target = 1 / 1.5;
    sink.add(c);
  }
}

}  // namespace fpconform::bench
