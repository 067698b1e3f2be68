// UnitModel: the staged form of a matrix unit, lowered to and raised from FdpaParams, and its
// text (unit_model.hpp).
#include "fpconform/unit_model.hpp"

#include <algorithm>
#include <vector>

#include "fpconform/core/error.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fdpa_tree.hpp"
#include "param_text.hpp"

namespace fpconform {

namespace {

using detail::align_name;
using detail::to_align;
using detail::to_int;

bool is_fused(const UnitModel& m) { return std::holds_alternative<FusedNode>(m.node); }
bool is_exact(const UnitModel& m) { return std::holds_alternative<ExactNode>(m.node); }
// Nodes of IEEE operations in D's format, whose fma reads the first NaN among its operands.
bool is_ieee(const UnitModel& m) { return !is_fused(m) && !is_exact(m); }

}  // namespace

FdpaParams lower(const UnitModel& m) {
  FdpaParams p;
  p.flush_subnormal_inputs = m.products.flush;
  p.flushed_inputs_positive = m.products.flush && m.products.flush_positive;
  p.instr_k = m.instr.k;
  p.k_order = m.instr.order;
  p.c_last = m.instr.c_last;
  p.out_rounding = m.out.rounding;
  p.flush_subnormal_outputs = m.out.flush;
  p.nan = m.out.nan;
  p.c_in_block = false;  // C is in a fused block only where the fused node says so
  if (!is_ieee(m)) {
    p.scale_block = m.scales.block;
    p.subsum = m.scales.subsum;
    p.underflow_zero_positive = m.out.underflow_positive;
    p.acc_frac_bits = m.out.acc_frac_bits;
  } else {
    p.nan_b_first = m.out.nan_b_first;
  }
  if (const auto* f = std::get_if<FusedNode>(&m.node)) {
    p.structure = FdpaStructure::fused;
    p.block = f->block;
    p.frac_bits = f->frac_bits;
    p.align = f->align;
    p.zero_exp = f->zero_exp;
    p.carry_bits = f->carry_bits;
    p.interleave = f->interleave;
    p.group_align = f->group_align;
    p.product_bits = m.products.bits;
    if (m.products.bits >= 1) p.product_rounding = m.products.rounding;
    p.product_overflow = m.products.overflow_inf;
    p.c_in_block = m.c.place == CStage::Place::block;
    if (m.c.place == CStage::Place::late) {
      p.late_c = true;
      p.late_sum_frac_bits = m.c.sum_frac_bits;
      p.late_c_frac_bits = m.c.c_frac_bits;
      p.late_c_drop_below = m.c.drop_below;
      p.late_align = m.c.align;
    }
  } else if (const auto* e = std::get_if<ExactNode>(&m.node)) {
    p.structure = FdpaStructure::exact;
    p.block = e->block;
  } else if (const auto* w = std::get_if<PairwiseNode>(&m.node)) {
    p.structure = FdpaStructure::pairwise;
    p.block = w->group;
  } else if (std::holds_alternative<ChainNode>(m.node)) {
    p.structure = FdpaStructure::sequential;
  } else {
    p.structure = FdpaStructure::tree;
    p.tree = std::get<TreeNode>(m.node).tree;
  }
  return p;
}

UnitModel raise(const FdpaParams& p) {
  UnitModel m;
  m.products.flush = p.flush_subnormal_inputs;
  m.products.flush_positive = p.flush_subnormal_inputs && p.flushed_inputs_positive;
  m.instr = {p.instr_k, p.k_order, p.c_last};
  m.out.rounding = Rounding{p.out_rounding.mode};
  m.out.rounding.sat = p.out_rounding.sat;
  m.out.flush = p.flush_subnormal_outputs;
  m.out.nan = p.nan;
  const bool fused_or_exact = p.structure == FdpaStructure::fused || p.structure == FdpaStructure::exact;
  if (fused_or_exact) {
    m.scales = {p.scale_block, p.subsum};
    m.out.underflow_positive = p.underflow_zero_positive;
    m.out.acc_frac_bits = p.acc_frac_bits;
  } else {
    m.out.nan_b_first = p.nan_b_first;
  }
  switch (p.structure) {
    case FdpaStructure::fused: {
      m.node = FusedNode{p.block, p.frac_bits, p.align, p.zero_exp, p.carry_bits, p.interleave,
                         p.interleave > 1 ? p.group_align : AlignRounding::down};
      m.products.bits = p.product_bits;
      m.products.rounding = p.product_bits >= 1 ? p.product_rounding : AlignRounding::truncate;
      m.products.overflow_inf = p.product_overflow;
      if (p.c_in_block) m.c.place = CStage::Place::block;
      else if (!p.late_c) m.c.place = CStage::Place::after;
      else m.c = {CStage::Place::late, p.late_sum_frac_bits, p.late_c_frac_bits, p.late_c_drop_below, p.late_align};
      break;
    }
    case FdpaStructure::exact: m.node = ExactNode{p.block}; break;
    case FdpaStructure::pairwise: m.node = PairwiseNode{p.block}; break;
    case FdpaStructure::sequential: m.node = ChainNode{}; break;
    case FdpaStructure::tree: m.node = TreeNode{p.tree}; break;
  }
  return m;
}

namespace {

// ---- writing ----

struct StageWriter {
  std::vector<UnitStage> stages;
  std::vector<StageArg> args;
  void arg(const char* key, int v) { args.push_back({StageArg::Kind::integer, key, v, {}}); }
  void arg(const char* key, std::string_view v) {
    args.push_back({StageArg::Kind::word, key, 0, std::string(v)});
  }
  // A word written without its key (out's mode, c's place, tree's tree).
  void bare(const char* key, std::string_view v) {
    args.push_back({StageArg::Kind::word, key, 0, std::string(v), true});
  }
  void flag(const char* name, bool on) {
    if (on) args.push_back({StageArg::Kind::flag, name, 0, {}});
  }
  // Ends the stage `name`; a stage without arguments is written only when `always`.
  void end(const char* name, bool always = false) {
    if (!args.empty() || always) stages.push_back({name, std::move(args)});
    args.clear();
  }
};

}  // namespace

std::vector<UnitStage> unit_stages(const UnitModel& m) {
  const UnitModel d;  // the defaults
  const FusedNode df;
  StageWriter w;
  w.flag("flush", m.products.flush);
  w.flag("flush_positive", m.products.flush && m.products.flush_positive);
  if (is_fused(m)) {
    if (m.products.bits >= 1) w.arg("bits", m.products.bits);
    if (m.products.bits >= 1 && m.products.rounding != AlignRounding::truncate)
      w.arg("rounding", align_name(m.products.rounding));
    w.flag("overflow_inf", m.products.overflow_inf);
  }
  w.end("products");
  if (!is_ieee(m)) {
    if (m.scales.block != 0) w.arg("block", m.scales.block);
    if (m.scales.subsum != 0) w.arg("subsum", m.scales.subsum);
    w.end("scales");
  }
  if (const auto* f = std::get_if<FusedNode>(&m.node)) {
    w.arg("block", f->block);
    w.arg("frac_bits", f->frac_bits);
    if (f->align != df.align) w.arg("align", align_name(f->align));
    if (f->zero_exp != INT_MIN) w.arg("zero_exp", f->zero_exp);
    if (f->carry_bits >= 0) w.arg("carry_bits", f->carry_bits);
    if (f->interleave != 1) w.arg("interleave", f->interleave);
    if (f->interleave != 1 && f->group_align != df.group_align)
      w.arg("group_align", align_name(f->group_align));
    w.end("fused");
    if (m.c.place == CStage::Place::after) {
      w.bare("place", "after");
    } else if (m.c.place == CStage::Place::late) {
      w.bare("place", "late");
      if (m.c.sum_frac_bits != d.c.sum_frac_bits) w.arg("sum_frac_bits", m.c.sum_frac_bits);
      if (m.c.c_frac_bits != d.c.c_frac_bits) w.arg("c_frac_bits", m.c.c_frac_bits);
      if (m.c.drop_below != d.c.drop_below) w.arg("drop_below", m.c.drop_below);
      if (m.c.align != d.c.align) w.arg("align", align_name(m.c.align));
    }
    w.end("c");
  } else if (const auto* e = std::get_if<ExactNode>(&m.node)) {
    w.arg("block", e->block);
    w.end("exact");
  } else if (const auto* g = std::get_if<PairwiseNode>(&m.node)) {
    w.arg("group", g->group);
    w.end("pairwise");
  } else if (std::holds_alternative<ChainNode>(m.node)) {
    w.end("chain", true);
  } else {
    w.bare("tree", std::get<TreeNode>(m.node).tree);
    w.end("tree", true);
  }
  if (m.instr.k != 0) w.arg("k", m.instr.k);
  if (m.instr.order == KOrder::pairs_mod4) w.arg("order", "pairs_mod4");
  w.flag("c_last", m.instr.c_last);
  w.end("instr");
  if (!is_ieee(m) && m.out.acc_frac_bits >= 0) {
    w.arg("frac_bits", m.out.acc_frac_bits);
    w.end("acc");
  }
  w.bare("mode", to_string(m.out.rounding.mode));
  if (m.out.rounding.sat != d.out.rounding.sat) w.arg("sat", to_string(m.out.rounding.sat));
  w.flag("flush", m.out.flush);
  if (!is_ieee(m)) w.flag("underflow_positive", m.out.underflow_positive);
  if (m.out.nan != d.out.nan) w.arg("nan", m.out.nan);
  if (is_ieee(m)) w.flag("nan_b_first", m.out.nan_b_first);
  w.end("out", true);
  return std::move(w.stages);
}

std::string unit_text(const UnitModel& m) {
  std::string s;
  for (const UnitStage& stage : unit_stages(m)) {
    s += (s.empty() ? "" : " | ") + stage.name + "(";
    for (std::size_t i = 0; i < stage.args.size(); ++i) {
      const StageArg& a = stage.args[i];
      s += i ? ", " : "";
      s += a.kind == StageArg::Kind::flag      ? a.key
           : a.kind == StageArg::Kind::integer ? a.key + "=" + std::to_string(a.integer)
           : a.bare                            ? a.word
                                               : a.key + "=" + a.word;
    }
    s += ")";
  }
  return s;
}

namespace {

// ---- reading ----

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits at `sep` outside parentheses. Throws for unbalanced parentheses.
std::vector<std::string_view> split_top(std::string_view s, char sep, const std::string& where) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth < 0) throw Error(where, "')' without '('");
    if (s[i] == sep && depth == 0) {
      parts.push_back(trim(s.substr(from, i - from)));
      from = i + 1;
    }
  }
  if (depth != 0) throw Error(where, "'(' without ')'");
  parts.push_back(trim(s.substr(from)));
  return parts;
}

// The arguments of one stage: key=value pairs and bare flags, each read once.
class Args {
 public:
  Args(std::string_view body, std::string where) : where_(std::move(where)) {
    if (trim(body).empty()) return;
    for (std::string_view a : split_top(body, ',', where_)) {
      if (a.empty()) throw Error(where_, "an empty argument");
      const std::size_t eq = a.find('=');
      Arg x{trim(a.substr(0, eq)), eq == std::string_view::npos ? std::string_view{} : trim(a.substr(eq + 1)),
            eq != std::string_view::npos, false};
      for (const Arg& y : args_)
        if (y.key == x.key) throw Error(where_, "'" + std::string(x.key) + "' given twice");
      args_.push_back(x);
    }
  }
  int integer(std::string_view key, int fallback, bool allow_none = false) {
    Arg* a = find(key, true);
    return a ? to_int(a->value, where_ + " " + std::string(key), allow_none) : fallback;
  }
  AlignRounding align(std::string_view key, AlignRounding fallback) {
    Arg* a = find(key, true);
    return a ? to_align(a->value, where_ + " " + std::string(key)) : fallback;
  }
  std::string_view text(std::string_view key, std::string_view fallback) {
    Arg* a = find(key, true);
    return a ? a->value : fallback;
  }
  bool flag(std::string_view key) { return find(key, false) != nullptr; }
  // The one bare word not taken as a flag (out's rounding mode), if any.
  std::string_view word() {
    for (Arg& a : args_)
      if (!a.used && !a.has_value) {
        a.used = true;
        return a.key;
      }
    return {};
  }
  // Throws for an argument no reader took: the stage does not take it.
  void done(std::string_view takes) const {
    for (const Arg& a : args_)
      if (!a.used)
        throw Error(where_, "does not take '" + std::string(a.key) + "' (it takes: " + std::string(takes) + ")");
  }

 private:
  struct Arg {
    std::string_view key, value;
    bool has_value, used;
  };
  Arg* find(std::string_view key, bool valued) {
    for (Arg& a : args_)
      if (a.key == key) {
        if (a.has_value != valued)
          throw Error(where_, "'" + std::string(key) + (valued ? "' needs a value (key=value)" : "' is a flag, not key=value"));
        a.used = true;
        return &a;
      }
    return nullptr;
  }
  std::string where_;
  std::vector<Arg> args_;
};

// A stage's rank: stages come in this order, each at most once.
int rank_of(std::string_view name) {
  if (name == "products") return 0;
  if (name == "scales") return 1;
  if (name == "fused" || name == "exact" || name == "pairwise" || name == "chain" || name == "tree") return 2;
  if (name == "c") return 3;
  if (name == "instr") return 4;
  if (name == "acc") return 5;
  if (name == "out") return 6;
  return -1;
}

}  // namespace

bool is_unit_text(std::string_view text) {
  return text.substr(0, 7) != "custom:" && text.find('(') != std::string_view::npos;
}

UnitModel parse_unit(std::string_view text, std::string_view what) {
  const std::string w(what);
  UnitModel m;
  bool have_node = false, have_c = false, have_scales = false, have_acc = false;
  bool products_fused_only = false, nan_b_first_given = false, underflow_given = false;
  int last_rank = -1;
  for (std::string_view stage : split_top(text, '|', w)) {
    const std::size_t open = stage.find('(');
    if (stage.empty() || open == std::string_view::npos || stage.back() != ')')
      throw Error(w, "'" + std::string(stage) + "' is not a stage name(arguments)");
    const std::string_view name = trim(stage.substr(0, open));
    const std::string_view body = stage.substr(open + 1, stage.size() - open - 2);
    const std::string where = w + " " + std::string(name) + "()";
    const int rank = rank_of(name);
    if (rank < 0)
      throw Error(w, "unknown stage '" + std::string(name) +
                         "' (stages: products, scales, fused | exact | pairwise | chain | tree, c, "
                         "instr, acc, out)");
    if (rank <= last_rank)
      throw Error(where, rank == last_rank ? "a second stage of this kind"
                                           : "out of order (products, scales, node, c, instr, acc, out)");
    last_rank = rank;
    if (name == "tree") {
      const std::string_view t = trim(body);
      FdpaParams check;
      check.tree = intern_tree(t);
      try {
        detail::tree_width(check);
      } catch (const Error& e) {
        throw Error(where, e.what());
      }
      m.node = TreeNode{check.tree};
      have_node = true;
      continue;
    }
    Args a(body, where);
    if (name == "products") {
      m.products.flush = a.flag("flush");
      m.products.flush_positive = a.flag("flush_positive");
      if (m.products.flush_positive && !m.products.flush)
        throw Error(where, "flush_positive needs flush");
      m.products.bits = a.integer("bits", -1);
      m.products.rounding = a.align("rounding", AlignRounding::truncate);
      m.products.overflow_inf = a.flag("overflow_inf");
      products_fused_only = m.products.bits != -1 || m.products.overflow_inf;
      a.done("flush, flush_positive, bits, rounding, overflow_inf");
    } else if (name == "scales") {
      m.scales.block = a.integer("block", 0);
      m.scales.subsum = a.integer("subsum", 0);
      have_scales = true;
      a.done("block, subsum");
    } else if (name == "fused") {
      FusedNode f;
      f.block = a.integer("block", f.block);
      f.frac_bits = a.integer("frac_bits", f.frac_bits);
      f.align = a.align("align", f.align);
      f.zero_exp = a.integer("zero_exp", f.zero_exp, true);
      f.carry_bits = a.integer("carry_bits", f.carry_bits);
      f.interleave = a.integer("interleave", f.interleave);
      f.group_align = a.align("group_align", f.group_align);
      a.done("block, frac_bits, align, zero_exp, carry_bits, interleave, group_align");
      m.node = f;
      have_node = true;
    } else if (name == "exact") {
      m.node = ExactNode{a.integer("block", 0)};
      a.done("block");
      have_node = true;
    } else if (name == "pairwise") {
      m.node = PairwiseNode{a.integer("group", 4)};
      a.done("group");
      have_node = true;
    } else if (name == "chain") {
      m.node = ChainNode{};
      a.done("nothing");
      have_node = true;
    } else if (name == "c") {
      have_c = true;
      const bool block = a.flag("block"), after = a.flag("after"), late = a.flag("late");
      if (block + after + late != 1) throw Error(where, "give one of block, after, late");
      m.c.place = block ? CStage::Place::block : after ? CStage::Place::after : CStage::Place::late;
      if (late) {
        m.c.sum_frac_bits = a.integer("sum_frac_bits", m.c.sum_frac_bits);
        m.c.c_frac_bits = a.integer("c_frac_bits", m.c.c_frac_bits);
        m.c.drop_below = a.integer("drop_below", m.c.drop_below);
        m.c.align = a.align("align", m.c.align);
      }
      a.done(late ? "late, sum_frac_bits, c_frac_bits, drop_below, align" : "one of block, after, late");
    } else if (name == "instr") {
      m.instr.k = a.integer("k", 0);
      const std::string_view order = a.text("order", "natural");
      if (order == "pairs_mod4") m.instr.order = KOrder::pairs_mod4;
      else if (order != "natural") throw Error(where + " order", "'" + std::string(order) + "' is not natural or pairs_mod4");
      m.instr.c_last = a.flag("c_last");
      a.done("k, order, c_last");
    } else if (name == "acc") {
      m.out.acc_frac_bits = a.integer("frac_bits", -1);
      have_acc = true;
      a.done("frac_bits");
    } else {  // out
      m.out.rounding.sat = parse_saturation(a.text("sat", to_string(m.out.rounding.sat)), where + " sat");
      m.out.flush = a.flag("flush");
      m.out.underflow_positive = underflow_given = a.flag("underflow_positive");
      m.out.nan = find_nan_policy(a.text("nan", m.out.nan), where + " nan").name;
      m.out.nan_b_first = nan_b_first_given = a.flag("nan_b_first");
      const std::string_view mode = a.word();
      if (!mode.empty()) m.out.rounding.mode = parse_rounding_mode(mode, where);
      a.done("a rounding mode, sat, flush, underflow_positive, nan, nan_b_first");
    }
  }
  if (!have_node) throw Error(w, "no reduction node (fused, exact, pairwise, chain or tree)");
  if (products_fused_only && !is_fused(m))
    throw Error(w + " products()", "bits, rounding and overflow_inf are products of a fused node");
  if (have_scales && is_ieee(m)) throw Error(w + " scales()", "block scales need a fused or exact node");
  if (have_c && !is_fused(m)) throw Error(w + " c()", "only a fused node says where C enters");
  if (have_acc && is_ieee(m)) throw Error(w + " acc()", "an accumulator cut needs a fused or exact node");
  if (underflow_given && is_ieee(m))
    throw Error(w + " out()", "underflow_positive is a rule of fused and exact nodes");
  if (nan_b_first_given && !is_ieee(m))
    throw Error(w + " out()", "nan_b_first is a rule of IEEE nodes (pairwise, chain, tree)");
  if (const auto* f = std::get_if<FusedNode>(&m.node)) {
    if (f->interleave < 1 || f->interleave > f->block)
      throw Error(w + " fused()", "interleave must be 1..block (" + std::to_string(f->block) + ")");
    if (f->interleave > 1 && m.c.place == CStage::Place::block)
      throw Error(w + " fused()", "interleaved groups need C after the block: c(after) or c(late)");
  }
  return m;
}

}  // namespace fpconform
