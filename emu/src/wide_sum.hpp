// An exact sum of many terms, for fdpa.cpp and fdpa_tree.cpp.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "fpconform/exact.hpp"

namespace fpconform::detail {

// A two's-complement fixed-point accumulator of `bits` bits above 2^base: an exact sum of
// terms of up to 128 bits, however far apart (fdpa's exact steps, the tree's nodes). value()
// reads the top 128 bits and a sticky bit for the rest.
class WideSum {
 public:
  WideSum(int base, int bits) : base_(base), limbs_(static_cast<std::size_t>(bits) / 64 + 2, 0) {}

  // Adds (-1)^negative * sig * 2^lsb, lsb >= base.
  void add(bool negative, u128 sig, int lsb) {
    const int off = lsb - base_;
    const std::size_t li = static_cast<std::size_t>(off) / 64;
    const int sh = off % 64;
    const std::uint64_t lo = static_cast<std::uint64_t>(sig), hi = static_cast<std::uint64_t>(sig >> 64);
    std::uint64_t part[3] = {lo << sh, sh ? (hi << sh) | (lo >> (64 - sh)) : hi,
                             sh ? hi >> (64 - sh) : 0};
    unsigned carry = 0;
    for (std::size_t k = li; k < limbs_.size(); ++k) {
      const std::uint64_t x = k - li < 3 ? part[k - li] : 0;
      if (k - li >= 3 && carry == 0) break;
      const std::uint64_t old = limbs_[k];
      if (!negative) {
        const std::uint64_t s1 = old + x, s2 = s1 + carry;
        carry = (s1 < old) + (s2 < s1);
        limbs_[k] = s2;
      } else {
        const std::uint64_t d1 = old - x, d2 = d1 - carry;
        carry = (old < x) + (d1 < static_cast<std::uint64_t>(carry));
        limbs_[k] = d2;
      }
    }
  }

  ExactValue value() const {
    std::vector<std::uint64_t> m = limbs_;
    const bool negative = (m.back() >> 63) != 0;
    if (negative) {
      unsigned carry = 1;
      for (std::uint64_t& w : m) {
        w = ~w + carry;
        carry = carry && w == 0;
      }
    }
    std::size_t top = m.size();
    while (top > 0 && m[top - 1] == 0) --top;
    if (top == 0) return ExactValue::zero(false);
    const int bits = static_cast<int>((top - 1) * 64) + (64 - std::countl_zero(m[top - 1]));
    const int from = std::max(0, bits - 128);  // the top 128 bits, the rest sticky
    bool sticky = false;
    for (int k = 0; k < from / 64; ++k) sticky = sticky || m[static_cast<std::size_t>(k)] != 0;
    if (from % 64) sticky = sticky || (m[static_cast<std::size_t>(from / 64)] << (64 - from % 64)) != 0;
    u128 sig = 0;
    for (int pos = std::min(bits, from + 128) - 1; pos >= from; --pos)
      sig = (sig << 1) | ((m[static_cast<std::size_t>(pos / 64)] >> (pos % 64)) & 1);
    return ExactValue::finite(negative, sig, base_ + from, sticky);
  }

 private:
  int base_;
  std::vector<std::uint64_t> limbs_;
};

}  // namespace fpconform::detail
