// Operand sets for the formats too wide for exhaustive tests in the default suite (f16, bf16,
// tf32, f32): TestFloat-level-2-like pattern tuples, near-cancellation tuples and random codes,
// each case a pure function of (seed, index) so that any subset or stride is reproducible.
#pragma once

#include <cstring>

#include "arith_common.hpp"

namespace arithtest {

// Cases [0, n): first the pattern pairs (all of them if they fit in 70% of n, else an even
// stride over them), then near-cancellation tuples (15%: b ~ -a for add, b ~ a for sub,
// c ~ -(a*b) for mulAdd; b a few ulps from a for the others), then uniform random codes.
class WideCases {
 public:
  WideCases(const Format& f, Op op, u64 n) : f_(f), op_(op), n_(n), pat_(pattern_codes(f)) {
    const u64 np = static_cast<u64>(pat_.size());
    const u64 arity = static_cast<u64>(op_info(op).arity);
    pairs_ = arity == 1 ? np : np * np;
    n_pat_ = std::min<u64>(pairs_, n * 7 / 10);
    n_near_ = arity == 1 ? 0 : (n - n_pat_) / 2;
    mask_ = f.code_mask();
    mul_ctx_ = std::make_shared<dref::Context>(f, OpOptions{});
  }
  u64 size() const { return n_; }
  u64 pattern_count() const { return n_pat_; }
  u64 pattern_pairs() const { return pairs_; }
  u64 near_count() const { return n_near_; }
  std::size_t patterns() const { return pat_.size(); }

  void operator()(u64 i, u64* o) const {
    Rng rng(splitmix64(seed_ * 0x2545F4914F6CDD1Dull ^ i ^ (static_cast<u64>(op_) << 56)));
    const u64 np = static_cast<u64>(pat_.size());
    const int arity = op_info(op_).arity;
    if (i < n_pat_) {
      const u64 j = n_pat_ == pairs_ ? i : static_cast<u64>((static_cast<unsigned __int128>(i) * pairs_) / n_pat_);
      if (arity == 1) {
        o[0] = pat_[j];
      } else {
        o[0] = pat_[j / np];
        o[1] = pat_[j % np];
      }
      o[2] = arity == 3 ? third(o[0], o[1], rng) : 0;
      return;
    }
    if (i < n_pat_ + n_near_) {
      const u64 a = rng.below(3) == 0 ? pat_[rng.below(np)] : rng.next() & mask_;
      o[0] = a;
      const u64 d = static_cast<u64>(static_cast<std::int64_t>(rng.below(9)) - 4);
      switch (op_) {
        case Op::add: o[1] = ((a ^ f_.sign_mask()) + d) & mask_; break;
        case Op::mul_add: {
          o[1] = rng.below(2) ? pat_[rng.below(np)] : rng.next() & mask_;
          const u64 ab = mul_ctx_->apply(Op::mul, o).bits;
          o[2] = ((ab ^ f_.sign_mask()) + d) & mask_;
          return;
        }
        default: o[1] = (a + d) & mask_; break;
      }
      o[2] = 0;
      return;
    }
    for (int k = 0; k < 3; ++k) o[k] = rng.next() & mask_;
  }

 private:
  // mulAdd's c for a pattern pair: a pattern (1/3), near -(a*b) (1/3), random (1/3).
  u64 third(u64 a, u64 b, Rng& rng) const {
    switch (rng.below(3)) {
      case 0: return pat_[rng.below(pat_.size())];
      case 1: {
        const u64 ops[2] = {a, b};
        const u64 ab = mul_ctx_->apply(Op::mul, ops).bits;
        const u64 d = static_cast<u64>(static_cast<std::int64_t>(rng.below(9)) - 4);
        return ((ab ^ f_.sign_mask()) + d) & mask_;
      }
      default: return rng.next() & mask_;
    }
  }

  Format f_;
  Op op_;
  u64 n_;
  std::vector<u64> pat_;
  u64 seed_ = seed();
  u64 pairs_ = 0, n_pat_ = 0, n_near_ = 0, mask_ = 0;
  std::shared_ptr<dref::Context> mul_ctx_;
};

}  // namespace arithtest
