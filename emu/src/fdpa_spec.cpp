// describe_params / parse_model: FdpaParams <-> key=value text, one table of fields.
#include "fpconform/fdpa_spec.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <functional>

#include "fpconform/core/error.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fpconform/unit_model.hpp"
#include "fdpa_tree.hpp"
#include "param_text.hpp"

namespace fpconform {

namespace detail {

std::string_view align_name(AlignRounding a) {
  switch (a) {
    case AlignRounding::truncate: return "truncate";
    case AlignRounding::nearest_even: return "nearest_even";
    case AlignRounding::down: return "down";
  }
  return "?";
}

int to_int(std::string_view v, const std::string& where, bool allow_none) {
  if (allow_none && v == "none") return INT_MIN;
  int out = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  // Beyond int: saturate, so that the field's range check names the range (block=99999999999
  // gets the same message as block=100).
  if (r.ec == std::errc::result_out_of_range && r.ptr == v.data() + v.size())
    return v[0] == '-' ? INT_MIN + 1 : INT_MAX;
  if (r.ec != std::errc() || r.ptr != v.data() + v.size())
    throw Error(where, "'" + std::string(v) + "' is not an integer" + (allow_none ? " or none" : ""));
  return out;
}

bool to_bool(std::string_view v, const std::string& where) {
  if (v == "1" || v == "true" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "no") return false;
  throw Error(where, "'" + std::string(v) + "' is not a boolean (0/1, true/false)");
}

AlignRounding to_align(std::string_view v, const std::string& where) {
  for (AlignRounding a : {AlignRounding::truncate, AlignRounding::nearest_even, AlignRounding::down})
    if (align_name(a) == v) return a;
  if (v == "rz" || v == "trunc") return AlignRounding::truncate;
  if (v == "rne") return AlignRounding::nearest_even;
  throw Error(where, "'" + std::string(v) + "' is not truncate, nearest_even or down");
}

}  // namespace detail

namespace {

using detail::align_name;
using detail::to_align;
using detail::to_bool;
using detail::to_int;

std::string_view structure_name(FdpaStructure s) {
  switch (s) {
    case FdpaStructure::fused: return "fused";
    case FdpaStructure::pairwise: return "pairwise";
    case FdpaStructure::sequential: return "sequential";
    case FdpaStructure::exact: return "exact";
    case FdpaStructure::tree: return "tree";
  }
  return "?";
}

struct Field {
  std::string_view name;
  std::function<std::string(const FdpaParams&)> get;
  std::function<void(FdpaParams&, std::string_view, const std::string& where)> set;
};

#define INT_FIELD(NAME, MEMBER)                                                           \
  Field {                                                                                 \
    NAME, [](const FdpaParams& p) { return std::to_string(p.MEMBER); },                  \
        [](FdpaParams& p, std::string_view v, const std::string& w) { p.MEMBER = to_int(v, w); } \
  }
#define BOOL_FIELD(NAME, MEMBER)                                                          \
  Field {                                                                                 \
    NAME, [](const FdpaParams& p) { return std::string(p.MEMBER ? "1" : "0"); },         \
        [](FdpaParams& p, std::string_view v, const std::string& w) { p.MEMBER = to_bool(v, w); } \
  }
#define ALIGN_FIELD(NAME, MEMBER)                                                         \
  Field {                                                                                 \
    NAME, [](const FdpaParams& p) { return std::string(align_name(p.MEMBER)); },         \
        [](FdpaParams& p, std::string_view v, const std::string& w) { p.MEMBER = to_align(v, w); } \
  }

const std::vector<Field>& fields() {
  static const std::vector<Field> f = {
      {"structure", [](const FdpaParams& p) { return std::string(structure_name(p.structure)); },
       [](FdpaParams& p, std::string_view v, const std::string& w) {
         for (FdpaStructure s : {FdpaStructure::fused, FdpaStructure::pairwise,
                                 FdpaStructure::sequential, FdpaStructure::exact, FdpaStructure::tree})
           if (structure_name(s) == v) {
             p.structure = s;
             return;
           }
         throw Error(w, "'" + std::string(v) + "' is not fused, pairwise, sequential, exact or tree");
       }},
      INT_FIELD("block", block),
      INT_FIELD("frac_bits", frac_bits),
      ALIGN_FIELD("align", align),
      {"zero_exp",
       [](const FdpaParams& p) { return p.zero_exp == INT_MIN ? std::string("none") : std::to_string(p.zero_exp); },
       [](FdpaParams& p, std::string_view v, const std::string& w) { p.zero_exp = to_int(v, w, true); }},
      BOOL_FIELD("c_in_block", c_in_block),
      BOOL_FIELD("late_c", late_c),
      INT_FIELD("acc_frac_bits", acc_frac_bits),
      {"out_round", [](const FdpaParams& p) { return std::string(to_string(p.out_rounding.mode)); },
       [](FdpaParams& p, std::string_view v, const std::string& w) {
         p.out_rounding.mode = parse_rounding_mode(v, w);
       }},
      {"out_sat", [](const FdpaParams& p) { return std::string(to_string(p.out_rounding.sat)); },
       [](FdpaParams& p, std::string_view v, const std::string& w) {
         p.out_rounding.sat = parse_saturation(v, w);
       }},
      BOOL_FIELD("flush_inputs", flush_subnormal_inputs),
      BOOL_FIELD("flush_inputs_positive", flushed_inputs_positive),
      BOOL_FIELD("flush_outputs", flush_subnormal_outputs),
      BOOL_FIELD("underflow_zero_positive", underflow_zero_positive),
      INT_FIELD("interleave", interleave),
      ALIGN_FIELD("group_align", group_align),
      INT_FIELD("late_sum_frac_bits", late_sum_frac_bits),
      INT_FIELD("late_c_frac_bits", late_c_frac_bits),
      INT_FIELD("late_c_drop_below", late_c_drop_below),
      ALIGN_FIELD("late_align", late_align),
      BOOL_FIELD("product_overflow", product_overflow),
      INT_FIELD("product_bits", product_bits),
      ALIGN_FIELD("product_rounding", product_rounding),
      INT_FIELD("carry_bits", carry_bits),
      INT_FIELD("scale_block", scale_block),
      INT_FIELD("subsum", subsum),
      INT_FIELD("instr_k", instr_k),
      {"k_order",
       [](const FdpaParams& p) {
         return std::string(p.k_order == KOrder::pairs_mod4 ? "pairs_mod4" : "natural");
       },
       [](FdpaParams& p, std::string_view v, const std::string& w) {
         if (v == "natural") p.k_order = KOrder::natural;
         else if (v == "pairs_mod4") p.k_order = KOrder::pairs_mod4;
         else throw Error(w, "'" + std::string(v) + "' is not natural or pairs_mod4");
       }},
      BOOL_FIELD("c_last", c_last),
      {"tree", [](const FdpaParams& p) { return std::string(p.tree); },
       [](FdpaParams& p, std::string_view v, const std::string& w) {
         p.tree = v.empty() ? std::string_view{} : intern_tree(v);  // empty: no tree
         if (v.empty()) return;
         FdpaParams check;
         check.tree = p.tree;
         try {
           detail::tree_width(check);
         } catch (const Error& e) {
           throw Error(w, e.what());
         }
       }},
      {"nan", [](const FdpaParams& p) { return std::string(p.nan); },
       [](FdpaParams& p, std::string_view v, const std::string& w) {
         p.nan = find_nan_policy(v, w).name;  // static storage
       }},
      BOOL_FIELD("nan_b_first", nan_b_first),
  };
  return f;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> describe_params(const FdpaParams& p) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Field& f : fields()) out.emplace_back(std::string(f.name), f.get(p));
  return out;
}

std::string model_text(const FdpaParams& p) { return unit_text(raise(p)); }

bool same_params(const FdpaParams& a, const FdpaParams& b) {
  for (const Field& f : fields())
    if (f.get(a) != f.get(b)) return false;
  return true;
}

namespace {

// The flat keys held to the staged form's rules: the unit p computes must be one the staged
// text accepts, and every key given must be one of its fields (lower(raise(p)) keeps it).
void check_given_keys_mean_something(const FdpaParams& p, const std::vector<std::string_view>& given,
                                     std::string_view what) {
  const UnitModel u = raise(p);
  const std::string staged = unit_text(u);
  try {
    parse_unit(staged, what);
  } catch (const Error& e) {
    const std::string message = std::string(e.what()).substr(e.where().empty() ? 0 : e.where().size() + 2);
    throw Error(e.where(), message + " (these keys as stages: " + staged + ")");
  }
  const FdpaParams kept = lower(u);
  for (const Field& f : fields()) {
    if (std::find(given.begin(), given.end(), f.name) == given.end() || f.get(kept) == f.get(p)) continue;
    throw Error(std::string(what) + " " + std::string(f.name),
                "'" + f.get(p) + "' means nothing in this unit, which does not read " + std::string(f.name) +
                    " (the unit as stages: " + staged + ")");
  }
}

}  // namespace

FdpaParams parse_model(std::string_view text, const Format& in, const Format& out,
                       std::string_view what) {
  return parse_model(text, FdpaFormats(in, out), what);
}

FdpaParams parse_model(std::string_view text, const FdpaFormats& formats, std::string_view what) {
  constexpr std::string_view kCustom = "custom:";
  const bool staged = is_unit_text(text);
  if (!staged && text.substr(0, kCustom.size()) != kCustom)
    return find_matrix_unit(text, formats, what);
  std::string_view rest = staged ? std::string_view{} : text.substr(kCustom.size());
  FdpaParams p = staged ? lower(parse_unit(text, what)) : FdpaParams{};
  bool first = true;
  std::vector<std::string_view> seen;  // keys given: a second one would silently win
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const std::size_t eq = item.find('=');
    const std::string where = std::string(what) + " " + std::string(item);
    if (eq == std::string_view::npos || eq == 0)
      throw Error(std::string(what), "'" + std::string(item) + "' is not key=value");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw Error(std::string(what), "parameter '" + std::string(key) + "' given twice");
    seen.push_back(key);
    if (key == "base") {
      if (!first) throw Error(where, "base= must come first");
      p = find_matrix_unit(value, formats, what);
      first = false;
      continue;
    }
    first = false;
    bool known = false;
    for (const Field& f : fields())
      if (f.name == key) {
        f.set(p, value, where);
        known = true;
      }
    if (!known) {
      std::string names;
      for (const Field& f : fields()) names += (names.empty() ? "" : ", ") + std::string(f.name);
      throw Error(std::string(what), "unknown parameter '" + std::string(key) + "' (known: base, " + names + ")");
    }
  }
  if (p.structure == FdpaStructure::tree && p.tree.empty())
    throw Error(std::string(what), "structure=tree needs tree=(...) (a sum tree over c and the products)");
  // block and frac_bits: the ranges the structure takes (emu/src/fdpa.cpp), checked here so that
  // every out-of-range value gets the same message, whatever its size.
  {
    const bool fused = p.structure == FdpaStructure::fused;
    const int lo = fused || p.structure == FdpaStructure::pairwise ? 1 : 0, hi = fused ? 64 : 4096;
    if (p.block < lo || p.block > hi)
      throw Error(std::string(what),
                  "block must be " + std::to_string(lo) + ".." + std::to_string(hi) + " with structure=" +
                      std::string(structure_name(p.structure)) +
                      " (fused 1..64, pairwise 1..4096, exact 0..4096 where 0 is all of K, sequential and "
                      "tree 0..4096, unused), got " +
                      std::to_string(p.block));
    const int fhi = fused ? 100 : 200;
    if (p.frac_bits < 0 || p.frac_bits > fhi)
      throw Error(std::string(what), "frac_bits must be 0.." + std::to_string(fhi) + " with structure=" +
                                         std::string(structure_name(p.structure)) + ", got " +
                                         std::to_string(p.frac_bits));
  }
  if (p.scale_block < 0 || p.scale_block > 4096)
    throw Error(std::string(what), "scale_block must be 0..4096");
  if (p.subsum < 0 || p.subsum > 64) throw Error(std::string(what), "subsum must be 0..64");
  // The fields fdpa takes as they are: bounded here, so that no exponent or shift computed
  // from them can overflow an int.
  if (p.zero_exp != INT_MIN && (p.zero_exp < -100000 || p.zero_exp > 100000))
    throw Error(std::string(what), "zero_exp must be none or -100000..100000");
  auto bits_field = [&](int v, const char* name, int lo, int hi) {
    if (v < lo || v > hi)
      throw Error(std::string(what), std::string(name) + " must be " + std::to_string(lo) + ".." +
                                         std::to_string(hi));
  };
  bits_field(p.acc_frac_bits, "acc_frac_bits", -1, max_acc_frac_bits(formats.d));  // <= 63
  bits_field(p.product_bits, "product_bits", -1, 200);
  bits_field(p.carry_bits, "carry_bits", -1, 200);
  bits_field(p.late_sum_frac_bits, "late_sum_frac_bits", 0, 200);
  bits_field(p.late_c_frac_bits, "late_c_frac_bits", 0, 200);
  bits_field(p.late_c_drop_below, "late_c_drop_below", -1, 200);
  bits_field(p.interleave, "interleave", 1, 4096);
  bits_field(p.instr_k, "instr_k", 0, 1 << 20);
  if (!staged) check_given_keys_mean_something(p, seen, what);
  return p;
}

}  // namespace fpconform
