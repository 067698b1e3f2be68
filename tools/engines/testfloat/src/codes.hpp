// Operand codes TestFloat-style, shared by the function families (conversions, operations):
// a duplicate-free code set, a format's special codes, and the exponent-field and
// significand patterns the structured codes are built from. Internal to fpconform_testfloat.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "fpconform/core/format.hpp"

namespace fpconform::testfloat::detail {

inline std::uint64_t low_mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// Appends v unless it is already there (short lists: a linear search).
template <class T>
void add_unique(std::vector<T>& v, T x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// Codes in the order first added, each once (masked to the format's width).
class CodeSet {
 public:
  explicit CodeSet(std::uint64_t mask) : mask_(mask) {}
  void add(std::uint64_t c) {
    c &= mask_;
    if (seen_.insert(c).second) codes_.push_back(c);
  }
  std::vector<std::uint64_t>& codes() { return codes_; }

 private:
  std::uint64_t mask_;
  std::unordered_set<std::uint64_t> seen_;
  std::vector<std::uint64_t> codes_;
};

// The sign bits a code of f can have: {0} or {0, sign_mask}.
std::vector<std::uint64_t> sign_codes(const Format& f);

// Zeros, infinities and the default NaN of each sign; for IEEE NaN encodings also quiet and
// signaling NaNs with assorted payloads.
void add_special_codes(CodeSet& set, const Format& f);

// Exponent fields at the ends and in the middle of the range: 0..3, bias-2..bias+2 and the
// three largest, each once and within 0..the largest field, in that order.
std::vector<std::int64_t> base_exponent_fields(const Format& f);
// The largest exponent field.
inline std::int64_t max_exponent_field(const Format& f) {
  return static_cast<std::int64_t>(low_mask(f.exp_bits));
}

// Fraction-field patterns independent of the exponent (for man_bits fraction bits): 0, 1, 2,
// 3, the top bit and its neighbours, all ones and its neighbours, alternating bits; level 2
// adds single bits, runs of low ones, runs of high ones and (1 << i) | 1. {0} when man_bits = 0.
std::vector<std::uint64_t> significand_patterns(int man_bits, int level);

// A code from its parts (field and fraction masked into place).
inline std::uint64_t make_code(const Format& f, std::uint64_t sign, std::int64_t field,
                               std::uint64_t frac) {
  return sign | ((static_cast<std::uint64_t>(field) << f.man_bits) & f.magnitude_mask()) |
         (frac & low_mask(f.man_bits));
}
inline std::int64_t exponent_field(const Format& f, std::uint64_t code) {
  return static_cast<std::int64_t>((code & f.magnitude_mask()) >> f.man_bits);
}

}  // namespace fpconform::testfloat::detail
