// Block-scaled quantization: the rule table and the one generic quantizer.
#include "fpconform/block_scale.hpp"

#include <string>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/exact.hpp"
#include "fpconform/exact_ops.hpp"

namespace fpconform {

namespace {

// floor(log2 |x|) of a finite non-zero exact value.
int floor_log2(const ExactValue& x) { return bit_length(x.sig) - 1 + x.exp; }

// |a| < |b| for finite or zero exact values without sticky bits (decoded codes).
bool magnitude_less(const ExactValue& a, const ExactValue& b) {
  if (b.is_zero()) return false;
  if (a.is_zero()) return true;
  const int ta = floor_log2(a), tb = floor_log2(b);
  if (ta != tb) return ta < tb;
  // Same leading exponent: align on the smaller exp (the shift is < 128 bits).
  if (a.exp >= b.exp) return (a.sig << (a.exp - b.exp)) < b.sig;
  return a.sig < (b.sig << (b.exp - a.exp));
}

ExactValue power_of_two(int k) { return ExactValue::finite(false, 1, k); }

ExactValue max_finite(const Format& f) { return decode(f.max_finite_code(), f); }

Rounding rounding(RoundingMode mode, Saturation sat) {
  Rounding r;
  r.mode = mode;
  r.sat = sat;
  return r;
}

// The largest |x| of a block; `special` is set if a value is NaN or infinite.
ExactValue block_amax(std::span<const std::uint64_t> values, const Format& in, bool& special) {
  ExactValue amax = ExactValue::zero(false);
  special = false;
  for (std::uint64_t v : values) {
    ExactValue x = decode(v, in);
    if (x.is_nan() || x.is_inf()) {
      special = true;
      continue;
    }
    x.negative = false;
    if (magnitude_less(amax, x)) amax = x;
  }
  return amax;
}

std::uint64_t nan_or_zero_code(const Format& f) {
  return f.has_nan() ? f.nan_code(false) : 0;
}

Format tensor_format(const ScaleRule& rule, std::string_view what) {
  if (rule.tensor_scale_format.empty())
    throw Error(std::string(what), "rule '" + rule.name + "' has no per-tensor scale");
  return parse_format(rule.tensor_scale_format, "tensor_scale_format");
}

}  // namespace

std::uint64_t tensor_scale(std::span<const std::uint64_t> values, const Format& in_format,
                           const Format& element_format, const ScaleRule& rule) {
  const Format tf = tensor_format(rule, "tensor_scale");
  const Format sf = rule_scale_format(rule);
  bool special = false;
  const ExactValue amax = block_amax(values, in_format, special);
  if (special) return nan_or_zero_code(tf);
  const ExactValue divisor = exact_mul(max_finite(sf), max_finite(element_format));
  const Rounded g = round_to_format(exact_div(amax, divisor), tf, rounding(RoundingMode::rne,
                                                                           Saturation::finite));
  if (decode(g.bits, tf).is_zero()) return round_to_format(power_of_two(0), tf, {}).bits;
  return g.bits;
}

QuantizedBlock quantize_block(std::span<const std::uint64_t> values, const Format& in_format,
                              const Format& element_format, const ScaleRule& rule,
                              std::optional<std::uint64_t> tensor_scale_code) {
  const Format sf = rule_scale_format(rule);
  QuantizedBlock out;
  out.elements.assign(values.size(), element_format.has_zero ? element_format.zero_code(false) : 0);

  // The second level, g (1 when the rule has none).
  ExactValue g = power_of_two(0);
  if (tensor_scale_code) {
    const Format tf = tensor_format(rule, "tensor_scale");
    g = decode(*tensor_scale_code, tf);
    if (g.is_nan() || g.is_inf()) {  // a NaN tensor (tensor_scale's NaN): every block is NaN
      out.scale = nan_or_zero_code(sf);
      out.flags.raise(Flags::invalid);
      return out;
    }
    if (g.is_zero() || g.negative)
      throw Error("tensor_scale", "must be positive (or NaN for a NaN tensor)");
  }  // a two-level rule without a tensor scale is its one-level form (g = 1)

  bool special = false;
  const ExactValue amax = block_amax(values, in_format, special);
  if (special) {
    out.scale = nan_or_zero_code(sf);
    out.flags.raise(Flags::invalid);
    return out;
  }

  // 1. The shared scale X, as a code of the scale format.
  switch (rule.choice) {
    case ScaleChoice::floor_log2_minus_emax: {
      int k = amax.is_zero() ? sf.emin() : floor_log2(amax) - element_format.emax();
      if (k < sf.emin()) {  // clamped to the smallest scale: a range limit (underflow)
        if (!amax.is_zero()) out.flags.raise(Flags::underflow);
        k = sf.emin();
      }
      if (k > sf.emax()) {
        out.scale = nan_or_zero_code(sf);
        out.flags.raise(Flags::invalid);
        return out;
      }
      out.scale = round_to_format(power_of_two(k), sf, {}).bits;  // exact
      break;
    }
    case ScaleChoice::ceil_pow2_of_ratio:
    case ScaleChoice::ratio: {
      const ExactValue divisor = exact_mul(max_finite(element_format), g);
      const Rounding r = rule.choice == ScaleChoice::ratio
                             ? rounding(rule.scale_mode, Saturation::finite)
                             : rounding(RoundingMode::up, Saturation::finite);
      const Rounded s = round_to_format(exact_div(amax, divisor), sf, r);
      out.scale = s.bits;
      // The ceiling is the rule, not a loss: only its range flags count. A zero amax is the
      // smallest scale by definition (no flags).
      std::uint8_t f = s.flags.bits;
      if (rule.choice == ScaleChoice::ceil_pow2_of_ratio)
        f &= static_cast<std::uint8_t>(~Flags::inexact);
      if (!amax.is_zero()) out.flags.raise(f);
      break;
    }
  }

  // 2. Elements: x / (X * g), computed exactly, rounded once.
  const ExactValue big_x = exact_mul(decode(out.scale, sf), g);
  const Rounding er = rounding(rule.element_mode, rule.element_sat);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const ExactValue x = decode(values[i], in_format);
    if (big_x.is_zero()) {  // a scale that rounded to zero: the block reads as zeros
      if (!x.is_zero()) out.flags.raise(Flags::inexact | Flags::underflow);
      continue;
    }
    const Rounded e = round_to_format(exact_div(x, big_x), element_format, er);
    out.elements[i] = e.bits;
    out.flags.raise(e.flags.bits);
  }
  return out;
}

DequantizedBlock dequantize_block(std::uint64_t scale, std::span<const std::uint64_t> elements,
                                  const Format& element_format, const ScaleRule& rule,
                                  const Format& out_format,
                                  std::optional<std::uint64_t> tensor_scale_code) {
  const Format sf = rule_scale_format(rule);
  ExactValue big_x = decode(scale, sf);
  bool nan = big_x.is_nan() || big_x.is_inf();
  if (tensor_scale_code) {
    const ExactValue g = decode(*tensor_scale_code, tensor_format(rule, "tensor_scale"));
    if (g.is_nan() || g.is_inf()) nan = true;
    else big_x = exact_mul(big_x, g);
  }
  DequantizedBlock out;
  const Rounding r = rounding(RoundingMode::rne, Saturation::none);
  for (std::uint64_t c : elements) {
    const ExactValue e = decode(c, element_format);
    ExactValue v;
    if (nan || e.is_nan()) v = ExactValue::quiet_nan(e.negative);
    else if (e.is_inf()) v = e;
    else v = exact_mul(e, big_x);
    const Rounded y = round_to_format(v, out_format, r);
    out.values.push_back(y.bits);
    out.flags.raise(y.flags.bits);
  }
  return out;
}

QuantizedMatrix quantize_matrix(std::span<const std::uint64_t> values, int rows, int cols,
                                const Format& in_format, const Format& element_format,
                                const ScaleRule& rule, int block_rows, int block_cols,
                                bool use_tensor_scale) {
  if (rows <= 0 || cols <= 0) throw Error("rows/cols", "matrix dimensions must be positive");
  if (values.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw Error("values", "expected rows*cols = " + std::to_string(rows * cols) + " values, got " +
                              std::to_string(values.size()));
  if (block_rows <= 0 || rows % block_rows != 0)
    throw Error("block_rows", "block size " + std::to_string(block_rows) +
                                  " does not divide the " + std::to_string(rows) +
                                  " rows (no padding is done)");
  if (block_cols <= 0 || cols % block_cols != 0)
    throw Error("block_cols", "block size " + std::to_string(block_cols) +
                                  " does not divide the " + std::to_string(cols) +
                                  " columns (no padding is done)");
  QuantizedMatrix q;
  q.rows = rows;
  q.cols = cols;
  q.block_rows = block_rows;
  q.block_cols = block_cols;
  q.elements.assign(values.size(), 0);
  if (use_tensor_scale) q.tensor_scale = tensor_scale(values, in_format, element_format, rule);
  std::vector<std::uint64_t> block(static_cast<std::size_t>(block_rows) * block_cols);
  for (int br = 0; br < rows / block_rows; ++br) {
    for (int bc = 0; bc < cols / block_cols; ++bc) {
      std::size_t n = 0;
      for (int i = 0; i < block_rows; ++i)
        for (int j = 0; j < block_cols; ++j)
          block[n++] = values[static_cast<std::size_t>(br * block_rows + i) * cols +
                              (bc * block_cols + j)];
      QuantizedBlock b = quantize_block(block, in_format, element_format, rule, q.tensor_scale);
      q.scales.push_back(b.scale);
      q.flags.raise(b.flags.bits);
      n = 0;
      for (int i = 0; i < block_rows; ++i)
        for (int j = 0; j < block_cols; ++j)
          q.elements[static_cast<std::size_t>(br * block_rows + i) * cols +
                     (bc * block_cols + j)] = b.elements[n++];
    }
  }
  return q;
}

DequantizedBlock dequantize_matrix(const QuantizedMatrix& q, const Format& element_format,
                                   const ScaleRule& rule, const Format& out_format) {
  DequantizedBlock out;
  out.values.assign(q.elements.size(), 0);
  const int nbc = q.cols / q.block_cols;
  std::vector<std::uint64_t> block(static_cast<std::size_t>(q.block_rows) * q.block_cols);
  for (int br = 0; br < q.rows / q.block_rows; ++br) {
    for (int bc = 0; bc < nbc; ++bc) {
      std::size_t n = 0;
      auto at = [&](int i, int j) {
        return static_cast<std::size_t>(br * q.block_rows + i) * q.cols + (bc * q.block_cols + j);
      };
      for (int i = 0; i < q.block_rows; ++i)
        for (int j = 0; j < q.block_cols; ++j) block[n++] = q.elements[at(i, j)];
      const DequantizedBlock d =
          dequantize_block(q.scales[static_cast<std::size_t>(br) * nbc + bc], block,
                           element_format, rule, out_format, q.tensor_scale);
      out.flags.raise(d.flags.bits);
      n = 0;
      for (int i = 0; i < q.block_rows; ++i)
        for (int j = 0; j < q.block_cols; ++j) out.values[at(i, j)] = d.values[n++];
    }
  }
  return out;
}

}  // namespace fpconform
