// The core's shared machinery against outside references: splitmix64 against Vigna's published
// sequence, the CPU-feature query against the kernel's /proc/cpuinfo, parallel_for against a
// plain loop.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fpconform/core/cpu_features.hpp"
#include "fpconform/core/parallel_for.hpp"
#include "fpconform/core/splitmix.hpp"

namespace fpconform {
namespace {

TEST(SplitMix64, MatchesTheReferenceSequence) {
  // Vigna's splitmix64.c seeded with 0 (the values every port checks against).
  SplitMix64 r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(r.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(r.next(), 0x06C45D188009454Full);
  // splitmix64(x) is the output that follows state x.
  EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64(kSplitMixGamma), 0x6E789E6AA1B965F4ull);
}

// The flags Linux reports for this CPU (empty off Linux or off x86).
std::set<std::string> proc_cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

TEST(CpuFeatures, AgreeWithProcCpuinfo) {
  const std::set<std::string> flags = proc_cpu_flags();
  if (flags.empty()) GTEST_SKIP() << "no flags line in /proc/cpuinfo (not Linux on x86)";
  auto has = [&](const char* f) { return flags.count(f) != 0; };
  const CpuFeatures& c = cpu_features();
  EXPECT_EQ(c.avx, has("avx"));
  EXPECT_EQ(c.avx2, has("avx2"));
  EXPECT_EQ(c.fma, has("fma"));
  EXPECT_EQ(c.f16c, has("avx2") && has("f16c"));
  EXPECT_EQ(c.avx512, has("avx2") && has("fma") && has("avx512f") && has("avx512bw") &&
                          has("avx512dq"));
  EXPECT_EQ(c.avx512vl, has("avx512vl"));
  EXPECT_EQ(c.avx512vbmi, c.avx512 && has("avx512vbmi"));
  EXPECT_EQ(c.avx512_fp16, has("avx512_fp16"));
  EXPECT_EQ(c.avx512_bf16, has("avx512_bf16"));
  EXPECT_EQ(c.amx_bf16, has("amx_bf16") && has("amx_tile"));
  std::printf("cpu: avx2 %d fma %d f16c %d avx512 %d avx512-fp16 %d avx512-bf16 %d amx-bf16 %d\n",
              c.avx2, c.fma, c.f16c, c.avx512, c.avx512_fp16, c.avx512_bf16, c.amx_bf16);
}

TEST(ParallelFor, EveryIndexOnceWhateverTheThreadCount) {
  for (unsigned threads : {0u, 1u, 2u, 3u, 7u, 64u})
    for (std::size_t n : {0u, 1u, 5u, 1000u}) {
      std::vector<std::atomic<int>> seen(n);
      parallel_for(n, threads, [&](std::size_t i) { ++seen[i]; });
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(seen[i].load(), 1) << "index " << i << " of " << n << ", " << threads << " threads";
    }
}

TEST(ParallelFor, RethrowsTheLowestIndexThatThrew) {
  for (unsigned threads : {1u, 2u, 7u}) {
    try {
      parallel_for(200, threads, [](std::size_t i) {
        if (i == 17 || i == 150) throw std::runtime_error("index " + std::to_string(i));
      });
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const std::runtime_error& e) {
      // Indices start in order, so 17 always runs; 150 may run too before the stop is seen,
      // and 17, the lower, is the one reported.
      EXPECT_STREQ(e.what(), "index 17") << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace fpconform
