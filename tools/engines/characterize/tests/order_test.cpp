// Summation order (FPRev): the trees of sequential, pairwise, blocked (L = 4, 8, 16, 32) and
// split-K reductions are recovered exactly from emu and cpu targets. Expected trees come from
// expected_order, which is written from fdpa.hpp / gemm.hpp's documented semantics and checked
// here against trees written out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <random>

#include "fpconform/fdpa_spec.hpp"

#include "fpconform/characterize/order.hpp"
#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/characterize/validate.hpp"
#include "fpconform/characterize/synthesize.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::characterize {
namespace {

const Format& fmt(const char* name) {
  static std::map<std::string, Format> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, parse_format(name)).first;
  return it->second;
}

FdpaParams sequential() {
  FdpaParams p;
  p.structure = FdpaStructure::sequential;
  p.c_in_block = false;
  return p;
}
FdpaParams pairwise(int block) {
  FdpaParams p = sequential();
  p.structure = FdpaStructure::pairwise;
  p.block = block;
  return p;
}
FdpaParams fused(int block, bool c_in_block = true) {
  FdpaParams p;
  p.block = block;
  p.c_in_block = c_in_block;
  return p;
}
FdpaParams exact(int block) {
  FdpaParams p = sequential();
  p.structure = FdpaStructure::exact;
  p.block = block;
  return p;
}

std::string text_of(const FdpaParams& p, int k, int split = 1,
                    SplitReduction r = SplitReduction::sequential) {
  return expected_order(p, k, split, r).text();
}

TEST(SumTree, CanonicalTextAndParse) {
  const SumTree t = parse_sum_tree("( 3 (2 1) c [5 4 6] )");
  EXPECT_EQ(t.text(), "(c (1 2) 3 [4 5 6])");
  EXPECT_EQ(t.leaf_count(), 7);
  EXPECT_EQ(parse_sum_tree(t.text()), t);
  EXPECT_EQ(parse_sum_tree("((c))").text(), "c");        // one child is that child
  EXPECT_EQ(parse_sum_tree("[c 0]").text(), "(c 0)");     // 2-way: FPRev cannot tell
  EXPECT_FALSE(parse_sum_tree("(c 0 1)") == parse_sum_tree("[c 0 1]"));
  EXPECT_FALSE(parse_sum_tree("((c 0) 1)") == parse_sum_tree("(c (0 1))"));
  EXPECT_THROW(parse_sum_tree("(c 0"), Error);
  EXPECT_THROW(parse_sum_tree("()"), Error);
  EXPECT_THROW(parse_sum_tree("(c x)"), Error);
}

// expected_order against trees written by hand from fdpa.hpp / gemm.hpp.
TEST(ExpectedOrder, HandWrittenTrees) {
  EXPECT_EQ(text_of(sequential(), 3), "(((c 0) 1) 2)");
  EXPECT_EQ(text_of(pairwise(4), 8), "((c ((0 1) (2 3))) ((4 5) (6 7)))");
  EXPECT_EQ(text_of(pairwise(3), 3), "(c (0 (1 2)))");  // left half n/2
  EXPECT_EQ(text_of(fused(4), 8), "((c 0 1 2 3) 4 5 6 7)");
  EXPECT_EQ(text_of(fused(4), 6), "((c 0 1 2 3) 4 5)");
  EXPECT_EQ(text_of(fused(4, false), 8), "((c (0 1 2 3)) (4 5 6 7))");
  EXPECT_EQ(text_of(exact(0), 4), "[c 0 1 2 3]");
  EXPECT_EQ(text_of(exact(2), 4), "[[c 0 1] 2 3]");
  // Split-K: slices from +0, reduced, then C.
  EXPECT_EQ(text_of(sequential(), 8, 4, SplitReduction::pairwise),
            "(c (((0 1) (2 3)) ((4 5) (6 7))))");
  EXPECT_EQ(text_of(sequential(), 6, 3, SplitReduction::sequential),
            "(((c (0 1)) (2 3)) (4 5))");
  EXPECT_EQ(text_of(sequential(), 6, 3, SplitReduction::pairwise), "(c (((0 1) (2 3)) (4 5)))");
  EXPECT_EQ(text_of(fused(4), 8, 2), "((c (0 1 2 3)) (4 5 6 7))");
  // Hopper's fp8 mma.sync: k % 4 in {0, 1} first from +0, then {2, 3} chained, then + C.
  FdpaParams mma = fused(4);
  mma.instr_k = 8;
  mma.k_order = KOrder::pairs_mod4;
  mma.c_last = true;
  EXPECT_EQ(text_of(mma, 16), "((c ((0 1 4 5) 2 3 6 7)) ((8 9 12 13) 10 11 14 15))");
  FdpaParams sub = fused(4);
  sub.subsum = 2;
  EXPECT_THROW(expected_order(sub, 8), Error);
}

struct Case {
  const char* spec;
  const char* in;
  const char* out;
  FdpaParams unit;  // written from the spec, not taken from the target
  int split = 1;
  SplitReduction reduction = SplitReduction::sequential;
};

// asks: how many times a pair may be asked (directed rounding re-asks; toward zero, up to 8).
void expect_recovered(const Case& c, int k, bool print = false, int asks = 1) {
  SCOPED_TRACE(std::string(c.spec) + " " + c.in + "->" + c.out + " k=" + std::to_string(k));
  auto t = make_target(c.spec, &fmt(c.in), &fmt(c.out));
  OrderStats st;
  const SumTree got = recover_order(*t, k, &st);
  const SumTree want = expected_order(c.unit, k, c.split, c.reduction);
  EXPECT_EQ(got.text(), want.text());
  EXPECT_TRUE(st.order_visible);
  EXPECT_LE(st.queries, static_cast<std::uint64_t>(asks) * k * (k + 1) / 2 + 1);
  EXPECT_EQ(t->queries(), st.queries);
  // describe_order finds the parameter set among its candidates.
  const OrderFindings f = describe_order(got);
  bool named = false;
  for (const OrderCandidate& cand : f.candidates)
    named |= cand.split_k == c.split && cand.unit.structure == c.unit.structure;
  EXPECT_TRUE(named) << f.summary;
  if (print)
    std::printf("%s %s->%s k=%d: %llu queries, %d rounds, M 2^%d unit 2^%d\n  %s\n", c.spec, c.in,
                c.out, k, static_cast<unsigned long long>(st.queries), st.rounds, st.big_exp,
                st.unit_exp, got.text().c_str());
}

TEST(RecoverOrder, SequentialChains) {
  for (int k : {1, 2, 16, 64, 128}) {
    const Case c{"emu:custom:structure=sequential,out_round=rne", "f32", "f32", sequential()};
    expect_recovered(c, k, k == 16);
    auto t = make_target(c.spec, &fmt("f32"), &fmt("f32"));
    OrderStats st;
    recover_order(*t, k, &st);
    EXPECT_EQ(st.queries, static_cast<std::uint64_t>(k) + 1);  // k pivots + the unit check
  }
  expect_recovered({"emu:custom:structure=sequential,out_round=rne", "f16", "f16", sequential()},
                   32);
  expect_recovered({"emu:custom:structure=sequential,out_round=rne", "bf16", "f32", sequential()},
                   64);
}

TEST(RecoverOrder, PairwiseGroups) {
  for (int block : {2, 3, 8, 16})
    for (int k : {16, 32, 64}) {
      const std::string spec =
          "emu:custom:structure=pairwise,block=" + std::to_string(block) + ",out_round=rne";
      expect_recovered({spec.c_str(), "f16", "f32", pairwise(block)}, k, block == 8 && k == 16);
    }
  expect_recovered({"emu:cdna2", "f16", "f32", pairwise(4)}, 32);  // CDNA2 fp16: groups of 4
}

TEST(RecoverOrder, FusedBlocks) {
  for (int L : {4, 8, 16, 32})
    for (int k : {16, 32, 64}) {
      const std::string spec = "emu:custom:block=" + std::to_string(L) + ",frac_bits=23";
      expect_recovered({spec.c_str(), "f16", "f32", fused(L)}, k, L == 4 && k == 16);
      expect_recovered({spec.c_str(), "bf16", "f32", fused(L)}, k);
      const std::string after = spec + ",c_in_block=0";  // RTZ: the signs of M get swapped
      expect_recovered({after.c_str(), "f16", "f32", fused(L, false)}, k, L == 8 && k == 32);
    }
  // Presets: Hopper's L = 32 for fp8 (e8m13 accumulator), L = 16 for f16; Volta's L = 4.
  for (int k : {16, 32, 64, 128}) {
    expect_recovered({"emu:hopper", "e4m3", "f32", fused(32)}, k, k == 64);
    expect_recovered({"emu:hopper", "e5m2", "f32", fused(32)}, k);
    expect_recovered({"emu:hopper", "f16", "f32", fused(16)}, k);
    expect_recovered({"emu:hopper", "f16", "f16", fused(16)}, k);
    expect_recovered({"emu:volta", "f16", "f32", fused(4)}, k);
    expect_recovered({"emu:ampere", "tf32", "f32", fused(4)}, k);
    // AMD CDNA3: C after the block (two-stage late C), fp8 with even/odd groups: the late
    // alignment cuts C like a term of the block, and the groups are cut against the largest.
    expect_recovered({"emu:cdna3", "f16", "f32", fused(8)}, k);
    expect_recovered({"emu:cdna3", "e4m3fnuz", "f32", fused(16)}, k);
  }
}

// e4m3's smallest product is 2^-9 * 2^-9 = 2^-18; a target that flushes subnormal inputs reads
// it as 0, and the unit falls back to the smallest normal product 2^-6 * 2^-6.
TEST(RecoverOrder, UnitsAvoidFlushedSubnormals) {
  for (bool flush : {false, true}) {
    auto t = make_target(flush ? "emu:custom:block=8,flush_inputs=1" : "emu:custom:block=8",
                         &fmt("e4m3"), &fmt("f32"));
    OrderStats st;
    EXPECT_EQ(recover_order(*t, 32, &st), expected_order(fused(8), 32));
    EXPECT_EQ(st.unit_exp, flush ? -12 : -18);
    EXPECT_EQ(st.subnormal_units, !flush);
    EXPECT_EQ(st.big_exp, 16);  // 2^8 * 2^8: 256 is e4m3's largest power of two
  }
}

TEST(RecoverOrder, HopperFp8MmaSync) {
  FdpaParams p = fused(16);
  p.instr_k = 32;
  p.k_order = KOrder::pairs_mod4;
  p.c_last = true;
  for (int k : {32, 64}) expect_recovered({"emu:hopper-mma", "e4m3", "f16", p}, k, k == 32);
}

TEST(RecoverOrder, SplitK) {
  for (int k : {16, 32, 64})
    for (SplitReduction r : {SplitReduction::sequential, SplitReduction::pairwise}) {
      const std::string red = r == SplitReduction::pairwise ? "pairwise" : "sequential";
      const std::string seq = "emu:custom:structure=sequential,out_round=rne@split-k=4,reduction=" + red;
      expect_recovered({seq.c_str(), "f32", "f32", sequential(), 4, r}, k, k == 16);
      const std::string blk = "emu:custom:block=8@split-k=4,reduction=" + red;
      expect_recovered({blk.c_str(), "f16", "f32", fused(8), 4, r}, k, k == 32);
      const std::string three = "emu:custom:structure=pairwise,block=4,out_round=rne@split-k=3,reduction=" + red;
      expect_recovered({three.c_str(), "f16", "f32", pairwise(4), 3, r}, k);
    }
}

TEST(RecoverOrder, ExactSumsShowNoOrder) {
  for (int k : {8, 32}) {
    auto t = make_target("emu:custom:structure=exact,block=0,out_round=rne", &fmt("f16"),
                         &fmt("f32"));
    OrderStats st;
    const SumTree got = recover_order(*t, k, &st);
    EXPECT_FALSE(st.order_visible);
    EXPECT_EQ(got, expected_order(exact(0), k));
    EXPECT_EQ(static_cast<int>(got.children().size()), k + 1);
    EXPECT_EQ(st.queries, static_cast<std::uint64_t>(k) + 1);
    const OrderFindings f = describe_order(got);
    EXPECT_FALSE(f.order_visible);
  }
  // Exact steps of 8 chained: exact nodes with the previous step as one child.
  auto t = make_target("emu:custom:structure=exact,block=8,out_round=rne", &fmt("f16"),
                       &fmt("f32"));
  OrderStats st;
  EXPECT_EQ(recover_order(*t, 32, &st), expected_order(exact(8), 32));
  EXPECT_TRUE(st.order_visible);
  expect_recovered({"emu:cdna1-km", "f16", "f32", exact(4)}, 32, true);
}

TEST(RecoverOrder, CpuFp32FmaChain) {
  auto t = make_target("cpu:fp32-fma");
  if (!t->unavailable().empty()) GTEST_SKIP() << t->unavailable();
  for (int k : {16, 64}) {
    const SumTree got = recover_order(*t, k);
    EXPECT_EQ(got, expected_order(sequential(), k));
    if (k == 16) std::printf("cpu:fp32-fma k=16: %s\n", got.text().c_str());
  }
}

// IEEE additions that round toward zero absorb only units of M's own sign: an fma chain still
// works with +M before -M; in a pairwise tree both meet units first, and each addition of units
// to -M steps it one ulp, which the stepping read takes apart (D = s ulp + n units) where the
// output's precision has room: f32 and f16 at k = 16, not bf16 at k = 32. Upward rounding
// absorbs negative units, downward positive ones.
TEST(RecoverOrder, DirectedRoundingInIeeeAdditions) {
  auto chain = make_target("emu:custom:structure=sequential,out_round=rtz", &fmt("f32"),
                           &fmt("f32"));
  EXPECT_EQ(recover_order(*chain, 32), expected_order(sequential(), 32));
  for (const char* mode : {"up", "down"}) {
    const std::string spec = std::string("emu:custom:structure=pairwise,block=8,out_round=") + mode;
    expect_recovered({spec.c_str(), "f16", "f32", pairwise(8)}, 32);
    const std::string late = std::string("emu:custom:block=8,c_in_block=0,out_round=") + mode;
    expect_recovered({late.c_str(), "f16", "f32", fused(8, false)}, 32);
  }
  expect_recovered({"emu:custom:structure=pairwise,block=8,out_round=rtz", "f32", "f32", pairwise(8)},
                   32, false, 8);
  expect_recovered({"emu:custom:structure=pairwise,block=4,out_round=rtz", "f16", "f16", pairwise(4)},
                   16, false, 8);
  // The tree that broke the closed loop on random trees (e4m3 products, inputs flushed).
  const char* tree = "((((c (0 2)) 5) (1 3)) ((4 6) 7))";
  auto e4m3 = make_target(std::string("emu:custom:structure=tree,c_in_block=0,out_round=rtz,"
                                      "flush_inputs=1,tree=") + tree,
                          &fmt("e4m3"), &fmt("f32"));
  OrderStats st;
  EXPECT_EQ(recover_order(*e4m3, 8, &st), parse_sum_tree(tree));
  bool noted = false;
  for (const std::string& n : st.notes) noted = noted || n.find("ulp(M)") != std::string::npos;
  EXPECT_TRUE(noted) << "the stepping read is said in the notes";
  auto narrow = make_target("emu:custom:structure=pairwise,block=8,out_round=rtz", &fmt("bf16"),
                            &fmt("bf16"));
  try {
    recover_order(*narrow, 32);
    ADD_FAILURE() << "bf16 has no room for 33 units beside 33 ulp steps";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no room to read ulp steps"), std::string::npos) << e.what();
  }
}

// The CPU's bf16 dot-product units: no documented tree to compare with; recovered where present.
TEST(RecoverOrder, CpuBf16Units) {
  int ran = 0;
  for (const char* spec : {"cpu:avx512-bf16", "cpu:amx-bf16", "cpu:avx512-fp16"}) {
    auto t = make_target(spec);
    if (!t->unavailable().empty()) {
      std::printf("%s: skipped: %s\n", spec, t->unavailable().c_str());
      continue;
    }
    OrderStats st;
    const SumTree got = recover_order(*t, 32, &st);
    EXPECT_EQ(got.leaf_count(), 33);
    std::printf("%s k=32 (%llu queries): %s\n  %s\n", spec,
                static_cast<unsigned long long>(st.queries), got.text().c_str(),
                describe_order(got).summary.c_str());
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << "this CPU has none of AVX512-BF16, AMX-BF16, AVX512-FP16";
}

TEST(DescribeOrder, NamesTheParameters) {
  const auto first = [](const SumTree& t) {
    const OrderFindings f = describe_order(t);
    return f.candidates.empty() ? std::string("none") : f.candidates[0].text;
  };
  EXPECT_EQ(first(expected_order(sequential(), 16)), "sequential");
  EXPECT_EQ(first(expected_order(fused(16), 64)), "fused block=16 c_in_block=1");
  EXPECT_EQ(first(expected_order(fused(8, false), 32)), "fused block=8 c_in_block=0");
  EXPECT_EQ(first(expected_order(pairwise(8), 32)), "pairwise block=8");
  EXPECT_EQ(first(expected_order(fused(32), 16)), "fused block>=16 c_in_block=1");
  EXPECT_EQ(first(expected_order(exact(8), 32)), "exact block=8");
  EXPECT_EQ(first(expected_order(sequential(), 32, 4, SplitReduction::pairwise)),
            "split-k=4 reduction=pairwise of sequential");
  FdpaParams mma = fused(16);
  mma.instr_k = 32;
  mma.k_order = KOrder::pairs_mod4;
  mma.c_last = true;
  EXPECT_EQ(first(expected_order(mma, 64)),
            "fused block=16 instr_k=32 k_order=pairs_mod4 c_last=1");
  // FPRev cannot tell C added after a fused block from split-K of fused blocks: both listed.
  const OrderFindings f = describe_order(expected_order(fused(8, false), 32));
  bool has_split = false;
  for (const auto& c : f.candidates) has_split |= c.split_k == 4;
  EXPECT_TRUE(has_split);
  for (const auto& c : f.candidates)
    EXPECT_EQ(expected_order(c.unit, 32, c.split_k, c.reduction), expected_order(fused(8, false), 32))
        << c.text;
  EXPECT_TRUE(describe_order(parse_sum_tree("(c (2 0) 1)")).candidates.empty());
  std::printf("describe fused block=8 c_in_block=0, k=32: %s\n", f.summary.c_str());
}

// A target that answers NaN, or garbage: recovery says so instead of returning a tree.
class FakeTarget final : public Target {
 public:
  explicit FakeTarget(std::uint64_t answer) : answer_(answer) {}
  std::string name() const override { return "fake"; }
  const Format& in() const override { return fmt("f16"); }
  const Format& out() const override { return fmt("f32"); }
  std::vector<std::uint64_t> run(const DotBatch& batch) override {
    check_batch(batch);
    count(batch.rows());
    return std::vector<std::uint64_t>(batch.rows(), answer_);
  }

 private:
  std::uint64_t answer_;
};

TEST(RecoverOrder, BadTargetsAreReported) {
  FakeTarget nan(0x7FC00000), garbage(0x12345678);
  EXPECT_THROW(recover_order(nan, 16), Error);
  EXPECT_THROW(recover_order(garbage, 16), Error);
  auto narrow = make_target("emu:custom:block=4", &fmt("e2m1"), &fmt("f32"));
  try {
    recover_order(*narrow, 64);
    ADD_FAILURE() << "e2m1 products cannot swamp 64 units";
  } catch (const Error& e) {
    std::printf("e2m1: %s\n", e.what());
  }
}

// Closed loop over random parameter sets of the family (the knobs that change values but not
// the tree: F, alignment, zero exponent, rounding, flushing, carry bits, e8m13, late C,
// interleave): the recovered tree is the one expected_order gives from the parameters.
TEST(RecoverOrder, RandomParameterSets) {
  std::mt19937_64 rng(2411);
  auto pick = [&](int lo, int hi) { return static_cast<int>(lo + rng() % (hi - lo + 1)); };
  const char* ins[] = {"f16", "bf16", "e4m3", "e5m2", "tf32"};
  int recovered = 0, refused = 0, short_range = 0;
  for (int n = 0; n < 300; ++n) {
    FdpaParams p;
    p.structure = static_cast<FdpaStructure>(pick(0, 3));
    p.block = p.structure == FdpaStructure::exact ? pick(0, 16) : pick(1, 40);
    p.frac_bits = pick(12, 40);
    p.align = static_cast<AlignRounding>(pick(0, 2));
    p.zero_exp = pick(0, 1) ? INT_MIN : pick(-140, -126);
    p.c_in_block = p.structure == FdpaStructure::fused && pick(0, 1);
    p.late_c = !p.c_in_block && pick(0, 1);
    p.acc_frac_bits = pick(0, 3) == 0 ? 13 : -1;
    const RoundingMode modes[] = {RoundingMode::rne, RoundingMode::rtz, RoundingMode::up,
                                  RoundingMode::down};
    p.out_rounding.mode = modes[pick(0, 3)];
    p.flush_subnormal_inputs = pick(0, 3) == 0;
    p.flush_subnormal_outputs = pick(0, 3) == 0;
    if (!p.c_in_block && p.block > 1 && pick(0, 2) == 0) p.interleave = pick(2, std::min(p.block, 4));
    if (pick(0, 3) == 0) p.carry_bits = pick(1, 4);
    const int k = pick(1, 64);
    const int split = pick(0, 2) == 0 ? pick(2, std::max(2, std::min(k, 8))) : 1;
    const SplitReduction red = pick(0, 1) ? SplitReduction::pairwise : SplitReduction::sequential;
    const Format& in = fmt(ins[pick(0, 4)]);
    const Format& out = fmt("f32");
    EmuTarget t("emu:random", p, in, out, std::min(split, k), red);
    SCOPED_TRACE(model_text(p) + " in " + in.name + " k=" + std::to_string(k) +
                 " split=" + std::to_string(split));
    // What the formats allow (OrderStats: M / unit) against what the parameters need: IEEE
    // additions 2^(log2 k + p + 2), a fused node F + log2 k bits (late C: 31 for the sum).
    const bool ieee = p.structure == FdpaStructure::pairwise ||
                      p.structure == FdpaStructure::sequential || split > 1;
    int need = 0;
    const int lg = static_cast<int>(std::ceil(std::log2(k + 1.0)));
    if (ieee) need = lg + out.precision() + 2;
    if (p.structure == FdpaStructure::fused)
      need = std::max(need, lg + (p.late_c ? std::max(p.frac_bits, p.late_sum_frac_bits)
                                           : p.frac_bits) + 1);
    const bool directed = p.out_rounding.mode != RoundingMode::rne || p.acc_frac_bits >= 0;
    OrderStats st;
    try {
      const SumTree got = recover_order(t, k, &st);
      if (st.big_exp - st.unit_exp >= need) {
        EXPECT_EQ(got.text(), expected_order(p, k, std::min(split, k), red).text());
        ++recovered;
      } else {
        EXPECT_FALSE(st.notes.empty());  // a tree, but the stats say M / unit is short
        ++short_range;
      }
    } catch (const Error& e) {
      // Recovery refuses only where a directed rounding meets units of the wrong sign (an
      // IEEE addition toward zero, or negative units floored next to M), or where the
      // formats' range is short of what the parameters need.
      EXPECT_TRUE(directed || st.big_exp - st.unit_exp < need) << e.what();
      ++refused;
    }
  }
  std::printf("random parameter sets: %d recovered, %d refused, %d with M / unit too short\n",
              recovered, refused, short_range);
  EXPECT_GT(recovered, 200);
}


// The tree with every exact node spliced into its parent (a rounding node sums its children
// exactly, so an exact child is the same as its children there): the form the pivot queries see.
SumTree splice_exact(const SumTree& t) {
  if (t.is_leaf()) return t;
  std::vector<SumTree> kids;
  for (const SumTree& c : t.children()) {
    SumTree k = splice_exact(c);
    if (!k.is_leaf() && k.exact()) kids.insert(kids.end(), k.children().begin(), k.children().end());
    else kids.push_back(std::move(k));
  }
  return SumTree::node(std::move(kids), t.exact());
}

// The tree structure over `tree`: bf16 products into f32, round to nearest.
EmuTarget tree_target(const SumTree& tree) {
  FdpaParams p;
  p.structure = FdpaStructure::tree;
  p.c_in_block = false;
  p.out_rounding.mode = RoundingMode::rne;
  p.tree = intern_tree(tree.text());
  return EmuTarget("emu:random-tree", p, fmt("bf16"), fmt("f32"));
}

// Random trees (synth_random.cpp: chains, balanced and multi-way nodes mixing C, products and
// sub-trees) in IEEE round to nearest, bf16 products in f32: FPRev's tree is the generator's
// (exact nodes spliced), or it refuses, or it says the counts fit another shape too (then the
// other reading may be the generator's).
TEST(RecoverOrder, RandomTrees) {
  int exact = 0, ambiguous = 0, other_reading = 0, refused = 0;
  std::uint64_t queries_both = 0, queries_separate = 0;  // where there are two readings
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const int products = 2 + static_cast<int>(seed % 31);
    const SumTree tree = random_sum_tree(7000 + seed, products, 0.15);
    EmuTarget t = tree_target(tree);
    try {
      OrderStats st;
      const SumTree got = rounding_nodes(recover_order(t, products, &st));
      if (got == splice_exact(tree)) {
        ++exact;
        continue;
      }
      EXPECT_TRUE(st.ambiguous) << "another tree, unflagged: " << got.text() << " for " << tree.text();
      ++ambiguous;
      // Both readings from one recovery: the same trees as two separate ones, fewer queries.
      OrderStats both;
      const std::vector<SumTree> readings = recover_readings(t, products, &both);
      ASSERT_FALSE(readings.empty());
      EXPECT_EQ(rounding_nodes(readings.front()), got);
      OrderStats wider;
      std::optional<SumTree> separate;
      try {
        separate = recover_order(t, products, &wider, ShapeChoice::wider_node);
      } catch (const Error&) {
      }
      if (readings.size() == 2) {
        ASSERT_TRUE(separate.has_value()) << tree.text();
        EXPECT_EQ(readings[1], *separate) << tree.text();
        EXPECT_LT(both.queries, st.queries + wider.queries) << tree.text();
        queries_both += both.queries;
        queries_separate += st.queries + wider.queries;
        if (rounding_nodes(readings[1]) == splice_exact(tree)) ++other_reading;
      } else if (separate) {
        EXPECT_EQ(*separate, readings.front()) << tree.text();
      }
    } catch (const Error& e) {
      ++refused;
      if (refused <= 3) std::printf("refused %s: %s\n", tree.text().c_str(), e.what());
    }
  }
  std::printf("random trees: %d recovered, %d another shape the counts also fit (%d of them the "
              "other reading), %d refused; both readings in %llu queries (%llu apart)\n",
              exact, ambiguous, other_reading, refused,
              static_cast<unsigned long long>(queries_both),
              static_cast<unsigned long long>(queries_separate));
  EXPECT_GE(exact, 120);
  EXPECT_GE(exact + other_reading, 160);
}

// recover_checked_readings asks every pair: the readings that imply every count, or the tree
// decoded from all of them. Rounding nodes of three or more children of unequal sizes, which the
// pivot's counts misread or fit to no tree, come back as the tree that was asked (exact nodes
// spliced), on hand-written trees and on the 200 random ones above.
TEST(RecoverOrder, CheckedReadingsFitEveryPair) {
  const auto leaves = [](const SumTree& t, const auto& self) -> int {
    if (t.is_leaf()) return t.is_c() ? 0 : 1;
    int n = 0;
    for (const SumTree& c : t.children()) n += self(c, self);
    return n;
  };
  const auto truth_among = [&](const SumTree& tree, int& pivot_ok) {
    EmuTarget t = tree_target(tree);
    const int k = leaves(tree, leaves);
    try {
      const SumTree pivot = rounding_nodes(recover_order(t, k));
      if (pivot == splice_exact(tree)) ++pivot_ok;
    } catch (const Error&) {
    }
    OrderStats st;
    const std::vector<SumTree> readings = recover_checked_readings(t, k, &st);
    EXPECT_LE(st.queries, static_cast<std::uint64_t>(4 * k * (k + 1) / 2 + 1));
    for (const SumTree& r : readings)
      if (rounding_nodes(r) == splice_exact(tree)) return true;
    ADD_FAILURE() << tree.text() << " read as " << readings.front().text();
    return false;
  };
  int hand_pivot = 0;
  for (const char* text : {"(c 0 (1 2) (3 4 5))", "((c 0) 1 (2 3 4) (5 (6 7)))",
                           "(c (0 1 2) 3 (4 5))", "(0 (1 2) (c 3 4 5 6) 7 8)"})
    EXPECT_TRUE(truth_among(parse_sum_tree(text, "test"), hand_pivot)) << text;
  int found = 0, pivot_ok = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const int products = 2 + static_cast<int>(seed % 31);
    found += truth_among(random_sum_tree(7000 + seed, products, 0.15), pivot_ok);
  }
  std::printf("hand-written: the pivot reading alone right in %d of 4; random trees: %d of 200 "
              "found (the pivot reading alone: %d)\n", hand_pivot, found, pivot_ok);
  EXPECT_EQ(found, 200);
}

// fp8 inputs with flushed subnormals into f32: M = 2^16 and units of 2^-12 leave room for 15
// units below half an ulp of M, fewer than the 20-32 products here, so the pairs are read with
// the units in groups (and, toward zero, beside M's ulp steps); before, these were refused. The
// same trees with bf16 inputs leave room for all units: the readings must be the same. Every
// pair is checked (recover_checked_readings, as characterize reads trees), so every tree is read,
// and one of its readings is the generator's.
TEST(RecoverOrder, UnitsReadInGroupsWhereMLeavesLittleRoom) {
  int same = 0, exact = 0, refused_both = 0, grouped = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    const int products = 20 + static_cast<int>(seed % 13);
    const SumTree tree = random_sum_tree(9100 + seed, products, 0.15);
    FdpaParams p;
    p.structure = FdpaStructure::tree;
    p.c_in_block = false;
    p.flush_subnormal_inputs = true;
    p.out_rounding.mode = seed % 2 ? RoundingMode::rne : RoundingMode::rtz;
    p.tree = intern_tree(tree.text());
    EmuTarget wide("emu:random-tree", p, fmt("bf16"), fmt("f32"));
    EmuTarget narrow("emu:random-tree", p, fmt("e4m3"), fmt("f32"));
    std::optional<std::vector<SumTree>> reference;
    try {
      reference = recover_checked_readings(wide, products);
    } catch (const Error&) {
    }
    try {
      OrderStats st;
      const std::vector<SumTree> readings = recover_checked_readings(narrow, products, &st);
      for (const std::string& n : st.notes)
        grouped += n.find("in groups of at most 15") != std::string::npos;
      ASSERT_TRUE(reference.has_value()) << "read in groups only: " << tree.text();
      EXPECT_EQ(readings, *reference) << tree.text();
      ++same;
      exact += std::any_of(readings.begin(), readings.end(), [&](const SumTree& r) {
        return rounding_nodes(r) == splice_exact(tree);
      });
    } catch (const Error& e) {
      EXPECT_FALSE(reference.has_value()) << tree.text() << ": " << e.what();
      ++refused_both;
    }
  }
  std::printf("fp8 trees into f32: %d read as with bf16 (%d of them the generator's tree in one "
              "of the readings), %d refused with either input, %d read in groups\n",
              same, exact, refused_both, grouped);
  EXPECT_EQ(grouped, same);
  EXPECT_EQ(same, 60);
  EXPECT_EQ(exact, 60);
}

// The tree search types FPRev's tree from a plain tree unit: parameters found for the fixed
// structures do not carry over. Here the fused search's instr_k = 4 would split the 8-product
// instruction into two and make the right shape score wrong.
TEST(SearchTree, StartsFromAPlainTreeWhateverTheFixedStructuresFound) {
  FdpaParams truth;
  truth.structure = FdpaStructure::tree;
  truth.c_in_block = false;
  truth.out_rounding.mode = RoundingMode::down;
  truth.nan = "x86";
  truth.tree = intern_tree("((((c 2 4 6) (0 5)) (1 7)) 3)");
  EmuTarget t("emu:tree", truth, fmt("e5m2"), fmt("f32"));
  CaseGenerator gen(t, 5, 64);
  std::vector<DotCase> cases = gen.batch(3000);
  observe(t, cases);
  FdpaParams start;  // what the fixed-structure search may leave
  start.block = 3;
  start.interleave = 3;
  start.c_in_block = false;
  start.instr_k = 4;
  start.frac_bits = 25;
  start.out_rounding.mode = RoundingMode::down;
  start.nan = "x86";
  const std::vector<SumTree> readings = recover_readings(t, 8);
  const SearchResult r = search_tree(start, readings, {fmt("e5m2"), fmt("f32")}, cases);
  EXPECT_EQ(r.disagreements, 0u) << model_text(r.params);
  EXPECT_EQ(r.params.instr_k, 0);
  EXPECT_EQ(std::string(r.params.tree), "((((c 2 4 6) (0 5)) (1 7)) 3)");
}

}  // namespace
}  // namespace fpconform::characterize
