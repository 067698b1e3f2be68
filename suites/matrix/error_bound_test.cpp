// Every fused-block preset (the NVIDIA kind: products aligned to the block's largest exponent,
// truncated to F fraction bits, one rounding per block) against the exact dot product of
// reference/: |D - exact| stays within the bound the parameters imply. Per block b with unit
// 2^(E_b - F): each of its n_b terms (products and C) loses less than one unit to truncation,
// and the block result loses less than one ulp of the output (RZ; half an ulp for RNE; for the
// e8m13 cut, 2^(lead - 13)). Errors of earlier blocks travel in C exactly, so the bound is the
// sum over blocks. E_b is recomputed here from fdpa.hpp's description, not taken from emu.
// (Instruction-level rows — reordered k, C added last — are checked bit for bit against the
// recorded H100 data in tensorcore_dumps_test.cpp instead.)
#include <gtest/gtest.h>

#include <cmath>
#include <random>


#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/reference/dot.hpp"
#include "fpconform/reference/oracle.hpp"

namespace fpconform {
namespace {

// Exponent of the leading bit position of a finite non-zero value of f (emin for subnormals).
int lead_of(double v, const Format& f) {
  const int e = std::ilogb(v);
  return std::max(e, f.emin());
}

// Exponent of |v|'s binade in f (emin for zeros and subnormals).
int binade(double v, const Format& f) { return v == 0 ? f.emin() : std::max(std::ilogb(v), f.emin()); }

double ulp_at(double v, const Format& f) { return std::ldexp(1.0, binade(v, f) - f.man_bits); }

// Finite codes whose products stay well inside the output's range (and some of any size).
std::uint64_t moderate_code(std::mt19937_64& rng, const Format& f, const Format& out) {
  for (;;) {
    const std::uint64_t c = rng() & f.code_mask();
    if (f.is_nan_code(c) || f.is_inf_code(c)) continue;
    const double v = std::fabs(to_double(c, f));
    if (v == 0 || rng() % 16 == 0) return c;
    const int e = std::ilogb(v);
    if (e > out.emin() / 2 + 2 && e < out.emax() / 2 - 4) return c;
  }
}

TEST(FusedPresets, ErrorWithinTheBoundTheirParametersImply) {
  std::mt19937_64 rng(5);
  int checked = 0, presets = 0;
  for (const PresetUnit& u : preset_units({"f32", "f16"})) {
    const FdpaParams& q = u.entry->params;
    if (q.structure != FdpaStructure::fused || !q.c_in_block || q.late_c || q.interleave != 1 ||
        q.align != AlignRounding::truncate || q.product_bits >= 0 || q.c_last ||
        q.k_order != KOrder::natural || q.instr_k != 0 || q.subsum != 0)
      continue;
    const Format& in = u.in;
    const Format& out = u.out;
    const FdpaParams& p = u.params;
    ++presets;
    for (int t = 0; t < 150; ++t) {
      const std::size_t k = 1 + rng() % 96;
      std::vector<std::uint64_t> a(k), b(k);
      for (std::size_t i = 0; i < k; ++i) {
        a[i] = moderate_code(rng, in, out);
        b[i] = moderate_code(rng, in, out);
      }
      std::uint64_t c = t % 4 == 0 ? 0 : moderate_code(rng, out, out);
      const std::uint64_t d = fdpa(p, in, out, a, b, c);
      if (out.is_nan_code(d) || out.is_inf_code(d)) continue;
      // The bound, block by block along the model's own chain of C values.
      double bound = 0;
      bool overflowed = false;  // a block saturated: not a rounding error
      std::uint64_t prev = c;
      for (std::size_t k0 = 0; k0 < k; k0 += p.block) {
        const std::size_t k1 = std::min(k, k0 + p.block);
        int emax = INT_MIN, terms = 0;
        bool any_zero = false;
        for (std::size_t i = k0; i < k1; ++i) {
          const double x = to_double(a[i], in), y = to_double(b[i], in);
          if (x == 0 || y == 0) { any_zero = true; continue; }
          emax = std::max(emax, lead_of(std::fabs(x), in) + lead_of(std::fabs(y), in));
          ++terms;
        }
        const double cv = to_double(prev, out);
        if (cv == 0) any_zero = true;
        else { emax = std::max(emax, lead_of(std::fabs(cv), out)); ++terms; }
        if (any_zero && p.zero_exp != INT_MIN) emax = std::max(emax, p.zero_exp);
        if (emax != INT_MIN) bound += terms * std::ldexp(1.0, emax - p.frac_bits);
        FdpaParams one = p;
        one.block = static_cast<int>(k1 - k0);
        const std::vector<std::uint64_t> ab(a.begin() + k0, a.begin() + k1),
            bb(b.begin() + k0, b.begin() + k1);
        const std::uint64_t db = fdpa(one, in, out, ab, bb, prev);
        if ((db & out.magnitude_mask()) >= out.max_finite_code()) overflowed = true;
        const double dv = std::fabs(to_double(db, out));
        double rounding = ulp_at(dv, out);
        if (p.acc_frac_bits >= 0) rounding = std::ldexp(1.0, binade(dv, out) - p.acc_frac_bits);
        if (p.out_rounding.mode == RoundingMode::rne) rounding /= 2;
        bound += rounding;
        prev = db;
      }
      ASSERT_EQ(prev, d) << "the chain of single blocks is the model";
      if (overflowed) continue;
      const reference::DotError x = reference::dot_error(in, a, b, out, c, out, d);
      if (x.overflow) continue;  // overflows the output: saturation, not a rounding error
      const double err = x.err;
      ASSERT_LE(err, bound * (1 + 1e-12))
          << u.entry->preset << " " << u.entry->input << "->" << out.name << " t=" << t << " k=" << k;
      ++checked;
    }
  }
  std::printf("%d fused preset/output pairs, %d dot products within their bound\n", presets, checked);
  EXPECT_GT(presets, 15);
  EXPECT_GT(checked, 2000);
}

}  // namespace
}  // namespace fpconform
