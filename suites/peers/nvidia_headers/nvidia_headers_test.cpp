// NVIDIA's CUDA headers (host code paths, compiled by the host C++ compiler) against
// convert_with_profile(nvidia). Default: a deterministic sample (>= 10^6 inputs per f32/f64 pair,
// every f16/bf16/narrow code); --exhaustive: all 2^32 f32 inputs for the f32 pairs.
//   nvidia_headers_test [--exhaustive] [--only SUBSTRING]...
// Prints one line per pair ("nvidia f32->e4m3 sat=finite: N/N match") and exits 1 on any
// mismatch, after listing the first few.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "fpconform/core/error.hpp"
#include "fpconform/profile.hpp"
#include "peer_inputs.hpp"

using namespace fpconform;
using namespace fpconform::peers;

namespace {

float as_f32(std::uint64_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b)); }
double as_f64(std::uint64_t b) { return std::bit_cast<double>(b); }
std::uint64_t half_bits(__half h) { return static_cast<__half_raw>(h).x; }
std::uint64_t bf16_bits(__nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }
__half_raw half_raw(std::uint64_t b) {
  __half_raw r;
  r.x = static_cast<unsigned short>(b);
  return r;
}
__nv_bfloat16_raw bf16_raw(std::uint64_t b) {
  __nv_bfloat16_raw r;
  r.x = static_cast<unsigned short>(b);
  return r;
}

enum class Source { f32, f64, all_codes };

struct Case {
  std::string name;
  std::string from, to;
  UserOptions user;
  Source source;
  std::function<std::uint64_t(std::uint64_t)> header;
};

UserOptions opts(std::optional<RoundingMode> m, std::optional<Saturation> s) {
  UserOptions u;
  u.mode = m;
  u.sat = s;
  return u;
}

std::vector<Case> cases() {
  using M = RoundingMode;
  using S = Saturation;
  std::vector<Case> v;
  struct Fp8 {
    const char* name;
    __nv_fp8_interpretation_t interp;
  };
  const Fp8 fp8s[] = {{"e4m3", __NV_E4M3}, {"e5m2", __NV_E5M2}};
  struct Sat {
    const char* name;
    __nv_saturation_t sat;
    S s;
  };
  const Sat sats[] = {{"finite", __NV_SATFINITE, S::finite}, {"none", __NV_NOSAT, S::none}};
  for (const auto& f : fp8s)
    for (const auto& s : sats) {
      const std::string tail = std::string(f.name) + " sat=" + s.name;
      auto interp = f.interp;
      auto sat = s.sat;
      v.push_back({"f32->" + tail, "f32", f.name, opts(M::rne, s.s), Source::f32,
                   [=](std::uint64_t b) { return (std::uint64_t)__nv_cvt_float_to_fp8(as_f32(b), sat, interp); }});
      v.push_back({"f64->" + tail, "f64", f.name, opts(M::rne, s.s), Source::f64,
                   [=](std::uint64_t b) { return (std::uint64_t)__nv_cvt_double_to_fp8(as_f64(b), sat, interp); }});
      v.push_back({"f16->" + tail, "f16", f.name, opts(M::rne, s.s), Source::all_codes,
                   [=](std::uint64_t b) { return (std::uint64_t)__nv_cvt_halfraw_to_fp8(half_raw(b), sat, interp); }});
      v.push_back({"bf16->" + tail, "bf16", f.name, opts(M::rne, s.s), Source::all_codes,
                   [=](std::uint64_t b) { return (std::uint64_t)__nv_cvt_bfloat16raw_to_fp8(bf16_raw(b), sat, interp); }});
    }
  // Defaults (no options): the constructors' __NV_SATFINITE.
  v.push_back({"f32->e4m3 (defaults)", "f32", "e4m3", {}, Source::f32,
               [](std::uint64_t b) { return (std::uint64_t)__nv_fp8_e4m3(as_f32(b)).__x; }});
  for (const auto& f : fp8s) {
    auto interp = f.interp;
    v.push_back({std::string(f.name) + "->f16", f.name, "f16", {}, Source::all_codes,
                 [=](std::uint64_t b) { return (std::uint64_t)__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)b, interp).x; }});
  }
  // fp6 / fp4: rn and rz, always saturating.
  struct Narrow {
    const char* name;
    int kind;  // 0 e2m3, 1 e3m2, 2 e2m1
  };
  const Narrow narrows[] = {{"e2m3", 0}, {"e3m2", 1}, {"e2m1", 2}};
  struct Mode {
    const char* name;
    cudaRoundMode cm;
    M m;
  };
  const Mode nz[] = {{"rn", cudaRoundNearest, M::rne}, {"rz", cudaRoundZero, M::rtz}};
  for (const auto& n : narrows)
    for (const auto& md : nz) {
      const int kind = n.kind;
      const cudaRoundMode cm = md.cm;
      auto from_float = [=](float x) -> std::uint64_t {
        if (kind == 2) return __nv_cvt_float_to_fp4(x, __NV_E2M1, cm);
        return __nv_cvt_float_to_fp6(x, kind == 0 ? __NV_E2M3 : __NV_E3M2, cm);
      };
      auto from_double = [=](double x) -> std::uint64_t {
        if (kind == 2) return __nv_cvt_double_to_fp4(x, __NV_E2M1, cm);
        return __nv_cvt_double_to_fp6(x, kind == 0 ? __NV_E2M3 : __NV_E3M2, cm);
      };
      const std::string tail = std::string(n.name) + " " + md.name;
      v.push_back({"f32->" + tail, "f32", n.name, opts(md.m, {}), Source::f32,
                   [=](std::uint64_t b) { return from_float(as_f32(b)); }});
      v.push_back({"f64->" + tail, "f64", n.name, opts(md.m, {}), Source::f64,
                   [=](std::uint64_t b) { return from_double(as_f64(b)); }});
      v.push_back({"f16->" + tail, "f16", n.name, opts(md.m, {}), Source::all_codes,
                   [=](std::uint64_t b) -> std::uint64_t {
                     if (kind == 2) return __nv_cvt_halfraw_to_fp4(half_raw(b), __NV_E2M1, cm);
                     return __nv_cvt_halfraw_to_fp6(half_raw(b), kind == 0 ? __NV_E2M3 : __NV_E3M2, cm);
                   }});
    }
  for (const auto& n : narrows) {
    const int kind = n.kind;
    v.push_back({std::string(n.name) + "->f16", n.name, "f16", {}, Source::all_codes,
                 [=](std::uint64_t b) -> std::uint64_t {
                   if (kind == 2) return __nv_cvt_fp4_to_halfraw((__nv_fp4_storage_t)b, __NV_E2M1).x;
                   return __nv_cvt_fp6_to_halfraw((__nv_fp6_storage_t)b, kind == 0 ? __NV_E2M3 : __NV_E3M2).x;
                 }});
  }
  // e8m0: cudaRoundZero / cudaRoundPosInf x SATFINITE / NOSAT.
  const Mode e8modes[] = {{"rz", cudaRoundZero, M::rtz}, {"rp", cudaRoundPosInf, M::up}};
  for (const auto& md : e8modes)
    for (const auto& s : sats) {
      const cudaRoundMode cm = md.cm;
      const __nv_saturation_t sat = s.sat;
      const std::string tail = std::string("ue8m0 ") + md.name + " sat=" + s.name;
      v.push_back({"f32->" + tail, "f32", "ue8m0", opts(md.m, s.s), Source::f32,
                   [=](std::uint64_t b) { return (std::uint64_t)__nv_cvt_float_to_e8m0(as_f32(b), sat, cm); }});
      v.push_back({"f64->" + tail, "f64", "ue8m0", opts(md.m, s.s), Source::f64,
                   [=](std::uint64_t b) { return (std::uint64_t)__nv_cvt_double_to_e8m0(as_f64(b), sat, cm); }});
      v.push_back({"bf16->" + tail, "bf16", "ue8m0", opts(md.m, s.s), Source::all_codes,
                   [=](std::uint64_t b) { return (std::uint64_t)__nv_cvt_bfloat16raw_to_e8m0(bf16_raw(b), sat, cm); }});
    }
  v.push_back({"f32->ue8m0 (defaults)", "f32", "ue8m0", {}, Source::f32,
               [](std::uint64_t b) { return (std::uint64_t)__nv_fp8_e8m0(as_f32(b)).__x; }});
  v.push_back({"ue8m0->bf16", "ue8m0", "bf16", {}, Source::all_codes,
               [](std::uint64_t b) { return (std::uint64_t)__nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)b).x; }});
  // f16 / bf16 from float in the four modes, and from double (RNE).
  const Mode four[] = {{"rn", cudaRoundNearest, M::rne}, {"rz", cudaRoundZero, M::rtz},
                       {"rd", cudaRoundMinInf, M::down}, {"ru", cudaRoundPosInf, M::up}};
  for (const auto& md : four) {
    const int which = static_cast<int>(&md - four);
    v.push_back({std::string("f32->f16 ") + md.name, "f32", "f16", opts(md.m, {}), Source::f32,
                 [=](std::uint64_t b) {
                   const float x = as_f32(b);
                   switch (which) {
                     case 0: return half_bits(__float2half_rn(x));
                     case 1: return half_bits(__float2half_rz(x));
                     case 2: return half_bits(__float2half_rd(x));
                     default: return half_bits(__float2half_ru(x));
                   }
                 }});
    v.push_back({std::string("f32->bf16 ") + md.name, "f32", "bf16", opts(md.m, {}), Source::f32,
                 [=](std::uint64_t b) {
                   const float x = as_f32(b);
                   switch (which) {
                     case 0: return bf16_bits(__float2bfloat16_rn(x));
                     case 1: return bf16_bits(__float2bfloat16_rz(x));
                     case 2: return bf16_bits(__float2bfloat16_rd(x));
                     default: return bf16_bits(__float2bfloat16_ru(x));
                   }
                 }});
  }
  v.push_back({"f16->f32", "f16", "f32", {}, Source::all_codes, [](std::uint64_t b) {
                 return (std::uint64_t)std::bit_cast<std::uint32_t>(__half2float(__half(half_raw(b))));
               }});
  v.push_back({"bf16->f32", "bf16", "f32", {}, Source::all_codes, [](std::uint64_t b) {
                 return (std::uint64_t)std::bit_cast<std::uint32_t>(
                     __bfloat162float(__nv_bfloat16(bf16_raw(b))));
               }});
  v.push_back({"f64->f16 rn", "f64", "f16", opts(M::rne, {}), Source::f64,
               [](std::uint64_t b) { return half_bits(__double2half(as_f64(b))); }});
  v.push_back({"f64->bf16 rn", "f64", "bf16", opts(M::rne, {}), Source::f64,
               [](std::uint64_t b) { return bf16_bits(__double2bfloat16(as_f64(b))); }});
  return v;
}

struct Result {
  std::atomic<std::uint64_t> total{0}, match{0};
  std::mutex mu;
  FirstLines first;
};

void check(const Case& c, const Format& from, const Format& to, const Profile& p, std::uint64_t in,
           Result& res, std::uint64_t& local_match) {
  const std::uint64_t want = c.header(in) & to.code_mask();
  std::uint64_t got;
  try {
    got = convert_with_profile(in, from, to, p, c.user).bits;
  } catch (const Error& e) {
    got = ~0ull;
  }
  if (got == want) {
    ++local_match;
    return;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "  input 0x%llx: header 0x%llx, emu 0x%llx",
                (unsigned long long)in, (unsigned long long)want, (unsigned long long)got);
  std::lock_guard<std::mutex> lock(res.mu);
  keep_first(res.first, 12, in, buf);
}

}  // namespace

int main(int argc, char** argv) {
  bool exhaustive = false;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--exhaustive") exhaustive = true;
    else if (a == "--only" && i + 1 < argc) only.push_back(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--exhaustive] [--only SUBSTRING]...\n", argv[0]);
      return 2;
    }
  }
  const Profile& p = find_profile("nvidia");
  std::vector<Format> targets;
  for (const char* n : {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "ue8m0", "f16", "bf16"})
    targets.push_back(parse_format(n));
  std::vector<std::uint32_t> f32s;
  std::vector<std::uint64_t> f64s;
  int failures = 0, ran = 0;
  for (const Case& c : cases()) {
    if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& s) {
          return c.name.find(s) != std::string::npos;
        }))
      continue;
    if (exhaustive && c.source != Source::f32) continue;
    const Format from = parse_format(c.from), to = parse_format(c.to);
    Result res;
    auto run = [&](std::uint64_t n, const std::function<std::uint64_t(std::uint64_t)>& input) {
      parallel_for(n, [&](std::uint64_t b, std::uint64_t e) {
        std::uint64_t m = 0;
        for (std::uint64_t i = b; i < e; ++i) check(c, from, to, p, input(i), res, m);
        res.match += m;
        res.total += e - b;
      });
    };
    if (c.source == Source::f32) {
      if (exhaustive) {
        run(1ull << 32, [](std::uint64_t i) { return i; });
      } else {
        if (f32s.empty()) f32s = f32_sample(targets);
        run(f32s.size(), [&](std::uint64_t i) { return (std::uint64_t)f32s[i]; });
      }
    } else if (c.source == Source::f64) {
      if (f64s.empty()) f64s = f64_sample(targets);
      run(f64s.size(), [&](std::uint64_t i) { return f64s[i]; });
    } else {
      run(std::uint64_t(1) << from.width(), [](std::uint64_t i) { return i; });
    }
    ++ran;
    const bool ok = res.match == res.total;
    std::printf("nvidia %s: %llu/%llu match%s\n", c.name.c_str(),
                (unsigned long long)res.match.load(), (unsigned long long)res.total.load(),
                ok ? "" : "  MISMATCH");
    for (const auto& line : res.first) std::printf("%s\n", line.second.c_str());
    std::fflush(stdout);
    if (!ok) ++failures;
  }
  if (ran == 0) {
    std::printf("no pair matched the filter\n");
    return 2;
  }
  std::printf("%d pairs, %d with mismatches\n", ran, failures);
  return failures ? 1 : 0;
}
