// Matrix units whose a and b differ in format (e4m3 x e5m2, fp6 x fp4) and whose C differs from
// D (f16 C into f32 D), against oracles that do not share emu's code:
// - the exact structure = the MPFR/GMP accumulator (reference::exact_dot takes each operand's
//   format), blocks chained (later steps' C is the previous D);
// - fp32-sequential = a chain of the oracle's fma in f32, every input converted exactly;
// - the fused presets = the same preset with one input format, on operands whose values (and
//   alignment exponents) the other format holds: the one-format models are the ones the
//   recorded H100 rows and the H200 results check.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "fpconform/arith.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/reference/arith.hpp"
#include "fpconform/reference/dot.hpp"

namespace fpconform {
namespace {

// Uniform over all codes, or a narrow exponent window (much cancellation), or zeros and
// subnormals.
std::uint64_t random_code(std::mt19937_64& rng, const Format& f, int kind) {
  std::uint64_t v = rng() & f.code_mask();
  if (kind == 1 && f.exp_bits >= 3) {
    const std::uint64_t field = static_cast<std::uint64_t>(f.bias) - 1 + rng() % 3;
    v = (v & (f.sign_mask() | ((1ull << f.man_bits) - 1))) | (field << f.man_bits);
  }
  if (kind == 2 && rng() % 3 == 0) v &= f.sign_mask() | ((1ull << f.man_bits) - 1);
  if (kind == 2 && rng() % 4 == 0) v &= f.sign_mask();
  return v;
}

std::vector<std::uint64_t> random_codes(std::mt19937_64& rng, const Format& f, std::size_t k,
                                        int kind) {
  std::vector<std::uint64_t> v(k);
  for (auto& x : v) x = random_code(rng, f, kind);
  return v;
}

struct Formats {
  const char *a, *b, *c, *d;
  FdpaFormats get() const {
    return FdpaFormats(parse_format(a), parse_format(b), parse_format(c), parse_format(d));
  }
};

constexpr RoundingMode kModes[] = {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up,
                                   RoundingMode::down, RoundingMode::odd};

TEST(MixedFormats, ExactStructureMatchesTheGmpAccumulator) {
  std::mt19937_64 rng(31);
  std::printf("seed 31\n");
  const Formats cases[] = {{"e4m3", "e5m2", "f16", "f32"}, {"e5m2", "e4m3", "bf16", "f32"},
                           {"e2m3", "e2m1", "f32", "f32"}, {"e3m2", "e2m1", "f16", "f32"},
                           {"f16", "bf16", "f32", "f16"},  {"e4m3", "bf16", "f32", "bf16"}};
  int compared = 0;
  for (const Formats& fs : cases) {
    const FdpaFormats f = fs.get();
    for (int t = 0; t < 500; ++t) {
      const std::size_t k = 1 + rng() % 40;
      const std::vector<std::uint64_t> a = random_codes(rng, f.a, k, t % 3),
                                       b = random_codes(rng, f.b, k, t % 3);
      const std::uint64_t c = t % 7 == 0 ? 0 : random_code(rng, f.c, t % 3);
      FdpaParams p = find_matrix_unit("exact", f);
      p.block = t % 4 == 3 ? 1 + static_cast<int>(rng() % 6) : 0;
      for (RoundingMode mode : kModes) {
        p.out_rounding = Rounding{mode};
        const std::uint64_t got = fdpa(p, f, a, b, c);
        // The oracle: one exact dot product per block; the first takes C in its format, the
        // others the previous D.
        std::uint64_t want = c;
        const Format* c_format = &f.c;
        const std::size_t step = p.block == 0 ? k : static_cast<std::size_t>(p.block);
        for (std::size_t s = 0; s < k; s += step) {
          const std::size_t len = std::min(step, k - s);
          want = reference::exact_dot(std::span(a).subspan(s, len), f.a,
                                      std::span(b).subspan(s, len), f.b, want, *c_format, f.d,
                                      Rounding{mode})
                     .bits;
          c_format = &f.d;
        }
        if (f.d.is_nan_code(got) && f.d.is_nan_code(want)) continue;
        ASSERT_EQ(got, want) << fs.a << " x " << fs.b << " + " << fs.c << " -> " << fs.d
                             << " t=" << t << " k=" << k << " block=" << p.block
                             << " mode=" << to_string(mode);
        ++compared;
      }
    }
  }
  std::printf("%d non-NaN results compared\n", compared);
  EXPECT_GT(compared, 12000);
}

TEST(MixedFormats, SequentialMatchesAChainOfOracleFma) {
  std::mt19937_64 rng(32);
  std::printf("seed 32\n");
  const Formats cases[] = {{"e4m3", "e5m2", "f16", "f32"}, {"f16", "bf16", "bf16", "f32"},
                           {"e5m2", "e4m3", "f32", "f32"}};
  int compared = 0;
  for (const Formats& fs : cases) {
    const FdpaFormats f = fs.get();
    const FdpaParams p = find_matrix_unit("fp32-sequential", f);
    OpOptions o;
    o.rounding = p.out_rounding;
    o.nan = &find_nan_policy(p.nan);
    for (int t = 0; t < 1000; ++t) {
      const std::size_t k = 1 + rng() % 24;
      const std::vector<std::uint64_t> a = random_codes(rng, f.a, k, t % 3),
                                       b = random_codes(rng, f.b, k, t % 3);
      const std::uint64_t c = t % 5 == 0 ? 0 : random_code(rng, f.c, t % 3);
      std::uint64_t want = convert(c, f.c, f.d, Rounding{}).bits;
      for (std::size_t i = 0; i < k; ++i) {
        const std::uint64_t ops[3] = {convert(a[i], f.a, f.d, Rounding{}).bits,
                                      convert(b[i], f.b, f.d, Rounding{}).bits, want};
        want = reference::apply_op(Op::mul_add, f.d, ops, o).bits;
      }
      const std::uint64_t got = fdpa(p, f, a, b, c);
      if (f.d.is_nan_code(got) && f.d.is_nan_code(want)) continue;
      ASSERT_EQ(got, want) << fs.a << " x " << fs.b << " + " << fs.c << " t=" << t;
      ++compared;
    }
  }
  std::printf("%d non-NaN results compared\n", compared);
  EXPECT_GT(compared, 2000);
}

// Re-encodes every code of `v` (from `from`) in `to`, which holds its value exactly.
std::vector<std::uint64_t> recode(const std::vector<std::uint64_t>& v, const Format& from,
                                  const Format& to) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t x : v) out.push_back(convert(x, from, to, Rounding{}).bits);
  return out;
}

// A fused unit reads a product's alignment exponent from its operands' values (the leading bit
// of a normal value, emin for a subnormal), so where b's values are values of a's format with
// the same alignment exponents, a x b is the one-format unit on b re-encoded. e2m1 sits inside
// e2m3 (same exponent range, subnormals included); e5m2 codes of e4m3's normal binades sit
// inside e4m3 as normals.
TEST(MixedFormats, FusedUnitsEqualTheirOneFormatModelWhereTheValuesAgree) {
  std::mt19937_64 rng(33);
  struct Case {
    const char* preset;
    Formats f;
    bool normals_only;  // b drawn from a's normal binades
  };
  const Case cases[] = {{"blackwell", {"e2m3", "e2m1", "f32", "f32"}, false},
                        {"hopper", {"e4m3", "e5m2", "f32", "f32"}, true},
                        {"ada", {"e5m2", "e4m3", "f32", "f32"}, true},
                        {"hopper-mma", {"e4m3", "e5m2", "f16", "f16"}, true},
                        {"rtx-blackwell", {"e4m3", "e5m2", "f32", "f32"}, true}};
  int compared = 0;
  for (const Case& cs : cases) {
    const FdpaFormats f = cs.f.get();
    const FdpaParams mixed = find_matrix_unit(cs.preset, f);
    // The one-format unit of the format that holds the other's values.
    const bool b_inside_a = cs.f.b == std::string_view("e2m1") || cs.f.a == std::string_view("e4m3");
    const Format& host = b_inside_a ? f.a : f.b;
    const Format& guest = b_inside_a ? f.b : f.a;
    const FdpaParams one = find_matrix_unit(cs.preset, host, f.d);
    for (int t = 0; t < 400; ++t) {
      const std::size_t k = 1 + rng() % 70;
      std::vector<std::uint64_t> h = random_codes(rng, host, k, t % 3), g(k);
      for (auto& x : g) {
        x = random_code(rng, guest, t % 3);
        if (cs.normals_only) {
          // a normal of the host's binades (e4m3: 2^-6 .. 2^8 for e5m2 codes), or zero
          const int e = -6 + static_cast<int>(rng() % 15);
          const std::uint64_t field = static_cast<std::uint64_t>(e + guest.bias);
          x = (x & (guest.sign_mask() | ((1ull << guest.man_bits) - 1))) | (field << guest.man_bits);
          if (rng() % 10 == 0) x &= guest.sign_mask();
        }
      }
      const std::uint64_t c = random_code(rng, f.c, 1);
      const std::vector<std::uint64_t>& a = b_inside_a ? h : g;
      const std::vector<std::uint64_t>& b = b_inside_a ? g : h;
      const std::vector<std::uint64_t> g_host = recode(g, guest, host);
      const std::uint64_t got = fdpa(mixed, f, a, b, c);
      const std::uint64_t want = b_inside_a ? fdpa(one, host, f.d, h, g_host, c)
                                            : fdpa(one, host, f.d, g_host, h, c);
      ASSERT_EQ(got, want) << cs.preset << " " << cs.f.a << " x " << cs.f.b << " t=" << t;
      ++compared;
    }
  }
  std::printf("%d results compared\n", compared);
}

// C in a format D holds: a C value with the same alignment exponent in both (a normal f16 in
// f32) gives the result the unit gives with C written in D's format.
TEST(MixedFormats, NormalCInItsOwnFormatIsCInTheOutputFormat) {
  std::mt19937_64 rng(34);
  const Format f16 = parse_format("f16"), f32 = parse_format("f32");
  int compared = 0;
  for (const char* preset : {"volta", "ampere", "hopper", "cdna3", "exact", "cdna1"}) {
    const FdpaFormats f(f16, f16, f16, f32);
    const FdpaParams p = find_matrix_unit(preset, f);
    for (int t = 0; t < 300; ++t) {
      const std::size_t k = 1 + rng() % 40;
      const std::vector<std::uint64_t> a = random_codes(rng, f16, k, t % 2),
                                       b = random_codes(rng, f16, k, t % 2);
      std::uint64_t c = random_code(rng, f16, 1);
      if ((c & f16.magnitude_mask()) >> f16.man_bits == 0) c |= 1ull << f16.man_bits;  // normal
      const std::uint64_t got = fdpa(p, f, a, b, c);
      const std::uint64_t want = fdpa(p, f16, f32, a, b, convert(c, f16, f32, Rounding{}).bits);
      if (f32.is_nan_code(got) && f32.is_nan_code(want)) continue;
      ASSERT_EQ(got, want) << preset << " t=" << t;
      ++compared;
    }
  }
  EXPECT_GT(compared, 1000);
}

// The kernel (the integer fast paths, and the model where they do not serve) gives the model's
// bits with mixed formats, chains over many blocks included.
TEST(MixedFormats, KernelMatchesTheModel) {
  std::mt19937_64 rng(35);
  struct Case {
    const char* preset;
    Formats f;
  };
  const Case cases[] = {{"hopper", {"e4m3", "e5m2", "f32", "f32"}},
                        {"blackwell", {"e2m3", "e2m1", "f32", "f32"}},
                        {"blackwell", {"e4m3", "e2m1", "f32", "f32"}},
                        {"exact", {"e5m2", "e4m3", "f32", "f32"}},
                        {"volta", {"f16", "f16", "f16", "f32"}},
                        {"fp32-sequential", {"bf16", "f16", "f32", "f32"}}};
  int fast = 0;
  for (const Case& cs : cases) {
    const FdpaFormats f = cs.f.get();
    const FdpaParams p = find_matrix_unit(cs.preset, f);
    const FdpaKernel kernel(p, f);
    fast += kernel.fast() ? 1 : 0;
    for (int t = 0; t < 300; ++t) {
      const std::size_t k = 1 + rng() % 150;
      const std::vector<std::uint64_t> a = random_codes(rng, f.a, k, t % 3),
                                       b = random_codes(rng, f.b, k, t % 3);
      const std::uint64_t c = random_code(rng, f.c, t % 3);
      const std::uint64_t want = fdpa(p, f, a, b, c);
      ASSERT_EQ(kernel.dot(a, b, c), want) << cs.preset << " " << cs.f.a << " x " << cs.f.b
                                           << " + " << cs.f.c << " t=" << t << " k=" << k;
    }
  }
  EXPECT_GE(fast, 4);  // hopper, both blackwell, exact: the integer paths
}

TEST(MixedFormats, PresetsRefuseOperandsTheyModelDifferently) {
  // A pair is accepted only where both formats' entries carry the same parameters (cdna1:
  // groups of 4 f16 products but of 2 bf16 ones).
  const Format f16 = parse_format("f16"), bf16 = parse_format("bf16"), f32 = parse_format("f32");
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    if (e.input != std::string_view("f16")) continue;
    FdpaParams pf16, pbf16;
    try {
      pf16 = find_matrix_unit(e.preset, f16, f32);
      pbf16 = find_matrix_unit(e.preset, bf16, f32);
    } catch (const Error&) {
      continue;
    }
    const FdpaFormats mixed(f16, bf16, f32, f32);
    if (same_params(pf16, pbf16)) {
      EXPECT_NO_THROW(find_matrix_unit(e.preset, mixed)) << e.preset;
    } else {
      EXPECT_THROW(find_matrix_unit(e.preset, mixed), Error) << e.preset;
    }
  }
  EXPECT_THROW(find_matrix_unit("cdna1", FdpaFormats(f16, bf16, f32, f32)), Error);
}

}  // namespace
}  // namespace fpconform
