// SumTree: canonical construction, text form and its parser.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "fpconform/sum_tree.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform {

SumTree SumTree::product(int index) {
  if (index < 0) throw Error("SumTree", "product index must be >= 0");
  SumTree t;
  t.kind_ = Kind::product;
  t.index_ = index;
  t.leaves_ = 1;
  t.min_key_ = index;
  return t;
}

SumTree SumTree::c() {
  SumTree t;
  t.kind_ = Kind::c;
  t.leaves_ = 1;
  t.min_key_ = -1;
  return t;
}

SumTree SumTree::node(std::vector<SumTree> children, bool exact) {
  if (children.empty()) throw Error("SumTree", "a node needs at least one child");
  if (children.size() == 1) return std::move(children[0]);
  std::sort(children.begin(), children.end(),
            [](const SumTree& a, const SumTree& b) { return a.min_key_ < b.min_key_; });
  SumTree t;
  t.kind_ = Kind::node;
  // A 2-way exact node behaves like a rounding one under FPRev (both children are +-M): one
  // spelling for both.
  t.exact_ = exact && children.size() > 2;
  t.min_key_ = children.front().min_key_;
  for (const SumTree& ch : children) t.leaves_ += ch.leaves_;
  t.children_ = std::move(children);
  return t;
}

std::string SumTree::text() const {
  if (kind_ == Kind::c) return "c";
  if (kind_ == Kind::product) return std::to_string(index_);
  std::string s(1, exact_ ? '[' : '(');
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (i) s += ' ';
    s += children_[i].text();
  }
  s += exact_ ? ']' : ')';
  return s;
}

bool SumTree::operator==(const SumTree& o) const {
  return kind_ == o.kind_ && index_ == o.index_ && exact_ == o.exact_ &&
         leaves_ == o.leaves_ && children_ == o.children_;
}

namespace {

class TreeParser {
 public:
  TreeParser(std::string_view text, std::string_view what) : s_(text), what_(what) {}

  SumTree parse() {
    SumTree t = item();
    skip();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return t;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(std::string(what_), why + " at offset " + std::to_string(pos_) + " of '" +
                                        std::string(s_) + "'");
  }
  SumTree item() {
    skip();
    if (pos_ >= s_.size()) fail("unexpected end");
    const char ch = s_[pos_];
    if (ch == 'c') {
      ++pos_;
      return SumTree::c();
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      int v = 0;
      const auto r = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v);
      if (r.ec != std::errc()) fail("bad product index");
      pos_ = static_cast<std::size_t>(r.ptr - s_.data());
      return SumTree::product(v);
    }
    if (ch == '(' || ch == '[') {
      const char close = ch == '(' ? ')' : ']';
      ++pos_;
      std::vector<SumTree> kids;
      for (;;) {
        skip();
        if (pos_ < s_.size() && s_[pos_] == close) break;
        kids.push_back(item());
      }
      ++pos_;
      if (kids.empty()) fail("empty node");
      return SumTree::node(std::move(kids), close == ']');
    }
    fail("unexpected '" + std::string(1, ch) + "'");
  }

  std::string_view s_;
  std::string_view what_;
  std::size_t pos_ = 0;
};

}  // namespace

SumTree parse_sum_tree(std::string_view text, std::string_view what) {
  return TreeParser(text, what).parse();
}

}  // namespace fpconform

namespace fpconform {

namespace {

// t with c replaced by `prev` (none: the leaf c) and product i by i + offset, products >= k
// dropped; nullopt when nothing is left.
std::optional<SumTree> substitute(const SumTree& t, int offset, int k, const std::optional<SumTree>& prev) {
  if (t.is_c()) return prev ? *prev : SumTree::c();
  if (t.is_leaf()) {
    if (t.index() + offset >= k) return std::nullopt;
    return SumTree::product(t.index() + offset);
  }
  std::vector<SumTree> kids;
  for (const SumTree& ch : t.children())
    if (auto s = substitute(ch, offset, k, prev)) kids.push_back(std::move(*s));
  if (kids.empty()) return std::nullopt;
  return SumTree::node(std::move(kids), t.exact());
}

void collect_products(const SumTree& t, std::vector<int>& out) {
  if (t.is_c()) return;
  if (t.is_leaf()) {
    out.push_back(t.index());
    return;
  }
  for (const SumTree& ch : t.children()) collect_products(ch, out);
}

bool holds_c(const SumTree& t) {
  if (t.is_leaf()) return t.is_c();
  for (const SumTree& ch : t.children())
    if (holds_c(ch)) return true;
  return false;
}

}  // namespace

int product_count(const SumTree& t) { return holds_c(t) ? t.leaf_count() - 1 : t.leaf_count(); }

SumTree chain_instructions(const SumTree& instruction, int k) {
  const int n = product_count(instruction);
  if (n < 1 || k < 1) throw Error("tree", "an instruction tree needs products, and k must be >= 1");
  std::optional<SumTree> d;
  for (int offset = 0; offset < k; offset += n) d = substitute(instruction, offset, k, d);
  return *d;
}

SumTree instruction_of(const SumTree& t) {
  const int n = product_count(t);
  for (int w = 1; w < n; ++w) {  // w need not divide n: the last instruction may be short
    // The node on the path to c that holds c and w products.
    const SumTree* at = &t;
    while (!at->is_leaf() && at->leaf_count() > w + 1) {
      const SumTree* next = nullptr;
      for (const SumTree& ch : at->children())
        if (holds_c(ch)) next = &ch;
      if (!next) break;
      at = next;
    }
    if (at->leaf_count() != w + 1 || !holds_c(*at)) continue;
    std::vector<int> ps;
    collect_products(*at, ps);
    std::sort(ps.begin(), ps.end());
    bool first_w = true;
    for (int i = 0; i < w; ++i) first_w = first_w && ps[static_cast<std::size_t>(i)] == i;
    if (first_w && chain_instructions(*at, n) == t) return *at;
  }
  return t;
}

}  // namespace fpconform
