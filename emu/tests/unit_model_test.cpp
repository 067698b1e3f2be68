// The staged unit form (unit_model.hpp): every preset raises to a UnitModel whose text reads back
// to the same parameters and computes the same bits; hand-written texts mean the presets they
// describe; combinations that mean nothing are refused, naming the stage.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/matrix_presets.hpp"
#include "fpconform/unit_model.hpp"

namespace fpconform {
namespace {

TEST(UnitModel, EveryPresetRoundTripsThroughItsText) {
  std::mt19937_64 rng(3);
  int units = 0;
  for (const PresetUnit& u : preset_units({"f32", "f16", "bf16", "f64"})) {
    const std::string text = unit_text(raise(u.params));
    SCOPED_TRACE(std::string(u.entry->preset) + " " + u.in.name + " -> " + u.out.name + ": " + text);
    const UnitModel back = parse_unit(text);
    EXPECT_EQ(unit_text(back), text);
    // The flat parameters are the preset's, field for field (describe_params' fields).
    EXPECT_TRUE(same_params(lower(back), u.params)) << model_text(lower(back)) << " vs "
                                                     << model_text(u.params);
    // --model takes the text.
    EXPECT_TRUE(same_params(parse_model(text, u.in, u.out), u.params));
    // And the bits: random vectors through both.
    for (int t = 0; t < 20; ++t) {
      const std::size_t k = 1 + rng() % 70;
      std::vector<std::uint64_t> a(k), b(k);
      for (auto& x : a) x = rng() & u.in.code_mask();
      for (auto& x : b) x = rng() & u.in.code_mask();
      const std::uint64_t c = rng() & u.out.code_mask();
      ASSERT_EQ(fdpa(lower(back), u.in, u.out, a, b, c), fdpa(u.params, u.in, u.out, a, b, c));
    }
    ++units;
  }
  std::printf("%d preset units round-trip through their staged text\n", units);
  EXPECT_GT(units, 100);
}

// The stages as data (what `models --json` writes): CDNA3's unit as the preset table gives it,
// products that overflow to inf, a fused block of 8 with F = 24, C late, out rne with IEEE
// NaNs: every argument typed, bare words under the key that names them.
TEST(UnitModel, StagesAreTheUnitsPiecesTyped) {
  const Format f16 = parse_format("f16"), f32 = parse_format("f32");
  const std::vector<UnitStage> s = unit_stages(raise(find_matrix_unit("cdna3", f16, f32)));
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].name, "products");
  ASSERT_EQ(s[0].args.size(), 1u);
  EXPECT_EQ(s[0].args[0].key, "overflow_inf");
  EXPECT_EQ(s[0].args[0].kind, StageArg::Kind::flag);
  EXPECT_EQ(s[1].name, "fused");
  ASSERT_EQ(s[1].args.size(), 2u);
  EXPECT_EQ(s[1].args[0].key, "block");
  EXPECT_EQ(s[1].args[0].kind, StageArg::Kind::integer);
  EXPECT_EQ(s[1].args[0].integer, 8);
  EXPECT_EQ(s[1].args[1].key, "frac_bits");
  EXPECT_EQ(s[1].args[1].integer, 24);
  EXPECT_EQ(s[2].name, "c");
  ASSERT_EQ(s[2].args.size(), 1u);
  EXPECT_EQ(s[2].args[0].key, "place");
  EXPECT_EQ(s[2].args[0].word, "late");
  EXPECT_TRUE(s[2].args[0].bare);
  EXPECT_EQ(s[3].name, "out");
  ASSERT_EQ(s[3].args.size(), 2u);
  EXPECT_EQ(s[3].args[0].key, "mode");
  EXPECT_EQ(s[3].args[0].word, "rne");
  EXPECT_TRUE(s[3].args[0].bare);
  EXPECT_EQ(s[3].args[1].key, "nan");
  EXPECT_EQ(s[3].args[1].kind, StageArg::Kind::word);
  EXPECT_EQ(s[3].args[1].word, "ieee");
  EXPECT_FALSE(s[3].args[1].bare);
  // A tree node's tree, bare: x86-amx-bf16's two chains of even and odd products into C.
  const std::vector<UnitStage> amx =
      unit_stages(raise(find_matrix_unit("x86-amx-bf16", parse_format("bf16"), f32)));
  ASSERT_EQ(amx.size(), 3u);
  EXPECT_EQ(amx[1].name, "tree");
  ASSERT_EQ(amx[1].args.size(), 1u);
  EXPECT_EQ(amx[1].args[0].key, "tree");
  EXPECT_TRUE(amx[1].args[0].bare);
  EXPECT_EQ(amx[1].args[0].word.substr(0, 9), "(c ((((((");
}

// What the preset table says each of these units is, written by hand in the staged form.
TEST(UnitModel, HandWrittenTextsAreThePresetsTheyDescribe) {
  struct Case {
    const char *preset, *in, *out, *text;
  };
  const Case cases[] = {
      {"volta", "f16", "f32", "fused(block=4, frac_bits=23) | out(rtz)"},
      {"hopper", "e4m3", "f32",
       "fused(block=32, frac_bits=13, zero_exp=-133) | acc(frac_bits=13) | "
       "out(rtz, sat=infinite, underflow_positive)"},
      {"cdna2", "bf16", "f32",
       "products(flush, flush_positive) | pairwise(group=2) | out(rne, flush, nan=ieee)"},
      {"cdna3", "f16", "f32",
       "products(overflow_inf) | fused(block=8, frac_bits=24) | c(late) | out(rne, nan=ieee)"},
      {"fp32-sequential", "bf16", "f32", "chain() | out(rne, nan=ieee)"},
      {"hopper-mma", "e4m3", "f16",
       "fused(block=16, frac_bits=25, zero_exp=-133) | instr(k=32, order=pairs_mod4, c_last) | "
       "out(rne, sat=infinite, underflow_positive)"},
      {"blackwell-mxf4", "e2m1", "f32",
       "scales(block=32, subsum=16) | fused(block=64, frac_bits=35, zero_exp=-139) | out(rtz)"},
  };
  for (const Case& c : cases) {
    const Format in = parse_format(c.in), out = parse_format(c.out);
    EXPECT_TRUE(same_params(lower(parse_unit(c.text)), find_matrix_unit(c.preset, in, out)))
        << c.preset << ": " << model_text(lower(parse_unit(c.text)));
  }
}

TEST(UnitModel, MeaninglessCombinationsAreRefusedNamingTheStage) {
  struct Case {
    const char *text, *message;
  };
  const Case cases[] = {
      {"pairwise(group=4, frac_bits=3) | out(rne)", "pairwise(): does not take 'frac_bits'"},
      {"chain() | acc(frac_bits=13) | out(rne)", "acc(): an accumulator cut needs a fused or exact node"},
      {"exact(block=4) | c(late) | out(rne)", "c(): only a fused node says where C enters"},
      {"products(bits=12) | chain() | out(rne)", "products of a fused node"},
      {"scales(block=32) | pairwise(group=2) | out(rne)", "block scales need a fused or exact node"},
      {"fused(block=8, frac_bits=24, interleave=2) | out(rne)", "interleaved groups need C after"},
      {"fused(block=8) | out(rne, nan_b_first)", "nan_b_first is a rule of IEEE nodes"},
      {"chain() | out(rne, underflow_positive)", "underflow_positive is a rule of fused and exact"},
      {"out(rne) | fused(block=8)", "fused(): out of order"},
      {"fused(block=8) | exact(block=2)", "exact(): a second stage of this kind"},
      {"out(rne)", "no reduction node"},
      {"fused(block=8) | out(sideways)", "out()"},
      {"fused(block=x)", "fused() block: 'x' is not an integer"},
      {"fused(block=8 | out(rne)", "'(' without ')'"},
      {"fuse(block=8)", "unknown stage 'fuse'"},
      {"c(after) | fused(block=2)", "fused(): out of order"},
      {"fused(block=2) | c(block, after)", "give one of block, after, late"},
      {"fused(block=2) | c(after, drop_below=3)", "c(): does not take 'drop_below'"},
      {"tree((c 0) 1 2) | out(rne)", "tree()"},
      {"products(flush_positive) | chain()", "flush_positive needs flush"},
      {"fused(block=2, block=3)", "'block' given twice"},
      {"fused(block=2, interleave=4) | c(after)", "interleave must be 1..block (2)"},
  };
  for (const Case& c : cases) {
    try {
      parse_unit(c.text);
      ADD_FAILURE() << c.text << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << c.text << " -> " << e.what();
    }
  }
}

TEST(UnitModel, RangesAreCheckedWhereModelTextsAreRead) {
  const Format f16 = parse_format("f16"), f32 = parse_format("f32");
  EXPECT_THROW(parse_model("fused(block=65, frac_bits=23) | out(rtz)", f16, f32), Error);
  EXPECT_THROW(parse_model("fused(block=8, frac_bits=23) | acc(frac_bits=99) | out(rtz)", f16, f32),
               Error);
  EXPECT_NO_THROW(parse_model("tree((c (0 1))) | out(rne, nan=x86)", f16, f32));
}

}  // namespace
}  // namespace fpconform
