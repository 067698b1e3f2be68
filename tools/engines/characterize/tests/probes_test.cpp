// Feature probes on emulated units (through a black-box wrapper: the probes see only the Target
// interface) find the parameter that varies; bad targets get clear verdicts. The expected values
// come from the presets' published parameters (matrix_presets.cpp) and the custom specs.
#include <gtest/gtest.h>

#include <random>

#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/probes.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"

namespace fpconform::characterize {
namespace {

// Forwards to a target made from a spec, hiding what it is.
class BlackBox final : public Target {
 public:
  BlackBox(const std::string& spec, const char* in, const char* out) {
    const Format fin = parse_format(in), fout = parse_format(out);
    inner_ = make_target(spec, &fin, &fout);
  }
  std::string name() const override { return "black box"; }
  const Format& in() const override { return inner_->in(); }
  const Format& out() const override { return inner_->out(); }
  std::vector<std::uint64_t> run(const DotBatch& b) override {
    count(b.rows());
    return inner_->run(b);
  }

 private:
  std::unique_ptr<Target> inner_;
};

// The guess after all feature probes, and the evidence.
struct Probed {
  FdpaParams guess, direct;
  std::vector<ProbeEvidence> evidence;
  const ProbeEvidence& of(const std::string& probe) const {
    for (const ProbeEvidence& e : evidence)
      if (e.probe == probe) return e;
    throw Error("test", "no probe " + probe);
  }
};

Probed probe(const std::string& spec, const char* in, const char* out) {
  BlackBox t(spec, in, out);
  Prober p(t);
  Probed r;
  r.guess.out_rounding.mode = RoundingMode::rtz;
  r.evidence = run_feature_probes(p, r.guess, nullptr, &r.direct);
  for (const ProbeEvidence& e : r.evidence) {
    EXPECT_FALSE(e.cases.empty()) << e.probe;
    EXPECT_FALSE(e.finding.empty()) << e.probe;
  }
  return r;
}

TEST(Probes, BlockSizeAndFractionBitsOfPresets) {
  struct Row { const char* spec; const char* in; int block, frac_bits; };
  const Row rows[] = {
      {"emu:volta", "f16", 4, 23},   {"emu:ampere", "f16", 8, 24},  {"emu:hopper", "f16", 16, 25},
      {"emu:hopper", "bf16", 16, 25}, {"emu:hopper", "tf32", 8, 25}, {"emu:ada", "e4m3", 16, 13},
      {"emu:hopper", "e5m2", 32, 13}, {"emu:blackwell", "e4m3", 32, 25},
      {"emu:custom:block=12,frac_bits=30", "bf16", 12, 30},
      {"emu:custom:block=5,frac_bits=17,zero_exp=-60", "f16", 5, 17},
  };
  for (const Row& row : rows) {
    const Probed r = probe(row.spec, row.in, "f32");
    EXPECT_EQ(r.direct.block, row.block) << row.spec << " " << row.in << ": " << r.of("block_size").finding;
    EXPECT_EQ(r.direct.frac_bits, row.frac_bits) << row.spec << " " << row.in << ": " << r.of("frac_bits").finding;
    EXPECT_EQ(r.of("block_size").finding, "block = " + std::to_string(row.block));
  }
}

// A high exponent given to zero terms hides the probes' smallest terms (a block of a tiny term
// and zeros aligns to 2^zero_exp), and F narrower than the fp8 products; blocks of two show F
// only without cancellation (C after the block). Expected values: the specs.
TEST(Probes, BlockSizeAndFractionBitsBehindZerosAndNarrowF) {
  struct Row { const char* spec; const char* in; int block, frac_bits; };
  const Row rows[] = {
      {"emu:custom:block=5,frac_bits=5,align=nearest_even,zero_exp=-3", "e4m3", 5, 5},
      {"emu:custom:block=8,frac_bits=6,zero_exp=0", "e5m2", 8, 6},
      {"emu:custom:block=4,frac_bits=9,align=down,zero_exp=-2", "f16", 4, 9},
      {"emu:custom:block=2,frac_bits=4,c_in_block=0,out_round=up", "e4m3", 2, 4},
  };
  for (const Row& row : rows) {
    const Probed r = probe(row.spec, row.in, "f32");
    EXPECT_EQ(r.direct.block, row.block) << row.spec << " " << row.in << ": " << r.of("block_size").finding;
    EXPECT_EQ(r.direct.frac_bits, row.frac_bits) << row.spec << " " << row.in << ": " << r.of("frac_bits").finding;
  }
}

TEST(Probes, OutputRounding) {
  for (const char* mode : {"rtz", "rne", "up", "down"}) {
    const Probed r = probe(std::string("emu:custom:block=8,frac_bits=30,out_round=") + mode, "f16", "f32");
    EXPECT_EQ(to_string(r.guess.out_rounding.mode), mode) << r.of("out_round").finding;
  }
  EXPECT_EQ(probe("emu:hopper", "f16", "f16").guess.out_rounding.mode, RoundingMode::rne);
}

TEST(Probes, AlignmentRounding) {
  for (const char* align : {"truncate", "nearest_even", "down"}) {
    const Probed r = probe(std::string("emu:custom:block=8,frac_bits=20,align=") + align, "bf16", "f32");
    const auto params = describe_params(r.guess);
    EXPECT_EQ(params[3].first, "align");
    EXPECT_EQ(params[3].second, align) << r.of("align").finding;
  }
}

TEST(Probes, WhereCEnters) {
  EXPECT_TRUE(probe("emu:custom:block=8,frac_bits=24", "f16", "f32").guess.c_in_block);
  const Probed after = probe("emu:custom:block=8,frac_bits=24,c_in_block=0", "f16", "f32");
  EXPECT_FALSE(after.guess.c_in_block) << after.of("c_place").finding;
  EXPECT_FALSE(after.guess.late_c);
  const Probed late = probe("emu:cdna3", "f16", "f32");  // two-stage late C (MMA-Sim)
  EXPECT_FALSE(late.guess.c_in_block) << late.of("c_place").finding;
  EXPECT_TRUE(late.guess.late_c) << late.of("c_place").finding;
}

TEST(Probes, AccumulatorCut) {
  EXPECT_EQ(probe("emu:ada", "e4m3", "f32").guess.acc_frac_bits, 13);  // e8m13
  EXPECT_EQ(probe("emu:blackwell", "e4m3", "f32").guess.acc_frac_bits, -1);
  const Probed r = probe("emu:custom:block=4,frac_bits=30,acc_frac_bits=17", "f16", "f32");
  EXPECT_EQ(r.guess.acc_frac_bits, 17) << r.of("acc_frac_bits").finding;
}

TEST(Probes, ZeroExponent) {
  const Probed r = probe("emu:custom:block=8,frac_bits=24,zero_exp=-20", "bf16", "f32");
  EXPECT_EQ(r.guess.zero_exp, -20) << r.of("zero_exp").finding;
  const Probed none = probe("emu:custom:block=8,frac_bits=24", "bf16", "f32");
  EXPECT_EQ(describe_params(none.guess)[4].second, "none") << none.of("zero_exp").finding;
}

TEST(Probes, SubnormalFlushing) {
  const Probed in = probe("emu:custom:block=8,frac_bits=24,flush_inputs=1", "f16", "f32");
  EXPECT_TRUE(in.guess.flush_subnormal_inputs) << in.of("flush").finding;
  EXPECT_FALSE(in.guess.flush_subnormal_outputs);
  const Probed out = probe("emu:custom:block=8,frac_bits=24,flush_outputs=1", "bf16", "f32");
  EXPECT_TRUE(out.guess.flush_subnormal_outputs) << out.of("flush").finding;
  EXPECT_FALSE(out.guess.flush_subnormal_inputs);
  const Probed none = probe("emu:ampere", "bf16", "f32");
  EXPECT_FALSE(none.guess.flush_subnormal_inputs || none.guess.flush_subnormal_outputs) << none.of("flush").finding;
}

TEST(Probes, CarryBitsAndProducts) {
  // A carry limit of c bits keeps F + 1 + c bits of a block sum, which is what an accumulator
  // of F + c fraction bits (cut toward zero) keeps: the same unit, either is right.
  const Probed carry = probe("emu:custom:block=16,frac_bits=10,carry_bits=0", "f16", "f32");
  EXPECT_TRUE(carry.guess.carry_bits == 0 ||
              (carry.guess.carry_bits == -1 && carry.guess.acc_frac_bits == carry.guess.frac_bits))
      << carry.of("carry_bits").finding << "; " << carry.of("acc_frac_bits").finding;
  const Probed rounded = probe("emu:custom:block=8,frac_bits=30,product_bits=12", "f16", "f32");
  EXPECT_EQ(rounded.guess.product_bits, 12) << rounded.of("product").finding;
  const Probed overflow = probe("emu:custom:block=8,frac_bits=24,product_overflow=1", "bf16", "f32");
  EXPECT_TRUE(overflow.guess.product_overflow) << overflow.of("product").finding;
}

TEST(Probes, NanPolicy) {
  EXPECT_EQ(probe("emu:hopper", "f16", "f32").guess.nan, "nvidia");  // 0x7FFFFFFF
  EXPECT_EQ(probe("emu:cdna3", "f16", "f32").guess.nan, "ieee");     // 0x7FC00000
}

TEST(Probes, Structure) {
  const Probed seq = probe("emu:fp32-sequential", "f16", "f32");
  // A chain of fmas is also an exact sum per product (block 1): both are the same unit.
  const bool chain = seq.guess.structure == FdpaStructure::sequential ||
                     (seq.guess.structure == FdpaStructure::exact && seq.guess.block == 1);
  EXPECT_TRUE(chain) << seq.of("structure").finding;
  const Probed tree = probe("emu:cdna1", "f16", "f32");
  EXPECT_EQ(tree.guess.structure, FdpaStructure::pairwise) << tree.of("structure").finding;
  // f16 products span 2^-48..2^31: a fused block whose F covers 58 of those bits is the exact
  // sum on these probes (and the F probe could not bound F), so either structure is right.
  const Probed exact = probe("emu:exact", "f16", "f32");
  EXPECT_TRUE(exact.guess.structure == FdpaStructure::exact ||
              (exact.guess.structure == FdpaStructure::fused && exact.guess.frac_bits >= 58))
      << exact.of("structure").finding << "; " << exact.of("frac_bits").finding;
}

// ---- bad targets ----

class FakeTarget final : public Target {
 public:
  enum class Kind { nan_everywhere, garbage, flaky };
  explicit FakeTarget(Kind kind) : kind_(kind), f16_(parse_format("f16")), f32_(parse_format("f32")),
                                    inner_(make_target("emu:hopper", &f16_, &f32_)) {}
  std::string name() const override { return "fake"; }
  const Format& in() const override { return f16_; }
  const Format& out() const override { return f32_; }
  std::vector<std::uint64_t> run(const DotBatch& b) override {
    check_batch(b);
    count(b.rows());
    std::vector<std::uint64_t> d = inner_->run(b);
    for (std::uint64_t& x : d) {
      if (kind_ == Kind::nan_everywhere) x = 0x7FC00000;
      else if (kind_ == Kind::garbage) x = rng_() & 0xFFFFFFFF;
      else if (rng_() % 16 == 0) x ^= 1;  // flaky: one answer in 16 differs in its last bit
    }
    return d;
  }

 private:
  Kind kind_;
  Format f16_, f32_;
  std::unique_ptr<Target> inner_;
  std::mt19937_64 rng_{99};
};

TEST(BadTargets, NanEverywhere) {
  FakeTarget t(FakeTarget::Kind::nan_everywhere);
  const Characterization c = characterize(t, {});
  EXPECT_FALSE(c.expressible);
  EXPECT_NE(c.verdict.find("NaN for every input"), std::string::npos) << c.verdict;
  EXPECT_FALSE(c.counterexamples.empty());
}

TEST(BadTargets, Garbage) {
  FakeTarget t(FakeTarget::Kind::garbage);
  const Characterization c = characterize(t, {});
  EXPECT_FALSE(c.expressible);
  EXPECT_NE(c.verdict.find("garbage"), std::string::npos) << c.verdict;
}

TEST(BadTargets, NonDeterministic) {
  FakeTarget t(FakeTarget::Kind::flaky);
  const Characterization c = characterize(t, {});
  EXPECT_FALSE(c.deterministic);
  EXPECT_FALSE(c.expressible);
  EXPECT_NE(c.verdict.find("non-deterministic"), std::string::npos) << c.verdict;
  ASSERT_FALSE(c.counterexamples.empty());
  // The evidence holds the same inputs with different answers.
  const ProbeEvidence& det = c.evidence.back();
  EXPECT_EQ(det.probe, "determinism");
  bool differ = false;
  for (std::size_t i = 0; i + 2 < det.cases.size(); i += 3)
    differ = differ || det.cases[i].d != det.cases[i + 1].d || det.cases[i].d != det.cases[i + 2].d;
  EXPECT_TRUE(differ);
}

TEST(BadTargets, UnavailableTargetThrows) {
  auto t = make_target("cpu:amx-bf16");
  if (t->unavailable().empty()) GTEST_SKIP() << "this CPU has AMX-BF16";
  EXPECT_THROW(characterize(*t, {}), Error);
}

}  // namespace
}  // namespace fpconform::characterize
