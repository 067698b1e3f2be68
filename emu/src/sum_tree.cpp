// SumTree: canonical construction, text form and its parser.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "fpconform/sum_tree.hpp"
#include "fpconform/error.hpp"

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
