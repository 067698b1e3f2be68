// The generation driver: patterns, then random cases; or every code.
#include "fpconform/testfloat/generate.hpp"

#include "fpconform/core/error.hpp"

namespace fpconform::testfloat {

std::uint64_t Rng::below(std::uint64_t n) {
  if (n == 0) return 0;
  if ((n & (n - 1)) == 0) return next() & (n - 1);
  const std::uint64_t limit = ~0ull - (~0ull % n);  // largest multiple of n, exclusive
  for (;;) {
    const std::uint64_t v = next();
    if (v < limit) return v % n;
  }
}

std::int64_t Rng::between(std::int64_t lo, std::int64_t hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo);
  if (span == ~0ull) return static_cast<std::int64_t>(next());
  return lo + static_cast<std::int64_t>(below(span + 1));
}

std::uint64_t default_count(int level) { return level >= 2 ? 1000000 : 100000; }

void generate(const Function& f, const GenOptions& options,
              const std::function<void(const std::uint64_t* operands)>& emit) {
  if (options.level != 1 && options.level != 2)
    throw Error("--level", "must be 1 or 2, got " + std::to_string(options.level));
  const Signature& sig = f.signature();
  if (options.exhaustive) {
    int bits = 0;
    for (const auto& op : sig.operands) bits += op.width();
    if (bits > kMaxExhaustiveBits)
      throw Error("--exhaustive", f.name() + " has " + std::to_string(bits) +
                                      " operand bits; at most " +
                                      std::to_string(kMaxExhaustiveBits) + " can be enumerated");
    const std::uint64_t total = 1ull << bits;
    Operands ops{};
    for (std::uint64_t i = 0; i < total; ++i) {
      std::uint64_t rest = i;
      // The last operand varies fastest, as in a nested loop over the first.
      for (int k = sig.arity() - 1; k >= 0; --k) {
        const int w = sig.operands[static_cast<std::size_t>(k)].width();
        ops[static_cast<std::size_t>(k)] = rest & ((1ull << w) - 1);
        rest >>= w;
      }
      emit(ops.data());
    }
    return;
  }
  const std::uint64_t n = options.n ? options.n : default_count(options.level);
  const std::vector<Operands> pats = f.patterns(options.level);
  for (const auto& p : pats) emit(p.data());
  Rng rng(options.seed);
  Operands ops{};
  for (std::uint64_t i = pats.size(); i < n; ++i) {
    f.random_case(rng, options.level, ops.data());
    emit(ops.data());
  }
}

}  // namespace fpconform::testfloat
