// F32BlockQuantizer (fast_block_scale.hpp) against quantize_block, the clear path (itself
// checked against the MPFR oracle in suites/blockscale): scales and element codes equal for
// every rule, on crafted blocks (amax at, just below and above every power of two and every
// maxf * 2^k, all-zero blocks, NaN/inf, fp32 subnormals, elements that underflow fp32 when
// scaled, ties of the element grid) and on random ones, in tensors that span several chunks.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "fpconform/block_scale.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fast_block_scale.hpp"

using namespace fpconform;

namespace {

const Format F32 = parse_format("f32");

float fl(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// Quantizes `values` (whole blocks) both ways; returns the number of blocks that differ and
// reports the first few.
long compare(const F32BlockQuantizer& q, const Format& elem, const ScaleRule& rule,
             const std::vector<float>& values) {
  const std::size_t b = static_cast<std::size_t>(q.block());
  const std::size_t nblocks = values.size() / b;
  std::vector<std::uint8_t> codes(values.size() * q.code_bytes());
  std::vector<std::uint8_t> scales(nblocks * q.scale_bytes());
  q.quantize(values.data(), values.size(), codes.data(), scales.data());
  auto load = [](const std::vector<std::uint8_t>& v, std::size_t bytes, std::size_t i) {
    std::uint64_t x = 0;
    for (std::size_t k = 0; k < bytes; ++k) x |= std::uint64_t{v[i * bytes + k]} << (8 * k);
    return x;  // little-endian hosts (x86, arm)
  };
  long bad = 0;
  std::vector<std::uint64_t> block(b);
  for (std::size_t j = 0; j < nblocks; ++j) {
    for (std::size_t i = 0; i < b; ++i) block[i] = bits(values[j * b + i]);
    const QuantizedBlock want = quantize_block(block, F32, elem, rule);
    bool ok = load(scales, q.scale_bytes(), j) == want.scale;
    for (std::size_t i = 0; i < b && ok; ++i)
      ok = load(codes, q.code_bytes(), j * b + i) == want.elements[i];
    if (!ok && ++bad <= 3) {
      std::string msg;
      char buf[96];
      std::snprintf(buf, sizeof buf, "block %zu: scale fast %llx clear %llx; ", j,
                    (unsigned long long)load(scales, q.scale_bytes(), j),
                    (unsigned long long)want.scale);
      msg += buf;
      for (std::size_t i = 0; i < b; ++i)
        if (load(codes, q.code_bytes(), j * b + i) != want.elements[i]) {
          std::snprintf(buf, sizeof buf, "[%zu] x=%08x fast %llx clear %llx ", i,
                        (unsigned)block[i], (unsigned long long)load(codes, q.code_bytes(), j * b + i),
                        (unsigned long long)want.elements[i]);
          msg += buf;
        }
      ADD_FAILURE() << rule.name << " / " << elem.name << " " << msg;
    }
  }
  return bad;
}

// Crafted blocks of `b` values for element format `elem`.
std::vector<float> crafted(const Format& elem, int b, std::mt19937_64& rng) {
  std::vector<float> out;
  const double maxf = to_double(elem.max_finite_code(), elem);
  auto push_block = [&](float amax, std::uint32_t fill_seed) {
    // amax first, then values spread below it: small multiples of the element grid, ties,
    // values far below (underflow in fp32 after scaling), zeros of both signs.
    std::mt19937_64 r(fill_seed);
    std::vector<float> blk(static_cast<std::size_t>(b));
    blk[0] = (r() & 1) ? -amax : amax;
    for (int i = 1; i < b; ++i) {
      const int kind = static_cast<int>(r() % 6);
      float v;
      if (kind == 0) v = 0.0f;
      else if (kind == 1) v = std::ldexp(static_cast<float>(r() % 64) + 0.5f, std::ilogb(amax) - 6 - static_cast<int>(r() % 12));
      else if (kind == 2) v = std::ldexp(1.0f, std::ilogb(amax) - static_cast<int>(r() % 160));
      else if (kind == 3) v = fl(bits(amax) - static_cast<std::uint32_t>(r() % 4096));
      else v = amax * static_cast<float>(std::ldexp(static_cast<double>(r() % 1000), -10));
      if (!std::isfinite(v)) v = amax;
      blk[static_cast<std::size_t>(i)] = (r() & 1) ? -v : v;
    }
    out.insert(out.end(), blk.begin(), blk.end());
  };
  std::uint32_t seed = 1;
  for (int e = -126; e <= 127; ++e) {
    const std::uint32_t p = static_cast<std::uint32_t>(e + 127) << 23;  // 2^e
    for (int d : {-2, -1, 0, 1, 2}) {
      const std::uint32_t a = p + static_cast<std::uint32_t>(d);
      if ((a & 0x7FFFFFFFu) < 0x00800000u || (a & 0x7FFFFFFFu) >= 0x7F800000u) continue;
      push_block(fl(a), seed++);
    }
    // maxf * 2^(e - emax) and its neighbours (the rceil boundary).
    const double m = std::ldexp(maxf, e - elem.emax());
    if (m >= 0x1p-126 && m < 0x1p127)
      for (int d : {-1, 0, 1}) push_block(fl(bits(static_cast<float>(m)) + static_cast<std::uint32_t>(d)), seed++);
  }
  const std::uint32_t specials[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u,
                                    0x7F800001u, 0x00000001u, 0x807FFFFFu, 0x00400000u};
  for (std::uint32_t s : specials) {
    for (float amax : {1.0f, 448.0f, 0x1p-120f, 0x1p100f}) {
      push_block(amax, seed++);
      out[out.size() - 1 - (rng() % static_cast<std::size_t>(b))] = fl(s);
    }
  }
  // All-zero blocks, +0 and mixed signs; a block of only subnormals.
  for (int z = 0; z < 3; ++z)
    for (int i = 0; i < b; ++i) out.push_back(z == 0 ? 0.0f : (z == 1 ? -0.0f : ((i & 1) ? -0.0f : 0.0f)));
  for (int i = 0; i < b; ++i) out.push_back(fl(static_cast<std::uint32_t>(1 + rng() % 0x7FFFFFu)));
  return out;
}

std::vector<float> random_blocks(int b, long nblocks, std::mt19937_64& rng) {
  std::vector<float> out;
  out.reserve(static_cast<std::size_t>(b) * nblocks);
  for (long j = 0; j < nblocks; ++j) {
    const int style = static_cast<int>(rng() % 4);
    const double scale = std::exp2(std::uniform_real_distribution<double>(-140.0, 120.0)(rng));
    for (int i = 0; i < b; ++i) {
      double v;
      if (style == 0) v = std::normal_distribution<double>(0.0, 1.0)(rng) * scale;
      else if (style == 1) v = std::exp2(std::uniform_real_distribution<double>(-30.0, 10.0)(rng)) * scale;
      else if (style == 2) v = std::lognormal_distribution<double>(0.0, 2.0)(rng);
      else v = fl(static_cast<std::uint32_t>(rng()));  // any pattern: NaN, inf, subnormal too
      float f = static_cast<float>(v);
      if (style != 3 && !std::isfinite(f)) f = 3.0e38f;
      out.push_back((style != 3 && (rng() & 1)) ? -f : f);
    }
  }
  return out;
}

struct Case {
  const char* rule;
  const char* elem;
  int block;
  bool fast;
};

const Case kCases[] = {
    {"ocp", "e4m3", 32, true},        {"ocp", "e5m2", 32, true},
    {"ocp", "e2m3", 32, true},        {"ocp", "e3m2", 32, true},
    {"ocp", "e2m1", 32, true},        {"ocp", "e4m3fnuz", 32, true},
    {"rceil", "e4m3", 32, true},      {"rceil", "e5m2", 32, true},
    {"rceil", "e2m3", 32, true},      {"rceil", "e3m2", 32, true},
    {"rceil", "e2m1", 32, true},      {"microxcaling", "e4m3", 32, true},
    {"microxcaling", "e2m1", 32, true}, {"microxcaling", "e3m2", 16, true},
    {"ocp", "e4m3", 7, true},         {"rceil", "e2m1", 5000, true},
    {"nvfp4", "e2m1", 16, false},     {"tile", "e4m3", 128, false},
    {"ocp", "bf16", 32, false},
};

}  // namespace

TEST(FastBlockScale, WhatTheFastPathServes) {
  for (const Case& c : kCases) {
    const F32BlockQuantizer q(parse_format(c.elem), find_scale_rule(c.rule), c.block);
    EXPECT_EQ(q.fast(), c.fast) << c.rule << " " << c.elem << ": " << q.why_generic();
    EXPECT_EQ(q.why_generic().empty(), c.fast);
  }
  EXPECT_EQ(F32BlockQuantizer(parse_format("e2m1"), find_scale_rule("nvfp4"), 16).why_generic(),
            "the scale is amax / maxf rounded into e4m3 (not a power of two)");
}

TEST(FastBlockScale, MatchesQuantizeBlockOnCraftedAndRandomBlocks) {
  std::mt19937_64 rng(20260501);
  long total = 0;
  for (const Case& c : kCases) {
    const Format elem = parse_format(c.elem);
    const ScaleRule& rule = find_scale_rule(c.rule);
    const F32BlockQuantizer q(elem, rule, c.block);
    std::vector<float> v = crafted(elem, c.block, rng);
    const long nrandom = (c.fast ? 6000 : 1000) * 32 / c.block + 1;
    const std::vector<float> r = random_blocks(c.block, nrandom, rng);
    v.insert(v.end(), r.begin(), r.end());
    const long blocks = static_cast<long>(v.size()) / c.block;
    total += blocks;
    const long bad = compare(q, elem, rule, v);
    std::printf("[fast-blockscale] %-12s %-8s block %4d (%s): %ld blocks, %ld differ\n", c.rule,
                c.elem, c.block, c.fast ? "fast" : "generic", blocks, bad);
    EXPECT_EQ(bad, 0) << c.rule << " " << c.elem;
  }
  EXPECT_GT(total, 100000);
}

TEST(FastBlockScale, ConvertsTheCanonicalExamples) {
  // The spec's 957 -> 896 example and an all-zero block, straight from the fast path.
  const F32BlockQuantizer q(parse_format("e4m3"), find_scale_rule("ocp"), 4);
  const float in[8] = {957.f, 1.f, -3.f, 0.f, 0.f, -0.f, 0.f, 0.f};
  std::uint8_t codes[8], scales[2];
  q.quantize(in, 8, codes, scales);
  EXPECT_EQ(scales[0], 0x80);  // X = 2
  EXPECT_EQ(codes[0], 0x7E);   // 478.5 -> 480 clamps to 448
  EXPECT_EQ(codes[1], 0x30);
  EXPECT_EQ(codes[2], 0xBC);
  EXPECT_EQ(scales[1], 0x00);  // the smallest scale, 2^-127
  EXPECT_EQ(codes[5], 0x80);   // -0 kept
}

TEST(FastBlockScale, RefusesPartialBlocks) {
  const F32BlockQuantizer q(parse_format("e4m3"), find_scale_rule("ocp"), 32);
  std::vector<float> in(40, 1.0f);
  std::vector<std::uint8_t> codes(40), scales(2);
  try {
    q.quantize(in.data(), in.size(), codes.data(), scales.data());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "n");
  }
  EXPECT_THROW(F32BlockQuantizer(parse_format("e4m3"), find_scale_rule("ocp"), 0), Error);
  EXPECT_THROW(F32BlockQuantizer(parse_format("f32"), find_scale_rule("ocp"), 32), Error);
}
