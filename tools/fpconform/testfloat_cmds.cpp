// fpconform gen|ver|eval FUNCTION, with TestFloat's options (-rnear_even, -level 2, -n N,
// -seed S, -tininessbefore, ...; main rewrites them to the long forms).
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "fpconform/error.hpp"
#include "fpconform/testfloat/run.hpp"
#include "options.hpp"

namespace fpconform::cli {

namespace {

struct TestFloatArgs {
  std::string function;
  RoundingOptionSet rounding;
  int level = 1;
  std::uint64_t n = 0, seed = 1;
  bool exhaustive = false, exact_nan = false;
  std::string file;
  CLI::Option* file_opt = nullptr;
};

std::string function_help() {
  std::string s = "Function: ";
  for (const auto& f : testfloat::families()) s += f.syntax + " (e.g. " + f.example + ") ";
  return s;
}

testfloat::Options options_of(const TestFloatArgs& a) {
  testfloat::OptionText t = a.rounding.text();
  t.exact_nan = a.exact_nan;
  return testfloat::make_options(t);
}

struct Input {
  std::FILE* f = stdin;
  explicit Input(const TestFloatArgs& a) {
    if (a.file_opt->count() && a.file != "-") {
      f = std::fopen(a.file.c_str(), "rb");
      if (!f) throw Error("--file", "cannot open '" + a.file + "'");
    }
  }
  ~Input() {
    if (f != stdin) std::fclose(f);
  }
};

CLI::App* add_common(CLI::App& app, const char* name, const char* help, TestFloatArgs& a) {
  auto* sub = app.add_subcommand(name, help);
  sub->footer(
      "TestFloat's spellings work too: -rnear_even -rnear_maxMag -rminMag -rmin -rmax -rodd,\n"
      "-tininessbefore -tininessafter, -level N, -seed S, -n N, -checkNaNs (= --exact-nan).\n"
      "Lines: operand(s) result flags, upper-case hex padded to each format's width; flags are\n"
      "TestFloat's mask (invalid 10, infinite 08, overflow 04, underflow 02, inexact 01).");
  sub->add_option("FUNCTION", a.function, function_help())->required();
  a.rounding.add_to(sub, true);
  return sub;
}

}  // namespace

void add_testfloat_commands(CLI::App& app, std::vector<Command>& commands) {
  {
    auto a = std::make_shared<TestFloatArgs>();
    auto* sub = add_common(app, "gen",
                           "Generate TestFloat lines `operands result flags`, results from the "
                           "MPFR oracle",
                           *a);
    sub->add_option("--level", a->level, "1 or 2 (TestFloat -level)")->capture_default_str();
    sub->add_option("-n", a->n, "Number of cases (default 100000 at level 1, 1000000 at 2; "
                                "the pattern set is always complete)");
    sub->add_option("--seed", a->seed, "Seed of the random cases")->capture_default_str();
    sub->add_flag("--exhaustive", a->exhaustive, "Every operand code (at most 32 bits)");
    commands.push_back({sub, [a] {
                          const auto fn = testfloat::parse_function(a->function);
                          const testfloat::Options o = options_of(*a);
                          testfloat::GenOptions g;
                          g.level = a->level;
                          g.n = a->n;
                          g.seed = a->seed;
                          g.exhaustive = a->exhaustive;
                          testfloat::check_gen(*fn, o, g);
                          if (!g.exhaustive)
                            std::fprintf(stderr, "fpconform gen: seed %llu\n",
                                         static_cast<unsigned long long>(g.seed));
                          testfloat::run_gen(*fn, o, g, stdout);
                          return 0;
                        }});
  }
  {
    auto a = std::make_shared<TestFloatArgs>();
    auto* sub = add_common(app, "ver",
                           "Check TestFloat lines against fpconform's emu; prints mismatches and "
                           "`P passed, F failed`; exit 1 on any failure",
                           *a);
    a->file_opt = sub->add_option("--file", a->file, "Read lines from this file (default stdin)");
    sub->add_flag("--exact-nan", a->exact_nan, "NaN results must match bit for bit");
    commands.push_back({sub, [a] {
                          const auto fn = testfloat::parse_function(a->function);
                          const testfloat::Options o = options_of(*a);
                          Input in(*a);
                          const auto sum = testfloat::run_ver(*fn, o, in.f, stdout);
                          return sum.failed ? 1 : 0;
                        }});
  }
  {
    auto a = std::make_shared<TestFloatArgs>();
    auto* sub = add_common(app, "eval",
                           "Read operand lines and write complete lines with emu's results", *a);
    a->file_opt = sub->add_option("--file", a->file, "Read lines from this file (default stdin)");
    commands.push_back({sub, [a] {
                          const auto fn = testfloat::parse_function(a->function);
                          const testfloat::Options o = options_of(*a);
                          Input in(*a);
                          testfloat::run_eval(*fn, o, in.f, stdout);
                          return 0;
                        }});
  }
}

}  // namespace fpconform::cli
