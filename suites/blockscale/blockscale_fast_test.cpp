// The streaming fast path (F32BlockQuantizer, fast_block_scale.hpp) against the MPFR oracle
// (reference/block_scale.hpp) directly: tensors of random blocks (normal and log-normal data,
// wide log-uniform ranges, any fp32 pattern including NaN, inf and subnormals) for every rule
// and MX element format the fast path serves; scales and element codes equal.
// FPCONFORM_BLOCKSCALE_BLOCKS scales the count (default 100000 -> 20000 blocks per case).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "fpconform/block_scale.hpp"
#include "fpconform/fast_block_scale.hpp"
#include "fpconform/reference/block_scale.hpp"

namespace {

using namespace fpconform;

long blocks_per_case() {
  long n = 100000;
  if (const char* s = std::getenv("FPCONFORM_BLOCKSCALE_BLOCKS")) n = std::atol(s);
  return std::max(1L, n / 5);
}

std::vector<float> random_tensor(long nblocks, int b, std::mt19937_64& rng) {
  std::vector<float> out;
  out.reserve(static_cast<std::size_t>(nblocks) * b);
  for (long j = 0; j < nblocks; ++j) {
    const int style = static_cast<int>(rng() % 5);
    const double scale = std::exp2(std::uniform_real_distribution<double>(-135.0, 125.0)(rng));
    for (int i = 0; i < b; ++i) {
      double v;
      switch (style) {
        case 0: v = std::normal_distribution<double>(0.0, 1.0)(rng) * scale; break;
        case 1: v = std::lognormal_distribution<double>(0.0, 3.0)(rng) * scale; break;
        case 2: v = std::exp2(std::uniform_real_distribution<double>(-40.0, 0.0)(rng)) * scale; break;
        case 3: v = std::normal_distribution<double>(0.0, 1.0)(rng); break;
        default: v = std::bit_cast<float>(static_cast<std::uint32_t>(rng() >> 7)); break;
      }
      float f = static_cast<float>(v);
      if (style != 4 && !std::isfinite(f)) f = 3.0e38f;
      out.push_back((rng() & 1) ? -f : f);
    }
    if (rng() % 200 == 0) out[out.size() - 1 - rng() % b] = std::bit_cast<float>(0x7FC00000u);
  }
  return out;
}

TEST(BlockScaleFast, FastPathMatchesTheOracle) {
  const Format f32 = parse_format("f32");
  std::mt19937_64 rng(0xFA57B10Cull);
  const struct { const char* rule; const char* elem; } cases[] = {
      {"ocp", "e4m3"},   {"ocp", "e5m2"},   {"ocp", "e2m3"},   {"ocp", "e3m2"},
      {"ocp", "e2m1"},   {"rceil", "e4m3"}, {"rceil", "e5m2"}, {"rceil", "e2m1"},
      {"microxcaling", "e4m3"}, {"microxcaling", "e2m1"},
  };
  for (const auto& c : cases) {
    const Format elem = parse_format(c.elem);
    const ScaleRule& rule = find_scale_rule(c.rule);
    const F32BlockQuantizer q(elem, rule, 32);
    ASSERT_TRUE(q.fast()) << q.why_generic();
    const long nblocks = blocks_per_case();
    const std::vector<float> x = random_tensor(nblocks, 32, rng);
    std::vector<std::uint8_t> codes(x.size()), scales(static_cast<std::size_t>(nblocks));
    q.quantize(x.data(), x.size(), codes.data(), scales.data());
    long bad = 0;
    std::vector<std::uint64_t> block(32);
    for (long j = 0; j < nblocks; ++j) {
      for (int i = 0; i < 32; ++i) block[i] = std::bit_cast<std::uint32_t>(x[j * 32 + i]);
      const reference::QuantizedBlockResult r = reference::quantize_block(block, f32, elem, rule);
      bool ok = scales[j] == r.scale;
      for (int i = 0; i < 32 && ok; ++i) ok = codes[j * 32 + i] == r.elements[i];
      if (!ok && ++bad <= 3)
        ADD_FAILURE() << c.rule << " / " << c.elem << " block " << j << ": scale fast "
                      << int(scales[j]) << " oracle " << r.scale;
    }
    std::printf("[blockscale-fast] %-12s %-5s: %ld blocks from the fast path, %ld differ from "
                "the oracle\n", c.rule, c.elem, nblocks, bad);
    EXPECT_EQ(bad, 0);
  }
}

}  // namespace
