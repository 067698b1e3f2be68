// Shared operand-code patterns (see codes.hpp).
#include "codes.hpp"

namespace fpconform::testfloat::detail {

std::vector<std::uint64_t> sign_codes(const Format& f) {
  return f.is_signed ? std::vector<std::uint64_t>{0, f.sign_mask()} : std::vector<std::uint64_t>{0};
}

void add_special_codes(CodeSet& set, const Format& s) {
  for (std::uint64_t sign : sign_codes(s)) {
    if (s.has_zero) set.add(sign);
    if (s.has_inf()) set.add(s.inf_code(sign != 0));
    if (s.has_nan()) set.add(s.nan_code(sign != 0));
    if (s.nan == NanEncoding::ieee) {
      const std::uint64_t e = low_mask(s.exp_bits) << s.man_bits;
      const std::uint64_t q = s.quiet_bit();
      const std::uint64_t frac = low_mask(s.man_bits);
      for (std::uint64_t t : {q | 1, frac, q | (q >> 1), std::uint64_t{1}, q - 1, q >> 1})
        if ((t & frac) != 0) set.add(sign | e | (t & frac));
    }
  }
}

std::vector<std::int64_t> base_exponent_fields(const Format& s) {
  const std::int64_t max_field = max_exponent_field(s);
  std::vector<std::int64_t> fields;
  auto add_field = [&](std::int64_t f) {
    if (f >= 0 && f <= max_field) add_unique(fields, f);
  };
  for (std::int64_t f : {0, 1, 2, 3}) add_field(f);
  for (std::int64_t d = -2; d <= 2; ++d) add_field(s.bias + d);
  for (std::int64_t d = 2; d >= 0; --d) add_field(max_field - d);
  return fields;
}

std::vector<std::uint64_t> significand_patterns(int m, int level) {
  std::vector<std::uint64_t> general;
  if (m <= 0) return {0};
  const std::uint64_t all = low_mask(m);
  auto add_general = [&](std::uint64_t v) { add_unique(general, v & all); };
  const std::uint64_t top = 1ull << (m - 1);
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3},
                          top, top | 1, top | (top >> 1), all, all - 1, all >> 1,
                          std::uint64_t{0x5555555555555555}, std::uint64_t{0xAAAAAAAAAAAAAAAA}})
    add_general(v);
  if (level >= 2)
    for (int i = 0; i < m; ++i) {
      add_general(1ull << i);
      add_general(low_mask(i));
      add_general(all & ~low_mask(i));
      add_general((1ull << i) | 1);
    }
  return general;
}

}  // namespace fpconform::testfloat::detail
