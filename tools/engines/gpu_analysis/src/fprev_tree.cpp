// FPRev trees from recorded rows. The recovery (recover_checked_readings) chooses its own M and
// unit and asks adaptively; the recorded rows use other powers of two (M = the largest product
// the plan could write, unit 1) but ask every pair. An FPRev answer is a count of units outside the lowest common ancestor of
// the +M and -M leaves, whatever the powers (as long as M swamps the units), so the replay target
// answers a query with the recorded count of the same pair, scaled to the query's unit.
#include "fpconform/gpu/fprev_tree.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "fpconform/characterize/cuda_target.hpp"
#include "fpconform/characterize/order.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gpu/mma_verdict.hpp"

namespace fpconform::gpu {

namespace {

using characterize::DotBatch;

constexpr int kC = -1;        // leaf id of C, as in order.cpp
constexpr int kNone = -2;     // no +-M: the all-units row
using Key = std::pair<int, int>;  // the two +-M leaves, smaller first; {kNone, kNone}: all units

// An FPRev row decoded: which leaves hold +-M, the unit's magnitude and sign.
struct Decoded {
  Key key{kNone, kNone};
  double unit = 0;  // signed
};

// Every summand (products a_i b_i and C) must be +-M (one of each sign, or none) or the same unit.
Decoded decode_row(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::uint64_t c,
                   const Format& in, const Format& out, const std::string& where) {
  const int k = static_cast<int>(a.size());
  std::vector<double> v(k + 1);
  for (int i = 0; i < k; ++i) v[i] = to_double(a[i], in) * to_double(b[i], in);
  v[k] = to_double(c, out);
  double big = 0, small = INFINITY;
  for (double x : v) big = std::max(big, std::fabs(x)), small = std::min(small, std::fabs(x));
  auto leaf = [k](int i) { return i == k ? kC : i; };
  Decoded d;
  if (!std::isfinite(big) || small == 0)
    throw std::invalid_argument(where + ": not an FPRev row (a zero or non-finite summand)");
  if (big == small) {
    d.unit = v[0];
  } else {
    int plus = kNone, minus = kNone;
    for (int i = 0; i <= k; ++i) {
      if (std::fabs(v[i]) != big) continue;
      int& slot = v[i] > 0 ? plus : minus;
      if (slot != kNone) throw std::invalid_argument(where + ": not an FPRev row (two summands of one sign are M)");
      slot = leaf(i);
    }
    if (plus == kNone || minus == kNone) throw std::invalid_argument(where + ": not an FPRev row (M without -M)");
    d.key = {std::min(plus, minus), std::max(plus, minus)};
  }
  for (int i = 0; i <= k; ++i) {
    if (std::fabs(v[i]) == big && big != small) continue;
    if (d.unit == 0) d.unit = v[i];
    if (v[i] != d.unit) throw std::invalid_argument(where + ": not an FPRev row (units differ)");
  }
  return d;
}

// Answers the recovery's queries with the recorded counts (see the file comment).
class ReplayTarget final : public characterize::Target {
 public:
  ReplayTarget(std::string name, Format in, Format out, int k) : name_(std::move(name)), in_(in), out_(out), k_(k) {}
  std::string name() const override { return name_; }
  const Format& in() const override { return in_; }
  const Format& out() const override { return out_; }
  bool supports_k(int k) const override { return k == k_; }
  std::map<Key, long> counts;

  std::vector<std::uint64_t> run(const DotBatch& batch) override {
    check_batch(batch);
    count(batch.rows());
    std::vector<std::uint64_t> d;
    for (std::size_t r = 0; r < batch.rows(); ++r) {
      const auto a = std::span(batch.a).subspan(r * k_, k_), b = std::span(batch.b).subspan(r * k_, k_);
      const Decoded q = decode_row(a, b, batch.c[r], in_, out_, name_ + " query");
      const auto it = counts.find(q.key);
      if (it == counts.end())
        throw Error(name_, "the results hold no FPRev row for +-M at " + leaf_name(q.key.first) + " and " +
                               leaf_name(q.key.second));
      // count * unit is exact in every output format (counts <= k + 1 < 2^p_out)
      const double value = static_cast<double>(it->second) * q.unit;
      std::ostringstream hex;
      hex << std::hexfloat << value;
      d.push_back(round_to_format(parse_number(hex.str()), out_, Rounding{}).bits);
    }
    return d;
  }

  static std::string leaf_name(int leaf) { return leaf == kC ? "c" : leaf == kNone ? "none" : std::to_string(leaf); }

 private:
  std::string name_;
  Format in_, out_;
  int k_;
};

// The tree the kernel should have: the expected preset's, or for the split-K kernel (slices of
// chained mma.sync, reduced ((s0 + s1) + (s2 + s3)), kernels/ and README) the mma.sync preset
// of the same formats split pairwise. Empty text with the reason in `from` otherwise.
std::pair<std::string, std::string> expected_tree(const KernelInfo& kernel, int cc, const Format& in,
                                                  const Format& out) {
  const KernelInfo* unit = &kernel;
  const int split = characterize::cuda_kernel_composition(kernel).split_k;
  if (split > 1) {
    unit = nullptr;
    for (const auto& c : kernel_catalog())
      if (c.kind == KernelKind::dot && c.ptx.rfind("mma.sync", 0) == 0 && c.in_format == kernel.in_format &&
          c.out_format == kernel.out_format)
        unit = &c;
    if (!unit) return {"", "no mma.sync kernel with the split-K kernel's formats"};
  }
  const auto presets = expected_presets(*unit, cc);
  if (presets.empty()) return {"", "no preset is expected for this kernel"};
  try {
    const FdpaParams p = parse_model(presets[0], in, out);
    const auto tree = characterize::expected_order(p, kernel.k, split, SplitReduction::pairwise);
    return {tree.text(), split > 1 ? "split-k=" + std::to_string(split) + " pairwise of " + presets[0] : presets[0]};
  } catch (const Error& e) {
    return {"", presets[0] + ": " + e.what()};
  }
}

}  // namespace

bool is_fprev_result(const Result& r) { return r.get("job").rfind("fprev.", 0) == 0; }

FprevTree fprev_tree(const Result& r) {
  FprevTree t;
  t.job = r.get("job");
  t.kernel = r.get("kernel");
  t.device = r.get("device");
  t.cc = r.get("cc");
  const KernelInfo* kernel = find_kernel(t.kernel);
  if (!kernel || kernel->kind != KernelKind::dot) throw std::invalid_argument(t.job + ": kernel '" + t.kernel + "' is not a dot kernel");
  t.k = kernel->k;
  const Format in = dot_in_format(*kernel), out = dot_out_format(*kernel);
  ReplayTarget target("fprev:" + t.kernel, in, out, t.k);
  const auto rows = dot_result_rows(r);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string where = t.job + " row " + std::to_string(i + 1);
    const Decoded d = decode_row(rows[i].a, rows[i].b, rows[i].c, in, out, where);
    const double n = to_double(rows[i].d, out) / d.unit;
    const long limit = d.key.first == kNone ? t.k + 1 : t.k - 1;
    // Not a count: what the device computed is no FPRev answer (M did not swamp the units, a
    // directed rounding, NaN): a finding about the device, like a tree that differs.
    if (!(n >= 0 && n <= limit && n == std::floor(n)) && t.error.empty())
      t.error = where + ": output " + std::to_string(to_double(rows[i].d, out)) +
                " is not a count of units (M does not swamp them, or not a sum)";
    else target.counts[d.key] = static_cast<long>(n);
  }
  int cc = 90;
  try {
    cc = std::stoi(t.cc);
  } catch (const std::exception&) {
    throw std::invalid_argument(t.job + ": header cc '" + t.cc + "' is not a number");
  }
  std::tie(t.expected, t.expected_from) = expected_tree(*kernel, cc, in, out);
  if (!t.error.empty()) return t;
  try {
    // Every pair is recorded, so every reading is checked against every count. Where the counts
    // fit several trees alike, the rows cannot tell them apart: the expected one is taken if it
    // is among them, and the others are listed.
    std::vector<characterize::SumTree> trees = characterize::recover_checked_readings(target, t.k);
    const auto expected = std::find_if(trees.begin(), trees.end(),
                                       [&](const characterize::SumTree& x) { return x.text() == t.expected; });
    if (expected != trees.end()) std::rotate(trees.begin(), expected, expected + 1);
    t.recovered = trees.front().text();
    t.findings = characterize::describe_order(trees.front()).summary;
    for (std::size_t i = 1; i < trees.size(); ++i) t.alternatives.push_back(trees[i].text());
  } catch (const Error& e) {
    t.error = e.what();
  }
  return t;
}

std::string to_string(const FprevTree& t) {
  std::ostringstream s;
  s << "fprev " << t.kernel << " (k = " << t.k << "): ";
  if (t.recovered.empty()) s << "no tree: " << t.error << "\n";
  else s << "tree " << t.recovered << "\n  " << t.findings << "\n";
  for (const auto& other : t.alternatives) s << "  the counts fit this tree alike: " << other << "\n";
  if (t.expected.empty()) s << "  expected: none (" << t.expected_from << ")\n";
  else s << "  expected (" << t.expected_from << "): " << t.expected << ": " << (t.matches() ? "matches" : "DIFFERS") << "\n";
  return s.str();
}

std::string fprev_markdown(std::span<const FprevTree> trees) {
  std::ostringstream md;
  md << "## Summation trees (FPRev)\n\nRecovered from `fprev.plan` by `recover_checked_readings` on the recorded rows (every pair's count checked); "
        "leaves are the products 0..k-1 and `c`, `( )` a rounding node, `[ ]` an exact one (tools/engines/characterize "
        "order.hpp).\n\n| kernel | recovered | expected | verdict |\n|---|---|---|---|\n";
  for (const auto& t : trees) {
    md << "| " << t.kernel << " | " << (t.recovered.empty() ? "none: " + t.error : "`" + t.recovered + "`") << " | "
       << (t.expected.empty() ? "- (" + t.expected_from + ")" : "`" + t.expected + "` (" + t.expected_from + ")")
       << " | " << (t.expected.empty() ? "no model" : t.matches() ? "matches" : "differs") << " |\n";
  }
  for (const auto& t : trees) {
    if (!t.findings.empty()) md << "\n- " << t.kernel << ": " << t.findings;
    for (const auto& other : t.alternatives) md << "; the counts fit `" << other << "` alike";
  }
  md << "\n";
  return md.str();
}

}  // namespace fpconform::gpu
