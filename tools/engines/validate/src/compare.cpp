#include "fpconform/validate/compare.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::validate {
namespace {

// A signed position of a code on the number line: magnitude codes are ordered like the values
// they encode (that is how these formats are laid out), negatives mirrored; both zeros are 0.
std::int64_t line_position(const Format& f, std::uint64_t code) {
  const std::uint64_t mag = code & f.magnitude_mask();
  const bool neg = f.is_signed && (code & f.sign_mask());
  // Formats without a zero code (ue8m0) start at their smallest value: positions stay ordered.
  return neg ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag);
}

int bucket(std::uint64_t ulp) { return ulp == 0 ? 0 : std::bit_width(ulp); }

}  // namespace

std::optional<std::uint64_t> ulp_distance(const Format& f, std::uint64_t x, std::uint64_t y) {
  if (f.is_nan_code(x) || f.is_nan_code(y)) return std::nullopt;
  const std::int64_t px = line_position(f, x), py = line_position(f, y);
  return static_cast<std::uint64_t>(px > py ? px - py : py - px);
}

double code_value(const Format& f, std::uint64_t code) {
  static const Format f64 = parse_format("f64");
  if (f.is_nan_code(code)) return std::nan("");
  const std::uint64_t bits = convert(code, f, f64, Rounding{}).bits;
  return std::bit_cast<double>(bits);
}

Comparison compare_outputs(const Matrix& got, const Matrix& want, std::string against, int worst,
                           const std::function<double(int, int, std::uint64_t)>& exact_rel) {
  if (got.rows != want.rows || got.cols != want.cols)
    throw Error("--d", "D is " + std::to_string(got.rows) + "x" + std::to_string(got.cols) +
                           " but the expected result is " + std::to_string(want.rows) + "x" +
                           std::to_string(want.cols));
  const Format& f = got.format;
  Comparison c;
  c.against = std::move(against);
  c.ulp_histogram.assign(66, 0);
  double rel_sum = 0;
  std::vector<ElementDiff> diffs;
  for (int r = 0; r < got.rows; ++r)
    for (int col = 0; col < got.cols; ++col) {
      const std::uint64_t g = got.at(r, col), w = want.at(r, col);
      ++c.total;
      ElementDiff d{r, col, g, w, ulp_distance(f, g, w), 0};
      const bool g_nan = f.is_nan_code(g), w_nan = f.is_nan_code(w);
      if (exact_rel) {
        d.rel = exact_rel(r, col, g);
      } else if (!g_nan && !w_nan) {
        const double gv = code_value(f, g), wv = code_value(f, w);
        d.rel = gv == wv ? 0 : (wv == 0 || std::isinf(wv) ? INFINITY : std::fabs(gv - wv) / std::fabs(wv));
      }
      if (g == w) {
        ++c.bit_exact;
      } else if (g_nan != w_nan) {
        ++c.nan_mismatch;
      } else if (g_nan || d.ulp == 0u) {
        ++c.same_value;
      }
      if (d.ulp) {
        c.max_ulp = std::max(c.max_ulp, *d.ulp);
        ++c.ulp_histogram[bucket(*d.ulp)];
      }
      if (!std::isnan(d.rel)) {
        c.max_rel = std::max(c.max_rel, d.rel);
        rel_sum += d.rel;
      }
      if (g != w) {
        diffs.push_back(d);
        // Keep memory bounded: trim to the worst when the list grows large.
        if (diffs.size() > static_cast<std::size_t>(4 * worst + 1024)) {
          auto order = [](const ElementDiff& a, const ElementDiff& b) {
            const std::uint64_t ua = a.ulp ? *a.ulp : UINT64_MAX, ub = b.ulp ? *b.ulp : UINT64_MAX;
            return ua != ub ? ua > ub : a.rel > b.rel;
          };
          std::partial_sort(diffs.begin(), diffs.begin() + worst, diffs.end(), order);
          diffs.resize(static_cast<std::size_t>(worst));
        }
      }
    }
  c.mean_rel = c.total ? rel_sum / static_cast<double>(c.total) : 0;
  auto order = [](const ElementDiff& a, const ElementDiff& b) {
    const std::uint64_t ua = a.ulp ? *a.ulp : UINT64_MAX, ub = b.ulp ? *b.ulp : UINT64_MAX;
    if (ua != ub) return ua > ub;
    if (a.rel != b.rel) return a.rel > b.rel;
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  };
  std::sort(diffs.begin(), diffs.end(), order);
  if (diffs.size() > static_cast<std::size_t>(worst)) diffs.resize(static_cast<std::size_t>(worst));
  c.worst = std::move(diffs);
  while (c.ulp_histogram.size() > 1 && c.ulp_histogram.back() == 0) c.ulp_histogram.pop_back();
  return c;
}

bool within(const Comparison& c, double max_ulp, double max_rel) {
  // A NaN limit compares false both ways and would pass anything.
  if (std::isnan(max_ulp)) throw Error("max_ulp", "a tolerance must be a number, not NaN");
  if (std::isnan(max_rel)) throw Error("max_rel", "a tolerance must be a number, not NaN");
  if (c.nan_mismatch) return false;
  if (max_ulp < 0 && max_rel < 0) return c.bit_exact + c.same_value == c.total;
  if (max_ulp >= 0 && static_cast<double>(c.max_ulp) > max_ulp) return false;
  if (max_rel >= 0 && c.max_rel > max_rel) return false;
  return true;
}

}  // namespace fpconform::validate
