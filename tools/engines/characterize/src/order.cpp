// recover_order: FPRev (arXiv 2411.00442) on a black-box Target, with summands realised as
// products of powers of two in the input formats (a's and b's) and C in the output format.
#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "fpconform/characterize/order.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::characterize {

namespace {

constexpr int kC = -1;  // leaf id of C; products are 0 .. k-1

int ceil_log2(int n) {
  int e = 0;
  while ((1LL << e) < n) ++e;
  return e;
}

// The code of +-2^e in f; throws when f cannot hold it exactly.
std::uint64_t pow2_code(const Format& f, int e, bool negative, const std::string& where) {
  std::uint64_t code = 0;
  bool ok = e <= f.emax();
  if (ok && e >= f.emin()) {
    code = static_cast<std::uint64_t>(e + f.bias) << f.man_bits;
  } else if (ok) {
    const int shift = f.emin() - e;
    ok = f.subnormals && shift <= f.man_bits;
    if (ok) code = 1ull << (f.man_bits - shift);
  }
  if (negative) {
    ok = ok && f.is_signed;
    code |= f.sign_mask();
  }
  if (!ok || to_double(code, f) != std::ldexp(negative ? -1.0 : 1.0, e))
    throw Error(where, "summation order: " + f.name + " has no code for " +
                           (negative ? "-2^" : "2^") + std::to_string(e));
  return code;
}

// The summands of every query: +-M = +-2^big as a product and as C, the unit 2^unit likewise.
struct Summands {
  int big = 0, unit = 0;
  bool subnormal = false;  // the unit's factors include a subnormal input
  std::uint64_t big_a = 0, neg_big_a = 0, big_b = 0, unit_a = 0, neg_unit_a = 0, unit_b = 0;
  std::uint64_t c_big = 0, c_neg_big = 0, c_unit = 0, c_neg_unit = 0;
};

// The exponents of the powers of two an input format holds (down to its smallest subnormal
// where `subnormal` allows), and where its normal range starts.
struct ExponentRange {
  int lo = 0, hi = 0, emin = 0;
};

ExponentRange exponents(const Format& f, bool subnormal) {
  return {subnormal && f.subnormals ? f.emin() - f.man_bits : f.emin(), f.emax(), f.emin()};
}

// Splits 2^e into a product 2^ea * 2^eb with ea in a's range and eb in b's, as many of them
// normal as possible.
std::pair<int, int> split_exponent(int e, const ExponentRange& a, const ExponentRange& b) {
  std::pair<int, int> best{a.hi + 1, 0};
  int best_score = -1;
  for (int ea = a.hi; ea >= a.lo; --ea) {
    const int eb = e - ea;
    if (eb < b.lo || eb > b.hi) continue;
    const int score = (ea >= a.emin) + (eb >= b.emin);
    if (score > best_score) best = {ea, eb}, best_score = score;
  }
  if (best_score < 0) throw Error("split_exponent", "no split");
  return best;
}

// Which subnormals the unit may use: in the inputs (a unit product of two tiny factors) and in
// the output (C and the partial sums). A target that flushes them fails the all-units check
// and gets the next, narrower choice.
struct UnitRange {
  bool subnormal_in = true, subnormal_out = true;
};

// M as large as the formats allow (one binade below the output's top, for product_overflow and
// rounding up); the unit 24 bits further below what IEEE additions need, so that fused nodes
// that align to ~24 more fraction bits still cut partial sums of units, but not below the
// smallest product or what the output holds.
Summands with_codes(Summands s, const Format& in, const Format& in_b, const Format& out,
                    UnitRange range, const std::string& where);

Summands choose_summands(const Format& in, const Format& in_b, const Format& out, int k,
                         UnitRange range, const std::string& where,
                         std::vector<std::string>& notes) {
  if (!in.is_signed) throw Error(where, "summation order: needs a signed format of a");
  const ExponentRange ra = exponents(in, range.subnormal_in), rb = exponents(in_b, range.subnormal_in);
  const int lo_out =
      range.subnormal_out && out.subnormals ? out.emin() - out.man_bits : out.emin();
  Summands s;
  s.big = std::min(ra.hi + rb.hi, out.emax() - 1);
  const int need = ceil_log2(k + 1) + out.precision() + 2;
  s.unit = std::max({s.big - need - 24, ra.lo + rb.lo, lo_out});
  const std::string products = in == in_b ? in.name : in.name + " x " + in_b.name;
  if (s.big - s.unit < ceil_log2(k + 1) + 2)
    throw Error(where, "summation order: " + products + " products and " + out.name +
                           " span 2^" + std::to_string(s.big - s.unit) + ", too narrow to swamp " +
                           std::to_string(k) + " units");
  if (s.big - s.unit < need)
    notes.push_back("M / unit = 2^" + std::to_string(s.big - s.unit) + " is below the 2^" +
                    std::to_string(need) + " that IEEE additions in " + out.name +
                    " need; only alignment cuts can swamp the units");
  else if (s.big - s.unit < need + 24)
    notes.push_back("M / unit = 2^" + std::to_string(s.big - s.unit) +
                    ": a fused node that keeps more than " +
                    std::to_string(s.big - s.unit - ceil_log2(k + 1) - 1) +
                    " fraction bits would not cut a partial sum of units");
  return with_codes(s, in, in_b, out, range, where);
}

// Toward zero, units that join -M (under +M's LCA with it) are never absorbed whichever signs
// the query takes: each node where they join steps -M one ulp (2^(big - p_out)) toward zero.
// With k units below that ulp, yet exact beside s <= 2 (k + 1) such steps, D = s ulp + n units
// still gives n. The unit is the smallest that keeps D exact (so that wide fused nodes still cut
// it, as they cut the first unit); nullopt where the output's precision has no room for both.
std::optional<Summands> stepping_summands(const Format& in, const Format& in_b, const Format& out, int k,
                                          const Summands& wide, UnitRange range,
                                          const std::string& where) {
  const int p = out.precision();
  const int steps_bits = ceil_log2(2 * k + 3);
  const int unit = std::max(wide.unit, wide.big - 2 * p + steps_bits);
  const int ulp_over_unit = wide.big - p - unit;  // log2
  if (ulp_over_unit < ceil_log2(k) || steps_bits + ulp_over_unit > p) return std::nullopt;
  Summands s;
  s.big = wide.big;
  s.unit = unit;
  try {
    return with_codes(s, in, in_b, out, range, where);
  } catch (const Error&) {
    return std::nullopt;  // no split of the unit into two inputs
  }
}

// The codes of s.big and s.unit as products (a's factor of `in`, b's of `in_b`, subnormal ones
// where `range` allows) and as C.
Summands with_codes(Summands s, const Format& in, const Format& in_b, const Format& out,
                    UnitRange range, const std::string& where) {
  const ExponentRange ra = exponents(in, range.subnormal_in), rb = exponents(in_b, range.subnormal_in);
  const auto [ma, mb] = split_exponent(s.big, ra, rb);
  const auto [ua, ub] = split_exponent(s.unit, ra, rb);
  s.subnormal = ua < in.emin() || ub < in_b.emin() || s.unit < out.emin();
  s.big_a = pow2_code(in, ma, false, where);
  s.neg_big_a = pow2_code(in, ma, true, where);
  s.big_b = pow2_code(in_b, mb, false, where);
  s.unit_a = pow2_code(in, ua, false, where);
  s.neg_unit_a = pow2_code(in, ua, true, where);
  s.unit_b = pow2_code(in_b, ub, false, where);
  s.c_big = pow2_code(out, s.big, false, where);
  s.c_neg_big = pow2_code(out, s.big, true, where);
  s.c_unit = pow2_code(out, s.unit, false, where);
  s.c_neg_unit = pow2_code(out, s.unit, true, where);
  return s;
}

// A row with +M at leaf `plus`, -M at leaf `minus` (kC for C; -2 for none), units (of the
// sign `negative_units` says) elsewhere, or only at the leaves of `units_at` (C first, then the
// products; the others +0).
void add_row(DotBatch& batch, const Summands& s, int plus, int minus, bool negative_units = false,
             const std::vector<bool>* units_at = nullptr) {
  std::vector<std::uint64_t> a(batch.k, negative_units ? s.neg_unit_a : s.unit_a),
      b(batch.k, s.unit_b);
  if (units_at)
    for (int i = 0; i < batch.k; ++i)
      if (!(*units_at)[static_cast<std::size_t>(i) + 1]) a[i] = 0;
  auto place = [&](int leaf, std::uint64_t code_a) {
    if (leaf < 0) return;
    a[leaf] = code_a;
    b[leaf] = s.big_b;
  };
  place(plus, s.big_a);
  place(minus, s.neg_big_a);
  const bool c_unit = !units_at || (*units_at)[0];
  const std::uint64_t c = plus == kC     ? s.c_big
                          : minus == kC  ? s.c_neg_big
                          : !c_unit      ? 0
                          : negative_units ? s.c_neg_unit
                                           : s.c_unit;
  batch.add(a, b, c);
}

// How many units fit beside M unabsorbed-by-rounding: their sum stays below half an ulp of M in
// the output, so that an IEEE addition to M drops them all (0 where none fit).
int units_beside_m(const Summands& s, const Format& out) {
  const int room = s.big - out.precision() - s.unit;  // log2(half ulp / unit)
  if (room <= 0) return 0;
  return room >= 30 ? INT_MAX : (1 << room) - 1;
}

// Units in D (of the units' sign): -1 when D is not a whole number of units in [0, limit].
long count_units(const Target& t, std::uint64_t d, int unit, int limit, bool negative = false) {
  const double v = negative ? -to_double(d, t.out()) : to_double(d, t.out());
  if (!std::isfinite(v) || v < 0) return -1;
  const double n = std::ldexp(v, -unit);
  if (n != std::floor(n) || n > limit) return -1;
  return static_cast<long>(n);
}

// The tree under construction: an arena of nodes; node 0 holds the root.
struct Arena {
  struct Node {
    int leaf = -2;  // a leaf id, or -2 for an inner node
    bool exact = false;
    std::vector<int> kids;
  };
  std::vector<Node> nodes{Node{}};
  int add_leaf(int leaf) {
    nodes.push_back(Node{leaf, false, {}});
    return static_cast<int>(nodes.size()) - 1;
  }
  int add_node(bool exact, std::vector<int> kids) {
    nodes.push_back(Node{-2, exact, std::move(kids)});
    return static_cast<int>(nodes.size()) - 1;
  }
  SumTree tree(int id) const {
    const Node& n = nodes[id];
    if (n.leaf == kC) return SumTree::c();
    if (n.leaf >= 0) return SumTree::product(n.leaf);
    std::vector<SumTree> kids;
    for (int kid : n.kids) kids.push_back(tree(kid));
    return SumTree::node(std::move(kids), n.exact);
  }
};

// Leaves that are the children (whole subtrees) of one rounding node `parent` of `bound`
// leaves: pairs in different children have LCA size `bound`.
struct ForestTask {
  std::vector<int> leaves;  // sorted, c (-1) first
  int bound = 0;
  int parent = 0;
};

class Recovery {
 public:
  Recovery(Target& t, int k, OrderStats& st, ShapeChoice choice)
      : t_(t), k_(k), st_(st), choice_(choice) {}

  SumTree run() {
    const std::string where = t_.name();
    if (k_ < 1) throw Error(where, "summation order: k must be at least 1");
    if (!t_.supports_k(k_))
      throw Error(where, "summation order: the target does not take k = " + std::to_string(k_));
    if (const std::string why = t_.unavailable(); !why.empty()) throw Error(where, why);
    pick_summands();
    const SumTree tree = build();
    st_.order_visible = !(tree.exact() && static_cast<int>(tree.children().size()) == k_ + 1);
    if (!st_.order_visible)
      st_.notes.push_back("no summand absorbed another: an exact sum, the order is not visible");
    return tree;
  }

  // True after a run whose counts fit no tree by the pivot rules (not a target that gave no count).
  bool shape_failed() const { return shape_failed_; }

  // The readings that fit the counts of every pair, asked in one more round, then the other
  // trees decoded from all pairs (which fit them by construction). Where no tree fits every
  // count, the pivot readings unchecked; throws where there are none.
  std::vector<SumTree> checked(std::vector<SumTree> readings) {
    measure_all_pairs();
    const std::vector<SumTree> unchecked = readings;
    std::erase_if(readings, [&](const SumTree& t) { return !fits_all_pairs(t); });
    const std::size_t pivot_fit = readings.size();
    std::vector<int> all{kC};
    for (int i = 0; i < k_; ++i) all.push_back(i);
    for (int root : decode(all))
      if (SumTree tree = arena_.tree(root);
          std::find(readings.begin(), readings.end(), tree) == readings.end())
        readings.push_back(std::move(tree));
    if (readings.empty()) {
      if (unchecked.empty())
        inconsistent("nor do the counts of all " + std::to_string(k_ * (k_ + 1) / 2) + " pairs");
      // Counts no tree of these node kinds gives (a fused node that cuts only some units):
      // the pivot readings stand, for the synthesis to type and test.
      st_.notes.push_back("no tree fits the counts of every pair: the pivot readings stand unchecked");
      return unchecked;
    }
    if (pivot_fit < unchecked.size() || readings.size() > pivot_fit)
      st_.notes.push_back(
          "every pair asked: " + std::to_string(pivot_fit) + " of " +
          std::to_string(unchecked.size()) + " pivot readings fit all counts, " +
          std::to_string(readings.size() - pivot_fit) + " more trees decoded from them fit alike");
    const SumTree& first = readings.front();
    st_.order_visible = !(first.exact() && static_cast<int>(first.children().size()) == k_ + 1);
    return readings;
  }

  // After run() found the counts ambiguous: the tree with the other ShapeChoice. Its pairs
  // already measured are not asked again.
  SumTree other_reading() {
    choice_ = choice_ == ShapeChoice::leaves_above ? ShapeChoice::wider_node
                                                   : ShapeChoice::leaves_above;
    arena_ = Arena{};
    return build();
  }

 private:
  // The tree from the pivot counts, round by round.
  SumTree build() {
    std::vector<int> all{kC};
    for (int i = 0; i < k_; ++i) all.push_back(i);
    std::vector<ForestTask> tasks{{all, k_ + 2, 0}};
    while (!tasks.empty()) {
      measure(tasks);
      std::vector<ForestTask> next;
      for (const ForestTask& task : tasks) split(task, next);
      tasks.swap(next);
    }
    return arena_.tree(arena_.nodes[0].kids.at(0));
  }

  // Chooses M and the unit; subnormal units are checked by one all-units row (a target that
  // flushes reads them as 0), and narrower ones are used where they fail.
  void pick_summands() {
    const std::string where = t_.name();
    int tried_unit = INT_MIN;
    for (UnitRange range : {UnitRange{true, true}, UnitRange{true, false}, UnitRange{false, false}}) {
      std::vector<std::string> notes;
      const Summands s = choose_summands(t_.in(), t_.in_b(), t_.out(), k_, range, where, notes);
      if (s.unit == tried_unit) continue;
      tried_unit = s.unit;
      s_ = s;
      DotBatch batch;
      batch.k = k_;
      add_row(batch, s_, -2, -2);
      const auto d = evaluate(batch);
      if (count_units(t_, d[0], s_.unit, k_ + 1) == k_ + 1) {
        st_.notes.insert(st_.notes.end(), notes.begin(), notes.end());
        st_.big_exp = s_.big;
        st_.unit_exp = s_.unit;
        st_.subnormal_units = s_.subnormal;
        stepping_ = stepping_summands(t_.in(), t_.in_b(), t_.out(), k_, s_, range, where);
        return;
      }
    }
    throw Error(where, "summation order: " + std::to_string(k_ + 1) + " units of 2^" +
                           std::to_string(s_.unit) + " do not add up exactly (D is not " +
                           std::to_string(k_ + 1) + " units)");
  }

  std::vector<std::uint64_t> evaluate(const DotBatch& batch) {
    ++st_.rounds;
    st_.queries += batch.rows();
    return t_.run(batch);
  }

  // LCA sizes for each task's pivot (its first leaf) against its other leaves, one run() for
  // the round. A pair whose D is not a count is asked again with the signs of M swapped, then
  // with negative units, then both: under a directed rounding an IEEE addition absorbs only
  // units of one sign (toward zero: M's own; upward: negative ones).
  void measure(const std::vector<ForestTask>& tasks) {
    std::vector<std::pair<int, int>> todo;
    for (const ForestTask& task : tasks)
      for (std::size_t i = 1; i < task.leaves.size(); ++i)
        if (!lca_.contains({task.leaves[0], task.leaves[i]}))
          todo.emplace_back(task.leaves[0], task.leaves[i]);
    std::vector<std::uint64_t> last;  // the last answers of the pairs still in todo
    // Where fewer units than k - 1 fit below half an ulp of M, a count of all of them can
    // include M's rounding (D = ulp + n units reads as more units): groups only.
    const int fit = units_beside_m(s_, t_.out());
    const bool groups_only = fit >= 2 && fit < k_ - 1;
    if (groups_only) last.assign(todo.size(), 0);
    for (int variant = 0; variant < 4 && !todo.empty() && !groups_only; ++variant) {
      const bool swapped = variant & 1, negative = variant & 2;
      DotBatch batch;
      batch.k = k_;
      for (const auto& [x, y] : todo)
        add_row(batch, s_, swapped ? y : x, swapped ? x : y, negative);
      const auto d = evaluate(batch);
      std::vector<std::pair<int, int>> failed;
      last.clear();
      for (std::size_t r = 0; r < todo.size(); ++r) {
        const long n = count_units(t_, d[r], s_.unit, k_ - 1, negative);
        if (n >= 0) lca_[todo[r]] = k_ + 1 - static_cast<int>(n);
        else failed.push_back(todo[r]), last.push_back(d[r]);
      }
      todo.swap(failed);
    }
    if (todo.empty()) return;
    measure_in_groups(todo, last);
    if (todo.empty()) return;
    if (!stepping_) bad(todo.front(), last.front());
    // Every sign of M and of the units must read the same count: a target that is not
    // stepping toward zero is refused, not misread.
    std::vector<long> counts(todo.size(), -2);
    for (int variant = 0; variant < 4; ++variant) {
      const bool swapped = variant & 1, negative = variant & 2;
      DotBatch batch;
      batch.k = k_;
      for (const auto& [x, y] : todo)
        add_row(batch, *stepping_, swapped ? y : x, swapped ? x : y, negative);
      const auto d = evaluate(batch);
      for (std::size_t r = 0; r < todo.size(); ++r) {
        const long n = count_units_beside_steps(d[r], negative);
        if (n < 0 || (counts[r] != -2 && counts[r] != n)) bad(todo[r], d[r]);
        counts[r] = n;
      }
    }
    for (std::size_t r = 0; r < todo.size(); ++r)
      lca_[todo[r]] = k_ + 1 - static_cast<int>(counts[r]);
    if (!stepped_) {
      stepped_ = true;
      st_.notes.push_back("units meeting both +M and -M were never all absorbed (rounding toward "
                          "zero): those pairs were read as D = s ulp(M) + n units with the unit 2^" +
                          std::to_string(stepping_->unit));
    }
  }

  // Where more units than M leaves room for meet it (their sum reaches half an ulp of M, so
  // that an addition rounds them into M's last bit), the units outside the pair's LCA are
  // counted a group at a time, the other leaves +0: a unit survives or is absorbed by where it
  // meets M, whichever others are present, so the groups' counts add up. Toward zero, where
  // units meeting the opposite M step it an ulp, each group is read as D = s ulp(M) + n units
  // (its n below one ulp), and every sign of M and of the units must give the same count.
  // Pairs no group reading settles stay in `todo`.
  void measure_in_groups(std::vector<std::pair<int, int>>& todo, std::vector<std::uint64_t>& last) {
    const int group = units_beside_m(s_, t_.out());
    if (group < 2 || group >= k_ - 1) return;
    // Per pair, the total count over its groups in one variant (-1: some group is unreadable).
    const auto totals = [&](int variant, bool steps) {
      const bool swapped = variant & 1, negative = variant & 2;
      DotBatch batch;
      batch.k = k_;
      std::vector<std::pair<std::size_t, int>> rows;  // (pair, units in the row)
      for (std::size_t r = 0; r < todo.size(); ++r) {
        const int x = todo[r].first, y = todo[r].second;
        std::vector<bool> at(static_cast<std::size_t>(k_) + 1, false);
        int in_group = 0;
        const auto flush = [&] {
          if (in_group == 0) return;
          add_row(batch, s_, swapped ? y : x, swapped ? x : y, negative, &at);
          rows.emplace_back(r, in_group);
          std::fill(at.begin(), at.end(), false);
          in_group = 0;
        };
        for (int leaf = kC; leaf < k_; ++leaf) {
          if (leaf == x || leaf == y) continue;
          at[static_cast<std::size_t>(leaf + 1)] = true;
          if (++in_group == group) flush();
        }
        flush();
      }
      const auto d = evaluate(batch);
      std::vector<long> total(todo.size(), 0);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        long& n = total[rows[i].first];
        if (n < 0) continue;
        const long here = steps ? units_beside_steps(d[i], s_, rows[i].second, negative)
                                : count_units(t_, d[i], s_.unit, rows[i].second, negative);
        n = here < 0 ? -1 : n + here;
        if (here < 0) last[rows[i].first] = d[i];
      }
      return total;
    };
    const auto keep_unread = [&](const std::vector<long>& total) {
      std::vector<std::pair<int, int>> failed;
      std::vector<std::uint64_t> failed_last;
      for (std::size_t r = 0; r < todo.size(); ++r) {
        if (total[r] >= 0) {
          lca_[todo[r]] = k_ + 1 - static_cast<int>(total[r]);
          grouped_ = true;
        } else {
          failed.push_back(todo[r]);
          failed_last.push_back(last[r]);
        }
      }
      todo.swap(failed);
      last.swap(failed_last);
    };
    for (int variant = 0; variant < 4 && !todo.empty(); ++variant) keep_unread(totals(variant, false));
    if (!todo.empty() && t_.out().precision() >= 2) {
      std::vector<long> agreed = totals(0, true);
      for (int variant = 1; variant < 4; ++variant) {
        const std::vector<long> t = totals(variant, true);
        for (std::size_t r = 0; r < agreed.size(); ++r)
          if (t[r] != agreed[r]) agreed[r] = -1;
      }
      keep_unread(agreed);
    }
    if (grouped_ && !grouped_noted_) {
      grouped_noted_ = true;
      st_.notes.push_back("M = 2^" + std::to_string(s_.big) + " leaves room for " +
                          std::to_string(group) + " units of 2^" + std::to_string(s_.unit) +
                          " below half its ulp in " + t_.out().name +
                          ": pairs whose units reached M's last bit were read with the units " +
                          "in groups of at most " + std::to_string(group) + ", the other leaves +0");
    }
  }

  // Units in D = s * 2^(big - p_out) + n * 2^unit for the summands `s` (s ulp steps of M toward
  // zero, at most two per node), -1 when D is not of that form with n <= limit.
  long units_beside_steps(std::uint64_t d, const Summands& s, int limit, bool negative) const {
    const double v = negative ? -to_double(d, t_.out()) : to_double(d, t_.out());
    if (!std::isfinite(v) || v < 0) return -1;
    const int ulp = s.big - t_.out().precision();
    if (ulp <= s.unit) return -1;
    const double steps = std::floor(std::ldexp(v, -ulp));
    const double n = std::ldexp(v - std::ldexp(steps, ulp), -s.unit);
    if (steps > 2.0 * (k_ + 1) || n != std::floor(n) || n > limit) return -1;
    return static_cast<long>(n);
  }

  // Units in D = s * 2^(big - p_out) + n * unit (stepping_summands), -1 when D is not of that form.
  long count_units_beside_steps(std::uint64_t d, bool negative) const {
    return units_beside_steps(d, *stepping_, k_ - 1, negative);
  }

  [[noreturn]] void bad(std::pair<int, int> xy, std::uint64_t d) const {
    const std::string last = " (last: D = " + std::to_string(to_double(d, t_.out())) + ")";
    throw Error(t_.name(), "summation order: +-M at " + leaf_name(xy.first) + " and " +
                               leaf_name(xy.second) + " gives no count of units of 2^" +
                               std::to_string(s_.unit) +
                               " with either sign of M or of the units" +
                               (stepping_ ? ", nor of 2^" + std::to_string(stepping_->unit) +
                                                " beside ulp steps of M"
                                          : std::string(", and " + t_.out().name +
                                                        " has no room to read ulp steps of M")) +
                               last + " (M does not swamp the units: not a sum?)");
  }
  [[noreturn]] void inconsistent(const std::string& why) {
    shape_failed_ = true;
    throw Error(t_.name(), "summation order: the LCA sizes fit no tree (" + why + ")");
  }
  static std::string leaf_name(int leaf) { return leaf == kC ? "c" : std::to_string(leaf); }

  // Groups a task's leaves by their LCA with the pivot x: the ancestors of x in order of
  // size, each with the leaves it adds. What a pair (x, y) counts depends on the node N where
  // they meet: a node that absorbs the units (an IEEE addition, a fused node whose alignment
  // cuts them) counts all its leaves, |N|; a node that sums its children exactly before its
  // one rounding (an exact node here) keeps the units of its other children, and counts only
  // the child that holds x and the child that holds y. So, in order of the count m, with `cur`
  // the subtree of x found so far (`base`: the size of its first child, where cur is a node):
  //  - m = |cur| + n for n leaves: one more absorbing (or two-child) node over cur and them;
  //  - m = |cur| + 1: a new exact node over cur and leaves;
  //  - m - base = c for n = q c leaves: q more children of size c of cur, which is exact;
  //  - m - |cur| = c for n = q c leaves: a new exact node over cur and q children of size c.
  // The pivot's counts cannot tell (a a a (b b b)) from ((a a a) b b b): the chain of blocks
  // (the second rule before the third) is taken. Children of size c > 1 are split in later
  // rounds: between two of them a pair counts 2c.
  void split(const ForestTask& task, std::vector<ForestTask>& next) {
    const int x = task.leaves[0];
    int cur = arena_.add_leaf(x), cur_size = 1, base = 0;
    bool cur_is_node = false;
    std::map<int, std::vector<int>> by_size;
    std::vector<int> rest;
    for (std::size_t i = 1; i < task.leaves.size(); ++i) {
      const int y = task.leaves[i];
      const int s = lca_.at({x, y});
      if (s > task.bound)
        inconsistent("LCA(" + leaf_name(x) + ", " + leaf_name(y) + ") has " + std::to_string(s) +
                     " leaves, above its parent's " + std::to_string(task.bound));
      if (s == task.bound) rest.push_back(y);
      else by_size[s].push_back(y);
    }
    if (!rest.empty()) next.push_back({rest, task.bound, task.parent});
    // Children of size c for `group` under `node`: leaves, or a task for later rounds.
    const auto add_children = [&](int node, const std::vector<int>& group, int c, int bound) {
      // (add_leaf grows the arena: the leaf's id first, then the node's kids)
      if (c == 1 || group.size() == 1) {
        for (int y : group) {
          const int leaf = arena_.add_leaf(y);
          arena_.nodes[node].kids.push_back(leaf);
        }
      } else {
        next.push_back({group, bound, node});
      }
    };
    for (auto& [s, group] : by_size) {
      const int n = static_cast<int>(group.size());
      const int c_here = s - base, c_new = s - cur_size;
      const bool here = cur_is_node && c_here >= 1 && n % c_here == 0;
      const bool above = c_new >= 1 && n % c_new == 0;
      if (here && above && !st_.ambiguous) {
        st_.ambiguous = true;
        st_.notes.push_back("the pivot counts at " + leaf_name(x) + " fit more children of one "
                            "node and a node above it alike (such as (a a a (b b b)) and "
                            "((a a a) b b b)): " +
                            (choice_ == ShapeChoice::leaves_above ? "a node above where it adds leaves"
                                                           : "the wider node") +
                            " was taken; the synthesis tries the other reading and the tree's edits");
      }
      const bool take_above =
          choice_ == ShapeChoice::leaves_above ? c_new == 1 || !here : !here;
      if (s == cur_size + n) {
        cur = arena_.add_node(false, {cur});
        add_children(cur, group, n, s);
        base = cur_size;
      } else if (above && take_above) {
        cur = arena_.add_node(true, {cur});
        add_children(cur, group, c_new, 2 * c_new);
        base = cur_size;
      } else if (here) {
        arena_.nodes[cur].exact = true;  // its other children's units survive
        add_children(cur, group, c_here, 2 * c_here);
      } else {
        inconsistent(std::to_string(n) + " leaves have an LCA of " + std::to_string(s) +
                     " leaves with " + leaf_name(x) + ", whose smaller ancestor has " +
                     std::to_string(cur_size));
      }
      cur_is_node = true;
      cur_size += n;
    }
    arena_.nodes[task.parent].kids.push_back(cur);
  }

  // Asks every pair not asked yet, in one round.
  void measure_all_pairs() {
    std::vector<ForestTask> tasks;
    for (int x = kC; x < k_ - 1; ++x) {
      ForestTask task;
      for (int y = x; y < k_; ++y) task.leaves.push_back(y);
      tasks.push_back(std::move(task));
    }
    measure(tasks);
  }

  int lca(int x, int y) const { return lca_.at({std::min(x, y), std::max(x, y)}); }

  // Whether tree `t` implies every pair's count: where x and y meet at node N, |N| if N absorbs
  // the units, else the sizes of N's two children that hold them. Fills `leaves` with t's.
  bool fits_all_pairs(const SumTree& t, std::vector<int>* leaves = nullptr) const {
    std::vector<int> local;
    std::vector<int>& mine = leaves ? *leaves : local;
    if (t.is_leaf()) {
      mine.push_back(t.is_c() ? kC : t.index());
      return true;
    }
    std::vector<std::vector<int>> kids;
    for (const SumTree& c : t.children()) {
      kids.emplace_back();
      if (!fits_all_pairs(c, &kids.back())) return false;
    }
    std::size_t size = 0;
    for (const auto& kid : kids) size += kid.size();
    for (std::size_t i = 0; i < kids.size(); ++i)
      for (std::size_t j = i + 1; j < kids.size(); ++j) {
        const int want = static_cast<int>(t.exact() ? kids[i].size() + kids[j].size() : size);
        for (int x : kids[i])
          for (int y : kids[j])
            if (lca(x, y) != want) return false;
      }
    for (const auto& kid : kids) mine.insert(mine.end(), kid.begin(), kid.end());
    return true;
  }

  // The subtrees over `leaves` (their size is theirs) that give the counts of all their pairs
  // (arena ids; at most kMaxDecoded, none where the counts fit no tree). A node that absorbs (or
  // has two children) is the one where some pair counts all its leaves: its children are the
  // groups joined by smaller counts. Otherwise each pair counts its two children's sizes: for
  // each size c of the first leaf's child, the other leaves' counts give their children's sizes,
  // and the partition must give every count. Some counts fit two trees alike: a three-way node
  // with a pair among its children, [a b (c d)], counts as [(a b) c d].
  static constexpr std::size_t kMaxDecoded = 4;
  std::vector<int> decode(const std::vector<int>& leaves) {
    const int n = static_cast<int>(leaves.size());
    if (n == 1) return {arena_.add_leaf(leaves[0])};
    bool absorbing = false;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const int s = lca(leaves[i], leaves[j]);
        if (s > n || s < 2) return {};
        absorbing = absorbing || s == n;
      }
    std::vector<int> found;
    // Every combination of the parts' subtrees, as nodes, while fewer than kMaxDecoded are found.
    const auto add_nodes = [&](const std::vector<std::vector<int>>& parts, bool exact) {
      std::vector<std::vector<int>> combos{{}};
      for (const auto& part : parts) {
        const std::vector<int> kids = decode(part);
        std::vector<std::vector<int>> grown;
        for (const auto& combo : combos)
          for (int kid : kids) {
            if (grown.size() + found.size() >= kMaxDecoded) break;
            grown.push_back(combo);
            grown.back().push_back(kid);
          }
        combos.swap(grown);
      }
      for (auto& combo : combos) found.push_back(arena_.add_node(exact, std::move(combo)));
    };
    if (absorbing) {
      const std::vector<std::vector<int>> parts =
          groups(leaves, [&](int x, int y) { return lca(x, y) < n; });
      if (parts.size() >= 2) add_nodes(parts, false);
      return found;
    }
    for (int c = 1; c <= n - 2 && found.size() < kMaxDecoded; ++c)
      if (const auto parts = exact_partition(leaves, c)) add_nodes(*parts, true);
    return found;
  }

  // The children of a node that absorbs nothing, where the first leaf's child has c leaves; nullopt
  // where the counts contradict that.
  std::optional<std::vector<std::vector<int>>> exact_partition(const std::vector<int>& leaves, int c) const {
    const int x = leaves[0];
    std::map<int, int> size;  // leaf -> its child's size
    size[x] = c;
    for (std::size_t i = 1; i < leaves.size(); ++i) {
      const int s = lca(x, leaves[i]);
      size[leaves[i]] = s <= c ? c : s - c;
    }
    const std::vector<std::vector<int>> parts =
        groups(leaves, [&](int u, int v) { return size[u] == size[v] && lca(u, v) <= size[u]; });
    std::map<int, std::size_t> part_of;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (static_cast<int>(parts[i].size()) != size[parts[i][0]]) return std::nullopt;
      for (int u : parts[i]) part_of[u] = i;
    }
    for (int u : leaves)
      for (int v : leaves) {
        if (u >= v) continue;
        const bool same = part_of[u] == part_of[v];
        if (same ? lca(u, v) > size[u] : lca(u, v) != size[u] + size[v]) return std::nullopt;
      }
    return parts;
  }

  // The connected groups of `leaves` under `joined`, each sorted as the leaves are.
  template <typename Joined>
  static std::vector<std::vector<int>> groups(const std::vector<int>& leaves, Joined joined) {
    std::vector<int> group(leaves.size(), -1);
    int count = 0;
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      if (group[i] >= 0) continue;
      group[i] = count;
      std::vector<std::size_t> stack{i};
      while (!stack.empty()) {
        const std::size_t u = stack.back();
        stack.pop_back();
        for (std::size_t v = 0; v < leaves.size(); ++v)
          if (group[v] < 0 && joined(leaves[u], leaves[v])) group[v] = count, stack.push_back(v);
      }
      ++count;
    }
    std::vector<std::vector<int>> out(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < leaves.size(); ++i) out[static_cast<std::size_t>(group[i])].push_back(leaves[i]);
    return out;
  }

  Target& t_;
  int k_;
  OrderStats& st_;
  Summands s_;
  std::optional<Summands> stepping_;  // the unit for rounding toward zero (stepping_summands)
  bool stepped_ = false;
  bool grouped_ = false, grouped_noted_ = false;  // some pairs were read in groups of units
  bool shape_failed_ = false;
  ShapeChoice choice_;
  Arena arena_;
  std::map<std::pair<int, int>, int> lca_;
};

}  // namespace

SumTree rounding_nodes(const SumTree& t) {
  if (t.is_leaf()) return t;
  std::vector<SumTree> kids;
  for (const SumTree& c : t.children()) kids.push_back(rounding_nodes(c));
  return SumTree::node(std::move(kids), false);
}

namespace {

// The caller's stats, or `local` where it passes none; cleared either way.
OrderStats& fresh_stats(OrderStats* stats, OrderStats& local) {
  OrderStats& st = stats ? *stats : local;
  st = OrderStats{};
  return st;
}

}  // namespace

SumTree recover_order(Target& t, int k, OrderStats* stats, ShapeChoice choice) {
  OrderStats local;
  return Recovery(t, k, fresh_stats(stats, local), choice).run();
}

namespace {

std::vector<SumTree> pivot_readings(Recovery& r, OrderStats& st) {
  std::vector<SumTree> readings{r.run()};
  if (st.ambiguous) {
    try {
      SumTree other = r.other_reading();
      if (other != readings.front()) readings.push_back(std::move(other));
    } catch (const Error&) {
      st.notes.push_back("the other reading fits no tree: the first one stands alone");
    }
  }
  return readings;
}

}  // namespace

std::vector<SumTree> recover_readings(Target& t, int k, OrderStats* stats) {
  OrderStats local;
  OrderStats& st = fresh_stats(stats, local);
  Recovery r(t, k, st, ShapeChoice::leaves_above);
  return pivot_readings(r, st);
}

std::vector<SumTree> recover_checked_readings(Target& t, int k, OrderStats* stats) {
  OrderStats local;
  OrderStats& st = fresh_stats(stats, local);
  Recovery r(t, k, st, ShapeChoice::leaves_above);
  std::vector<SumTree> readings;
  try {
    readings = pivot_readings(r, st);
  } catch (const Error&) {
    if (!r.shape_failed()) throw;
  }
  return r.checked(std::move(readings));
}

}  // namespace fpconform::characterize
