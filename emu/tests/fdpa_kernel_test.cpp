// FdpaKernel (the integer fast path) against fdpa (the clear model) on random vectors: values
// spread over the whole range, cancellation, zeros, subnormals, NaN/inf, every preset.
#include <gtest/gtest.h>

#include <random>

#include "fpconform/error.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/matrix_presets.hpp"

namespace fpconform {
namespace {

std::uint64_t random_code(std::mt19937_64& rng, const Format& f, int kind) {
  std::uint64_t v = rng() & f.code_mask();
  if (kind == 0 && rng() % 16 == 0) v &= f.sign_mask() | 0x7;  // zeros and subnormals
  if (kind == 1) v = (v & ~(f.magnitude_mask() >> 2)) | (rng() & 0x3);  // wide range
  if (kind == 2) {
    // Values near 2^-75 so that products land below the zero-term exponent (-133 for
    // bf16/tf32) by more than F, and some zeros: where zero_exp decides the alignment.
    const std::int64_t want = static_cast<std::int64_t>(f.bias) - 76 + static_cast<std::int64_t>(rng() % 4);
    const std::uint64_t field = static_cast<std::uint64_t>(
        std::clamp<std::int64_t>(want, 1, (1ll << f.exp_bits) - 2));
    v = (v & (f.sign_mask() | ((1ull << f.man_bits) - 1))) | (field << f.man_bits);
    if (rng() % 8 == 0) v &= f.sign_mask();
  }
  return v;
}

TEST(FdpaKernel, SameAsTheModelOnRandomVectors) {
  std::mt19937_64 rng(11);
  int compared = 0, fast_blocks = 0;
  for (const MatrixUnitEntry& e : matrix_unit_entries()) {
    const Format in = parse_format(e.input);
    for (const char* out_name : {"f32", "f16"}) {
      const Format out = parse_format(out_name);
      FdpaParams p;
      try {
        p = find_matrix_unit(e.preset, in, out);
      } catch (const Error&) {
        continue;  // no model for this output
      }
      const FdpaKernel kernel(p, in, out);
      fast_blocks += kernel.fast() ? 1 : 0;
      for (int t = 0; t < 400; ++t) {
        const std::size_t k = 1 + rng() % 100;
        std::vector<std::uint64_t> a(k), b(k);
        const int kind = t % 4;
        for (std::size_t i = 0; i < k; ++i) {
          a[i] = random_code(rng, in, kind);
          b[i] = random_code(rng, in, kind);
        }
        if (t % 4 == 3)  // cancellation: negate the first half into the second
          for (std::size_t i = k / 2; i < k; ++i) {
            a[i] = a[i - k / 2] ^ in.sign_mask();
            b[i] = b[i - k / 2];
          }
        std::uint64_t c = rng() & out.code_mask();
        if (t % 5 == 0 || kind == 2) c = 0;
        if (t % 7 == 0) c &= out.sign_mask() | 0xFF;  // subnormal C
        const std::uint64_t want = fdpa(p, in, out, a, b, c);
        const std::uint64_t got = kernel.dot(a, b, c);
        ASSERT_EQ(got, want) << e.preset << " " << e.input << "->" << out_name << " t=" << t
                             << " k=" << k;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 5000);
  EXPECT_GT(fast_blocks, 10);
}

}  // namespace
}  // namespace fpconform
