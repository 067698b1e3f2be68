// Case generation (random and adversarial mixes) and validation of a model against a target.
#include "fpconform/characterize/validate.hpp"

#include <algorithm>
#include <optional>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"

namespace fpconform::characterize {

namespace {

bool usable(const Format& f, std::uint64_t code) {
  return !f.is_nan_code(code) && !f.is_inf_code(code) && !f.is_reserved_code(code);
}

// A code of `f` with the given sign, unbiased exponent (clamped to the normal range) and a
// random or zero fraction; fractions that would land on a NaN or inf code are shortened.
std::uint64_t compose(const Format& f, bool negative, int exp, std::uint64_t fraction) {
  exp = std::clamp(exp, f.emin(), f.emax());
  const std::uint64_t field = static_cast<std::uint64_t>(exp + f.bias);
  const std::uint64_t man_mask = (1ull << f.man_bits) - 1;
  fraction &= man_mask;
  for (;;) {
    const std::uint64_t code =
        (negative ? f.sign_mask() : 0) | (field << f.man_bits) | fraction;
    if (usable(f, code) || fraction == 0) return code;
    fraction >>= 1;
  }
}

}  // namespace

CaseGenerator::CaseGenerator(const Target& t, std::uint64_t seed, int max_k)
    : t_(t), a_(t.in()), b_(t.in_b()), out_(t.out()), rng_(seed) {
  for (int k = 1; k <= std::max(1, max_k); ++k)
    if (t.supports_k(k)) ks_.push_back(k);
  if (ks_.empty())
    for (int k = max_k + 1; k <= max_k + 64 && ks_.empty(); ++k)
      if (t.supports_k(k)) ks_.push_back(k);
  if (ks_.empty()) throw Error(t.name(), "accepts no dot-product length up to " + std::to_string(max_k + 64));
}

bool CaseGenerator::coin(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
int CaseGenerator::uniform(int lo, int hi) {
  if (hi < lo) std::swap(lo, hi);
  return std::uniform_int_distribution<int>(lo, hi)(rng_);
}

int CaseGenerator::pick_k() {
  const double r = std::uniform_real_distribution<double>(0, 1)(rng_);
  if (r < 0.2) return ks_.back();
  if (r < 0.65) {
    std::size_t small = 0;
    while (small < ks_.size() && ks_[small] <= 16) ++small;
    if (small > 0) return ks_[static_cast<std::size_t>(uniform(0, static_cast<int>(small) - 1))];
  }
  return ks_[static_cast<std::size_t>(uniform(0, static_cast<int>(ks_.size()) - 1))];
}

std::uint64_t CaseGenerator::code(const Format& f, bool negative, int exp, bool random_fraction) {
  return compose(f, negative, exp, random_fraction ? rng_() : 0);
}

std::uint64_t CaseGenerator::random_finite(const Format& f) {
  for (;;) {
    const std::uint64_t code = rng_() & f.code_mask();
    if (usable(f, code)) return code;
  }
}

std::uint64_t CaseGenerator::subnormal(const Format& f) {
  if (!f.subnormals || f.man_bits == 0) return f.zero_code(coin(0.5) && f.has_negative_zero());
  const std::uint64_t man = (rng_() & ((1ull << f.man_bits) - 1)) | 1;
  return (coin(0.5) ? f.sign_mask() : 0) | man;
}

std::uint64_t CaseGenerator::special(const Format& f) {
  const int pick = uniform(0, 2);
  if (pick == 0 && f.has_nan()) return f.nan_code(coin(0.5));
  if (pick == 1 && f.has_inf()) return f.inf_code(coin(0.5));
  return f.max_finite_code() | (coin(0.5) ? f.sign_mask() : 0);
}

DotCase CaseGenerator::next() {
  return next(static_cast<CaseKind>(uniform(0, static_cast<int>(CaseKind::count) - 1)));
}

DotCase CaseGenerator::next(CaseKind kind) {
  DotCase dc;
  const int k = pick_k();
  dc.a.resize(static_cast<std::size_t>(k));
  dc.b.resize(static_cast<std::size_t>(k));
  const std::uint64_t a_zero = a_.zero_code(false), b_zero = b_.zero_code(false);
  const int lo = a_.emin(), hi = a_.emax(), lo_b = b_.emin(), hi_b = b_.emax();
  auto zero_c = [&] { return out_.zero_code(coin(0.2) && out_.has_negative_zero()); };
  auto narrow = [&](std::uint64_t& x, const Format& f) {
    x = coin(0.1) ? f.zero_code(false) : code(f, coin(0.5), uniform(-3, 3), true);
  };
  auto narrow_pair = [&](std::size_t i) { narrow(dc.a[i], a_), narrow(dc.b[i], b_); };
  switch (kind) {
    case CaseKind::narrow:
    case CaseKind::count:
      for (int i = 0; i < k; ++i) narrow_pair(i);
      dc.c = coin(0.3) ? zero_c() : code(out_, coin(0.5), uniform(-3, 7), true);
      break;
    case CaseKind::full_range:
      for (int i = 0; i < k; ++i) dc.a[i] = random_finite(a_), dc.b[i] = random_finite(b_);
      dc.c = coin(0.3) ? zero_c() : code(out_, coin(0.5), uniform(lo + lo_b, hi + hi_b), true);
      break;
    case CaseKind::cancellation: {
      const int h = k / 2;
      for (int i = 0; i < h; ++i) {
        dc.a[i] = code(a_, coin(0.5), uniform(-6, 6), true);
        dc.b[i] = code(b_, coin(0.5), uniform(-6, 6), true);
        dc.a[h + i] = dc.a[i] ^ a_.sign_mask();
        dc.b[h + i] = dc.b[i];
        if (coin(0.5) && b_.man_bits > 0) {
          const std::uint64_t flipped = dc.b[i] ^ 1;
          if (usable(b_, flipped)) dc.b[h + i] = flipped;
        }
      }
      if (k % 2) dc.a[k - 1] = code(a_, coin(0.5), uniform(-12, 0), true), dc.b[k - 1] = code(b_, false, 0, true);
      if (coin(0.3)) std::swap(dc.a[0], dc.a[h]), std::swap(dc.b[0], dc.b[h]);
      dc.c = coin(0.5) ? zero_c() : code(out_, coin(0.5), uniform(-30, 0), true);
      break;
    }
    case CaseKind::spread:
      for (int i = 0; i < k; ++i) {
        dc.a[i] = coin(0.2) ? a_zero : code(a_, coin(0.5), uniform(lo, hi), true);
        dc.b[i] = coin(0.1) ? b_zero : code(b_, coin(0.5), uniform(lo_b, hi_b), true);
      }
      dc.c = coin(0.3) ? zero_c() : code(out_, coin(0.5), uniform(lo + lo_b, hi + hi_b), true);
      break;
    case CaseKind::subnormal:
      for (int i = 0; i < k; ++i) {
        const int r = uniform(0, 9);
        dc.a[i] = r < 4 ? subnormal(a_) : r < 7 ? code(a_, coin(0.5), uniform(lo, lo + 3), true) : a_zero;
        dc.b[i] = coin(0.5) ? subnormal(b_) : code(b_, coin(0.5), uniform(lo_b, lo_b + 6), true);
      }
      if (coin(0.4) && out_.subnormals && out_.man_bits > 0)
        dc.c = (coin(0.5) ? out_.sign_mask() : 0) | ((rng_() & ((1ull << out_.man_bits) - 1)) | 1);
      else if (coin(0.5))
        dc.c = zero_c();
      else
        dc.c = code(out_, coin(0.5),
                    uniform(lo + lo_b - a_.man_bits - b_.man_bits, lo + lo_b + 4), true);
      break;
    case CaseKind::tiny_zeros:
      for (int i = 0; i < k; ++i) {
        const bool zero = coin(0.5);
        dc.a[i] = zero ? a_zero : code(a_, coin(0.5), uniform(lo, lo + 2), true);
        dc.b[i] = zero ? code(b_, coin(0.5), uniform(lo_b, hi_b), true)
                       : (coin(0.3) ? subnormal(b_) : code(b_, coin(0.5), uniform(lo_b, lo_b + 2), true));
      }
      dc.c = coin(0.5) ? zero_c() : code(out_, coin(0.5), uniform(out_.emin(), out_.emin() + 4), true);
      break;
    case CaseKind::specials: {
      for (int i = 0; i < k; ++i) narrow_pair(i);
      const int r = uniform(0, 3);
      const std::size_t i = static_cast<std::size_t>(uniform(0, k - 1));
      if (r == 0) dc.a[i] = special(a_);
      else if (r == 1) dc.b[i] = special(b_);
      else if (r == 2) {  // overflowing products, maybe cancelling
        dc.a[i] = a_.max_finite_code(), dc.b[i] = b_.max_finite_code();
        const std::size_t j = static_cast<std::size_t>(uniform(0, k - 1));
        if (j != i && coin(0.5)) dc.a[j] = a_.max_finite_code() | a_.sign_mask(), dc.b[j] = b_.max_finite_code();
      }
      if (r == 3) {
        const int s = uniform(0, 2);
        dc.c = s == 0 && out_.has_nan() ? out_.nan_code(false)
             : s == 1 && out_.has_inf() ? out_.inf_code(coin(0.5))
             : out_.max_finite_code() | (coin(0.5) ? out_.sign_mask() : 0);
      } else {
        dc.c = coin(0.5) ? zero_c() : code(out_, coin(0.5), uniform(-3, 7), true);
      }
      break;
    }
    case CaseKind::c_dominant:
      for (int i = 0; i < k; ++i) narrow_pair(i);
      dc.c = code(out_, coin(0.5), uniform(6, 45), true);
      break;
    case CaseKind::ties: {
      auto few_bits = [&](const Format& f, int exp) {
        const std::uint64_t top = f.man_bits > 0 ? (rng_() & 3) << std::max(0, f.man_bits - 2) : 0;
        return compose(f, coin(0.5), exp, top);
      };
      for (int i = 0; i < k; ++i) {
        dc.a[i] = coin(0.1) ? a_zero : few_bits(a_, uniform(std::max(lo, -8), std::min(hi, 8)));
        dc.b[i] = few_bits(b_, uniform(std::max(lo_b, -8), std::min(hi_b, 8)));
      }
      dc.c = coin(0.2) ? zero_c() : few_bits(out_, uniform(-4, 34));
      break;
    }
  }
  return dc;
}

std::vector<DotCase> CaseGenerator::batch(std::size_t n) {
  std::vector<DotCase> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(next());
  return v;
}

bool model_agrees(const FdpaParams& model, const FdpaFormats& f, const DotCase& c) {
  try {
    return fdpa(model, f, c.a, c.b, c.c) == c.d;
  } catch (const Error&) {
    return false;
  }
}

ValidationResult validate(Target& t, const FdpaParams& model, std::uint64_t n, std::uint64_t seed,
                          int max_k, std::size_t max_failures) {
  ValidationResult r;
  CaseGenerator gen(t, seed, max_k);
  std::optional<FdpaKernel> kernel;
  try {
    kernel.emplace(model, t.formats());
  } catch (const Error&) {
  }
  const std::uint64_t chunk = 8192;
  for (std::uint64_t done = 0; done < n; done += chunk) {
    std::vector<DotCase> cases = gen.batch(static_cast<std::size_t>(std::min(chunk, n - done)));
    observe(t, cases);
    for (const DotCase& c : cases) {
      bool ok = false;
      if (kernel) {
        try {
          ok = kernel->dot(c.a, c.b, c.c) == c.d;
        } catch (const Error&) {
        }
      }
      ++r.validated;
      if (ok) ++r.agreed;
      else if (r.failures.size() < max_failures) r.failures.push_back(c);
    }
  }
  return r;
}

}  // namespace fpconform::characterize
