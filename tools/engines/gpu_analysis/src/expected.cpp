// emu's model of each convert and scalar kernel. Names are parsed from the catalog's naming
// scheme (cvt_<from>_<to>_<mode>[_relu][_satfinite], <fmt>_<op>[_<mode>]).
#include <cmath>
#include <deque>
#include <cstring>
#include <string>

#include "fpconform/arith.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/gpu/analysis.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fpconform/profile.hpp"

namespace fpconform::gpu {

namespace {

bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

const Format& fmt(std::string_view name) {
  static thread_local std::deque<Format> cache;  // deque: references stay valid as it grows
  for (const auto& f : cache)
    if (f.name == name) return f;
  cache.push_back(parse_format(name));
  return cache.back();
}

bool is_nan(const Format& f, std::uint64_t code) { return std::isnan(to_double(code, f)); }

RoundingMode mode_of(std::string_view name) {
  if (has(name, "_rna")) return RoundingMode::rna;
  if (has(name, "_rz")) return RoundingMode::rtz;
  if (has(name, "_rm") || has(name, "_rd")) return RoundingMode::down;
  if (has(name, "_rp") || has(name, "_ru")) return RoundingMode::up;
  return RoundingMode::rne;
}

// relu: negative results (not NaN) become +0.
std::uint64_t relu(const Format& f, std::uint64_t code) {
  return (code & f.sign_mask()) && !is_nan(f, code) ? 0 : code;
}

// One lane of a conversion: from -> to with the kernel's rounding, NVIDIA's NaN rules.
std::uint64_t convert_lane(std::string_view name, std::uint64_t x, const Format& from, const Format& to) {
  const bool sat = has(name, "satfinite");
  std::uint64_t y;
  if (to.width() <= 8 || from.width() <= 8) {
    // fp8/fp6/fp4/e8m0 both ways: the nvidia profile (cuda_fp8.h, cuda_fp6.h, cuda_fp4.h)
    UserOptions u;
    u.mode = mode_of(name);
    if (sat) u.sat = Saturation::finite;
    y = convert_with_profile(x, from, to, find_profile("nvidia"), u).bits;
  } else {
    Rounding r;
    r.mode = mode_of(name);
    if (sat) r.sat = Saturation::finite;
    y = convert(x, from, to, r).bits;
    // PTX: a NaN input gives the canonical NaN, all-ones payload, positive
    if (is_nan(from, x)) y = (to.code_mask() >> 1);
  }
  return has(name, "relu") ? relu(to, y) : y;
}

// cvt.rna{.satfinite}.tf32.f32 has no conversion unit behind it: ptxas (CUDA 13.0, every arch
// from sm_80 to sm_120a) emits integer code, `if (|x| < inf) x += 0x1000; r = x & ~0x1fff;` and,
// with .satfinite, `if (!(|r| < inf)) r -= 0x2000;`. Finite inputs round as rna does, but a NaN
// is only truncated to the tf32 grid (payloads in the low 13 bits become +-inf) and, with
// .satfinite, moved one tf32 ulp down (max finite, inf or another NaN). Seen on an H200 over all
// 2^32 inputs (reports/devices/nvidia-h200).
std::uint32_t rna_tf32_of_nan(std::uint32_t x, bool satfinite) {
  const std::uint32_t r = x & 0xffffe000u;
  return satfinite ? r - 0x2000u : r;
}

std::optional<std::uint32_t> expected_convert(const KernelInfo& k, std::uint32_t x) {
  const std::string_view name = k.name;
  const Format& to = fmt(k.out_format == "f32" ? "tf32" : k.out_format);
  const Format& from = fmt(k.in_format);
  if (k.out_format == "f32") {  // tf32 in an f32 container
    if (has(name, "_rna") && is_nan(from, x)) return rna_tf32_of_nan(x, has(name, "satfinite"));
    return static_cast<std::uint32_t>(convert_lane(name, x, from, to) << 13);
  }
  const int w = to.width() <= 4 ? 4 : to.width() <= 8 ? 8 : 16;  // lane width in the packed result
  switch (k.packing) {
    case Packing::single: return static_cast<std::uint32_t>(convert_lane(name, x, from, to));
    case Packing::pair_neg: {
      const std::uint64_t neg = x ^ from.sign_mask();
      return static_cast<std::uint32_t>((convert_lane(name, x, from, to) << w) | convert_lane(name, neg, from, to));
    }
    case Packing::packed: {
      const int iw = from.width() <= 4 ? 4 : from.width() <= 8 ? 8 : 16;
      // each lane sits right-aligned in its 4- or 8-bit slot; bits above the code are ignored
      const std::uint64_t lo = x & ((1ull << iw) - 1) & from.code_mask(), hi = (x >> iw) & from.code_mask();
      const int ow = to.width() <= 8 ? 8 : 16;
      return static_cast<std::uint32_t>((convert_lane(name, hi, from, to) << ow) | convert_lane(name, lo, from, to));
    }
  }
  return std::nullopt;
}

std::optional<std::uint32_t> expected_scalar(const KernelInfo& k, const std::uint32_t* ops) {
  const std::string_view name = k.name;
  const Format& f = fmt(k.in_format);
  OpOptions o;
  o.rounding.mode = mode_of(name.substr(name.find('_')));
  o.nan = &find_nan_policy("nvidia");
  std::uint64_t a[3] = {ops[0], k.arity > 1 ? ops[1] : 0, k.arity > 2 ? ops[2] : 0};
  const std::string_view op = name.substr(name.find('_') + 1);
  auto run = [&](Op which, const std::uint64_t* operands) { return apply_op(which, f, operands, o).bits; };
  std::uint64_t y;
  if (op.starts_with("hadd") || op.starts_with("fadd")) y = run(Op::add, a);
  else if (op.starts_with("hsub") || op.starts_with("fsub")) y = run(Op::sub, a);
  else if (op.starts_with("hmul") || op.starts_with("fmul")) y = run(Op::mul, a);
  else if (op.starts_with("hdiv") || op.starts_with("fdiv")) y = run(Op::div, a);
  else if (op.starts_with("hfma") || op.starts_with("fmaf")) y = run(Op::mul_add, a);
  else if (op.starts_with("hsqrt") || op.starts_with("fsqrt")) y = run(Op::sqrt, a);
  else if (op.starts_with("hrcp") || op.starts_with("frcp")) {
    const std::uint64_t one[2] = {convert(0x3F800000u, fmt("f32"), f, Rounding{}).bits, a[0]};
    y = run(Op::div, one);
  } else if (op == "hmin") y = run(Op::minimum_number, a);
  else if (op == "hmax") y = run(Op::maximum_number, a);
  else if (op == "hmin_nan") y = run(Op::minimum, a);
  else if (op == "hmax_nan") y = run(Op::maximum, a);
  else return std::nullopt;
  if (op.ends_with("_sat")) {  // clamp to [0, 1]; NaN to +0 (CUDA Math API, __hadd_sat)
    const double v = to_double(y, f);
    if (std::isnan(v) || v <= 0) y = 0;
    else if (v > 1) y = convert(0x3F800000u, fmt("f32"), f, Rounding{}).bits;
  }
  if (op.ends_with("_relu")) y = relu(f, y);
  return static_cast<std::uint32_t>(y);
}

}  // namespace

std::optional<std::uint32_t> expected_output(const KernelInfo& k, const std::uint32_t* operands) {
  switch (k.kind) {
    case KernelKind::convert: return expected_convert(k, operands[0]);
    case KernelKind::scalar: return expected_scalar(k, operands);
    case KernelKind::dot: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace fpconform::gpu
