// Exact operations rounded once against the x86 FPU (IEEE 754 binary32/binary64 +, *, fma,
// /, sqrt are correctly rounded in hardware): an independent oracle for the arithmetic core.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "fpconform/convert.hpp"
#include "fpconform/exact_ops.hpp"

using namespace fpconform;

namespace {

template <class F, class U>
U bits_of(F x) {
  U b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
template <class F, class U>
F value_of(U b) {
  F x;
  std::memcpy(&x, &b, sizeof b);
  return x;
}

// Random finite codes: uniform bits, plus a share with nearby exponents (for cancellation).
template <class U>
U random_finite(std::mt19937_64& g, int exp_bits, int man_bits) {
  const U emask = ((U(1) << exp_bits) - 1) << man_bits;
  U u = static_cast<U>(g());
  if ((u & emask) == emask) u &= ~(U(1) << (man_bits + exp_bits - 1));
  return u;
}

template <class F, class U>
void check_ops(const char* name, int exp_bits, int man_bits, int n) {
  const Format f = parse_format(name);
  std::mt19937_64 g(12345);
  long checked = 0;
  for (int i = 0; i < n; ++i) {
    U a = random_finite<U>(g, exp_bits, man_bits), b = random_finite<U>(g, exp_bits, man_bits),
      c = random_finite<U>(g, exp_bits, man_bits);
    if (i % 3 == 0) b = (b & ~(((U(1) << exp_bits) - 1) << man_bits)) | (a & (((U(1) << exp_bits) - 1) << man_bits));
    const F fa = value_of<F>(a), fb = value_of<F>(b);
    if (i % 5 == 0) {
      const F p = -(fa * fb);
      if (std::isfinite(p)) c = bits_of<F, U>(p);
    }
    const F fc = value_of<F>(c);
    const ExactValue A = decode(a, f), B = decode(b, f), C = decode(c, f);
    const Rounding r;
    auto expect = [&](const char* op, const ExactValue& exact, F hw) {
      if (std::isnan(hw)) return;
      const Rounded got = round_to_format(exact, f, r);
      ASSERT_EQ(got.bits, static_cast<std::uint64_t>(bits_of<F, U>(hw)))
          << op << " a=" << std::hexfloat << fa << " b=" << fb << " c=" << fc;
      ++checked;
    };
    expect("add", exact_add(A, B), fa + fb);
    expect("mul", exact_mul(A, B), fa * fb);
    expect("fma", exact_fma(A, B, C), std::fma(fa, fb, fc));
    if (!B.is_zero()) expect("div", exact_div(A, B), fa / fb);
    expect("sqrt", exact_sqrt(decode(a & ~(U(1) << (exp_bits + man_bits)), f)),
           std::sqrt(std::fabs(fa)));
  }
  EXPECT_GT(checked, 4L * n);
}

}  // namespace

TEST(ExactOps, Binary32AgainstTheFpu) { check_ops<float, std::uint32_t>("f32", 8, 23, 300000); }
TEST(ExactOps, Binary64AgainstTheFpu) { check_ops<double, std::uint64_t>("f64", 11, 52, 300000); }
