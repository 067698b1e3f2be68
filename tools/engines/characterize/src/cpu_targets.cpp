// cpu: targets. Each unit runs through its own instruction, compiled with a function-level
// target attribute so the library builds on any x86-64; whether the CPU has the feature is asked
// at run time (core's cpu_features) and an absent feature is reported by
// unavailable(), never emulated.
#include <cstring>
#include <string>
#include <vector>

#include "cpu_targets.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace fpconform::characterize {
namespace {

enum class Unit { fp32_fma, avx512_fp16, avx512_bf16, amx_bf16 };

struct UnitInfo {
  Unit unit;
  const char* name;
  const char* in;
  const char* out;
};

constexpr UnitInfo kUnits[] = {
    {Unit::fp32_fma, "cpu:fp32-fma", "f32", "f32"},
    {Unit::avx512_fp16, "cpu:avx512-fp16", "f16", "f16"},
    {Unit::avx512_bf16, "cpu:avx512-bf16", "bf16", "f32"},
    {Unit::amx_bf16, "cpu:amx-bf16", "bf16", "f32"},
};

#if defined(__x86_64__)

// Linux hands out the AMX tile state only on request (arch_prctl ARCH_REQ_XCOMP_PERM).
bool request_amx_permission() {
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

// (Lambdas would not inherit the target attribute: the loads are written out.)
// The FMA chains are VFMADD231 written out with a in the second operand and b in the third:
// x86 takes the first NaN in the order the instruction's formula a*b + d names them, so an
// intrinsic, whose operand placement is the compiler's choice, would leave it open.
inline float f32_of(std::uint64_t bits) {
  float f;
  const auto u = static_cast<std::uint32_t>(bits);
  std::memcpy(&f, &u, 4);
  return f;
}

__attribute__((target("fma"))) std::uint32_t fma_chain_f32(const std::uint64_t* a,
                                                           const std::uint64_t* b, int k,
                                                           std::uint64_t c) {
  __m128 d = _mm_set_ss(f32_of(c));
  for (int i = 0; i < k; ++i) {
    const __m128 x = _mm_set_ss(f32_of(a[i])), y = _mm_set_ss(f32_of(b[i]));
    asm("vfmadd231ss %2, %1, %0" : "+x"(d) : "x"(x), "x"(y));  // d = x*y + d
  }
  const float f = _mm_cvtss_f32(d);
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

__attribute__((target("avx512fp16,avx512vl,avx512f"))) std::uint16_t fma_chain_f16(
    const std::uint64_t* a, const std::uint64_t* b, int k, std::uint64_t c) {
  __m128h d = _mm_castsi128_ph(_mm_cvtsi32_si128(static_cast<int>(c & 0xFFFF)));
  for (int i = 0; i < k; ++i) {
    const __m128h x = _mm_castsi128_ph(_mm_cvtsi32_si128(static_cast<int>(a[i] & 0xFFFF)));
    const __m128h y = _mm_castsi128_ph(_mm_cvtsi32_si128(static_cast<int>(b[i] & 0xFFFF)));
    asm("vfmadd231sh %2, %1, %0" : "+v"(d) : "v"(x), "v"(y));  // d = x*y + d
  }
  return static_cast<std::uint16_t>(_mm_cvtsi128_si32(_mm_castph_si128(d)) & 0xFFFF);
}

// 16 rows at once: lane r of the accumulator is row r; VDPBF16PS adds, in lane r, the products
// of bf16 elements 2r and 2r+1 of its two sources, so pair p of row r sits there.
__attribute__((target("avx512bf16,avx512f"))) void dpbf16_rows(const std::uint64_t* a,
                                                               const std::uint64_t* b, int k,
                                                               const std::uint64_t* c, int rows,
                                                               std::uint64_t* d) {
  alignas(64) std::uint32_t acc[16] = {};
  alignas(64) std::uint16_t va[32], vb[32];
  for (int r = 0; r < rows; ++r) acc[r] = static_cast<std::uint32_t>(c[r]);
  __m512 vacc = _mm512_castsi512_ps(_mm512_load_si512(acc));
  for (int p = 0; p < k / 2; ++p) {
    std::memset(va, 0, sizeof va);
    std::memset(vb, 0, sizeof vb);
    for (int r = 0; r < rows; ++r) {
      const std::size_t base = static_cast<std::size_t>(r) * k + 2 * p;
      va[2 * r] = static_cast<std::uint16_t>(a[base]);
      va[2 * r + 1] = static_cast<std::uint16_t>(a[base + 1]);
      vb[2 * r] = static_cast<std::uint16_t>(b[base]);
      vb[2 * r + 1] = static_cast<std::uint16_t>(b[base + 1]);
    }
    vacc = _mm512_dpbf16_ps(vacc, (__m512bh)_mm512_load_si512(va),
                            (__m512bh)_mm512_load_si512(vb));
  }
  _mm512_store_si512(acc, _mm512_castps_si512(vacc));
  for (int r = 0; r < rows; ++r) d[r] = acc[r];
}

struct alignas(64) TileConfig {
  std::uint8_t palette = 1, start_row = 0, reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

// 16 rows at once on the diagonal: C[m][n] += sum_k A[m][k] * B[k][n] with column n of B holding
// row n's b, so C[r][r] is row r's dot product. TDPBF16PS takes up to 32 bf16 per row; longer k
// chains instructions on the same C tile. B's tile is pair-interleaved: row p holds
// (b[2p][n], b[2p+1][n]) for every n.
__attribute__((target("amx-tile,amx-bf16"))) void amx_rows(const std::uint64_t* a,
                                                          const std::uint64_t* b, int k,
                                                          const std::uint64_t* c, int rows,
                                                          std::uint64_t* d) {
  alignas(64) std::uint32_t ct[16][16] = {};
  alignas(64) std::uint16_t at[16][32], bt[16][32];
  for (int r = 0; r < rows; ++r) ct[r][r] = static_cast<std::uint32_t>(c[r]);
  for (int k0 = 0; k0 < k; k0 += 32) {
    const int kk = k - k0 < 32 ? k - k0 : 32;
    std::memset(at, 0, sizeof at);
    std::memset(bt, 0, sizeof bt);
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < kk; ++i) {
        const std::size_t idx = static_cast<std::size_t>(r) * k + k0 + i;
        at[r][i] = static_cast<std::uint16_t>(a[idx]);
        bt[i / 2][2 * r + i % 2] = static_cast<std::uint16_t>(b[idx]);
      }
    TileConfig cfg;
    cfg.rows[0] = 16;
    cfg.colsb[0] = 64;  // C: 16 x 16 fp32
    cfg.rows[1] = 16;
    cfg.colsb[1] = static_cast<std::uint16_t>(kk * 2);  // A: 16 x kk bf16
    cfg.rows[2] = static_cast<std::uint8_t>(kk / 2);
    cfg.colsb[2] = 64;  // B: kk/2 x 16 bf16 pairs
    _tile_loadconfig(&cfg);
    _tile_loadd(0, ct, 64);
    _tile_loadd(1, at, 64);
    _tile_loadd(2, bt, 64);
    _tile_dpbf16ps(0, 1, 2);
    _tile_stored(0, ct, 64);
    _tile_release();
  }
  for (int r = 0; r < rows; ++r) d[r] = ct[r][r];
}

#endif  // __x86_64__

class CpuTarget final : public Target {
 public:
  explicit CpuTarget(const UnitInfo& info)
      : info_(info), in_(parse_format(info.in)), out_(parse_format(info.out)) {}
  std::string name() const override { return info_.name; }
  const Format& in() const override { return in_; }
  const Format& out() const override { return out_; }
  bool supports_k(int k) const override {
    if (info_.unit == Unit::avx512_bf16 || info_.unit == Unit::amx_bf16) return k >= 2 && k % 2 == 0;
    return k >= 1;
  }

  std::string unavailable() const override {
#if defined(__x86_64__)
    switch (info_.unit) {
      case Unit::fp32_fma:
        return cpu_features().fma ? "" : "this CPU has no FMA3 (__builtin_cpu_supports(\"fma\") is false)";
      case Unit::avx512_fp16:
        return cpu_features().avx512_fp16
                   ? ""
                   : "this CPU has no AVX512-FP16 (__builtin_cpu_supports(\"avx512fp16\") is false)";
      case Unit::avx512_bf16:
        return cpu_features().avx512_bf16
                   ? ""
                   : "this CPU has no AVX512-BF16 (__builtin_cpu_supports(\"avx512bf16\") is false)";
      case Unit::amx_bf16: {
        if (!cpu_features().amx_bf16) return "this CPU has no AMX-BF16 (CPUID.7.0:EDX bits 22, 24)";
        static const bool granted = request_amx_permission();
        return granted ? "" : "the kernel refused the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM)";
      }
    }
    return "unknown unit";
#else
    return "cpu: targets need an x86-64 CPU";
#endif
  }

  std::vector<std::uint64_t> run(const DotBatch& batch) override {
    check_batch(batch);
    std::vector<std::uint64_t> d(batch.rows());
#if defined(__x86_64__)
    const auto k = static_cast<std::size_t>(batch.k);
    const std::uint64_t* a = batch.a.data();
    const std::uint64_t* b = batch.b.data();
    switch (info_.unit) {
      case Unit::fp32_fma:
        for (std::size_t r = 0; r < d.size(); ++r)
          d[r] = fma_chain_f32(a + r * k, b + r * k, batch.k, batch.c[r]);
        break;
      case Unit::avx512_fp16:
        for (std::size_t r = 0; r < d.size(); ++r)
          d[r] = fma_chain_f16(a + r * k, b + r * k, batch.k, batch.c[r]);
        break;
      case Unit::avx512_bf16:
      case Unit::amx_bf16:
        for (std::size_t r0 = 0; r0 < d.size(); r0 += 16) {
          const int rows = static_cast<int>(d.size() - r0 < 16 ? d.size() - r0 : 16);
          if (info_.unit == Unit::avx512_bf16)
            dpbf16_rows(a + r0 * k, b + r0 * k, batch.k, batch.c.data() + r0, rows, d.data() + r0);
          else
            amx_rows(a + r0 * k, b + r0 * k, batch.k, batch.c.data() + r0, rows, d.data() + r0);
        }
        break;
    }
#endif
    count(batch.rows());
    return d;
  }

 private:
  UnitInfo info_;
  Format in_, out_;
};

}  // namespace

std::unique_ptr<Target> make_cpu_target(std::string_view spec, const Format* in,
                                        const Format* out, std::string_view what) {
  for (const UnitInfo& u : kUnits) {
    if (spec != u.name) continue;
    auto t = std::make_unique<CpuTarget>(u);
    if (in && !(*in == t->in()))
      throw Error(std::string(what), std::string(u.name) + " takes " + u.in + " inputs, not " +
                                         in->name);
    if (out && !(*out == t->out()))
      throw Error(std::string(what), std::string(u.name) + " writes " + u.out + " results, not " +
                                         out->name);
    return t;
  }
  std::string known;
  for (const UnitInfo& u : kUnits) known += std::string(known.empty() ? "" : ", ") + u.name;
  throw Error(std::string(what), "unknown cpu target '" + std::string(spec) + "' (" + known + ")");
}

std::vector<std::string> cpu_target_names() {
  std::vector<std::string> names;
  for (const UnitInfo& u : kUnits) names.emplace_back(u.name);
  return names;
}

}  // namespace fpconform::characterize
