// The fused block with exact sub-sums (Blackwell's fp4 kinds, unit scales) as a row form: up to
// eight rows of A (six with AVX2) against sixteen (eight) consecutive columns of a row-major B,
// one dot product per binary32 lane. FdpaKernel::dot_subsum_rows.
// Where every product is a multiple of 2^lsb0 (the least last bit of any product) and a block of
// them stays below 2^(lsb0 + 24) (subsum_rows_serve), every partial sum of a block is exact in
// binary32 whatever the order: S, the block's sum, is one fma per product. The unit aligns its
// sub-sums (exponent 0, the unit scales') and C to F fraction bits of e = max(0, lead(C)) (zero
// terms at zero_exp <= 0 change nothing) and truncates; where 23 - F <= lead(C) <= F + lsb0, or
// C is zero, nothing is cut (the sub-sums' last bits and C's lie at or above 2^(e - F)), so the
// block's result, t = S + C toward zero into binary32, is one addition toward zero (embedded
// rounding, or MXCSR with AVX2). Its nonzero results are at least 2^min(lsb0, -F) and below
// 2^(F + lsb0 + 2): normal. Zeros: the chain starts at -0, so S is -0 only when every product
// is -0, and S + C is -0 only when C is -0 too (the IEEE sign of an exact zero sum, as the
// model gives it); a sum that cancels is +0 toward zero, as in the model. A lane whose C lies
// outside that window (NaN and inf too) has its block done by the model (FdpaKernel::general);
// operands with NaN or inf do not come here, nor does a partial last block.
#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <optional>

#include "fpconform/fdpa_kernel.hpp"
#include "binary32_lanes.hpp"
#include "host_fp_mode.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpconform {

namespace {

constexpr int kMaxRows = 8;

struct SubsumRowsTile {
  const float* a[kMaxRows];  // the rows' values
  const float* b;            // the columns' values, row-major with `stride`
  std::size_t stride, nblocks, L;
  float lo, hi;  // C's window of leads
  const void* ctx;
  std::uint32_t (*model_block)(const void* ctx, int row, int lane, std::size_t blk,
                               std::uint32_t c);
};

#if defined(__x86_64__)
using detail::Avx2Lanes;
using detail::Avx512Lanes;

namespace avx512_rows {
#define FPC_ROWS_FN [[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]] inline
#include "fdpa_subsum_rows.inc"
#undef FPC_ROWS_FN
}  // namespace avx512_rows
namespace avx2_rows {
#define FPC_ROWS_FN [[gnu::target("avx2,fma")]] inline
#include "fdpa_subsum_rows.inc"
#undef FPC_ROWS_FN
}  // namespace avx2_rows

template <int R>
[[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]] void subsum_rows_avx512(
    const SubsumRowsTile& g, std::uint32_t* c) {
  avx512_rows::subsum_rows_body<Avx512Lanes, R>(g, c);
}
template <int R>
[[gnu::target("avx2,fma")]] void subsum_rows_avx2(const SubsumRowsTile& g, std::uint32_t* c) {
  avx2_rows::subsum_rows_body<Avx2Lanes, R>(g, c);
}

using RowsFn = void (*)(const SubsumRowsTile&, std::uint32_t*);

template <int R>
RowsFn rows_fn_for(int width) {
  return width == 16 ? &subsum_rows_avx512<R> : &subsum_rows_avx2<R>;
}
RowsFn rows_fn(int width, int r) {
  switch (r) {
    case 1: return rows_fn_for<1>(width);
    case 2: return rows_fn_for<2>(width);
    case 3: return rows_fn_for<3>(width);
    case 4: return rows_fn_for<4>(width);
    case 5: return rows_fn_for<5>(width);
    case 6: return rows_fn_for<6>(width);
    case 7: return rows_fn_for<7>(width);
    default: return rows_fn_for<8>(width);
  }
}
// Rows at once: an accumulator and a C per row, of AVX-512's 32 registers or AVX2's 16.
int max_rows(int width) { return width == 16 ? 8 : 6; }
#endif

}  // namespace

// The exact row form's instruction sets (AVX-512; AVX2 with FMA), the same widths.
int FdpaKernel::subsum_rows_width() { return exact_rows_width(); }

bool FdpaKernel::subsum_rows_serve(const FdpaParams& p, const FdpaFormats& f) {
  const int lsb0 = f.a.emin() - f.a.man_bits + f.b.emin() - f.b.man_bits;
  // Every value exact in binary32, every product normal there, a block's sum below
  // 2^(lsb0 + 24) (each product below 2^(emax_a + 1 + emax_b + 1)).
  for (const Format* in : {&f.a, &f.b})
    if (in->emax() > 127 || in->precision() > 24) return false;
  const int block_bits = std::bit_width(static_cast<unsigned>(std::max(p.block, 1) - 1));
  return subsum_rows_width() > 0 && lsb0 >= -126 &&
         f.a.emax() + f.b.emax() + 2 + block_bits <= lsb0 + 24 &&
         23 - p.frac_bits <= p.frac_bits + lsb0 && (p.zero_exp == INT_MIN || p.zero_exp <= 0);
}

void FdpaKernel::dot_subsum_rows(const DecodedOperands& a, const std::size_t* offset_a,
                                 const DecodedOperands& b, const std::size_t* offset_b,
                                 std::size_t stride_b, std::size_t k, int n,
                                 std::uint64_t* d) const {
#if defined(__x86_64__)
  const int w = subsum_rows_width();
  const auto L = static_cast<std::size_t>(p_.block);
  const std::size_t full = k / L;
  const int lsb0 = in_.emin() - in_.man_bits + in_b_.emin() - in_b_.man_bits;
  struct Ctx {
    const FdpaKernel* self;
    const std::uint64_t* ca[kMaxRows];
    const std::uint64_t* cb;
    std::size_t stride_b, L;
  } ctx{};
  SubsumRowsTile g{};
  g.stride = stride_b;
  g.nblocks = full;
  g.L = L;
  g.lo = static_cast<float>(23 - p_.frac_bits);
  g.hi = static_cast<float>(p_.frac_bits + lsb0);
  g.ctx = &ctx;
  g.model_block = [](const void* cp, int row, int lane, std::size_t blk, std::uint32_t c) {
    const detail::DefaultHostFpMode fp_mode;  // the AVX2 form runs toward zero
    const Ctx& x = *static_cast<const Ctx*>(cp);
    const std::size_t i = blk * x.L;
    return static_cast<std::uint32_t>(x.self->general(
        x.L, c, x.ca[row] + i, x.cb + static_cast<std::size_t>(lane) + i * x.stride_b,
        x.stride_b));
  };
  ctx.self = this;
  ctx.stride_b = stride_b;
  ctx.L = L;
  for (int i = 0; i < n;) {
    const int m = rows_on_same_columns(offset_b, i, n);
    g.b = b.value32.data() + offset_b[i];
    ctx.cb = b.codes.data() + offset_b[i];
    for (int done = 0; done < m;) {
      const int r = std::min(m - done, max_rows(w));
      const int first = i + done;
      std::uint64_t* dr = d + static_cast<std::ptrdiff_t>(first) * w;
      std::uint32_t c[kMaxRows * 16];
      for (int l = 0; l < r * w; ++l) c[l] = static_cast<std::uint32_t>(dr[l]);
      for (int j = 0; j < r; ++j) {
        g.a[j] = a.value32.data() + offset_a[first + j];
        ctx.ca[j] = a.codes.data() + offset_a[first + j];
      }
      {
        std::optional<detail::TowardZeroFpMode> rz;
        if (w == 8) rz.emplace();
        rows_fn(w, r)(g, c);
      }
      for (int j = 0; j < r; ++j)
        for (int l = 0; l < w; ++l) {
          std::uint64_t x = c[j * w + l];
          if (full * L < k)  // the partial last block, as fdpa takes it
            x = model_dot(a, offset_a[first + j] + full * L, b,
                          offset_b[first] + static_cast<std::size_t>(l) + full * L * stride_b,
                          stride_b, k - full * L, x);
          dr[j * w + l] = x;
        }
      done += r;
    }
    i += m;
  }
#else
  (void)a, (void)offset_a, (void)b, (void)offset_b, (void)stride_b, (void)k, (void)n, (void)d;
#endif
}

}  // namespace fpconform
