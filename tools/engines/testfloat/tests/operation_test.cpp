// <fmt>_<op> functions: names, lines, patterns, and gen -> ver round trips. Expected results
// are worked out by hand from IEEE 754-2019 and emu/SEMANTICS.md ("Operation semantics").
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "fpconform/core/error.hpp"
#include "fpconform/testfloat/generate.hpp"
#include "fpconform/testfloat/run.hpp"
#include "stream_util.hpp"

namespace fpconform::testfloat {
namespace {

using test::InputStream;
using test::OutputStream;

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// ---- names ----

TEST(OperationNames, Parse) {
  const auto add = parse_function("bf16_add");
  EXPECT_EQ(add->name(), "bf16_add");
  EXPECT_EQ(add->arity(), 2);
  EXPECT_EQ(add->signature().operands[1].name, "bf16");
  EXPECT_EQ(add->signature().result.name, "bf16");
  EXPECT_EQ(add->signature().result_hex_digits(), 4);
  EXPECT_EQ(parse_function("e4m3_mulAdd")->arity(), 3);
  EXPECT_EQ(parse_function("f16_sqrt")->arity(), 1);
  EXPECT_EQ(parse_function("e2m1_roundToInt")->arity(), 1);
  EXPECT_EQ(parse_function("e5m2_minimumNumber")->arity(), 2);
  const auto lt = parse_function("f32_lt_quiet");  // the longest operation suffix wins
  EXPECT_EQ(lt->name(), "f32_lt_quiet");
  EXPECT_EQ(lt->signature().operands[0].name, "f32");
  EXPECT_EQ(lt->signature().result_hex_digits(), 1);
  EXPECT_EQ(lt->signature().result.width(), 1);
  EXPECT_EQ(parse_function("f64_eq_signaling")->signature().operands[0].width(), 64);
  // Format names with underscores of their own, aliases, P3109 names and custom specs.
  EXPECT_EQ(parse_function("float8_e4m3fn_lt_quiet")->signature().operands[0].name, "e4m3");
  EXPECT_EQ(parse_function("binary8p3se_mul")->signature().operands[0].width(), 8);
  const auto custom = parse_function("custom:e=3,m=2_add");
  EXPECT_EQ(custom->arity(), 2);
  EXPECT_EQ(custom->signature().operands[0].exp_bits, 3);
  EXPECT_EQ(custom->signature().operands[0].man_bits, 2);
  EXPECT_EQ(custom->name(), custom->signature().operands[0].name + "_add");
  // Every operation parses in every built-in format.
  for (const Format& f : builtin_formats())
    for (const OpInfo& op : all_ops()) {
      const std::string name = f.name + "_" + std::string(op.name);
      const auto fn = parse_function(name);
      EXPECT_EQ(fn->name(), name);
      EXPECT_EQ(fn->arity(), op.arity) << name;
    }
  // Conversions are unaffected.
  EXPECT_EQ(parse_function("f32_to_e4m3")->arity(), 1);
}

TEST(OperationNames, Errors) {
  std::string e = error_of([] { parse_function("bf16_fma"); });
  EXPECT_TRUE(contains(e, "FUNCTION 'bf16_fma'")) << e;
  EXPECT_TRUE(contains(e, "unknown operation 'fma'")) << e;
  EXPECT_TRUE(contains(e, "mulAdd")) << e;  // lists the operations
  e = error_of([] { parse_function("f32_lt_quite"); });
  EXPECT_TRUE(contains(e, "unknown operation 'lt_quite'")) << e;
  e = error_of([] { parse_function("zz9_add"); });
  EXPECT_TRUE(contains(e, "FUNCTION 'zz9_add'")) << e;
  EXPECT_TRUE(contains(e, "unknown format 'zz9'")) << e;
  e = error_of([] { parse_function("add"); });
  EXPECT_TRUE(contains(e, "FUNCTION: unknown function 'add'")) << e;
  EXPECT_TRUE(contains(e, "<fmt>_<op>")) << e;
  e = error_of([] { parse_op("fma"); });
  EXPECT_TRUE(contains(e, "OP: unknown operation 'fma'")) << e;
  EXPECT_EQ(parse_op("mulAdd"), Op::mul_add);
  bool listed = false;
  for (const auto& fam : families()) listed |= fam.syntax == "<fmt>_<op>";
  EXPECT_TRUE(listed);
}

// ---- lines ----

TEST(OperationLines, ComparisonResultIsOneDigit) {
  const auto f = parse_function("f32_lt");
  const std::uint64_t ops[] = {0x3F800000, 0x40000000};
  EXPECT_EQ(format_line(f->signature(), ops, 1, 0), "3F800000 40000000 1 00");
  EXPECT_EQ(format_capacity(f->signature()), std::string("3F800000 40000000 1 00").size());
  Line l;
  EXPECT_EQ(parse_line("3F800000 40000000 1 00", f->signature(), LineKind::complete, l), "");
  EXPECT_EQ(l.result, 1u);
  EXPECT_TRUE(contains(parse_line("3F800000 40000000 01 00", f->signature(), LineKind::complete, l),
                       "field 3 (result) '01': expected 1 hex digit"));
  EXPECT_TRUE(contains(parse_line("3F800000 40000000 2 00", f->signature(), LineKind::complete, l),
                       "does not fit in 1 bit"));
  const auto g = parse_function("bf16_mulAdd");
  const std::uint64_t three[] = {0x3F80, 0x4000, 0xBF80};
  EXPECT_EQ(format_line(g->signature(), three, 0x3F80, 0), "3F80 4000 BF80 3F80 00");
  EXPECT_TRUE(contains(parse_line("3F80 4000 3F80 00", g->signature(), LineKind::complete, l),
                       "expected 5 fields (op1 op2 op3 result flags), got 4"));
  EXPECT_EQ(parse_line("3F80 4000 BF80", g->signature(), LineKind::operands_or_complete, l), "");
  EXPECT_FALSE(l.has_result);
}

// ---- hand-worked cases: emu and the oracle must both give them ----

struct Case {
  const char* function;
  std::vector<std::uint64_t> ops;
  std::uint64_t bits;
  std::uint8_t flags;
  const char* round = "rne";
  const char* sat = nullptr;
  const char* nan = nullptr;
  bool exact_int = true;
};

const Case kCases[] = {
    {"bf16_add", {0x3F80, 0x3F80}, 0x4000, 0x00},             // 1 + 1 = 2
    {"bf16_add", {0x3F80, 0x3A83}, 0x3F80, 0x01},             // 1 + ~1e-3: below half an ulp
    {"bf16_add", {0x3F80, 0x3A83}, 0x3F81, 0x01, "up"},       // ... rounded up: 1 + 2^-7
    {"bf16_sub", {0x3F80, 0x3F80}, 0x0000, 0x00},             // x - x = +0
    {"bf16_sub", {0x3F80, 0x3F80}, 0x8000, 0x00, "down"},     // ... -0 rounding down
    {"bf16_add", {0x7F80, 0xFF80}, 0x7FC0, 0x10},             // inf - inf: default NaN
    {"bf16_add", {0x7F7F, 0x7F7F}, 0x7F80, 0x05},             // max + max overflows
    {"e4m3_add", {0x7E, 0x60}, 0x7F, 0x05},                   // 448 + 32 = 480: NaN (no sat)
    {"e4m3_add", {0x7E, 0x60}, 0x7E, 0x05, "rne", "finite"},  // ... 448 with sat finite
    {"e4m3_add", {0x7E, 0x58}, 0x7E, 0x01},                   // 448 + 16 = 464: tie to 448
    {"e2m1_mul", {0x03, 0x03}, 0x04, 0x01},                   // 1.5 * 1.5 = 2.25 -> 2
    {"e2m1_mul", {0x05, 0x05}, 0x07, 0x05},                   // 3 * 3 = 9: overflow -> 6
    {"e2m1_mul", {0x05, 0x0D}, 0x0F, 0x05},                   // 3 * -3 -> -6 (sign bit 0x8)
    {"f32_div", {0x3F800000, 0x00000000}, 0x7F800000, 0x08},  // 1 / 0 = inf, divide by zero
    {"f32_div", {0x00000000, 0x00000000}, 0x7FC00000, 0x10},  // 0 / 0 invalid
    {"f16_sqrt", {0x4400}, 0x4000, 0x00},                     // sqrt(4) = 2
    {"f16_sqrt", {0x4000}, 0x3DA8, 0x01},                     // sqrt(2) = 1.0110101000|001...
    {"f16_sqrt", {0xBC00}, 0x7E00, 0x10},                     // sqrt(-1) invalid
    {"f16_sqrt", {0x8000}, 0x8000, 0x00},                     // sqrt(-0) = -0
    {"e4m3_mulAdd", {0x3C, 0x40, 0x01}, 0x44, 0x01},          // 1.5 * 2 + 2^-9 -> 3
    {"e4m3_mulAdd", {0x3C, 0x40, 0xC4}, 0x00, 0x00},          // 1.5 * 2 - 3 = +0
    {"f32_mulAdd", {0x00000000, 0x7F800000, 0x7FC00000}, 0x7FC00000, 0x00},  // 0*inf + qNaN
    {"f32_mulAdd", {0x00000000, 0x7F800000, 0x7FC00000}, 0x7FC00000, 0x10, "rne", nullptr, "riscv"},
    {"f32_roundToInt", {0x40200000}, 0x40000000, 0x01},  // 2.5 -> 2 (ties to even)
    {"f32_roundToInt", {0x40200000}, 0x40000000, 0x00, "rne", nullptr, nullptr, false},
    {"f32_roundToInt", {0x40200000}, 0x40400000, 0x01, "rna"},    // 2.5 -> 3
    {"f32_roundToInt", {0xBF000000}, 0x80000000, 0x01},           // -0.5 -> -0
    {"f32_minimum", {0x00000000, 0x80000000}, 0x80000000, 0x00},  // -0 < +0
    {"f32_maximum", {0x00000000, 0x80000000}, 0x00000000, 0x00},
    {"f32_maximumNumber", {0x7FC00000, 0x3F800000}, 0x3F800000, 0x00},
    {"f32_maximumNumber", {0x7F800001, 0x3F800000}, 0x3F800000, 0x10},  // signaling: invalid
    {"f32_minimum", {0x7FC00000, 0x3F800000}, 0x7FC00000, 0x00},
    {"f32_lt_quiet", {0x3F800000, 0x40000000}, 1, 0x00},
    {"f32_lt_quiet", {0x40000000, 0x3F800000}, 0, 0x00},
    {"f32_lt_quiet", {0x7FC00000, 0x3F800000}, 0, 0x00},
    {"f32_lt_quiet", {0x7F800001, 0x3F800000}, 0, 0x10},
    {"f32_lt", {0x7FC00000, 0x3F800000}, 0, 0x10},
    {"f32_le", {0x3F800000, 0x3F800000}, 1, 0x00},
    {"f32_eq", {0x00000000, 0x80000000}, 1, 0x00},  // +0 = -0
    {"f32_eq", {0x7FC00000, 0x7FC00000}, 0, 0x00},
    {"f32_eq_signaling", {0x7FC00000, 0x3F800000}, 0, 0x10},
    // NaN policies: a NaN operand's payload comes back, or the default NaN.
    {"bf16_add", {0x7FC1, 0x3F80}, 0x7FC1, 0x00, "rne", nullptr, "ieee"},
    {"bf16_add", {0x7FC1, 0x3F80}, 0x7FC1, 0x00, "rne", nullptr, "x86"},
    {"bf16_add", {0x7FC1, 0x3F80}, 0x7FC0, 0x00, "rne", nullptr, "riscv"},
    {"bf16_add", {0x7FC1, 0x3F80}, 0x7FC0, 0x00, "rne", nullptr, "arm-default-nan"},
    {"bf16_add", {0x7FC1, 0x3F80}, 0x7FFF, 0x00, "rne", nullptr, "nvidia"},
    {"bf16_add", {0x7F80, 0xFF80}, 0xFFC0, 0x10, "rne", nullptr, "x86"},
    {"bf16_mul", {0x3F80, 0x7F81}, 0x7FC1, 0x10},  // signaling NaN: quieted, invalid
};

Options case_options(const Case& c) {
  OptionText t;
  t.round = c.round;
  if (c.sat) t.sat = c.sat;
  if (c.nan) t.nan = c.nan;
  t.exact_int = c.exact_int;
  return make_options(t);
}

class HandCases : public ::testing::TestWithParam<Case> {};

TEST_P(HandCases, EmuAndOracle) {
  const Case& c = GetParam();
  const auto f = parse_function(c.function);
  const Options o = case_options(c);
  Operands ops{};
  for (std::size_t k = 0; k < c.ops.size(); ++k) ops[k] = c.ops[k];
  const Result want{c.bits, c.flags};
  EXPECT_EQ(f->emu(ops.data(), o), want) << "emu " << c.function;
  EXPECT_EQ(f->oracle(ops.data(), o), want) << "oracle " << c.function;
}

INSTANTIATE_TEST_SUITE_P(Spec, HandCases, ::testing::ValuesIn(kCases));

TEST(OperationOptions, NanPolicyAndExact) {
  OptionText t;
  EXPECT_EQ(make_options(t).nan, nullptr);
  EXPECT_TRUE(make_options(t).exact_int);
  t.nan = "x86";
  EXPECT_EQ(make_options(t).nan->name, "x86");
  t.exact_int = false;
  EXPECT_FALSE(make_options(t).exact_int);
  t.nan = "sparc";
  const std::string e = error_of([&] { make_options(t); });
  EXPECT_TRUE(contains(e, "--nan: unknown NaN policy 'sparc'")) << e;
  const auto f = parse_function("f32_add");
  OptionText p;
  p.profile = "nvidia";
  const std::uint64_t ops[] = {0x3F800000, 0x3F800000};
  EXPECT_TRUE(contains(error_of([&] { f->emu(ops, make_options(p)); }), "--profile")) << "emu";
  EXPECT_TRUE(contains(error_of([&] { f->oracle(ops, make_options(p)); }), "--profile"));
}

// ---- patterns ----

using Tuple = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;

std::set<Tuple> tuples(const std::vector<Operands>& p) {
  std::set<Tuple> s;
  for (const auto& o : p) s.insert({o[0], o[1], o[2]});
  return s;
}

std::size_t distinct(std::vector<Operands> p) {
  std::sort(p.begin(), p.end());
  return static_cast<std::size_t>(std::unique(p.begin(), p.end()) - p.begin());
}

TEST(OperationPatterns, DuplicateFreeInRangeAndSized) {
  for (const char* name : {"bf16_add",
                           "f32_sub",
                           "f64_mul",
                           "f16_div",
                           "tf32_add",
                           "e4m3_add",
                           "e5m2_mulAdd",
                           "bf16_mulAdd",
                           "f32_mulAdd",
                           "f64_mulAdd",
                           "f16_sqrt",
                           "f64_sqrt",
                           "f32_roundToInt",
                           "f64_roundToInt",
                           "bf16_lt_quiet",
                           "f32_minimumNumber",
                           "e2m1_mul",
                           "e2m3_mulAdd",
                           "ue8m0_mul",
                           "e4m3fnuz_add",
                           "binary8p3se_div",
                           "custom:e=3,m=2_add",
                           "custom:e=5,m=12,inf=none,nan=ones_mulAdd"}) {
    const auto f = parse_function(name);
    const std::uint64_t mask = f->signature().operands[0].code_mask();
    std::size_t prev = 0;
    for (int level : {1, 2}) {
      const auto p = f->patterns(level);
      EXPECT_EQ(distinct(p), p.size()) << name << " level " << level;
      // Patterns are emitted whole even past -n: keep them within the default counts.
      EXPECT_LE(p.size(), default_count(level)) << name << " level " << level;
      EXPECT_GE(p.size(), prev) << name << " level " << level;
      prev = p.size();
      for (const auto& o : p)
        for (int k = 0; k < 3; ++k)
          ASSERT_EQ(o[k] & ~(k < f->arity() ? mask : 0), 0u) << name << " operand " << k;
    }
  }
}

TEST(OperationPatterns, IncludeSpecials) {
  const auto s = tuples(parse_function("bf16_add")->patterns(1));
  for (Tuple t : {Tuple{0x7F80, 0xFF80, 0},   // inf + -inf
                  Tuple{0x7FC0, 0x3F80, 0},   // qNaN
                  Tuple{0x7F81, 0x3F80, 0},   // sNaN
                  Tuple{0x0000, 0x8000, 0},   // +0 + -0
                  Tuple{0x0001, 0x8001, 0},   // min subnormals
                  Tuple{0x7F7F, 0x7F7F, 0},   // max + max
                  Tuple{0x3F80, 0xBF80, 0},   // 1 - 1
                  Tuple{0x3F80, 0xBF81, 0},   // 1 - next: cancellation
                  Tuple{0x0080, 0x807F, 0}})  // min normal - max subnormal
    EXPECT_TRUE(s.count(t)) << std::hex << std::get<0>(t) << " " << std::get<1>(t);
  const auto m = tuples(parse_function("f32_mulAdd")->patterns(1));
  for (Tuple t : {Tuple{0x00000000, 0x7F800000, 0x7FC00000},   // 0 * inf + qNaN
                  Tuple{0x3F800000, 0x3F800000, 0xBF800000},   // 1 * 1 - 1: exact zero
                  Tuple{0x7F800000, 0x3F800000, 0xFF800000}})  // inf - inf
    EXPECT_TRUE(m.count(t)) << std::hex << std::get<0>(t) << " " << std::get<1>(t) << " "
                            << std::get<2>(t);
  std::set<std::uint64_t> sq;
  for (const auto& o : parse_function("f32_sqrt")->patterns(1)) sq.insert(o[0]);
  for (std::uint64_t c :
       {0x00000000ull, 0x80000000ull, 0x7F800000ull, 0xFF800000ull, 0x7FC00000ull, 0x7F800001ull,
        0x3F800000ull, 0xBF800000ull, 0x00000001ull, 0x7F7FFFFFull})
    EXPECT_TRUE(sq.count(c)) << std::hex << c;
}

TEST(OperationPatterns, SmallFormatsEnumerate) {
  // Level 2 of an 8-bit binary operation: every pair; of a 4-bit one: every pair at level 1.
  EXPECT_EQ(parse_function("e4m3_mul")->patterns(2).size(), 65536u);
  EXPECT_EQ(parse_function("e2m1_mul")->patterns(1).size(), 256u);
  EXPECT_EQ(parse_function("e3m2_lt")->patterns(1).size(), 4096u);
  EXPECT_EQ(parse_function("e2m1_mulAdd")->patterns(1).size(), 4096u);
  EXPECT_EQ(parse_function("e2m3_mulAdd")->patterns(2).size(), 262144u);
  EXPECT_EQ(parse_function("e4m3_sqrt")->patterns(1).size(), 256u);
  EXPECT_EQ(parse_function("bf16_roundToInt")->patterns(2).size(), 65536u);
  // mulAdd at level 2 in 8 bits: every product with each chosen addend.
  const auto p = parse_function("e4m3_mulAdd")->patterns(2);
  std::set<std::pair<std::uint64_t, std::uint64_t>> products;
  for (const auto& o : p) products.insert({o[0], o[1]});
  EXPECT_EQ(products.size(), 65536u);
  EXPECT_GT(p.size(), 8u * 65536u);
}

TEST(OperationGenerate, Exhaustive) {
  GenOptions g;
  g.exhaustive = true;
  std::uint64_t n = 0;
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  generate(*parse_function("e2m1_mul"), g, [&](const std::uint64_t* o) {
    ++n;
    seen.insert({o[0], o[1]});
  });
  EXPECT_EQ(n, 256u);
  EXPECT_EQ(seen.size(), 256u);
  n = 0;
  generate(*parse_function("e2m1_mulAdd"), g, [&](const std::uint64_t*) { ++n; });
  EXPECT_EQ(n, 4096u);
  // 3 x 8 bits and 2 x 16 bits fit the 32-bit limit; 2 x 32 does not.
  const Options o;
  EXPECT_NO_THROW(check_gen(*parse_function("e4m3_mulAdd"), o, g));
  EXPECT_NO_THROW(check_gen(*parse_function("bf16_add"), o, g));
  EXPECT_TRUE(
      contains(error_of([&] { check_gen(*parse_function("f32_add"), o, g); }), "--exhaustive"));
}

TEST(OperationGenerate, RandomCasesStayInTheFormat) {
  for (const char* name : {"bf16_add", "e4m3_mulAdd", "f16_sqrt", "f64_div", "f32_roundToInt",
                           "e5m2_eq", "ue8m0_mul", "custom:e=3,m=2_mulAdd"}) {
    const auto f = parse_function(name);
    const std::uint64_t mask = f->signature().operands[0].code_mask();
    for (int level : {1, 2}) {
      Rng rng(7);
      Operands ops{};
      for (int i = 0; i < 20000; ++i) {
        f->random_case(rng, level, ops.data());
        for (int k = 0; k < f->arity(); ++k) ASSERT_EQ(ops[k] & ~mask, 0u) << name;
      }
    }
  }
}

// ---- gen | ver ----

VerSummary round_trip(const char* name, const Options& o, std::uint64_t n, int level = 1,
                      std::string* report = nullptr) {
  const auto f = parse_function(name);
  GenOptions g;
  g.n = n;
  g.level = level;
  g.seed = 3;
  OutputStream lines;
  run_gen(*f, o, g, lines.get());
  InputStream in(lines.str());
  OutputStream out;
  const VerSummary s = run_ver(*f, o, in.get(), out.get());
  if (report) *report = out.str().substr(0, 2000);
  return s;
}

TEST(OperationRoundTrip, GenPipedIntoVerPasses) {
  struct {
    const char* name;
    const char* round;
    const char* extra;
  } runs[] = {
      {"bf16_add", "rne", ""},
      {"e4m3_mulAdd", "rne", ""},
      {"f16_sqrt", "rne", ""},
      {"e2m1_mul", "rne", ""},
      {"f32_lt_quiet", "rne", ""},
      {"bf16_sub", "down", ""},
      {"e5m2_div", "up", "finite"},
      {"f32_mul", "rtz", "ftz"},
      {"f16_add", "rna", "daz"},
      {"e4m3_add", "rne", "finite"},
      {"bf16_mulAdd", "odd", ""},
      {"f32_roundToInt", "rne", ""},
      {"f32_roundToInt", "down", "notexact"},
      {"bf16_mul", "rne", "x86"},
      {"f16_mulAdd", "rne", "riscv"},
      {"e5m2_minimumNumber", "rne", "nvidia"},
      {"bf16_le", "rne", ""},
      {"f64_add", "rne", "before"},
  };
  for (const auto& r : runs) {
    OptionText t;
    t.round = r.round;
    const std::string x = r.extra;
    if (x == "finite") t.sat = "finite";
    if (x == "ftz") t.ftz = true;
    if (x == "daz") t.daz = true;
    if (x == "before") t.tininess = "before";
    if (x == "notexact") t.exact_int = false;
    if (x == "x86" || x == "riscv" || x == "nvidia") t.nan = x;
    const Options o = make_options(t);
    std::string report;
    const VerSummary s = round_trip(r.name, o, 20000, 1, &report);
    EXPECT_EQ(s.failed, 0u) << r.name << " " << r.round << " " << r.extra << "\n" << report;
    EXPECT_GE(s.passed, 20000u) << r.name;
  }
}

TEST(OperationRoundTrip, Level2) {
  std::string report;
  const VerSummary s = round_trip("e2m3_mul", Options{}, 5000, 2, &report);
  EXPECT_EQ(s.failed, 0u) << report;
  EXPECT_EQ(s.passed, 5000u);  // 4096 pairs, then random cases
}

TEST(OperationVer, ReportsCorruptedLine) {
  const auto f = parse_function("bf16_add");
  const Options o;
  // Two good lines (hand-worked: 1 + 1 = 2; 1 + 2 = 3, 0x4040) and one with a wrong result.
  InputStream in("3F80 3F80 4000 00\n3F80 4000 4040 00\n3F80 3F80 4001 00\n");
  OutputStream out;
  const VerSummary s = run_ver(*f, o, in.get(), out.get());
  EXPECT_EQ(s.passed, 2u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(out.str(), "line 3: 3F80 3F80 4001 00 expected 4000 00\n2 passed, 1 failed\n");
  // A comparison with the wrong flags.
  const auto lt = parse_function("f32_lt");
  InputStream in2("7FC00000 3F800000 0 00\n");
  OutputStream out2;
  EXPECT_EQ(run_ver(*lt, o, in2.get(), out2.get()).failed, 1u);
  EXPECT_EQ(out2.str(), "line 1: 7FC00000 3F800000 0 00 expected 0 10\n0 passed, 1 failed\n");
}

TEST(OperationVer, MalformedLinesStopWithoutSummary) {
  const Options o;
  struct {
    const char* function;
    const char* text;
    const char* where;
    const char* message;
  } bad[] = {
      {"bf16_add", "3F80 3F80 4000 00\n3F80 4000 00\n", "line 2", "expected 4 fields"},
      {"bf16_add", "3F80 3F80 04000 00\n", "line 1",
       "field 3 (result) '04000': expected 4 hex digits"},
      {"e4m3_mulAdd", "3C 40 01 044 01\n", "line 1", "field 4 (result)"},
      {"e4m3_mulAdd", "3C 40 44 01\n", "line 1", "expected 5 fields"},
      {"f32_lt_quiet", "3F800000 40000000 01 00\n", "line 1", "expected 1 hex digit"},
      {"e2m1_mul", "13 03 04 01\n", "line 1", "does not fit in 4 bits"},
      {"f16_sqrt", "4400 4000 0G\n", "line 1", "(flags)"},
  };
  for (const auto& b : bad) {
    const auto f = parse_function(b.function);
    InputStream in(b.text);
    OutputStream out;
    try {
      run_ver(*f, o, in.get(), out.get());
      ADD_FAILURE() << b.function << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), b.where) << b.function;
      EXPECT_TRUE(contains(e.what(), b.message)) << e.what();
    }
    EXPECT_FALSE(contains(out.str(), "passed")) << b.function;
  }
}

TEST(OperationEval, WritesCompleteLines) {
  const auto f = parse_function("bf16_add");
  InputStream in("3F80 3F80\n3F80 4000 0000 00\n");
  OutputStream out;
  EXPECT_EQ(run_eval(*f, Options{}, in.get(), out.get()), 2u);
  EXPECT_EQ(out.str(), "3F80 3F80 4000 00\n3F80 4000 4040 00\n");
  const auto lt = parse_function("e4m3_lt");
  InputStream in2("38 40\n");  // 1 < 2
  OutputStream out2;
  run_eval(*lt, Options{}, in2.get(), out2.get());
  EXPECT_EQ(out2.str(), "38 40 1 00\n");
}

TEST(Args, ExactSpellings) {
  EXPECT_EQ(rewrite_testfloat_args({"f32_roundToInt", "-exact", "-notexact"}),
            (std::vector<std::string>{"f32_roundToInt", "--exact", "--notexact"}));
}

}  // namespace
}  // namespace fpconform::testfloat
