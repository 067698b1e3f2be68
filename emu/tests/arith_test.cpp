// apply_op against the x86 SSE/FMA3 hardware (f32, f64: every rounding direction, FTZ, DAZ,
// NaN propagation by the "x86" policy, all five flags read from MXCSR) and against values
// worked out by hand from IEEE 754-2019 for the small formats and the other policies.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "fpconform/arith.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform {
namespace {

const Format& fmt(const char* name) {
  static thread_local std::vector<Format> cache;
  for (const Format& f : cache)
    if (f.name == name) return f;
  cache.reserve(32);
  cache.push_back(parse_format(name));
  return cache.back();
}

Rounded run(Op op, const char* format, std::initializer_list<std::uint64_t> ops,
            const OpOptions& o = {}) {
  std::uint64_t v[3] = {0, 0, 0};
  int i = 0;
  for (std::uint64_t x : ops) v[i++] = x;
  return apply_op(op, fmt(format), v, o);
}

OpOptions with(RoundingMode m, const char* policy = "ieee") {
  OpOptions o;
  o.rounding.mode = m;
  o.nan = &find_nan_policy(policy);
  return o;
}

#if defined(__x86_64__)
// ---- the hardware: one instruction between ldmxcsr and stmxcsr, all exceptions masked ----
constexpr unsigned kMasked = 0x1F80;

unsigned csr_for(const Rounding& r) {
  unsigned rc = 0;
  switch (r.mode) {
    case RoundingMode::rne: rc = 0; break;
    case RoundingMode::down: rc = 1; break;
    case RoundingMode::up: rc = 2; break;
    default: rc = 3; break;
  }
  return kMasked | (rc << 13) | (r.ftz ? 0x8000u : 0) | (r.daz ? 0x40u : 0);
}

std::uint8_t flags_of(unsigned st) {
  std::uint8_t f = 0;
  if (st & 0x01) f |= Flags::invalid;
  if (st & 0x04) f |= Flags::infinite;
  if (st & 0x08) f |= Flags::overflow;
  if (st & 0x10) f |= Flags::underflow;
  if (st & 0x20) f |= Flags::inexact;
  return f;
}

#define SSE_BINARY(name, insn, T, mov)                                                 \
  Rounded name(std::uint64_t a, std::uint64_t b, unsigned csr) {                       \
    T x, y;                                                                            \
    std::memcpy(&x, &a, sizeof x);                                                     \
    std::memcpy(&y, &b, sizeof y);                                                     \
    unsigned st = 0;                                                                   \
    asm volatile("ldmxcsr %2\n\t" insn " %1, %0\n\tstmxcsr %3\n\tldmxcsr %4"           \
                 : "+x"(x)                                                             \
                 : "x"(y), "m"(csr), "m"(st), "m"(kMasked)                              \
                 : "memory");                                                          \
    Rounded r;                                                                         \
    std::uint64_t bits = 0;                                                            \
    std::memcpy(&bits, &x, sizeof x);                                                  \
    r.bits = bits;                                                                     \
    r.flags.bits = flags_of(st);                                                       \
    return r;                                                                          \
  }

SSE_BINARY(hw_addss, "addss", float, )
SSE_BINARY(hw_subss, "subss", float, )
SSE_BINARY(hw_mulss, "mulss", float, )
SSE_BINARY(hw_divss, "divss", float, )
SSE_BINARY(hw_addsd, "addsd", double, )
SSE_BINARY(hw_subsd, "subsd", double, )
SSE_BINARY(hw_mulsd, "mulsd", double, )
SSE_BINARY(hw_divsd, "divsd", double, )

template <class T>
Rounded hw_sqrt(std::uint64_t a, unsigned csr) {
  T x;
  std::memcpy(&x, &a, sizeof x);
  unsigned st = 0;
  if constexpr (sizeof(T) == 4)
    asm volatile("ldmxcsr %1\n\tsqrtss %0, %0\n\tstmxcsr %2\n\tldmxcsr %3"
                 : "+x"(x) : "m"(csr), "m"(st), "m"(kMasked) : "memory");
  else
    asm volatile("ldmxcsr %1\n\tsqrtsd %0, %0\n\tstmxcsr %2\n\tldmxcsr %3"
                 : "+x"(x) : "m"(csr), "m"(st), "m"(kMasked) : "memory");
  Rounded r;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof x);
  r.bits = bits;
  r.flags.bits = flags_of(st);
  return r;
}

// vfmadd231: x = y * z + x, so the product operands are y, z and the addend x.
template <class T>
__attribute__((target("fma"))) Rounded hw_fma(std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                              unsigned csr) {
  T x, y, z;
  std::memcpy(&y, &a, sizeof y);
  std::memcpy(&z, &b, sizeof z);
  std::memcpy(&x, &c, sizeof x);
  unsigned st = 0;
  if constexpr (sizeof(T) == 4)
    asm volatile("ldmxcsr %3\n\tvfmadd231ss %2, %1, %0\n\tstmxcsr %4\n\tldmxcsr %5"
                 : "+x"(x) : "x"(y), "x"(z), "m"(csr), "m"(st), "m"(kMasked) : "memory");
  else
    asm volatile("ldmxcsr %3\n\tvfmadd231sd %2, %1, %0\n\tstmxcsr %4\n\tldmxcsr %5"
                 : "+x"(x) : "x"(y), "x"(z), "m"(csr), "m"(st), "m"(kMasked) : "memory");
  Rounded r;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof x);
  r.bits = bits;
  r.flags.bits = flags_of(st);
  return r;
}

// Operands that reach every path: random codes, specials, subnormals, cancellation, products
// near the overflow and underflow thresholds, NaNs with payloads of both kinds.
class OperandSource {
 public:
  OperandSource(const Format& f, std::uint64_t seed) : f_(f), rng_(seed) {}
  std::uint64_t special() {
    const std::uint64_t sign = (rng_() & 1) ? f_.sign_mask() : 0;
    const std::uint64_t frac = (1ull << f_.man_bits) - 1;
    switch (rng_() % 8) {
      case 0: return sign;                                           // zero
      case 1: return sign | f_.inf_code(false);                      // inf
      case 2: return sign | f_.inf_code(false) | (rng_() & frac) | 1;  // NaN (either kind)
      case 3: return sign | (rng_() & frac);                         // subnormal
      case 4: return sign | f_.max_finite_code();
      case 5: return sign | f_.min_normal_code();
      case 6: return sign | 1;
      default: return sign | (static_cast<std::uint64_t>(f_.bias) << f_.man_bits);  // 1.0
    }
  }
  std::uint64_t any() {
    if (rng_() % 8 == 0) return special();
    return rng_() & f_.code_mask();
  }
  // A value with an exponent within `span` of `near`'s.
  std::uint64_t close_to(std::uint64_t near, int span) {
    const std::uint64_t mag = near & f_.magnitude_mask();
    const std::int64_t field = static_cast<std::int64_t>(mag >> f_.man_bits);
    const std::int64_t max_field = (1ll << f_.exp_bits) - 2;
    std::int64_t e = field + static_cast<std::int64_t>(rng_() % (2 * span + 1)) - span;
    e = std::clamp<std::int64_t>(e, 0, max_field);
    const std::uint64_t sign = (rng_() & 1) ? f_.sign_mask() : 0;
    return sign | (static_cast<std::uint64_t>(e) << f_.man_bits) |
           (rng_() & ((1ull << f_.man_bits) - 1));
  }
  // A field such that products of two such values land near over- or underflow.
  std::uint64_t for_product(bool big) {
    const std::int64_t bias = f_.bias;
    const std::int64_t target = big ? bias + (bias + 1) / 2 : bias / 2 - f_.man_bits / 2;
    const std::uint64_t v = (static_cast<std::uint64_t>(std::max<std::int64_t>(target, 1))
                             << f_.man_bits);
    return close_to(v, 3);
  }
  std::mt19937_64& rng() { return rng_; }

 private:
  const Format& f_;
  std::mt19937_64 rng_;
};

bool both_nan(const Format& f, std::uint64_t a, std::uint64_t b) {
  return f.is_nan_code(a) && f.is_nan_code(b);
}

struct HwCase {
  const char* format;
  bool wide;
};

class ArithVsSse : public ::testing::TestWithParam<HwCase> {};

TEST_P(ArithVsSse, BinaryOpsAllDirectionsFtzDaz) {
  const Format& f = fmt(GetParam().format);
  const bool wide = GetParam().wide;
  OperandSource src(f, wide ? 64 : 32);
  const RoundingMode modes[] = {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up,
                                RoundingMode::down};
  std::uint64_t checked = 0;
  for (int i = 0; i < 60000; ++i) {
    const std::uint64_t a = src.any();
    std::uint64_t b;
    switch (i % 4) {
      case 0: b = src.any(); break;
      case 1: b = src.close_to(a, 2); break;
      case 2: b = src.close_to(a, f.man_bits + 3); break;
      default: b = src.for_product(i % 8 == 3); break;
    }
    const std::uint64_t bp = (i % 4 == 3) ? src.for_product(i % 8 == 3) : a;
    for (RoundingMode m : modes) {
      OpOptions o = with(m, "x86");
      o.rounding.ftz = i % 5 == 1;
      o.rounding.daz = i % 7 == 2;
      const unsigned csr = csr_for(o.rounding);
      struct {
        Op op;
        Rounded (*hw)(std::uint64_t, std::uint64_t, unsigned);
        std::uint64_t x, y;
      } cases[] = {
          {Op::add, wide ? hw_addsd : hw_addss, a, b},
          {Op::sub, wide ? hw_subsd : hw_subss, a, b},
          {Op::mul, wide ? hw_mulsd : hw_mulss, bp, b},
          {Op::div, wide ? hw_divsd : hw_divss, a, b},
      };
      for (const auto& c : cases) {
        const std::uint64_t ops[3] = {c.x, c.y, 0};
        const Rounded got = apply_op(c.op, f, ops, o);
        const Rounded hw = c.hw(c.x, c.y, csr);
        ASSERT_EQ(got.bits, hw.bits) << op_info(c.op).name << " " << std::hex << c.x << " "
                                     << c.y << " mode " << to_string(m) << " ftz "
                                     << o.rounding.ftz << " daz " << o.rounding.daz;
        ASSERT_EQ(got.flags.bits, hw.flags.bits)
            << op_info(c.op).name << " " << std::hex << c.x << " " << c.y << " mode "
            << to_string(m) << " ftz " << o.rounding.ftz << " daz " << o.rounding.daz;
        ++checked;
      }
      const std::uint64_t ops[3] = {a, 0, 0};
      const Rounded got = apply_op(Op::sqrt, f, ops, o);
      const Rounded hw = wide ? hw_sqrt<double>(a, csr) : hw_sqrt<float>(a, csr);
      ASSERT_EQ(got.bits, hw.bits) << "sqrt " << std::hex << a << " " << to_string(m);
      ASSERT_EQ(got.flags.bits, hw.flags.bits) << "sqrt " << std::hex << a << " " << to_string(m);
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000000u);
}

TEST_P(ArithVsSse, FusedMultiplyAdd) {
  if (!__builtin_cpu_supports("fma")) GTEST_SKIP() << "this CPU has no FMA3";
  const Format& f = fmt(GetParam().format);
  const bool wide = GetParam().wide;
  OperandSource src(f, wide ? 65 : 33);
  const RoundingMode modes[] = {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up,
                                RoundingMode::down};
  std::uint64_t checked = 0;
  for (int i = 0; i < 60000; ++i) {
    std::uint64_t a, b, c;
    if (i % 3 == 0) {
      a = src.any(), b = src.any(), c = src.any();
    } else {
      a = src.for_product(i % 6 == 1);
      b = src.for_product(i % 6 == 1);
      // An addend close to the product: cancellation and sticky bits far below.
      const std::uint64_t p[3] = {a, b, 0};
      const Rounded prod = apply_op(Op::mul, f, p, OpOptions{});
      c = src.close_to(prod.bits ^ ((i % 2) ? f.sign_mask() : 0), i % 4 == 2 ? 1 : f.man_bits + 4);
    }
    if (both_nan(f, a, b)) continue;  // which multiplicand wins differs between fma forms
    for (RoundingMode m : modes) {
      OpOptions o = with(m, "x86");
      o.rounding.ftz = i % 5 == 1;
      o.rounding.daz = i % 7 == 2;
      const std::uint64_t ops[3] = {a, b, c};
      const Rounded got = apply_op(Op::mul_add, f, ops, o);
      const unsigned csr = csr_for(o.rounding);
      const Rounded hw = wide ? hw_fma<double>(a, b, c, csr) : hw_fma<float>(a, b, c, csr);
      ASSERT_EQ(got.bits, hw.bits) << "fma " << std::hex << a << " " << b << " " << c << " "
                                   << to_string(m) << " ftz " << o.rounding.ftz;
      ASSERT_EQ(got.flags.bits, hw.flags.bits)
          << "fma " << std::hex << a << " " << b << " " << c << " " << to_string(m) << " ftz "
          << o.rounding.ftz;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200000u);
}

INSTANTIATE_TEST_SUITE_P(X86, ArithVsSse,
                         ::testing::Values(HwCase{"f32", false}, HwCase{"f64", true}),
                         [](const auto& info) { return std::string(info.param.format); });
#endif  // __x86_64__

// ---- by hand, from IEEE 754-2019 and the format specs ----

TEST(ArithByHand, SmallFormats) {
  // e2m1 values: 0 0.5 1 1.5 2 3 4 6 (codes 0..7).
  EXPECT_EQ(run(Op::add, "e2m1", {0x2, 0x2}).bits, 0x4u);           // 1 + 1 = 2
  EXPECT_EQ(run(Op::mul, "e2m1", {0x3, 0x3}).bits, 0x4u);           // 1.5 * 1.5 = 2.25 -> 2
  EXPECT_EQ(run(Op::mul, "e2m1", {0x3, 0x3}).flags.bits, Flags::inexact);
  EXPECT_EQ(run(Op::add, "e2m1", {0x5, 0x1}).bits, 0x6u);           // 3 + 0.5 = 3.5 tie -> 4
  EXPECT_EQ(run(Op::add, "e2m1", {0x7, 0x7}).bits, 0x7u);           // 6 + 6: no inf, no NaN -> 6
  EXPECT_EQ(run(Op::add, "e2m1", {0x7, 0x7}).flags.bits, Flags::overflow | Flags::inexact);
  EXPECT_EQ(run(Op::sub, "e2m1", {0x4, 0x4}).bits, 0x0u);           // 2 - 2 = +0
  EXPECT_EQ(run(Op::sub, "e2m1", {0x4, 0x4}, with(RoundingMode::down)).bits, 0x8u);  // -0
  // e4m3 (OCP): 448 + 64 = 512: overflow; NaN without saturation, 448 with.
  EXPECT_EQ(run(Op::add, "e4m3", {0x7E, 0x68}).bits & 0x7Fu, 0x7Fu);
  OpOptions sat;
  sat.rounding.sat = Saturation::finite;
  EXPECT_EQ(run(Op::add, "e4m3", {0x7E, 0x68}, sat).bits, 0x7Eu);
  // 448 + 8 = 456 rounds to 448 (ties to even at the 448/480 step): no overflow.
  EXPECT_EQ(run(Op::add, "e4m3", {0x7E, 0x50}).bits, 0x7Eu);
  EXPECT_EQ(run(Op::add, "e4m3", {0x7E, 0x50}).flags.bits, Flags::inexact);
  // bf16: 1 + 1 = 2; 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> 1 (even).
  EXPECT_EQ(run(Op::add, "bf16", {0x3F80, 0x3F80}).bits, 0x4000u);
  EXPECT_EQ(run(Op::add, "bf16", {0x3F80, 0x3B80}).bits, 0x3F80u);
  EXPECT_EQ(run(Op::add, "bf16", {0x3F80, 0x3B80}, with(RoundingMode::up)).bits, 0x3F81u);
  EXPECT_EQ(run(Op::add, "bf16", {0x3F80, 0x3B80}, with(RoundingMode::odd)).bits, 0x3F81u);
  // f16 fma: 1 * 1 + 2^-24 (min subnormal) = 1 + 2^-24, inexact, 1 in rne, 1+2^-10 up.
  EXPECT_EQ(run(Op::mul_add, "f16", {0x3C00, 0x3C00, 0x0001}).bits, 0x3C00u);
  EXPECT_EQ(run(Op::mul_add, "f16", {0x3C00, 0x3C00, 0x0001}, with(RoundingMode::up)).bits,
            0x3C01u);
  // f16 sqrt(2) = 1.41421356... = 0x3DA8 (1.4140625) rne; 0x3DA9 up.
  EXPECT_EQ(run(Op::sqrt, "f16", {0x4000}).bits, 0x3DA8u);
  EXPECT_EQ(run(Op::sqrt, "f16", {0x4000}, with(RoundingMode::up)).bits, 0x3DA9u);
  // ue8m0 (powers of two, unsigned, no zero): 2 * 4 = 8; 1 - 2 is negative -> NaN 0xFF.
  EXPECT_EQ(run(Op::mul, "ue8m0", {0x80, 0x81}).bits, 0x82u);
  EXPECT_EQ(run(Op::sub, "ue8m0", {0x7F, 0x80}).bits, 0xFFu);
  EXPECT_EQ(run(Op::sub, "ue8m0", {0x7F, 0x80}).flags.bits, Flags::invalid);
  // Division by zero: +inf with the divide-by-zero flag (f16); e4m3 has no inf: NaN, invalid.
  EXPECT_EQ(run(Op::div, "f16", {0x3C00, 0x0000}).bits, 0x7C00u);
  EXPECT_EQ(run(Op::div, "f16", {0x3C00, 0x0000}).flags.bits, Flags::infinite);
  EXPECT_EQ(run(Op::div, "e4m3", {0x38, 0x00}).bits, 0x7Fu);
  EXPECT_EQ(run(Op::div, "e4m3", {0x38, 0x00}).flags.bits, Flags::infinite | Flags::invalid);
}

TEST(ArithByHand, NanPolicies) {
  const std::uint64_t snan_payload = 0x7F800005, qnan_neg = 0xFFC00007;  // f32
  struct {
    const char* policy;
    std::uint32_t invalid_result;   // inf - inf
    std::uint32_t propagated;       // qNaN(-,7) + 1
    std::uint32_t quieted;          // sNaN(5) + 1
  } expected[] = {
      {"ieee", 0x7FC00000, 0xFFC00007, 0x7FC00005},
      {"x86", 0xFFC00000, 0xFFC00007, 0x7FC00005},
      {"arm-default-nan", 0x7FC00000, 0x7FC00000, 0x7FC00000},
      {"riscv", 0x7FC00000, 0x7FC00000, 0x7FC00000},
      {"nvidia", 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF},
  };
  for (const auto& e : expected) {
    OpOptions o = with(RoundingMode::rne, e.policy);
    const Rounded inv = run(Op::add, "f32", {0x7F800000, 0xFF800000}, o);
    EXPECT_EQ(inv.bits, e.invalid_result) << e.policy;
    EXPECT_EQ(inv.flags.bits, Flags::invalid) << e.policy;
    const Rounded prop = run(Op::add, "f32", {0x3F800000, qnan_neg}, o);
    EXPECT_EQ(prop.bits, e.propagated) << e.policy;
    EXPECT_EQ(prop.flags.bits, 0) << e.policy;
    const Rounded q = run(Op::mul, "f32", {snan_payload, 0x3F800000}, o);
    EXPECT_EQ(q.bits, e.quieted) << e.policy;
    EXPECT_EQ(q.flags.bits, Flags::invalid) << e.policy;
    // fma(0, inf, qNaN): the qNaN (or the default NaN); invalid where the policy says so.
    const Rounded f = run(Op::mul_add, "f32", {0x00000000, 0x7F800000, 0x7FC00001}, o);
    const auto& p = find_nan_policy(e.policy);
    EXPECT_EQ(f.bits, p.propagate ? 0x7FC00001u : e.invalid_result) << e.policy;
    EXPECT_EQ(f.flags.bits, p.invalid_for_zero_times_inf_plus_qnan ? Flags::invalid : 0)
        << e.policy;
  }
  // f16 and bf16 under nvidia: 0x7FFF.
  EXPECT_EQ(run(Op::sqrt, "f16", {0xBC00}, with(RoundingMode::rne, "nvidia")).bits, 0x7FFFu);
  EXPECT_EQ(run(Op::sqrt, "bf16", {0xBF80}, with(RoundingMode::rne, "nvidia")).bits, 0x7FFFu);
  // e4m3 has one NaN per sign; x86's default NaN is negative there too.
  EXPECT_EQ(run(Op::mul, "e4m3", {0x00, 0x7F}).bits, 0x7Fu);
  EXPECT_EQ(run(Op::sqrt, "e4m3", {0xB8}, with(RoundingMode::rne, "x86")).bits, 0xFFu);
  EXPECT_EQ(run(Op::sqrt, "e4m3fnuz", {0xB8}).bits, 0x80u);
}

TEST(ArithByHand, RoundToInt) {
  // f32 2.5 = 0x40200000, -2.5 = 0xC0200000, 3 = 0x40400000, 2 = 0x40000000.
  struct {
    RoundingMode m;
    std::uint32_t pos, neg;
  } cases[] = {
      {RoundingMode::rne, 0x40000000, 0xC0000000}, {RoundingMode::rna, 0x40400000, 0xC0400000},
      {RoundingMode::rtz, 0x40000000, 0xC0000000}, {RoundingMode::up, 0x40400000, 0xC0000000},
      {RoundingMode::down, 0x40000000, 0xC0400000}, {RoundingMode::odd, 0x40400000, 0xC0400000},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(run(Op::round_to_int, "f32", {0x40200000}, with(c.m)).bits, c.pos) << to_string(c.m);
    EXPECT_EQ(run(Op::round_to_int, "f32", {0xC0200000}, with(c.m)).bits, c.neg) << to_string(c.m);
    EXPECT_EQ(run(Op::round_to_int, "f32", {0x40200000}, with(c.m)).flags.bits, Flags::inexact);
  }
  OpOptions quiet;
  quiet.exact_int = false;
  EXPECT_EQ(run(Op::round_to_int, "f32", {0x40200000}, quiet).flags.bits, 0);
  // 0.25 rounds to +0 (rne) keeping the sign for -0.25; 2.0 is exact.
  EXPECT_EQ(run(Op::round_to_int, "f32", {0xBE800000}).bits, 0x80000000u);
  EXPECT_EQ(run(Op::round_to_int, "f32", {0x40000000}).flags.bits, 0);
  // Stochastic A with 2 bits: 2.25 has f = 1/4 = 01b; away iff 1 + r >= 4, i.e. r = 3.
  OpOptions sr = with(RoundingMode::stochastic_a);
  sr.rounding.stochastic_bits = 2;
  sr.rounding.random = 2;
  EXPECT_EQ(run(Op::round_to_int, "f32", {0x40100000}, sr).bits, 0x40000000u);
  sr.rounding.random = 3;
  EXPECT_EQ(run(Op::round_to_int, "f32", {0x40100000}, sr).bits, 0x40400000u);
  // inf stays inf even under sat=finite.
  OpOptions sat;
  sat.rounding.sat = Saturation::finite;
  EXPECT_EQ(run(Op::round_to_int, "f16", {0x7C00}, sat).bits, 0x7C00u);
}

TEST(ArithByHand, MinMaxAndComparisons) {
  const std::uint64_t pz = 0x0000, nz = 0x8000, one = 0x3C00, qnan = 0x7E00, snan = 0x7D00;
  EXPECT_EQ(run(Op::minimum, "f16", {pz, nz}).bits, nz);
  EXPECT_EQ(run(Op::maximum, "f16", {nz, pz}).bits, pz);
  EXPECT_EQ(run(Op::minimum_number, "f16", {nz, pz}).bits, nz);
  EXPECT_EQ(run(Op::minimum, "f16", {one, qnan}).bits, qnan);
  EXPECT_EQ(run(Op::minimum_number, "f16", {one, qnan}).bits, one);
  EXPECT_EQ(run(Op::minimum_number, "f16", {one, qnan}).flags.bits, 0);
  EXPECT_EQ(run(Op::maximum_number, "f16", {snan, one}).bits, one);
  EXPECT_EQ(run(Op::maximum_number, "f16", {snan, one}).flags.bits, Flags::invalid);
  EXPECT_EQ(run(Op::maximum, "f16", {snan, one}).bits, 0x7F00u);  // quieted, payload kept
  // Comparisons: -0 == +0; NaN unordered; invalid rules.
  EXPECT_EQ(run(Op::eq, "f16", {pz, nz}).bits, 1u);
  EXPECT_EQ(run(Op::lt, "f16", {nz, pz}).bits, 0u);
  EXPECT_EQ(run(Op::le, "f16", {nz, pz}).bits, 1u);
  EXPECT_EQ(run(Op::lt, "f16", {one, 0x4000}).bits, 1u);
  EXPECT_EQ(run(Op::eq, "f16", {qnan, qnan}).bits, 0u);
  EXPECT_EQ(run(Op::eq, "f16", {qnan, one}).flags.bits, 0);
  EXPECT_EQ(run(Op::eq, "f16", {snan, one}).flags.bits, Flags::invalid);
  EXPECT_EQ(run(Op::eq_signaling, "f16", {qnan, one}).flags.bits, Flags::invalid);
  EXPECT_EQ(run(Op::lt, "f16", {qnan, one}).flags.bits, Flags::invalid);
  EXPECT_EQ(run(Op::lt_quiet, "f16", {qnan, one}).flags.bits, 0);
  EXPECT_EQ(run(Op::le_quiet, "f16", {one, snan}).flags.bits, Flags::invalid);
  // e4m3fnuz: the NaN is 0x80 and never signaling.
  EXPECT_EQ(run(Op::eq, "e4m3fnuz", {0x80, 0x38}).flags.bits, 0);
  EXPECT_EQ(run(Op::lt, "e4m3fnuz", {0x80, 0x38}).flags.bits, Flags::invalid);
}

TEST(ArithByHand, OpTable) {
  for (const OpInfo& i : all_ops()) {
    ASSERT_TRUE(find_op(i.name).has_value()) << i.name;
    EXPECT_EQ(op_info(*find_op(i.name)).name, i.name);
  }
  EXPECT_FALSE(find_op("fma").has_value());
  EXPECT_THROW(find_nan_policy("arm"), Error);
}

}  // namespace
}  // namespace fpconform
