// The double-arithmetic reference (double_convert.hpp, double_arith.hpp) against the MPFR
// oracle: for every operation and a set of formats it supports, a few thousand random operands
// (uniform codes, and operands of nearby magnitude, which exercise cancellation and ties) under
// every deterministic rounding mode, saturation, FTZ/DAZ, both tininess rules, and a stochastic
// mode; and conversions from f32 on random and boundary patterns. Bits and flags must agree.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fpconform/reference/arith.hpp"
#include "fpconform/reference/double_arith.hpp"
#include "fpconform/reference/double_convert.hpp"
#include "test_util.hpp"

using namespace reftest;
namespace ref = fpconform::reference;
namespace dref = fpconform::dref;
using fpconform::Op;
using fpconform::OpOptions;

namespace {

using u64 = std::uint64_t;

const char* const kFormats[] = {"e4m3", "e5m2", "e3m2", "e2m1", "e4m3fnuz", "f16", "bf16",
                                "tf32", "f32"};
constexpr RoundingMode kModes[] = {RoundingMode::rne, RoundingMode::rna, RoundingMode::rtz,
                                   RoundingMode::up,  RoundingMode::down, RoundingMode::odd};
constexpr int kCases = 3000;  // per (operation, format)

// The i-th configuration: the modes in turn, with saturation, FTZ/DAZ, tininess before
// rounding and a stochastic mode mixed in.
OpOptions config(int i, std::mt19937_64& rng) {
  OpOptions o;
  o.rounding.mode = kModes[i % 6];
  if (i % 7 == 3) o.rounding.sat = Saturation::finite;
  if (i % 11 == 5) o.rounding.ftz = true;
  if (i % 13 == 7) o.rounding.daz = true;
  if (i % 5 == 2) o.rounding.tininess = Tininess::before_rounding;
  if (i % 17 == 9) {
    o.rounding.mode = RoundingMode::stochastic_exact;
    o.rounding.stochastic_bits = 4;
    o.rounding.random = rng() & 0xF;
  }
  return o;
}

// An operand: a uniform code, or (every other case) a code close to `near` in magnitude.
u64 operand(const Format& f, std::mt19937_64& rng, u64 near, bool close) {
  const u64 all = f.width() >= 64 ? ~u64{0} : (u64{1} << f.width()) - 1;
  if (!close) return rng() & all;
  const u64 sign = f.is_signed ? (rng() & 1) << (f.width() - 1) : 0;
  const u64 mag_all = all >> (f.is_signed ? 1 : 0);
  const u64 mag = near & mag_all;
  const u64 spread = u64{1} << (f.man_bits + 1);
  const u64 d = rng() % (2 * spread + 1);
  const u64 m = mag + d >= spread ? mag + d - spread : 0;
  return sign | (m > mag_all ? mag_all : m);
}

std::string describe(Op op, const Format& f, const u64* v, const OpOptions& o) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %s(0x%llx, 0x%llx, 0x%llx) mode %s sat %s ftz %d daz %d",
                f.name.c_str(), std::string(fpconform::op_info(op).name).c_str(),
                static_cast<unsigned long long>(v[0]), static_cast<unsigned long long>(v[1]),
                static_cast<unsigned long long>(v[2]),
                std::string(fpconform::to_string(o.rounding.mode)).c_str(),
                std::string(fpconform::to_string(o.rounding.sat)).c_str(), o.rounding.ftz,
                o.rounding.daz);
  return buf;
}

TEST(DoubleOracle, SupportsTheFormatsOfItsScope) {
  for (const char* name : kFormats) EXPECT_TRUE(dref::supports_format(fmt(name))) << name;
  EXPECT_FALSE(dref::supports_format(fmt("f64")));
}

TEST(DoubleOracle, OperationsAgreeWithMpfr) {
  for (const char* name : kFormats) {
    const Format f = fmt(name);
    for (const fpconform::OpInfo& info : fpconform::all_ops()) {
      std::mt19937_64 rng(0x5EED + static_cast<u64>(info.op) * 131 + f.width());
      int bad = 0, run = 0;
      for (int i = 0; i < kCases && bad < 5; ++i) {
        const OpOptions o = config(i, rng);
        if (!dref::supports(f, o.rounding)) continue;
        u64 v[3];
        v[0] = operand(f, rng, 0, false);
        v[1] = operand(f, rng, v[0], i % 2 == 1);
        v[2] = operand(f, rng, v[0], i % 4 == 3);
        const dref::Result d = dref::apply_op(info.op, f, v, o);
        const OracleResult m = ref::apply_op(info.op, f, v, o);
        ++run;
        if (d.bits != m.bits || d.flags != m.flags) {
          ++bad;
          ADD_FAILURE() << describe(info.op, f, v, o) << ": double reference 0x" << std::hex
                        << d.bits << " flags 0x" << int(d.flags) << ", MPFR 0x" << m.bits
                        << " flags 0x" << int(m.flags);
        }
      }
      EXPECT_GT(run, kCases / 2) << name << " " << info.name;
    }
  }
}

TEST(DoubleOracle, ConversionsFromF32AgreeWithMpfr) {
  const Format f32 = fmt("f32");
  for (const char* name : kFormats) {
    const Format to = fmt(name);
    const dref::Target t = dref::make_target(to);
    std::mt19937_64 rng(0xC0DE + to.width());
    // f32 patterns around the target's range: exponents from below its smallest subnormal to
    // above its largest finite value, random fractions (with ties and near-ties), and any
    // pattern at all.
    const int emin = (to.subnormals ? 1 : 0) - to.bias;
    const int lo = std::max(1, emin - to.man_bits - 3 + 127), hi = std::min(254, (1 << to.exp_bits) - to.bias + 2 + 127);
    int bad = 0;
    for (int i = 0; i < 4000 && bad < 5; ++i) {
      std::uint32_t bits;
      if (i % 4 == 0) {
        bits = static_cast<std::uint32_t>(rng());
      } else {
        const std::uint32_t e = static_cast<std::uint32_t>(lo + static_cast<int>(rng() % (hi - lo + 1)));
        std::uint32_t frac = static_cast<std::uint32_t>(rng()) & 0x7FFFFF;
        const int s0 = 23 - to.man_bits;
        if (i % 4 == 2 && s0 > 0) frac = (frac & ~((1u << s0) - 1)) | (1u << (s0 - 1));  // a tie
        bits = (static_cast<std::uint32_t>(rng() & 1) << 31) | (e << 23) | frac;
      }
      std::mt19937_64 crng(i);
      Rounding r = config(i, crng).rounding;
      if (fpconform::is_stochastic(r.mode)) r.mode = RoundingMode::rne;
      const dref::Result d = dref::convert_f32(bits, t, r);
      const OracleResult m = ref::convert(bits, f32, to, r);
      if (d.bits != m.bits || d.flags != m.flags) {
        ++bad;
        ADD_FAILURE() << "f32 0x" << std::hex << bits << " -> " << name << " mode "
                      << fpconform::to_string(r.mode) << ": double reference 0x" << d.bits
                      << " flags 0x" << int(d.flags) << ", MPFR 0x" << m.bits << " flags 0x"
                      << int(m.flags);
      }
    }
  }
}

}  // namespace
