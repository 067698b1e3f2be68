// The tree structure of fdpa (fdpa.hpp): a reduction tree of rounding and exact nodes over one
// instruction's products and C, evaluated with exact values and one rounding per node.
#include "fdpa_tree.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/exact_ops.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fpconform/sum_tree.hpp"
#include "wide_sum.hpp"

namespace fpconform::detail {

namespace {

// The tree flattened: children before parents, the root last.
struct FlatNode {
  enum class Kind : std::uint8_t { product, c, rounding, exact } kind;
  int index = -1;          // product leaves
  std::vector<int> kids;   // inner nodes: products first (by index), then the rest in tree order
};

struct FlatTree {
  std::vector<FlatNode> nodes;
  int width = 0;  // products per instruction
};

int flatten(const SumTree& t, FlatTree& f) {
  FlatNode n;
  if (t.is_c()) n.kind = FlatNode::Kind::c;
  else if (t.is_leaf()) {
    n.kind = FlatNode::Kind::product;
    n.index = t.index();
  } else {
    n.kind = t.exact() ? FlatNode::Kind::exact : FlatNode::Kind::rounding;
    std::vector<int> products, others;
    const auto add_child = [&](const SumTree& ch, const auto& self) -> void {
      if (!ch.is_leaf() && ch.exact()) {
        // An exact child passed up unrounded is its children summed here: spliced in, so that
        // the node's one exact sum holds every term (a 128-bit partial sum would lose the low
        // bits of a sum that spans more before terms that cancel against it).
        for (const SumTree& g : ch.children()) self(g, self);
        return;
      }
      const int id = flatten(ch, f);
      (f.nodes[static_cast<std::size_t>(id)].kind == FlatNode::Kind::product ? products : others).push_back(id);
    };
    for (const SumTree& ch : t.children()) add_child(ch, add_child);
    // products in index order whatever the splicing: the node's NaN rule reads them so
    std::sort(products.begin(), products.end(), [&](int x, int y) {
      return f.nodes[static_cast<std::size_t>(x)].index < f.nodes[static_cast<std::size_t>(y)].index;
    });
    std::reverse(products.begin(), products.end());
    n.kids = products;
    n.kids.insert(n.kids.end(), others.begin(), others.end());
  }
  f.nodes.push_back(std::move(n));
  return static_cast<int>(f.nodes.size()) - 1;
}

std::shared_ptr<const FlatTree> compile(std::string_view text_view) {
  const std::string text(text_view);
  const SumTree t = parse_sum_tree(text, "tree");
  auto f = std::make_shared<FlatTree>();
  flatten(t, *f);
  int cs = 0;
  std::vector<int> seen;
  for (const FlatNode& n : f->nodes) {
    if (n.kind == FlatNode::Kind::c) ++cs;
    if (n.kind != FlatNode::Kind::product) continue;
    if (n.index >= 4096) throw Error("tree", "product index " + std::to_string(n.index) + " is above 4095");
    if (static_cast<std::size_t>(n.index) >= seen.size()) seen.resize(static_cast<std::size_t>(n.index) + 1, 0);
    ++seen[static_cast<std::size_t>(n.index)];
  }
  if (cs != 1) throw Error("tree", "'" + text + "' must hold the leaf c exactly once");
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (seen[i] != 1)
      throw Error("tree", "'" + text + "' must hold each product 0.." + std::to_string(seen.size() - 1) +
                              " exactly once (product " + std::to_string(i) + ")");
  if (seen.empty()) throw Error("tree", "'" + text + "' has no product");
  f->width = static_cast<int>(seen.size());
  return f;
}

// One parse per distinct text and thread: fdpa is called per dot product.
std::shared_ptr<const FlatTree> compiled(std::string_view text) {
  thread_local std::string last;
  thread_local std::shared_ptr<const FlatTree> tree;
  if (!tree || text != last) {
    tree = compile(text);
    last = std::string(text);
  }
  return tree;
}

ExactValue read_flushed(std::uint64_t code, const Format& f, const FdpaParams& p) {
  ExactValue v = decode(code, f);
  if (p.flush_subnormal_inputs && v.is_finite_nonzero() && f.subnormals && v.sig < (u128(1) << f.man_bits))
    return ExactValue::zero(p.flushed_inputs_positive ? false : v.negative);
  if (p.flush_subnormal_inputs && p.flushed_inputs_positive && v.is_zero()) return ExactValue::zero(false);
  return v;
}

ExactValue quieted(ExactValue v) {
  v.signaling = false;
  return v;
}

class Evaluator {
 public:
  Evaluator(const FdpaParams& p, const FdpaFormats& f)
      : p_(p), f_(f), out_(f.d), policy_(find_nan_policy(p.nan, "nan")) {
    rounding_ = p.out_rounding;
    rounding_.ftz = p.flush_subnormal_outputs;
    rounding_.daz = false;
    rounding_.tininess = Tininess::after_rounding;
    default_nan_ = ExactValue::quiet_nan(policy_.default_negative, policy_.default_payload_ones ? ~0ull : 0);
  }

  // One instruction: products a[i] * b[i] for i < a.size() (the rest of the width +0), C.
  ExactValue instruction(const FlatTree& t, std::span<const std::uint64_t> a,
                         std::span<const std::uint64_t> b, const ExactValue& c) {
    nodes_ = &t.nodes;
    values_.assign(t.nodes.size(), ExactValue::zero(false));
    invalid_.assign(t.nodes.size(), false);
    present_.assign(t.nodes.size(), true);
    for (std::size_t id = 0; id < t.nodes.size(); ++id) {
      const FlatNode& n = t.nodes[id];
      switch (n.kind) {
        case FlatNode::Kind::c: values_[id] = c; break;
        case FlatNode::Kind::product: {
          const auto i = static_cast<std::size_t>(n.index);
          bool inv = false;
          if (i < a.size()) values_[id] = product(a[i], b[i], inv);
          else present_[id] = false;
          invalid_[id] = inv;
          break;
        }
        case FlatNode::Kind::rounding:
        case FlatNode::Kind::exact: {
          kids_.clear();
          for (int k : n.kids)
            if (present_[static_cast<std::size_t>(k)]) kids_.push_back(k);
          present_[id] = !kids_.empty();
          if (kids_.size() == 1 && n.kind == FlatNode::Kind::exact) {
            values_[id] = values_[static_cast<std::size_t>(kids_[0])];
            invalid_[id] = invalid_[static_cast<std::size_t>(kids_[0])];
          } else if (kids_.size() == 1) {
            values_[id] = round_alone(kids_[0]);  // the node's operation without its missing operands
          }
          else if (!kids_.empty()) values_[id] = sum(n.kind);
          break;
        }
      }
    }
    return values_.back();
  }

  bool is_product(int id) const { return (*nodes_)[static_cast<std::size_t>(id)].kind == FlatNode::Kind::product; }

  ExactValue read_c(std::uint64_t code) const { return read_flushed(code, f_.c, p_); }
  std::uint64_t encode(const ExactValue& v) const { return round_to_format(v, out_, rounding_).bits; }

 private:
  // inf * 0 is `invalid` (a default NaN unless the node has a NaN operand, as x86's FMA).
  ExactValue product(std::uint64_t ac, std::uint64_t bc, bool& invalid) const {
    const ExactValue x = read_flushed(ac, f_.a, p_), y = read_flushed(bc, f_.b, p_);
    const ExactValue& first = p_.nan_b_first ? y : x;
    const ExactValue& second = p_.nan_b_first ? x : y;
    if (first.is_nan() || second.is_nan())
      return policy_.propagate ? quieted(first.is_nan() ? first : second) : default_nan_;
    const bool neg = x.negative != y.negative;
    if (x.is_inf() || y.is_inf()) {
      invalid = x.is_zero() || y.is_zero();
      return invalid ? default_nan_ : ExactValue::infinity(neg);
    }
    if (x.is_zero() || y.is_zero()) return ExactValue::zero(neg);
    return exact_mul(x, y);
  }

  // A product rounded alone is fma(a, b, +0), so a -0 product gives +0 (-0 rounding down).
  ExactValue round_alone(int id) const {
    const ExactValue& v = values_[static_cast<std::size_t>(id)];
    if (v.is_nan()) return policy_.propagate && !invalid_[static_cast<std::size_t>(id)] ? quieted(v) : default_nan_;
    if (v.is_zero() && is_product(id)) return ExactValue::zero(v.negative && rounding_.mode == RoundingMode::down);
    return decode(encode(v), out_);
  }

  // The present children kids_ of a node of `kind`.
  ExactValue sum(FlatNode::Kind kind) const {
    const std::vector<int>& kids = kids_;
    bool pos_inf = false, neg_inf = false, all_zero = true, all_neg_zero = true;
    for (int k : kids) {
      const ExactValue& v = values_[static_cast<std::size_t>(k)];
      if (v.is_nan() && !invalid_[static_cast<std::size_t>(k)]) return policy_.propagate ? quieted(v) : default_nan_;
    }
    for (int k : kids)
      if (invalid_[static_cast<std::size_t>(k)]) return default_nan_;
    // A node of two products is an FMA onto the earlier one, which is rounded alone first
    // (an FMA's addend is a value of the format: +inf when a*b overflows).
    ExactValue addend;
    const bool two_products = kind == FlatNode::Kind::rounding && kids.size() == 2 &&
                              is_product(kids[0]) && is_product(kids[1]);
    if (two_products) addend = round_alone(kids[1]);
    // One fixed-point sum of every finite term: partial sums of 128 bits would lose the low
    // bits of terms far below the others before a cancellation brings them to the top.
    int lo = INT_MAX, hi = INT_MIN, terms = 0;
    const auto term = [&](int k) -> const ExactValue& {
      return two_products && k == kids[1] ? addend : values_[static_cast<std::size_t>(k)];
    };
    for (int k : kids) {
      const ExactValue& v = term(k);
      if (v.is_inf()) (v.negative ? neg_inf : pos_inf) = true;
      if (!v.is_zero()) all_zero = false;
      if (!(v.is_zero() && v.negative)) all_neg_zero = false;
      if (!v.is_finite_nonzero()) continue;
      lo = std::min(lo, v.exp);
      hi = std::max(hi, v.exp + bit_length(v.sig));
      ++terms;
    }
    ExactValue total = ExactValue::zero(false);
    if (terms > 0 && !pos_inf && !neg_inf) {
      WideSum acc(lo, hi - lo + bit_length(static_cast<u128>(terms)) + 2);
      for (int k : kids)
        if (const ExactValue& v = term(k); v.is_finite_nonzero()) acc.add(v.negative, v.sig, v.exp);
      total = acc.value();
    }
    if (pos_inf && neg_inf) return default_nan_;
    if (pos_inf || neg_inf) return ExactValue::infinity(neg_inf);
    if (total.is_zero())  // IEEE: zeros of one sign keep it; a cancellation is +0 (-0 rounding down)
      total = ExactValue::zero(all_zero ? all_neg_zero : rounding_.mode == RoundingMode::down);
    if (kind == FlatNode::Kind::exact) return total;
    return decode(encode(total), out_);
  }

  const FdpaParams& p_;
  const FdpaFormats& f_;
  const Format& out_;
  const NanPolicy& policy_;
  Rounding rounding_;
  ExactValue default_nan_;
  const std::vector<FlatNode>* nodes_ = nullptr;
  std::vector<ExactValue> values_;
  std::vector<char> invalid_;  // per node: an inf * 0 product
  std::vector<char> present_;  // per node: false for products past the last one and nodes of only those
  std::vector<int> kids_;      // the present children of the node being evaluated
};

}  // namespace

}  // namespace fpconform::detail

namespace fpconform {

std::string_view intern_tree(std::string_view text) {
  static std::mutex m;
  static std::set<std::string, std::less<>> pool;
  const std::lock_guard<std::mutex> lock(m);
  auto it = pool.find(text);
  if (it == pool.end()) it = pool.emplace(text).first;
  return *it;
}

}  // namespace fpconform

namespace fpconform::detail {

int tree_width(const FdpaParams& p) { return compiled(p.tree)->width; }

std::uint64_t tree_dot(const FdpaParams& p, const FdpaFormats& f,
                       std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                       std::uint64_t c) {
  if (std::max({f.a.man_bits, f.b.man_bits, f.c.man_bits, f.d.man_bits}) > 63)
    throw Error("in", "formats of up to 64-bit significands");
  const std::shared_ptr<const FlatTree> tree = compiled(p.tree);
  const FlatTree& t = *tree;
  Evaluator e(p, f);
  ExactValue d = e.read_c(c);
  const auto w = static_cast<std::size_t>(t.width);
  std::size_t k = 0;
  do {
    const std::size_t len = std::min(w, a.size() - k);
    d = e.instruction(t, a.subspan(k, len), b.subspan(k, len), d);
    k += len;
  } while (k < a.size());
  return e.encode(d);
}

}  // namespace fpconform::detail
