// emu's quantize_block against the oracle's (reference/block_scale.hpp): random f32 blocks
// (normal, log-uniform over wide ranges, zeros, subnormals, values near powers of two and near
// the element format's maxf times a power of two, occasional NaN/inf), bits and flags equal.
// FPCONFORM_BLOCKSCALE_BLOCKS sets the number of blocks per rule (default 100000).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mpfr.h>

#include "fpconform/block_scale.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/reference/block_scale.hpp"

namespace {

using namespace fpconform;
using u64 = std::uint64_t;

long blocks_per_rule() {
  if (const char* s = std::getenv("FPCONFORM_BLOCKSCALE_BLOCKS")) return std::atol(s);
  return 100000;
}

u64 f32_bits(float f) { return std::bit_cast<std::uint32_t>(f); }

struct Gen {
  std::mt19937_64 rng;
  double elem_max;
  explicit Gen(u64 seed, double m) : rng(seed), elem_max(m) {}
  double uni() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }
  int pick(int n) { return static_cast<int>(rng() % static_cast<u64>(n)); }

  // One value of a block whose "style" fixes the scale of the block (so blocks have a spread
  // of amax) and which kinds of special values may appear.
  u64 value(int style, double scale) {
    const bool neg = rng() & 1;
    auto sgn = [&](u64 b) { return neg ? (b | 0x80000000u) : b; };
    const int r = pick(1000);
    if (style == 5 && r < 3) return pick(2) ? 0x7FC00000u + pick(4) : sgn(0x7F800000u);
    if (style == 5 && r < 6) return 0x7F800001u + pick(100);  // signalling NaN
    if (r < 40) return sgn(0);
    if (r < 70) return sgn(1 + rng() % 0x7FFFFFu);  // subnormal
    if (r < 120) {  // near a power of two
      const int e = pick(254) - 126;
      u64 b = static_cast<u64>(e + 127) << 23;
      const int d = pick(5) - 2;
      b = static_cast<u64>(static_cast<std::int64_t>(b) + d);
      return sgn(b & 0x7FFFFFFFu);
    }
    if (r < 170) {  // near maxf_elem * 2^k (the element grid's top), k around the block scale
      const double v = elem_max * std::ldexp(1.0, std::ilogb(scale) + pick(5) - 2);
      u64 b = f32_bits(static_cast<float>(v));
      if (!std::isfinite(static_cast<float>(v))) b = 0x7F7FFFFFu;
      b = static_cast<u64>(static_cast<std::int64_t>(b) + pick(7) - 3);
      return sgn(b & 0x7FFFFFFFu);
    }
    double v;
    switch (style % 3) {
      case 0: v = std::normal_distribution<double>(0.0, 1.0)(rng) * scale; break;
      case 1: v = std::exp2(uni() * 40.0 - 20.0) * scale; break;
      default: v = std::exp2(uni() * 300.0 - 150.0); break;  // f32's whole range
    }
    const float f = static_cast<float>(v);
    return sgn(std::isfinite(f) ? (f32_bits(f) & 0x7FFFFFFFu) : 0x7F7FFFFFu);
  }

  // A random exponent near the block scale, inside f32's range.
  int g_exp(double scale) { return std::max(-155, std::min(120, std::ilogb(scale))); }

  std::vector<u64> block(int n) {
    const int style = pick(6);
    std::vector<u64> b(n);
    const int kind = pick(100);
    if (kind < 2) return std::vector<u64>(n, pick(2) ? 0x80000000u : 0u);  // all zero
    const double scale = std::exp2(uni() * 280.0 - 145.0);
    for (auto& v : b) v = value(style, scale);
    if (kind < 10) {  // on the element grid: small integers times one power of two, often exact
      const int k = g_exp(scale);
      for (auto& v : b) {
        const int mant = pick(3) == 0 ? 0 : 1 + pick(15);
        const float f = std::ldexp(static_cast<float>(mant), k - pick(4));
        v = (rng() & 1 ? 0x80000000u : 0u) | (f32_bits(f) & 0x7FFFFFFFu);
      }
      return b;
    }
    if (kind < 13) {  // all tiny (subnormal or near-subnormal) block
      for (auto& v : b) v = (v & 0x80000000u) | (rng() % 0x1000000u);
    }
    return b;
  }
};

void check_rule(const ScaleRule& rule, const Format& elem, int block, long count) {
  const Format f32 = parse_format("f32");
  const double m = [&] {
    // maxf of the element format from the oracle's view (only to aim values near the top).
    mpfr_t t;
    mpfr_init2(t, 128);
    reference::max_finite(t, elem);
    const double d = mpfr_get_d(t, MPFR_RNDN);
    mpfr_clear(t);
    return d;
  }();
  Gen g(0x5eed0000u + std::hash<std::string>{}(rule.name + elem.name), m);
  long special = 0, zero_scale = 0, with_flags = 0, mismatches = 0, bit_mismatches = 0;
  for (long i = 0; i < count; ++i) {
    std::vector<u64> values = g.block(block);
    std::optional<u64> ts;
    if (!rule.tensor_scale_format.empty()) {
      if (g.pick(2)) {
        ts = tensor_scale(values, f32, elem, rule);
      }
      // emu's quantize_block refuses a NaN tensor scale (tensor_scale() gives one for a tensor
      // holding NaN or inf); such blocks are special anyway, so use a finite one.
      if (!ts || *ts == 0x7FC00000u) {
        // A random positive finite f32 tensor scale, log-uniform over 2^-40 .. 2^40.
        ts = f32_bits(static_cast<float>(std::exp2(g.uni() * 80.0 - 40.0)));
      }
    }
    const QuantizedBlock e = quantize_block(values, f32, elem, rule, ts);
    const reference::QuantizedBlockResult r = reference::quantize_block(values, f32, elem, rule, ts);
    const bool ok = e.scale == r.scale && e.elements == r.elements && e.flags.bits == r.flags;
    if (r.flags & Flags::invalid) ++special;
    if (r.flags) ++with_flags;
    if (!ok) {
      bit_mismatches += !(e.scale == r.scale && e.elements == r.elements);
      if (++mismatches <= 5) {
        std::string msg;
        char buf[64];
        for (u64 v : values) std::snprintf(buf, sizeof buf, "%08llx ", (unsigned long long)v), msg += buf;
        std::snprintf(buf, sizeof buf, " ts=%llx", ts ? (unsigned long long)*ts : 0ull);
        msg += buf;
        std::snprintf(buf, sizeof buf, "\n scale emu %llx ref %llx flags emu %02x ref %02x\n",
                      (unsigned long long)e.scale, (unsigned long long)r.scale, e.flags.bits,
                      r.flags);
        msg += buf;
        for (std::size_t k = 0; k < values.size(); ++k)
          if (e.elements[k] != r.elements[k]) {
            std::snprintf(buf, sizeof buf, " [%zu] emu %llx ref %llx", k,
                          (unsigned long long)e.elements[k], (unsigned long long)r.elements[k]);
            msg += buf;
          }
        ADD_FAILURE() << rule.name << " / " << elem.name << ": " << msg;
      }
    }
    zero_scale += (rule.choice == ScaleChoice::ratio && !(r.flags & Flags::invalid) &&
                   r.elements == std::vector<u64>(values.size(), 0));
  }
  std::printf("[blockscale] rule %-12s elem %-5s block %3d: %ld blocks, %ld matched (%ld differ in "
              "bits), %ld NaN/inf, %ld all-zero elements, %ld with flags\n",
              rule.name.c_str(), elem.name.c_str(), block, count, count - mismatches,
              bit_mismatches, special, zero_scale, with_flags);
  EXPECT_EQ(mismatches, 0);
}

TEST(BlockScale, EveryRuleMatchesTheOracle) {
  for (const ScaleRule& rule : scale_rules()) {
    const Format elem = parse_format(rule.default_element);
    const int block = rule.default_block > 32 ? 32 : rule.default_block;
    check_rule(rule, elem, block, blocks_per_rule());
  }
}

TEST(BlockScale, OtherElementFormats) {
  // The power-of-two rules with the other MX element formats (fewer blocks).
  for (const ScaleRule& rule : scale_rules()) {
    if (rule.choice == ScaleChoice::ratio) continue;
    for (const char* name : {"e5m2", "e3m2", "e2m3"}) {
      const Format elem = parse_format(name);
      check_rule(rule, elem, 32, blocks_per_rule() / 10);
    }
  }
}

}  // namespace
