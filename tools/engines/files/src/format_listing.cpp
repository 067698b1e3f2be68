#include "fpconform/files/format_listing.hpp"

#include <algorithm>
#include <cstdio>

#include "fpconform/convert.hpp"

namespace fpconform::files {

namespace {

// Values longer than this are shown in the table in their exact hex-float form.
constexpr std::size_t kTableValueWidth = 18;

LimitValue limit(std::uint64_t code, const Format& f) {
  const ExactValue v = decode(code, f);
  return {code_text(code, f), exact_decimal(v), hex_float(v)};
}

std::string table_value(const LimitValue& v) {
  return v.exact.size() <= kTableValueWidth ? v.exact : v.hex;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

std::string code_text(std::uint64_t code, const Format& f) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", f.hex_digits(), static_cast<unsigned long long>(code));
  return buf;
}

FormatInfo describe_format(const Format& f) {
  FormatInfo i;
  i.format = f;
  i.width = f.width();
  i.emin = f.emin();
  i.emax = f.emax();
  i.max_finite = limit(f.max_finite_code(), f);
  i.min_normal = limit(f.min_normal_code(), f);
  if (f.subnormals && f.has_zero) i.min_subnormal = limit(f.min_positive_code(), f);
  switch (f.inf) {
    case InfEncoding::none: i.inf_encoding = "none"; break;
    case InfEncoding::ieee: i.inf_encoding = "ieee"; break;
    case InfEncoding::top_code: i.inf_encoding = "top_code"; break;
  }
  if (f.has_inf()) {
    i.inf_codes.push_back(code_text(f.inf_code(false), f));
    if (f.is_signed) i.inf_codes.push_back(code_text(f.inf_code(true), f));
  }
  switch (f.nan) {
    case NanEncoding::none: i.nan_encoding = "none"; break;
    case NanEncoding::ieee: i.nan_encoding = "ieee"; break;
    case NanEncoding::all_ones: i.nan_encoding = "all_ones"; break;
    case NanEncoding::negative_zero: i.nan_encoding = "negative_zero"; break;
    case NanEncoding::max_code: i.nan_encoding = "max_code"; break;
  }
  if (f.nan == NanEncoding::ieee) {
    const std::uint64_t lo = f.inf_code(false) + 1;  // exponent all ones, fraction 1
    const std::uint64_t hi = f.magnitude_mask();
    i.nan_codes.push_back(code_text(lo, f) + "-" + code_text(hi, f));
    if (f.is_signed)
      i.nan_codes.push_back(code_text(lo | f.sign_mask(), f) + "-" + code_text(hi | f.sign_mask(), f));
  } else if (f.nan == NanEncoding::all_ones) {
    i.nan_codes.push_back(code_text(f.nan_code(false), f));
    i.nan_codes.push_back(code_text(f.nan_code(true), f));
  } else if (f.has_nan()) {
    i.nan_codes.push_back(code_text(f.nan_code(false), f));
  }
  i.negative_zero = f.has_negative_zero();
  for (const auto& a : format_aliases())
    if (a.canonical == f.name) i.aliases.emplace_back(a.alias);
  return i;
}

std::vector<FormatInfo> describe_builtin_formats() {
  std::vector<FormatInfo> rows;
  for (const auto& f : builtin_formats()) rows.push_back(describe_format(f));
  return rows;
}

std::string formats_table(const std::vector<FormatInfo>& rows) {
  const std::vector<std::string> head = {"name",       "bits",      "layout",     "bias",       "emin",
                                         "emax",       "max finite", "min normal", "min subnormal",
                                         "infinities", "NaN",       "-0",         "aliases"};
  std::vector<std::vector<std::string>> cells;
  cells.push_back(head);
  for (const auto& r : rows) {
    const std::string inf = r.inf_codes.empty() ? "none" : join(r.inf_codes, " ");
    const std::string nan = r.nan_codes.empty() ? "none" : join(r.nan_codes, " ");
    const Format& f = r.format;
    const std::string layout = std::string(f.is_signed ? "1+" : "0+") + std::to_string(f.exp_bits) +
                               "+" + std::to_string(f.man_bits);
    cells.push_back({f.name, std::to_string(r.width), layout, std::to_string(f.bias),
                     std::to_string(r.emin), std::to_string(r.emax), table_value(r.max_finite),
                     table_value(r.min_normal),
                     r.min_subnormal ? table_value(*r.min_subnormal) : "none", inf, nan,
                     r.negative_zero ? "yes" : "no", r.aliases.empty() ? "-" : join(r.aliases, ",")});
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line.append(width[c] - row[c].size() + 2, ' ');
    }
    out += line + "\n";
  }
  out +=
      "\nValues are exact; those longer than " + std::to_string(kTableValueWidth) +
      " characters are shown as exact hex floats (--json gives every value as an exact decimal).\n"
      "NaN codes of IEEE-style formats are ranges (exponent all ones, fraction non-zero; quiet\n"
      "when the top fraction bit is set). Codes are right-aligned: tf32 is a 19-bit code.\n"
      "\nBesides these names and aliases, --to/--from/FUNCTION accept:\n"
      "  e<E>m<M>                 IEEE-style: bias 2^(E-1)-1, infinities, NaNs (e.g. e6m9)\n"
      "  binary<K>p<P><s|u><e|f>  IEEE P3109: K bits, precision P, signed/unsigned,\n"
      "                           extended (with +-inf) or finite (e.g. binary8p3se)\n"
      "  custom:e=<E>,m=<M>[,bias=<B>][,inf=none|ieee|top][,nan=none|ieee|ones|negzero|max]\n"
      "         [,signed=0|1][,subnormals=0|1][,zero=0|1]\n";
  return out;
}

nlohmann::json formats_json(const std::vector<FormatInfo>& rows) {
  auto value = [](const LimitValue& v) {
    return nlohmann::json{{"code", v.code}, {"exact", v.exact}, {"hex", v.hex}};
  };
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& r : rows) {
    const Format& f = r.format;
    nlohmann::json o;
    o["name"] = f.name;
    o["width"] = r.width;
    o["hex_digits"] = f.hex_digits();
    o["signed"] = f.is_signed;
    o["exp_bits"] = f.exp_bits;
    o["man_bits"] = f.man_bits;
    o["precision"] = f.precision();
    o["bias"] = f.bias;
    o["emin"] = r.emin;
    o["emax"] = r.emax;
    o["max_finite"] = value(r.max_finite);
    o["min_normal"] = value(r.min_normal);
    o["min_subnormal"] = r.min_subnormal ? value(*r.min_subnormal) : nlohmann::json(nullptr);
    o["subnormals"] = f.subnormals;
    o["has_zero"] = f.has_zero;
    o["infinities"] = {{"encoding", r.inf_encoding}, {"codes", r.inf_codes}};
    o["nan"] = {{"encoding", r.nan_encoding}, {"codes", r.nan_codes}};
    o["negative_zero"] = r.negative_zero;
    o["aliases"] = r.aliases;
    arr.push_back(std::move(o));
  }
  return arr;
}

}  // namespace fpconform::files
