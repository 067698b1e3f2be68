// tiled_gemm_example DIR [M K N SPLIT_K SEED]: random bf16 A, B and fp32 C, the kernel's D,
// written as raw little-endian files DIR/{A,B,C,D}.bin for `fpconform validate --shape M,K,N`.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "tiled_gemm.hpp"

template <typename T>
static bool write_raw(const std::string& path, const std::vector<T>& v) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  return static_cast<bool>(out);
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 7) {
    std::fprintf(stderr, "usage: tiled_gemm_example DIR [M K N SPLIT_K SEED]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int m = argc > 2 ? std::atoi(argv[2]) : 64, k = argc > 2 ? std::atoi(argv[3]) : 512;
  const int n = argc > 2 ? std::atoi(argv[4]) : 48;
  fpconform::examples::TiledGemmConfig cfg;
  cfg.split_k = argc > 2 ? std::atoi(argv[5]) : 4;
  const unsigned long seed = argc > 2 ? std::strtoul(argv[6], nullptr, 10) : 1;
  if (m <= 0 || k <= 0 || n <= 0 || cfg.split_k <= 0 || cfg.split_k > k) {
    std::fprintf(stderr, "tiled_gemm_example: need positive M K N and 1 <= SPLIT_K <= K\n");
    return 2;
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto bf16 = [&] {  // round a normal sample to bf16 (RNE on the bits)
    const std::uint32_t u = std::bit_cast<std::uint32_t>(normal(rng));
    return static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
  };
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  std::vector<std::uint32_t> c(static_cast<std::size_t>(m) * n);
  for (auto& x : a) x = bf16();
  for (auto& x : b) x = bf16();
  for (auto& x : c) x = std::bit_cast<std::uint32_t>(normal(rng));
  const auto d = fpconform::examples::tiled_gemm_bf16(cfg, m, n, k, a, b, c);
  if (!write_raw(dir + "/A.bin", a) || !write_raw(dir + "/B.bin", b) ||
      !write_raw(dir + "/C.bin", c) || !write_raw(dir + "/D.bin", d)) {
    std::fprintf(stderr, "tiled_gemm_example: cannot write into %s\n", dir.c_str());
    return 2;
  }
  std::printf("%dx%dx%d, split-K %d, seed %lu: wrote %s/{A,B,C,D}.bin\n", m, k, n, cfg.split_k, seed, dir.c_str());
  return 0;
}
