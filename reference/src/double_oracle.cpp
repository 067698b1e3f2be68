// The out-of-line parts of the double-arithmetic reference (double_convert.hpp,
// double_arith.hpp): the target's constants and the shared decode tables. The per-operand code
// stays inline in the headers.
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fpconform/reference/double_arith.hpp"
#include "fpconform/reference/double_convert.hpp"

namespace fpconform::dref {

Target make_target(const Format& f) {
  Target t;
  t.m = f.man_bits;
  t.bias = f.bias;
  t.exp_bits = f.exp_bits;
  t.is_signed = f.is_signed;
  t.subnormals = f.subnormals;
  t.has_zero = f.has_zero;
  t.inf = f.inf;
  t.nan = f.nan;
  const int width = (f.is_signed ? 1 : 0) + f.exp_bits + f.man_bits;
  t.code_all = width >= 64 ? ~u64{0} : (u64{1} << width) - 1;
  t.mag_all = (u64{1} << (f.exp_bits + f.man_bits)) - 1;
  t.sign_bit = f.is_signed ? u64{1} << (width - 1) : 0;
  t.exp_all = (u64{1} << f.exp_bits) - 1;
  t.reserve_top = f.nan == NanEncoding::ieee || f.inf == InfEncoding::ieee;
  t.has_negzero = f.is_signed && f.has_zero && f.nan != NanEncoding::negative_zero;
  // inf: ieee -> E all ones, T = 0; top_code -> largest magnitude code that is not NaN.
  if (f.inf == InfEncoding::ieee) t.inf_mag = t.exp_all << t.m;
  else if (f.inf == InfEncoding::top_code)
    t.inf_mag = (f.nan == NanEncoding::all_ones || f.nan == NanEncoding::max_code) ? t.mag_all - 1
                                                                                 : t.mag_all;
  u64 c = t.mag_all;
  // Every code of a reserved all-ones exponent field is special: skip the field at once.
  if (t.reserve_top) c = (t.exp_all << t.m) - 1;
  while (t.special_mag(c)) --c;
  t.max_mag = c;
  t.minpos_mag = f.has_zero ? 1 : 0;
  t.maxf = t.value(t.max_mag);
  t.emin = (f.subnormals ? 1 : 0) - f.bias;
  t.two_emin = std::ldexp(1.0, t.emin);
  return t;
}

// For formats of <= 16 bits, every code decoded once per (format, daz), shared.
std::shared_ptr<const std::vector<Val>> Context::decode_table(const Format& f, const Target& t,
                                                              bool daz) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const std::vector<Val>>> cache;
  const std::string key = table_key(f, daz);
  std::lock_guard<std::mutex> g(mu);
  auto& slot = cache[key];
  if (!slot) {
    auto v = std::make_shared<std::vector<Val>>(t.code_all + 1);
    for (u64 c = 0; c <= t.code_all; ++c) (*v)[c] = decode_slow(t, daz, c);
    slot = std::move(v);
  }
  return slot;
}

std::shared_ptr<const std::vector<double>> Context::value_table(const Format& f, const Target& t,
                                                                bool daz) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const std::vector<double>>> cache;
  const auto vals = decode_table(f, t, daz);
  std::lock_guard<std::mutex> g(mu);
  auto& slot = cache[table_key(f, daz)];
  if (!slot) {
    auto v = std::make_shared<std::vector<double>>(vals->size());
    for (std::size_t c = 0; c < vals->size(); ++c)
      (*v)[c] = (*vals)[c].kind == Val::finite ? (*vals)[c].value()
                                               : std::numeric_limits<double>::quiet_NaN();
    slot = std::move(v);
  }
  return slot;
}

std::string Context::table_key(const Format& f, bool daz) {
  return std::to_string(f.exp_bits) + "," + std::to_string(f.man_bits) + "," +
         std::to_string(f.bias) + "," + std::to_string(f.is_signed) + "," +
         std::to_string(f.subnormals) + "," + std::to_string(f.has_zero) + "," +
         std::to_string(static_cast<int>(f.inf)) + "," +
         std::to_string(static_cast<int>(f.nan)) + (daz ? ",daz" : "");
}

}  // namespace fpconform::dref
