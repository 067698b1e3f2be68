// CaseMaker and split_by_probes (see fit_probes.hpp).
#include "fit_probes.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"

namespace fpconform::characterize {

namespace {

// The code of (-1)^negative * 1.frac * 2^exp in f, as near as the format allows: exponents
// above its range clamp to the top binade, below it shift into subnormals (or to zero).
std::uint64_t make_code(const Format& f, bool negative, int exp, std::uint64_t frac) {
  const std::uint64_t frac_mask = (1ull << f.man_bits) - 1;
  frac &= frac_mask;
  exp = std::min(exp, f.emax());
  std::uint64_t field = 0, mant = frac;
  if (exp >= f.emin()) {
    field = static_cast<std::uint64_t>(exp + f.bias);
  } else if (!f.subnormals) {
    field = static_cast<std::uint64_t>(f.min_normal_field());
  } else {
    const int shift = f.emin() - exp;
    mant = shift > f.man_bits ? 0 : ((frac_mask + 1) | frac) >> shift;
  }
  const std::uint64_t sign = negative && f.is_signed ? f.sign_mask() : 0;
  std::uint64_t code = sign | (field << f.man_bits) | mant;
  if (f.is_nan_code(code) || f.is_inf_code(code) || f.is_reserved_code(code))
    code = sign | f.max_finite_code();
  if (!f.has_zero && (code & f.magnitude_mask()) == 0) code = sign | f.min_positive_code();
  return code;
}

// Lengths around the block sizes of the family (L and L + 1 start a second block).
constexpr int kLengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 32, 33, 48, 64, 65};

}  // namespace

CaseMaker::CaseMaker(const FdpaFormats& f, std::span<const DotCase> rows, std::uint64_t seed)
    : f_(f), rows_(rows), rng_(seed) {
  // Products of 128 terms of 2^hi_a * 2^hi_b stay below out's largest binade.
  const auto side = [&](const Format& in) {
    const int lo = in.emin() - in.man_bits;
    return Side{in, lo, std::max(lo, std::min(in.emax(), (f.d.emax() - 8) / 2))};
  };
  a_ = side(f.a);
  b_ = side(f.b);
}

int CaseMaker::uniform(int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng_);
}

bool CaseMaker::chance(double p) { return std::bernoulli_distribution(p)(rng_); }

std::uint64_t CaseMaker::zero(const Side& side) {
  return make_code(side.format, chance(0.5), side.lo - side.format.man_bits - 2, 0);
}

std::uint64_t CaseMaker::element(const Side& side, int exp, bool allow_zero_share) {
  if (allow_zero_share && chance(zero_share_)) return zero(side);
  return make_code(side.format, chance(0.5), std::clamp(exp, side.lo, side.hi), rng_());
}

// C for a case: zero, near the largest product, tiny, or nearly the negated sum (cancellation).
std::uint64_t CaseMaker::c_for(const DotCase& dc, int top) {
  const Format& out = f_.d;
  switch (uniform(0, 4)) {
    case 0: return make_code(out, chance(0.5), out.emin() - out.man_bits - 2, 0);  // +-0
    case 1: return make_code(out, chance(0.5), top + uniform(-30, 4), rng_());
    case 2: return make_code(out, chance(0.5), out.emin() + uniform(-out.man_bits, 3), rng_());
    default: {
      FdpaParams exact;
      exact.structure = FdpaStructure::exact;
      exact.block = 0;
      exact.c_in_block = false;
      exact.out_rounding.mode = RoundingMode::rne;
      std::uint64_t sum = 0;
      try {
        sum = fdpa(exact, f_, dc.a, dc.b, 0);
      } catch (const Error&) {
        return 0;
      }
      if (out.is_nan_code(sum) || out.is_inf_code(sum) || !out.is_signed) return sum;
      std::uint64_t c = sum ^ out.sign_mask();
      // A few units of the last place off, so the residual has bits of its own.
      const int nudge = uniform(-3, 3);
      const std::uint64_t mag = c & out.magnitude_mask();
      if (nudge > 0 && mag + static_cast<std::uint64_t>(nudge) <= out.max_finite_code()) c += static_cast<std::uint64_t>(nudge);
      if (nudge < 0 && mag >= static_cast<std::uint64_t>(-nudge)) c -= static_cast<std::uint64_t>(-nudge);
      return c;
    }
  }
}

DotCase CaseMaker::next() {
  DotCase dc;
  const DotCase& row = rows_[static_cast<std::size_t>(uniform(0, static_cast<int>(rows_.size()) - 1))];
  const int mode = uniform(0, 3);
  if (mode == 0) {
    // A recorded row, perhaps lengthened by another, some elements zeroed, C replaced.
    dc.a = row.a;
    dc.b = row.b;
    if (chance(0.5)) {
      const DotCase& more = rows_[static_cast<std::size_t>(uniform(0, static_cast<int>(rows_.size()) - 1))];
      dc.a.insert(dc.a.end(), more.a.begin(), more.a.end());
      dc.b.insert(dc.b.end(), more.b.begin(), more.b.end());
    }
    const double zeros = chance(0.5) ? 0.0 : 0.3;
    for (std::size_t i = 0; i < dc.a.size(); ++i)
      if (chance(zeros)) dc.a[i] = zero(a_);
    dc.c = chance(0.3) ? row.c : c_for(dc, 0);
    return dc;
  }
  const std::size_t k = chance(0.4) ? row.a.size()
                                    : static_cast<std::size_t>(kLengths[uniform(0, static_cast<int>(std::size(kLengths)) - 1)]);
  zero_share_ = chance(0.5) ? 0.0 : (chance(0.5) ? 0.2 : 0.6);
  int top = 0;
  if (mode == 1) {
    // Wide spreads under one large term: alignment, F, L, carries.
    top = uniform(std::max(a_.lo, -4), std::min(a_.hi, 4));
    if (chance(0.2)) top = uniform(a_.lo, a_.hi);
    const int spread = std::vector<int>{0, 3, 8, 14, 30}[static_cast<std::size_t>(uniform(0, 4))];
    for (std::size_t i = 0; i < k; ++i) {
      dc.a.push_back(element(a_, top - uniform(0, spread), true));
      dc.b.push_back(element(b_, chance(0.5) ? top : top - uniform(0, spread), false));
    }
    if (chance(0.5)) {  // the large term at one place only
      const std::size_t big = static_cast<std::size_t>(uniform(0, static_cast<int>(k) - 1));
      for (std::size_t i = 0; i < k; ++i)
        if (i != big) dc.a[i] = element(a_, top - uniform(1, spread + 1), true);
    }
  } else if (mode == 2) {
    // Subnormal and tiny inputs: flushing, the zero exponent, subnormal results.
    top = uniform(a_.lo, std::min(a_.hi, f_.a.emin() + 3));
    for (std::size_t i = 0; i < k; ++i) {
      dc.a.push_back(element(a_, top - uniform(0, f_.a.man_bits), true));
      dc.b.push_back(element(b_, chance(0.5) ? uniform(b_.lo, b_.hi) : top - uniform(0, f_.b.man_bits), false));
    }
  } else {
    // Anything in range.
    for (std::size_t i = 0; i < k; ++i) {
      dc.a.push_back(element(a_, uniform(a_.lo, a_.hi), true));
      dc.b.push_back(element(b_, uniform(b_.lo, b_.hi), false));
    }
    top = a_.hi;
  }
  dc.c = c_for(dc, 2 * top);
  return dc;
}

namespace {

// The survivors' answers to one case (failed: the model refused it).
struct Answers {
  std::vector<std::uint64_t> d;
  std::vector<bool> failed;
  bool differ(std::size_t x, std::size_t y) const { return failed[x] != failed[y] || d[x] != d[y]; }
};

class Answerer {
 public:
  Answerer(const FdpaFormats& f, std::span<const FdpaParams> survivors) : f_(f), survivors_(survivors) {
    for (const FdpaParams& p : survivors) kernels_.push_back(std::make_unique<FdpaKernel>(p, f));
  }
  void answer(std::size_t s, const DotCase& dc, Answers& into) const {
    try {
      into.d[s] = kernels_[s]->fast() ? kernels_[s]->dot(dc.a, dc.b, dc.c)
                                      : fdpa(survivors_[s], f_, dc.a, dc.b, dc.c);
      into.failed[s] = false;
    } catch (const Error&) {
      into.d[s] = 0;
      into.failed[s] = true;
    }
  }
  Answers all(const DotCase& dc) const {
    Answers a{std::vector<std::uint64_t>(survivors_.size()), std::vector<bool>(survivors_.size())};
    for (std::size_t s = 0; s < survivors_.size(); ++s) answer(s, dc, a);
    return a;
  }
  bool differ(std::size_t x, std::size_t y, const DotCase& dc) const {
    Answers a{std::vector<std::uint64_t>(survivors_.size()), std::vector<bool>(survivors_.size())};
    answer(x, dc, a);
    answer(y, dc, a);
    return a.differ(x, y);
  }

 private:
  const FdpaFormats& f_;
  std::span<const FdpaParams> survivors_;
  std::vector<std::unique_ptr<FdpaKernel>> kernels_;
};

// A shorter case on which x and y still differ, for people to read: products dropped one at a
// time (from the end), then C made +0, wherever the difference survives it.
DotCase shrink(DotCase dc, std::size_t x, std::size_t y, const Answerer& answerer) {
  for (std::size_t i = dc.a.size(); i-- > 0 && dc.a.size() > 1;) {
    DotCase shorter = dc;
    shorter.a.erase(shorter.a.begin() + static_cast<long>(i));
    shorter.b.erase(shorter.b.begin() + static_cast<long>(i));
    if (answerer.differ(x, y, shorter)) dc = std::move(shorter);
  }
  if (dc.c != 0) {
    DotCase no_c = dc;
    no_c.c = 0;
    if (answerer.differ(x, y, no_c)) dc = std::move(no_c);
  }
  return dc;
}

}  // namespace

ProbeSearch split_by_probes(const FdpaFormats& f, std::span<const FdpaParams> survivors,
                            std::span<const DotCase> rows, std::uint64_t seed, int budget) {
  ProbeSearch search;
  const std::size_t n = survivors.size();
  if (n == 0) return search;
  std::vector<std::size_t> class_of(n, 0);
  std::size_t classes = 1;
  const Answerer answerer(f, survivors);

  // Work grows with the survivors: hold it to a few million dot products.
  const std::size_t max_cases =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(budget, 0)),
                            std::max<std::size_t>(200, 4'000'000 / n));
  std::vector<std::pair<DotCase, Answers>> found;
  CaseMaker maker(f, rows, seed);
  while (search.tried < max_cases && classes < n) {
    DotCase dc = maker.next();
    ++search.tried;
    Answers answers = answerer.all(dc);
    // Two survivors of one class that this case tells apart: shrink the case for them.
    std::map<std::size_t, std::size_t> first_of_class;
    for (std::size_t s = 0; s < n; ++s) {
      const auto [it, fresh] = first_of_class.emplace(class_of[s], s);
      if (fresh || !answers.differ(it->second, s)) continue;
      dc = shrink(std::move(dc), it->second, s, answerer);
      answers = answerer.all(dc);
      break;
    }
    // New classes in the order of their first member.
    std::map<std::tuple<std::size_t, bool, std::uint64_t>, std::size_t> ids;
    std::vector<std::size_t> next(n);
    for (std::size_t s = 0; s < n; ++s) {
      const auto key = std::make_tuple(class_of[s], static_cast<bool>(answers.failed[s]), answers.d[s]);
      next[s] = ids.emplace(key, ids.size()).first->second;
    }
    if (ids.size() > classes) found.emplace_back(std::move(dc), std::move(answers));
    class_of = next;
    classes = ids.size();
  }
  search.classes.assign(classes, {});
  for (std::size_t s = 0; s < n; ++s) search.classes[class_of[s]].push_back(s);
  for (auto& [inputs, answers] : found) {
    Probe p;
    p.inputs = std::move(inputs);
    for (const std::vector<std::size_t>& members : search.classes) {
      p.answers.push_back(answers.d[members.front()]);
      p.failed.push_back(answers.failed[members.front()]);
    }
    search.probes.push_back(std::move(p));
  }
  return search;
}

}  // namespace fpconform::characterize
