// Test-case generation: the pattern set of a level, then weighted random cases up to -n, all
// determined by the seed; or every operand code (--exhaustive).
#pragma once

#include <cstdint>
#include <functional>

#include "fpconform/core/splitmix.hpp"
#include "fpconform/testfloat/function.hpp"

namespace fpconform::testfloat {

// A small, fast, portable generator (splitmix64): the same seed gives the same cases on
// every platform and standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : gen_(seed) {}
  std::uint64_t next() { return gen_.next(); }
  // Uniform in [0, n) (n > 0), by rejection: no modulo bias.
  std::uint64_t below(std::uint64_t n);
  // Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi);

 private:
  SplitMix64 gen_;
};

struct GenOptions {
  int level = 1;               // 1 or 2
  std::uint64_t n = 0;         // 0: the level's default (default_count)
  std::uint64_t seed = 1;
  bool exhaustive = false;     // every operand code; at most 32 operand bits in all
};

std::uint64_t default_count(int level);  // 100000 for level 1, 1000000 for level 2
inline constexpr int kMaxExhaustiveBits = 32;

// Calls `emit` with each case's operands, in order: the pattern set (all of it, even past n),
// then random cases up to n in all. Throws Error for a bad level or an exhaustive run over
// more than kMaxExhaustiveBits operand bits.
void generate(const Function& f, const GenOptions& options,
              const std::function<void(const std::uint64_t* operands)>& emit);

}  // namespace fpconform::testfloat
