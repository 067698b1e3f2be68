// DotBatch access for the MMA kernels. A batch holds `rows` independent dot products
// d = sum_{i<k} a_i b_i + c, each row stored as 2k+1 codes: a[0..k), b[0..k), c.
// Mapping onto an m x 8 tile (PLAN.md "MMA mapping"): eight rows per instruction; row r of the
// group goes to A row r, B column r and C/D element (r, r). All other A rows and C elements are
// zero, so D(r, r) = sum_i A(r, i) B(i, r) + C(r, r) sees exactly one row's a, b and c; the
// off-diagonal D elements are discarded.
#pragma once
#include <cstdint>

namespace fpconform::gpu::cuda {

struct DotRows {
  const std::uint32_t* codes;
  std::uint64_t rows;
  std::uint64_t row0;  // first row of this group of eight
  int k;

  __device__ bool live(int r) const { return r < 8 && row0 + static_cast<std::uint64_t>(r) < rows; }
  __device__ const std::uint32_t* row(int r) const { return codes + (row0 + r) * (2 * k + 1); }
  // A(m, i): row m's a_i for m < 8, else 0
  __device__ std::uint32_t a(int m, int i) const { return live(m) ? row(m)[i] : 0u; }
  // B(i, n): row n's b_i
  __device__ std::uint32_t b(int i, int n) const { return live(n) ? row(n)[k + i] : 0u; }
  // C(m, n): row m's c on the diagonal, else 0
  __device__ std::uint32_t c(int m, int n) const { return m == n && live(m) ? row(m)[2 * k] : 0u; }
};

__device__ inline std::uint32_t pack16(std::uint32_t lo, std::uint32_t hi) {
  return (lo & 0xFFFFu) | (hi << 16);
}
__device__ inline std::uint32_t pack8(std::uint32_t b0, std::uint32_t b1, std::uint32_t b2, std::uint32_t b3) {
  return (b0 & 0xFFu) | ((b1 & 0xFFu) << 8) | ((b2 & 0xFFu) << 16) | (b3 << 24);
}

// Fragments of one warp's 16-row slice whose rows 0..7 carry the group (PTX ISA "Matrix
// Fragments for mma.m16n8k16 / m16n8k8 / m16n8k32"; groupID g = lane >> 2, t = lane % 4).
// Registers for rows g + 8 are zero by the mapping. `on` false gives all-zero A (the other warps
// of a wgmma warpgroup).
struct Frags {
  std::uint32_t a[4], b[2], c[4];
};

// f16/bf16, k = 16: a_j (j<8) at row g (+8 for j%4 >= 2), col 2t + (j&1) (+8 for j >= 4).
template <class Rows>
__device__ inline void frags_k16_16bit(const Rows& d, int lane, bool on, Frags& f) {
  const int g = lane >> 2, t = lane & 3;
  f.a[0] = on ? pack16(d.a(g, 2 * t), d.a(g, 2 * t + 1)) : 0u;
  f.a[1] = 0u;
  f.a[2] = on ? pack16(d.a(g, 2 * t + 8), d.a(g, 2 * t + 9)) : 0u;
  f.a[3] = 0u;
  f.b[0] = pack16(d.b(2 * t, g), d.b(2 * t + 1, g));
  f.b[1] = pack16(d.b(2 * t + 8, g), d.b(2 * t + 9, g));
  f.c[0] = on ? d.c(g, 2 * t) : 0u;
  f.c[1] = on ? d.c(g, 2 * t + 1) : 0u;
  f.c[2] = f.c[3] = 0u;
}

// tf32, k = 8: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (t, g), b1 (t+4, g).
template <class Rows>
__device__ inline void frags_k8_tf32(const Rows& d, int lane, bool on, Frags& f) {
  const int g = lane >> 2, t = lane & 3;
  f.a[0] = on ? d.a(g, t) : 0u;
  f.a[1] = 0u;
  f.a[2] = on ? d.a(g, t + 4) : 0u;
  f.a[3] = 0u;
  f.b[0] = d.b(t, g);
  f.b[1] = d.b(t + 4, g);
  f.c[0] = on ? d.c(g, 2 * t) : 0u;
  f.c[1] = on ? d.c(g, 2 * t + 1) : 0u;
  f.c[2] = f.c[3] = 0u;
}

// 8-bit, k = 32: a_j (j<16) at row g (+8 for j%8 >= 4), col 4t + (j&3) (+16 for j >= 8);
// b_j (j<8) at row 4t + (j&3) (+16 for j >= 4), col g.
template <class Rows>
__device__ inline void frags_k32_8bit(const Rows& d, int lane, bool on, Frags& f) {
  const int g = lane >> 2, t = lane & 3;
  f.a[0] = on ? pack8(d.a(g, 4 * t), d.a(g, 4 * t + 1), d.a(g, 4 * t + 2), d.a(g, 4 * t + 3)) : 0u;
  f.a[1] = 0u;
  f.a[2] = on ? pack8(d.a(g, 4 * t + 16), d.a(g, 4 * t + 17), d.a(g, 4 * t + 18), d.a(g, 4 * t + 19)) : 0u;
  f.a[3] = 0u;
  f.b[0] = pack8(d.b(4 * t, g), d.b(4 * t + 1, g), d.b(4 * t + 2, g), d.b(4 * t + 3, g));
  f.b[1] = pack8(d.b(4 * t + 16, g), d.b(4 * t + 17, g), d.b(4 * t + 18, g), d.b(4 * t + 19, g));
  f.c[0] = on ? d.c(g, 2 * t) : 0u;
  f.c[1] = on ? d.c(g, 2 * t + 1) : 0u;
  f.c[2] = f.c[3] = 0u;
}

// D elements d0 = (g, 2t), d1 = (g, 2t+1): the diagonal one, if any, goes to out.
// d16: f16 accumulators, d0|d1 packed low|high in one register.
__device__ inline void store_diagonal(const DotRows& d, int lane, std::uint32_t d0, std::uint32_t d1,
                                      bool f16, std::uint32_t* out) {
  const int g = lane >> 2, t = lane & 3;
  if (f16) {
    d1 = d0 >> 16;
    d0 &= 0xFFFFu;
  }
  if (g == 2 * t && d.live(g)) out[d.row0 + g] = d0;
  if (g == 2 * t + 1 && d.live(g)) out[d.row0 + g] = d1;
}

}  // namespace fpconform::gpu::cuda
